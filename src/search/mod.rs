//! Searching the grid: the per-thread [`SearchWorkspace`] and its outcomes.
//!
//! A workspace is built once per thread and reused for every query; see [`SearchWorkspace`].
//! A query answers with a [`SearchOutcome`] (found, unreachable, budget exhausted) or, when the
//! query itself is invalid (a cell outside the grid, a blocked start or goal), a [`QueryError`].
//!
//! # How the open list was chosen
//!
//! Measured on the 101 longest queries of `random512-10-0` and of `8room_000` (mean µs per
//! query, best of 5 interleaved runs of `throng scen`, same machine and load; 2-core AMD EPYC):
//!
//! | open list | random512 | 8room | expansions (random512) |
//! |---|---|---|---|
//! | indexed binary heap, `f64` costs (first version) | 5521 | 12472 | 31,570 |
//! | LIFO stack for `f` = minimum + lazy binary heap, exact integer costs | 4318 | 12259 | 30,644 |
//! | same with a 4-ary heap | no gain, 12% more instructions | | |
//! | LIFO stack + indexed binary heap (decrease-key) | 3380 | 9692 | 30,816 |
//! | radix heap, exact integer costs (weighted A* and JPS; uniform A*: see below) | 1776 | 5093 | 30,644 |
//!
//! Exact integer costs make equal-`f` ties real ties (7% fewer expansions on random512, 45%
//! fewer on arena), and the radix heap turns the pops that dominated the profile into O(1)
//! work for almost all entries.
//!
//! # Work per expansion (uniform-cost A*)
//!
//! Measured with callgrind on a small driver that answers the bench's query sets (every `k`-th
//! query of each shipped `.map.scen`, 137 / 134 / 145 / 130 queries): instructions for one
//! round of the set (two rounds minus one, so map loading is not counted). Expansions and
//! pushes are identical in every row (1,596,488 expansions per round on random512).
//!
//! | commit | random512 | 8room | den520d | arena |
//! |---|---|---|---|---|
//! | radix heap, `u128` occupancy (before) | 683M | 2519M | 362M | 2.34M |
//! | bucket 0 a stack of bare ids, `u64` mask; `FixedCost<EIGHT>` | 543M | 1982M | 285M | 1.97M |
//! | skip moves onto the parent's direct reach (`SHARED` table) | 460M | 1746M | 252M | 1.70M |
//! | `LevelHeap` (heap.rs): one stack per distinct `f` (current) | 363M | 1243M | 219M | 1.79M |
//!
//! `cargo bench --bench astar -- --quick`, before and after binaries run back to back
//! (µs per query, ratio = `pathfinding` / throng in the same run):
//!
//! | map | before | after | ratio before | ratio after |
//! |---|---|---|---|---|
//! | `random512-10-0` | 420 | 279 | 3.60x | 5.34x |
//! | `8room_000` | 1607 | 1244 | 3.43x | 4.54x |
//! | `den520d` | 169 | 148 | 2.76x | 3.26x |
//! | `arena` | 1.15 | 0.96 | 4.26x | 5.14x |
//!
//! The radix heap used to redistribute 2.4 entries per pushed entry (a quarter of all
//! instructions). Live `f` values, all within `2 sqrt(2)` of the smallest, are mostly a few
//! distinct numbers (least so on den520d's open rooms, where it gains least), so the level
//! heap keeps one LIFO stack per value, finds it by a hash table probe
//! (99% hits on random512) and lets the radix heap order levels, not cells. The `SHARED` skip
//! drops the tests of moves whose target the parent already reached at least as cheaply
//! (metric step costs): the search itself is unchanged.
//!
//! Tried and lost (same measurements):
//!
//! - One 16-byte node per cell (`g`, stamp, parent together, one cache line per neighbour):
//!   575M instead of 543M instructions and 395 instead of 375 µs per query on random512; the
//!   loop is instruction-bound (IPC about 3), not memory-bound.
//! - Expansion and push counters in locals instead of the stats struct: 3% to 11% more
//!   instructions (register spills in the neighbour loop), twice.
//! - Generating diagonal moves before orthogonal ones: 1,626,603 expansions instead of
//!   1,596,488, 20% more instructions.
//! - One stack per distinct key in a sorted list: 792M (linear scan) and 635M (binary
//!   search) against 550M for the radix heap of the time; the hash table made it a win.
//! - Radix heap bucket minimum computed at refill instead of kept per push: +4%.
//! - `f` of a neighbour as the popped key plus a per-octant constant where the heuristic is
//!   linear around the cell: +3% to +5% (the octant test runs every expansion).
//! - The level heap for JPS: -5% on random512 but +8% to +9% on 8room, den520d and arena
//!   (JPS keys are more spread); JPS keeps the radix heap.
//! - A one-entry cache of the last pending level: -0.5% to -0.9%, +1.7% on arena; a
//!   4096-slot table instead of 1024: under 2%. Not kept.
//! - Unchecked indexing in the loop (`get_unchecked`, needs `unsafe`): 363M -> 341M
//!   instructions on random512, 1243M -> 1173M on 8room, but 0% / 3% / 2% less time (best of
//!   10 runs): not worth lifting the crate's `unsafe_code = "deny"`.
//! - All eight moves tested at once (SSE2): the stamps and costs of the 3 x 3 block loaded as
//!   three rows, compared in vector registers into "improves" and "already open" masks, so the
//!   loop only branches over the moves it takes (cachegrind's branch simulation counts 2.0
//!   mispredicts per expansion, mostly the closed / seen / cheaper tests and the loop exit).
//!   Same expansions and pushes, but 486M instead of 363M instructions and 9% to 11% slower
//!   (random512, 8room, den520d, best of 8): the real predictor misses far less than the
//!   simulated one, and the vector work is paid on every expansion.
//!
//! # Jump point search
//!
//! [`SearchWorkspace::find_path_jps`] answers the same queries as A* with Jump Point Search
//! (Harabor and Grastien, 2011, with the block-based scans and intercardinal pruning of their
//! 2014 "Improving Jump Point Search") on uniform-cost 8-connected grids: same outcomes, the
//! same full cell-by-cell paths of the same optimal cost, far fewer expansions. It shares the
//! workspace (stamps, costs, open list) with A* and adds no per-cell memory to it; the grid
//! keeps its walkable cells as bits, row-major and transposed, with precomputed stop bits, so
//! that a straight scan decides 56 cells per load. Its pruning rules are those for grids
//! without corner cutting: forced neighbours only arise during straight moves (moving east, the
//! cells north and north-east of a cell are forced when the cell north of it is walkable and
//! the one north of its predecessor is not; the same to the south), and a diagonal jump stops
//! where a scan along either of its two orthogonal components finds a jump point; diagonal jump
//! points are expanded on the spot rather than put on the open list. The derivation and the
//! measurements of each step are in `src/search/jps.rs`. Its node budget and `expanded`
//! counter count jump points taken off the open list. Weighted and 4-connected grids are
//! answered by A*.
//!
//! JPS+ ([`SearchWorkspace::find_path_jps_plus`]) is the same search with the jumps read from
//! the grid's jump table (`src/search/jps_plus.rs`, `src/grid/jump_table.rs`).
//!
//! Mean µs per query of `throng scen --warm-up --planner jps` / `jps+` over every query of each
//! file (best of 7 rounds interleaved with warthog's, one run on the idle 2-core Intel Xeon VM),
//! against warthog's `jps2` / `jps2+` (C++, the reference implementation of the authors' lab,
//! same queries, each file run twice and the second pass taken; its own timer around the
//! search, ours around the whole query with the full path; details in docs/benchmarks.md):
//!
//! | map | JPS | warthog `jps2` | JPS+ | warthog `jps2+` |
//! |---|---|---|---|---|
//! | `AR0011SR` | 4.04 | 7.14 | 1.55 | 2.44 |
//! | `AcrosstheCape` | 36.1 | 63.3 | 24.1 | 43.2 |
//! | `Berlin_1_256` | 7.07 | 13.27 | 5.08 | 9.51 |
//! | `den520d` | 5.28 | 10.12 | 3.47 | 6.44 |
//! | `random512-10-0` | 247.6 | 689.6 | 260.9 | 665.6 |
//! | `8room_000` | 232.2 | 429.0 | 178.1 | 342.6 |
//!
//! (Before the block scans, on the earlier 2-core AMD machine, JPS took 34.3 µs on `AR0011SR`
//! against `jps2`'s 10.7.)

