//! What every part of the movement phase shares: the tick's read-only [`MoveContext`] and the
//! moves chosen from outside ([`Forced`]). What the phase does goes to the tick's
//! [`super::TickEvents`].
//!
//! The movement modules are layered, each using only those below it, so that none imports
//! another in a cycle: this module; `agent` (how one move changes an agent's route, and
//! arrival: `agent/route.rs`); `apply` (applying a move or a stay); `control` (the actions'
//! types and rules); `pibt_movement` (conflict mode `pibt`) and `stuck` (LaCAM's plans);
//! `movement` (the phase's entry, and conflict modes `off` and `avoid`).

use super::config::SimConfig;
use crate::grid::{CellId, Grid};

/// Per slot, what the movement phase must do with the agent this tick (see `sim::control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Forced {
    /// Nothing given: follow the route (a controlled agent stays).
    #[default]
    Free,
    /// Stay (asked to wait, or an illegal move).
    Stay,
    /// Step onto this neighbouring cell (a legal move), if conflicts allow.
    To(CellId),
}

/// What the movement phase reads, the same for every agent of one tick: borrowed for the
/// phase and handed down to every function that moves an agent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MoveContext<'a> {
    pub(crate) grid: &'a Grid,
    pub(crate) config: &'a SimConfig,
    /// The tick being played.
    pub(crate) tick: u64,
    /// Per slot, the moves chosen from outside for this tick; empty when none was.
    pub(crate) forced: &'a [Forced],
}

impl MoveContext<'_> {
    /// What was chosen from outside for the agent in `slot` ([`Forced::Free`] for nothing).
    #[inline]
    pub(crate) fn forced(&self, slot: u32) -> Forced {
        self.forced.get(slot as usize).copied().unwrap_or_default()
    }
}
