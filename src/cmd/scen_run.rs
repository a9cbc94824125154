//! Running every query of a Moving AI scenario file and judging the answers (`throng scen`).
//!
//! Each query is a [`Planner`] query; each path is checked by [`Grid::path_cost`] (legal moves
//! only) and its cost compared with the optimal length of the file. Only the planner call is
//! timed; checking is not.

use std::time::Instant;

use hdrhistogram::Histogram;
use serde::Serialize;

use throng::error::Result;
use throng::grid::{CellId, Grid};
use throng::movingai::{ScenFile, within_tolerance};
use throng::nav::{NavGraph, NavOptions};
use throng::planner::{Planner, PlannerKind};
use throng::search::{SearchOptions, SearchOutcome};

/// How many failing queries a report lists in detail.
pub const MAX_LISTED_FAILURES: usize = 20;

/// Settings of a scenario run.
#[derive(Debug, Clone, Copy, Default)]
pub struct ScenRunOptions {
    /// The planner. Default: [`PlannerKind::AStar`].
    pub planner: PlannerKind,
    /// Per-query node budget. Default: none.
    pub node_budget: Option<u64>,
    /// Answer every query once, untimed and unchecked, before the timed pass, so that the
    /// reported times are those of a warm process (caches, branch predictors, pages), as
    /// benchmark programs that run their queries twice report them. Default: off (one pass:
    /// the first queries pay the warm-up).
    pub warm_up: bool,
}

/// What went wrong with one query.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QueryFailure {
    /// Line of the scenario file.
    pub line: usize,
    /// `illegal`, `unreachable`, `budget`, `invalid` or `mismatched`.
    pub kind: &'static str,
    /// Details in words.
    pub detail: String,
}

/// The outcome of a scenario run. Serialized as the JSON of `throng scen --json`.
#[derive(Debug, Clone, Serialize)]
pub struct ScenReport {
    /// The scenario file.
    pub scen: String,
    /// The map file.
    pub map: String,
    /// The planner's name.
    pub planner: String,
    /// Number of queries run.
    pub queries: usize,
    /// Queries answered with a legal path of the optimal length (within `tolerance`).
    pub optimal: usize,
    /// Queries answered correctly: a legal path, and for planners that promise optimality
    /// ([`PlannerKind::is_optimal`]) one of the optimal length.
    pub correct: usize,
    /// Legal paths whose length differs from the optimal one.
    pub mismatched: usize,
    /// Paths that break a movement rule (blocked cell, non-adjacent step, corner cut, wrong
    /// endpoints).
    pub illegal: usize,
    /// Queries the planner answered "no path" although the file gives a length.
    pub unreachable: usize,
    /// Queries stopped by the node budget.
    pub budget_exhausted: usize,
    /// Queries the planner rejected as invalid (blocked or outside cell).
    pub invalid: usize,
    /// Relative tolerance used for "optimal".
    pub tolerance: f64,
    /// Mean planner time per query, microseconds.
    pub mean_us: f64,
    /// Median planner time per query, microseconds.
    pub p50_us: f64,
    /// 99th percentile of planner time per query, microseconds.
    pub p99_us: f64,
    /// Slowest query, microseconds.
    pub max_us: f64,
    /// Mean nodes expanded per query.
    pub mean_expanded: f64,
    /// Mean path length / optimal length over the queries answered with a legal path and of a
    /// positive optimal length (1 for an optimal planner that is right); `None` (JSON `null`)
    /// when there is no such query, as when every query ran out of its node budget: queries
    /// not answered have no ratio.
    pub mean_len_ratio: Option<f64>,
    /// Largest path length / optimal length over the same queries; `None` as above.
    pub max_len_ratio: Option<f64>,
    /// Milliseconds to build the navigation graph (`nav` and `auto` planners only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nav_build_ms: Option<f64>,
    /// Milliseconds to load the navigation graph from a file instead (`--nav-file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nav_load_ms: Option<f64>,
    /// Bytes of memory held by the navigation graph (`nav` and `auto` planners only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nav_memory_bytes: Option<usize>,
    /// Number of navigation points (`nav` and `auto` planners only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nav_points: Option<usize>,
    /// Whether the navigation graph answers every query by a direct JPS+ search, as it does on
    /// maps where long trips take few jump points (`nav` and `auto` only; see
    /// [`NavGraph::searches_directly`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nav_direct: Option<bool>,
    /// Milliseconds to build the grid's jump table before the queries (`jps+` only; `None`
    /// when the grid had one already).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jump_table_ms: Option<f64>,
    /// Bytes held by the grid's jump table (`jps+`; `nav` and `auto` where the navigation graph
    /// built it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jump_table_bytes: Option<usize>,
    /// The first failing queries, in file order (at most [`MAX_LISTED_FAILURES`]).
    pub failures: Vec<QueryFailure>,
    /// Every failing query, listed in [`failures`](Self::failures) or not.
    pub failed: usize,
}