mod astar;
mod cost;
mod heap;
mod jps;
mod jps_plus;
pub mod turning;
mod workspace;

pub use turning::TurningSearch;
pub use workspace::SearchWorkspace;

pub(crate) use astar::validate_endpoints;
pub(crate) use heap::OpenList;

use crate::grid::CellId;
use serde::{Deserialize, Serialize};

/// How a valid query ended. The path of a `Found` outcome is in [`SearchWorkspace::path`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SearchOutcome {
    /// A path was found; `cost` is its total cost (optimal for A*).
    Found {
        /// Sum of the step costs along the path.
        cost: f64,
    },
    /// No path exists between start and goal.
    Unreachable,
    /// The node budget ran out before the goal was reached.
    BudgetExhausted,
}

impl SearchOutcome {
    /// The path cost when a path was found.
    pub fn cost(&self) -> Option<f64> {
        match self {
            SearchOutcome::Found { cost } => Some(*cost),
            _ => None,
        }
    }

    /// Whether a path was found.
    pub fn is_found(&self) -> bool {
        matches!(self, SearchOutcome::Found { .. })
    }
}

/// A query that cannot be answered because its input is wrong for the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// Coordinates outside the grid.
    #[error("({x}, {y}) is outside the {width} x {height} grid")]
    OutOfBounds {
        /// Column asked for.
        x: i64,
        /// Row asked for.
        y: i64,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A cell id that is not in the grid.
    #[error("cell {cell} is outside the grid ({cells} cells)")]
    CellOutOfBounds {
        /// The id asked for.
        cell: CellId,
        /// Number of cells in the grid.
        cells: usize,
    },
    /// The start cell is blocked.
    #[error("start ({x}, {y}) is a blocked cell")]
    StartBlocked {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// The goal cell is blocked.
    #[error("goal ({x}, {y}) is a blocked cell")]
    GoalBlocked {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
}

/// Counters of the last query.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchStats {
    /// Cells taken off the open list and expanded (their neighbours generated).
    pub expanded: u64,
    /// Cells put on the open list (first discoveries; improvements move them in place).
    pub pushed: u64,
}

/// Per-query settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchOptions {
    /// Stop with [`SearchOutcome::BudgetExhausted`] after this many expansions. `None`
    /// (the default): no limit.
    pub node_budget: Option<u64>,
}

impl SearchOptions {
    /// Options with a node budget.
    pub fn with_budget(budget: u64) -> Self {
        SearchOptions {
            node_budget: Some(budget),
        }
    }
}
