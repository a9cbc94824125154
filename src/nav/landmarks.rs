//! Landmark lower bounds (ALT: A*, landmarks and the triangle inequality; A. V. Goldberg and
//! C. Harrelson, "Computing the shortest path: A* search meets graph theory", SODA 2005) for
//! the search over the navigation points.
//!
//! Among 10% random obstacles the octile distance underestimates a long trip by a few
//! percent, enough for the search over the points to expand a wide band around the route
//! (about 1,100 of 6,424 points on `random512-10-0`). Exact distances from a few landmarks on
//! the map's rim give, by the triangle inequality, `d(v, goal) >= |d(L, goal) - d(L, v)|`:
//! a bound that is tight for every point between a landmark and the goal. The search takes the
//! larger of that and the octile distance, still a consistent heuristic.

use rayon::prelude::*;

use super::graph::NavGraph;
use crate::grid::Grid;
use crate::search::OpenList;

/// Number of landmarks, spread along the rim of the map. Saved graphs hold their distances:
/// changing it changes the file format (bump [`FORMAT_VERSION`](super::FORMAT_VERSION)).
pub(crate) const LANDMARKS: usize = 64;
const _: () = assert!(LANDMARKS.is_power_of_two(), "lower_bound halves the lanes");

/// Distance of a point a landmark does not reach: finite, so that bounds need no branch.
/// Two points both out of a landmark's reach get a bound of 0 from it; a point reached and one
/// not get about 1e30, right, since no path joins them.
pub(crate) const UNREACHED: f32 = 1e30;

/// Distances from the landmarks to every navigation point.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Landmarks {
    /// `dist[v * LANDMARKS + l]`: cost from landmark `l` to point `v` ([`UNREACHED`] when
    /// `v` is not reachable from it). One point's bounds share a cache line.
    pub dist: Vec<f32>,
    /// Largest rounding error of a difference of two distances (they are rounded to f32):
    /// taken off every bound so that it never exceeds the true cost.
    pub slack: f32,
    /// Whether the graph's costs are symmetric (no cell costs), so that `d(v, L) = d(L, v)`
    /// and both sides of the triangle inequality hold.
    pub symmetric: bool,
}

impl Landmarks {
    /// Landmarks for `graph` (edges linked): for each anchor on the rim of the map, the
    /// point of the grid's largest connected area nearest to it; one Dijkstra over the points
    /// per landmark, in parallel.
    pub fn compute(graph: &NavGraph, grid: &Grid) -> Landmarks {
        let n = graph.node_cell.len();
        let largest = grid.components().largest();
        let (w, h) = (grid.width() - 1, grid.height() - 1);
        // Evenly spaced along the rim, clockwise from the top-left corner.
        let perimeter = 2 * (u64::from(w) + u64::from(h));
        let anchors: Vec<(u32, u32)> = (0..LANDMARKS as u64)
            .map(|k| {
                let t = k * perimeter / LANDMARKS as u64;
                let (w64, h64) = (u64::from(w), u64::from(h));
                let (x, y) = if t < w64 {
                    (t, 0)
                } else if t < w64 + h64 {
                    (w64, t - w64)
                } else if t < 2 * w64 + h64 {
                    (w64 - (t - w64 - h64), h64)
                } else {
                    (0, h64 - (t - 2 * w64 - h64))
                };
                (x as u32, y as u32)
            })
            .collect();
        let candidates: Vec<u32> = (0..n as u32)
            .filter(|&v| {
                largest.is_some() && grid.components().of(graph.node_cell[v as usize]) == largest
            })
            .collect();
        let roots: Vec<Option<u32>> = anchors
            .iter()
            .map(|&(ax, ay)| {
                candidates.iter().copied().min_by_key(|&v| {
                    let (x, y) = graph.node_xy[v as usize];
                    (
                        u64::from(x.abs_diff(ax)).pow(2) + u64::from(y.abs_diff(ay)).pow(2),
                        v,
                    )
                })
            })
            .collect();
        let columns: Vec<Vec<f32>> = roots
            .par_iter()
            .map(|root| match root {
                Some(r) => dijkstra(graph, *r),
                None => vec![UNREACHED; n],
            })
            .collect();
        let mut dist = vec![UNREACHED; n * LANDMARKS];
        for (l, column) in columns.iter().enumerate() {
            for (v, &d) in column.iter().enumerate() {
                dist[v * LANDMARKS + l] = d;
            }
        }
        Self::from_distances(dist, grid)
    }

