//! Static lanes ("highways") for the distance tables of the `pibt` planner: every free cell
//! gets a preferred way along each axis, and a step against it costs more, so that the
//! shortest routes of robots going opposite ways keep to different corridors instead of
//! meeting head on (where robots that must turn to give way block each other for long).
//!
//! Crisscross, after "Guidance Graph Optimization for Lifelong MAPF" (Zhang et al. 2024),
//! where such highways beat plain distances on warehouse maps: along a row, robots go east on
//! one row and west on the next; along a column, south on one and north on the next. Where
//! the map has one-cell-wide corridors (walls on both sides), the corridors alternate among
//! themselves (so that two neighbouring aisles of a warehouse run opposite ways whatever
//! their spacing); open ground alternates by row and column.
//!
//! The `window` planner settles head-on meetings within its window by search, so lanes pay
//! there only where trips are much longer than the window: [`for_window`] turns them on when
//! two free cells lie more than [`WINDOWS_APART`] windows apart on average
//! ([`mean_free_distance`]).

use crate::grid::{CellId, Grid};
use crate::sim::Heading;

/// Per cell of `grid`: the cost of entering it moving each way ([`Heading`] order), 1 along
/// or across its lanes and `against` against them.
pub fn crisscross(grid: &Grid, against: u8) -> Vec<[u8; 4]> {
    let (w, h) = (grid.width(), grid.height());
    let free = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && (x as u32) < w
            && (y as u32) < h
            && grid.is_walkable(grid.cell(x as u32, y as u32).expect("on the map"))
    };
    // A cell of a narrow horizontal corridor has walls north and south; of a vertical one,
    // east and west.
    let narrow_row = |x: i64, y: i64| free(x, y) && !free(x, y - 1) && !free(x, y + 1);
    let narrow_column = |x: i64, y: i64| free(x, y) && !free(x - 1, y) && !free(x + 1, y);
    // The rank of each row among the rows with narrow cells (and of each column).
    let rank = |count: u32, has: &dyn Fn(i64) -> bool| -> Vec<u32> {
        let mut r = 0;
        (0..count)
            .map(|i| {
                let this = r;
                if has(i64::from(i)) {
                    r += 1;
                }
                this
            })
            .collect()
    };
    let row_rank = rank(h, &|y| (0..i64::from(w)).any(|x| narrow_row(x, y)));
    let column_rank = rank(w, &|x| (0..i64::from(h)).any(|y| narrow_column(x, y)));
    let mut cost = vec![[1u8; 4]; grid.len()];
    for cell in 0..grid.len() as CellId {
        if !grid.is_walkable(cell) {
            continue;
        }
        let (x, y) = grid.coords(cell);
        let (xi, yi) = (i64::from(x), i64::from(y));
        let c = &mut cost[cell as usize];
        {
            let east = if narrow_row(xi, yi) {
                row_rank[y as usize] % 2 == 0
            } else {
                y % 2 == 0
            };
            c[if east { Heading::West } else { Heading::East }.index()] = against;
        }
        {
            let south = if narrow_column(xi, yi) {
                column_rank[x as usize] % 2 == 0
            } else {
                x % 2 == 0
            };
            c[if south {
                Heading::North
            } else {
                Heading::South
            }
            .index()] = against;
        }
    }
    cost
}

/// How many windows apart two free cells must lie on average (see [`mean_free_distance`])
/// for the `window` planner to use lanes ([`for_window`]).
pub const WINDOWS_APART: f64 = 4.0;

/// The mean Manhattan distance between two free cells of `grid` (walls ignored; pairs drawn
/// independently, a cell with itself included): a map's typical trip length, cheap to know.
/// 0 on a map without free cells.
///
/// ```
/// use throng::grid::Grid;
///
/// // Two free cells 3 apart: pairs (a, a), (a, b), (b, a), (b, b) average 1.5.
/// let grid = Grid::from_ascii(".@@.").unwrap();
/// assert_eq!(throng::lorr::lanes::mean_free_distance(&grid), 1.5);
/// ```
pub fn mean_free_distance(grid: &Grid) -> f64 {
    let mut columns = vec![0u64; grid.width() as usize];
    let mut rows = vec![0u64; grid.height() as usize];
    for cell in 0..grid.len() as CellId {
        if grid.is_walkable(cell) {
            let (x, y) = grid.coords(cell);
            columns[x as usize] += 1;
            rows[y as usize] += 1;
        }
    }
    let free: u64 = columns.iter().sum();
    if free == 0 {
        return 0.0;
    }
    // Sum over ordered pairs of |i - j|, by the counts before each index.
    let spread = |counts: &[u64]| -> f64 {
        let (mut before, mut weighted, mut sum) = (0f64, 0f64, 0f64);
        for (i, &c) in counts.iter().enumerate() {
            let c = c as f64;
            sum += c * (i as f64 * before - weighted);
            before += c;
            weighted += c * i as f64;
        }
        2.0 * sum
    };
    let pairs = (free as f64) * (free as f64);
    (spread(&columns) + spread(&rows)) / pairs
}

/// Whether the `window` planner with a window of `window_steps` steps uses lanes on `grid`:
/// when its free cells lie more than [`WINDOWS_APART`] windows apart on average
/// ([`mean_free_distance`]). The 2024 problems: the 32 x 32 random map (21 steps, 1.4
/// windows of 15) plays without, the 256 x 256 city (about 170 steps, 11 windows) with them.
pub fn for_window(grid: &Grid, window_steps: usize) -> bool {
    mean_free_distance(grid) > WINDOWS_APART * window_steps as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Neighborhood;

    #[test]
    fn neighbouring_aisles_run_opposite_ways() {
        // Two vertical aisles (columns 1 and 5, spaced 4 apart) between walls.
        let grid = Grid::from_ascii(".......\n@.@@@.@\n@.@@@.@\n.......")
            .unwrap()
            .with_neighborhood(Neighborhood::Four);
        let cost = crisscross(&grid, 3);
        let a = cost[grid.cell(1, 1).unwrap() as usize];
        let b = cost[grid.cell(5, 1).unwrap() as usize];
        assert_ne!(a[Heading::North.index()], b[Heading::North.index()]);
        assert_eq!(a[Heading::North.index()] + a[Heading::South.index()], 4);
        // Open rows alternate.
        let r0 = cost[grid.cell(3, 0).unwrap() as usize];
        let r3 = cost[grid.cell(3, 3).unwrap() as usize];
        assert_ne!(r0[Heading::East.index()], r3[Heading::East.index()]);
    }

    #[test]
    fn the_window_planner_takes_lanes_on_a_map_whose_trips_outgrow_its_window() {
        // An open 8 x 8 map: |dx| averages (64 - 1) / 24 = 2.625 along each axis.
        let open = Grid::from_ascii(&["........"; 8].join("\n")).unwrap();
        assert!((mean_free_distance(&open) - 5.25).abs() < 1e-9);
        assert!(!for_window(&open, 15));
        assert!(for_window(&open, 1));
        // A long corridor, 200 cells: trips of about 67 steps, more than 4 windows of 15.
        let corridor = Grid::from_ascii(&".".repeat(200)).unwrap();
        assert!(for_window(&corridor, 15));
        assert!(!for_window(&corridor, 20));
    }
}
