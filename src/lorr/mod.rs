//! League of Robot Runners (LoRR) problems: lifelong multi-agent path finding with tasks of
//! several errands and robots that turn, scored by the tasks finished within a step limit.
//!
//! - `problem`: the 2024 problem files ([`Problem`]: JSON, map, agents, tasks), with errors by
//!   file and line.
//! - `tasks`: the task board ([`TaskBoard`]): revealed tasks, their assignment (and
//!   reassignment before they are opened), errands done, events.
//! - `run`: a problem played step by step ([`LorrRun`]) by a planner ([`LorrPlanner`]).
//! - [`distance`]: distance tables by errand cell, shared read-only by the `pibt` planner.
//! - [`lanes`]: the crisscross lanes that make a step against them dearer in those tables.
//! - `pibt_rotate`, `pibt_driver`: PIBT with rotations, the default planner.
//! - `window_driver`, `window_plan`, `window_search`, `window_lns`: the `window` planner, PIBT
//!   rolled out over a window of steps and improved by large neighbourhood search (in rounds of
//!   groups on every thread).
//! - `sim_driver`: the general [`crate::sim::Simulation`] as a planner (`sim`).
//! - `driver`: the interface of the planners.
//! - `task_index`: the tasks not opened yet by map block, for the assignment.
//! - `validate`: an independent [`replay`] of a plan's actions, and of its tasks
//!   ([`replay_schedule`]).
//! - `checker`: that check fed one step at a time ([`PlanChecker`]), as a run plays.
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

mod checker;
pub mod distance;
mod driver;
pub mod lanes;
mod output;
mod pibt_driver;
mod pibt_rotate;
mod problem;
mod run;
mod sim_driver;
mod task_index;
mod tasks;
mod validate;
mod window_driver;
mod window_lns;
mod window_plan;
mod window_search;

pub use checker::PlanChecker;
pub use driver::{LorrPlanner, WINDOW_MAX_AGENTS};
pub use problem::{MAX_ERRANDS, Problem};
pub use run::{LorrConfig, LorrReport, LorrRun};
pub use tasks::{AssignInput, NONE as NO_TASK, RevealedTask, TaskAssignment, TaskBoard, TaskEvent};
pub use validate::{PlanError, ScheduleReplay, action_move, replay, replay_schedule};
