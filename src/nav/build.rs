//! Building the graph: entrances on cluster borders, routes inside each cluster, repair after
//! map changes.

use rayon::prelude::*;

use super::graph::{Cluster, NavGraph, cluster_rect, map_hash};
use super::local::{LocalSearch, Rect};
use crate::error::{Error, Result};
use crate::grid::{CellId, Grid};

/// Runs of crossings up to this long get one navigation point pair, in their middle; longer
/// runs get one at each end (the rule of Botea, Müller and Schaeffer's HPA*).
pub(crate) const SINGLE_ENTRANCE_MAX: u32 = 6;

/// Runs at least this long get a third pair in their middle: on open maps a route through the
/// ends of a wide opening bends away from the straight line more than string pulling can
/// recover (longest quarter of `AcrosstheCape`: mean length 1.0103 of optimal without it,
/// 1.0021 with it; the thresholds tried are in `docs/performance.md`).
pub(crate) const MIDDLE_ENTRANCE_MIN: u32 = 21;

/// Settings of [`NavGraph::build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NavOptions {
    /// Side of a cluster in cells (at least [`NavOptions::MIN_CLUSTER_SIZE`]). Default:
    /// [`NavOptions::DEFAULT_CLUSTER_SIZE`].
    pub cluster_size: u32,
}

impl NavOptions {
    /// The default cluster side, chosen by measurement (`docs/performance.md`).
    pub const DEFAULT_CLUSTER_SIZE: u32 = 32;
    /// The smallest cluster side [`NavGraph::build`] accepts.
    pub const MIN_CLUSTER_SIZE: u32 = 4;
}

impl Default for NavOptions {
    fn default() -> Self {
        NavOptions {
            cluster_size: Self::DEFAULT_CLUSTER_SIZE,
        }
    }
}

impl NavGraph {
    /// Prepares the navigation points of `grid`: clusters of `options.cluster_size` cells a
    /// side, built in parallel on the current rayon pool (the result does not depend on the
    /// number of threads).
    ///
    /// On uniform 8-connected grids it also builds the grid's jump table (16 bytes a cell, kept
    /// by the grid: [`Grid::has_jump_table`]) unless straight jumps keep stopping on this map,
    /// for the trips it searches directly ([`NavGraph::uses_jump_table`]); [`NavGraph::load`]
    /// does the same.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::nav::{NavGraph, NavOptions, NavWorkspace};
    ///
    /// let grid = Grid::new(64, 64)?;
    /// let nav = NavGraph::build(&grid, &NavOptions { cluster_size: 8 })?;
    /// let mut ws = NavWorkspace::new();
    /// let (start, goal) = (grid.cell(0, 0).unwrap(), grid.cell(63, 40).unwrap());
    /// let outcome = nav.find_path(&grid, &mut ws, start, goal)?;
    /// assert_eq!(grid.path_cost(ws.path())?, outcome.cost().unwrap());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] when the cluster size is below [`NavOptions::MIN_CLUSTER_SIZE`].
    pub fn build(grid: &Grid, options: &NavOptions) -> Result<NavGraph> {
        let size = options.cluster_size;
        if size < NavOptions::MIN_CLUSTER_SIZE {
            return Err(Error::Invalid(format!(
                "navigation cluster size {size} is too small (at least {})",
                NavOptions::MIN_CLUSTER_SIZE
            )));
        }
        let clusters_x = grid.width().div_ceil(size);
        let clusters_y = grid.height().div_ceil(size);
        let count = clusters_x * clusters_y;
        let clusters: Vec<Cluster> = (0..count)
            .into_par_iter()
            .map_init(LocalSearch::default, |search, c| {
                build_cluster(grid, size, clusters_x, c, search)
            })
            .collect();
        Ok(NavGraph::from_clusters(
            grid,
            size,
            map_hash(grid),
            clusters,
            None,
        ))
    }

    /// Brings the graph up to date after `changed` cells of the grid changed (walkability or
    /// cost; `grid` is the grid after the change): the clusters holding them, and the
    /// neighbours whose navigation points moved because a shared border changed, are rebuilt
    /// in parallel; every other cluster keeps its routes. The result is the graph a fresh
    /// [`build`](Self::build) would give. Returns the number of clusters rebuilt.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `grid` has another size or movement rule than the graph's.
    pub fn apply_changes(&mut self, grid: &Grid, changed: &[CellId]) -> Result<usize> {
        if grid.width() != self.width
            || grid.height() != self.height
            || grid.neighborhood() != self.neighborhood
        {
            return Err(Error::Invalid(format!(
                "the navigation graph is for a {} x {} grid, not {} x {}",
                self.width,
                self.height,
                grid.width(),
                grid.height()
            )));
        }
        let count = self.clusters.len();
        let mut touched = vec![false; count];
        for &cell in changed {
            if !grid.contains(cell) {
                continue;
            }
            let (x, y) = grid.coords(cell);
            touched[self.cluster_of_xy(x, y) as usize] = true;
        }
        // Neighbours of a touched cluster share a border with it, so their points may move.
        let (cw, ch) = (self.clusters_x, self.clusters_y);
        let mut candidates: Vec<u32> = Vec::new();
        for c in 0..count as u32 {
            let (cx, cy) = (c % cw, c / cw);
            let near = touched[c as usize]
                || (cx > 0 && touched[(c - 1) as usize])
                || (cx + 1 < cw && touched[(c + 1) as usize])
                || (cy > 0 && touched[(c - cw) as usize])
                || (cy + 1 < ch && touched[(c + cw) as usize]);
            if near {
                candidates.push(c);
            }
        }
        let size = self.cluster_size;
        let clusters = &self.clusters;
        let rebuilt: Vec<(u32, Cluster)> = candidates
            .par_iter()
            .map_init(LocalSearch::default, |search, &c| {
                let nodes = cluster_nodes(grid, size, cw, c);
                if !touched[c as usize] && nodes == clusters[c as usize].nodes {
                    return None;
                }
                let rect = cluster_rect(grid.width(), grid.height(), size, cw, c);
                Some((c, cluster_routes(grid, rect, nodes, search)))
            })
            .flatten()
            .collect();
        let n = rebuilt.len();
        for (c, cluster) in rebuilt {
            self.clusters[c as usize] = cluster;
        }
        self.map_hash = map_hash(grid);
        self.link(grid);
        // The map may have become open enough for direct searches, or too cluttered for them.
        self.direct = super::direct::prepare_direct_searches(grid);
        Ok(n)
    }
}

