//! Python bindings of throng: the native module `throng._throng` (`load_map`,
//! `generate_map`, `Grid`, `plan`, `Simulation`), re-exported by the pure-Python package
//! `throng`.
//!
//! Modules: [`grid`] (maps), [`plan`] (batches of queries), [`simulation`] (crowds, agents
//! driven from Python), [`env_step`] (the hot path of `throng.env`), [`env_dicts`] (its PettingZoo
//! dicts).

mod actions;
mod env_dicts;
mod env_step;
mod grid;
mod plan;
mod simulation;
mod tick_dicts;

use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use throng_core::grid::CellId;

/// A throng error as a Python exception: `OSError` for files that cannot be read, `ValueError`
/// for everything else, with the Rust message (which names the file and line).
pub(crate) fn to_py(err: throng_core::error::Error) -> PyErr {
    match err {
        throng_core::error::Error::Io { .. } => PyOSError::new_err(err.to_string()),
        _ => PyValueError::new_err(err.to_string()),
    }
}

/// The most worker threads a simulation or a batch may start (as `threads` of scenario files).
pub(crate) const MAX_THREADS: u64 = throng_core::scenario::Scenario::MAX_THREADS as u64;

/// A whole number from 0 to `max` given for `name`: a `ValueError` naming it when it is
/// negative or too large (not Python's `OverflowError`), a `TypeError` when it is no integer.
pub(crate) fn whole(value: &Bound<'_, PyAny>, name: &str, max: u64) -> PyResult<u64> {
    let out_of_range = |why: String| PyValueError::new_err(format!("{name}={value}: {why}"));
    match value.extract::<u64>() {
        Ok(n) if n <= max => Ok(n),
        Ok(_) => Err(out_of_range(format!("must be at most {max}"))),
        Err(e) => match value.extract::<i64>() {
            Ok(n) if n < 0 => Err(out_of_range("must be at least 0".into())),
            _ if value.is_instance_of::<pyo3::types::PyInt>() => {
                Err(out_of_range(format!("must be at most {max}")))
            }
            _ => Err(e),
        },
    }
}

/// [`whole`] for an optional argument (`None`: not given).
pub(crate) fn whole_opt(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
    max: u64,
) -> PyResult<Option<u64>> {
    value.map(|v| whole(v, name, max)).transpose()
}

/// A rayon pool of `threads` workers (0: all cores).
pub(crate) fn pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PyValueError::new_err(format!("starting {threads} worker threads: {e}")))
}

/// A JSON value as Python objects (dicts, lists, ints, floats, strings, None), built directly.
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    value: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)
            } else if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)
            }
        }
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// A serializable value as a Python dict (or whatever it serializes to).
pub(crate) fn to_dict<'py>(
    py: Python<'py>,
    value: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_to_py(py, &value)
}

/// A Python value (keyword argument) as JSON, through the `json` module.
pub(crate) fn py_to_json(
    py: Python<'_>,
    key: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<serde_json::Value> {
    let dumps = py.import("json")?.getattr("dumps")?;
    let text: String = dumps
        .call1((value,))
        .and_then(|t| t.extract())
        .map_err(|_| PyValueError::new_err(format!("{key}: not a JSON value")))?;
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{key}: {e}")))
}

/// Reads an integer array of shape (k, 2) (x, then y) into cells, checking every row: inside
/// the grid and passable.
pub(crate) fn cells(
    py: Python<'_>,
    grid: &throng_core::grid::Grid,
    what: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Vec<CellId>> {
    cells_checked(py, grid, what, obj, true)
}

/// [`cells`], where blocked cells are refused only when `passable` says so.
pub(crate) fn cells_checked(
    py: Python<'_>,
    grid: &throng_core::grid::Grid,
    what: &str,
    obj: &Bound<'_, PyAny>,
    passable: bool,
) -> PyResult<Vec<CellId>> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?;
    let bad = || PyValueError::new_err(format!("{what} must be an integer array of shape (k, 2)"));
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(bad());
    }
    let arr = arr.call_method1("astype", ("int64",))?;
    let arr: PyReadonlyArray2<'_, i64> = arr.extract().map_err(|_| bad())?;
    if arr.shape()[1] != 2 {
        return Err(bad());
    }
    let view = arr.as_array();
    let mut out = Vec::with_capacity(view.nrows());
    for (row, xy) in view.outer_iter().enumerate() {
        let (x, y) = (xy[0], xy[1]);
        if x < 0 || y < 0 || x >= i64::from(grid.width()) || y >= i64::from(grid.height()) {
            return Err(PyValueError::new_err(format!(
                "{what} row {row}: ({x}, {y}) is outside the {} x {} grid",
                grid.width(),
                grid.height()
            )));
        }
        let cell = grid.cell(x as u32, y as u32).expect("checked");
        if passable && !grid.is_walkable(cell) {
            return Err(PyValueError::new_err(format!(
                "{what} row {row}: ({x}, {y}) is blocked"
            )));
        }
        out.push(cell);
    }
    Ok(out)
}

/// Parallel crowd pathfinding on a shared 2D grid (Python bindings of the throng Rust crate).
#[pymodule]
#[pyo3(name = "_throng")]
fn throng_py(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<grid::Grid>()?;
    m.add_class::<simulation::Simulation>()?;
    m.add_class::<env_step::EnvCore>()?;
    m.add_function(wrap_pyfunction!(env_dicts::env_codes, m)?)?;
    m.add_function(wrap_pyfunction!(env_dicts::env_infos, m)?)?;
    m.add_function(wrap_pyfunction!(grid::load_map, m)?)?;
    m.add_function(wrap_pyfunction!(grid::generate_map, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan, m)?)?;
    m.add("STATES", simulation::STATES)?;
    m.add("EVENT_KINDS", simulation::EVENT_KINDS)?;
    m.add("ACTIONS", simulation::ACTIONS)?;
    m.add("OUTCOMES", simulation::OUTCOMES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
