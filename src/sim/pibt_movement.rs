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
//! An agent pushed onto a cell off its route does not replan. Its route is spliced: the new
//! cell is written just before the best route cell it is one move from (the cells skipped are
//! dropped), so the route again starts where the agent stands and leads back. The spliced
//! cells ahead are counted as the agent's drift; pushed further away, the splice grows, and
//! coming back consumes it. Only when the drift passes [`SimConfig::drift_replan`] cells (an
//! agent driven back a long way, whose old route may no longer be the best way) does it ask
//! for a new plan, from where it stands, as [`PlanReason::Drifted`].
//!
//! # Priorities
//! An agent's urgency counts the ticks since it last stood on its goal (reset when it arrives);
//! ties go to a fixed per-agent hash of the run seed. Agents at their goal therefore rank last
//! and are pushed aside by travellers; pushed off, they head back and their urgency grows. A
//! cell holding an agent at its goal is worth half a step more to others (`SETTLED_PENALTY`):
//! in one-shot runs a settled agent pushed off its goal puts its arrival back, so a traveller
//! that can still gain ground around it goes around (default scenario: sum of costs 3.29 M
//! without the penalty, 2.83 M with it).
//!
//! # Cost
//! Agents at their goal or without a route are not ranked unless pushed
//! ([`Candidates::stay_first`]): in a settling one-shot crowd most agents never are (the
//! movement phase's cost per tick: `docs/benchmarks.md`).
//!
//! # Determinism and threads
//! Candidates are ranked in parallel (each agent's ranking depends only on its own route and
//! cell, and on a per-tick salt); PIBT itself runs on one thread in priority order. The same
//! state and seed give the same step on any number of threads.

use rayon::prelude::*;

use super::action_model::{ActionModel, Heading};
use super::agent::{Agent, AgentSet, AgentState, PlanReason};
use super::config::SimConfig;
use super::control::{self, Forced};
use super::metrics::StableHasher;
use super::movement::MovementTotals;
use super::occupancy::Occupancy;
use crate::grid::{CellId, Direction, Grid, Neighborhood};
use crate::mapf::{Candidates, Guidance, NO_AGENT, NO_CELL, Pibt, rank_candidates};

/// Fixed-point unit of route costs: one straight step on a cell of cost 1.
const UNIT: f64 = 65536.0;

/// Route cells past the spliced ones that candidate ranking looks at: a neighbour of the
/// agent's cell is at most two moves from the route cell three ahead.
const RANK_WINDOW: usize = 4;

/// Route cells the swap test's corridor walks look at (cells farther on get a straight-line
/// estimate).
const WALK_WINDOW: usize = 48;

/// Added to the value of a cell where an agent stands on its goal: a side step that still gains
/// ground (a diagonal around it gains 0.59 of a step) then ranks before pushing the agent off
/// its goal, which in a one-shot run would put its arrival (and the sum of costs) back to the
/// tick it returns. Less than a step, so pushing still ranks before staying.
const SETTLED_PENALTY: i64 = (0.5 * UNIT) as i64;

/// Above this many agents, candidates are ranked on the rayon pool.
const PARALLEL_RANKING: usize = 2048;

/// Scratch memory of the PIBT movement phase, reused every tick.
#[derive(Debug, Default)]
pub(crate) struct PibtMovement {
    pibt: Option<Pibt>,
    positions: Vec<CellId>,
    candidates: Vec<Candidates>,
    order: Vec<(u64, u32)>,
    order_slots: Vec<u32>,
    next: Vec<CellId>,
    /// Per slot: whether the agent stands on its goal (state arrived) this tick.
    settled: Vec<bool>,
    /// Per slot: the agent's fixed tie-break among equal urgencies, and the seed they were
    /// drawn from.
    ties: Vec<u32>,
    ties_seed: u64,
    /// Action model `rotate`: per slot, the cell PIBT sent the agent to this tick.
    intent: Vec<CellId>,
    /// Action model `rotate`: per slot, the heading an agent that stays turns toward.
    turns: Vec<Option<Heading>>,
    /// Action model `rotate`: per cell, the agent PIBT sends onto it ([`NO_AGENT`] for none).
    entering: Vec<u32>,
    /// Action model `rotate`: agents that stay, whose cells are not free to enter.
    work: Vec<u32>,
}

