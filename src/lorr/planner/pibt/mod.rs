//! The `pibt` planner of a League of Robot Runners run: no route searches; each step, every
//! robot ranks its cell and its neighbours by the steps (moves and turns) left to its next
//! errand, read from the distance table of that errand ([`DistanceTables`], computed once per
//! errand cell and shared), and [`RotatePibt`] turns the rankings into valid actions.
//!
//! Priorities: robots with a task before those without; then robots that would move before
//! those that would turn (a turning robot holds a cell it does not enter this step); then the
//! longest since its errand last changed first (PIBT's rule, which lets every robot reach its
//! errand in time); ties by a hash of the seed and the robot. A robot whose table is not ready
//! by the step's deadline ranks by Manhattan distance (a fallback, counted).
//!
//! Both cores: the missing tables, the rankings and the priority keys are computed on the
//! rayon pool (they read only shared state, so the same on any thread count); under a time
//! limit the other thread computes ahead the tables of the robots' next errands while one runs
//! the PIBT pass.
//!
//! On a dense floor (more robots than [`crate::lorr::WINDOW_MAX_DENSITY`] of the free cells)
//! from the first step, elsewhere once the floor jams ([`JAMMED_SHARE`] of the robots at once
//! gone [`RESTLESS_AFTER`] steps without a move), a robot bound for a neighbour that it does
//! not enter this step (it turns toward it, or waits for the robot there to leave) keeps that
//! cell, held for it before the next steps' passes, until it gets there (as the start kit's
//! default planner keeps its "previous decision"): replanned every step, robots on a full
//! floor turned toward one cell, then another, and never moved (61 tasks instead of 723 with
//! 800 robots on 819 free cells). Not on a sparse floor before it jams: on free-flowing floors
//! robots that replan every step go round each other (warehouse_large_5000: 93,937 tasks,
//! 70,780 with commitments from the start).
//!
//! The tables cost a step against a crisscross lane ([`crate::lorr::lanes`]) more (more still
//! on a map of rooms joined by corridors, [`PibtConfig::lane_cost_for`]), so that robots going
//! opposite ways keep to different corridors. Robots that turn cannot always make
//! room in one step and dense crowds lock up: a robot that has not moved for
//! [`RESTLESS_AFTER`] steps ranks its neighbours at random until it moves. A robot without a
//! task ranks its moves by [`Parking`] where the map has busy errand cells (out of their way).
//! The figures behind these choices are in `docs/performance.md` (League of Robot Runners).

mod rotate;

use rayon::prelude::*;

use super::guidance::{Guidance, GuidanceConfig};
use super::{PlannerFigures, StepInput, StepPlanner};
use crate::grid::{CellId, Grid, NO_CELL};
use crate::hash::splitmix64_first;
use crate::lorr::action::LorrAction;
use crate::lorr::distance::DistanceTables;
use crate::lorr::parking::Parking;
use crate::sim::Heading;
use rotate::{RankedCells, Robots, RotatePibt};

/// Steps without a move after which a robot ranks its moves at random (see the module docs):
/// sooner, random moves push robots waiting in long queues out of line; later, dense crowds
/// stay locked longer (`docs/performance.md`).
pub(crate) const RESTLESS_AFTER: u32 = 30;

/// The share of the robots that, gone [`RESTLESS_AFTER`] steps without a move at once, makes
/// the `pibt` planner's robots keep the cells they are bound for from then on (module docs).
pub(crate) const JAMMED_SHARE: f64 = 0.05;

/// Whether `agents` robots fill more than [`crate::lorr::WINDOW_MAX_DENSITY`] of `grid`'s free
/// cells: there the `pibt` planner's robots keep the cells they are bound for from the first
/// step (module docs; 500 robots on the 819 free cells of the 32 x 32 random map finished
/// 1,161 tasks in 500 steps so, against 1,099 once the floor jammed, `docs/performance.md`).
fn dense(grid: &Grid, agents: usize) -> bool {
    agents as f64 > crate::lorr::WINDOW_MAX_DENSITY * grid.walkable_count() as f64
}

/// The bits of a priority key that hold the robot's id.
const AGENT_MASK: u128 = (1 << 30) - 1;

