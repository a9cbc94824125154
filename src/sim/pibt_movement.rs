//! The movement phase of [`ConflictMode::Pibt`]: every agent's step decided together by PIBT
//! ([`crate::mapf::Pibt`]), guided by the agents' own routes.
//!
//! # Guidance: routes, not distance fields
//! PIBT ranks each agent's candidate cells by the cost still to go from each. Two ways to know
//! it: exact distance-to-goal fields (a Dijkstra from every goal over the whole grid) or the
//! agent's planned route. Fields cost 4 bytes per cell per distinct goal: 1 MiB per agent on
//! the default 512 x 512 map (10 GiB for its 10,000 agents), 4 MiB per agent at 100,000
//! agents on 1024 x 1024, and a whole-grid Dijkstra per new goal in lifelong runs. Routes are
//! already made by the planners (A*, JPS, navigation points, D* Lite, one search per trip), so
//! they cost nothing more, and scale with the agents, not with agents x cells.
//!
//! The cost to go of a cell is read off the route near the agent: a cell of the route is worth
//! minus the route's cost from the agent to it; a cell one legal move from a route cell `r` is
//! worth `r`'s value plus that move. So the next route cell ranks first, side steps that still
//! gain ground next, staying after, and moves away last: every value is the length of a real
//! way to the goal (the step, then the route), so the agent with the highest priority always
//! makes real progress, which PIBT's guarantee rests on.
//!
//! # Pushed off the route
//! An agent pushed onto a cell off its route does not replan: its route is spliced to lead
//! back from where it stands (`sim/agent/route.rs` tells how).
//!
//! # Priorities
//! An agent's urgency counts the ticks since it last stood on its goal (reset when it arrives);
//! ties go to a fixed per-agent hash of the run seed in small crowds, and in large ones to the
//! Morton order of the agents' cells, drawn every 256 ticks, so that the pass sweeps the map
//! (`ties`). Agents at their goal therefore rank last
//! and are pushed aside by travellers; pushed off, they head back and their urgency grows. A
//! cell holding an agent at its goal is worth half a step more to others (`SETTLED_PENALTY`):
//! in one-shot runs a settled agent pushed off its goal puts its arrival back, so a traveller
//! that can still gain ground around it goes around (its effect on the sum of costs:
//! `docs/performance.md`).
//!
//! # Cost
//! Agents at their goal or without a route are not ranked unless pushed
//! ([`Candidates::stay_first`]): in a settling one-shot crowd most agents never are (the
//! movement phase's cost per tick: `docs/benchmarks.md`).
//!
//! # Determinism and threads
//! The priority keys are made and sorted, and the candidates ranked, on the pool (each
//! agent's depends only on its own record, route and cell, and on a per-tick salt); PIBT itself
//! runs on one thread in priority order, over tables of a bit per cell where it only tests
//! them (reservations, settled cells) and over the simulation's occupancy, lent; the agents'
//! moves are applied on the pool, the occupancy and events after them in slot order
//! (`Apply::all`). The same state and seed give the same step on any number of threads.

use rayon::prelude::*;

use super::action_model::{ActionModel, ForwardOnly, Heading, commitment_holds};
use super::agent::{
    AgentMut, AgentSet, AgentState, MoveCosts, PlainSteps, RANK_WINDOW, UNIT, WALK_WINDOW,
};
use super::apply::{Applied, Apply};
use super::metrics::{PhaseTimes, StableHasher};
use super::move_context::{Forced, MoveContext};
use super::movement::Clock;
use super::regions::{RegionStep, Regions};
use crate::grid::{CellId, Grid, MoveSet, NO_CELL, Neighborhood};
use crate::mapf::{Candidates, CellBits, Guidance, MAX_CANDIDATES, Pibt, rank_candidates};