impl PibtMovement {
    /// Moves every agent one step (or not) as PIBT decides; `tick` is the tick being played.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        grid: &Grid,
        agents: &mut AgentSet,
        occupancy: &mut Occupancy,
        config: &SimConfig,
        tick: u64,
        forced: &[Forced],
        arrivals: &mut Vec<u32>,
    ) -> MovementTotals {
        let mut totals = MovementTotals::default();
        let slots = agents.slot_count();
        let pibt = match &mut self.pibt {
            Some(p) if p.cells() == grid.len() => p,
            _ => self.pibt.insert(Pibt::new(grid.len())),
        };
        // See `SimConfig::swap_needs_room` for when swaps need a free cell to back off into.
        pibt.set_swap_needs_room(config.swap_needs_room.unwrap_or(
            config.lifelong
                || grid.neighborhood() == Neighborhood::Eight
                || config.action_model == ActionModel::Rotate,
        ));

        // Positions and priority order.
        let rotate = config.action_model == ActionModel::Rotate;
        if self.ties.len() != slots || self.ties_seed != config.seed {
            self.ties_seed = config.seed;
            self.ties = (0..slots as u64)
                .map(|slot| {
                    let mut h = StableHasher::default();
                    h.write_u64(config.seed);
                    h.write_u64(slot);
                    h.finish() as u32
                })
                .collect();
        }
        // The flat positions array, copied whole (a free slot's entry is `NO_CELL`).
        debug_assert_eq!(AgentSet::NO_POSITION, NO_CELL);
        self.positions.clear();
        self.positions.extend_from_slice(agents.positions());
        self.settled.clear();
        self.settled.resize(slots, false);
        self.order.clear();
        for (slot, agent) in agents.iter_mut() {
            self.settled[slot as usize] = agent.state == AgentState::Arrived;
            let tie = self.ties[slot as usize];
            // Action model `rotate`: agents still carrying out a move decided earlier (turning
            // to face it, or waiting for its cell) go first and keep it (see `forward_only`).
            if rotate
                && agent.committed.is_some_and(|c| {
                    c == agent.position || Heading::toward(grid, agent.position, c).is_none()
                })
            {
                agent.committed = None;
            }
            let committed = u64::from(rotate && agent.committed.is_some()) << 63;
            let urgency = u64::from(agent.urgency.min(u32::MAX >> 1)) << 32;
            self.order
                .push((committed | urgency | u64::from(tie), slot));
        }
        // Highest urgency first; equal keys (a hash collision) by slot, so the order is total.
        self.order
            .sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.order_slots.clear();
        self.order_slots.extend(self.order.iter().map(|&(_, s)| s));

        // Candidates, ranked in parallel.
        let mut guide = RouteGuide::new(grid, agents, occupancy, &self.settled);
        guide.rotate = rotate;
        let mut h = StableHasher::default();
        h.write_u64(config.seed);
        h.write_u64(tick);
        let salt = h.finish();
        self.candidates.clear();
        self.candidates.resize(slots, Candidates::default());
        let positions = &self.positions;
        let rank = |(slot, out): (usize, &mut Candidates)| {
            let at = positions[slot];
            if at == NO_CELL {
                return;
            }
            // Agents at their goal or without a route rank their own cell first (their other
            // cells all cost more): PIBT ranks them only if they are pushed.
            let travelling = agents
                .at(slot as u32)
                .is_some_and(|a| a.state != AgentState::Arrived && RouteGuide::route(a).is_some());
            let committed = agents.at(slot as u32).and_then(|a| a.committed);
            let controlled = agents.at(slot as u32).is_some_and(|a| a.controlled);
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
            *out = if let (true, Some(c)) = (rotate, committed) {
                Candidates::from_cells(&[c, at])
            } else if travelling {
                rank_candidates(grid, &guide, slot as u32, at, salt)
            } else {
                Candidates::stay_first()
            };
        };
        if config.parallel && agents.len() >= PARALLEL_RANKING {
            self.candidates
                .par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .for_each(rank);
        } else {
            self.candidates.iter_mut().enumerate().for_each(rank);
        }

        let next = pibt.step(
            grid,
            positions,
            &self.candidates,
            &self.order_slots,
            &guide,
            salt,
        );
        self.next.clear();
        self.next.extend_from_slice(next);
        totals.swaps = pibt.swaps();
        if rotate {
            self.intent.clear();
            self.intent.extend_from_slice(&self.next);
            self.turns.clear();
            self.turns.resize(slots, None);
            forward_only(
                grid,
                agents,
                occupancy,
                &self.positions,
                &mut self.next,
                &mut self.turns,
                &mut self.entering,
                &mut self.work,
            );
        }

        // Apply: free every cell left, then take every cell entered (an agent may enter the
        // cell another leaves).
        for (slot, (&from, &to)) in self.positions.iter().zip(&self.next).enumerate() {
            if from != NO_CELL && from != to {
                debug_assert_eq!(occupancy.agent_at(from), Some(slot as u32));
                occupancy.clear(from);
            }
        }
        for (slot, (&from, &to)) in self.positions.iter().zip(&self.next).enumerate() {
            if from != NO_CELL && from != to {
                occupancy.set(to, slot as u32);
            }
        }
        for (slot, agent) in agents.iter_mut() {
            let (from, to) = (self.positions[slot as usize], self.next[slot as usize]);
            if agent.controlled {
                if from != to {
                    control::move_controlled(agent, to, tick, slot, &mut totals, arrivals);
                }
                control::settle_controlled(agent, from != to);
                if agent.state == AgentState::Waiting {
                    totals.waiting += 1;
                }
                if agent.state == AgentState::Arrived || agent.goal.is_none() {
                    agent.urgency = 0;
                } else {
                    agent.urgency = agent.urgency.saturating_add(1);
                }
                continue;
            }
            if rotate {
                // Decided moves not made yet are kept (see `forward_only`).
                let intent = self.intent[slot as usize];
                agent.committed = (from == to && intent != from).then_some(intent);
            }
            if from == to {
                if let Some(want) = self.turns.get(slot as usize).copied().flatten() {
                    agent.heading = agent.heading.after(agent.heading.turn_toward(want));
                }
                if agent.next_cell().is_some() {
                    agent.state = AgentState::Waiting;
                    agent.waited += 1;
                    totals.waiting += 1;
                }
            } else {
                move_agent(grid, agent, to, tick, slot, &mut totals, arrivals);
                if agent.drift > config.drift_replan && agent.plan_request.is_none() {
                    agent.plan_request = Some((PlanReason::Drifted, tick));
                }
            }
            if agent.state == AgentState::Arrived || agent.goal.is_none() {
                agent.urgency = 0;
            } else {
                agent.urgency = agent.urgency.saturating_add(1);
            }
        }
        for (slot, (&from, &to)) in self.positions.iter().zip(&self.next).enumerate() {
            if from != NO_CELL && from != to {
                agents.sync_position(slot as u32);
            }
        }
        totals
    }
}

