//! The `window` planner of a League of Robot Runners run: every robot's path over a window of
//! the next `h` steps, made by rolling the `pibt` planner forward `h` steps and improved by
//! large neighbourhood search, of which only the first step is played (after the design of
//! WPPL, the 2023 winner: windowed PIBT with LNS; no code of it used).
//!
//! Each step:
//! 1. Two first solutions: the `pibt` planner ([`PibtDriver`]) played `h` steps ahead on copies
//!    of the robots (its state rewound afterwards), and the window of the step before moved
//!    on one step (each robot waiting at its end). The cheaper one is kept.
//! 2. Large neighbourhood search: a robot that is late (its path costs more than its distance
//!    table's estimate from where it stands) and the robots in the way of its ideal path (and
//!    theirs, up to [`GROUP`] robots) are taken out and searched again one after another in a
//!    random order by space-time A* against the rest ([`WindowSearch`]); the new paths are
//!    kept if their costs add up to less. The objective is [`path_cost`] summed over robots.
//! 3. The first action of every path is played; the window is kept for the next step.
//!
//! Without a time limit the search makes a fixed number of attempts a step
//! ([`super::LorrConfig::window_iterations`]), so runs are the same on any machine; with one
//! it stops at the step's deadline, and the rollout at half the step (the robots then wait to
//! the window's end in it). The attempts are sequential and seeded by the run's seed
//! and the step: the same actions on any thread count (the rollouts' rankings use the pool).

use std::time::Instant;

use super::driver::{PlannerFigures, StepInput, StepPlanner};
use super::pibt_driver::{PibtDriver, RESTLESS_AFTER};
use super::window_plan::{NONE, State, WindowPlan};
use super::window_search::{WindowSearch, path_cost};
use crate::grid::{CellId, Grid};
use crate::sim::{Action, Heading};

/// Most robots searched again together.
pub(crate) const GROUP: usize = 8;

/// Most states one space-time search expands.
const MAX_EXPANDED: usize = 4_000;

/// The windowed planner.
#[derive(Debug)]
pub(crate) struct WindowDriver {
    pibt: PibtDriver,
    plan: WindowPlan,
    search: WindowSearch,
    /// Attempts a step without a time limit.
    iterations: u32,
    seed: u64,
    /// Whether `plan` holds last step's window, moved on one step.
    carried: bool,
    /// Per robot: its path's cost.
    costs: Vec<u32>,
    /// The rolled-out first solution, laid out as the plan's paths.
    rollout: Vec<State>,
    positions: Vec<CellId>,
    headings: Vec<Heading>,
    stuck: Vec<u32>,
    scratch: String,
    group: Vec<u32>,
    in_group: Vec<bool>,
    saved: Vec<State>,
    found: Vec<State>,
    late: Vec<u32>,
    actions: Vec<Action>,
    attempts: u64,
    improvements: u64,
}

impl WindowDriver {
    /// The planner over `pibt` (which rolls the first solutions out), `h` steps ahead, making
    /// `iterations` attempts a step without a time limit.
    pub(crate) fn new(
        grid: &Grid,
        agents: usize,
        pibt: PibtDriver,
        h: usize,
        iterations: u32,
        seed: u64,
    ) -> WindowDriver {
        let h = h.max(1);
        WindowDriver {
            pibt,
            plan: WindowPlan::new(grid, agents, h),
            search: WindowSearch::default(),
            iterations,
            seed,
            carried: false,
            costs: vec![0; agents],
            rollout: Vec::with_capacity(agents * (h + 1)),
            positions: Vec::with_capacity(agents),
            headings: Vec::with_capacity(agents),
            stuck: Vec::with_capacity(agents),
            scratch: String::new(),
            group: Vec::with_capacity(GROUP),
            in_group: vec![false; agents],
            saved: Vec::new(),
            found: vec![
                State {
                    cell: 0,
                    heading: Heading::East
                };
                h + 1
            ],
            late: Vec::with_capacity(agents),
            actions: Vec::with_capacity(agents),
            attempts: 0,
            improvements: 0,
        }
    }

    /// Robot `a`'s distance table, when it has an errand and its table is ready.
    fn table(&self, a: usize) -> Option<&[u16]> {
        table_of(&self.pibt, a)
    }

    /// Robot `a`'s path cost in the plan.
    fn cost(&self, a: usize) -> u32 {
        path_cost(
            self.pibt.tables(),
            self.table(a),
            self.pibt.goal(a),
            self.plan.path(a),
        )
    }

