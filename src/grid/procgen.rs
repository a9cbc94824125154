//! Procedural maps from a seed, so everything runs without map files.
//!
//! Each generator is deterministic: the same parameters and seed give the same grid on every
//! platform (ChaCha8 stream seeded from the `u64`).
//!
//! ```
//! use throng::grid::procgen::MapGenerator;
//!
//! let maze = MapGenerator::Maze { width: 41, height: 21, corridor: 1 }.generate(7)?;
//! let again = MapGenerator::Maze { width: 41, height: 21, corridor: 1 }.generate(7)?;
//! assert_eq!(maze.walkable_count(), again.walkable_count());
//! // A perfect maze is one connected component.
//! assert_eq!(maze.components().count(), 1);
//! # Ok::<(), throng::error::Error>(())
//! ```

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::{Grid, checked_cell_count};
use crate::error::{Error, Result};

mod spec;

/// A recipe for a procedural map. Serializable so scenario files can name one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MapGenerator {
    /// Every cell blocked independently with probability `density` (0 to below 1), like the
    /// Moving AI `random512-10` maps.
    Random {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
        /// Fraction of blocked cells, 0 to 1.
        density: f64,
    },
    /// A lattice of square rooms separated by one-cell walls, each wall pierced by a door at a
    /// random place, like the Moving AI `8room` maps.
    Rooms {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
        /// Inside size of a room, in cells (at least 1).
        room: u32,
        /// Width of each door, in cells (at least 1, at most `room`).
        door: u32,
    },
    /// A perfect maze (one route between any two cells) carved by a randomised depth-first
    /// search, with corridors and walls `corridor` cells wide.
    Maze {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
        /// Corridor width in cells (at least 1).
        corridor: u32,
    },
}

impl MapGenerator {
    /// Builds the grid for `seed`.
    ///
    /// # Errors
    /// [`Error::InvalidGrid`] for a size or parameter out of range.
    pub fn generate(&self, seed: u64) -> Result<Grid> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        match *self {
            MapGenerator::Random {
                width,
                height,
                density,
            } => {
                if !(0.0..1.0).contains(&density) {
                    return Err(Error::InvalidGrid(format!(
                        "density {density} is not from 0 to below 1 (1 blocks every cell)"
                    )));
                }
                let cells = checked_cell_count(width, height)?;
                let walkable = (0..cells).map(|_| rng.random::<f64>() >= density).collect();
                Grid::from_walkable(width, height, walkable)
            }
            MapGenerator::Rooms {
                width,
                height,
                room,
                door,
            } => rooms(width, height, room, door, &mut rng),
            MapGenerator::Maze {
                width,
                height,
                corridor,
            } => maze(width, height, corridor, &mut rng),
        }
    }

    /// `(width, height)` of the grid it makes.
    pub fn size(&self) -> (u32, u32) {
        match *self {
            MapGenerator::Random { width, height, .. }
            | MapGenerator::Rooms { width, height, .. }
            | MapGenerator::Maze { width, height, .. } => (width, height),
        }
    }
}

fn rooms(width: u32, height: u32, room: u32, door: u32, rng: &mut ChaCha8Rng) -> Result<Grid> {
    if room == 0 || door == 0 || door > room {
        return Err(Error::InvalidGrid(format!(
            "rooms: room {room} and door {door} must satisfy 1 <= door <= room"
        )));
    }
    // Only the size is checked here: a whole grid (moves, components) just for its length
    // cost 1.8 GB and seconds at 16384 x 16384.
    let cells = checked_cell_count(width, height)?;
    let (w, h) = (width as usize, height as usize);
    let pitch = room as usize + 1;
    let mut walkable = vec![true; cells];
    // Walls on every row and column that is a multiple of the pitch (after the first room).
    for y in 0..h {
        for x in 0..w {
            if (x % pitch == room as usize) || (y % pitch == room as usize) {
                walkable[y * w + x] = false;
            }
        }
    }
    // One door in every wall segment between two neighbouring rooms.
    let span = |start: usize, limit: usize| (start, (start + room as usize).min(limit));
    let mut open_door =
        |walkable: &mut Vec<bool>, from: usize, to: usize, fixed: usize, vertical: bool| {
            let len = to - from;
            if len == 0 {
                return;
            }
            let d = (door as usize).min(len);
            let at = from + rng.random_range(0..=len - d);
            for i in at..at + d {
                let (x, y) = if vertical { (fixed, i) } else { (i, fixed) };
                walkable[y * w + x] = true;
            }
        };
    for ry in (0..h).step_by(pitch) {
        for rx in (0..w).step_by(pitch) {
            let wall_x = rx + room as usize;
            if wall_x < w - 1 {
                let (a, b) = span(ry, h);
                open_door(&mut walkable, a, b, wall_x, true);
            }
            let wall_y = ry + room as usize;
            if wall_y < h - 1 {
                let (a, b) = span(rx, w);
                open_door(&mut walkable, a, b, wall_y, false);
            }
        }
    }
    Grid::from_walkable(width, height, walkable)
}

