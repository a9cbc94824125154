//! Frame drawing: the map and the agents as palette indices, one byte per pixel.
//!
//! A map narrower than the picture is scaled up by a whole number of pixels per cell; a wider
//! one is shrunk by a whole number of cells per pixel. A pixel then shows the most important
//! of its cells: palette indices are ordered by importance (free < wall < goal < arrived <
//! moving < crowd colours < waiting < no path), so drawing keeps the larger index. The map
//! behind the agents is shrunk by majority (a pixel is a wall when most of its cells are).

use super::RenderError;
use crate::grid::{CellId, Grid};
use crate::sim::{AgentState, Simulation};

/// The fixed palette (RGB) of every frame, 16 colours indexed by [`Paint::index`].
pub const PALETTE: [[u8; 3]; 16] = [
    [236, 236, 230], // 0 free cell
    [52, 54, 64],    // 1 wall
    [255, 205, 40],  // 2 goal
    [46, 170, 80],   // 3 arrived
    [40, 100, 220],  // 4 moving (or planning, idle)
    [140, 70, 200],  // 5 crowd 0
    [0, 160, 170],   // 6 crowd 1
    [150, 90, 40],   // 7 crowd 2
    [230, 90, 170],  // 8 crowd 3
    [110, 130, 20],  // 9 crowd 4
    [20, 40, 120],   // 10 crowd 5
    [90, 90, 90],    // 11 crowd 6
    [0, 110, 60],    // 12 crowd 7
    [240, 80, 30],   // 13 waiting
    [200, 0, 0],     // 14 no path
    [255, 0, 255],   // 15 unused in pictures: the GIF's "unchanged" (transparent) index
];

/// Palette index that GIF frames use for "unchanged since the previous frame".
pub(crate) const TRANSPARENT: u8 = 15;

/// What a pixel shows; a larger [`index`](Paint::index) wins over a smaller one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// A walkable cell with nothing on it.
    Free,
    /// A blocked cell.
    Wall,
    /// An agent's goal (`--render-goals`).
    Goal,
    /// An agent at its goal.
    Arrived,
    /// An agent on its way (also planning or idle).
    Moving,
    /// An agent on its way, of crowd `n` (8 colours, repeating).
    Crowd(u32),
    /// An agent that wanted to step and waited.
    Waiting,
    /// An agent with no path to its goal.
    NoPath,
}

impl Paint {
    /// The palette index, which is also the paint's importance.
    pub fn index(self) -> u8 {
        match self {
            Paint::Free => 0,
            Paint::Wall => 1,
            Paint::Goal => 2,
            Paint::Arrived => 3,
            Paint::Moving => 4,
            Paint::Crowd(n) => 5 + (n % 8) as u8,
            Paint::Waiting => 13,
            Paint::NoPath => 14,
        }
    }
}

/// How agents are coloured.
#[derive(Debug, Clone, Default)]
pub struct Colouring {
    /// Crowd of the agent in each slot (`groups[slot]`); agents on their way are drawn in
    /// their crowd's colour. Empty: coloured by state only.
    pub groups: Vec<u32>,
    /// Also mark every agent's goal.
    pub goals: bool,
}

/// One frame: the map's background and the agents drawn over it, as palette indices.
#[derive(Debug, Clone)]
pub struct Raster {
    map_width: u32,
    map_height: u32,
    scale: u32,
    shrink: u32,
    width: u32,
    height: u32,
    wall_edits: u64,
    background: Vec<u8>,
    pixels: Vec<u8>,
}

/// The widest picture accepted, in pixels.
pub const MAX_WIDTH: u32 = 8192;

/// Pixels per cell and cells per pixel for a map `map_width` cells wide drawn about
/// `width_px` pixels wide: `(scale, shrink)`, one of them 1.
pub(crate) fn fit(map_width: u32, width_px: u32) -> (u32, u32) {
    if map_width <= width_px {
        ((width_px / map_width.max(1)).max(1), 1)
    } else {
        (1, map_width.div_ceil(width_px.max(1)))
    }
}

