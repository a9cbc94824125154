//! A* benchmark: throng's [`SearchWorkspace`] against the `pathfinding` crate's `astar`, on the
//! same Moving AI queries with the same movement rules.
//!
//! # What is measured
//!
//! For each Moving AI map shipped in `sims/maps/` (`random512-10-0`, `8room_000`, `den520d`,
//! `arena`) a deterministic query set is taken from its `.map.scen` file: every `k`-th query
//! starting with the first, `k = max(1, lines / TARGET_QUERIES)`, which keeps 100 to 150
//! queries per map (137, 134, 145 and 130). The scenario files list their queries by bucket
//! (path length), so the subset spans every bucket from trivial to the longest paths. Both
//! planners answer exactly the same set.
//!
//! - **throng**: one [`SearchWorkspace::for_grid`] built outside the timed loop and reused for
//!   every query, as the crate is meant to be used.
//! - **pathfinding**: `pathfinding::directed::astar::astar` over `(x, y)` nodes with `u64`
//!   fixed-point costs (straight [`STRAIGHT`], diagonal `round(sqrt(2) * STRAIGHT)`), the octile
//!   heuristic in the same scale (admissible and consistent), and successors computed from
//!   [`Grid::is_walkable_xy`] the way a user of that crate would write them: 8-connected, never
//!   onto a blocked cell or off the grid, and a diagonal only when both orthogonal cells beside
//!   it are walkable (no corner cutting). The successor iterator allocates nothing.
//!
//! # Correctness before timing
//!
//! Before anything is timed, every query of every set is answered once by both planners.
//! throng's cost must equal the scenario file's optimal length (relative tolerance
//! [`SCEN_TOLERANCE`]) and its path must be legal with that cost ([`Grid::path_cost`]);
//! `pathfinding`'s cost divided by [`STRAIGHT`] must equal throng's cost within
//! [`PEER_TOLERANCE`] (fixed-point rounding of the diagonal). Any disagreement panics, so a
//! faster but wrong change can never look like a win.
//!
//! # Output
//!
//! criterion runs one group per map, `astar/<map>`, with the functions `throng` and
//! `pathfinding`; each iteration answers the whole query set and the throughput is set to the
//! number of queries, so `1 / thrpt` is the time per query. After criterion, a plain table is
//! printed to stdout with the mean microseconds per query of each planner and the ratio
//! pathfinding / throng, measured in the same process with [`Instant`] over
//! [`SUMMARY_ROUNDS`] runs of each full query set (after one warm-up run).
//!
//! ```text
//! cargo bench --bench astar               # criterion groups + summary table
//! cargo bench --bench astar -- --quick    # shorter criterion runs, summary still printed
//! cargo test --benches                    # correctness check + one pass of each function
//! ```
//!
//! Under `cargo test --benches` (criterion's test mode, no `--bench` argument) the correctness
//! check and criterion's single pass run, but the timing table is skipped; under `--list`
//! only the benchmark names are listed.

mod common;

use common::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};
use throng::movingai::within_tolerance;
use throng::search::SearchWorkspace;

/// Timed runs of each full query set per planner for the summary table.
const SUMMARY_ROUNDS: usize = 5;

/// Answers every query once with both planners and panics on the first disagreement with the
/// scenario file or between the planners.
fn verify(case: &MapCase, workspace: &mut SearchWorkspace) {
    let grid = &case.grid;
    for (i, &(start, goal)) in case.queries.iter().enumerate() {
        let line = case.lines[i];
        let optimal = case.optimal[i];
        let what = || {
            format!(
                "{} (scenario line {line}, {:?} -> {:?}, optimal {optimal:.8})",
                case.name,
                grid.coords(start),
                grid.coords(goal)
            )
        };

        let outcome = workspace
            .find_path(grid, start, goal)
            .unwrap_or_else(|e| panic!("throng rejected query {}: {e}", what()));
        let cost = outcome
            .cost()
            .unwrap_or_else(|| panic!("throng found no path for {}: {outcome:?}", what()));
        assert!(
            within_tolerance(cost, optimal, SCEN_TOLERANCE),
            "throng's cost {cost:.8} is not the optimal length for {}",
            what()
        );
        let path_cost = grid
            .path_cost(workspace.path())
            .unwrap_or_else(|e| panic!("throng returned an illegal path for {}: {e}", what()));
        assert!(
            within_tolerance(path_cost, cost, 1e-9),
            "throng reported cost {cost:.8} but its path costs {path_cost:.8} for {}",
            what()
        );

        let (peer_path, peer_cost) = peer_astar(grid, start, goal)
            .unwrap_or_else(|| panic!("pathfinding found no path for {}", what()));
        assert_eq!(
            (peer_path.first(), peer_path.last()),
            (Some(&grid.coords(start)), Some(&grid.coords(goal))),
            "pathfinding's path has the wrong endpoints for {}",
            what()
        );
        let peer = peer_cost as f64 / STRAIGHT as f64;
        assert!(
            within_tolerance(peer, cost, PEER_TOLERANCE),
            "pathfinding's cost {peer:.8} ({peer_cost} fixed-point) differs from throng's \
             {cost:.8} for {}",
            what()
        );
    }
}

