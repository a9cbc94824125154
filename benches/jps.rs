//! Jump Point Search benchmark: [`SearchWorkspace::find_path_jps`] against throng's own A* on
//! the Moving AI maps of the comparison with warthog (issue 16; the warthog figures themselves
//! are in the README, measured outside the crate).
//!
//! # What is measured
//!
//! For each map shipped in `sims/maps/` that the comparison uses (`AR0011SR`, `Berlin_1_256`,
//! `den520d`, `random512-10-0`, `8room_000`, plus `arena`), and for each `NAME.map` with its
//! `NAME.map.scen` in the folder named by the environment variable `THRONG_JPS_MAPS` (for the
//! maps too large to ship, such as `AcrosstheCape`):
//!
//! - criterion group `jps/<map>`, functions `jps` and `astar`: one iteration answers a thinned
//!   query set (every `k`-th query, 128 to 255 of them, spanning every bucket), with one
//!   [`SearchWorkspace`] reused for every query;
//! - after criterion, a summary table: mean µs per query over **every** query of the file,
//!   best of [`SUMMARY_ROUNDS`] rounds, JPS and A* alternating in the same process, and the
//!   ratio. These are the numbers to compare with `throng scen --planner jps` and with the
//!   README's table.
//!
//! # Correctness before timing
//!
//! Every query of every file is first answered by JPS and checked: the cost must be the
//! scenario's optimal length (within the file's tolerance) and the path legal with that cost.
//! A disagreement panics, so a faster but wrong change cannot look like a win.
//!
//! ```text
//! cargo bench --bench jps                         # criterion groups + summary table
//! THRONG_JPS_MAPS=/data/movingai cargo bench --bench jps -- --quick
//! cargo test --benches                            # correctness check + one pass each
//! ```

mod common;

use common::*;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};
use throng::movingai::{ScenFile, load_map};
use throng::scen_run::within;
use throng::{CellId, Grid, SearchOptions, SearchWorkspace};

/// Timed rounds of each full scenario file per planner for the summary table (best kept).
const SUMMARY_ROUNDS: usize = 3;

/// The shipped maps benchmarked, by file stem in `sims/maps/`.
const SHIPPED: [&str; 6] = [
    "AR0011SR",
    "Berlin_1_256",
    "den520d",
    "random512-10-0",
    "8room_000",
    "arena",
];

/// One scenario file with its map.
struct JpsCase {
    name: String,
    grid: Grid,
    /// Every query of the file: start, goal, optimal length.
    all: Vec<(CellId, CellId, f64)>,
    /// The thinned set criterion times.
    thinned: Vec<(CellId, CellId)>,
    tolerance: f64,
}

fn load(dir: &Path, name: &str) -> JpsCase {
    let map = dir.join(format!("{name}.map"));
    let scen_path = dir.join(format!("{name}.map.scen"));
    let grid = load_map(&map).unwrap_or_else(|e| panic!("cannot load {}: {e}", map.display()));
    let scen = ScenFile::load(&scen_path)
        .unwrap_or_else(|e| panic!("cannot load {}: {e}", scen_path.display()));
    let cells = scen
        .resolve(&grid)
        .unwrap_or_else(|e| panic!("{} does not fit its map: {e}", scen_path.display()));
    let all: Vec<_> = scen
        .queries
        .iter()
        .zip(&cells)
        .map(|(q, &(s, g))| (s, g, q.optimal))
        .collect();
    let stride = (all.len() / TARGET_QUERIES).max(1);
    let thinned = all
        .iter()
        .step_by(stride)
        .map(|&(s, g, _)| (s, g))
        .collect();
    JpsCase {
        name: name.to_string(),
        grid,
        all,
        thinned,
        tolerance: scen.tolerance,
    }
}

/// The shipped cases, then those of `THRONG_JPS_MAPS` (sorted by name).
fn cases() -> Vec<JpsCase> {
    let mut cases: Vec<JpsCase> = SHIPPED.iter().map(|n| load(&maps_dir(), n)).collect();
    if let Some(dir) = std::env::var_os("THRONG_JPS_MAPS").map(PathBuf::from) {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("THRONG_JPS_MAPS={}: {e}", dir.display()));
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter_map(|f| f.strip_suffix(".map.scen").map(str::to_string))
            .filter(|n| !SHIPPED.contains(&n.as_str()))
            .collect();
        names.sort();
        cases.extend(names.iter().map(|n| load(&dir, n)));
    }
    cases
}

