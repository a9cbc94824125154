//! Playing a League of Robot Runners problem: the task board gives each robot its next errand,
//! a planner ([`LorrPlanner`]: `pibt`, `window` or `sim`, named or chosen for the team when the
//! run starts, [`LorrConfig::resolved`]) chooses one [`LorrAction`] per robot,
//! and every step's actions are applied, timed and kept for the output file. The independent
//! checker ([`PlanChecker`]) replays each step from its letters while the next is planned, a
//! task the pool's other thread takes.

use std::time::{Duration, Instant};

use super::action::LorrAction;
use super::checker::PlanChecker;
use super::config::{GuidanceChoice, LorrConfig};
use super::output;
use super::parking::Parking;
use super::planner::{self, LorrPlanner, PlannerFigures, StepInput, StepPlanner};
use super::problem::Problem;
use super::tasks::{AssignInput, TaskAssignment, TaskBoard};
use super::validate::PlanError;
use crate::error::{Error, Result};
use crate::grid::{CellId, Grid};
use crate::process_stats;
use crate::sim::{ActionModel, Heading, Simulation};

/// Figures of a run so far.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LorrReport {
    /// The planner that played (never [`LorrPlanner::Auto`]: the one chosen).
    pub planner: LorrPlanner,
    /// How tasks went to robots.
    pub assignment: TaskAssignment,
    /// Times an unopened task went from one robot to another, or was given up for a nearer
    /// one.
    pub reassignments: u64,
    /// The most robots that held tasks at once ([`super::TaskBoard::holders_cap`]: the team
    /// under [`TaskAssignment::Nearest`]; lower on a crowded floor, a floor of busy errand
    /// cells or under the `pibt` planner's corridor rules).
    pub holders_cap: usize,
    /// Tasks finished.
    pub tasks_finished: u64,
    /// Steps played.
    pub steps: u64,
    /// Agents.
    pub agents: usize,
    /// Mean time of a step (assignment, planning and movement; on the pool, the independent
    /// check of the step before runs beside the planning, on one thread after the step's
    /// time), milliseconds.
    pub mean_step_ms: f64,
    /// The 99th percentile of the step times (nearest rank), milliseconds.
    pub p99_step_ms: f64,
    /// Longest step, milliseconds.
    pub max_step_ms: f64,
    /// Steps longer than the limit ([`LorrConfig::step_ms`]; 0 without one).
    pub steps_over_limit: u64,
    /// Robot-steps planned without their distance table (not ready by the deadline).
    pub fallback_plans: u64,
    /// Distance tables computed (`pibt` planner).
    pub tables_computed: u64,
    /// Most mebibytes the distance tables held at once (`pibt` planner).
    pub table_peak_mib: f64,
    /// The process's peak resident memory so far in mebibytes (Linux: `VmHWM`), when known.
    pub peak_memory_mib: Option<f64>,
    /// The process's processor time (user and system, every thread) during the steps over
    /// their wall time: 2.0 is both cores busy throughout on two threads. Linux only (read
    /// from `/proc/self/stat` before and after each step, in hundredths of a second), `None`
    /// elsewhere or while the steps have taken less than a second in all.
    pub step_cores: Option<f64>,
    /// Errands done (a task's errands count one each).
    pub errands_done: u64,
    /// Agent moves (a step to another cell) over the run.
    pub moves: u64,
    /// `window` planner: whether its distance tables have lanes
    /// ([`super::WindowConfig::lanes`], or the map's choice); `None` for the other planners.
    pub window_lanes: Option<bool>,
    /// `pibt` planner: what a step against a lane costs in its distance tables
    /// ([`super::PibtConfig::lane_cost`], or the map's choice); `None` for the other planners.
    pub pibt_lane_cost: Option<u8>,
    /// `pibt` planner: whether it played the corridor rules
    /// ([`super::PibtConfig::corridor_rules`], or the map's choice); `None` for the other
    /// planners.
    pub pibt_corridor_rules: Option<bool>,
    /// Whether the distance tables were guided around crowds ([`LorrConfig::guidance`], as
    /// chosen for the run; the `pibt` and `window` planners).
    pub guidance: bool,
}

