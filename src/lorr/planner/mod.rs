//! The planners a League of Robot Runners run plays with, behind one interface
//! ([`StepPlanner`]): the run keeps the robots, the task board and the actions; a planner
//! turns the robots' targets into one [`LorrAction`] per robot each step.
//!
//! - [`LorrPlanner::Auto`] (`auto`, the default): one of the three below, chosen by
//!   [`LorrPlanner::automatic`] for the team when the run starts.
//! - [`LorrPlanner::Pibt`] (`pibt`): PIBT with rotations guided by shared distance tables, no
//!   route searches.
//! - [`LorrPlanner::Window`] (`window`): the `pibt` planner rolled out over a window of steps,
//!   improved by large neighbourhood search.
//! - [`LorrPlanner::Sim`] (`sim`): the general [`crate::sim::Simulation`] with a turning A*
//!   route per robot and lane costs, kept for comparison and for the free model.

pub(crate) mod guidance;
pub(crate) mod pibt;
pub(crate) mod sim;
pub(crate) mod window;

use std::time::Instant;

use super::action::LorrAction;
use super::distance::DistanceTables;
use super::tasks::TaskBoard;
use crate::grid::{CellId, Grid};
use crate::sim::{Heading, Simulation};

/// Which planner a run plays with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LorrPlanner {
    /// The planner [`LorrPlanner::automatic`] picks for the run's action model, team and map,
    /// chosen when the run starts ([`crate::lorr::LorrRun::planner`] and the report name the
    /// planner chosen, never `auto`). The default.
    #[default]
    Auto,
    /// PIBT with rotations over distance tables shared by goal (rotate model only).
    Pibt,
    /// The general simulation: a turning A* route per robot, PIBT movement.
    Sim,
    /// PIBT with rotations rolled out over a window of steps and improved by large
    /// neighbourhood search (rotate model only).
    Window,
}

/// The most robots for which [`LorrPlanner::automatic`] picks the window planner: it plans
/// [`crate::lorr::WindowConfig::steps`] steps of PIBT for every robot each step before
/// its search, which in larger teams leaves the search little of a 100 ms step on 2 cores
/// (and the one-step planner already finishes as many tasks as the best known on the
/// 5,000-robot warehouse; `docs/performance.md`).
pub const WINDOW_MAX_AGENTS: usize = 1_600;

/// The densest floor (robots over free cells) on which [`LorrPlanner::automatic`] picks the
/// window planner. On the 32 x 32 random map (819 free cells, 500 steps) the window planner
/// finishes more tasks up to 300 robots (0.37; 1,603 against pibt's 1,419) and fewer from
/// 400 (0.49; 1,181 against 1,254, then 530 against 1,053 at 600), where its search cannot
/// undo the jams its PIBT rollouts make (`docs/performance.md`).
pub const WINDOW_MAX_DENSITY: f64 = 0.4;

impl LorrPlanner {
    /// The planner for a team of `agents` robots on a map of `free_cells` free cells under
    /// `model` when none is named ([`LorrPlanner::Auto`]): the window planner for at most
    /// [`WINDOW_MAX_AGENTS`] turning robots on a floor at most [`WINDOW_MAX_DENSITY`] full,
    /// pibt for larger teams and denser floors, sim under the free model.
    ///
    /// ```
    /// use throng::lorr::LorrPlanner;
    /// use throng::sim::ActionModel;
    ///
    /// assert_eq!(LorrPlanner::automatic(ActionModel::Rotate, 200, 819), LorrPlanner::Window);
    /// assert_eq!(LorrPlanner::automatic(ActionModel::Rotate, 800, 819), LorrPlanner::Pibt);
    /// assert_eq!(LorrPlanner::automatic(ActionModel::Rotate, 5_000, 38_586), LorrPlanner::Pibt);
    /// assert_eq!(LorrPlanner::automatic(ActionModel::Free, 200, 819), LorrPlanner::Sim);
    /// ```
    pub fn automatic(
        model: crate::sim::ActionModel,
        agents: usize,
        free_cells: usize,
    ) -> LorrPlanner {
        let sparse = agents as f64 <= WINDOW_MAX_DENSITY * free_cells as f64;
        match model {
            crate::sim::ActionModel::Free => LorrPlanner::Sim,
            crate::sim::ActionModel::Rotate if agents <= WINDOW_MAX_AGENTS && sparse => {
                LorrPlanner::Window
            }
            crate::sim::ActionModel::Rotate => LorrPlanner::Pibt,
        }
    }
}

impl std::str::FromStr for LorrPlanner {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(LorrPlanner::Auto),
            "pibt" => Ok(LorrPlanner::Pibt),
            "sim" => Ok(LorrPlanner::Sim),
            "window" => Ok(LorrPlanner::Window),
            other => Err(format!(
                "unknown planner {other:?}: expected auto, pibt, window or sim"
            )),
        }
    }
}

impl std::fmt::Display for LorrPlanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LorrPlanner::Auto => "auto",
            LorrPlanner::Pibt => "pibt",
            LorrPlanner::Sim => "sim",
            LorrPlanner::Window => "window",
        })
    }
}

/// What a planner sees of the run at a step.
pub(crate) struct StepInput<'a> {
    /// The map.
    pub grid: &'a Grid,
    /// Steps played before this one.
    pub step: u64,
    /// Per robot: its cell.
    pub positions: &'a [CellId],
    /// Per robot: its heading.
    pub headings: &'a [Heading],
    /// The tasks, each robot's next errand among them.
    pub board: &'a TaskBoard,
    /// When the planner should stop optional work (none: no limit).
    pub deadline: Option<Instant>,
}

/// Figures a planner keeps about its own work.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct PlannerFigures {
    /// Robot-steps planned with the fallback heuristic because their table was not ready.
    pub fallback_plans: u64,
    /// Distance tables computed.
    pub tables_computed: u64,
    /// Most bytes the distance tables held at once.
    pub table_peak_bytes: u64,
}

/// A planner of a run: told of new targets, asked for each step's actions, told of the move.
pub(crate) trait StepPlanner: std::fmt::Debug + Send {
    /// The robots in `changed` (sorted) have a new target, or none.
    fn retarget(&mut self, input: &StepInput, changed: &[u32]);
    /// Fills `actions` with one action per robot for this step (cleared first): a valid step
    /// for the positions and headings of `input`.
    fn plan(&mut self, input: &StepInput, actions: &mut Vec<LorrAction>);
    /// After the move: `input` holds the new positions, `changed` the robots whose target
    /// changed (errands reached); the planner may add robots to it.
    fn moved(&mut self, input: &StepInput, changed: &mut Vec<u32>);
    /// Its distance tables by errand cell, if it keeps any (the task assignment reads them).
    fn distances(&self) -> Option<&DistanceTables> {
        None
    }
    /// Its figures so far.
    fn figures(&self) -> PlannerFigures {
        PlannerFigures::default()
    }
    /// The simulation underneath, for the planner that has one.
    fn simulation(&self) -> Option<&Simulation> {
        None
    }
    /// Whether the planner's own idea of where the robots stand (if it keeps one) agrees.
    fn agrees(&self, _positions: &[CellId], _headings: &[Heading]) -> bool {
        true
    }
}
