//! League of Robot Runners (LoRR) problems: lifelong multi-agent path finding with tasks of
//! several errands and robots that turn, scored by the tasks finished within a step limit.
//!
//! - `problem`: the 2024 problem files ([`Problem`]: JSON, map, agents, tasks), with errors by
//!   file and line.
//! - `tasks`: the task board ([`TaskBoard`]): revealed tasks, their assignment (and
//!   reassignment before they are opened), errands done, events; `task_index`: the tasks not
//!   opened yet by map block, for the assignment.
//! - `config`: a run's settings ([`LorrConfig`]), one group per planner.
//! - `run`: a problem played step by step ([`LorrRun`]) by a planner ([`LorrPlanner`]).
//! - `action`: a robot's action in a step ([`LorrAction`]), typed from the planner to the
//!   run; letters only in the files.
//! - `planner`: the planners behind one interface: `pibt` (PIBT with rotations over shared
//!   distance tables), `window` (that PIBT rolled out over a window of steps and
//!   improved by large neighbourhood search over a space-time reservation table, on every
//!   thread) and `sim` (the general [`crate::sim::Simulation`]); by default the run picks one
//!   for its team ([`LorrPlanner::Auto`]).
//! - [`distance`]: distance tables by errand cell, shared read-only by the `pibt` and `window`
//!   planners and the assignment.
//! - [`lanes`]: the crisscross lanes that make a step against them dearer in those tables.
//! - `validate`: an independent [`replay`] of a plan's letters, and of its tasks
//!   ([`replay_schedule`]); `checker`: that check fed one step at a time ([`PlanChecker`]),
//!   as a run plays, with its own decoder of the letters.
//! - `output`: the competition's output JSON, which PlanViz replays.
//!
//! ```no_run
//! use throng::lorr::{LorrConfig, LorrRun, Problem};
//!
//! let problem = Problem::load("sims/lorr/random.domain/RANDOM-01.json")?;
//! let mut run = LorrRun::new(&problem, LorrConfig::default())?;
//! run.play(problem.competition_steps().unwrap_or(600));
//! run.validate()?;
//! println!("{} tasks finished", run.report().tasks_finished);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod action;
mod checker;
mod config;
pub mod distance;
pub mod lanes;
mod output;
mod parking;
mod planner;
mod problem;
mod run;
mod task_index;
mod tasks;
mod validate;

pub use action::LorrAction;
pub use checker::PlanChecker;
pub use config::{
    CORRIDOR_MAP_SHARE_OF_FREE, GUIDANCE_BUSY_FLOOR, GUIDANCE_MAX_CORRIDORS, GUIDANCE_MAX_DENSITY,
    GUIDANCE_MIN_AGENTS, GuidanceChoice, GuidanceConfig, LorrConfig, MIN_WAYS_AROUND,
    PIBT_CORRIDOR_LANE_COST, PIBT_LANE_COST, PibtConfig, SimPlannerConfig, WAYS_AROUND_RADIUS,
    WindowConfig, corridor_share, ways_around,
};
pub use planner::{LorrPlanner, WINDOW_MAX_AGENTS, WINDOW_MAX_DENSITY};
pub use problem::{MAX_ERRANDS, Problem};
pub use run::{LorrReport, LorrRun};
pub use tasks::{AssignInput, NO_TASK, RevealedTask, TaskAssignment, TaskBoard, TaskEvent};
pub use validate::{PlanError, ScheduleReplay, replay, replay_schedule};
