//! Actions given to `Simulation.step`: their codes, and how a dict or an array of them is
//! read.

use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use throng_core::grid::Direction;
use throng_core::sim::{AgentAction, AgentId};

use crate::simulation::Simulation;

/// The direction of action codes 1 to 8 (up is y - 1).
const DIRECTIONS: [Direction; 8] = [
    Direction::North,
    Direction::South,
    Direction::West,
    Direction::East,
    Direction::NorthWest,
    Direction::NorthEast,
    Direction::SouthWest,
    Direction::SouthEast,
];

/// The action of a code (0 wait, 1 to 8 the moves of [`DIRECTIONS`]).
pub(crate) fn action_of(code: i64) -> Option<AgentAction> {
    match code {
        0 => Some(AgentAction::Wait),
        1..=8 => Some(AgentAction::Move(DIRECTIONS[code as usize - 1])),
        _ => None,
    }
}

const CODES: &str = "0 wait, 1 up, 2 down, 3 left, 4 right, 5 up-left, 6 up-right, 7 down-left, \
                     8 down-right, -1 none";

impl Simulation {
    /// Reads `step`'s actions: `(index in agent order, id, action)` for each agent given one.
    pub(crate) fn parse_actions(
        &self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
        order: &[AgentId],
    ) -> PyResult<Vec<(usize, AgentId, AgentAction)>> {
        let mut given = Vec::new();
        if let Ok(dict) = actions.cast::<PyDict>() {
            // Each agent's index in agent order, by slot.
            let slots = self.sim.agents().slot_count();
            let mut rank = vec![usize::MAX; slots];
            for (k, id) in order.iter().enumerate() {
                rank[id.index() as usize] = k;
            }
            for (key, value) in dict.iter() {
                let id = self.agent_id(&key, "actions")?;
                let code: i64 = value.extract().map_err(|_| {
                    PyValueError::new_err(format!(
                        "actions[{key}]: an action code is an int ({CODES}), not {value}"
                    ))
                })?;
                if code == -1 {
                    continue;
                }
                let action = action_of(code).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "actions[{key}]: unknown action code {code} ({CODES})"
                    ))
                })?;
                given.push((rank[id.index() as usize], id, action));
            }
            return Ok(given);
        }
        let n = order.len();
        let bad = |what: String| {
            PyValueError::new_err(format!(
                "actions must be a dict {{id: code}} or an int array of shape ({n},) aligned \
                 with ids(): {what}"
            ))
        };
        let np = py.import("numpy")?;
        let arr = np
            .call_method1("asarray", (actions,))
            .map_err(|e| bad(e.to_string()))?;
        let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
        if kind != "i" && kind != "u" {
            let dtype = arr.getattr("dtype")?.str()?.to_string();
            return Err(bad(format!("got dtype {dtype}")));
        }
        let shape = arr.getattr("shape")?;
        let arr = arr.call_method1("astype", ("int64",))?;
        let arr: PyReadonlyArray1<'_, i64> = arr
            .extract()
            .map_err(|_| bad(format!("got shape {shape}")))?;
        if arr.len() != n {
            return Err(bad(format!("got shape {shape}")));
        }
        for (k, (&code, &id)) in arr.as_array().iter().zip(order).enumerate() {
            if code == -1 {
                continue;
            }
            let action = action_of(code).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "actions[{k}] (agent id {}): unknown action code {code} ({CODES})",
                    id.to_bits() as i64
                ))
            })?;
            given.push((k, id, action));
        }
        Ok(given)
    }
}
