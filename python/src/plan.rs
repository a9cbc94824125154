//! `throng.plan`: batches of queries planned in parallel.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use throng_core::{CellId, PlannerKind, SearchOptions, SearchWorkspace};

use crate::grid::Grid;
use crate::{cells, pool, to_py};

/// What `plan` returns: the paths and their costs.
type Planned<'py> = (Vec<Bound<'py, PyArray2<i32>>>, Bound<'py, PyArray1<f64>>);

/// Plans the queries `starts[i] -> goals[i]` in parallel (one search workspace per worker,
/// the GIL released). `starts` and `goals` are integer arrays of shape (k, 2), x then y;
/// `planner` is "astar", "jps" or "jps+" (all optimal; "jps+" builds the grid's jump table
/// first, 16 bytes a cell, kept with the grid); `threads` 0 means all cores. Returns
/// `(paths, costs)`: a list of (len, 2) int32 arrays (empty where unreachable) and a float64
/// array of path costs (NaN where unreachable). Raises ValueError naming the row for a cell
/// outside the grid or blocked.
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
    let kind: PlannerKind = planner.parse().map_err(to_py)?;
    if !matches!(
        kind,
        PlannerKind::AStar | PlannerKind::Jps | PlannerKind::JpsPlus
    ) {
        return Err(PyValueError::new_err(format!(
            "plan() supports the planners astar, jps and jps+, not {planner:?}"
        )));
    }
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
