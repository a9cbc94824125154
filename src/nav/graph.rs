//! The prepared graph: clusters, their navigation points and the routes between them.

use crate::grid::{CellId, Direction, Grid, Neighborhood};

use super::direct::DirectSearches;
use super::landmarks::{LANDMARKS, Landmarks};
use super::local::Rect;

/// One cluster: its navigation points, the costs of the routes between every pair of them,
/// confined to the cluster, and each point's shortest-path tree over the cluster, from which
/// the routes are read.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Cluster {
    /// Cells of the navigation points, sorted.
    pub nodes: Vec<CellId>,
    /// `n * n` costs: `cost[i * n + j]` of the route from node `i` to node `j` (infinite when
    /// there is none inside the cluster, 0 on the diagonal).
    pub cost: Vec<f64>,
    /// Per node `i`, the shortest-path tree of a confined Dijkstra from it over the cluster:
    /// `tree[i * area + l]` is the direction of the step into local cell `l` from its parent,
    /// [`TREE_ROOT`] at the node, [`TREE_NONE`] where the node does not reach. A query
    /// connects its start and goal to every point of their clusters by walking these trees
    /// (a few hundred steps) instead of running a Dijkstra over the cluster per query, and
    /// the route between points `i < j` is tree `i` walked from `j` (see
    /// [`Cluster::append_route`]). Until format 4 the routes were stored cell by cell as well:
    /// 38% of the memory and of the file, for what the trees already hold.
    pub tree: Vec<u8>,
}

/// [`Cluster::tree`] entry of the node itself.
pub(crate) const TREE_ROOT: u8 = u8::MAX;
/// [`Cluster::tree`] entry of a cell the node does not reach inside the cluster.
pub(crate) const TREE_NONE: u8 = u8::MAX - 1;

