//! Playing a League of Robot Runners problem: the task board gives each robot its next errand,
//! a planner ([`LorrPlanner`]: PIBT with rotations over shared distance tables, or the general
//! simulation) chooses one action per robot, and every step's actions are applied, timed and
//! kept for the output file. The independent checker ([`PlanChecker`]) replays each step while
//! the next is planned, a task the pool's other thread takes.

use std::time::{Duration, Instant};

use super::checker::PlanChecker;
use super::driver::{LorrPlanner, PlannerFigures, StepInput, StepPlanner};
use super::output;
use super::pibt_driver::PibtDriver;
use super::problem::Problem;
use super::sim_driver::SimDriver;
use super::tasks::{AssignInput, TaskAssignment, TaskBoard};
use super::validate::{PlanError, action_move};
use super::window_driver::WindowDriver;
use crate::error::{Error, Result};
use crate::grid::{CellId, Grid};
use crate::sim::{ActionModel, Heading, Simulation};

/// Settings of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LorrConfig {
    /// The planner. Default: [`LorrPlanner::Pibt`] (rotate model only: the free model
    /// needs [`LorrPlanner::Sim`]); the CLI picks [`LorrPlanner::automatic`] for the team.
    pub planner: LorrPlanner,
    /// The action model. Default: [`ActionModel::Rotate`], the competition's.
    pub action_model: ActionModel,
    /// Seed of the tie-breaks. Default: 0.
    pub seed: u64,
    /// Plan on the rayon pool. Default: `true` (same run either way).
    pub parallel: bool,
    /// The time limit of a step in milliseconds (0: none). When the `pibt` planner's distance
    /// tables are not all computed by three quarters of it, the robots whose table is missing
    /// rank their moves by Manhattan distance that step (counted in
    /// [`LorrReport::fallback_plans`]); the run then depends on the machine's speed. Default:
    /// 0 (the CLI's default is 100, the target).
    pub step_ms: f64,
    /// `pibt` planner: what a step against a lane costs in the distance tables, in steps (1:
    /// no lanes; see [`super::lanes`]). Default: 2 (tasks finished at other values:
    /// `docs/performance.md`).
    pub lane_cost: u8,
    /// `pibt` planner: mebibytes of distance tables kept for goals no robot heads for now (the
    /// tables of current goals are always kept). Default: 256.
    pub table_cache_mib: usize,
    /// `sim` planner, rotate model: what a step onto a cell costs more, in
    /// [`crate::search::ACTION_COST`]ths of a step, for each other agent whose
    /// route crosses it the other way, so that routes keep to lanes. Default: 16, one step
    /// (tasks finished at other values: `docs/performance.md`).
    pub flow_weight: u32,
    /// `sim` planner, rotate model: what a step onto a cell where an agent stands costs more (same units).
    /// Without it robots route into jams, which then grow and hold the tasks finished down.
    /// Default: 16, one step.
    pub occupied_weight: u32,
    /// `sim` planner, rotate model: a robot that has not moved for this many steps is routed again (0:
    /// never). Default: 1 (the most tasks on RANDOM-01 and RANDOM-02 of 0, 1 and 2:
    /// `docs/performance.md`).
    pub reroute_after: u32,
    /// `window` planner: what a step against a lane costs in its distance tables when it uses
    /// lanes (as [`LorrConfig::lane_cost`] for `pibt`; see [`LorrConfig::window_lanes`]).
    /// Default: 2.
    pub window_lane_cost: u8,
    /// `window` planner: whether it uses lanes (`None`: chosen by the map,
    /// [`super::lanes::for_window`]: where trips outgrow the window: on the 256 x 256 city,
    /// not on the 32 x 32 random map). Without lanes it finishes more tasks on the small
    /// random map (RANDOM-01, means of seeds 0-5: 613 -> 655) and fewer on the city (CITY-01:
    /// 7,134 -> 6,027; `docs/performance.md`). Default: `None`.
    pub window_lanes: Option<bool>,
    /// `window` planner: steps in the window planned ahead. Default: 15.
    pub window_steps: usize,
    /// `window` planner: attempts of the neighbourhood search a step without a time limit, an
    /// attempt being one group of robots searched again (in rounds of up to 16 groups: 500 attempts
    /// are 32 rounds); with a time limit it searches in rounds until the step's deadline.
    /// Default: 500.
    pub window_iterations: u32,
    /// How tasks go to robots. Default: [`TaskAssignment::Reassign`].
    pub assignment: TaskAssignment,
}

