//! Answering a query on the prepared graph.

use super::graph::NavGraph;
use super::landmarks::{LANDMARKS, UNREACHED};
use super::refine::string_pull;
use super::{NavWorkspace, NodeState};
use crate::grid::{CellId, Grid, Neighborhood};
use crate::search::{QueryError, SearchOptions, SearchOutcome, SearchStats, validate_endpoints};

/// Parent of a node reached straight from the start.
const FROM_START: u32 = u32::MAX;

impl NavGraph {
    /// A path from `start` to `goal` through the navigation points, cell by cell in
    /// [`NavWorkspace::path`]: legal, continuous, close to optimal but not always optimal.
    ///
    /// Trips within one cluster or between neighbouring clusters are searched directly (on
    /// uniform 8-connected grids JPS+ where the graph chose the jump table,
    /// [`NavGraph::uses_jump_table`], JPS elsewhere; A* otherwise) and are
    /// optimal; on maps where long trips take JPS+ only a few jump points, every trip is
    /// ([`NavGraph::searches_directly`]).
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    ///
    /// # Panics
    /// When `grid` is not the size the graph was built for (debug builds also check that the
    /// graph is up to date with the grid's walls).
    pub fn find_path(
        &self,
        grid: &Grid,
        ws: &mut NavWorkspace,
        start: CellId,
        goal: CellId,
    ) -> Result<SearchOutcome, QueryError> {
        self.find_path_with(grid, ws, start, goal, &SearchOptions::default())
    }

    /// [`find_path`](Self::find_path) with options: the node budget applies to direct
    /// searches only (long queries have bounded work by construction).
    ///
    /// # Errors
    /// [`QueryError`] when a cell is outside the grid or blocked.
    ///
    /// # Panics
    /// As [`find_path`](Self::find_path).
    pub fn find_path_with(
        &self,
        grid: &Grid,
        ws: &mut NavWorkspace,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
    ) -> Result<SearchOutcome, QueryError> {
        assert!(
            grid.width() == self.width && grid.height() == self.height,
            "navigation graph built for a {} x {} grid, queried on {} x {}",
            self.width,
            self.height,
            grid.width(),
            grid.height()
        );
        ws.path.clear();
        ws.stats = SearchStats::default();
        validate_endpoints(grid, start, goal)?;
        if !grid.connected(start, goal) {
            return Ok(SearchOutcome::Unreachable);
        }
        let (sx, sy) = grid.coords(start);
        let (gx, gy) = grid.coords(goal);
        let cs = self.cluster_of_xy(sx, sy);
        let cg = self.cluster_of_xy(gx, gy);
        let near = (cs % self.clusters_x).abs_diff(cg % self.clusters_x) <= 1
            && (cs / self.clusters_x).abs_diff(cg / self.clusters_x) <= 1;
        if self.direct.all || near || !self.abstract_search(grid, ws, start, goal, cs, cg) {
            return Ok(self.direct(grid, ws, start, goal, options));
        }
        self.stitch(grid, ws, start, goal);
        let uniform8 = !grid.is_weighted() && grid.neighborhood() == Neighborhood::Eight;
        if uniform8 {
            string_pull(grid, &ws.raw, &mut ws.path);
        } else {
            std::mem::swap(&mut ws.raw, &mut ws.path);
        }
        // Routes between points and the trees at both ends can cross each other: a stitched
        // path may pass a cell twice (the goal among them: it overshot and came back). Cutting
        // the loop out keeps every step legal and only shortens the path.
        if has_repeats(&ws.path, &mut ws.cells_seen) {
            remove_loops(&mut ws.path, &mut ws.visited);
        }
        ws.direct = false;
        let cost = grid.legal_path_cost(ws.path.iter().copied());
        Ok(SearchOutcome::Found { cost })
    }

    /// The optimal search on the grid: JPS+ where the graph chose the jump table, else JPS
    /// ([`NavGraph::uses_jump_table`]).
    fn direct(
        &self,
        grid: &Grid,
        ws: &mut NavWorkspace,
        start: CellId,
        goal: CellId,
        options: &SearchOptions,
    ) -> SearchOutcome {
        let outcome = super::direct::search_directly(
            &mut ws.search,
            self.direct.jump_table,
            grid,
            start,
            goal,
            options,
        )
        .expect("endpoints were validated");
        ws.stats = ws.search.stats();
        ws.path.clear();
        ws.path.extend_from_slice(ws.search.path());
        ws.direct = true;
        outcome
    }

