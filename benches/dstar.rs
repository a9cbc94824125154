//! D* Lite repair against A* from scratch after a local map change.
//!
//! # What is measured
//!
//! Four 256 x 256 maps: `open` (no obstacle), `random10` (10% random obstacles), `rooms`
//! (15-cell rooms, 3-cell doors) and `maze` (2-cell corridors), all from
//! [`MapGenerator`] or [`Grid::new`], so nothing is downloaded. On each, [`TRIPS`] long trips
//! between opposite corner regions. For each trip a [`DStarLite`] agent plans, walks
//! [`WALK`] of the way along its path (replanning from each new cell is free on an unchanged
//! map), and then a few cells of its path are blocked (the path must change; the goal stays
//! reachable) at one of two places:
//!
//! - `ahead`: [`AHEAD`] steps in front of the agent: the usual case for an agent that sees a
//!   door close or a crowd form in front of it;
//! - `goal`: [`NEAR_GOAL`] steps before the goal, far from the agent.
//!
//! Compared, on the changed map and from the agent's cell:
//!
//! - `dstar_repair`: [`DStarLite::notify_changes`] then [`DStarLite::plan`], resuming the
//!   agent's state (cloned before each run, outside the timing);
//! - `astar`: [`SearchWorkspace::find_path`] from scratch (a warm workspace);
//! - in the summary also `dstar_fresh`: a new D* Lite agent's first plan from the same cell.
//!
//! # Correctness before timing
//!
//! Every repair is checked once before anything is timed: its path is legal
//! ([`Grid::path_cost`]) and its cost equals A*'s on the changed map. A wrong repair panics.
//!
//! # Output
//!
//! criterion groups `dstar/<map>/<place>` with the functions `dstar_repair` and `astar` (one
//! iteration answers every trip; throughput = trips). Then a table on stdout, measured in the
//! same process with [`Instant`] over [`SUMMARY_ROUNDS`] rounds: mean µs per repair and per A*
//! query, their ratio, nodes expanded by each, and the bytes the agent holds (after its first
//! plan and after the repair) with the number of cells its state holds after the repair.
//! `cargo bench --bench dstar -- --quick skip` prints the table without the criterion runs.
//!
//! ```text
//! cargo bench --bench dstar               # criterion groups + summary table
//! cargo bench --bench dstar -- --quick    # shorter criterion runs, summary still printed
//! cargo test --benches                    # correctness check + one pass of each function
//! ```

mod common;

use common::RunMode;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode, Throughput};
use throng::dstar::DStarLite;
use throng::grid::CellChange;
use throng::grid::procgen::MapGenerator;
use throng::grid::{CellId, Grid};
use throng::search::SearchWorkspace;

/// Trips per map.
const TRIPS: usize = 4;
/// Fraction of its path the agent walks before the change.
const WALK: f64 = 0.1;
/// Steps ahead of the agent where the `ahead` change blocks the path.
const AHEAD: usize = 6;
/// Steps before the goal where the `goal` change blocks the path.
const NEAR_GOAL: usize = 12;
/// Timed rounds of every trip for the summary table.
const SUMMARY_ROUNDS: usize = 20;

/// Where the change blocks the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Ahead,
    NearGoal,
}

impl Place {
    fn name(self) -> &'static str {
        match self {
            Place::Ahead => "ahead",
            Place::NearGoal => "goal",
        }
    }
}

/// One trip, ready for the change: the agent's state before it, the map after it.
struct Trip {
    /// The map with the change applied.
    after: Grid,
    /// The agent after its first plan and walk, before hearing of the change.
    agent: DStarLite,
    /// The changed cells.
    changed: Vec<CellId>,
    /// Where the agent stands.
    at: CellId,
    goal: CellId,
    /// Bytes the agent held after its first plan.
    first_bytes: usize,
}

struct MapCase {
    name: &'static str,
    place: Place,
    trips: Vec<Trip>,
}

/// Tiny deterministic generator for picking cells.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

/// A walkable cell in the `size x size` square at `(x0, y0)` connected to `other` (if given).
fn pick(grid: &Grid, rng: &mut Rng, x0: u32, y0: u32, size: u32, other: Option<CellId>) -> CellId {
    loop {
        let c = grid
            .cell(x0 + rng.below(size), y0 + rng.below(size))
            .unwrap();
        if grid.is_walkable(c) && other.is_none_or(|o| grid.connected(c, o)) {
            return c;
        }
    }
}