impl Cluster {
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * 4 + self.cost.capacity() * 8 + self.tree.capacity()
    }

    /// Node `i`'s tree (the cluster is `rect`).
    #[inline]
    pub fn tree(&self, rect: Rect, i: usize) -> &[u8] {
        let area = (rect.w * rect.h) as usize;
        &self.tree[i * area..(i + 1) * area]
    }

    /// The cost [`tree_path`](Self::tree_path) returns, without the cells: on uniform grids
    /// a walk over local indices that only counts straight and diagonal steps (the query runs
    /// it for every point of two clusters).
    #[inline]
    pub fn tree_cost(
        &self,
        grid: &Grid,
        rect: Rect,
        i: usize,
        cell: CellId,
        to_node: bool,
    ) -> Option<f64> {
        if grid.is_weighted() {
            return self.tree_path(grid, rect, i, cell, to_node, None);
        }
        let tree = self.tree(rect, i);
        let w = rect.w as isize;
        let offset: [isize; 8] =
            std::array::from_fn(|d| Direction::DY[d] as isize * w + Direction::DX[d] as isize);
        let (x, y) = grid.coords(cell);
        let mut l = rect.local(x, y);
        let (mut straight, mut diagonal) = (0u32, 0u32);
        loop {
            let d = tree[l];
            if d >= 8 {
                return (d == TREE_ROOT)
                    .then(|| f64::from(straight) + f64::from(diagonal) * std::f64::consts::SQRT_2);
            }
            let d = usize::from(d);
            if Direction::ALL[d].is_diagonal() {
                diagonal += 1;
            } else {
                straight += 1;
            }
            l = l.wrapping_sub(offset[d] as usize);
        }
    }

    /// Walks node `i`'s tree (the cluster is `rect`) from `cell` to the node and returns the
    /// cost of that path, from `cell` to the node when `to_node`, else from the node to
    /// `cell`; `None` when the node does not reach `cell` inside the cluster. With `out`, the
    /// cells from `cell` to the node (both included) are appended to it.
    pub fn tree_path(
        &self,
        grid: &Grid,
        rect: Rect,
        i: usize,
        cell: CellId,
        to_node: bool,
        mut out: Option<&mut Vec<CellId>>,
    ) -> Option<f64> {
        let tree = self.tree(rect, i);
        let width = grid.width();
        let (mut x, mut y) = grid.coords(cell);
        let mut cost = 0.0;
        let weighted = grid.is_weighted();
        loop {
            let d = tree[rect.local(x, y)];
            if let Some(o) = out.as_deref_mut() {
                o.push(y * width + x);
            }
            if d == TREE_ROOT {
                return Some(cost);
            }
            if d == TREE_NONE {
                debug_assert!(cost == 0.0, "a tree path runs into an unreached cell");
                return None;
            }
            let d = usize::from(d);
            let (px, py) = (
                x.wrapping_add_signed(-Direction::DX[d]),
                y.wrapping_add_signed(-Direction::DY[d]),
            );
            let step = Direction::BASE_COST[d];
            cost += if !weighted {
                step
            } else if to_node {
                // `cell` -> node walks each tree step backwards, into the parent.
                step * f64::from(grid.cost(py * width + px))
            } else {
                step * f64::from(grid.cost(y * width + x))
            };
            (x, y) = (px, py);
        }
    }

    /// Costs of the route between nodes `i < j` (the cluster is `rect`): tree `i` walked
    /// from node `j`, as `(i -> j, j -> i)`; `None` when `i` does not reach `j`. The build
    /// stores these and the loader checks them with this same walk, so they agree to the bit.
    pub fn pair_costs(&self, grid: &Grid, rect: Rect, i: usize, j: usize) -> Option<(f64, f64)> {
        debug_assert!(i < j);
        let forward = self.tree_path(grid, rect, i, self.nodes[j], false, None)?;
        let backward = self.tree_path(grid, rect, i, self.nodes[j], true, None)?;
        Some((forward, backward))
    }

    /// Appends the route from node `i` to node `j` (the cluster is `rect`) to `out`, without
    /// node `i`'s cell and ending on node `j`'s: tree `min(i, j)` walked from the other node,
    /// the walk the costs were taken on. There must be a route (a finite cost).
    pub fn append_route(&self, grid: &Grid, rect: Rect, i: usize, j: usize, out: &mut Vec<CellId>) {
        let mark = out.len();
        if i < j {
            // Tree `i` from `j`: the cells j .. i; drop i and turn them round.
            self.tree_path(grid, rect, i, self.nodes[j], false, Some(out));
            out.pop();
            out[mark..].reverse();
        } else {
            // Tree `j` from `i`: the cells i .. j; drop i.
            self.tree_path(grid, rect, j, self.nodes[i], true, Some(out));
            out.remove(mark);
        }
        debug_assert_eq!(out.last(), Some(&self.nodes[j]));
    }
}

/// One edge of the abstract graph: 8 bytes, so that the edge lists the search reads (about
/// 1 MiB on `random512-10-0`) fit in the L2 cache. The search sums costs in `f64`; a path's
/// reported cost is summed again, exactly, from its cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Edge {
    /// Global id of the node it leads to.
    pub to: u32,
    /// Cost of the route, rounded to `f32`.
    pub cost: f32,
}

