//! Commands queued for the next tick.

use serde::{Deserialize, Serialize};

use super::AgentId;
use crate::grid::{CellChange, CellId};

/// A change to apply at the start of the next tick (phase 1), in the order queued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Adds an agent at `start`, with an optional goal. Its id is listed in
    /// [`crate::sim::TickReport::added`].
    AddAgent {
        /// Start cell.
        start: CellId,
        /// Goal cell.
        goal: Option<CellId>,
    },
    /// Removes an agent.
    RemoveAgent(AgentId),
    /// Gives an agent a new goal.
    SetGoal {
        /// The agent.
        agent: AgentId,
        /// Its new goal.
        goal: CellId,
    },
    /// Edits the map; agents whose remaining path crosses a newly blocked cell replan.
    ChangeMap(Vec<CellChange>),
}