/// Added to the value of a cell where an agent stands on its goal: a side step that still gains
/// ground (a diagonal around it gains 0.59 of a step) then ranks before pushing the agent off
/// its goal, which in a one-shot run would put its arrival (and the sum of costs) back to the
/// tick it returns. Less than a step, so pushing still ranks before staying.
const SETTLED_PENALTY: i64 = (0.5 * UNIT) as i64;

/// Above this many agents, candidates are ranked on the rayon pool.
const PARALLEL_RANKING: usize = 2048;

/// One slot's entries of the ordering pass: settled, goal, priority key and slot.
type SlotKeys<'a> = ((&'a mut bool, &'a mut CellId), &'a mut (u64, u32));

/// From this many agents on, PIBT's tie-breaks follow the map ([`ties`]): a crowd this large
/// no longer fits the caches, and a pass that sweeps the map reads its tables in order.
pub(crate) const SPATIAL_TIES_MIN_AGENTS: usize = 4096;

/// Ticks between two draws of tie-breaks that follow the map ([`ties`]).
pub(crate) const SPATIAL_TIES_TICKS: u64 = 256;

/// Per slot: the agent's tie-break among equal urgencies (the higher, the earlier it moves),
/// and whether it follows the map. Below [`SPATIAL_TIES_MIN_AGENTS`] agents a hash of the seed
/// and the slot, fixed for the run. From there on, by the Morton code of the cell the agent
/// stands on when they are drawn ([`Grid::morton`]; equal codes, agents sharing a cell, by
/// that hash), the lowest code first, drawn again every [`SPATIAL_TIES_TICKS`] ticks: PIBT's
/// pass then sweeps the map, and where the agents' slots follow the map too (the scenario's
/// placements store them so) it reads their records in order (crowd-100k's pass: 324 -> 241
/// ns an agent). Fixed for a while, as PIBT's progress needs (drawn every tick from the cells
/// stood on, they left 167 of the default scenario's agents short of their goals); drawn
/// again, so that no part of the map stays last (drawn once, crowd-100k's last agent arrived
/// 11% later). Not for small crowds: with one side of the map ahead of the other, two crowds
/// crossing through doorways (`sims/doors.toml`, 300 agents) cost 5% more. Figures:
/// `docs/performance.md`.
fn ties(grid: &Grid, positions: &[CellId], seed: u64) -> (Vec<u32>, bool) {
    let hash = |slot: usize| {
        let mut h = StableHasher::default();
        h.write_u64(seed);
        h.write_u64(slot as u64);
        h.finish() as u32
    };
    let live = positions.iter().filter(|&&p| p != NO_CELL).count();
    if live < SPATIAL_TIES_MIN_AGENTS {
        return ((0..positions.len()).map(hash).collect(), false);
    }
    let mut by_cell: Vec<(u64, u32, u32)> = positions
        .iter()
        .enumerate()
        .map(|(slot, &p)| {
            let code = if p == NO_CELL {
                u64::MAX
            } else {
                grid.morton(p)
            };
            (code, hash(slot), slot as u32)
        })
        .collect();
    by_cell.sort_unstable();
    let mut ties = vec![0; positions.len()];
    for (rank, &(_, _, slot)) in by_cell.iter().enumerate() {
        ties[slot as usize] = u32::MAX - rank as u32;
    }
    (ties, true)
}

/// PIBT's tie-breaks ([`ties`]) and when they were drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SpatialTies {
    /// Per slot: the tie-break (the higher, the earlier the agent moves).
    pub(crate) ties: Vec<u32>,
    /// The seed they were drawn with.
    pub(crate) seed: u64,
    /// The [`SPATIAL_TIES_TICKS`] period they were drawn in.
    pub(crate) epoch: u64,
    /// Whether they follow the map (else a hash of the seed and the slot).
    pub(crate) spatial: bool,
}