impl Default for LorrConfig {
    fn default() -> Self {
        LorrConfig {
            planner: LorrPlanner::Pibt,
            action_model: ActionModel::Rotate,
            seed: 0,
            parallel: true,
            flow_weight: 16,
            occupied_weight: 16,
            reroute_after: 1,
            step_ms: 0.0,
            table_cache_mib: 256,
            lane_cost: 2,
            window_lane_cost: 2,
            window_lanes: None,
            window_steps: 15,
            window_iterations: 500,
            assignment: TaskAssignment::Reassign,
        }
    }
}

/// Figures of a run so far.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LorrReport {
    /// The planner that played.
    pub planner: LorrPlanner,
    /// How tasks went to robots.
    pub assignment: TaskAssignment,
    /// Times an unopened task went from one robot to another, or was given up for a nearer
    /// one.
    pub reassignments: u64,
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
    /// Agent moves (`F`) over the run.
    pub moves: u64,
    /// `window` planner: whether its distance tables have lanes ([`LorrConfig::window_lanes`],
    /// or the map's choice); `None` for the other planners.
    pub window_lanes: Option<bool>,
}

/// A problem being played.
#[derive(Debug)]
pub struct LorrRun {
    config: LorrConfig,
    grid: Grid,
    starts: Vec<CellId>,
    board: TaskBoard,
    planner: Box<dyn StepPlanner>,
    /// One string of action letters per step, a letter per agent.
    actions: Vec<String>,
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
    /// The process's processor time during the steps, in `/proc/self/stat` ticks (`None`
    /// where that file cannot be read).
    step_cpu_ticks: Option<u64>,
}