/// Action model `rotate`: turns PIBT's joint step into forward moves and turns. An agent sent
/// to the cell it faces moves there; one sent elsewhere stays and turns toward that cell (so
/// it can go next tick if PIBT still wants it there); one sent nowhere turns toward its
/// route's next cell. An agent whose target is the cell of an agent that stays must stay too,
/// and so on back along the chain: the cells entered are all left in the same tick, so no two
/// agents meet. `turns` gets the heading of each staying agent that turns.
#[allow(clippy::too_many_arguments)]
fn forward_only(
    grid: &Grid,
    agents: &AgentSet,
    occupancy: &Occupancy,
    positions: &[CellId],
    next: &mut [CellId],
    turns: &mut [Option<Heading>],
    entering: &mut Vec<u32>,
    work: &mut Vec<u32>,
) {
    if entering.len() != grid.len() {
        entering.clear();
        entering.resize(grid.len(), NO_AGENT);
    }
    work.clear();
    for (slot, (&from, to)) in positions.iter().zip(next.iter_mut()).enumerate() {
        if from == NO_CELL {
            continue;
        }
        let Some(agent) = agents.at(slot as u32) else {
            continue;
        };
        if *to == from {
            turns[slot] = RouteGuide::route(agent)
                .and_then(|(route, _)| route.get(1).copied())
                .and_then(|n| Heading::toward(grid, from, n));
            work.push(slot as u32);
        } else if agent.heading.ahead(grid, from) == Some(*to) {
            entering[*to as usize] = slot as u32;
        } else {
            turns[slot] = Heading::toward(grid, from, *to);
            *to = from;
            work.push(slot as u32);
        }
    }
    // Agents that stay hold their cells: whoever meant to enter one stays too.
    while let Some(stayer) = work.pop() {
        let cell = positions[stayer as usize];
        let behind = std::mem::replace(&mut entering[cell as usize], NO_AGENT);
        if behind != NO_AGENT && next[behind as usize] == cell {
            next[behind as usize] = positions[behind as usize];
            work.push(behind);
        }
    }
    // Clear the table for the next tick.
    for (slot, &to) in next.iter().enumerate() {
        if to != NO_CELL && to != positions[slot] {
            entering[to as usize] = NO_AGENT;
        }
    }
    let _ = occupancy;
}