fn build_cluster(
    grid: &Grid,
    size: u32,
    clusters_x: u32,
    c: u32,
    search: &mut LocalSearch,
) -> Cluster {
    let rect = cluster_rect(grid.width(), grid.height(), size, clusters_x, c);
    let nodes = cluster_nodes(grid, size, clusters_x, c);
    cluster_routes(grid, rect, nodes, search)
}

/// The navigation points of cluster `c`: its side of every entrance on its four borders.
fn cluster_nodes(grid: &Grid, size: u32, clusters_x: u32, c: u32) -> Vec<CellId> {
    let r = cluster_rect(grid.width(), grid.height(), size, clusters_x, c);
    let mut nodes = Vec::new();
    let w = grid.width();
    // West and east borders: crossings are horizontal steps between column `xa` and `xa + 1`.
    let vertical = |xa: u32, own: u32, nodes: &mut Vec<CellId>| {
        for_each_transition(
            r.y0,
            r.h,
            |y| cross_open(grid, xa, y, xa + 1, y),
            |y| {
                nodes.push(y * w + own);
            },
        );
    };
    if r.x0 > 0 {
        vertical(r.x0 - 1, r.x0, &mut nodes);
    }
    if r.x0 + r.w < grid.width() {
        let xa = r.x0 + r.w - 1;
        vertical(xa, xa, &mut nodes);
    }
    let horizontal = |ya: u32, own: u32, nodes: &mut Vec<CellId>| {
        for_each_transition(
            r.x0,
            r.w,
            |x| cross_open(grid, x, ya, x, ya + 1),
            |x| {
                nodes.push(own * w + x);
            },
        );
    };
    if r.y0 > 0 {
        horizontal(r.y0 - 1, r.y0, &mut nodes);
    }
    if r.y0 + r.h < grid.height() {
        let ya = r.y0 + r.h - 1;
        horizontal(ya, ya, &mut nodes);
    }
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

#[inline]
fn cross_open(grid: &Grid, ax: u32, ay: u32, bx: u32, by: u32) -> bool {
    grid.is_walkable_xy(i64::from(ax), i64::from(ay))
        && grid.is_walkable_xy(i64::from(bx), i64::from(by))
}

/// Calls `emit` with the positions along a border (`start..start + len`) where navigation
/// points go: for each maximal run of positions where `open` holds, its middle when the run is
/// short, both ends when it is long, and its middle too when it is very long.
fn for_each_transition(
    start: u32,
    len: u32,
    open: impl Fn(u32) -> bool,
    mut emit: impl FnMut(u32),
) {
    let end = start + len;
    let mut p = start;
    while p < end {
        if !open(p) {
            p += 1;
            continue;
        }
        let run_start = p;
        while p < end && open(p) {
            p += 1;
        }
        let run = p - run_start;
        if run <= SINGLE_ENTRANCE_MAX {
            emit(run_start + (run - 1) / 2);
        } else {
            emit(run_start);
            if run >= MIDDLE_ENTRANCE_MIN {
                emit(run_start + (run - 1) / 2);
            }
            emit(p - 1);
        }
    }
}

/// Each node's shortest-path tree over the cluster (one confined Dijkstra per node, run
/// over the whole cluster) and the costs of the routes between every pair of nodes, read
/// from the trees.
fn cluster_routes(
    grid: &Grid,
    rect: Rect,
    nodes: Vec<CellId>,
    search: &mut LocalSearch,
) -> Cluster {
    let n = nodes.len();
    let mut tree = Vec::with_capacity(n * rect.area());
    search.prepare(grid, rect);
    for &node in &nodes {
        search.run(grid, node);
        search.export_tree(&mut tree);
    }
    let mut cluster = Cluster {
        cost: vec![f64::INFINITY; n * n],
        nodes,
        tree,
    };
    for i in 0..n {
        cluster.cost[i * n + i] = 0.0;
        for j in i + 1..n {
            if let Some((forward, backward)) = cluster.pair_costs(grid, rect, i, j) {
                cluster.cost[i * n + j] = forward;
                cluster.cost[j * n + i] = backward;
            }
        }
    }
    cluster
}