impl ScenReport {
    /// Whether every query was answered correctly (see [`correct`](Self::correct)): what
    /// `throng scen` exits with.
    pub fn passed(&self) -> bool {
        self.correct == self.queries
    }
}

/// Runs every query of `scen` on `grid` on the calling thread. The `nav` and `auto` planners
/// first build the navigation graph with the default options (timed, reported).
///
/// # Errors
/// [`throng::error::Error::Parse`] when a query does not fit the map (size columns, coordinates).
pub fn run_scen(grid: &Grid, scen: &ScenFile, options: &ScenRunOptions) -> Result<ScenReport> {
    if !options.planner.uses_nav() {
        return run_scen_with_nav(grid, scen, options, None);
    }
    let t0 = Instant::now();
    let nav = NavGraph::build(grid, &NavOptions::default())?;
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut report = run_scen_with_nav(grid, scen, options, Some(&nav))?;
    report.nav_build_ms = Some(build_ms);
    Ok(report)
}

/// [`run_scen`] with a navigation graph prepared by the caller (built or loaded; needed by the
/// `nav` and `auto` planners, ignored by the others).
///
/// # Errors
/// As [`run_scen`]; as [`Planner::new`] ([`throng::error::Error::Invalid`] when the planner needs a
/// graph and none is given or it does not match the grid).
pub fn run_scen_with_nav(
    grid: &Grid,
    scen: &ScenFile,
    options: &ScenRunOptions,
    nav: Option<&NavGraph>,
) -> Result<ScenReport> {
    // `jps+` builds the grid's jump table here, ahead, as a navigation graph is built ahead,
    // so that no query's time includes it.
    let t0 = Instant::now();
    let built = options.planner == PlannerKind::JpsPlus && !grid.has_jump_table();
    let planner = Planner::new(grid, options.planner, nav)?.with_options(SearchOptions {
        node_budget: options.node_budget,
    });
    let jump_table_ms = built.then(|| t0.elapsed().as_secs_f64() * 1e3);
    let nav = planner.nav();
    let cells = scen.resolve(grid)?;
    let mut hist = Histogram::<u64>::new(3).expect("3 significant figures is valid");
    let mut report = ScenReport {
        scen: scen.path.display().to_string(),
        map: String::new(),
        planner: options.planner.name().to_string(),
        queries: cells.len(),
        optimal: 0,
        correct: 0,
        mismatched: 0,
        illegal: 0,
        unreachable: 0,
        budget_exhausted: 0,
        invalid: 0,
        tolerance: scen.tolerance,
        mean_us: 0.0,
        p50_us: 0.0,
        p99_us: 0.0,
        max_us: 0.0,
        mean_expanded: 0.0,
        mean_len_ratio: None,
        max_len_ratio: None,
        nav_build_ms: None,
        nav_load_ms: None,
        nav_memory_bytes: nav.map(NavGraph::memory_bytes),
        nav_points: nav.map(NavGraph::node_count),
        nav_direct: nav.map(NavGraph::searches_directly),
        jump_table_ms,
        // `jps+`; `nav` and `auto` where the graph chose the table for its direct searches
        // (see `nav/direct.rs`).
        jump_table_bytes: planner.uses_jump_table().then(|| grid.prepare_jump_table()),
        failures: Vec::new(),
        failed: 0,
    };
    let mut ws = planner.workspace(grid);
    // Steady-state query times: the first touch of each page of the workspace would otherwise
    // cost a page fault inside some query's time.
    ws.prefault(grid);
    if options.warm_up {
        for &(start, goal) in &cells {
            // Only the warming matters; the timed pass below checks every answer.
            let _ = planner.plan(grid, &mut ws, start, goal);
        }
    }
    let promises_optimal = options.planner.is_optimal();
    let mut total_ns: u128 = 0;
    let mut total_expanded: u64 = 0;
    let (mut ratio_sum, mut ratio_count, mut ratio_max) = (0.0, 0usize, 0.0f64);

    for (query, &(start, goal)) in scen.queries.iter().zip(&cells) {
        let t0 = Instant::now();
        let result = planner.plan(grid, &mut ws, start, goal);
        let ns = t0.elapsed().as_nanos();
        total_ns += ns;
        hist.record(u64::try_from(ns).unwrap_or(u64::MAX).max(1))
            .expect("auto-resizing histogram accepts any value");
        // A rejected query expands nothing.
        total_expanded += result.as_ref().map_or(0, |plan| plan.stats.expanded);

        let failure = match result.map(|plan| (plan.outcome, plan.path)) {
            Err(e) => {
                report.invalid += 1;
                Some(("invalid", e.to_string()))
            }
            Ok((SearchOutcome::Unreachable, _)) => {
                report.unreachable += 1;
                Some((
                    "unreachable",
                    format!("no path found, optimal {}", query.optimal),
                ))
            }
            Ok((SearchOutcome::BudgetExhausted, _)) => {
                report.budget_exhausted += 1;
                Some(("budget", "node budget exhausted".to_string()))
            }
            Ok((SearchOutcome::Found { cost }, path)) => {
                match judge_path(grid, path, start, goal, cost) {
                    Err(why) => {
                        report.illegal += 1;
                        Some(("illegal", why))
                    }
                    Ok(length) => {
                        if query.optimal > 0.0 {
                            let ratio = length / query.optimal;
                            ratio_sum += ratio;
                            ratio_count += 1;
                            ratio_max = ratio_max.max(ratio);
                        }
                        if within_tolerance(length, query.optimal, scen.tolerance) {
                            report.optimal += 1;
                            report.correct += 1;
                            None
                        } else if !promises_optimal && length > query.optimal {
                            // A longer legal path is the trade such a planner makes.
                            report.mismatched += 1;
                            report.correct += 1;
                            None
                        } else {
                            report.mismatched += 1;
                            Some((
                                "mismatched",
                                format!("length {length:.8}, optimal {:.8}", query.optimal),
                            ))
                        }
                    }
                }
            }
        };
        report.failed += usize::from(failure.is_some());
        if let Some((kind, detail)) = failure
            && report.failures.len() < MAX_LISTED_FAILURES
        {
            report.failures.push(QueryFailure {
                line: query.line,
                kind,
                detail,
            });
        }
    }

    let n = cells.len().max(1) as f64;
    report.mean_us = total_ns as f64 / n / 1000.0;
    report.p50_us = hist.value_at_quantile(0.5) as f64 / 1000.0;
    report.p99_us = hist.value_at_quantile(0.99) as f64 / 1000.0;
    report.max_us = hist.max() as f64 / 1000.0;
    report.mean_expanded = total_expanded as f64 / n;
    if ratio_count > 0 {
        report.mean_len_ratio = Some(ratio_sum / ratio_count as f64);
        report.max_len_ratio = Some(ratio_max);
    }
    Ok(report)
}