/// Navigation points over a grid, with routes between them computed ahead of time, for long
/// queries (see the [module docs](super)).
///
/// Build it once per map with [`NavGraph::build`] (clusters in parallel on the current rayon
/// pool), or load one prepared offline with [`NavGraph::load`]; query it from any number of
/// threads at once with one [`NavWorkspace`](super::NavWorkspace) each. After the map changes,
/// [`NavGraph::apply_changes`] rebuilds the clusters the changes touch.
#[derive(Debug, Clone, PartialEq)]
pub struct NavGraph {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) neighborhood: Neighborhood,
    pub(crate) cluster_size: u32,
    pub(crate) clusters_x: u32,
    pub(crate) clusters_y: u32,
    /// [`map_hash`] of the grid the graph was made for.
    pub(crate) map_hash: u64,
    pub(crate) clusters: Vec<Cluster>,
    // Derived by `link` from the clusters (not saved).
    /// Per cluster, the global id of its first node; one more entry closes the last cluster.
    pub(crate) node_start: Vec<u32>,
    pub(crate) node_cell: Vec<CellId>,
    pub(crate) node_cluster: Vec<u32>,
    /// Per node, its column and row (the search's heuristic reads them; no division).
    pub(crate) node_xy: Vec<(u32, u32)>,
    /// Per node, where its edges start in `edges`; one more entry closes the last node.
    pub(crate) edge_start: Vec<u32>,
    pub(crate) edges: Vec<Edge>,
    /// Landmark distances for the search's heuristic.
    pub(crate) landmarks: Landmarks,
    /// Factor on the search's heuristic (see [`NavGraph::set_heuristic_weight`]).
    pub(crate) weight: f64,
    /// How the graph searches directly: every query (on maps where long trips take JPS+ few
    /// jump points, optimal and faster than the points), and by JPS+ or JPS (see `direct.rs`).
    pub(crate) direct: DirectSearches,
}

impl NavGraph {
    /// Whether this graph answers every query by a direct JPS+ search (optimal paths) because
    /// long trips on its map take JPS+ so few jump points that the search beats the route
    /// through the points; decided when the graph is built or loaded (see
    /// [`NavGraph::find_path`]).
    pub fn searches_directly(&self) -> bool {
        self.direct.all
    }

    /// Whether the searches this graph makes directly on the grid (trips within neighbouring
    /// clusters, every trip where [`searches_directly`](Self::searches_directly), and the short
    /// trips of the `auto` planner) are JPS+, reading the grid's jump table, rather than online
    /// JPS. Decided from the map alone when the graph is built, loaded or repaired (JPS+ unless
    /// straight jumps keep stopping on the map); the graph then builds the table, and the grid
    /// keeps it up to date. Weighted and 4-connected grids are searched by A* either way.
    pub fn uses_jump_table(&self) -> bool {
        self.direct.jump_table
    }

    /// Side of a cluster, in cells.
    pub fn cluster_size(&self) -> u32 {
        self.cluster_size
    }

    /// Factor on the heuristic of the search over the points: 1 (the default) finds the
    /// cheapest chain of stored routes; `w > 1` (weighted A*) finds one at most `w` times as
    /// costly while expanding far fewer points. Measured on `random512-10-0`
    /// (`docs/performance.md`): 1.01 cuts the points expanded per long query by 30% and makes
    /// paths 0.3% longer on average.
    ///
    /// # Errors
    /// [`Error::Invalid`](crate::error::Error::Invalid) unless `1 <= weight <= 2`.
    pub fn set_heuristic_weight(&mut self, weight: f64) -> crate::error::Result<()> {
        if !(1.0..=2.0).contains(&weight) {
            return Err(crate::error::Error::Invalid(format!(
                "navigation heuristic weight {weight} is outside 1..=2"
            )));
        }
        self.weight = weight;
        Ok(())
    }

    /// The factor on the search's heuristic; see [`set_heuristic_weight`](Self::set_heuristic_weight).
    pub fn heuristic_weight(&self) -> f64 {
        self.weight
    }

    /// Number of clusters.
    pub fn cluster_count(&self) -> usize {
        self.clusters.len()
    }

    /// Number of navigation points.
    pub fn node_count(&self) -> usize {
        self.node_cell.len()
    }

    /// Number of edges of the abstract graph (each direction counted).
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The cells of every navigation point, cluster by cluster.
    pub fn nodes(&self) -> &[CellId] {
        &self.node_cell
    }