impl LorrRun {
    /// A run of `problem` at step 0, tasks revealed, none assigned yet.
    ///
    /// # Errors
    /// [`Error::Invalid`] for the `pibt` planner under the free action model (it plans turning
    /// robots only); the simulation's, should a start be refused (not for a loaded
    /// [`Problem`]).
    pub fn new(problem: &Problem, config: LorrConfig) -> Result<LorrRun> {
        let agents = problem.starts.len();
        let window_lanes = (config.planner == LorrPlanner::Window).then(|| {
            config
                .window_lanes
                .unwrap_or_else(|| super::lanes::for_window(&problem.grid, config.window_steps))
        });
        let planner: Box<dyn StepPlanner> = match (config.planner, config.action_model) {
            (LorrPlanner::Sim, _) => {
                Box::new(SimDriver::new(&problem.grid, &problem.starts, config)?)
            }
            (LorrPlanner::Pibt, ActionModel::Rotate) => Box::new(PibtDriver::new(
                &problem.grid,
                agents,
                config.seed,
                config.parallel,
                config.lane_cost,
                config.table_cache_mib.saturating_mul(1 << 20),
            )),
            (LorrPlanner::Window, ActionModel::Rotate) => {
                let pibt = PibtDriver::new(
                    &problem.grid,
                    agents,
                    config.seed,
                    config.parallel,
                    if window_lanes == Some(true) {
                        config.window_lane_cost
                    } else {
                        1
                    },
                    config.table_cache_mib.saturating_mul(1 << 20),
                );
                Box::new(WindowDriver::new(
                    &problem.grid,
                    agents,
                    pibt,
                    config.window_steps,
                    config.window_iterations,
                    config.seed,
                    config.parallel,
                ))
            }
            (planner @ (LorrPlanner::Pibt | LorrPlanner::Window), ActionModel::Free) => {
                return Err(Error::Invalid(format!(
                    "the {planner} planner plans turning robots (the rotate action model); use \
                     the sim planner for the free model"
                )));
            }
        };
        let board = TaskBoard::new(
            &problem.grid,
            problem.tasks.clone(),
            agents,
            problem.reveal,
            config.assignment,
        );
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
            step_cpu_ticks: Some(0),
            config,
            grid: problem.grid.clone(),
            starts: problem.starts.clone(),
            board,
            planner,
            actions: Vec::new(),
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
        let cpu0 = process_cpu_ticks();
        let t0 = Instant::now();
        let step = self.actions.len() as u64;
        // Optional work (distance tables) stops at three quarters of the limit, leaving the
        // rest of the step for planning.
        let deadline = (self.config.step_ms > 0.0)
            .then(|| t0 + Duration::from_secs_f64(self.config.step_ms * 0.75 / 1e3));
        // On the pool, the steps not checked yet (the step before) are checked on one thread
        // while this one is planned: the check is a task that the other thread takes, and then
        // it helps with the planning. On one thread they are checked after the step's time.
        let check_now = self.config.parallel
            && self.checker.error().is_none()
            && self.checker.steps() < self.actions.len();
        let base = self.checker.entries_read();
        self.unread.clear();
        if check_now {
            self.unread
                .extend_from_slice(&self.board.assignments()[base..]);
        }
        let mut letters = String::with_capacity(self.positions.len());
        let (board, changed, planner) = (&mut self.board, &mut self.changed, &mut self.planner);
        let (grid, positions, headings) = (&self.grid, &self.positions, &self.headings);
        let (checker, unread, played) = (&mut self.checker, &self.unread, &self.actions);
        let letters_out = &mut letters;
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
            planner.plan(&input, letters_out);
        };
        // An error stays in the checker until `validate`.
        let check = move || {
            let _ = checker.catch_up(played, unread, base);
        };
        if check_now {
            rayon::join(plan, check);
        } else {
            plan();
        }
        for (a, letter) in letters.chars().enumerate() {
            let dir = action_move(self.config.action_model, letter, &mut self.headings[a])
                .expect("planners write letters of the run's action model");
            if let Some(dir) = dir {
                self.positions[a] = self.grid.step(self.positions[a], dir);
                self.moves += 1;
            }
        }
        self.actions.push(letters);
        let step = self.actions.len() as u64;
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
            let _ = self
                .checker
                .catch_up(&self.actions, self.board.assignments(), 0);
        }
        self.step_cpu_ticks = match (self.step_cpu_ticks, cpu0, process_cpu_ticks()) {
            (Some(sum), Some(before), Some(after)) => Some(sum + after.saturating_sub(before)),
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
            peak_memory_mib: peak_memory_mib(),
            step_cores: self
                .step_cpu_ticks
                .filter(|_| wall_ms >= 1e3)
                .map(|ticks| ticks as f64 / CPU_TICKS_PER_SECOND / (wall_ms / 1e3)),
            errands_done: self.board.events().len() as u64,
            moves: self.moves,
            window_lanes: self.window_lanes,
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
        checker.catch_up(&self.actions, schedule, 0)?;
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
                step: self.actions.len() as u64,
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

    /// The actions so far: one string per step, a letter per agent.
    pub fn actions(&self) -> &[String] {
        &self.actions
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

/// Ticks of `/proc/self/stat`'s times per second (Linux's `USER_HZ`: 100 on x86-64 and
/// ARM64).
const CPU_TICKS_PER_SECOND: f64 = 100.0;

/// The process's user and system time so far in ticks ([`CPU_TICKS_PER_SECOND`]), `None`
/// where `/proc/self/stat` is not there.
fn process_cpu_ticks() -> Option<u64> {
    cpu_ticks_of(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

/// User plus system ticks of a `/proc/PID/stat` line.
fn cpu_ticks_of(stat: &str) -> Option<u64> {
    // The fields after the command name (in parentheses, which may hold spaces): state is
    // the first, utime the 12th, stime the 13th.
    let mut fields = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

/// The process's peak resident memory in mebibytes (`VmHWM` of `/proc/self/status`), `None`
/// where that file is not there.
fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_ticks_are_user_plus_system_after_any_command_name() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime ...
        let line = "42 (a (b) c) R 1 42 42 0 -1 4194560 900 0 3 0 1234 56 0 0 20 0 3 0";
        assert_eq!(cpu_ticks_of(line), Some(1290));
        assert_eq!(cpu_ticks_of("42 (x) R 1 2"), None);
        assert_eq!(cpu_ticks_of("no parenthesis"), None);
        // This process's own: Linux has the file.
        if cfg!(target_os = "linux") {
            assert!(process_cpu_ticks().is_some());
        }
    }
}