/// A problem being played.
#[derive(Debug)]
pub struct LorrRun {
    /// The settings, resolved ([`LorrConfig::resolved`]).
    config: LorrConfig,
    grid: Grid,
    starts: Vec<CellId>,
    board: TaskBoard,
    planner: Box<dyn StepPlanner>,
    /// Every step's actions, an action per agent: step `t`'s are `t * agents..(t + 1) *
    /// agents`.
    actions: Vec<LorrAction>,
    /// The actions of the step being planned (scratch).
    step_actions: Vec<LorrAction>,
    /// Steps played.
    steps: usize,
    step_ms: Vec<f64>,
    positions: Vec<CellId>,
    headings: Vec<Heading>,
    changed: Vec<u32>,
    moves: u64,
    window_lanes: Option<bool>,
    /// The independent check, fed each step at the start of the next one.
    checker: PlanChecker,
    /// The schedule entries the checker has not read yet (scratch).
    unread: Vec<(u64, u32, u32)>,
    /// The letters of a step the checker reads (scratch).
    check_letters: String,
    /// The process's processor time during the steps, seconds (`None` where it cannot be
    /// read).
    step_cpu_s: Option<f64>,
}

impl LorrRun {
    /// A run of `problem` at step 0, tasks revealed, none assigned yet, with `config`
    /// [resolved](LorrConfig::resolved) for the problem ([`LorrRun::planner`] names the
    /// planner).
    ///
    /// # Errors
    /// [`crate::error::Error::Invalid`] for the `pibt` and `window` planners under the free
    /// action model (they plan turning robots only); the simulation's, should a start be
    /// refused (not for a loaded [`Problem`]).
    pub fn new(problem: &Problem, config: LorrConfig) -> Result<LorrRun> {
        let config = config.resolved(problem);
        let agents = problem.starts.len();
        let mut board = TaskBoard::new(
            &problem.grid,
            problem.tasks.clone(),
            agents,
            problem.reveal,
            config.assignment,
        );
        if config.planner == LorrPlanner::Pibt && config.pibt.corridor_rules == Some(true) {
            board.limit_holders(super::PibtConfig::corridor_holders(
                problem.grid.walkable_count(),
            ));
        }
        let (planner, window_lanes) = build_planner(problem, &config, board.busy_errands())?;
        let checker = PlanChecker::new(
            &problem.grid,
            &problem.starts,
            config.action_model,
            board.lines(),
            board.reveal(),
        );
        Ok(LorrRun {
            checker,
            unread: Vec::new(),
            check_letters: String::with_capacity(agents),
            step_cpu_s: Some(0.0),
            config,
            grid: problem.grid.clone(),
            starts: problem.starts.clone(),
            board,
            planner,
            actions: Vec::new(),
            step_actions: Vec::with_capacity(agents),
            steps: 0,
            step_ms: Vec::new(),
            positions: problem.starts.clone(),
            headings: vec![Heading::East; agents],
            changed: Vec::new(),
            moves: 0,
            window_lanes,
        })
    }