/// Moves `agent` to the neighbouring cell `to` and keeps its route leading from where it
/// stands (see the module docs). The caller updates [`AgentSet::positions`].
pub(crate) fn move_agent(
    grid: &Grid,
    agent: &mut Agent,
    to: CellId,
    tick: u64,
    slot: u32,
    totals: &mut MovementTotals,
    arrivals: &mut Vec<u32>,
) {
    let from = agent.position;
    agent.position = to;
    agent.moves += 1;
    agent.waited = 0;
    totals.moved += 1;
    let has_route = matches!(
        agent.state,
        AgentState::Moving | AgentState::Waiting | AgentState::Arrived
    ) && agent.path.get(agent.cursor) == Some(&from);
    if !has_route {
        return; // pushed while it has no route (no goal, or waiting for a plan)
    }
    if agent.goal == Some(to) {
        // Pushed onto its goal from off the stretch of route it looks at (a spliced route can
        // lead back a long way round): the trip is over.
        agent.path.clear();
        agent.path.push(to);
        agent.cursor = 0;
        agent.drift = 0;
        arrive(agent, tick, slot, totals, arrivals);
        return;
    }
    let cursor = agent.cursor;
    let end = (cursor + agent.drift as usize + RANK_WINDOW).min(agent.path.len());
    // The cell itself is looked for farther on than the splice below looks: a route spliced
    // several times can come back past the agent (a detour round a block to a cell next to
    // it), and splicing `to` in before such a loop would leave the agent on a route through
    // its own cell again, which then ranks staying put as progress (RANDOM-01 of the League
    // of Robot Runners froze whole after 1,200 steps that way).
    let far_end = (cursor + agent.drift as usize + WALK_WINDOW).min(agent.path.len());
    if let Some(ahead) = agent.path[cursor + 1..far_end]
        .iter()
        .position(|&c| c == to)
    {
        let j = cursor + 1 + ahead;
        agent.drift = agent.drift.saturating_sub((j - cursor) as u32);
        agent.cursor = j;
    } else {
        // Off the route: splice `to` in before the best route cell it is one move from.
        let guide = MoveCosts::new(grid);
        let mut best = (i64::MAX, cursor);
        let mut progress = 0i64;
        for j in cursor..end {
            if j > cursor {
                progress += guide
                    .cost(agent.path[j - 1], agent.path[j])
                    .unwrap_or(i64::MAX / 4);
            }
            if let Some(c) = guide.cost(to, agent.path[j]) {
                let value = c - progress;
                if value < best.0 {
                    best = (value, j);
                }
            }
        }
        let j = best.1;
        let spliced_left = (cursor + agent.drift as usize).saturating_sub(j) as u32;
        if j >= 1 {
            agent.path[j - 1] = to;
            agent.cursor = j - 1;
        } else {
            agent.path.insert(0, to);
            agent.cursor = 0;
        }
        agent.drift = 1 + spliced_left;
        if agent.state == AgentState::Arrived {
            // Pushed off its goal (one-shot runs): it goes back, and its trip is not over.
            agent.arrived_at = None;
            agent.left_goal = true;
        }
        agent.state = AgentState::Moving;
        return;
    }
    if agent.cursor + 1 == agent.path.len() {
        arrive(agent, tick, slot, totals, arrivals);
    } else {
        agent.state = AgentState::Moving;
    }
}

