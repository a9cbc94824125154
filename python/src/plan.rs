//! `throng.plan`: batches of queries planned in parallel.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use throng_core::grid::CellId;
use throng_core::nav::{NavGraph, NavOptions};
use throng_core::planner::{PlanWorkspace, Planner, PlannerKind};

use crate::grid::Grid;
use crate::{cells, pool};

/// The planner named `name` (every planner, [`PlannerKind::ALL`]); otherwise a ValueError
/// listing them all.
fn plan_planner(name: &str) -> PyResult<PlannerKind> {
    if let Some(kind) = PlannerKind::ALL.into_iter().find(|p| p.name() == name) {
        return Ok(kind);
    }
    let names: Vec<_> = PlannerKind::ALL.iter().map(|p| p.name()).collect();
    Err(PyValueError::new_err(format!(
        "planner {name:?} is an unknown planner (expected one of: {})",
        names.join(", ")
    )))
}

/// One query's answer: the cost and the path (NaN and empty where unreachable), or why the
/// query was refused.
type Answer = Result<(f64, Vec<CellId>), String>;

/// What `plan` returns: the paths and their costs.
type Planned<'py> = (Vec<Bound<'py, PyArray2<i32>>>, Bound<'py, PyArray1<f64>>);

/// Plans the queries `starts[i] -> goals[i]` in parallel (one planner workspace per worker,
/// the GIL released). `starts` and `goals` are integer arrays of shape (k, 2), x then y;
/// `planner` is any planner of the engine ("astar", "jps", "jps+", "nav", "auto", "dstar"):
/// "jps+" builds the grid's jump table first (16 bytes a cell, kept with the grid); "nav" and
/// "auto" build the grid's navigation points first, on each call (they plan through them);
/// "dstar" plans each query from scratch. `threads` 0 means all cores. Returns
/// `(paths, costs)`: a list of (len, 2) int32 arrays (empty where unreachable) and a float64
/// array of path costs (NaN where unreachable). Raises ValueError naming the row for a cell
/// outside the grid or blocked, and for an unknown planner name, listing them all.
#[pyfunction]
#[pyo3(
    signature = (grid, starts, goals, planner = "jps", threads = None),
    text_signature = "(grid, starts, goals, planner='jps', threads=0)"
)]
pub(crate) fn plan<'py>(
    py: Python<'py>,
    grid: &Grid,
    starts: &Bound<'py, PyAny>,
    goals: &Bound<'py, PyAny>,
    planner: &str,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Planned<'py>> {
    let threads = crate::whole_opt(threads, "threads", crate::MAX_THREADS)?.unwrap_or(0) as usize;
    let kind = plan_planner(planner)?;
    let g = grid.grid.clone();
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
    let results: PyResult<Vec<Answer>> = py.detach(|| {
        pool.install(|| {
            // `nav` and `auto` plan through the navigation points: built here (the rule of
            // `Planner`), on this call's threads.
            let nav = kind
                .uses_nav()
                .then(|| NavGraph::build(&g, &NavOptions::default()))
                .transpose()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            // Made once here (`jps+` builds the grid's jump table) rather than by the first
            // query of each thread.
            let planner = Planner::new(&g, kind, nav.as_ref())
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(s.par_iter()
                .zip(t.par_iter())
                .map_init(
                    || planner.workspace(&g),
                    |ws: &mut PlanWorkspace, (&a, &b)| {
                        let plan = planner.plan(&g, ws, a, b).map_err(|e| e.to_string())?;
                        Ok(match plan.cost() {
                            Some(c) => (c, plan.path.to_vec()),
                            None => (f64::NAN, Vec::new()),
                        })
                    },
                )
                .collect())
        })
    });
    let results = results?;
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