/// Robots per task when the rankings are spread over the rayon pool.
const RANK_CHUNK: usize = 256;

/// The `pibt` planner's settings ([`crate::lorr::LorrConfig::pibt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PibtConfig {
    /// What a step against a lane costs in the distance tables, in steps (1: no lanes; see
    /// [`crate::lorr::lanes`]). Default: `None`, chosen for the map when the run starts
    /// ([`PibtConfig::lane_cost_for`]; the report's `pibt_lane_cost` says which).
    pub lane_cost: Option<u8>,
    /// Whether the planner plays a map of rooms joined by corridors as such: a robot ranks
    /// its moves by what the step itself costs against a lane too (not only by the steps
    /// after it; with a lane cost of 1 there is nothing to count), and under
    /// [`crate::lorr::TaskAssignment::Reassign`] (the default) at most
    /// [`CORRIDOR_MAP_SHARE_OF_FREE`] of the free cells' worth of robots hold tasks at once
    /// (the report's `holders_cap`). Default: `None`, chosen for the map when the run starts
    /// ([`PibtConfig::corridor_rules_for`]; the report's `pibt_corridor_rules` says which).
    pub corridor_rules: Option<bool>,
}

/// Under [`PibtConfig::corridor_rules`], at most this share of the free cells' worth of robots
/// hold tasks at once (a task freed goes to an idle robot as under any cap). The corridors'
/// throughput is what it is; more robots on errands only fill them: brc202d at 6,500 robots
/// (5,000 steps, no time limit) finished 14,738 tasks with every robot on errands, 16,319 with
/// this cap (4,316 robots); the rooms of `tests/lorr_guidance.rs` at 3,000 robots 3,360 and
/// 4,501 in 1,000 steps. Lower caps finished more on brc202d (2,500 robots: 17,759) but fewer
/// on the rooms at 1,000 robots (400: 3,113 against 3,693), where a tenth is best of those
/// tried (`docs/performance.md`).
pub const CORRIDOR_MAP_SHARE_OF_FREE: f64 = 0.1;

/// What a step against a lane costs in the `pibt` planner's tables on a map with ways around
/// its crowds ([`PibtConfig::lane_cost_for`]; tasks finished at other values:
/// `docs/performance.md`).
pub const PIBT_LANE_COST: u8 = 2;

/// What a step against a lane costs in the `pibt` planner's tables on a map of rooms joined by
/// corridors ([`PibtConfig::lane_cost_for`]): where a crowd has no way around, the lanes are
/// what keeps opposite streams apart in the corridors. brc202d, 4,000 robots, 1,000 steps,
/// unguided: 3,660 tasks at 2, 3,832 at 3, 3,986 at 4; 6,500 robots, 2,000 steps: 6,388 / 6,769
/// / 7,041 (`docs/performance.md`).
pub const PIBT_CORRIDOR_LANE_COST: u8 = 4;

impl PibtConfig {
    /// The lane cost of a map where `ways_around` of the trips have a way around a crowd
    /// ([`crate::lorr::ways_around`]): [`PIBT_CORRIDOR_LANE_COST`] below
    /// [`crate::lorr::MIN_WAYS_AROUND`], else [`PIBT_LANE_COST`].
    ///
    /// ```
    /// use throng::lorr::{PIBT_CORRIDOR_LANE_COST, PIBT_LANE_COST, PibtConfig};
    ///
    /// assert_eq!(PibtConfig::lane_cost_for(0.97), PIBT_LANE_COST);
    /// assert_eq!(PibtConfig::lane_cost_for(0.34), PIBT_CORRIDOR_LANE_COST);
    /// ```
    pub fn lane_cost_for(ways_around: f64) -> u8 {
        if PibtConfig::corridor_rules_for(ways_around) {
            PIBT_CORRIDOR_LANE_COST
        } else {
            PIBT_LANE_COST
        }
    }