    /// Landmarks with distances computed before (read from a file) for `grid`.
    pub fn from_distances(dist: Vec<f32>, grid: &Grid) -> Landmarks {
        let max = dist
            .iter()
            .copied()
            .filter(|&d| d < UNREACHED)
            .fold(0.0f32, f32::max);
        Landmarks {
            dist,
            slack: max * 2f32.powi(-21),
            symmetric: !grid.is_weighted(),
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.dist.capacity() * 4
    }

    /// The landmark distances of point `v`.
    #[inline]
    pub fn of(&self, v: usize) -> &[f32] {
        &self.dist[v * LANDMARKS..(v + 1) * LANDMARKS]
    }

    /// Lower bound on the cost from a point with landmark distances `dv` to a goal with
    /// landmark distances `dg`.
    #[inline]
    pub fn lower_bound(&self, dv: &[f32], dg: &[f32; LANDMARKS]) -> f64 {
        let dv: &[f32; LANDMARKS] = dv.try_into().expect("one point's distances");
        // Lane-wise differences, then a halving max: plain selects on arrays, which the
        // compiler turns into a few vector instructions (a running `f32::max` does not
        // vectorise, for its NaN rules).
        let mut m = [0.0f32; LANDMARKS];
        if self.symmetric {
            for l in 0..LANDMARKS {
                m[l] = (dg[l] - dv[l]).abs();
            }
        } else {
            for l in 0..LANDMARKS {
                m[l] = dg[l] - dv[l];
            }
        }
        let mut half = LANDMARKS / 2;
        while half > 0 {
            for l in 0..half {
                m[l] = if m[l + half] > m[l] {
                    m[l + half]
                } else {
                    m[l]
                };
            }
            half /= 2;
        }
        let best = m[0];
        f64::from((best - self.slack).max(0.0))
    }
}

/// Costs from `root` to every point over the graph's edges. The open list is the grid
/// search's radix heap (keys: the bits of the non-negative `f64` costs, which order as the
/// costs do): 64 of these run per build, over every point (430,000 on a 4096 x 4096 random
/// map), and against a binary heap it took the landmarks from 12% of a build's instructions
/// to 5%.
fn dijkstra(graph: &NavGraph, root: u32) -> Vec<f32> {
    let n = graph.node_cell.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut settled = vec![false; n];
    let mut open = OpenList::default();
    dist[root as usize] = 0.0;
    open.push(0, root);
    while let Some((_, u)) = open.pop() {
        // The key popped may be rounded up to the last one (see `OpenList::push`): the
        // distance is read from the table, and stale entries are known by `settled`.
        if std::mem::replace(&mut settled[u as usize], true) {
            continue;
        }
        let d = dist[u as usize];
        let (a, b) = (
            graph.edge_start[u as usize] as usize,
            graph.edge_start[u as usize + 1] as usize,
        );
        for e in &graph.edges[a..b] {
            let nd = d + f64::from(e.cost);
            let to = e.to as usize;
            if nd < dist[to] && !settled[to] {
                dist[to] = nd;
                open.push(nd.to_bits(), e.to);
            }
        }
    }
    dist.into_iter()
        .map(|d| if d.is_finite() { d as f32 } else { UNREACHED })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use super::*;
    use crate::grid::procgen::MapGenerator;
    use crate::nav::NavOptions;

    /// Every bound is at most the true cost between the two points over the graph (checked
    /// against a Dijkstra from each of a spread of points), and the bounds are not all zero.
    fn check_admissible(grid: &Grid) {
        let nav = NavGraph::build(grid, &NavOptions { cluster_size: 8 }).unwrap();
        let lm = &nav.landmarks;
        let n = nav.node_count();
        assert!(n > 20, "a graph worth testing ({n} points)");
        let mut positive = 0;
        let mut incoming: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for (v, w) in nav.edge_start.windows(2).enumerate() {
            for e in &nav.edges[w[0] as usize..w[1] as usize] {
                incoming[e.to as usize].push((v, f64::from(e.cost)));
            }
        }
        for goal in (0..n).step_by(n / 7) {
            // Costs from every point to `goal`: a Dijkstra on the reversed edges.
            let mut to_goal = vec![f64::INFINITY; n];
            let mut heap = BinaryHeap::new();
            to_goal[goal] = 0.0;
            heap.push(Reverse((0u64, goal)));
            while let Some(Reverse((bits, u))) = heap.pop() {
                let d = f64::from_bits(bits);
                if d > to_goal[u] {
                    continue;
                }
                for &(v, cost) in &incoming[u] {
                    if d + cost < to_goal[v] {
                        to_goal[v] = d + cost;
                        heap.push(Reverse(((d + cost).to_bits(), v)));
                    }
                }
            }
            let dg: &[f32; LANDMARKS] = lm.of(goal).try_into().unwrap();
            for (v, &cost) in to_goal.iter().enumerate() {
                let bound = lm.lower_bound(lm.of(v), dg);
                if cost.is_finite() {
                    assert!(
                        bound <= cost + 1e-9,
                        "bound {bound} over the cost {cost} from point {v} to {goal}"
                    );
                    positive += usize::from(bound > 0.0);
                }
            }
        }
        assert!(
            positive > n,
            "the landmarks bound something ({positive} positive)"
        );
    }

    #[test]
    fn bounds_never_exceed_the_cost_on_uniform_maps() {
        let grid = MapGenerator::Random {
            width: 64,
            height: 48,
            density: 0.2,
        }
        .generate(3)
        .unwrap();
        check_admissible(&grid);
    }

    #[test]
    fn bounds_never_exceed_the_cost_with_cell_costs() {
        let grid = MapGenerator::Rooms {
            width: 64,
            height: 48,
            room: 12,
            door: 2,
        }
        .generate(5)
        .unwrap();
        let costs = (0..grid.len())
            .map(|c| 1.0 + (c * 7919 % 13) as f32 / 4.0)
            .collect();
        let grid = grid.with_costs(costs).unwrap();
        assert!(
            !Landmarks::compute(
                &NavGraph::build(&grid, &NavOptions { cluster_size: 8 }).unwrap(),
                &grid
            )
            .symmetric
        );
        check_admissible(&grid);
    }
}
