//! Jump Point Search benchmark: [`SearchWorkspace::find_path_jps`] (online) and
//! [`SearchWorkspace::find_path_jps_plus`] (the grid's jump table) against throng's own A* on
//! the Moving AI maps of the comparison with warthog (issue 16; the warthog figures themselves
//! are in docs/benchmarks.md, measured outside the crate).
//!
//! # What is measured
//!
//! For each map shipped in `sims/maps/` that the comparison uses (`AR0011SR`, `Berlin_1_256`,
//! `den520d`, `random512-10-0`, `8room_000`, plus `arena`), and for each `NAME.map` with its
//! `NAME.map.scen` in the folder named by the environment variable `THRONG_JPS_MAPS` (for the
//! maps too large to ship, such as `AcrosstheCape`):
//!
//! - criterion group `jps/<map>`, functions `jps`, `jps+` and `astar`: one iteration answers a thinned
//!   query set (every `k`-th query, 128 to 255 of them, spanning every bucket), with one
//!   [`SearchWorkspace`] reused for every query;
//! - after criterion, a summary table: mean µs per query over **every** query of the file,
//!   best of [`SUMMARY_ROUNDS`] rounds, the three alternating in the same process (the jump
//!   table built and the workspace's pages mapped before), and the ratios. These are the
//!   numbers to compare with `throng scen --planner jps|jps+` and with the table in docs/benchmarks.md.
//!
//! # Correctness before timing
//!
//! Every query of every file is first answered by JPS and by JPS+ and checked: the cost must be the
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
use throng::grid::{CellId, Grid};
use throng::movingai::within_tolerance;
use throng::movingai::{ScenFile, load_map};
use throng::search::{SearchOptions, SearchWorkspace};

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

/// The searches compared.
#[derive(Clone, Copy)]
enum Search {
    AStar,
    Jps,
    JpsPlus,
}

impl Search {
    fn query(
        self,
        ws: &mut SearchWorkspace,
        grid: &Grid,
        start: CellId,
        goal: CellId,
    ) -> Result<throng::search::SearchOutcome, throng::search::QueryError> {
        let options = SearchOptions::default();
        match self {
            Search::AStar => ws.find_path(grid, start, goal),
            Search::Jps => ws.find_path_jps(grid, start, goal, &options),
            Search::JpsPlus => ws.find_path_jps_plus(grid, start, goal, &options),
        }
    }
}

/// Answers every query of the file with JPS and JPS+ and panics on the first wrong answer.
fn verify(case: &JpsCase, ws: &mut SearchWorkspace) {
    let grid = &case.grid;
    for search in [Search::Jps, Search::JpsPlus] {
        for &(start, goal, optimal) in &case.all {
            let what = || {
                format!(
                    "{} {:?} -> {:?}",
                    case.name,
                    grid.coords(start),
                    grid.coords(goal)
                )
            };
            let cost = search
                .query(ws, grid, start, goal)
                .unwrap_or_else(|e| panic!("{}: {e}", what()))
                .cost()
                .unwrap_or_else(|| panic!("{}: no path", what()));
            assert!(
                within_tolerance(cost, optimal, case.tolerance),
                "{}: cost {cost}, optimal {optimal}",
                what()
            );
            let legal = grid
                .path_cost(ws.path())
                .unwrap_or_else(|e| panic!("{}: illegal path: {e}", what()));
            assert_eq!(legal, cost, "{}", what());
        }
    }
}

/// Answers `queries` with `search`; returns the sum of the costs (kept observable).
fn run(grid: &Grid, queries: &[(CellId, CellId)], ws: &mut SearchWorkspace, search: Search) -> f64 {
    let mut total = 0.0;
    for &(start, goal) in queries {
        let (grid, start, goal) = (black_box(grid), black_box(start), black_box(goal));
        let outcome = search.query(ws, grid, start, goal);
        total += outcome.expect("verified").cost().unwrap_or(f64::NAN);
        black_box(ws.path());
    }
    total
}

/// Mean µs per query over every query of the file, best of [`SUMMARY_ROUNDS`] rounds, for JPS,
/// JPS+ and A* (alternating).
fn summarize(case: &JpsCase, ws: &mut SearchWorkspace) -> [f64; 3] {
    let queries: Vec<(CellId, CellId)> = case.all.iter().map(|&(s, g, _)| (s, g)).collect();
    let mut best = [f64::INFINITY; 3];
    for _ in 0..SUMMARY_ROUNDS {
        for (i, search) in [Search::Jps, Search::JpsPlus, Search::AStar]
            .into_iter()
            .enumerate()
        {
            let t0 = Instant::now();
            black_box(run(&case.grid, &queries, ws, search));
            best[i] = best[i].min(t0.elapsed().as_secs_f64() * 1e6 / queries.len() as f64);
        }
    }
    best
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
        case.grid.prepare_jump_table();
        group.bench_function("jps", |b| {
            b.iter(|| run(&case.grid, &case.thinned, &mut ws, Search::Jps))
        });
        group.bench_function("jps+", |b| {
            b.iter(|| run(&case.grid, &case.thinned, &mut ws, Search::JpsPlus))
        });
        group.bench_function("astar", |b| {
            b.iter(|| run(&case.grid, &case.thinned, &mut ws, Search::AStar))
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
            "{:<16} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "map", "queries", "jps µs/q", "jps+ µs/q", "A* µs/q", "A*/jps", "A*/jps+"
        );
        for case in &cases {
            // Steady state: the workspace's pages mapped before the first query.
            let mut ws = SearchWorkspace::for_grid(&case.grid);
            ws.prefault();
            let [jps, plus, astar] = summarize(case, &mut ws);
            println!(
                "{:<16} {:>7} {:>10.2} {:>10.2} {:>10.2} {:>9.1}x {:>9.1}x",
                case.name,
                case.all.len(),
                jps,
                plus,
                astar,
                astar / jps,
                astar / plus
            );
        }
    }
}
