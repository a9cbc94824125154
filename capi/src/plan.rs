//! Batch planning: many `start -> goal` queries on one grid, planned in parallel on the
//! engine's threads (one workspace per worker), answered into the caller's arrays.

use std::ffi::c_char;

use rayon::prelude::*;
use throng::grid::CellId;
use throng::nav::{NavGraph, NavOptions};
use throng::planner::{PlanWorkspace, Planner, PlannerKind};

use crate::grid::ThrongGrid;
use crate::handle;
use crate::nav::ThrongNav;
use crate::ptr;
use crate::status::{Failure, ThrongStatus, guard};

/// The cost written for a query with no path (and its length is 0).
pub const THRONG_NO_PATH: f64 = -1.0;

/// Plans `count` queries `starts[i] -> goals[i]` on `grid` with the planner named `planner`
/// (`"astar"`, `"jps"`, `"jps+"`, `"nav"`, `"auto"`, `"dstar"`; NULL means `"jps"`), in
/// parallel on the engine's threads. Cells are ids `y * width + x`.
///
/// `nav` (may be NULL) is the grid's navigation graph for `"nav"` and `"auto"`, which build one
/// on each call when it is NULL; the other planners ignore it.
///
/// Writes `costs[i]` (the path's cost: 1 a straight step, sqrt 2 a diagonal one; or
/// `THRONG_NO_PATH` when the goal cannot be reached) and `lengths[i]` (cells on the path, start
/// and goal included; 0 with no path) for every query, then the paths one after the other into
/// `paths` (query 0's cells, then query 1's, ...), and their total length into
/// `*paths_needed`. `paths` may be NULL (costs and lengths only); when it is not NULL and
/// `paths_capacity` is less than the total, nothing is written to it and the call returns
/// `THRONG_STATUS_BUFFER_TOO_SMALL` (costs, lengths and `*paths_needed` are written).
///
/// A start or goal outside the grid gives `THRONG_STATUS_OUT_OF_RANGE`, a blocked one
/// `THRONG_STATUS_INVALID_ARGUMENT`, both naming the query; then no output is written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn throng_plan_batch(
    grid: *const ThrongGrid,
    nav: *const ThrongNav,
    planner: *const c_char,
    starts: *const u32,
    goals: *const u32,
    count: usize,
    costs: *mut f64,
    lengths: *mut u32,
    paths: *mut u32,
    paths_capacity: usize,
    paths_needed: *mut usize,
) -> ThrongStatus {
    guard(|| {
        let grid = handle::get(grid)?.read()?;
        let nav = if nav.is_null() {
            None
        } else {
            Some(&handle::get(nav)?.nav)
        };
        let kind: PlannerKind = if planner.is_null() {
            PlannerKind::Jps
        } else {
            ptr::text(planner, "planner")?
                .parse()
                .map_err(|e: throng::error::Error| Failure::invalid(e.to_string()))?
        };
        let starts = ptr::slice(starts, count, "starts")?;
        let goals = ptr::slice(goals, count, "goals")?;
        let costs = ptr::slice_out(costs, count, "costs")?;
        let lengths = ptr::slice_out(lengths, count, "lengths")?;
        ptr::check_out(paths_needed, "paths_needed")?;
        let built;
        let nav: Option<&NavGraph> = match nav {
            Some(nav) => Some(nav),
            None if kind.uses_nav() => {
                built = NavGraph::build(&grid, &NavOptions::default())?;
                Some(&built)
            }
            None => None,
        };
        let planner = Planner::new(&grid, kind, nav)?;
        let answers: Vec<Result<(f64, Vec<CellId>), Failure>> = starts
            .par_iter()
            .zip(goals.par_iter())
            .enumerate()
            .map_init(
                || planner.workspace(&grid),
                |ws: &mut PlanWorkspace, (i, (&start, &goal))| {
                    let plan = planner.plan(&grid, ws, start, goal).map_err(|e| {
                        Failure::from(throng::error::Error::from(e)).context(format!("query {i}"))
                    })?;
                    Ok(match plan.cost() {
                        Some(cost) => (cost, plan.path.to_vec()),
                        None => (THRONG_NO_PATH, Vec::new()),
                    })
                },
            )
            .collect();
        let answers = answers.into_iter().collect::<Result<Vec<_>, _>>()?;
        let mut total = 0usize;
        for (i, (cost, path)) in answers.iter().enumerate() {
            costs[i].write(*cost);
            lengths[i].write(path.len() as u32);
            total += path.len();
        }
        ptr::write(paths_needed, total, "paths_needed")?;
        if let Some(out) = ptr::optional_out(paths, paths_capacity.min(total), "paths")? {
            if paths_capacity < total {
                return Err(Failure::new(
                    ThrongStatus::BufferTooSmall,
                    format!("the paths need {total} cells, paths_capacity is {paths_capacity}"),
                ));
            }
            for (slot, &cell) in out.iter_mut().zip(answers.iter().flat_map(|(_, p)| p)) {
                slot.write(cell);
            }
        }
        Ok(())
    })
}
