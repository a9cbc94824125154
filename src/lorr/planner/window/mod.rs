//! The `window` planner of a League of Robot Runners run: every robot's path over a window of
//! the next `h` steps, made by rolling the `pibt` planner forward `h` steps and improved by
//! large neighbourhood search, of which only the first step is played (after the design of
//! WPPL, the 2023 winner: windowed PIBT with LNS; no code of it used).
//!
//! Each step:
//! 1. Two first solutions: the `pibt` planner ([`PibtPlanner`]) played `h` steps ahead on copies
//!    of the robots (its state rewound afterwards), and the window of the step before moved
//!    on one step (each robot waiting at its end). The cheaper one is kept.
//! 2. Large neighbourhood search (`super::lns`): groups of a late robot (its path costs
//!    more than its distance table's estimate from where it stands) and the robots in the way
//!    of its ideal path are taken out and searched again by space-time A* against the rest;
//!    their new paths are kept if their costs add up to less. The objective is [`path_cost`]
//!    summed over robots. The groups go in rounds of several, searched on every thread.
//! 3. The first action of every path is played; the window is kept for the next step.
//!
//! Without a time limit the search makes a fixed number of attempts a step
//! ([`WindowConfig::iterations`]), so runs are the same on any machine; with one
//! it stops at the step's deadline, and the rollout at half the step (the robots then wait to
//! the window's end in it). The groups are seeded by the run's seed and the step and merged
//! in a fixed order: the same actions on any thread count.

mod lns;
mod reservation;
mod search;

use std::time::Instant;

use super::guidance::GuidanceConfig;
use super::pibt::{PibtMark, PibtPlanner, RESTLESS_AFTER};
use super::{PlannerFigures, StepInput, StepPlanner};
use crate::grid::NO_CELL;
use crate::grid::{CellId, Grid};
use crate::hash::mix64;
use crate::lorr::action::LorrAction;
use crate::sim::Heading;
use lns::{Lns, LnsInput, ROUND, table_of};
use reservation::{ReservationTable, State};
use search::path_cost;

/// The `window` planner's settings ([`crate::lorr::LorrConfig::window`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowConfig {
    /// Steps in the window planned ahead. Default: 15.
    pub steps: usize,
    /// Attempts of the neighbourhood search a step without a time limit, an attempt being one
    /// group of robots searched again (in rounds of up to 16 groups: 500 attempts are 32
    /// rounds); with a time limit it searches in rounds until the step's deadline. Default:
    /// 500.
    pub iterations: u32,
    /// Whether its distance tables have lanes (`None`: chosen by the map,
    /// [`crate::lorr::lanes::for_window`]: where trips outgrow the window, as on the 256 x 256
    /// city and not on the 32 x 32 random map; the tasks finished either way are in
    /// `docs/performance.md`). Default: `None`.
    pub lanes: Option<bool>,
    /// What a step against a lane costs in its distance tables when it has lanes (as
    /// [`crate::lorr::PibtConfig::lane_cost`]). Default: 2.
    pub lane_cost: u8,
}

impl Default for WindowConfig {
    fn default() -> Self {
        WindowConfig {
            steps: 15,
            iterations: 500,
            lanes: None,
            lane_cost: 2,
        }
    }
}

/// The windowed planner.
#[derive(Debug)]
pub(crate) struct WindowPlanner {
    pibt: PibtPlanner,
    /// Whether its distance tables have lanes.
    lanes: bool,
    reserved: ReservationTable,
    lns: Lns,
    /// Whether the search may use every thread of the pool (the same actions either way).
    parallel: bool,
    /// Attempts a step without a time limit.
    iterations: u32,
    seed: u64,
    /// Whether `reserved` holds last step's window, moved on one step.
    carried: bool,
    /// Per robot: its path's cost.
    costs: Vec<u32>,
    /// The rolled-out first solution, laid out as the table's paths.
    rollout: Vec<State>,
    positions: Vec<CellId>,
    headings: Vec<Heading>,
    /// The `pibt` planner's state before the rollout (its robots' steps without a move).
    mark: PibtMark,
    /// The actions of a step of the rollout.
    step_actions: Vec<LorrAction>,
    attempts: u64,
    improvements: u64,
}