/// Marks `agent`, which stepped onto its goal during `tick`, as arrived (a goal it had reached
/// and was moved off counts once).
pub(crate) fn arrive(
    agent: &mut Agent,
    tick: u64,
    slot: u32,
    totals: &mut MovementTotals,
    arrivals: &mut Vec<u32>,
) {
    agent.state = AgentState::Arrived;
    agent.arrived_at = Some(tick + 1);
    if std::mem::take(&mut agent.left_goal) {
        return; // back on a goal it had reached: not a new goal
    }
    agent.goals_reached += 1;
    totals.arrived += 1;
    arrivals.push(slot);
}

/// The move to each of the eight cells around a cell, by row (north to south) and column.
const DIRECTIONS: [[Option<Direction>; 3]; 3] = {
    use Direction::*;
    [
        [Some(NorthWest), Some(North), Some(NorthEast)],
        [Some(West), None, Some(East)],
        [Some(SouthWest), Some(South), Some(SouthEast)],
    ]
};

/// Costs of single legal moves, in fixed-point units.
#[derive(Clone, Copy)]
struct MoveCosts<'a> {
    grid: &'a Grid,
    offsets: [i64; 8],
}

impl<'a> MoveCosts<'a> {
    fn new(grid: &'a Grid) -> Self {
        MoveCosts {
            grid,
            offsets: grid.move_offsets(),
        }
    }

    /// The cost of the legal move `a -> b`, or `None` when `b` is not one legal move from `a`.
    #[inline]
    fn cost(&self, a: CellId, b: CellId) -> Option<i64> {
        let delta = i64::from(b) - i64::from(a);
        let width = i64::from(self.grid.width());
        let dir = if width >= 3 {
            // Row of `b` relative to `a` from the size of the jump (unambiguous when the grid
            // is at least 3 wide), then the column.
            let (dy, dx) = if delta < -1 {
                (0, delta + width)
            } else if delta > 1 {
                (2, delta - width)
            } else {
                (1, delta)
            };
            if !(-1..=1).contains(&dx) {
                return None;
            }
            DIRECTIONS[dy][(dx + 1) as usize]?
        } else {
            self.grid
                .moves(a)
                .iter()
                .find(|d| self.offsets[d.index()] == delta)?
        };
        self.grid
            .moves(a)
            .contains(dir)
            .then(|| (self.grid.step_cost(dir, b) * UNIT) as i64)
    }
}

/// The agents' routes as PIBT's guidance (see the module docs).
struct RouteGuide<'a> {
    costs: MoveCosts<'a>,
    agents: &'a AgentSet,
    occupancy: &'a Occupancy,
    /// Per slot: whether the agent stands on its goal (a dense copy, so that the test for
    /// every candidate cell does not fetch the whole agent).
    settled: &'a [bool],
    /// Action model `rotate`: a cell off the way the agent faces costs the turns to face it.
    rotate: bool,
}