    /// Whether a map where `ways_around` of the trips have a way around a crowd
    /// ([`crate::lorr::ways_around`]) is played by the corridor rules
    /// ([`PibtConfig::corridor_rules`]): below [`crate::lorr::MIN_WAYS_AROUND`].
    ///
    /// ```
    /// use throng::lorr::PibtConfig;
    ///
    /// assert!(!PibtConfig::corridor_rules_for(0.97));
    /// assert!(PibtConfig::corridor_rules_for(0.34));
    /// ```
    pub fn corridor_rules_for(ways_around: f64) -> bool {
        ways_around < crate::lorr::MIN_WAYS_AROUND
    }

    /// The most robots that hold tasks at once under the corridor rules on a map of
    /// `free_cells` free cells: [`CORRIDOR_MAP_SHARE_OF_FREE`] of them, rounded up.
    ///
    /// ```
    /// use throng::lorr::PibtConfig;
    ///
    /// assert_eq!(PibtConfig::corridor_holders(43_151), 4_316); // brc202d
    /// ```
    pub fn corridor_holders(free_cells: usize) -> usize {
        (CORRIDOR_MAP_SHARE_OF_FREE * free_cells as f64).ceil() as usize
    }
}

/// What planning a step changes in a [`PibtPlanner`], saved by [`PibtPlanner::mark`] before
/// steps planned ahead.
#[derive(Debug, Default)]
pub(crate) struct PibtMark {
    /// Per robot: steps since it last moved, at the mark.
    pub stuck: Vec<u32>,
    jammed: bool,
    first: Vec<LorrAction>,
    first_committed: Vec<CellId>,
    first_fallback_plans: u64,
}

/// The PIBT-with-rotations planner.
#[derive(Debug)]
pub(crate) struct PibtPlanner {
    tables: DistanceTables,
    pibt: RotatePibt,
    /// Per robot: the errand it heads for (counted in `tables`), or `u32::MAX`.
    goal: Vec<CellId>,
    /// Per robot: steps since its errand changed.
    elapsed: Vec<u32>,
    /// Per robot: steps since it last moved.
    stuck: Vec<u32>,
    /// Per robot: its fixed tie-break among equal priorities.
    tiebreak: Vec<u64>,
    /// Per robot: its priority key ([`PibtPlanner::priority`]); sorted, the planning order.
    keys: Vec<u128>,
    order: Vec<u32>,
    candidates: Vec<RankedCells>,
    /// Per cell: whether a robot stands on it (during a step's ranking).
    occupied: Vec<bool>,
    /// The errands robots head for next (scratch of [`DistanceTables::compute_ahead`]).
    upcoming: Vec<CellId>,
    /// The robots' errands whose tables were computed with older step costs (with guidance).
    stale: Vec<CellId>,
    seed: u64,
    parallel: bool,
    fallback_plans: u64,
    /// Per robot: the cell it turns toward, held for it until it gets there, or `NO_CELL`.
    committed: Vec<CellId>,
    /// Whether robots may keep the cells they are bound for (`committed`), once the floor
    /// jams (`jammed`).
    commit: bool,
    /// Whether the floor is dense ([`dense`]) or has jammed in this run: [`JAMMED_SHARE`] of
    /// the robots went [`RESTLESS_AFTER`] steps without a move at once (from then on robots
    /// keep their cells).
    jammed: bool,
    /// The congestion guidance of its tables, if any ([`PibtPlanner::guide`]).
    guidance: Option<Guidance>,
    /// Where robots without a task wait, if anywhere in particular ([`PibtPlanner::park`]).
    parking: Option<Parking>,
    /// Whether [`StepPlanner::plan`] updates the guidance (else the caller does, with
    /// [`PibtPlanner::update_guidance`]).
    guide_in_plan: bool,
    /// Per cell, what entering it moving each way costs against its lane, as in its tables
    /// before any guidance ([`crate::lorr::lanes::crisscross`]); empty without lanes.
    lanes: Vec<[u8; 4]>,
    /// Whether a robot's ranking counts what its step costs against its lane
    /// ([`PibtPlanner::count_lane_steps`]).
    lane_steps: bool,
}