    /// Bytes of memory held by the graph (capacities of every buffer).
    pub fn memory_bytes(&self) -> usize {
        self.clusters
            .iter()
            .map(Cluster::memory_bytes)
            .sum::<usize>()
            + self.clusters.capacity() * std::mem::size_of::<Cluster>()
            + self.node_start.capacity() * 4
            + self.node_cell.capacity() * 4
            + self.node_cluster.capacity() * 4
            + self.node_xy.capacity() * 8
            + self.edge_start.capacity() * 4
            + self.edges.capacity() * std::mem::size_of::<Edge>()
            + self.landmarks.memory_bytes()
    }

    /// Whether the graph was made for a grid of this size, movement rule and walkability
    /// (it must be repaired or rebuilt after the grid changes).
    pub fn matches(&self, grid: &Grid) -> bool {
        grid.width() == self.width
            && grid.height() == self.height
            && grid.neighborhood() == self.neighborhood
            && map_hash(grid) == self.map_hash
    }

    /// [`Cluster::tree_path`] of global point `point`, in its cluster.
    pub(crate) fn point_tree_path(
        &self,
        grid: &Grid,
        point: u32,
        cell: CellId,
        to_node: bool,
        out: Option<&mut Vec<CellId>>,
    ) -> Option<f64> {
        let c = self.node_cluster[point as usize];
        let k = (point - self.node_start[c as usize]) as usize;
        self.clusters[c as usize].tree_path(grid, self.rect(c), k, cell, to_node, out)
    }

    /// Index of the cluster holding `(x, y)`.
    #[inline]
    pub(crate) fn cluster_of_xy(&self, x: u32, y: u32) -> u32 {
        (y / self.cluster_size) * self.clusters_x + x / self.cluster_size
    }

    /// The rectangle of cluster `c`.
    #[inline]
    pub(crate) fn rect(&self, c: u32) -> Rect {
        cluster_rect(
            self.width,
            self.height,
            self.cluster_size,
            self.clusters_x,
            c,
        )
    }

    /// Global id of the node at `cell` in cluster `c`, if it is one.
    #[inline]
    pub(crate) fn node_at(&self, c: u32, cell: CellId) -> Option<u32> {
        let nodes = &self.clusters[c as usize].nodes;
        nodes
            .binary_search(&cell)
            .ok()
            .map(|k| self.node_start[c as usize] + k as u32)
    }

    /// Assembles a graph from its clusters (built or read from a file) for `grid` and derives
    /// the linked node and edge tables, and the landmark distances unless `landmarks` gives
    /// them (read from a file: one value per point and landmark).
    pub(crate) fn from_clusters(
        grid: &Grid,
        cluster_size: u32,
        map_hash: u64,
        clusters: Vec<Cluster>,
        landmarks: Option<Vec<f32>>,
    ) -> NavGraph {
        let mut graph = NavGraph {
            width: grid.width(),
            height: grid.height(),
            neighborhood: grid.neighborhood(),
            cluster_size,
            clusters_x: grid.width().div_ceil(cluster_size),
            clusters_y: grid.height().div_ceil(cluster_size),
            map_hash,
            clusters,
            node_start: Vec::new(),
            node_cell: Vec::new(),
            node_cluster: Vec::new(),
            node_xy: Vec::new(),
            edge_start: Vec::new(),
            edges: Vec::new(),
            landmarks: Landmarks::default(),
            weight: 1.0,
            direct: super::direct::prepare_direct_searches(grid),
        };
        match landmarks {
            Some(dist) => {
                graph.link_edges(grid);
                assert_eq!(dist.len(), graph.node_count() * LANDMARKS);
                graph.landmarks = Landmarks::from_distances(dist, grid);
            }
            None => graph.link(grid),
        }
        graph
    }

    /// Rebuilds the global node numbering, the edge lists and the landmark distances from the
    /// clusters.
    pub(crate) fn link(&mut self, grid: &Grid) {
        self.link_edges(grid);
        self.landmarks = Landmarks::compute(self, grid);
    }

