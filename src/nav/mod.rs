//! Navigation points: routes computed ahead of time and stitched together for long trips
//! (hierarchical path-finding, HPA*: A. Botea, M. Müller, J. Schaeffer, "Near Optimal
//! Hierarchical Path-Finding", Journal of Game Development 1(1), 2004, adapted).
//!
//! # Build
//!
//! The grid is cut into square clusters ([`NavOptions::cluster_size`], default 32). Where
//! walkable cells face each other across a cluster border they form *entrances* (maximal runs
//! of straight crossings), each with a pair of navigation points in its middle or at each end
//! (`build.rs`). Inside each cluster a Dijkstra confined to it runs from every point (`local.rs`)
//! and keeps the point's shortest-path tree, one direction byte per cluster cell, from which
//! the routes to the other points are read, with their costs; points on either side of a
//! border step are joined by an edge of one step. 64 landmarks on the map's rim get their
//! distances to every point (`landmarks.rs`). Clusters are built in parallel, each a
//! pure function of the grid, so the graph does not depend on the number of threads.
//!
//! # Query
//!
//! [`NavGraph::find_path`] with a per-thread [`NavWorkspace`]:
//!
//! 1. start and goal in the same or neighbouring clusters, or every query on maps where long
//!    trips take few jump points: a direct optimal search, JPS+ where the graph chose the
//!    grid's jump table ([`NavGraph::uses_jump_table`]), JPS otherwise (the `direct` module
//!    says when each pays);
//! 2. otherwise start and goal are joined to the points of their clusters by walking the
//!    points' trees, and A* runs over the points, its heuristic the larger of the octile
//!    distance and the landmark bound (ALT), its keys rounded to 1/64 of a unit so that ties
//!    go deep; [`NavGraph::set_heuristic_weight`] trades length for speed (weighted A*,
//!    default 1);
//! 3. the routes of the chosen edges are stitched into one cell-by-cell path, which on
//!    uniform 8-connected grids is straightened by string pulling with lines that obey the
//!    movement rules (`refine.rs`): never longer, always legal and continuous.
//!
//! Paths are near-optimal, not optimal (mean length at most 1.02 of the optimum and max at
//! most 1.10 on every shipped map, tested). The workspace holds flat arrays with generation
//! stamps: no lock and no allocation per query once warm.
//!
//! # Map changes and files
//!
//! [`NavGraph::apply_changes`] rebuilds the clusters holding changed cells and the neighbours
//! whose points moved, in parallel, then relinks the graph; the result equals a fresh build.
//! [`NavGraph::save`] and [`NavGraph::load`] keep a graph in a versioned file (`file.rs`) that
//! is refused, with a [`NavFileError`], for another map or format version, and whose trees and
//! costs are checked on load.
//!
//! The cluster size, the entrance rule, the landmarks and each step of the query were chosen
//! by measurement: `docs/performance.md`.

mod build;
pub(crate) mod direct;
mod file;
mod graph;
mod landmarks;
mod local;
mod query;
mod refine;

pub use build::NavOptions;
pub use file::NavFileError;
pub use graph::NavGraph;

use crate::grid::CellId;
use crate::search::{OpenList, SearchStats, SearchWorkspace};

/// The search's state of one point, in one 24-byte record so that a relaxation touches one
/// cache line.
#[derive(Debug, Clone, Copy, Default)]
struct NodeState {
    /// Cost from the start.
    g: f64,
    /// Heuristic, computed once per query when the point is first reached.
    h: f64,
    /// `generation` open, `generation + 1` closed, older: not reached yet.
    stamp: u32,
    /// Point it was reached from (`u32::MAX`: straight from the start).
    parent: u32,
}

/// Reusable memory for navigation-point queries: one per thread, like [`SearchWorkspace`]
/// (which it contains, for direct searches). Not tied to one graph; it grows to the largest
/// graph and grid it has served.
#[derive(Debug, Default)]
pub struct NavWorkspace {
    search: SearchWorkspace,
    /// Per point of the goal's cluster: cost to the goal (infinite when it does not reach).
    goal_cost: Vec<f64>,
    /// Per point (plus the goal): the search's state.
    nodes: Vec<NodeState>,
    generation: u32,
    open: OpenList,
    node_path: Vec<u32>,
    raw: Vec<CellId>,
    path: Vec<CellId>,
    /// Scratch of `remove_loops`: an open-addressing set of the path's cells (the common,
    /// loop-free case) and, for a path with a loop, where each cell stands in it.
    cells_seen: Vec<CellId>,
    visited: std::collections::HashMap<CellId, u32>,
    stats: SearchStats,
    direct: bool,
}

impl NavWorkspace {
    /// An empty workspace; it sizes itself on the first queries.
    pub fn new() -> Self {
        Self::default()
    }

    /// The path of the last query that found one, start to goal, both included; empty after a
    /// query that found none.
    #[inline]
    pub fn path(&self) -> &[CellId] {
        &self.path
    }

    /// Counters of the last query: points expanded by the search over the points, or the
    /// direct search's counters.
    #[inline]
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Whether the last query was answered by a direct (optimal) grid search.
    #[inline]
    pub fn was_direct(&self) -> bool {
        self.direct
    }

    /// The grid workspace used for direct searches (also usable for other searches between
    /// navigation queries).
    pub fn search_workspace(&mut self) -> &mut SearchWorkspace {
        &mut self.search
    }

    /// Sizes the grid workspace inside for `grid` and maps every page of it (see
    /// [`SearchWorkspace::prefault`]), so that no query pays a page fault on its first touch.
    pub fn prefault(&mut self, grid: &crate::grid::Grid) {
        self.search.ensure_cells(grid.len());
        self.search.prefault();
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> usize {
        self.search.memory_bytes()
            + self.goal_cost.capacity() * 8
            + self.nodes.capacity() * std::mem::size_of::<NodeState>()
            + self.open.capacity_bytes()
            + (self.node_path.capacity() + self.raw.capacity() + self.path.capacity()) * 4
    }

    /// Starts an abstract search over `nodes` points: sizes the arrays, new generation.
    fn begin_abstract(&mut self, nodes: usize) {
        if self.nodes.len() < nodes {
            self.nodes.resize(nodes, NodeState::default());
        }
        if self.generation >= u32::MAX - 3 {
            self.nodes.iter_mut().for_each(|n| n.stamp = 0);
            self.generation = 0;
        }
        self.generation += 2;
        self.open.clear();
    }
}