/// Scratch memory of the PIBT movement phase, reused every tick.
#[derive(Debug, Default)]
pub(crate) struct PibtMovement {
    pibt: Option<Pibt>,
    positions: Vec<CellId>,
    candidates: Vec<Candidates>,
    /// Per slot: whether its candidates rank its own cell first (read by the regions'
    /// listing, a flag a slot).
    stay_first: Vec<bool>,
    order: Vec<(u64, u32)>,
    order_slots: Vec<u32>,
    /// Per slot: listed in `order` already (scratch of the ordering).
    listed: Vec<bool>,
    next: Vec<CellId>,
    /// Per slot: whether the agent stands on its goal (state arrived) this tick.
    settled: Vec<bool>,
    /// Per slot: the agent's goal (`NO_CELL` for none), read by PIBT's swap test for every
    /// neighbour of a pushed agent: a flat copy instead of a fetch of each neighbour's record.
    goals: Vec<CellId>,
    /// Per slot: the agent's tie-break among equal urgencies ([`ties`]), with when and how
    /// they were drawn.
    ties: SpatialTies,
    /// Per slot: the agent's priority key and slot (slot `u32::MAX` for a free slot), before
    /// the live ones are sorted into `order`.
    keys: Vec<(u64, u32)>,
    /// Per cell, a bit: an agent standing on its goal stands there (see `RouteGuide`).
    settled_cells: CellBits,
    /// Per cell, a bit: the cell is some agent's goal (see `RouteGuide`).
    goal_cells: CellBits,
    /// Action model `rotate`: PIBT's step made of forward moves and turns.
    forward: ForwardOnly,
    /// [`SimConfig::regions`](super::SimConfig::regions): the crowd decided region by region.
    regions: Regions,
    /// Per slot: what applying its decision did (scratch of [`Apply::all`]).
    applied: Vec<Applied>,
}

impl PibtMovement {
    /// The tie-breaks drawn, when they follow the map (a hash otherwise: drawn again alike).
    pub(crate) fn spatial_ties(&self) -> Option<&SpatialTies> {
        self.ties.spatial.then_some(&self.ties)
    }

    /// Takes `ties` (from a snapshot) as the tie-breaks.
    pub(crate) fn set_spatial_ties(&mut self, ties: SpatialTies) {
        self.ties = ties;
    }

