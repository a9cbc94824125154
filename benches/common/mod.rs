//! What the benchmarks share: the shipped Moving AI maps with a thinned query set each, and
//! the `pathfinding` crate's A* given exactly throng's movement rules (8-connected, no corner
//! cutting, fixed-point octile costs), so that its answers can be checked against throng's.

#![allow(dead_code)] // each bench uses a different subset

use std::path::{Path, PathBuf};

use throng::grid::{CellId, Grid};
use throng::movingai::{ScenFile, load_map};

/// The maps benchmarked, by file stem in `sims/maps/`.
pub const MAPS: [&str; 4] = ["random512-10-0", "8room_000", "den520d", "arena"];

/// Each map keeps every `k`-th scenario query, `k = max(1, queries / TARGET_QUERIES)`, so
/// between `TARGET_QUERIES` and about twice as many remain.
pub const TARGET_QUERIES: usize = 128;

/// Fixed-point scale of `pathfinding`'s costs: the cost of a straight step.
pub const STRAIGHT: u64 = 1_000_000;

/// Cost of a diagonal step in the fixed-point scale: `round(sqrt(2) * STRAIGHT)`.
pub const DIAGONAL: u64 = 1_414_214;

/// Relative tolerance between throng's cost and the scenario file's optimal length.
pub const SCEN_TOLERANCE: f64 = 1e-6;

/// Relative tolerance between `pathfinding`'s cost (divided by [`STRAIGHT`]) and throng's.
pub const PEER_TOLERANCE: f64 = 1e-5;

/// The eight moves `(dx, dy)`: four straight, then four diagonal.
pub const MOVES: [(i64, i64); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// One map with its query set.
pub struct MapCase {
    /// File stem, e.g. `den520d`.
    pub name: &'static str,
    /// The loaded map.
    pub grid: Grid,
    /// `(start, goal)` cells of the kept queries.
    pub queries: Vec<(CellId, CellId)>,
    /// Scenario line of each kept query (for error messages).
    pub lines: Vec<usize>,
    /// Optimal length of each kept query, from the scenario file.
    pub optimal: Vec<f64>,
    /// Scenario queries in the file, before thinning.
    pub total_in_file: usize,
}

/// Directory of the Moving AI maps shipped with the crate.
pub fn maps_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sims")
        .join("maps")
}

/// Loads a map and its scenario file and keeps every `k`-th query.
pub fn load_case(name: &'static str) -> MapCase {
    let dir = maps_dir();
    let map_path = dir.join(format!("{name}.map"));
    let scen_path = dir.join(format!("{name}.map.scen"));
    let grid = load_map(&map_path)
        .unwrap_or_else(|e| panic!("cannot load map {}: {e}", map_path.display()));
    assert!(
        !grid.is_weighted(),
        "{name}: the benchmark's fixed-point costs assume an unweighted grid"
    );
    let scen = ScenFile::load(&scen_path)
        .unwrap_or_else(|e| panic!("cannot load scenario {}: {e}", scen_path.display()));
    let cells = scen
        .resolve(&grid)
        .unwrap_or_else(|e| panic!("scenario {} does not fit its map: {e}", scen_path.display()));
    let total_in_file = cells.len();
    assert!(total_in_file > 0, "{name}: the scenario file has no query");
    let stride = (total_in_file / TARGET_QUERIES).max(1);

    let mut case = MapCase {
        name,
        grid,
        queries: Vec::new(),
        lines: Vec::new(),
        optimal: Vec::new(),
        total_in_file,
    };
    for (query, &pair) in scen.queries.iter().zip(&cells).step_by(stride) {
        case.queries.push(pair);
        case.lines.push(query.line);
        case.optimal.push(query.optimal);
    }
    case
}

/// Octile distance between `a` and `b` in the fixed-point scale.
pub fn octile(a: (u32, u32), b: (u32, u32)) -> u64 {
    let dx = u64::from(a.0.abs_diff(b.0));
    let dy = u64::from(a.1.abs_diff(b.1));
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    lo * DIAGONAL + (hi - lo) * STRAIGHT
}

/// The legal moves out of `(x, y)` with their fixed-point costs, from walkability alone:
/// inside the grid, onto walkable cells, diagonals only past two walkable orthogonal cells.
pub fn successors(grid: &Grid, (x, y): (u32, u32)) -> impl Iterator<Item = ((u32, u32), u64)> + '_ {
    let (x, y) = (i64::from(x), i64::from(y));
    MOVES.iter().filter_map(move |&(dx, dy)| {
        let (nx, ny) = (x + dx, y + dy);
        if !grid.is_walkable_xy(nx, ny) {
            return None;
        }
        let cost = if dx != 0 && dy != 0 {
            if !(grid.is_walkable_xy(x + dx, y) && grid.is_walkable_xy(x, y + dy)) {
                return None;
            }
            DIAGONAL
        } else {
            STRAIGHT
        };
        // Inside the grid, so both fit in u32.
        Some(((nx as u32, ny as u32), cost))
    })
}

/// `pathfinding`'s A* from `start` to `goal`: the path of `(x, y)` nodes and its fixed-point cost.
pub fn peer_astar(grid: &Grid, start: CellId, goal: CellId) -> Option<(Vec<(u32, u32)>, u64)> {
    let start = grid.coords(start);
    let goal = grid.coords(goal);
    pathfinding::directed::astar::astar(
        &start,
        |&node| successors(grid, node),
        |&node| octile(node, goal),
        |&node| node == goal,
    )
}

/// How the binary was invoked, read from the arguments criterion also parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// `cargo bench`: verify, benchmark, print the summary table.
    Bench,
    /// `cargo test --benches` or `-- --test`: verify and let criterion run each function once.
    Test,
    /// `--list`: criterion lists the benchmark names; nothing is searched.
    List,
}

impl RunMode {
    /// The mode criterion will pick for these arguments (same rules as
    /// `Criterion::configure_from_args`).
    pub fn from_args() -> RunMode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let has = |flag: &str| args.iter().any(|a| a == flag);
        if has("--list") {
            RunMode::List
        } else if has("--bench") && !has("--test") {
            RunMode::Bench
        } else {
            RunMode::Test
        }
    }
}
