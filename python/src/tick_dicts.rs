//! A tick's results as Python dicts: the report of `step`, and the flat event list of
//! `Simulation.events` (the C ABI's `throng_sim_read_events` as arrays).

use numpy::IntoPyArray;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use throng_core::sim::TickReport;

/// The last tick's events of `sim` as a dict of arrays of one length: `agent` (int64, -1 for a
/// map edit), `kind` (uint8 code), `x`, `y` (int32, -1 for no cell) and `detail` (uint8).
pub(crate) fn events_dict<'py>(
    py: Python<'py>,
    sim: &throng_core::sim::Simulation,
) -> PyResult<Bound<'py, PyDict>> {
    let events = sim.last_events();
    let grid = sim.grid();
    let n = events.len();
    let (mut agent, mut kind, mut detail) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for e in events.all() {
        agent.push(e.agent().map_or(-1, |id| id.to_bits() as i64));
        kind.push(e.kind().code());
        detail.push(e.detail());
        let (cx, cy) = e.cell().map_or((-1, -1), |c| {
            let (cx, cy) = grid.coords(c);
            (cx as i32, cy as i32)
        });
        x.push(cx);
        y.push(cy);
    }
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "agent"), agent.into_pyarray(py))?;
    dict.set_item(intern!(py, "kind"), kind.into_pyarray(py))?;
    dict.set_item(intern!(py, "x"), x.into_pyarray(py))?;
    dict.set_item(intern!(py, "y"), y.into_pyarray(py))?;
    dict.set_item(intern!(py, "detail"), detail.into_pyarray(py))?;
    Ok(dict)
}

/// A tick's report as a dict, `added` as agent ids. Built field by field with interned keys
/// (a few µs less per step than through serde); the destructuring has no `..`, so a field
/// added to `TickReport` does not compile until it is added here.
pub(crate) fn report_dict<'py>(
    py: Python<'py>,
    report: &TickReport,
) -> PyResult<Bound<'py, PyDict>> {
    let TickReport {
        tick,
        wall_ms,
        commands_ms,
        planning_ms,
        movement_ms,
        plans,
        plans_failed,
        plans_deferred,
        nodes_expanded,
        replans_blocked,
        replans_drifted,
        replans_map_changed,
        swaps,
        moved,
        waiting,
        goals_reached,
        agents,
        at_goal,
        no_path,
        resolving,
        unsolvable,
        state_hash,
        added,
        rejected,
        phases,
    } = report;
    let dict = PyDict::new(py);
    macro_rules! put {
        ($($field:ident),*) => {
            $(dict.set_item(intern!(py, stringify!($field)), *$field)?;)*
        };
    }
    put!(
        tick,
        wall_ms,
        commands_ms,
        planning_ms,
        movement_ms,
        plans,
        plans_failed,
        plans_deferred,
        nodes_expanded,
        replans_blocked,
        replans_drifted,
        replans_map_changed,
        swaps,
        moved,
        waiting,
        goals_reached,
        agents,
        at_goal,
        no_path,
        resolving,
        unsolvable,
        state_hash
    );
    let added = PyList::new(py, added.iter().map(|id| id.to_bits() as i64))?;
    dict.set_item(intern!(py, "added"), added)?;
    dict.set_item(intern!(py, "rejected"), PyList::new(py, rejected)?)?;
    let times = PyDict::new(py);
    for (key, ms) in throng_core::sim::PhaseTimes::NAMES
        .into_iter()
        .zip(phases.values())
    {
        times.set_item(PyString::intern(py, key), ms)?;
    }
    dict.set_item(intern!(py, "phases"), times)?;
    Ok(dict)
}
