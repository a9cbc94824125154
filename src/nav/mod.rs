//! Navigation points: routes computed ahead of time and stitched together for long trips
//! (hierarchical path-finding, HPA*: A. Botea, M. Müller, J. Schaeffer, "Near Optimal
//! Hierarchical Path-Finding", Journal of Game Development 1(1), 2004, adapted).
//!
//! # Build
//!
//! The grid is cut into square clusters ([`NavOptions::cluster_size`], default 32). Where
//! walkable cells face each other across a cluster border they form *entrances*: maximal runs
//! of straight crossings. A run of at most 6 crossings gets one pair of navigation points (one
//! cell on each side) in its middle, a longer run one pair at each end. Inside each cluster a
//! Dijkstra confined to the cluster runs from every point over the whole cluster (on local
//! indices, with two FIFO queues in place of a heap where steps cost 1 or sqrt 2: see the
//! `local` module); it keeps the point's shortest-path tree (one direction byte per cell of
//! the cluster), from which the route to every other point is read, and the route costs.
//! Points on either side of a border step are joined by an edge of one step. Last, 64
//! landmarks (the points nearest to 64 spots evenly spread on the map's rim) get their
//! distances to every point, by one Dijkstra over the points each, for the query's heuristic.
//! Clusters are built in parallel on the current rayon pool; each is a pure function of the
//! grid, so the graph does not depend on the number of threads.
//!
//! On a random 4096 x 4096 map with 10% obstacles (433,493 points), `throng nav` built in
//! 24.6 s (31.5 s wall with loading and writing) to 1,252 MiB (file 1,144 MiB, peak RSS
//! 2.6 GB) before the local-index search, the FIFO queues, the radix heap for the landmarks,
//! routes read from the trees instead of stored and the file streamed out; after: 12.9 s
//! (14.6 s wall), 695 MiB (file 620 MiB, peak RSS 0.95 GB). Old and new binaries one after
//! the other on the idle machine; callgrind on a 1024 x 1024 map: 14.7 G instructions
//! before, 6.7 G after.
//!
//! # Query
//!
//! [`NavGraph::find_path`] with a per-thread [`NavWorkspace`]:
//!
//! 1. start and goal in the same or neighbouring clusters, or every query on maps where long
//!    trips take few jump points: a direct optimal search, JPS+ where the graph chose the
//!    grid's jump table ([`NavGraph::uses_jump_table`]), JPS otherwise (the `direct` module
//!    says when each pays);
//! 2. otherwise the start is connected to every point of its cluster, and every point of the
//!    goal's cluster to the goal, by walking the points' stored trees (a few hundred steps in
//!    all, where a Dijkstra over two clusters took 40% of the query), and A* runs over the
//!    points from the start's points to the goal. Its heuristic is the larger of the octile
//!    distance and the landmark bound `|d(L, goal) - d(L, v)|` (ALT; see the `landmarks`
//!    module), its open-list keys are rounded to 1/64 of a unit so that near-equal
//!    estimates tie and ties go deep, and [`NavGraph::set_heuristic_weight`] trades length
//!    for speed (weighted A*; default 1);
//! 3. the routes of the chosen edges, read from the points' trees, are stitched into one
//!    cell-by-cell path;
//! 4. on uniform 8-connected grids the path is straightened by string pulling with lines that
//!    obey the movement rules ([`refine`](self) module docs); it never gets longer and stays
//!    legal and continuous.
//!
//! The workspace holds flat arrays with generation stamps (one 24-byte record per point, a
//! grid [`SearchWorkspace`] for direct searches): no lock and no allocation per query once
//! warm.
//!
//! # Map changes
//!
//! [`NavGraph::apply_changes`] rebuilds the clusters holding changed cells, and the neighbours
//! whose points moved because a shared border changed, in parallel, then relinks the graph; the
//! result equals a fresh build.
//!
//! # Files
//!
//! [`NavGraph::save`] and [`NavGraph::load`] write and read a small binary file (magic, format
//! version, map size, movement rule, a hash of the map's walls and costs, cluster size, then
//! the clusters with their route costs and trees). Loading checks every tree (legal steps
//! inside the cluster, each leading to its point, no cycle) and every cost against its tree,
//! and refuses a file made for another map or another format version with a [`NavFileError`].
//!
//! # Measurements
//!
//! `cargo run --release --example nav_compare -- [CLUSTER_SIZE]`: every query of the shipped
//! scenario files, nav and A* timed in the same process, query by query, best of 3 rounds;
//! "longest 25%" is the quarter of the queries with the longest optimal length. 2-core AMD
//! EPYC VM, build on 2 threads; memory is [`NavGraph::memory_bytes`], re-measured since the
//! routes are read from the trees (format 4: 10.3 MiB against 18.2 on `random512-10-0`);
//! the times and lengths are those of the run before (mean and max lengths the same
//! after the change, but for `den520d` at 16: mean 1.0115).
//!
//! | map | cluster | build ms | memory | points | nav µs | A* µs | longest 25%: nav / A* µs | mean / max length ÷ optimal |
//! |---|---|---|---|---|---|---|---|---|
//! | `random512-10-0` | 32 | 214 | 10.3 MiB | 6,424 | 43 | 283 (6.5x) | 69 / 762 (11.0x) | 1.0078 / 1.0692 |
//! | `8room_000` | 32 | 64 | 4.7 MiB | 3,084 | 36 | 1269 (35x) | 59 / 2868 (48x) | 1.0000 / 1.0000 |
//! | `den520d` | 32 | 3.6 | 381 KiB | 270 | 5.5 | 144 (26x) | 8.5 / 349 (41x) | 1.0047 / 1.0948 |
//! | `arena` | 32 | 0.8 | 25 KiB | 24 | 0.9 | 0.9 | 1.3 / 1.4 | 1.0000 / 1.0000 |
//! | `random512-10-0` | 16 | 192 | 10.8 MiB | 14,020 | 51 | 289 (5.7x) | 95 / 781 (8.2x) | 1.0134 / 1.0806 |
//! | `8room_000` | 16 | 49 | 4.2 MiB | 6,358 | 47 | 1340 (28x) | 80 / 3022 (38x) | 1.0000 / 1.0000 |
//! | `den520d` | 16 | 7.0 | 485 KiB | 763 | 7.4 | 151 (20x) | 12 / 366 (30x) | 1.0116 / 1.0956 |
//!
//! With `--weight=1.01` ([`NavGraph::set_heuristic_weight`]) at cluster 32: `random512-10-0`
//! longest quarter 62 / 748 µs (12.1x), mean / max length 1.0122 / 1.0692; `8room_000`
//! 1.0037 / 1.0098.
//!
//! Length targets (mean at most 1.02, max at most 1.10) are met on every shipped map (and
//! tested), and the longest quarter runs at least 10x faster than A* on all three large maps.
//! How the long queries on `random512-10-0` (10% random obstacles: every border has several
//! short entrances, 6,424 points, 116,494 edges) went from 345 to 69 µs, each step measured on
//! its longest quarter:
//!
//! - per-point shortest-path trees instead of two confined Dijkstras per query (40% of the
//!   time): 345 -> ~260 µs, at 1 byte per point and cluster cell (6.6 MiB here);
//! - the landmark bound (16 landmarks): 1,229 -> 430 points and cluster cells touched per
//!   query; 8-byte edges with the routes apart; the heuristic computed once per point and
//!   vectorised: -> ~145 µs;
//! - one 24-byte record per point, keys rounded to 1/64 (ties go deep: 430 -> 320 points),
//!   tree costs counted over local indices: -> ~91 µs;
//! - 32 then 64 landmarks (320 -> 190 -> 130 points): -> 69 µs.
//!
//! Tried and not kept: leaving out near-dominated edges (a detour through another point of the
//! cluster at most 3% longer: 40% fewer edges only at 3%, no gain in time); clusters of 40, 48
//! and 64 (no faster, `den520d` max length ratio over 1.10 at 40 and above); a heuristic
//! weight of 1.1 to 2 with the octile heuristic (mean length ratio 1.05 to 1.6). Left: a
//! second level of clusters for maps much larger than 512 x 512, and loading (79 ms for
//! `random512-10-0`, against 214 ms to build: reading, checksumming and checking 16.5 MiB).

mod build;
mod direct;
pub mod file;
mod graph;
mod landmarks;
mod local;
mod query;
mod refine;

pub use build::NavOptions;
pub use file::{FORMAT_VERSION, NavFileError, file_checksum};
pub use graph::{NavGraph, map_hash};

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
    pub fn prefault(&mut self, grid: &crate::Grid) {
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
