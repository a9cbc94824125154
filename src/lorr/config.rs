//! The settings of a League of Robot Runners run ([`LorrConfig`]): what every run has (the
//! planner, the action model, the seed, the time limit, the task assignment), and one group of
//! settings per planner ([`PibtConfig`], [`WindowConfig`], [`SimPlannerConfig`]), read only by
//! that planner. The planner and the guidance may be left to the run ([`LorrPlanner::Auto`],
//! [`GuidanceChoice::Auto`], the defaults): [`LorrConfig::resolved`] chooses them for the
//! problem when the run starts, by the one rule the library and the command line share.

use super::planner::LorrPlanner;
use super::problem::Problem;
use super::tasks::TaskAssignment;
use crate::sim::ActionModel;

pub use super::planner::guidance::{
    GUIDANCE_BUSY_FLOOR, GUIDANCE_MAX_CORRIDORS, GUIDANCE_MAX_DENSITY, GUIDANCE_MIN_AGENTS,
    GuidanceChoice, GuidanceConfig, MIN_WAYS_AROUND, WAYS_AROUND_RADIUS, corridor_share,
    ways_around,
};
pub use super::planner::pibt::{
    CORRIDOR_MAP_SHARE_OF_FREE, PIBT_CORRIDOR_LANE_COST, PIBT_LANE_COST, PibtConfig,
};
pub use super::planner::sim::SimPlannerConfig;
pub use super::planner::window::WindowConfig;

/// Settings of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LorrConfig {
    /// The planner. Default: [`LorrPlanner::Auto`], the one [`LorrPlanner::automatic`] picks
    /// for the action model, the team and the map (as `throng lorr` without `--planner`).
    /// [`LorrPlanner::Pibt`] and [`LorrPlanner::Window`] plan for the rotate model only.
    pub planner: LorrPlanner,
    /// The action model. Default: [`ActionModel::Rotate`], the competition's.
    pub action_model: ActionModel,
    /// Seed of the tie-breaks. Default: 0.
    pub seed: u64,
    /// Plan on the rayon pool. Default: `true` (same run either way).
    pub parallel: bool,
    /// The time limit of a step in milliseconds (0: none). When the distance tables of the
    /// `pibt` and `window` planners are not all computed by three quarters of it, the robots
    /// whose table is missing rank their moves by Manhattan distance that step (counted in
    /// [`super::LorrReport::fallback_plans`]); the run then depends on the machine's speed.
    /// Default: 0 (the CLI's default is 100, the issue's target).
    pub step_ms: f64,
    /// Mebibytes of distance tables (`pibt` and `window` planners) kept for goals no robot
    /// heads for now (the tables of current goals are always kept). Default: 256.
    pub table_cache_mib: usize,
    /// How tasks go to robots. Default: [`TaskAssignment::Reassign`].
    pub assignment: TaskAssignment,
    /// The `pibt` planner's settings.
    pub pibt: PibtConfig,
    /// The `window` planner's settings.
    pub window: WindowConfig,
    /// The `sim` planner's settings.
    pub sim: SimPlannerConfig,
    /// Congestion guidance of the `pibt` and `window` planners' distance tables (steps into
    /// crowds made dearer, [`GuidanceConfig`]). Default: [`GuidanceChoice::Auto`], on where
    /// [`GuidanceConfig::automatic`] says so for the team and the map (as `throng lorr`
    /// without `--guidance`).
    pub guidance: GuidanceChoice,
}

impl Default for LorrConfig {
    fn default() -> Self {
        LorrConfig {
            planner: LorrPlanner::Auto,
            action_model: ActionModel::Rotate,
            seed: 0,
            parallel: true,
            step_ms: 0.0,
            table_cache_mib: 256,
            assignment: TaskAssignment::Reassign,
            pibt: PibtConfig::default(),
            window: WindowConfig::default(),
            sim: SimPlannerConfig::default(),
            guidance: GuidanceChoice::Auto,
        }
    }
}

impl LorrConfig {
    /// These settings with the choices left to the run made for `problem`: the planner of
    /// [`LorrPlanner::automatic`] for [`LorrPlanner::Auto`], the guidance of
    /// [`GuidanceConfig::automatic`] for [`GuidanceChoice::Auto`], and for the `pibt` planner
    /// the lane cost of [`PibtConfig::lane_cost_for`] and the corridor rules of
    /// [`PibtConfig::corridor_rules_for`] when not named; settings named are kept.
    /// [`super::LorrRun::new`] plays the settings resolved.
    ///
    /// ```
    /// use throng::lorr::{GuidanceChoice, LorrConfig, LorrPlanner, Problem};
    ///
    /// let problem = Problem::load("sims/lorr/random.domain/RANDOM-01.json")?;
    /// let config = LorrConfig::default().resolved(&problem.clone().with_agents(200, 0)?);
    /// assert_eq!(config.planner, LorrPlanner::Window);
    /// assert_eq!(config.guidance, GuidanceChoice::Off);
    /// assert_eq!(config.pibt.lane_cost, None); // not the pibt planner
    /// let config = LorrConfig::default().resolved(&problem.with_agents(700, 0)?);
    /// assert_eq!(config.pibt.lane_cost, Some(throng::lorr::PIBT_LANE_COST));
    /// assert_eq!(config.pibt.corridor_rules, Some(false)); // open ground
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolved(self, problem: &Problem) -> LorrConfig {
        let (grid, agents) = (&problem.grid, problem.starts.len());
        // Measured once, only if a choice needs it (some 50 ms on a large map).
        let ways = std::cell::OnceCell::new();
        let ways_around = || *ways.get_or_init(|| super::ways_around(grid));
        let planner = match self.planner {
            LorrPlanner::Auto => {
                LorrPlanner::automatic(self.action_model, agents, grid.walkable_count())
            }
            named => named,
        };
        LorrConfig {
            planner,
            guidance: match self.guidance {
                GuidanceChoice::Auto => GuidanceConfig::automatic_with(
                    grid,
                    agents,
                    problem.has_busy_errands(),
                    ways_around,
                )
                .into(),
                named => named,
            },
            pibt: PibtConfig {
                lane_cost: match self.pibt.lane_cost {
                    None if planner == LorrPlanner::Pibt => {
                        Some(PibtConfig::lane_cost_for(ways_around()))
                    }
                    chosen => chosen,
                },
                corridor_rules: match self.pibt.corridor_rules {
                    None if planner == LorrPlanner::Pibt => {
                        Some(PibtConfig::corridor_rules_for(ways_around()))
                    }
                    chosen => chosen,
                },
            },
            ..self
        }
    }
}
