//! Searching the grid: the per-thread [`SearchWorkspace`] and its outcomes.
//!
//! A workspace is built once per thread and reused for every query; see [`SearchWorkspace`].
//! A query answers with a [`SearchOutcome`] (found, unreachable, budget exhausted) or, when the
//! query itself is invalid (a cell outside the grid, a blocked start or goal), a [`QueryError`].
//!
//! Costs are `u64` keys (`cost.rs`: fixed point on uniform grids, `f64` bit patterns on
//! weighted ones), so equal-`f` ties are real ties and the open list can be a radix heap
//! (`heap.rs`: keys never decrease under a consistent heuristic); uniform-cost A* keeps one
//! LIFO stack per distinct `f` on top of it, so ties go deep and A* runs straight at the goal.
//! These choices, and what was tried instead, were made by measurement: `docs/performance.md`.
//!
//! # Jump point search
//!
//! [`SearchWorkspace::find_path_jps`] answers the same queries as A* with Jump Point Search
//! (`jps.rs`: the pruning rules for grids without corner cutting, block scans over the grid's
//! walkable bits, diagonal jump points expanded on the spot): the same outcomes and the same
//! optimal cell-by-cell paths, far fewer expansions, no per-cell memory beyond the workspace's.
//! Its node budget and `expanded` counter count jump points taken off the open list. JPS+
//! ([`SearchWorkspace::find_path_jps_plus`], `jps_plus.rs`) is the same search with the jumps
//! read from the grid's jump table. Weighted and 4-connected grids are answered by A*.

mod astar;
mod cost;
mod heap;
mod jps;
mod jps_plus;
mod turning;
mod workspace;

pub use turning::{ACTION_COST, TurningSearch};
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