impl<'a> RouteGuide<'a> {
    fn new(
        grid: &'a Grid,
        agents: &'a AgentSet,
        occupancy: &'a Occupancy,
        settled: &'a [bool],
    ) -> Self {
        RouteGuide {
            costs: MoveCosts::new(grid),
            agents,
            occupancy,
            settled,
            rotate: false,
        }
    }

    /// Ticks of turning before an agent facing `heading` on `at` can step onto `cell`.
    fn turns_to(&self, heading: Heading, at: CellId, cell: CellId) -> i64 {
        match Heading::toward(self.costs.grid, at, cell) {
            Some(h) => match (h.index() + 4 - heading.index()) % 4 {
                0 => 0,
                2 => 2,
                _ => 1,
            },
            None => 0,
        }
    }

    /// Whether an agent that has reached its goal stands on `cell`.
    fn settled(&self, cell: CellId) -> bool {
        self.occupancy
            .agent_at(cell)
            .is_some_and(|slot| self.settled.get(slot as usize) == Some(&true))
    }

    /// The agent's route from its cell, with its drift, when it follows one.
    fn route(agent: &Agent) -> Option<(&[CellId], u32)> {
        matches!(
            agent.state,
            AgentState::Moving | AgentState::Waiting | AgentState::Arrived
        )
        .then(|| agent.path.get(agent.cursor..))
        .flatten()
        .filter(|rest| rest.first() == Some(&agent.position))
        .map(|rest| (rest, agent.drift))
    }

    /// Values of `cells` against the first `window` route cells (see the module docs);
    /// `i64::MAX` for a cell no route cell there is one move from.
    fn along(&self, route: &[CellId], window: usize, cells: &[CellId], out: &mut [i64]) {
        out.fill(i64::MAX);
        let mut progress = 0i64;
        for (j, &r) in route.iter().take(window).enumerate() {
            if j > 0 {
                progress += self.costs.cost(route[j - 1], r).unwrap_or(i64::MAX / 4);
            }
            for (o, &c) in out.iter_mut().zip(cells) {
                // Staying is worth nothing, even on a route that comes back past the agent:
                // otherwise the agent of highest priority could stay for good (see
                // `move_agent`).
                if j > 0 && c == route[0] {
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

    /// A straight-line estimate from `cell` to the agent's cell, for cells far from the route.
    fn far(&self, cell: CellId, at: CellId) -> i64 {
        (self.costs.grid.heuristic(cell, at) * UNIT) as i64
    }
}

impl Guidance for RouteGuide<'_> {
    fn cost_to_go(&self, agent: u32, cell: CellId) -> i64 {
        let mut out = [0i64];
        let Some(a) = self.agents.at(agent) else {
            return 0;
        };
        match Self::route(a) {
            Some((route, drift)) => {
                self.along(route, drift as usize + WALK_WINDOW, &[cell], &mut out);
                if out[0] == i64::MAX {
                    self.far(cell, a.position)
                } else {
                    out[0]
                }
            }
            None => self.far(cell, a.position),
        }
    }

    fn is_goal(&self, agent: u32, cell: CellId) -> bool {
        self.agents.at(agent).is_some_and(|a| a.goal == Some(cell))
    }

    fn costs_to_go(&self, agent: u32, cells: &[CellId], out: &mut [i64]) {
        let Some(a) = self.agents.at(agent) else {
            out.fill(0);
            return;
        };
        match Self::route(a) {
            Some((route, drift)) => {
                self.along(route, drift as usize + RANK_WINDOW, cells, out);
                for (o, &c) in out.iter_mut().zip(cells) {
                    if *o == i64::MAX {
                        *o = self.far(c, a.position);
                    }
                    if c != a.position && self.settled(c) {
                        *o += SETTLED_PENALTY;
                    }
                    if self.rotate {
                        *o += self.turns_to(a.heading, a.position, c) * UNIT as i64;
                    }
                }
            }
            // No route (no goal, or waiting for a plan): stay unless pushed.
            None => {
                for (o, &c) in out.iter_mut().zip(cells) {
                    *o = self.far(c, a.position);
                }
            }
        }
    }
}