/// Blocks a few cells of `path` from index `from` on, keeping `keep` walkable and the goal
/// reachable; returns the changes (empty when no place works).
fn block_path(grid: &Grid, path: &[CellId], from: usize, keep: &[CellId]) -> Vec<CellChange> {
    let (start, goal) = (path[0], *path.last().unwrap());
    for i in from..path.len().saturating_sub(2) {
        let (x, y) = grid.coords(path[i]);
        let mut wide = vec![path[i], path[i + 1]];
        for (dx, dy) in [(1i32, 0i32), (-1, 0), (0, 1), (0, -1)] {
            if let Some(c) = grid.cell(x.wrapping_add_signed(dx), y.wrapping_add_signed(dy)) {
                wide.push(c);
            }
        }
        for cells in [wide, vec![path[i], path[i + 1]], vec![path[i]]] {
            let changes: Vec<CellChange> = cells
                .iter()
                .filter(|c| grid.is_walkable(**c) && !keep.contains(c))
                .map(|&cell| CellChange::SetWalkable {
                    cell,
                    walkable: false,
                })
                .collect();
            if changes.is_empty() {
                continue;
            }
            let mut g = grid.clone();
            g.apply(&changes).unwrap();
            if g.connected(start, goal) {
                return changes;
            }
        }
    }
    Vec::new()
}

fn make_case(name: &'static str, grid: &Grid, place: Place, seed: u64) -> MapCase {
    let mut rng = Rng(seed);
    let (w, h) = (grid.width(), grid.height());
    let mut trips = Vec::new();
    while trips.len() < TRIPS {
        let start = pick(grid, &mut rng, 0, 0, w / 4, None);
        let goal = pick(grid, &mut rng, w - w / 4, h - h / 4, w / 4, Some(start));
        let mut agent = DStarLite::new(goal);
        assert!(agent.plan(grid, start).unwrap().is_found());
        let first_bytes = agent.memory_bytes();
        let path = agent.path().to_vec();
        let at = path[(path.len() as f64 * WALK) as usize];
        assert!(agent.plan(grid, at).unwrap().is_found());
        let path = agent.path().to_vec();
        let from = match place {
            Place::Ahead => AHEAD,
            Place::NearGoal => path.len().saturating_sub(NEAR_GOAL),
        };
        let changes = block_path(grid, &path, from.min(path.len() - 1), &[at, goal]);
        if changes.is_empty() {
            continue;
        }
        let mut after = grid.clone();
        after.apply(&changes).unwrap();
        let changed = changes
            .iter()
            .map(|c| match *c {
                CellChange::SetWalkable { cell, .. } | CellChange::SetCost { cell, .. } => cell,
            })
            .collect();
        trips.push(Trip {
            after,
            agent,
            changed,
            at,
            goal,
            first_bytes,
        });
    }
    MapCase { name, place, trips }
}

/// The agent of `trip` after hearing of the change and replanning.
fn repair(trip: &Trip, agent: &mut DStarLite) -> f64 {
    agent.notify_changes(&trip.after, &trip.changed);
    let outcome = agent.plan(&trip.after, trip.at).unwrap();
    outcome.cost().unwrap_or(f64::NAN)
}

fn astar(trip: &Trip, ws: &mut SearchWorkspace) -> f64 {
    let outcome = ws.find_path(&trip.after, trip.at, trip.goal).unwrap();
    outcome.cost().unwrap_or(f64::NAN)
}

fn verify(case: &MapCase, ws: &mut SearchWorkspace) {
    for (i, trip) in case.trips.iter().enumerate() {
        let mut agent = trip.agent.clone();
        let cost = repair(trip, &mut agent);
        let legal = trip
            .after
            .path_cost(agent.path())
            .unwrap_or_else(|e| panic!("{} trip {i}: illegal repaired path: {e}", case.name));
        let best = astar(trip, ws);
        assert!(
            (legal - cost).abs() < 1e-9 * cost.max(1.0) && (cost - best).abs() < 1e-9 * best,
            "{} {} trip {i}: repair {cost} (path {legal}), A* {best}",
            case.name,
            case.place.name()
        );
    }
}

#[derive(Default)]
struct Row {
    name: &'static str,
    place: &'static str,
    path_len: f64,
    repair_us: f64,
    astar_us: f64,
    fresh_us: f64,
    repair_nodes: f64,
    astar_nodes: f64,
    fresh_nodes: f64,
    first_bytes: f64,
    after_bytes: f64,
    touched: f64,
}