impl Raster {
    /// A raster of `grid` at most `width_px` pixels wide: the largest whole number of pixels
    /// per cell that fits, or the smallest whole number of cells per pixel that does.
    ///
    /// # Errors
    /// [`RenderError::Invalid`] when `width_px` is 0 or over [`MAX_WIDTH`].
    pub fn new(grid: &Grid, width_px: u32) -> Result<Raster, RenderError> {
        if width_px == 0 || width_px > MAX_WIDTH {
            return Err(RenderError::Invalid(format!(
                "picture width {width_px}: expected 1 to {MAX_WIDTH} pixels"
            )));
        }
        let (map_width, map_height) = (grid.width(), grid.height());
        let (scale, shrink) = fit(map_width, width_px);
        let width = u64::from(map_width.div_ceil(shrink)) * u64::from(scale);
        let height = u64::from(map_height.div_ceil(shrink)) * u64::from(scale);
        if height > 65535 || width > 65535 {
            return Err(RenderError::Invalid(format!(
                "a {map_width} x {map_height} map at {width_px} pixels wide is {width} x {height} \
                 pixels, over 65535"
            )));
        }
        let (width, height) = (width as u32, height as u32);
        let mut raster = Raster {
            map_width,
            map_height,
            scale,
            shrink,
            width,
            height,
            wall_edits: grid.wall_edits(),
            background: vec![0; (width * height) as usize],
            pixels: vec![0; (width * height) as usize],
        };
        raster.draw_map(grid);
        Ok(raster)
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Pixels per cell (1 when cells are shrunk).
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// Cells per pixel, across and down (1 when cells are scaled up).
    pub fn shrink(&self) -> u32 {
        self.shrink
    }

    /// The palette indices, row by row.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The pixel (top left one, when scaled up) that shows cell `(x, y)`.
    pub fn pixel_of(&self, x: u32, y: u32) -> (u32, u32) {
        (x / self.shrink * self.scale, y / self.shrink * self.scale)
    }

    fn draw_map(&mut self, grid: &Grid) {
        let (w, s, k) = (self.width as usize, self.scale as usize, self.shrink);
        if k == 1 {
            for y in 0..self.map_height {
                for x in 0..self.map_width {
                    let wall = !grid.is_walkable(y * self.map_width + x);
                    let paint = if wall { 1 } else { 0 };
                    let (px, py) = (x as usize * s, y as usize * s);
                    for row in py..py + s {
                        self.background[row * w + px..row * w + px + s].fill(paint);
                    }
                }
            }
        } else {
            let cols = self.map_width.div_ceil(k) as usize;
            let mut walls = vec![0u32; cols];
            let mut cells = vec![0u32; cols];
            for py in 0..self.height as usize {
                walls.fill(0);
                cells.fill(0);
                let y0 = py as u32 * k;
                for y in y0..(y0 + k).min(self.map_height) {
                    for x in 0..self.map_width {
                        let c = (x / k) as usize;
                        cells[c] += 1;
                        walls[c] += u32::from(!grid.is_walkable(y * self.map_width + x));
                    }
                }
                for c in 0..cols {
                    self.background[py * w + c] = u8::from(walls[c] * 2 > cells[c]);
                }
            }
        }
        self.wall_edits = grid.wall_edits();
    }

    /// Paints `cell` with `paint` where that is more important than what the pixel shows.
    #[inline]
    pub fn put(&mut self, cell: CellId, paint: Paint) {
        let index = paint.index();
        let (x, y) = (cell % self.map_width, cell / self.map_width);
        let w = self.width as usize;
        if self.scale == 1 {
            let i = (y / self.shrink) as usize * w + (x / self.shrink) as usize;
            if let Some(p) = self.pixels.get_mut(i) {
                *p = (*p).max(index);
            }
        } else {
            let s = self.scale as usize;
            let (px, py) = (x as usize * s, y as usize * s);
            for row in py..py + s {
                for p in &mut self.pixels[row * w + px..row * w + px + s] {
                    *p = (*p).max(index);
                }
            }
        }
    }

    /// Draws `sim` as it is now: the map (redrawn when walls changed), then goals when asked,
    /// then every agent.
    pub fn draw(&mut self, sim: &Simulation, colouring: &Colouring) {
        let grid = sim.grid();
        if grid.wall_edits() != self.wall_edits {
            self.draw_map(grid);
        }
        self.pixels.copy_from_slice(&self.background);
        let agents = sim.agents();
        if colouring.goals {
            for (_, agent) in agents.iter() {
                if let Some(goal) = agent.goal() {
                    self.put(goal, Paint::Goal);
                }
            }
        }
        for (id, agent) in agents.iter() {
            let paint = match agent.state() {
                AgentState::Arrived => Paint::Arrived,
                AgentState::Waiting => Paint::Waiting,
                AgentState::NoPath => Paint::NoPath,
                AgentState::Moving | AgentState::Planning | AgentState::Idle => {
                    match colouring.groups.get(id.index() as usize) {
                        Some(&g) => Paint::Crowd(g),
                        None => Paint::Moving,
                    }
                }
            };
            self.put(agent.position(), paint);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_maps_scale_up_and_large_maps_shrink() {
        assert_eq!(fit(64, 512), (8, 1));
        assert_eq!(fit(100, 512), (5, 1));
        assert_eq!(fit(512, 512), (1, 1));
        assert_eq!(fit(1024, 512), (1, 2));
        assert_eq!(fit(1025, 512), (1, 3));
    }

    #[test]
    fn pictures_too_tall_for_a_gif_are_refused() {
        let grid = Grid::from_walkable(1, 70_000, vec![true; 70_000]).unwrap();
        assert!(matches!(
            Raster::new(&grid, 8192),
            Err(RenderError::Invalid(_))
        ));
        assert!(Raster::new(&grid, 0).is_err());
        let heat = crate::render::Heatmap::new(&grid, crate::render::HeatOf::Wait);
        assert!(heat.draw(&grid, 8192).is_err());
    }

    #[test]
    fn the_more_important_paint_wins_a_shared_pixel() {
        let grid = Grid::from_ascii("....\n....\n").unwrap();
        let mut r = Raster::new(&grid, 2).unwrap();
        assert_eq!((r.width(), r.height(), r.shrink()), (2, 1, 2));
        r.put(0, Paint::Waiting);
        r.put(1, Paint::Arrived);
        r.put(5, Paint::Moving); // (1, 1): pixel 0 again
        r.put(6, Paint::Moving); // (2, 1): pixel 1
        assert_eq!(r.pixels(), &[13, 4]);
    }
}