    /// Plays one step: free agents get tasks, the planner chooses every agent's action, the
    /// actions are applied, errands reached are recorded.
    pub fn step(&mut self) {
        let cpu0 = process_stats::cpu_seconds();
        let t0 = Instant::now();
        let step = self.steps as u64;
        // Optional work (distance tables) stops at three quarters of the limit, leaving the
        // rest of the step for planning.
        let deadline = (self.config.step_ms > 0.0)
            .then(|| t0 + Duration::from_secs_f64(self.config.step_ms * 0.75 / 1e3));
        // On the pool, the steps not checked yet (the step before) are checked on one thread
        // while this one is planned: the check is a task that the other thread takes, and then
        // it helps with the planning. On one thread they are checked after the step's time.
        let check_now = self.config.parallel
            && self.checker.error().is_none()
            && self.checker.steps() < self.steps;
        let base = self.checker.entries_read();
        self.unread.clear();
        if check_now {
            self.unread
                .extend_from_slice(&self.board.assignments()[base..]);
        }
        let (board, changed, planner) = (&mut self.board, &mut self.changed, &mut self.planner);
        let (grid, positions, headings) = (&self.grid, &self.positions, &self.headings);
        let (checker, unread, played) = (&mut self.checker, &self.unread, &self.actions);
        let (step_actions, letters) = (&mut self.step_actions, &mut self.check_letters);
        let steps_played = self.steps;
        let mut plan = move || {
            let assign = AssignInput {
                positions,
                headings,
                tables: planner.distances(),
            };
            board.assign(step, &assign, changed);
            let input = StepInput {
                grid,
                step,
                positions,
                headings,
                board,
                deadline,
            };
            planner.retarget(&input, changed);
            planner.plan(&input, step_actions);
        };
        // An error stays in the checker until `validate`.
        let check = move || {
            let _ = feed(checker, played, steps_played, unread, base, letters);
        };
        if check_now {
            rayon::join(plan, check);
        } else {
            plan();
        }
        assert_eq!(
            self.step_actions.len(),
            self.positions.len(),
            "a planner gives one action per robot"
        );
        for (a, &act) in self.step_actions.iter().enumerate() {
            let heading = &mut self.headings[a];
            *heading = act.after(*heading);
            if let Some(dir) = act.moves(*heading) {
                self.positions[a] = self.grid.step(self.positions[a], dir);
                self.moves += 1;
            }
        }
        self.actions.extend_from_slice(&self.step_actions);
        self.steps += 1;
        let step = self.steps as u64;
        self.board.arrive(step, &self.positions, &mut self.changed);
        let input = StepInput {
            grid: &self.grid,
            step,
            positions: &self.positions,
            headings: &self.headings,
            board: &self.board,
            deadline,
        };
        self.planner.moved(&input, &mut self.changed);
        self.step_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        if !self.config.parallel {
            let _ = feed(
                &mut self.checker,
                &self.actions,
                self.steps,
                self.board.assignments(),
                0,
                &mut self.check_letters,
            );
        }
        self.step_cpu_s = match (self.step_cpu_s, cpu0, process_stats::cpu_seconds()) {
            (Some(sum), Some(before), Some(after)) => Some(sum + (after - before).max(0.0)),
            _ => None,
        };
    }

    /// Plays `steps` steps.
    pub fn play(&mut self, steps: u64) {
        for _ in 0..steps {
            self.step();
        }
    }

    /// The figures so far.
    pub fn report(&self) -> LorrReport {
        let steps = self.step_ms.len();
        let mut sorted = self.step_ms.clone();
        sorted.sort_unstable_by(f64::total_cmp);
        // Nearest rank: the smallest time at least 99% of the steps do not exceed.
        let p99 = match steps {
            0 => 0.0,
            n => sorted[(n * 99).div_ceil(100).max(1) - 1],
        };
        let limit = self.config.step_ms;
        let wall_ms: f64 = self.step_ms.iter().sum();
        let PlannerFigures {
            fallback_plans,
            tables_computed,
            table_peak_bytes,
        } = self.planner.figures();
        LorrReport {
            planner: self.config.planner,
            assignment: self.config.assignment,
            reassignments: self.board.reassignments(),
            holders_cap: self.board.holders_cap(),
            tasks_finished: self.board.finished(),
            steps: steps as u64,
            agents: self.positions.len(),
            mean_step_ms: wall_ms / steps.max(1) as f64,
            p99_step_ms: p99,
            max_step_ms: sorted.last().copied().unwrap_or(0.0),
            steps_over_limit: if limit > 0.0 {
                self.step_ms.iter().filter(|&&ms| ms > limit).count() as u64
            } else {
                0
            },
            fallback_plans,
            tables_computed,
            table_peak_mib: table_peak_bytes as f64 / f64::from(1 << 20),
            peak_memory_mib: process_stats::peak_memory_mib(),
            step_cores: self
                .step_cpu_s
                .and_then(|cpu| process_stats::cores_busy(Some(0.0), Some(cpu), wall_ms / 1e3)),
            errands_done: self.board.events().len() as u64,
            moves: self.moves,
            window_lanes: self.window_lanes,
            pibt_lane_cost: self
                .config
                .pibt
                .lane_cost
                .filter(|_| self.config.planner == LorrPlanner::Pibt),
            pibt_corridor_rules: self
                .config
                .pibt
                .corridor_rules
                .filter(|_| self.config.planner == LorrPlanner::Pibt),
            guidance: matches!(self.config.guidance, GuidanceChoice::On(_))
                && matches!(self.config.planner, LorrPlanner::Pibt | LorrPlanner::Window),
        }
    }