    /// Connects start and goal to the points of their clusters and runs A* over the points.
    /// On success the chosen chain of nodes is in `ws.node_path` (first node after the start
    /// first) with the edge taken into each in `ws.edge_path`. False when no chain exists
    /// (then the caller searches directly).
    fn abstract_search(
        &self,
        grid: &Grid,
        ws: &mut NavWorkspace,
        start: CellId,
        goal: CellId,
        cs: u32,
        cg: u32,
    ) -> bool {
        let (cl_s, rect_s) = (&self.clusters[cs as usize], self.rect(cs));
        let (cl_g, rect_g) = (&self.clusters[cg as usize], self.rect(cg));
        // Costs from each point of the goal's cluster to the goal, along the points' trees.
        ws.goal_cost.clear();
        ws.goal_cost.extend((0..cl_g.nodes.len()).map(|k| {
            cl_g.tree_cost(grid, rect_g, k, goal, false)
                .unwrap_or(f64::INFINITY)
        }));

        let base_g = self.node_start[cg as usize];
        let n = self.node_cell.len();
        let goal_id = n as u32;
        ws.begin_abstract(n + 1);
        let open_stamp = ws.generation;
        let closed_stamp = open_stamp + 1;
        let (gx, gy) = grid.coords(goal);
        let h_scale = grid.min_cost();
        // Landmark distances of the goal: through the points of its cluster.
        let lm = &self.landmarks;
        let mut goal_lm = [UNREACHED; LANDMARKS];
        for (k, &c) in ws.goal_cost.iter().enumerate() {
            if c.is_finite() {
                let dv = lm.of((base_g + k as u32) as usize);
                for l in 0..LANDMARKS {
                    goal_lm[l] = goal_lm[l].min(dv[l] + c as f32);
                }
            }
        }
        let heuristic = |v: usize| {
            let (x, y) = self.node_xy[v];
            let octile = crate::grid::distance(
                grid.neighborhood(),
                f64::from(x.abs_diff(gx)),
                f64::from(y.abs_diff(gy)),
            ) * h_scale;
            octile.max(lm.lower_bound(lm.of(v), &goal_lm)) * self.weight
        };
        let base_s = self.node_start[cs as usize];
        for k in 0..cl_s.nodes.len() {
            if let Some(d) = cl_s.tree_cost(grid, rect_s, k, start, true) {
                let id = (base_s + k as u32) as usize;
                let h = heuristic(id);
                ws.nodes[id] = NodeState {
                    g: d,
                    h,
                    stamp: open_stamp,
                    parent: FROM_START,
                };
                ws.open.push(key(d + h, h_scale), id as u32);
            }
        }
        let mut found = false;
        while let Some((_, u)) = ws.open.pop() {
            let ui = u as usize;
            if ws.nodes[ui].stamp == closed_stamp {
                continue;
            }
            if u == goal_id {
                found = true;
                break;
            }
            ws.nodes[ui].stamp = closed_stamp;
            ws.stats.expanded += 1;
            let gu = ws.nodes[ui].g;
            if self.node_cluster[ui] == cg {
                let d = ws.goal_cost[(u - base_g) as usize];
                let goal_node = &mut ws.nodes[goal_id as usize];
                let ng = gu + d;
                if d.is_finite() && (goal_node.stamp != open_stamp || ng < goal_node.g) {
                    *goal_node = NodeState {
                        g: ng,
                        h: 0.0,
                        stamp: open_stamp,
                        parent: u,
                    };
                    ws.open.push(key(ng, h_scale), goal_id);
                }
            }
            let edges = &self.edges[self.edge_start[ui] as usize..self.edge_start[ui + 1] as usize];
            for edge in edges {
                let v = edge.to as usize;
                let node = &mut ws.nodes[v];
                if node.stamp == closed_stamp {
                    continue;
                }
                let ng = gu + f64::from(edge.cost);
                if node.stamp == open_stamp {
                    if ng >= node.g {
                        continue;
                    }
                } else {
                    node.h = heuristic(v);
                    node.stamp = open_stamp;
                }
                node.g = ng;
                node.parent = u;
                ws.open.push(key(ng + node.h, h_scale), v as u32);
            }
        }
        if !found {
            return false;
        }
        // Chain of nodes, goal side first, then reversed.
        ws.node_path.clear();
        let mut v = ws.nodes[goal_id as usize].parent;
        while v != FROM_START {
            ws.node_path.push(v);
            v = ws.nodes[v as usize].parent;
        }
        ws.node_path.reverse();
        true
    }

