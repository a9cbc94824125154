//! The crowd simulation: agents with goals planning and moving on a shared grid, tick by tick.
//!
//! [`Simulation`] bundles everything for the common case (`sim.step()`). It is built from plain
//! parts an advanced user can drive directly: the [`AgentSet`] arena, the [`Occupancy`] map, the
//! [`PlanningStage`] (parallel planning with per-worker workspaces) and the [`MovementStage`]
//! (deterministic conflict resolution), plus [`Metrics`].

mod action_model;
mod agent;
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
mod route;
mod runner;
mod simulation;
mod stuck;

pub use action_model::{Action, ActionModel, Heading};
pub use agent::{Agent, AgentId, AgentSet, AgentState};
pub use command::Command;
pub use config::{ConflictMode, SimConfig};
pub use control::{ActionOutcome, AgentAction};
pub use events::{Arrival, ArrivalKind, GoalChange, Move, PlanMade, PlanReason, TickEvents};
pub(crate) use metrics::StableHasher;
pub use metrics::{EndStatus, Metrics, RunSummary, TickReport};
pub use movement::MovementStage;
pub use occupancy::Occupancy;
pub use planning::PlanningStage;
pub use runner::{RunnerConfig, RunnerStopped, SimulationHandle, WhenFull};
pub use simulation::Simulation;
pub use stuck::STUCK_WINDOW;