    /// Replays the actions and the schedule so far with the independent checker
    /// ([`PlanChecker`], fed the steps as they are played: this replays the steps it has not
    /// seen, at most the last) and checks that they end where the run (and the planner, if it
    /// keeps its own state) has the robots, with the run's errands done and tasks finished.
    ///
    /// # Errors
    /// The checker's first [`PlanError`], [`PlanError::Shape`] when the ends differ, or
    /// [`PlanError::Schedule`] when the errands done differ.
    pub fn validate(&self) -> std::result::Result<(), PlanError> {
        let schedule = self.board.assignments();
        let mut checker = self.checker.clone();
        let mut letters = String::new();
        feed(
            &mut checker,
            &self.actions,
            self.steps,
            schedule,
            0,
            &mut letters,
        )?;
        let read = checker.entries_read();
        let replayed = checker.finish(&schedule[read..])?;
        if replayed.cells != self.positions
            || (self.config.action_model == ActionModel::Rotate
                && replayed.headings != self.headings)
            || !self.planner.agrees(&self.positions, &self.headings)
        {
            return Err(PlanError::Shape(
                "the replayed plan ends elsewhere than the planner's robots".into(),
            ));
        }
        let events = self.board.events();
        let first_difference = replayed
            .events
            .iter()
            .zip(events)
            .position(|(&r, e)| r != (e.step, e.agent, e.task, e.done))
            .or((replayed.events.len() != events.len())
                .then_some(replayed.events.len().min(events.len())));
        if let Some(i) = first_difference {
            let (step, agent) = events
                .get(i)
                .map(|e| (e.step, e.agent))
                .or(replayed.events.get(i).map(|r| (r.0, r.1)))
                .unwrap_or((0, 0));
            return Err(PlanError::Schedule {
                step,
                agent,
                reason: format!(
                    "errand {i} of the run differs from the replay's ({} tasks finished, the \
                     replay {})",
                    self.board.finished(),
                    replayed.finished
                ),
            });
        }
        if replayed.finished != self.board.finished() {
            return Err(PlanError::Schedule {
                step: self.steps as u64,
                agent: 0,
                reason: format!(
                    "{} tasks finished, the replay {}",
                    self.board.finished(),
                    replayed.finished
                ),
            });
        }
        Ok(())
    }

    /// The planner playing: the one named in the settings, or the one chosen for the team
    /// for [`LorrPlanner::Auto`] (never `Auto`).
    pub fn planner(&self) -> LorrPlanner {
        self.config.planner
    }

    /// Steps played.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Every step's actions so far, an action per agent, step after step: step `t`'s are
    /// [`LorrRun::step_actions`]`(t)`.
    pub fn actions(&self) -> &[LorrAction] {
        &self.actions
    }

    /// The actions of step `t` (from 0), one per agent.
    ///
    /// # Panics
    /// When `t` is not a step played.
    pub fn step_actions(&self, t: usize) -> &[LorrAction] {
        let n = self.positions.len();
        &self.actions[t * n..(t + 1) * n]
    }

    /// The task board.
    pub fn board(&self) -> &TaskBoard {
        &self.board
    }

    /// The simulation underneath, for the `sim` planner.
    pub fn simulation(&self) -> Option<&Simulation> {
        self.planner.simulation()
    }

    /// Each robot's cell now.
    pub fn positions(&self) -> &[CellId] {
        &self.positions
    }