impl PibtPlanner {
    /// The planner for `agents` robots on `grid`, a step against a lane costing `lane_cost`
    /// ([`crate::lorr::lanes`]; 1: no lanes), unreferenced tables cached up to `cache_bytes`;
    /// with `commit`, a robot keeps the cell it is bound for until it gets there (module
    /// docs).
    pub(crate) fn new(
        grid: &Grid,
        agents: usize,
        seed: u64,
        parallel: bool,
        lane_cost: u8,
        cache_bytes: usize,
        commit: bool,
    ) -> PibtPlanner {
        assert!(
            agents <= AGENT_MASK as usize + 1,
            "a priority key holds robot ids below 2^30"
        );
        let lanes = if lane_cost > 1 {
            crate::lorr::lanes::crisscross(grid, lane_cost)
        } else {
            Vec::new()
        };
        PibtPlanner {
            tables: DistanceTables::new(
                grid,
                (!lanes.is_empty()).then_some(&lanes[..]),
                cache_bytes,
            ),
            pibt: RotatePibt::new(true),
            goal: vec![NO_CELL; agents],
            elapsed: vec![0; agents],
            stuck: vec![0; agents],
            tiebreak: (0..agents as u64)
                .map(|a| splitmix64_first(seed ^ splitmix64_first(a)))
                .collect(),
            keys: vec![0; agents],
            order: (0..agents as u32).collect(),
            candidates: vec![RankedCells::default(); agents],
            occupied: vec![false; grid.len()],
            upcoming: Vec::new(),
            stale: Vec::new(),
            seed,
            parallel,
            fallback_plans: 0,
            committed: vec![NO_CELL; agents],
            commit,
            jammed: commit && dense(grid, agents),
            guidance: None,
            guide_in_plan: false,
            parking: None,
            lanes,
            lane_steps: false,
        }
    }

    /// Makes each robot rank a move by what the step costs against its lane too (the lane
    /// cost of its tables, [`crate::lorr::lanes`]), not only by the steps left after it:
    /// without it a robot whose table-cheaper cell lies against its lane steps there as
    /// readily as along it, and a crowd at a corridor's mouth spreads over every lane (the
    /// corridor rules, [`PibtConfig::corridor_rules`]). Nothing to count without lanes.
    pub(crate) fn count_lane_steps(&mut self) {
        self.lane_steps = true;
    }

    /// Guides its tables around crowds under `config` (`super::guidance`), over the lanes of
    /// [`PibtPlanner::new`]; updated by each step's plan when `in_plan`, else by
    /// [`PibtPlanner::update_guidance`] (a planner that plans steps ahead).
    pub(crate) fn guide(&mut self, grid: &Grid, config: GuidanceConfig, in_plan: bool) {
        let lanes = (!self.lanes.is_empty()).then_some(&self.lanes[..]);
        self.guidance = Some(Guidance::new(grid, lanes, config));
        self.guide_in_plan = in_plan;
    }

    /// Sends its robots without a task out of the ring around busy errand cells
    /// ([`Parking`]).
    pub(crate) fn park(&mut self, parking: Parking) {
        self.parking = Some(parking);
    }

    /// Updates the guidance, if any, for the robots at `positions` at `step`.
    pub(crate) fn update_guidance(&mut self, step: u64, positions: &[CellId]) {
        if let Some(guidance) = self.guidance.as_mut() {
            guidance.update(step, positions, &mut self.tables);
        }
    }

    /// Brings the robots' goals (and the tables' reference counts) up to the board's targets.
    fn sync_goals(&mut self, input: &StepInput) {
        for a in 0..self.goal.len() {
            let want = input.board.target(a as u32).unwrap_or(NO_CELL);
            if want == self.goal[a] {
                continue;
            }
            if self.goal[a] != NO_CELL {
                self.tables.release(self.goal[a], input.step);
            }
            if want != NO_CELL {
                self.tables.acquire(want, input.step);
            }
            self.goal[a] = want;
            self.elapsed[a] = 0;
        }
    }

    /// The shared distance tables.
    pub(crate) fn tables(&self) -> &DistanceTables {
        &self.tables
    }

    /// Robot `a`'s errand cell, `u32::MAX` for none.
    pub(crate) fn goal(&self, a: usize) -> CellId {
        self.goal[a]
    }

    /// Copies what planning a step changes into `mark`, so that steps planned ahead (not
    /// played) can be undone with [`PibtPlanner::rewind`].
    pub(crate) fn mark(&self, mark: &mut PibtMark) {
        mark.stuck.clear();
        mark.stuck.extend_from_slice(&self.stuck);
        mark.jammed = self.jammed;
    }