    /// Moves every agent one step (or not) as PIBT decides, through `apply`; returns the time
    /// of its parts.
    pub(crate) fn run(
        &mut self,
        ctx: &MoveContext,
        agents: &mut AgentSet,
        apply: &mut Apply,
    ) -> PhaseTimes {
        let mut clock = Clock::start();
        let mut times = PhaseTimes::default();
        let (grid, config) = (ctx.grid, ctx.config);
        let slots = agents.slot_count();
        let pibt = match &mut self.pibt {
            Some(p) if p.cells() == grid.len() => p,
            // The simulation's occupancy is lent to the one pass, and the regions have tables
            // of their own: no table of its own.
            _ => self.pibt.insert(Pibt::for_lent_occupancy(grid.len())),
        };
        // See `SimConfig::swap_needs_room` for when swaps need a free cell to back off into.
        pibt.set_swap_needs_room(config.swap_needs_room.unwrap_or(
            config.lifelong
                || grid.neighborhood() == Neighborhood::Eight
                || config.action_model == ActionModel::Rotate,
        ));

        // Positions and priority order.
        let rotate = config.action_model == ActionModel::Rotate;
        // Drawn again when the slots or the seed change, and every `SPATIAL_TIES_TICKS` ticks
        // where they follow the map (see `ties`).
        let epoch = ctx.tick / SPATIAL_TIES_TICKS;
        let t = &self.ties;
        if t.ties.len() != slots || t.seed != config.seed || (t.epoch != epoch && t.spatial) {
            let (ties, spatial) = ties(grid, agents.positions(), config.seed);
            self.ties = SpatialTies {
                ties,
                seed: config.seed,
                epoch,
                spatial,
            };
        }
        // The flat positions array, copied whole (a free slot's entry is `NO_CELL`).
        self.positions.clear();
        self.positions.extend_from_slice(agents.positions());
        // Action model `rotate`: agents still carrying out a move decided earlier (turning to
        // face it, or waiting for its cell) go first and keep it; one that no longer holds is
        // dropped.
        if rotate {
            for (_, mut agent) in agents.iter_mut() {
                if agent
                    .committed()
                    .is_some_and(|c| !commitment_holds(grid, agent.position(), c))
                {
                    agent.commit(None);
                }
            }
        }
        // Per slot: settled, goal and priority key (a free slot's key names no slot), read off
        // the records on the pool.
        self.settled.resize(slots, false);
        self.goals.resize(slots, NO_CELL);
        self.keys.resize(slots, (0, u32::MAX));
        let ties = &self.ties.ties;
        let key = |(slot, ((settled, goal), key)): (usize, SlotKeys)| {
            let Some(agent) = agents.at(slot as u32) else {
                (*settled, *goal, *key) = (false, NO_CELL, (0, u32::MAX));
                return;
            };
            *settled = agent.state() == AgentState::Arrived;
            *goal = agent.goal().unwrap_or(NO_CELL);
            // Key: committed (bit 63), the priority class (bits 55-62), urgency (bits 32-54,
            // capped at about 8 million ticks), the tie-break (bits 0-31).
            let committed = u64::from(rotate && agent.committed().is_some()) << 63;
            let class = u64::from(agent.priority()) << 55;
            let urgency = u64::from(agent.urgency().min((1 << 23) - 1)) << 32;
            *key = (
                committed | class | urgency | u64::from(ties[slot]),
                slot as u32,
            );
        };
        if config.parallel && slots >= PARALLEL_RANKING {
            self.settled
                .par_iter_mut()
                .zip(self.goals.par_iter_mut())
                .zip(self.keys.par_iter_mut())
                .enumerate()
                .with_min_len(1024)
                .for_each(key);
        } else {
            self.settled
                .iter_mut()
                .zip(self.goals.iter_mut())
                .zip(self.keys.iter_mut())
                .enumerate()
                .for_each(key);
        }
        // The live slots in the last tick's order, then any new ones: a tick changes few keys
        // relative to the others (every travelling agent's urgency grows alike; arrivals drop
        // to the end), so the list comes nearly sorted and an adaptive sort makes little work
        // of it.
        // (The last order lists each slot once: a slot freed since is dropped, one filled
        // again keeps its place until sorted.)
        // (On the pool for a large crowd: each key is a read of its own, scattered.)
        self.order.clear();
        let keys = &self.keys;
        let key_of = |&slot: &u32| {
            keys.get(slot as usize)
                .copied()
                .filter(|&(_, s)| s != u32::MAX)
        };
        if config.parallel && self.order_slots.len() >= PARALLEL_RANKING {
            self.order.par_extend(
                self.order_slots
                    .par_iter()
                    .with_min_len(4096)
                    .filter_map(key_of),
            );
        } else {
            self.order
                .extend(self.order_slots.iter().filter_map(key_of));
        }
        if self.order.len() < agents.len() {
            // Agents new since (or the first tick), in slot order.
            self.listed.clear();
            self.listed.resize(slots, false);
            for &(_, slot) in &self.order {
                self.listed[slot as usize] = true;
            }
            let listed = &self.listed;
            self.order.extend(
                self.keys
                    .iter()
                    .filter(|&&(_, slot)| slot != u32::MAX && !listed[slot as usize]),
            );
        }
        // Highest urgency first; equal keys (a hash collision) by slot, so the order is total
        // (the same whatever the sort and the list it starts from).
        let by_priority = |a: &(u64, u32), b: &(u64, u32)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if config.parallel && self.order.len() >= PARALLEL_RANKING {
            self.order.par_sort_by(by_priority);
        } else {
            self.order.sort_by(by_priority);
        }
        self.order_slots.clear();
        self.order_slots.extend(self.order.iter().map(|&(_, s)| s));
        times.ordering_ms = clock.lap();

        // Candidates, ranked in parallel, from the agents' route windows (decoded again on the
        // pool where a change made them stale).
        agents.refresh_windows(config.parallel);
        self.settled_cells.reset(grid.len());
        for (&settled, &cell) in self.settled.iter().zip(&self.positions) {
            if settled {
                self.settled_cells.set(cell);
            }
        }
        self.goal_cells.reset(grid.len());
        for &goal in self.goals.iter().filter(|&&g| g != NO_CELL) {
            self.goal_cells.set(goal);
        }
        let mut guide = RouteGuide::new(
            grid,
            agents,
            &self.settled_cells,
            &self.goals,
            &self.goal_cells,
        );
        guide.rotate = rotate;
        let mut h = StableHasher::default();
        h.write_u64(config.seed);
        h.write_u64(ctx.tick);
        let salt = h.finish();
        self.candidates.clear();
        self.candidates.resize(slots, Candidates::default());
        let positions = &self.positions;
        let forced = ctx.forced;
        self.stay_first.clear();
        self.stay_first.resize(slots, false);
        let rank_slot = |slot: usize, out: &mut Candidates| {
            let at = positions[slot];
            if at == NO_CELL {
                return;
            }
            // Agents at their goal or without a route rank their own cell first (their other
            // cells all cost more): PIBT ranks them only if they are pushed. The slot's route
            // window says which (not the agent's record: see `RouteGuide`).
            let window = agents.window(slot as u32);
            let travelling = window.travelling();
            let controlled = window.controlled();
            // Moves chosen from outside: that cell or staying, nothing else (see
            // `sim::control`); a controlled agent given nothing stays.
            *out = match forced.get(slot).copied().unwrap_or_default() {
                Forced::To(cell) => Candidates::fixed(&[cell, at]),
                Forced::Stay => Candidates::fixed(&[at]),
                Forced::Free if controlled => Candidates::fixed(&[at]),
                Forced::Free => Candidates::default(),
            };
            if out.is_fixed() {
                return;
            }
            let committed = if rotate {
                agents.at(slot as u32).and_then(|a| a.committed())
            } else {
                None
            };
            *out = if let (true, Some(c)) = (rotate, committed) {
                Candidates::from_cells(&[c, at])
            } else if travelling {
                rank_candidates(grid, &guide, slot as u32, at, salt)
            } else {
                Candidates::stay_first()
            };
        };
        let rank = |(slot, (out, stay_first)): (usize, (&mut Candidates, &mut bool))| {
            rank_slot(slot, out);
            *stay_first = out.is_stay_first();
        };
        if config.parallel && agents.len() >= PARALLEL_RANKING {
            self.candidates
                .par_iter_mut()
                .zip(self.stay_first.par_iter_mut())
                .enumerate()
                .with_min_len(256)
                .for_each(rank);
        } else {
            self.candidates
                .iter_mut()
                .zip(self.stay_first.iter_mut())
                .enumerate()
                .for_each(rank);
        }
        times.ranking_ms = clock.lap();

        // Region by region on the pool (see `sim::regions`), or the whole crowd in one pass.
        // Actions chosen from outside are never held at a region's border: one pass then.
        if config.regions > 0 && forced.is_empty() {
            let swaps = self.regions.decide(
                &RegionStep {
                    grid,
                    positions,
                    candidates: &self.candidates,
                    stay_first: &self.stay_first,
                    order: &self.order_slots,
                    guide: &guide,
                    salt,
                    side: config.regions,
                    tick: ctx.tick,
                    swap_needs_room: pibt.swap_needs_room(),
                    parallel: config.parallel,
                },
                &mut self.next,
            );
            apply.swapped(swaps);
        } else {
            let occupied = apply
                .occupancy_mut()
                .expect("conflicts pibt keep the occupancy")
                .table_mut();
            let next = pibt.step_occupied(
                occupied,
                grid,
                positions,
                &self.candidates,
                &self.order_slots,
                &guide,
                salt,
            );
            self.next.clear();
            self.next.extend_from_slice(next);
            apply.swapped(pibt.swaps());
        }
        if rotate {
            self.forward
                .apply(grid, &self.positions, &mut self.next, |slot| {
                    agents.at(slot).map(|a| {
                        let route_next = a.ahead().and_then(|(mut r, _)| r.nth(1));
                        (a.heading(), route_next)
                    })
                });
        }
        times.deciding_ms = clock.lap();

        // Apply: the agents on the pool, then the occupancy and the events in slot order
        // (an agent may enter the cell another leaves: see `Apply`).
        let forward = &self.forward;
        let prepare = |slot: u32, agent: &mut AgentMut| {
            if !rotate || agent.is_controlled() {
                return;
            }
            let (from, to) = (positions[slot as usize], self.next[slot as usize]);
            // Decided moves not made yet are kept.
            agent.commit(forward.commitment(slot, from, to));
            if from == to
                && let Some(want) = forward.turn(slot)
            {
                agent.turn_toward(want);
            }
        };
        apply.all(
            agents,
            positions,
            &self.next,
            prepare,
            config.parallel,
            &mut self.applied,
        );
        times.applying_ms = clock.lap();
        times
    }
}

