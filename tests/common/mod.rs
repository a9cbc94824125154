//! Helpers shared by the integration tests: a deliberately simple reference Dijkstra and a
//! random map maker, both written independently of the library's search code.

#![allow(dead_code)] // each test binary uses a different subset

pub mod cli;
pub mod harness;

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::PathBuf;

use throng::grid::{CellId, Grid, Neighborhood};

/// A shipped MAPF benchmark instance (files under `sims/maps`): the first `agents` lines of
/// `scen` on `map` with `neighbourhood` moves, as `throng mapf` reads it (`Instance::from_scen`).
pub fn mapf_instance(
    map: &str,
    scen: &str,
    agents: usize,
    neighbourhood: Neighborhood,
) -> (Grid, Vec<CellId>, Vec<CellId>) {
    let grid = throng::movingai::load_map(shipped(map))
        .unwrap()
        .with_neighborhood(neighbourhood);
    let scen = throng::movingai::ScenFile::load(shipped(scen)).unwrap();
    let i = throng::mapf::Instance::from_scen(grid, &scen, agents).unwrap();
    (i.grid, i.starts, i.goals)
}

/// Checks a MAPF plan independently of the solvers: starts first, goals last, every step valid
/// by `mapf::check_step`.
pub fn check_mapf_plan(grid: &Grid, plan: &[Vec<CellId>], starts: &[CellId], goals: &[CellId]) {
    assert_eq!(plan.first().map(Vec::as_slice), Some(starts));
    assert_eq!(plan.last().map(Vec::as_slice), Some(goals));
    for (t, pair) in plan.windows(2).enumerate() {
        if let Err(e) = throng::mapf::check_step(grid, &pair[0], &pair[1]) {
            panic!("step {t}: {e}");
        }
    }
}

/// A MAPF plan's sum of costs: per agent, the timestep from which it stays on its goal.
pub fn plan_sum_of_costs(plan: &[Vec<CellId>], goals: &[CellId]) -> u64 {
    (0..goals.len())
        .map(|a| {
            plan.iter()
                .rposition(|c| c[a] != goals[a])
                .map_or(0, |t| t as u64 + 1)
        })
        .sum()
}

/// Path to a file under `sims/maps`.
pub fn shipped(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sims/maps")
        .join(name)
}

/// The legal moves of `cell` with their costs, from walkability and costs only: in bounds,
/// onto a walkable cell, and a diagonal only when both orthogonal cells beside it are walkable.
pub fn reference_moves(grid: &Grid, cell: CellId) -> Vec<(CellId, f64)> {
    let (x, y) = grid.coords(cell);
    let (x, y) = (i64::from(x), i64::from(y));
    let mut out = Vec::new();
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            if (dx, dy) == (0, 0) {
                continue;
            }
            let diagonal = dx != 0 && dy != 0;
            if diagonal && grid.neighborhood() == Neighborhood::Four {
                continue;
            }
            let (nx, ny) = (x + dx, y + dy);
            if !grid.is_walkable_xy(nx, ny) {
                continue;
            }
            if diagonal && !(grid.is_walkable_xy(x + dx, y) && grid.is_walkable_xy(x, y + dy)) {
                continue;
            }
            let next = grid.cell(nx as u32, ny as u32).unwrap();
            let base = if diagonal {
                std::f64::consts::SQRT_2
            } else {
                1.0
            };
            out.push((next, base * f64::from(grid.cost(next))));
        }
    }
    out
}

#[derive(PartialEq)]
struct Item(f64, CellId);
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

/// Cost of the cheapest path from `start` to `goal`, or `None` when there is none. Plain
/// Dijkstra with lazy deletion on a `BinaryHeap`; slow and obviously right.
pub fn reference_cost(grid: &Grid, start: CellId, goal: CellId) -> Option<f64> {
    reference_costs_from(grid, start, Some(goal))[goal as usize]
}

/// Costs from `start` to every cell (all of them, or until `stop` is settled).
pub fn reference_costs_from(grid: &Grid, start: CellId, stop: Option<CellId>) -> Vec<Option<f64>> {
    let mut dist: Vec<Option<f64>> = vec![None; grid.len()];
    let mut done = vec![false; grid.len()];
    let mut heap = BinaryHeap::new();
    dist[start as usize] = Some(0.0);
    heap.push(Item(0.0, start));
    while let Some(Item(d, c)) = heap.pop() {
        if done[c as usize] {
            continue;
        }
        done[c as usize] = true;
        if Some(c) == stop {
            break;
        }
        for (n, w) in reference_moves(grid, c) {
            let nd = d + w;
            if dist[n as usize].is_none_or(|old| nd < old) {
                dist[n as usize] = Some(nd);
                heap.push(Item(nd, n));
            }
        }
    }
    dist
}

/// Small deterministic generator (SplitMix64), independent of the library's.
pub struct TestRng(u64);

impl TestRng {
    pub fn new(seed: u64) -> Self {
        TestRng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random grid: `density` of the cells blocked, optionally with costs from a small set that
/// includes cheap (0.5) terrain, and the given movement rule.
pub fn random_grid(
    rng: &mut TestRng,
    width: u32,
    height: u32,
    density: f64,
    weighted: bool,
    neighborhood: Neighborhood,
) -> Grid {
    let n = (width * height) as usize;
    let walkable: Vec<bool> = (0..n).map(|_| rng.unit() >= density).collect();
    let grid = Grid::from_walkable(width, height, walkable)
        .unwrap()
        .with_neighborhood(neighborhood);
    if weighted {
        const COSTS: [f32; 5] = [0.5, 1.0, 1.0, 2.0, 7.25];
        let costs = (0..n).map(|_| COSTS[rng.below(5) as usize]).collect();
        grid.with_costs(costs).unwrap()
    } else {
        grid
    }
}

/// Whether `a` and `b` agree to within a relative `1e-9`.
pub fn same_cost(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// `n` distinct walkable cells of the largest component, drawn from `seed` (a partial
/// Fisher-Yates shuffle: the first `n` cells of a seeded shuffle).
pub fn distinct_cells(grid: &Grid, n: usize, seed: u64) -> Vec<CellId> {
    let largest = grid.components().largest().expect("a walkable cell");
    let mut pool: Vec<CellId> = (0..grid.len() as CellId)
        .filter(|&c| grid.components().of(c) == Some(largest))
        .collect();
    assert!(pool.len() >= n, "map too small for {n} agents");
    let mut rng = TestRng::new(seed);
    for i in 0..n {
        let j = i + rng.below((pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(n);
    pool
}