    /// Notes in `mark` the first step planned ahead, `planned`: the cells it left robots
    /// bound for and its fallback count, kept by [`PibtPlanner::rewind`] where it is played.
    pub(crate) fn note_first(&self, mark: &mut PibtMark, planned: &[LorrAction]) {
        mark.first.clear();
        mark.first.extend_from_slice(planned);
        mark.first_committed.clear();
        mark.first_committed.extend_from_slice(&self.committed);
        mark.first_fallback_plans = self.fallback_plans;
    }

    /// Back to `mark`, then the step `played` counted as played: a robot that plays the
    /// first step planned ahead keeps the cell that step left it bound for.
    pub(crate) fn rewind(&mut self, mark: &PibtMark, played: &[LorrAction]) {
        self.stuck.copy_from_slice(&mark.stuck);
        self.jammed = mark.jammed;
        self.fallback_plans = mark.first_fallback_plans;
        for (a, c) in self.committed.iter_mut().enumerate() {
            *c = if mark.first.get(a) == played.get(a) {
                mark.first_committed[a]
            } else {
                NO_CELL
            };
        }
        self.count_moves(played);
    }

    /// Each robot's steps without a move after it plays `played`.
    fn count_moves(&mut self, played: &[LorrAction]) {
        let mut restless = 0;
        for (stuck, &act) in self.stuck.iter_mut().zip(played) {
            *stuck = if act == LorrAction::Forward {
                0
            } else {
                *stuck + 1
            };
            restless += usize::from(*stuck >= RESTLESS_AFTER);
        }
        self.jammed |= restless as f64 >= JAMMED_SHARE * self.stuck.len() as f64;
    }

    /// Robot `a`'s ranked candidate cells.
    fn rank(&self, grid: &Grid, step: u64, a: usize, at: CellId, heading: Heading) -> RankedCells {
        let goal = self.goal[a];
        let table = (goal != NO_CELL).then(|| self.tables.get(goal)).flatten();
        // Steps left from `cell` facing `h`.
        let left = |cell: CellId, h: Heading| -> u64 {
            match table {
                Some(t) => u64::from(self.tables.actions(t, cell, h)),
                None if goal != NO_CELL => {
                    u64::from(self.tables.free_cells().manhattan(cell, goal))
                }
                None => self.parking.as_ref().map_or(0, |p| u64::from(p.cost(cell))),
            }
        };
        let noise =
            splitmix64_first(self.seed ^ splitmix64_first(step ^ splitmix64_first(a as u64)));
        let mut pairs = [(0u64, 0 as CellId); 5];
        let mut len = 0;
        // Staying costs the step; ties go to a move. A robot stuck for long moves anywhere.
        let restless = self.stuck[a] >= RESTLESS_AFTER;
        let stay = if restless {
            1 << 20
        } else if goal == NO_CELL {
            match left(at, heading) {
                0 => 0,
                park => 1 + park,
            }
        } else {
            1 + left(at, heading)
        };
        pairs[len] = ((stay << 4) | 1 << 3, at);
        len += 1;
        for d in Heading::ALL {
            let Some(c) = d.ahead(grid, at) else {
                continue;
            };
            let cost = if restless {
                (noise >> (8 + 8 * d.index())) & 0xff
            } else {
                // The step itself: 1, or its lane's cost where the ranking counts it (a robot
                // with a table: parked robots go anywhere).
                let step = match self.lanes.get(c as usize) {
                    Some(enter) if self.lane_steps && table.is_some() => {
                        u64::from(enter[d.index()])
                    }
                    _ => 1,
                };
                u64::from(heading.quarter_turns(d)) + step + left(c, d)
            };
            let occupied = u64::from(self.occupied[c as usize]);
            let tie = (noise >> (2 * d.index())) & 3;
            pairs[len] = ((cost << 4) | occupied << 2 | tie, c);
            len += 1;
        }
        RankedCells::ranked(&mut pairs[..len])
    }