impl WindowPlanner {
    /// The planner of `agents` robots on `grid`, rolling out a `pibt` planner (unreferenced
    /// distance tables cached up to `cache_bytes`), searching on every thread of the pool when
    /// `parallel`.
    pub(crate) fn new(
        grid: &Grid,
        agents: usize,
        config: WindowConfig,
        seed: u64,
        parallel: bool,
        cache_bytes: usize,
    ) -> WindowPlanner {
        let h = config.steps.max(1);
        let lanes = config
            .lanes
            .unwrap_or_else(|| crate::lorr::lanes::for_window(grid, config.steps));
        let lane_cost = if lanes { config.lane_cost } else { 1 };
        WindowPlanner {
            // Without commitments: a robot bound for a cell would keep it in the rollouts
            // whatever path the search gives it (fewer tasks: docs/performance.md).
            pibt: PibtPlanner::new(grid, agents, seed, parallel, lane_cost, cache_bytes, false),
            lanes,
            reserved: ReservationTable::new(grid, agents, h),
            lns: Lns::default(),
            parallel,
            iterations: config.iterations,
            seed,
            carried: false,
            costs: vec![0; agents],
            rollout: Vec::with_capacity(agents * (h + 1)),
            positions: Vec::with_capacity(agents),
            headings: Vec::with_capacity(agents),
            mark: PibtMark::default(),
            step_actions: Vec::with_capacity(agents),
            attempts: 0,
            improvements: 0,
        }
    }

    /// Whether its distance tables have lanes.
    pub(crate) fn lanes(&self) -> bool {
        self.lanes
    }

    /// Guides its tables around crowds under `config` (`super::guidance`), updated before each
    /// step's rollout.
    pub(crate) fn guide(&mut self, grid: &Grid, config: GuidanceConfig) {
        self.pibt.guide(grid, config, false);
    }

    /// Robot `a`'s distance table, when it has an errand and its table is ready.
    fn table(&self, a: usize) -> Option<&[u16]> {
        table_of(&self.pibt, a)
    }

    /// Robot `a`'s path cost in the table.
    fn cost(&self, a: usize) -> u32 {
        path_cost(
            self.pibt.tables(),
            self.table(a),
            self.pibt.goal(a),
            self.reserved.path(a),
        )
    }

    /// Plays the `pibt` planner `h` steps ahead from `input` into `self.rollout`; its first
    /// step's actions are those it plans for `input`, with table work until `deadline`. Past
    /// `stop` (a time limit's share) it plans no further step: every robot waits where the
    /// rollout got it to the window's end (a valid window all the same). Its first step is
    /// noted in the mark (its fallbacks counted; the later steps rank robots without tables by
    /// design).
    fn roll_out(&mut self, input: &StepInput, deadline: Option<Instant>, stop: Option<Instant>) {
        let h = self.reserved.steps();
        let n = input.positions.len();
        self.positions.clear();
        self.positions.extend_from_slice(input.positions);
        self.headings.clear();
        self.headings.extend_from_slice(input.headings);
        self.rollout.clear();
        self.rollout.resize(
            n * (h + 1),
            State {
                cell: 0,
                heading: Heading::East,
            },
        );
        for a in 0..n {
            self.rollout[a * (h + 1)] = State {
                cell: self.positions[a],
                heading: self.headings[a],
            };
        }
        for t in 0..h {
            let ahead = StepInput {
                grid: input.grid,
                step: input.step + t as u64,
                positions: &self.positions,
                headings: &self.headings,
                board: input.board,
                // Past the first step: no table work.
                deadline: if t == 0 {
                    deadline
                } else {
                    Some(Instant::now())
                },
            };
            self.pibt.plan(&ahead, &mut self.step_actions);
            if t == 0 {
                self.pibt.note_first(&mut self.mark, &self.step_actions);
            }
            for (a, &act) in self.step_actions.iter().enumerate() {
                let heading = act.after(self.headings[a]);
                if let Some(dir) = act.moves(heading) {
                    self.positions[a] = input.grid.step(self.positions[a], dir);
                }
                self.headings[a] = heading;
                self.rollout[a * (h + 1) + t + 1] = State {
                    cell: self.positions[a],
                    heading,
                };
            }
            if t + 1 < h && stop.is_some_and(|s| Instant::now() >= s) {
                for path in self.rollout.chunks_exact_mut(h + 1) {
                    let last = path[t + 1];
                    path[t + 2..].fill(last);
                }
                break;
            }
        }
    }