    /// Writes the cell-by-cell path of the chain found by `abstract_search` into `ws.raw`.
    fn stitch(&self, grid: &Grid, ws: &mut NavWorkspace, start: CellId, goal: CellId) {
        ws.raw.clear();
        self.point_tree_path(grid, ws.node_path[0], start, true, Some(&mut ws.raw));
        debug_assert_eq!(ws.raw[0], start);
        for k in 1..ws.node_path.len() {
            let (u, v) = (ws.node_path[k - 1] as usize, ws.node_path[k] as usize);
            let c = self.node_cluster[u];
            if self.node_cluster[v] != c {
                // An edge between clusters: one step across the border.
                ws.raw.push(self.node_cell[v]);
                continue;
            }
            let first = self.node_start[c as usize] as usize;
            self.clusters[c as usize].append_route(
                grid,
                self.rect(c),
                u - first,
                v - first,
                &mut ws.raw,
            );
        }
        let last = *ws.node_path.last().expect("a chain has a node");
        // The path ends on the last node; the goal's tree runs from it (included) to the goal.
        ws.raw.pop();
        let mark = ws.raw.len();
        self.point_tree_path(grid, last, goal, false, Some(&mut ws.raw));
        ws.raw[mark..].reverse();
        debug_assert_eq!(ws.raw.last(), Some(&goal));
    }
}

/// Whether a cell appears twice in `path`, with `table` as scratch: a set with open addressing
/// sized to twice the path (a few ns a cell, against some 20 for the standard hash map, which
/// only the rare path with a loop then needs).
fn has_repeats(path: &[CellId], table: &mut Vec<CellId>) -> bool {
    const EMPTY: CellId = CellId::MAX;
    let bits = (2 * path.len()).next_power_of_two().trailing_zeros().max(4);
    table.clear();
    table.resize(1 << bits, EMPTY);
    let mask = (1usize << bits) - 1;
    for &cell in path {
        let mut slot = (cell.wrapping_mul(0x9e37_79b1) >> (32 - bits)) as usize;
        loop {
            match table[slot] {
                EMPTY => {
                    table[slot] = cell;
                    break;
                }
                c if c == cell => return true,
                _ => slot = (slot + 1) & mask,
            }
        }
    }
    false
}

/// Cuts every loop out of `path` (a stretch from a cell back to the same cell), in place, with
/// `visited` as scratch (cleared; it keeps its room between queries, so no allocation once
/// warm). Consecutive cells stay consecutive: the cell after a loop follows the loop's first
/// visit of the cell it started from.
fn remove_loops(path: &mut Vec<CellId>, visited: &mut std::collections::HashMap<CellId, u32>) {
    visited.clear();
    let mut len = 0usize;
    for i in 0..path.len() {
        let cell = path[i];
        if let Some(&at) = visited.get(&cell) {
            for dropped in &path[at as usize + 1..len] {
                visited.remove(dropped);
            }
            len = at as usize + 1;
        } else {
            visited.insert(cell, len as u32);
            path[len] = cell;
            len += 1;
        }
    }
    path.truncate(len);
}

/// Open-list key of an estimate `f`: in 1/[`KEY_SCALE`] of the cheapest straight step
/// (`unit`, the grid's smallest cell cost), so that estimates
/// equal but for rounding (common with the landmark bounds, which are exact along whole
/// routes) tie, and the open list's last-in-first-out ties send the search deep along the
/// route instead of across it (430 -> 320 points expanded per long query on
/// `random512-10-0`). The chain found can cost up to 1/64 more than the best one.
#[inline]
fn key(f: f64, unit: f64) -> u64 {
    (f * (KEY_SCALE / unit)) as u64
}

/// See [`key`].
const KEY_SCALE: f64 = 64.0;