    /// Robot `a`'s priority key, ranked `c`: lower plans first. From the top bit down: no goal,
    /// turning (its first choice beside or behind it), `u32::MAX` less the steps since its
    /// errand changed, its tie-break, its id ([`AGENT_MASK`]): every key distinct.
    fn priority(&self, input: &StepInput, a: usize, c: &RankedCells) -> u128 {
        let at = input.positions[a];
        let turning = c.cells().first().is_some_and(|&first| {
            first != at && input.headings[a].ahead(input.grid, at) != Some(first)
        });
        u128::from(self.goal[a] == NO_CELL) << 127
            | u128::from(turning) << 126
            | u128::from(u32::MAX - self.elapsed[a]) << 94
            | u128::from(self.tiebreak[a]) << 30
            | a as u128
    }
}

impl StepPlanner for PibtPlanner {
    fn retarget(&mut self, _input: &StepInput, _changed: &[u32]) {}

    fn plan(&mut self, input: &StepInput, actions: &mut Vec<LorrAction>) {
        self.sync_goals(input);
        if self.guide_in_plan {
            self.update_guidance(input.step, input.positions);
        }
        self.tables.fill(input.deadline, self.parallel);
        let grid = input.grid;
        for &p in input.positions {
            self.occupied[p as usize] = true;
        }
        // Under a time limit, with every table of this step ready, the tables of the errands
        // robots head for next are computed ahead beside the PIBT pass (below).
        let ahead_until = input
            .deadline
            .filter(|&d| self.tables.pending() == 0 && std::time::Instant::now() < d);
        // With guidance, the tables of the robots' errands computed with older step costs are
        // computed again after those (without a time limit: a fixed number a step).
        let mut stale = std::mem::take(&mut self.stale);
        stale.clear();
        if let Some(guidance) = self.guidance.as_ref().filter(|_| self.guide_in_plan) {
            match input.deadline {
                None => {
                    self.tables.stale(&mut stale);
                    stale.truncate(guidance.refresh());
                }
                Some(_) if ahead_until.is_some() => self.tables.stale(&mut stale),
                Some(_) => {}
            }
        }
        let mut batch = (ahead_until.is_some() || !stale.is_empty()).then(|| self.tables.batch());
        let mut candidates = std::mem::take(&mut self.candidates);
        let mut keys = std::mem::take(&mut self.keys);
        let mut order = std::mem::take(&mut self.order);
        let mut pibt = std::mem::take(&mut self.pibt);
        let mut upcoming = std::mem::take(&mut self.upcoming);
        let (this, parallel) = (&*self, self.parallel);
        // Each robot's ranking and priority read only shared state: on the pool, the same on
        // any count.
        {
            let rank = |(a, (c, key)): (usize, (&mut RankedCells, &mut u128))| {
                *c = this.rank(grid, input.step, a, input.positions[a], input.headings[a]);
                *key = this.priority(input, a, c);
            };
            if parallel {
                candidates
                    .par_iter_mut()
                    .zip(keys.par_iter_mut())
                    .enumerate()
                    .with_min_len(RANK_CHUNK)
                    .for_each(rank);
                keys.par_sort_unstable();
            } else {
                candidates
                    .iter_mut()
                    .zip(keys.iter_mut())
                    .enumerate()
                    .for_each(rank);
                keys.sort_unstable();
            }
            for (slot, &key) in order.iter_mut().zip(&keys) {
                *slot = (key & AGENT_MASK) as u32;
            }
        }
        // Then the PIBT pass in priority order, on one thread.
        let mut plan = || {
            pibt.plan(
                grid,
                Robots {
                    positions: input.positions,
                    headings: input.headings,
                    committed: &this.committed,
                },
                &candidates,
                &order,
                actions,
            );
        };
        // Beside the PIBT pass: the robots planned without their table (not ready by the
        // deadline) counted, and the tables of the errands robots head for after their current
        // one computed ahead, in the order of their cells (then on both threads, until the
        // deadline or the last table).
        let mut ahead = || {
            let fallbacks = this
                .goal
                .iter()
                .filter(|&&g| g != NO_CELL && this.tables.get(g).is_none())
                .count() as u64;
            if let Some(batch) = batch.as_mut() {
                upcoming.clear();
                if ahead_until.is_some() {
                    upcoming.extend(
                        (0..input.positions.len() as u32)
                            .filter_map(|a| input.board.next_target(a)),
                    );
                    upcoming.sort_unstable();
                    upcoming.dedup();
                    upcoming.retain(|&g| this.tables.lacks(g));
                }
                upcoming.extend_from_slice(&stale);
                this.tables
                    .compute_again(batch, &upcoming, ahead_until, parallel);
            }
            fallbacks
        };
        let fallbacks = if parallel {
            rayon::join(plan, ahead).1
        } else {
            plan();
            ahead()
        };
        self.fallback_plans += fallbacks;
        self.candidates = candidates;
        self.keys = keys;
        self.order = order;
        self.pibt = pibt;
        self.upcoming = upcoming;
        self.stale = stale;
        if let Some(batch) = batch {
            self.tables.keep(batch, input.step);
        }
        for &p in input.positions {
            self.occupied[p as usize] = false;
        }
        // A robot bound for a neighbour that it did not enter (turning toward it, or waiting
        // for the robot there to leave) keeps that cell for the steps after.
        for (a, (&act, c)) in actions.iter().zip(&mut self.committed).enumerate() {
            let next = self.pibt.next_cell(a);
            *c = if !(self.commit && self.jammed)
                || act == LorrAction::Forward
                || next == input.positions[a]
            {
                NO_CELL
            } else {
                next
            };
        }
        self.count_moves(actions);
    }