fn maze(width: u32, height: u32, corridor: u32, rng: &mut ChaCha8Rng) -> Result<Grid> {
    if corridor == 0 {
        return Err(Error::InvalidGrid(
            "maze: corridor must be at least 1".into(),
        ));
    }
    // Only the size is checked here: a whole grid (moves, components) just for its length
    // cost 1.8 GB and seconds at 16384 x 16384.
    let cells = checked_cell_count(width, height)?;
    let (w, h) = (width as usize, height as usize);
    let c = corridor as usize;
    let pitch = 2 * c;
    // Maze nodes are corridor-sized squares at multiples of the pitch; walls fill the rest.
    let nx = (w + c) / pitch;
    let ny = (h + c) / pitch;
    let mut walkable = vec![false; cells];
    if nx == 0 || ny == 0 {
        return Err(Error::InvalidGrid(format!(
            "maze: {width} x {height} is too small for corridors of {corridor}"
        )));
    }
    let carve = |walkable: &mut Vec<bool>, x0: usize, y0: usize, cw: usize, ch: usize| {
        for y in y0..(y0 + ch).min(h) {
            for x in x0..(x0 + cw).min(w) {
                walkable[y * w + x] = true;
            }
        }
    };
    let mut visited = vec![false; nx * ny];
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    carve(&mut walkable, 0, 0, c, c);
    while let Some(&(x, y)) = stack.last() {
        let mut options = [(0usize, 0usize); 4];
        let mut count = 0;
        let candidates = [
            (x.wrapping_sub(1), y),
            (x + 1, y),
            (x, y.wrapping_sub(1)),
            (x, y + 1),
        ];
        for (cx, cy) in candidates {
            if cx < nx && cy < ny && !visited[cy * nx + cx] {
                options[count] = (cx, cy);
                count += 1;
            }
        }
        if count == 0 {
            stack.pop();
            continue;
        }
        let (cx, cy) = options[rng.random_range(0..count)];
        visited[cy * nx + cx] = true;
        // Carve the node and the wall between it and the current node.
        let (x0, y0) = (x.min(cx) * pitch, y.min(cy) * pitch);
        let (cw, ch) = if cx != x {
            (pitch + c, c)
        } else {
            (c, pitch + c)
        };
        carve(&mut walkable, x0, y0, cw, ch);
        stack.push((cx, cy));
    }
    Grid::from_walkable(width, height, walkable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_density_is_close_and_seeded() {
        let gen_ = MapGenerator::Random {
            width: 200,
            height: 200,
            density: 0.25,
        };
        let a = gen_.generate(1).unwrap();
        let b = gen_.generate(1).unwrap();
        let c = gen_.generate(2).unwrap();
        let blocked = a.len() - a.walkable_count();
        let frac = blocked as f64 / a.len() as f64;
        assert!((frac - 0.25).abs() < 0.01, "density {frac}");
        let same = (0..a.len() as u32).all(|i| a.is_walkable(i) == b.is_walkable(i));
        let differs = (0..a.len() as u32).any(|i| a.is_walkable(i) != c.is_walkable(i));
        assert!(same && differs);
        assert!(
            MapGenerator::Random {
                width: 4,
                height: 4,
                density: 1.5
            }
            .generate(0)
            .is_err()
        );
    }

    #[test]
    fn rooms_are_connected_through_doors() {
        let g = MapGenerator::Rooms {
            width: 64,
            height: 64,
            room: 7,
            door: 2,
        }
        .generate(3)
        .unwrap();
        assert_eq!(g.components().count(), 1);
        // Walls exist: the row after the first room is mostly blocked.
        let row: usize = (0..64)
            .filter(|&x| !g.is_walkable(g.cell(x, 7).unwrap()))
            .count();
        assert!(row > 40, "{row}");
    }

    #[test]
    fn maze_is_connected_and_has_walls() {
        for corridor in [1, 2, 3] {
            let g = MapGenerator::Maze {
                width: 60,
                height: 45,
                corridor,
            }
            .generate(11)
            .unwrap();
            assert_eq!(g.components().count(), 1, "corridor {corridor}");
            let frac = g.walkable_count() as f64 / g.len() as f64;
            assert!((0.3..0.7).contains(&frac), "corridor {corridor}: {frac}");
        }
        assert!(
            MapGenerator::Maze {
                width: 1,
                height: 1,
                corridor: 2
            }
            .generate(0)
            .is_err()
        );
    }
}