/// The agents' routes as PIBT's guidance (see the module docs). Ranking reads an agent's route
/// from its slot's window in [`AgentSet`] (the first cells, decoded, in one flat array), and the
/// agent's record and route codes only when the window is too short for its drift, under
/// action model `rotate` (its heading), or for the longer look of PIBT's swap tests.
struct RouteGuide<'a> {
    costs: MoveCosts<'a>,
    agents: &'a AgentSet,
    /// Per cell, a bit: an agent that stands on its goal stands there (one bit a cell, so
    /// that the test for every candidate cell reads a table that stays in the cache, not the
    /// occupancy and then the agent).
    settled_cells: &'a CellBits,
    /// Per slot: the agent's goal, or `NO_CELL` (a dense copy, as `settled`).
    goals: &'a [CellId],
    /// Per cell, a bit: some agent's goal is there ([`Guidance::may_be_goal`]).
    goal_cells: &'a CellBits,
    /// Action model `rotate`: a cell off the way the agent faces costs the turns to face it.
    rotate: bool,
}

/// The most cells [`RouteGuide::along_plain`] values at once: an agent's candidates and the
/// cell its pusher takes ([`Guidance::costs_to_go`] from PIBT's stepping aside).
const ALONG_CELLS: usize = MAX_CANDIDATES + 1;