    fn moved(&mut self, _input: &StepInput, _changed: &mut Vec<u32>) {
        for e in &mut self.elapsed {
            *e = e.saturating_add(1);
        }
    }

    fn distances(&self) -> Option<&DistanceTables> {
        Some(&self.tables)
    }

    fn figures(&self) -> PlannerFigures {
        PlannerFigures {
            fallback_plans: self.fallback_plans,
            tables_computed: self.tables.computed(),
            table_peak_bytes: self.tables.peak_bytes() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first choice of a robot at (1, 1) facing east on a 16 x 4 open floor, bound for
    /// `goal`, with and without the step's lane cost ranked.
    fn first_choice(grid: &Grid, goal: CellId, count_lane_steps: bool) -> CellId {
        let mut planner =
            PibtPlanner::new(grid, 1, 0, false, PIBT_CORRIDOR_LANE_COST, 1 << 20, true);
        if count_lane_steps {
            planner.count_lane_steps();
        }
        planner.goal[0] = goal;
        planner.tables.acquire(goal, 0);
        planner.tables.fill(None, false);
        let at = grid.cell(1, 1).unwrap();
        planner.rank(grid, 0, 0, at, Heading::East).cells()[0]
    }

    #[test]
    fn the_corridor_rules_rank_a_step_against_its_lane_at_the_lane_cost() {
        let grid = Grid::from_ascii(&vec![".".repeat(16); 4].join("\n")).unwrap();
        let lanes = crate::lorr::lanes::crisscross(&grid, PIBT_CORRIDOR_LANE_COST);
        let at = grid.cell(1, 1).unwrap();
        // The lane cost of the step from `at` to its neighbour `c` (1 for staying).
        let step = |c: CellId| {
            Heading::ALL
                .into_iter()
                .find(|h| h.ahead(&grid, at) == Some(c))
                .map_or(1, |h| lanes[c as usize][h.index()])
        };
        let mut turned_away = 0;
        for goal in (0..grid.len() as CellId).filter(|&g| g != at) {
            let (plain, counted) = (
                first_choice(&grid, goal, false),
                first_choice(&grid, goal, true),
            );
            // Counting a step's lane cost only ever makes steps against a lane less
            // attractive: none is chosen that was not chosen without it.
            if step(counted) > 1 {
                assert_eq!(counted, plain, "goal {:?}", grid.coords(goal));
            }
            turned_away += usize::from(step(plain) > 1 && step(counted) == 1);
        }
        // Ranked at 1, a step against the lane looks as cheap as one along it wherever the
        // table is cheaper from the cell it leads to; ranked at its cost, some robots keep to
        // their lanes instead.
        assert!(turned_away > 0);
    }
}