    /// Plays the `pibt` planner `h` steps ahead from `input` into `self.rollout`; its first
    /// step's actions are those it plans for `input`, with table work until `deadline`. Past
    /// `stop` (a time limit's share) it plans no further step: every robot waits where the
    /// rollout got it to the window's end (a valid window all the same). Returns the fallback
    /// count after the first step (the later ones rank robots without tables by design).
    fn roll_out(
        &mut self,
        input: &StepInput,
        deadline: Option<Instant>,
        stop: Option<Instant>,
    ) -> u64 {
        let h = self.plan.steps();
        let mut fallback_plans = 0;
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
            self.scratch.clear();
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
            self.pibt.plan(&ahead, &mut self.scratch);
            if t == 0 {
                fallback_plans = self.pibt.figures().fallback_plans;
            }
            for (a, &act) in self.pibt.last_actions().iter().enumerate() {
                let heading = self.headings[a].after(act);
                if act == Action::Forward {
                    self.positions[a] = input.grid.step(self.positions[a], heading.direction());
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
        fallback_plans
    }

    /// The first solution: the rollout or the carried window, whichever costs less, in the
    /// plan and its table, with `self.costs`.
    fn first_solution(&mut self, input: &StepInput) {
        let h = self.plan.steps();
        let n = input.positions.len();
        let carried = self.carried
            && (0..n).all(|a| {
                self.plan.path(a)[0]
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
                let table = (goal != NONE).then(|| tables.get(goal)).flatten();
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
        let restless = self.stuck.iter().any(|&s| s >= RESTLESS_AFTER);
        if restless || rollout_total < carried_total {
            for a in 0..n {
                self.plan
                    .path_mut(a)
                    .copy_from_slice(&self.rollout[a * (h + 1)..(a + 1) * (h + 1)]);
            }
        }
        self.plan.clear_table();
        for a in 0..n {
            self.plan.reserve(a);
            self.costs[a] = self.cost(a);
        }
    }

    /// One attempt of the search from robot `seed`; whether it improved the plan.
    fn attempt(&mut self, grid: &Grid, seed: usize, rng: &mut u64) -> bool {
        self.gather(grid, seed);
        let h = self.plan.steps();
        let old: u64 = self
            .group
            .iter()
            .map(|&a| u64::from(self.costs[a as usize]))
            .sum();
        // Random order: shuffle the group.
        for i in (1..self.group.len()).rev() {
            let j = (next(rng) % (i as u64 + 1)) as usize;
            self.group.swap(i, j);
        }
        self.saved.clear();
        for &a in &self.group {
            self.saved.extend_from_slice(self.plan.path(a as usize));
            self.plan.unreserve(a as usize);
        }
        let mut total = 0u64;
        let mut placed = 0;
        for i in 0..self.group.len() {
            let a = self.group[i] as usize;
            let goal = self.pibt.goal(a);
            let Some(table) = table_of(&self.pibt, a) else {
                break;
            };
            let start = self.saved[i * (h + 1)];
            let found = self.search.search(
                grid,
                &self.plan,
                self.pibt.tables(),
                table,
                start,
                goal,
                MAX_EXPANDED,
                &mut self.found,
            );
            let Some(cost) = found else {
                break;
            };
            total += u64::from(cost);
            self.plan.path_mut(a).copy_from_slice(&self.found);
            self.plan.reserve(a);
            placed += 1;
            if total >= old {
                break;
            }
        }
        if placed == self.group.len() && total < old {
            for &a in &self.group {
                self.costs[a as usize] = self.cost(a as usize);
            }
            true
        } else {
            for &a in &self.group[..placed] {
                self.plan.unreserve(a as usize);
            }
            for (i, &a) in self.group.iter().enumerate() {
                self.plan
                    .path_mut(a as usize)
                    .copy_from_slice(&self.saved[i * (h + 1)..(i + 1) * (h + 1)]);
                self.plan.reserve(a as usize);
            }
            false
        }
    }

    /// The group of an attempt: `seed`, then the robots in the way of each member's ideal
    /// path (its cheapest ignoring the others), breadth first, up to [`GROUP`].
    fn gather(&mut self, grid: &Grid, seed: usize) {
        for &a in &self.group {
            self.in_group[a as usize] = false;
        }
        self.group.clear();
        self.group.push(seed as u32);
        self.in_group[seed] = true;
        let h = self.plan.steps();
        let tables = self.pibt.tables();
        let mut i = 0;
        while i < self.group.len() && self.group.len() < GROUP {
            let a = self.group[i] as usize;
            i += 1;
            let goal = self.pibt.goal(a);
            let Some(table) = table_of(&self.pibt, a) else {
                continue;
            };
            let mut s = self.plan.path(a)[0];
            for t in 0..h {
                if s.cell == goal {
                    break;
                }
                // The cheapest next state by its action and the estimate after it; a move
                // first among equals.
                let mut best = (u32::MAX, s);
                if let Some(ahead) = s.heading.ahead(grid, s.cell) {
                    let next = State {
                        cell: ahead,
                        heading: s.heading,
                    };
                    best = (
                        tables.enter_cost(ahead, s.heading)
                            + tables.actions(table, ahead, s.heading),
                        next,
                    );
                }
                for heading in [s.heading.clockwise(), s.heading.counter_clockwise()] {
                    let k = 1 + tables.actions(table, s.cell, heading);
                    if k < best.0 {
                        best = (
                            k,
                            State {
                                cell: s.cell,
                                heading,
                            },
                        );
                    }
                }
                let next = best.1;
                for b in [
                    self.plan.holder(t + 1, next.cell),
                    self.plan.holder(t, next.cell),
                ] {
                    if b != NONE
                        && !self.in_group[b as usize]
                        && self.stuck[b as usize] < RESTLESS_AFTER
                        && self.group.len() < GROUP
                        && table_of(&self.pibt, b as usize).is_some()
                    {
                        self.in_group[b as usize] = true;
                        self.group.push(b);
                    }
                }
                s = next;
            }
        }
    }
}

impl StepPlanner for WindowDriver {
    fn retarget(&mut self, input: &StepInput, changed: &[u32]) {
        self.pibt.retarget(input, changed);
    }

    fn plan(&mut self, input: &StepInput, letters: &mut String) {
        let start = Instant::now();
        // Under a time limit the rollout's first step may spend a third of the step on
        // distance tables, the rollout stops at half of it; the search gets the rest.
        let share = |part: u32| {
            input
                .deadline
                .map(|d| start + d.saturating_duration_since(start) / part)
        };
        self.pibt.mark(&mut self.stuck);
        // The fallbacks counted are those of the step played: the rollout's first step.
        let fallback = self.roll_out(input, share(3), share(2));
        self.first_solution(input);
        let n = input.positions.len();
        let mut rng = mix(self.seed ^ mix(input.step.wrapping_add(0x5eed)));
        let mut attempts = 0u32;
        loop {
            match input.deadline {
                Some(d) if Instant::now() >= d => break,
                None if attempts >= self.iterations => break,
                _ => {}
            }
            // A late robot, at random.
            self.late.clear();
            let (tables, plan, costs) = (self.pibt.tables(), &self.plan, &self.costs);
            for (a, (&cost, &stuck)) in costs.iter().zip(&self.stuck).enumerate().take(n) {
                let goal = self.pibt.goal(a);
                let Some(table) = (goal != NONE).then(|| tables.get(goal)).flatten() else {
                    continue;
                };
                let s = plan.path(a)[0];
                if cost > tables.actions(table, s.cell, s.heading) && stuck < RESTLESS_AFTER {
                    self.late.push(a as u32);
                }
            }
            if self.late.is_empty() {
                break;
            }
            // Several attempts per list of late robots.
            for _ in 0..16 {
                match input.deadline {
                    Some(d) if Instant::now() >= d => break,
                    None if attempts >= self.iterations => break,
                    _ => {}
                }
                attempts += 1;
                let seed = self.late[(next(&mut rng) % self.late.len() as u64) as usize];
                if self.attempt(input.grid, seed as usize, &mut rng) {
                    self.improvements += 1;
                }
            }
        }
        self.attempts += u64::from(attempts);
        self.actions.clear();
        for a in 0..n {
            let p = self.plan.path(a);
            self.actions.push(p[0].action_to(p[1]));
        }
        letters.extend(self.actions.iter().map(|a| a.letter()));
        self.pibt.rewind(&self.stuck, fallback, &self.actions);
        self.plan.shift();
        self.carried = true;
    }

    fn moved(&mut self, input: &StepInput, changed: &mut Vec<u32>) {
        self.pibt.moved(input, changed);
    }

    fn distances(&self) -> Option<&super::distance::DistanceTables> {
        Some(self.pibt.tables())
    }

    fn figures(&self) -> PlannerFigures {
        self.pibt.figures()
    }
}

/// Robot `a`'s distance table in `pibt`, when it has an errand and its table is ready.
fn table_of(pibt: &PibtDriver, a: usize) -> Option<&[u16]> {
    let goal = pibt.goal(a);
    (goal != NONE).then(|| pibt.tables().get(goal)).flatten()
}

/// The next number of a SplitMix64 sequence.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    mix(*state)
}

/// SplitMix64's finaliser.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