impl<'a> RouteGuide<'a> {
    fn new(
        grid: &'a Grid,
        agents: &'a AgentSet,
        settled_cells: &'a CellBits,
        goals: &'a [CellId],
        goal_cells: &'a CellBits,
    ) -> Self {
        RouteGuide {
            costs: MoveCosts::new(grid),
            agents,
            settled_cells,
            goals,
            goal_cells,
            rotate: false,
        }
    }

    /// Ticks of turning before an agent facing `heading` on `at` can step onto `cell`.
    fn turns_to(&self, heading: Heading, at: CellId, cell: CellId) -> i64 {
        Heading::toward(self.costs.grid, at, cell)
            .map_or(0, |h| i64::from(heading.quarter_turns(h)))
    }

    /// Whether an agent that has reached its goal stands on `cell`.
    fn settled(&self, cell: CellId) -> bool {
        self.settled_cells.get(cell)
    }

    /// Values of `cells` against the first `window` route cells (see the module docs);
    /// `i64::MAX` for a cell no route cell there is one move from.
    fn along(
        &self,
        route: impl Iterator<Item = CellId>,
        window: usize,
        cells: &[CellId],
        out: &mut [i64],
    ) {
        if let Some(plain) = self.costs.plain()
            && cells.len() <= ALONG_CELLS
        {
            self.along_plain(plain, route, window, cells, out);
            return;
        }
        out.fill(i64::MAX);
        let mut progress = 0i64;
        let (mut first, mut prev) = (NO_CELL, NO_CELL);
        for (j, r) in route.take(window).enumerate() {
            if j > 0 {
                progress += self.costs.cost(prev, r).unwrap_or(i64::MAX / 4);
            } else {
                first = r;
            }
            prev = r;
            for (o, &c) in out.iter_mut().zip(cells) {
                // Staying is worth nothing, even on a route that comes back past the agent:
                // otherwise the agent of highest priority could stay for good (see
                // `sim/agent/route.rs`).
                if j > 0 && c == first {
                    continue;
                }
                let value = if c == r {
                    -progress
                } else if let Some(step) = self.costs.cost(c, r) {
                    step - progress
                } else {
                    continue;
                };
                *o = (*o).min(value);
            }
        }
    }