    /// [`link`](Self::link) but for the landmarks.
    fn link_edges(&mut self, grid: &Grid) {
        self.node_start.clear();
        self.node_cell.clear();
        self.node_cluster.clear();
        self.node_start.push(0);
        for (c, cluster) in self.clusters.iter().enumerate() {
            self.node_cell.extend_from_slice(&cluster.nodes);
            self.node_cluster
                .extend(std::iter::repeat_n(c as u32, cluster.nodes.len()));
            self.node_start.push(self.node_cell.len() as u32);
        }
        self.node_xy.clear();
        self.node_xy
            .extend(self.node_cell.iter().map(|&c| grid.coords(c)));
        let mut edges = std::mem::take(&mut self.edges);
        edges.clear();
        self.edge_start.clear();
        for c in 0..self.clusters.len() {
            let cluster = &self.clusters[c];
            let n = cluster.nodes.len();
            let base = self.node_start[c];
            for i in 0..n {
                self.edge_start.push(edges.len() as u32);
                for j in 0..n {
                    let cost = cluster.cost[i * n + j];
                    if i == j || !cost.is_finite() || dominated(&cluster.cost, n, i, j) {
                        continue;
                    }
                    edges.push(Edge {
                        to: base + j as u32,
                        cost: cost as f32,
                    });
                }
                let cell = cluster.nodes[i];
                let (x, y) = grid.coords(cell);
                let moves = grid.moves(cell);
                for dir in [
                    Direction::North,
                    Direction::East,
                    Direction::South,
                    Direction::West,
                ] {
                    if !moves.contains(dir) {
                        continue;
                    }
                    let next = grid.step(cell, dir);
                    let (nx, ny) = grid.coords(next);
                    let other = self.cluster_of_xy(nx, ny);
                    if other == c as u32 {
                        continue;
                    }
                    debug_assert_eq!(self.cluster_of_xy(x, y), c as u32);
                    if let Some(to) = self.node_at(other, next) {
                        edges.push(Edge {
                            to,
                            cost: grid.step_cost(dir, next) as f32,
                        });
                    }
                }
            }
        }
        self.edge_start.push(edges.len() as u32);
        self.edges = edges;
    }
}

/// Whether the route `i -> j` is no shorter than going through another point `k` of the
/// cluster: such an edge adds branching to the search and no shorter path, so it is left out.
/// Every point's distances are kept: with positive costs, an edge left out is replaced by two
/// strictly shorter ones, and by induction on cost those are kept or replaced in turn.
fn dominated(cost: &[f64], n: usize, i: usize, j: usize) -> bool {
    let direct = cost[i * n + j];
    let slack = direct * 1e-12;
    (0..n).any(|k| k != i && k != j && cost[i * n + k] + cost[k * n + j] <= direct + slack)
}

/// The rectangle of cluster `c` of a `width x height` grid cut in `size x size` clusters.
pub(crate) fn cluster_rect(width: u32, height: u32, size: u32, clusters_x: u32, c: u32) -> Rect {
    let (cx, cy) = (c % clusters_x, c / clusters_x);
    let (x0, y0) = (cx * size, cy * size);
    Rect {
        x0,
        y0,
        w: size.min(width - x0),
        h: size.min(height - y0),
    }
}

/// A hash of everything about a grid that the routes depend on: size, movement rule,
/// walkability and cell costs (FNV-1a, stable across platforms and runs).
pub fn map_hash(grid: &Grid) -> u64 {
    let mut h = crate::sim::StableHasher::default();
    h.write_u64(u64::from(grid.width()));
    h.write_u64(u64::from(grid.height()));
    h.write_u64(match grid.neighborhood() {
        Neighborhood::Four => 4,
        Neighborhood::Eight => 8,
    });
    let walkable = grid.walkable_table();
    for chunk in walkable.chunks(64) {
        let mut bits = 0u64;
        for (i, w) in chunk.iter().enumerate() {
            bits |= u64::from(*w) << i;
        }
        h.write_u64(bits);
    }
    if let Some(costs) = grid.cost_table() {
        for c in costs {
            h.write_u64(u64::from(c.to_bits()));
        }
    }
    h.finish()
}
