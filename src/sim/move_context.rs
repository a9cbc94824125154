//! What every part of the movement phase shares: the tick's read-only [`MoveContext`], the
//! moves chosen from outside ([`Forced`]), the phase's [`MovementTotals`], and the
//! [`MoveRecord`] that conflict modes `off` and `avoid` fill as their agents move.
//!
//! The movement modules are layered, each using only those below it, so that none imports
//! another in a cycle: this module; `route` (how one move changes an agent's route, and
//! arrival); `control` (moves chosen from outside); `pibt_movement` (conflict mode `pibt`);
//! `movement` (the phase's entry, and conflict modes `off` and `avoid`).

use super::config::SimConfig;
use crate::grid::{CellId, Grid};

/// Totals of one movement phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MovementTotals {
    /// Agents that took a step.
    pub moved: u32,
    /// Agents that wanted to step but waited.
    pub waiting: u32,
    /// Agents that reached their goal this tick.
    pub arrived: u32,
    /// Swaps PIBT made this tick (conflict mode `pibt`).
    pub swaps: u32,
}

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

/// What the movement phase did so far: its totals, and the slots of the agents that reached
/// a goal, in the order they reached it (lifelong runs give new goals in that order).
#[derive(Debug)]
pub(crate) struct MoveRecord<'a> {
    pub(crate) totals: MovementTotals,
    arrivals: &'a mut Vec<u32>,
}

impl<'a> MoveRecord<'a> {
    /// The record of a new phase, appending its arrivals to `arrivals`.
    pub(crate) fn new(arrivals: &'a mut Vec<u32>) -> Self {
        MoveRecord {
            totals: MovementTotals::default(),
            arrivals,
        }
    }

    /// Records that the agent in `slot` reached a new goal (as the functions that move an
    /// agent return). Moves are counted by the caller, in `totals`.
    #[inline]
    pub(crate) fn arrived(&mut self, slot: u32) {
        self.totals.arrived += 1;
        self.arrivals.push(slot);
    }
}