    /// [`along`](Self::along) on a grid without cell costs at least 3 wide: the same values,
    /// with each cell's legal moves read once rather than once a route cell, the step costs
    /// from [`PlainSteps`], and the values kept in registers.
    fn along_plain(
        &self,
        plain: &PlainSteps,
        route: impl Iterator<Item = CellId>,
        window: usize,
        cells: &[CellId],
        out: &mut [i64],
    ) {
        let n = cells.len();
        let grid = self.costs.grid;
        let mut moves = [MoveSet::EMPTY; ALONG_CELLS];
        let mut best = [i64::MAX; ALONG_CELLS];
        for (m, &c) in moves.iter_mut().zip(cells) {
            if grid.contains(c) {
                *m = grid.moves(c);
            }
        }
        let mut progress = 0i64;
        let (mut first, mut prev) = (NO_CELL, NO_CELL);
        for (j, r) in route.take(window).enumerate() {
            if j > 0 {
                progress += plain
                    .step(i64::from(r) - i64::from(prev), grid.moves(prev))
                    .unwrap_or(i64::MAX / 4);
            } else {
                first = r;
            }
            prev = r;
            for k in 0..n {
                let c = cells[k];
                // As in `along`: staying is worth nothing past the route's first cell.
                if j > 0 && c == first {
                    continue;
                }
                let value = if c == r {
                    -progress
                } else if let Some(step) = plain.step(i64::from(r) - i64::from(c), moves[k]) {
                    step - progress
                } else {
                    continue;
                };
                best[k] = best[k].min(value);
            }
        }
        out.copy_from_slice(&best[..n]);
    }

    /// A straight-line estimate from `cell` to the agent's cell, for cells far from the route.
    fn far(&self, cell: CellId, at: CellId) -> i64 {
        (self.costs.grid.heuristic(cell, at) * UNIT) as i64
    }
}