/// Answers every query of the file with JPS and panics on the first wrong answer.
fn verify(case: &JpsCase, ws: &mut SearchWorkspace) {
    let grid = &case.grid;
    for &(start, goal, optimal) in &case.all {
        let what = || {
            format!(
                "{} {:?} -> {:?}",
                case.name,
                grid.coords(start),
                grid.coords(goal)
            )
        };
        let cost = ws
            .find_path_jps(grid, start, goal, &SearchOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", what()))
            .cost()
            .unwrap_or_else(|| panic!("{}: no path", what()));
        assert!(
            within(cost, optimal, case.tolerance),
            "{}: cost {cost}, optimal {optimal}",
            what()
        );
        let legal = grid
            .path_cost(ws.path())
            .unwrap_or_else(|e| panic!("{}: illegal path: {e}", what()));
        assert_eq!(legal, cost, "{}", what());
    }
}

/// Answers `queries` with JPS (`jps`) or A*; returns the sum of the costs (kept observable).
fn run(grid: &Grid, queries: &[(CellId, CellId)], ws: &mut SearchWorkspace, jps: bool) -> f64 {
    let mut total = 0.0;
    for &(start, goal) in queries {
        let (grid, start, goal) = (black_box(grid), black_box(start), black_box(goal));
        let outcome = if jps {
            ws.find_path_jps(grid, start, goal, &SearchOptions::default())
        } else {
            ws.find_path(grid, start, goal)
        };
        total += outcome.expect("verified").cost().unwrap_or(f64::NAN);
        black_box(ws.path());
    }
    total
}

/// Mean µs per query over every query of the file, best of [`SUMMARY_ROUNDS`] rounds, for JPS
/// and A* (alternating).
fn summarize(case: &JpsCase, ws: &mut SearchWorkspace) -> (f64, f64) {
    let queries: Vec<(CellId, CellId)> = case.all.iter().map(|&(s, g, _)| (s, g)).collect();
    let (mut jps, mut astar) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..SUMMARY_ROUNDS {
        for (best, is_jps) in [(&mut jps, true), (&mut astar, false)] {
            let t0 = Instant::now();
            black_box(run(&case.grid, &queries, ws, is_jps));
            *best = best.min(t0.elapsed().as_secs_f64() * 1e6 / queries.len() as f64);
        }
    }
    (jps, astar)
}

fn main() {
    let mode = RunMode::from_args();
    let cases = cases();
    let mut ws = SearchWorkspace::new();
    if mode != RunMode::List {
        for case in &cases {
            verify(case, &mut ws);
            eprintln!(
                "verified {}: all {} queries optimal with legal paths",
                case.name,
                case.all.len()
            );
        }
    }

    let mut criterion = Criterion::default().configure_from_args();
    for case in &cases {
        let mut group = criterion.benchmark_group(format!("jps/{}", case.name));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(case.thinned.len() as u64));
        group.bench_function("jps", |b| {
            b.iter(|| run(&case.grid, &case.thinned, &mut ws, true))
        });
        group.bench_function("astar", |b| {
            b.iter(|| run(&case.grid, &case.thinned, &mut ws, false))
        });
        group.finish();
    }
    criterion.final_summary();

    if mode == RunMode::Bench {
        println!();
        println!(
            "JPS summary: mean µs per query over every query of each file, best of \
             {SUMMARY_ROUNDS} rounds (same process, after criterion)"
        );
        println!(
            "{:<16} {:>7} {:>10} {:>10} {:>10}",
            "map", "queries", "jps µs/q", "A* µs/q", "A*/jps"
        );
        for case in &cases {
            let (jps, astar) = summarize(case, &mut ws);
            println!(
                "{:<16} {:>7} {:>10.2} {:>10.2} {:>9.1}x",
                case.name,
                case.all.len(),
                jps,
                astar,
                astar / jps
            );
        }
    }
}