/// Runs the whole query set with throng and returns the sum of the costs (kept observable).
fn run_throng(case: &MapCase, workspace: &mut SearchWorkspace) -> f64 {
    let mut total = 0.0;
    for &(start, goal) in &case.queries {
        let outcome = workspace
            .find_path(black_box(&case.grid), black_box(start), black_box(goal))
            .expect("queries were verified");
        total += outcome.cost().unwrap_or(f64::NAN);
        black_box(workspace.path());
    }
    total
}

/// Runs the whole query set with `pathfinding` and returns the sum of the fixed-point costs.
fn run_peer(case: &MapCase) -> u64 {
    let mut total = 0;
    for &(start, goal) in &case.queries {
        let (path, cost) = peer_astar(black_box(&case.grid), black_box(start), black_box(goal))
            .expect("queries were verified");
        black_box(path);
        total += cost;
    }
    total
}

/// One row of the summary table.
struct SummaryRow {
    /// Map name.
    name: &'static str,
    /// Queries in the set.
    queries: usize,
    /// throng, mean microseconds per query over the timed rounds.
    throng_us: f64,
    /// `pathfinding`, mean microseconds per query over the timed rounds.
    peer_us: f64,
}

/// Times each full query set [`SUMMARY_ROUNDS`] times per planner (rounds alternate between
/// the planners, after one warm-up run of each) and returns mean microseconds per query.
fn summarize(case: &MapCase, workspace: &mut SearchWorkspace) -> SummaryRow {
    black_box(run_throng(case, workspace));
    black_box(run_peer(case));
    let (mut throng, mut peer) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..SUMMARY_ROUNDS {
        let t0 = Instant::now();
        black_box(run_throng(case, workspace));
        throng += t0.elapsed();
        let t0 = Instant::now();
        black_box(run_peer(case));
        peer += t0.elapsed();
    }
    let per_query =
        |d: Duration| d.as_secs_f64() * 1e6 / (SUMMARY_ROUNDS as f64 * case.queries.len() as f64);
    SummaryRow {
        name: case.name,
        queries: case.queries.len(),
        throng_us: per_query(throng),
        peer_us: per_query(peer),
    }
}

/// Prints the summary table to stdout.
fn print_summary(rows: &[SummaryRow]) {
    println!();
    println!(
        "A* summary: mean µs per query over {SUMMARY_ROUNDS} timed runs of each query set \
         (same process, after criterion)"
    );
    println!(
        "{:<16} {:>7} {:>14} {:>18} {:>20}",
        "map", "queries", "throng µs/q", "pathfinding µs/q", "pathfinding/throng"
    );
    for row in rows {
        println!(
            "{:<16} {:>7} {:>14.2} {:>18.2} {:>19.2}x",
            row.name,
            row.queries,
            row.throng_us,
            row.peer_us,
            row.peer_us / row.throng_us
        );
    }
}

fn main() {
    let mode = RunMode::from_args();
    let cases: Vec<MapCase> = MAPS.iter().map(|&name| load_case(name)).collect();
    let mut workspaces: Vec<SearchWorkspace> = cases
        .iter()
        .map(|case| SearchWorkspace::for_grid(&case.grid))
        .collect();

    if mode != RunMode::List {
        for (case, workspace) in cases.iter().zip(&mut workspaces) {
            verify(case, workspace);
            eprintln!(
                "verified {}: {} of {} scenario queries, throng optimal and pathfinding equal",
                case.name,
                case.queries.len(),
                case.total_in_file
            );
        }
    }

    let mut criterion = Criterion::default().configure_from_args();
    for (case, workspace) in cases.iter().zip(&mut workspaces) {
        let mut group = criterion.benchmark_group(format!("astar/{}", case.name));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(case.queries.len() as u64));
        group.bench_function("throng", |b| b.iter(|| run_throng(case, workspace)));
        group.bench_function("pathfinding", |b| b.iter(|| run_peer(case)));
        group.finish();
    }
    criterion.final_summary();

    if mode == RunMode::Bench {
        let rows: Vec<SummaryRow> = cases
            .iter()
            .zip(&mut workspaces)
            .map(|(case, workspace)| summarize(case, workspace))
            .collect();
        print_summary(&rows);
    }
}