impl Guidance for RouteGuide<'_> {
    fn cost_to_go(&self, agent: u32, cell: CellId) -> i64 {
        let mut out = [0i64];
        if let Some((route, drift)) = self.agents.window(agent).ahead(WALK_WINDOW) {
            // The window holds the whole route (a short one).
            self.along(
                route.iter().copied(),
                drift as usize + WALK_WINDOW,
                &[cell],
                &mut out,
            );
            return if out[0] == i64::MAX {
                self.far(cell, self.agents.positions()[agent as usize])
            } else {
                out[0]
            };
        }
        let Some(a) = self.agents.at(agent) else {
            return 0;
        };
        // The walk's window decoded at once, for all but a long drift.
        let mut buf = [NO_CELL; WALK_WINDOW + 16];
        match a.ahead_into(&mut buf, WALK_WINDOW) {
            Some((n, drift)) if drift as usize + WALK_WINDOW <= buf.len() || n < buf.len() => {
                let route = buf[..n].iter().copied();
                self.along(route, drift as usize + WALK_WINDOW, &[cell], &mut out);
                if out[0] == i64::MAX {
                    self.far(cell, a.position())
                } else {
                    out[0]
                }
            }
            Some(_) => {
                let (route, drift) = a.ahead().expect("on route");
                self.along(route, drift as usize + WALK_WINDOW, &[cell], &mut out);
                if out[0] == i64::MAX {
                    self.far(cell, a.position())
                } else {
                    out[0]
                }
            }
            None => self.far(cell, a.position()),
        }
    }

    fn is_goal(&self, agent: u32, cell: CellId) -> bool {
        cell != NO_CELL && self.goals.get(agent as usize) == Some(&cell)
    }

    fn may_be_goal(&self, cell: CellId) -> bool {
        self.goal_cells.get(cell)
    }

    fn costs_to_go(&self, agent: u32, cells: &[CellId], out: &mut [i64]) {
        let Some(&at) = self
            .agents
            .positions()
            .get(agent as usize)
            .filter(|&&p| p != NO_CELL)
        else {
            out.fill(0);
            return;
        };
        let window = self.agents.window(agent);
        if let Some((route, drift)) = window.ahead(RANK_WINDOW) {
            self.along(
                route.iter().copied(),
                drift as usize + RANK_WINDOW,
                cells,
                out,
            );
        } else if window.on_route() {
            // The window is too short for the drift: the agent's own route.
            let (route, drift) = self
                .agents
                .at(agent)
                .and_then(|a| a.ahead())
                .expect("on route");
            self.along(route, drift as usize + RANK_WINDOW, cells, out);
        } else {
            // No route (no goal, or waiting for a plan): stay unless pushed.
            for (o, &c) in out.iter_mut().zip(cells) {
                *o = self.far(c, at);
            }
            return;
        }
        for (o, &c) in out.iter_mut().zip(cells) {
            if *o == i64::MAX {
                *o = self.far(c, at);
            }
            if c != at && self.settled(c) {
                *o += SETTLED_PENALTY;
            }
        }
        if self.rotate
            && let Some(a) = self.agents.at(agent)
        {
            for (o, &c) in out.iter_mut().zip(cells) {
                *o += self.turns_to(a.heading(), at, c) * UNIT as i64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_crowds_break_ties_along_the_map_and_small_ones_by_a_hash() {
        let grid = Grid::new(128, 128).unwrap();
        // Every other cell of the map's 16,384 holds an agent, slots in reverse cell order;
        // one free slot.
        let mut positions: Vec<CellId> = (0..grid.len() as CellId).rev().step_by(2).collect();
        positions.push(NO_CELL);
        assert!(positions.len() > SPATIAL_TIES_MIN_AGENTS);
        let (drawn, spatial) = ties(&grid, &positions, 7);
        assert!(spatial);
        // Ranked by Morton code: the lower the code, the higher the tie (the earlier it moves).
        let mut by_tie: Vec<usize> = (0..positions.len() - 1).collect();
        by_tie.sort_unstable_by_key(|&s| std::cmp::Reverse(drawn[s]));
        let codes: Vec<u64> = by_tie.iter().map(|&s| grid.morton(positions[s])).collect();
        assert!(codes.is_sorted());
        assert!(
            drawn[positions.len() - 1] < drawn[by_tie[by_tie.len() - 1]],
            "free slot last"
        );
        let mut distinct = drawn.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), drawn.len());
        // A small crowd: a hash of the seed and the slot, another for another seed.
        let few = &positions[..100];
        let (small, spatial) = ties(&grid, few, 7);
        assert!(!spatial);
        assert!(!small.windows(2).all(|w| w[0] > w[1]));
        assert_ne!(small, ties(&grid, few, 8).0);
        assert_eq!(small, ties(&grid, few, 7).0);
    }
}