    /// Each robot's heading now (east throughout under the free model).
    pub fn headings(&self) -> &[Heading] {
        &self.headings
    }

    /// Writes the competition's output JSON (`actionModel`, `teamSize`, `start`, `actualPaths`,
    /// `plannerTimes`, `events`, `tasks`, ...), which PlanViz replays.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_output(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        output::write(
            out,
            &self.grid,
            self.config.action_model,
            &self.starts,
            &self.actions,
            &self.step_ms,
            &self.board,
        )
    }
}

/// The planner `config` (resolved) names for `problem`, and whether its distance tables have
/// lanes (the `window` planner's; `None` for the others); the `pibt` planner parks idle robots
/// away from `busy_errands`.
///
/// # Errors
/// [`Error::Invalid`] for the `pibt` and `window` planners under the free action model (they
/// plan turning robots only); the simulation's, should a start be refused (not for a loaded
/// [`Problem`]).
fn build_planner(
    problem: &Problem,
    config: &LorrConfig,
    busy_errands: &[CellId],
) -> Result<(Box<dyn StepPlanner>, Option<bool>)> {
    let (grid, agents) = (&problem.grid, problem.starts.len());
    let cache_bytes = config.table_cache_mib.saturating_mul(1 << 20);
    Ok(match (config.planner, config.action_model) {
        (LorrPlanner::Auto, _) => unreachable!("LorrRun::new resolves the planner"),
        (LorrPlanner::Sim, model) => (
            Box::new(planner::sim::SimPlanner::new(
                grid,
                &problem.starts,
                model,
                config.seed,
                config.parallel,
                config.sim,
            )?),
            None,
        ),
        (LorrPlanner::Pibt, ActionModel::Rotate) => {
            // `LorrRun::new` resolves the lane cost for the pibt planner.
            let lane_cost = config.pibt.lane_cost.unwrap_or(super::PIBT_LANE_COST);
            let mut planner = planner::pibt::PibtPlanner::new(
                grid,
                agents,
                config.seed,
                config.parallel,
                lane_cost,
                cache_bytes,
                true,
            );
            if config.pibt.corridor_rules == Some(true) {
                planner.count_lane_steps();
            }
            if let GuidanceChoice::On(guidance) = config.guidance {
                planner.guide(grid, guidance, true);
            }
            if let Some(parking) = Parking::new(grid, busy_errands) {
                planner.park(parking);
            }
            (Box::new(planner), None)
        }
        (LorrPlanner::Window, ActionModel::Rotate) => {
            let mut planner = planner::window::WindowPlanner::new(
                grid,
                agents,
                config.window,
                config.seed,
                config.parallel,
                cache_bytes,
            );
            if let GuidanceChoice::On(guidance) = config.guidance {
                planner.guide(grid, guidance);
            }
            let lanes = planner.lanes();
            (Box::new(planner), Some(lanes))
        }
        (planner @ (LorrPlanner::Pibt | LorrPlanner::Window), ActionModel::Free) => {
            return Err(Error::Invalid(format!(
                "the {planner} planner plans turning robots (the rotate action model); use the \
                 sim planner for the free model"
            )));
        }
    })
}

/// Feeds `checker` the steps of `actions` (every step played, `steps` of them, as many
/// actions each) that it has not replayed, as the letters of the output file, `schedule` being
/// the schedule from entry `first_entry` on (it must hold the entries from
/// [`PlanChecker::entries_read`]).
fn feed(
    checker: &mut PlanChecker,
    actions: &[LorrAction],
    steps: usize,
    schedule: &[(u64, u32, u32)],
    first_entry: usize,
    letters: &mut String,
) -> std::result::Result<(), PlanError> {
    let agents = actions.len().checked_div(steps).unwrap_or(0);
    for t in checker.steps()..steps {
        letters.clear();
        letters.extend(
            actions[t * agents..(t + 1) * agents]
                .iter()
                .map(|a| a.letter()),
        );
        let read = checker.entries_read() - first_entry;
        checker.step(letters, &schedule[read..])?;
    }
    Ok(())
}