/// Checks a returned path: right endpoints, legal moves, and a reported cost that matches the
/// path. Returns the path's cost as measured by the grid.
fn judge_path(
    grid: &Grid,
    path: &[CellId],
    start: CellId,
    goal: CellId,
    reported: f64,
) -> std::result::Result<f64, String> {
    if path.first() != Some(&start) || path.last() != Some(&goal) {
        return Err(format!(
            "path runs from {:?} to {:?}, not from {:?} to {:?}",
            path.first().map(|&c| grid.coords(c)),
            path.last().map(|&c| grid.coords(c)),
            grid.coords(start),
            grid.coords(goal)
        ));
    }
    let length = grid.path_cost(path).map_err(|e| e.to_string())?;
    if !within_tolerance(length, reported, 1e-9) {
        return Err(format!(
            "planner reported cost {reported}, the path costs {length}"
        ));
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng::grid::Grid;
    use throng::movingai::parse_scen;

    #[test]
    fn counts_optimal_and_mismatched() {
        let grid = Grid::from_ascii("....\n.##.\n....").unwrap();
        // Line 2 is optimal (no corner cutting: 5 straight steps); line 3 claims a wrong length.
        let scen = parse_scen(
            "version 1\n0\tm.map\t4\t3\t0\t1\t3\t1\t5.00000000\n0\tm.map\t4\t3\t0\t0\t3\t0\t2.5\n",
            "m.map.scen",
        )
        .unwrap();
        let report = run_scen(&grid, &scen, &ScenRunOptions::default()).unwrap();
        assert_eq!(
            (report.queries, report.optimal, report.mismatched),
            (2, 1, 1)
        );
        assert!(report.optimal < report.queries);
        assert_eq!(report.failures.len(), 1);
        assert_eq!(report.failures[0].line, 3);
        assert_eq!(report.failures[0].kind, "mismatched");
        assert!(report.mean_expanded > 0.0);
    }

    #[test]
    fn blocked_start_and_unreachable_are_counted() {
        let grid = Grid::from_ascii("..#.\n..#.").unwrap();
        let scen = parse_scen(
            "0\tm.map\t4\t2\t0\t0\t3\t0\t3\n0\tm.map\t4\t2\t2\t0\t0\t0\t2\n",
            "s",
        )
        .unwrap();
        let report = run_scen(&grid, &scen, &ScenRunOptions::default()).unwrap();
        assert_eq!(
            (report.unreachable, report.invalid, report.optimal),
            (1, 1, 0)
        );
    }
}