fn summarize(case: &MapCase, ws: &mut SearchWorkspace) -> Row {
    let (mut t_repair, mut t_astar, mut t_fresh) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut row = Row {
        name: case.name,
        place: case.place.name(),
        ..Row::default()
    };
    let n = case.trips.len() as f64;
    for round in 0..=SUMMARY_ROUNDS {
        for trip in &case.trips {
            let mut agent = trip.agent.clone();
            let t0 = Instant::now();
            black_box(repair(trip, &mut agent));
            let d_repair = t0.elapsed();
            let t0 = Instant::now();
            black_box(astar(trip, ws));
            let d_astar = t0.elapsed();
            let mut fresh = DStarLite::new(trip.goal);
            let t0 = Instant::now();
            black_box(fresh.plan(&trip.after, trip.at).unwrap());
            let d_fresh = t0.elapsed();
            if round == 0 {
                // Warm-up round; record the counters.
                row.path_len += agent.path().len() as f64 / n;
                row.repair_nodes += agent.stats().expanded as f64 / n;
                row.astar_nodes += ws.stats().expanded as f64 / n;
                row.fresh_nodes += fresh.stats().expanded as f64 / n;
                row.first_bytes += trip.first_bytes as f64 / n;
                row.after_bytes += agent.memory_bytes() as f64 / n;
                row.touched += agent.stats().touched as f64 / n;
                continue;
            }
            t_repair += d_repair;
            t_astar += d_astar;
            t_fresh += d_fresh;
        }
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / (SUMMARY_ROUNDS as f64 * n);
    row.repair_us = per(t_repair);
    row.astar_us = per(t_astar);
    row.fresh_us = per(t_fresh);
    row
}

fn print_summary(rows: &[Row]) {
    println!();
    println!(
        "D* Lite repair vs A* from scratch after a local change: mean over {TRIPS} trips x \
         {SUMMARY_ROUNDS} rounds (same process, after criterion)"
    );
    println!(
        "{:<9} {:<6} {:>5} {:>10} {:>9} {:>8} {:>9} {:>11} {:>9} {:>11} {:>10} {:>10} {:>8}",
        "map",
        "change",
        "path",
        "repair µs",
        "A* µs",
        "A*/rep",
        "fresh µs",
        "repair nodes",
        "A* nodes",
        "fresh nodes",
        "B first",
        "B after",
        "touched"
    );
    for r in rows {
        println!(
            "{:<9} {:<6} {:>5.0} {:>10.1} {:>9.1} {:>7.2}x {:>9.1} {:>11.0} {:>9.0} {:>11.0} {:>10.0} {:>10.0} {:>8.0}",
            r.name,
            r.place,
            r.path_len,
            r.repair_us,
            r.astar_us,
            r.astar_us / r.repair_us,
            r.fresh_us,
            r.repair_nodes,
            r.astar_nodes,
            r.fresh_nodes,
            r.first_bytes,
            r.after_bytes,
            r.touched
        );
    }
}

fn main() {
    let mode = RunMode::from_args();
    let maps: [(&'static str, Grid); 4] = [
        ("open", Grid::new(256, 256).unwrap()),
        (
            "random10",
            MapGenerator::Random {
                width: 256,
                height: 256,
                density: 0.1,
            }
            .generate(1)
            .unwrap(),
        ),
        (
            "rooms",
            MapGenerator::Rooms {
                width: 256,
                height: 256,
                room: 15,
                door: 3,
            }
            .generate(1)
            .unwrap(),
        ),
        (
            "maze",
            MapGenerator::Maze {
                width: 256,
                height: 256,
                corridor: 2,
            }
            .generate(1)
            .unwrap(),
        ),
    ];
    let mut cases = Vec::new();
    for (i, (name, grid)) in maps.iter().enumerate() {
        for place in [Place::Ahead, Place::NearGoal] {
            cases.push(make_case(name, grid, place, 17 + i as u64));
        }
    }
    let mut ws = SearchWorkspace::for_grid(&maps[0].1);
    if mode != RunMode::List {
        for case in &cases {
            verify(case, &mut ws);
        }
        eprintln!("verified: every repair legal and as cheap as A* on the changed map");
    }

    let mut criterion = Criterion::default().configure_from_args();
    for case in &cases {
        let mut group =
            criterion.benchmark_group(format!("dstar/{}/{}", case.name, case.place.name()));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(case.trips.len() as u64));
        group.bench_function("dstar_repair", |b| {
            b.iter_batched_ref(
                || {
                    case.trips
                        .iter()
                        .map(|t| t.agent.clone())
                        .collect::<Vec<_>>()
                },
                |agents| {
                    for (trip, agent) in case.trips.iter().zip(agents.iter_mut()) {
                        black_box(repair(trip, agent));
                    }
                },
                BatchSize::SmallInput,
            );
        });
        group.bench_function("astar", |b| {
            b.iter(|| {
                for trip in &case.trips {
                    black_box(astar(trip, &mut ws));
                }
            });
        });
        group.finish();
    }
    criterion.final_summary();

    if mode == RunMode::Bench {
        let rows: Vec<Row> = cases.iter().map(|c| summarize(c, &mut ws)).collect();
        print_summary(&rows);
    }
}
