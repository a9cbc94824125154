//! The crowd simulation: agents with goals planning and moving on a shared grid, tick by tick.
//!
//! [`Simulation`] owns the grid, the agents and the phases of a tick and plays one tick per
//! `step()`: commands, planning (in parallel, per-worker workspaces), movement (deterministic
//! conflict resolution), then the tick's [`TickEvents`] and [`TickReport`]. Users read the
//! crowd through it ([`AgentSet`], [`Occupancy`], [`Metrics`]) and change it through its
//! calls and [`Command`]s; [`SimulationHandle`] runs one on its own thread. Its whole state
//! saves to bytes and back ([`Simulation::snapshot`], [`Simulation::restore`]).

mod action_model;
mod agent;
mod apply;
mod command;
mod config;
mod control;
mod events;
mod metrics;
mod move_context;
mod movement;
mod occupancy;
mod pibt_movement;
mod planning;
mod regions;
mod runner;
mod simulation;
pub(crate) mod snapshot;
mod stuck;

pub use action_model::{Action, ActionModel, Heading};
pub use agent::{Agent, AgentId, AgentSet, AgentState};
pub use command::Command;
pub use config::{ConflictMode, SimConfig};
pub use control::{ActionOutcome, AgentAction};
pub use events::{
    Arrival, ArrivalKind, Event, EventKind, GoalChange, Move, PlanMade, PlanReason, TickEvents,
};
pub(crate) use metrics::StableHasher;
pub use metrics::{EndStatus, Metrics, PhaseNanos, PhaseTimes, RunSummary, TickReport};
pub use occupancy::Occupancy;
pub use runner::{RunnerConfig, RunnerStopped, SimulationHandle, WhenFull};
pub use simulation::Simulation;
pub use snapshot::SnapshotError;
pub use stuck::STUCK_WINDOW;
