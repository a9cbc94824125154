//! `throng.plan`: batches of queries planned in parallel.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use throng_core::{CellId, PlannerKind, SearchOptions, SearchWorkspace};

use crate::grid::Grid;
use crate::{cells, pool};

/// The planners `plan` answers with, the one list its check and its error message read: the
/// optimal searches of one query at a time. The others (`nav`, `auto`, `dstar`, ...) are
/// simulation planners, refused here.
const PLAN_PLANNERS: [PlannerKind; 3] =
    [PlannerKind::AStar, PlannerKind::Jps, PlannerKind::JpsPlus];

/// The planner named `name` when `plan` answers with it; otherwise a ValueError listing exactly
/// [`PLAN_PLANNERS`].
fn plan_planner(name: &str) -> PyResult<PlannerKind> {
    if let Some(kind) = PLAN_PLANNERS.into_iter().find(|p| p.name() == name) {
        return Ok(kind);
    }
    let names: Vec<_> = PLAN_PLANNERS.iter().map(|p| p.name()).collect();
    let what = if name.parse::<PlannerKind>().is_ok() {
        "a simulation planner, not one of plan()'s"
    } else {
        "an unknown planner"
    };
    Err(PyValueError::new_err(format!(
        "planner {name:?} is {what} (expected one of: {})",
        names.join(", ")
    )))
}

/// What `plan` returns: the paths and their costs.
type Planned<'py> = (Vec<Bound<'py, PyArray2<i32>>>, Bound<'py, PyArray1<f64>>);

/// Plans the queries `starts[i] -> goals[i]` in parallel (one search workspace per worker,
/// the GIL released). `starts` and `goals` are integer arrays of shape (k, 2), x then y;
/// `planner` is "astar", "jps" or "jps+" (all optimal; "jps+" builds the grid's jump table
/// first, 16 bytes a cell, kept with the grid); `threads` 0 means all cores. Returns
/// `(paths, costs)`: a list of (len, 2) int32 arrays (empty where unreachable) and a float64
/// array of path costs (NaN where unreachable). Raises ValueError naming the row for a cell
/// outside the grid or blocked, and for any other planner name (the simulation planners
/// included), listing the three.
#[pyfunction]
#[pyo3(signature = (grid, starts, goals, planner = "jps", threads = 0))]
pub(crate) fn plan<'py>(
    py: Python<'py>,
    grid: &Grid,
    starts: &Bound<'py, PyAny>,
    goals: &Bound<'py, PyAny>,
    planner: &str,
    threads: usize,
) -> PyResult<Planned<'py>> {
    let kind = plan_planner(planner)?;
    let g = grid.grid.clone();
    if kind == PlannerKind::JpsPlus {
        // Built once here rather than by the first query of each thread racing for it.
        g.prepare_jump_table();
    }
    let s = cells(py, &g, "starts", starts)?;
    let t = cells(py, &g, "goals", goals)?;
    if s.len() != t.len() {
        return Err(PyValueError::new_err(format!(
            "starts has {} rows but goals has {}",
            s.len(),
            t.len()
        )));
    }
    let pool = pool(threads)?;
    let results: Vec<Result<(f64, Vec<CellId>), String>> = py.detach(|| {
        pool.install(|| {
            s.par_iter()
                .zip(t.par_iter())
                .map_init(
                    || SearchWorkspace::for_grid(&g),
                    |ws, (&a, &b)| {
                        let outcome = match kind {
                            PlannerKind::Jps => {
                                ws.find_path_jps(&g, a, b, &SearchOptions::default())
                            }
                            PlannerKind::JpsPlus => {
                                ws.find_path_jps_plus(&g, a, b, &SearchOptions::default())
                            }
                            // A*, the last of PLAN_PLANNERS.
                            _ => ws.find_path(&g, a, b),
                        }
                        .map_err(|e| e.to_string())?;
                        Ok(match outcome.cost() {
                            Some(c) => (c, ws.path().to_vec()),
                            None => (f64::NAN, Vec::new()),
                        })
                    },
                )
                .collect()
        })
    });
    let mut paths = Vec::with_capacity(results.len());
    let mut costs = Vec::with_capacity(results.len());
    for (row, r) in results.into_iter().enumerate() {
        let (cost, path) = r.map_err(|e| PyValueError::new_err(format!("query {row}: {e}")))?;
        let mut xy = Array2::<i32>::zeros((path.len(), 2));
        for (i, &c) in path.iter().enumerate() {
            let (x, y) = g.coords(c);
            xy[(i, 0)] = x as i32;
            xy[(i, 1)] = y as i32;
        }
        paths.push(xy.into_pyarray(py));
        costs.push(cost);
    }
    Ok((paths, costs.into_pyarray(py)))
}