    /// The first solution: the rollout or the carried window, whichever costs less, in the
    /// reservation table, with `self.costs`.
    fn first_solution(&mut self, input: &StepInput) {
        let h = self.reserved.steps();
        let n = input.positions.len();
        let carried = self.carried
            && (0..n).all(|a| {
                self.reserved.path(a)[0]
                    == State {
                        cell: input.positions[a],
                        heading: input.headings[a],
                    }
            });
        let mut carried_total = u64::MAX;
        if carried {
            carried_total = (0..n).map(|a| u64::from(self.cost(a))).sum();
        }
        let (tables, rollout) = (self.pibt.tables(), &self.rollout);
        let rollout_total: u64 = (0..n)
            .map(|a| {
                let goal = self.pibt.goal(a);
                let table = (goal != NO_CELL).then(|| tables.get(goal)).flatten();
                u64::from(path_cost(
                    tables,
                    table,
                    goal,
                    &rollout[a * (h + 1)..(a + 1) * (h + 1)],
                ))
            })
            .sum();
        // A robot stuck for long moves as the rollout has it (PIBT's way out of a jam, which
        // the search, counting only this window, would undo).
        let restless = self.mark.stuck.iter().any(|&s| s >= RESTLESS_AFTER);
        if restless || rollout_total < carried_total {
            for a in 0..n {
                self.reserved
                    .path_mut(a)
                    .copy_from_slice(&self.rollout[a * (h + 1)..(a + 1) * (h + 1)]);
            }
        }
        self.reserved.clear_table();
        for a in 0..n {
            self.reserved.reserve(a);
            self.costs[a] = self.cost(a);
        }
    }
}

impl StepPlanner for WindowPlanner {
    fn retarget(&mut self, input: &StepInput, changed: &[u32]) {
        self.pibt.retarget(input, changed);
    }

    fn plan(&mut self, input: &StepInput, actions: &mut Vec<LorrAction>) {
        let start = Instant::now();
        // Under a time limit the rollout's first step may spend a third of the step on
        // distance tables, the rollout stops at half of it; the search gets the rest.
        let share = |part: u32| {
            input
                .deadline
                .map(|d| start + d.saturating_duration_since(start) / part)
        };
        self.pibt.update_guidance(input.step, input.positions);
        self.pibt.mark(&mut self.mark);
        // The fallbacks counted are those of the step played: the rollout's first step.
        self.roll_out(input, share(3), share(2));
        self.first_solution(input);
        let n = input.positions.len();
        let mut rng = mix64(self.seed ^ mix64(input.step.wrapping_add(0x5eed)));
        let threads = if self.parallel {
            rayon::current_num_threads()
        } else {
            1
        };
        let (iterations, deadline) = (u64::from(self.iterations), input.deadline);
        let figures = self.lns.run(
            &LnsInput {
                grid: input.grid,
                pibt: &self.pibt,
                stuck: &self.mark.stuck,
            },
            &mut self.reserved,
            &mut self.costs,
            &mut rng,
            threads,
            |attempts| match deadline {
                Some(d) => (Instant::now() < d).then_some(ROUND),
                None => (attempts < iterations).then(|| (iterations - attempts) as usize),
            },
        );
        self.attempts += figures.attempts;
        self.improvements += figures.improvements;
        actions.clear();
        actions.extend((0..n).map(|a| {
            let p = self.reserved.path(a);
            p[0].action_to(p[1])
        }));
        self.pibt.rewind(&self.mark, actions);
        self.reserved.shift();
        self.carried = true;
    }

    fn moved(&mut self, input: &StepInput, changed: &mut Vec<u32>) {
        self.pibt.moved(input, changed);
    }

    fn distances(&self) -> Option<&crate::lorr::distance::DistanceTables> {
        Some(self.pibt.tables())
    }

    fn figures(&self) -> PlannerFigures {
        self.pibt.figures()
    }
}
