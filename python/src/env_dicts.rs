//! The PettingZoo side of `throng.env`'s step: the actions dict read into an array of codes,
//! and the infos dict (a dict per agent) built from the outcomes, in one pass each rather than
//! by Python comprehensions (0.3 ms and 0.7 ms of a 4,096-agent step in Python).

use numpy::{PyReadonlyArray1, PyReadwriteArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

/// Reads `actions[name]` for each name of `names` (0 where missing) into `out` (int64, one
/// per name). Returns the index of the first name whose action is not an int (numpy integers
/// count), or of the first code outside `0 .. codes`, else -1.
#[pyfunction(name = "_env_codes")]
pub(crate) fn env_codes(
    actions: &Bound<'_, PyDict>,
    names: &Bound<'_, PyList>,
    mut out: PyReadwriteArray1<'_, i64>,
    codes: i64,
) -> PyResult<i64> {
    let out = out.as_slice_mut()?;
    if out.len() != names.len() {
        return Err(PyValueError::new_err("out must have one code per name"));
    }
    for (k, (name, slot)) in names.iter().zip(out.iter_mut()).enumerate() {
        let code = match actions.get_item(&name)? {
            None => 0,
            Some(value) if value.is_instance_of::<PyBool>() => return Ok(k as i64),
            Some(value) => match value.extract::<i64>() {
                Ok(code) if (0..codes).contains(&code) => code,
                _ => return Ok(k as i64),
            },
        };
        *slot = code;
    }
    Ok(-1)
}

/// The infos of a step, keyed by `names` (row k of `outcome` is `names[k]`'s): a new
/// `{"outcome": code}` per agent.
#[pyfunction(name = "_env_infos")]
pub(crate) fn env_infos<'py>(
    py: Python<'py>,
    names: &Bound<'py, PyList>,
    outcome: PyReadonlyArray1<'py, i8>,
) -> PyResult<Bound<'py, PyDict>> {
    if outcome.len() != names.len() {
        return Err(PyValueError::new_err("one outcome per name"));
    }
    let infos = PyDict::new(py);
    let key = intern!(py, "outcome");
    for (name, &code) in names.iter().zip(outcome.as_array().iter()) {
        let info = PyDict::new(py);
        info.set_item(key, code)?;
        infos.set_item(name, info)?;
    }
    Ok(infos)
}
