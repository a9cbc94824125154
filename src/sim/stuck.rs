//! Completeness of PIBT runs: agents left circling or locked are detected and handed to LaCAM.
//!
//! PIBT reaches every goal on biconnected maps, but in one-cell aisles (dead ends) a few agents
//! can push each other back and forth for good. [`StuckResolution`] watches for it and resolves
//! it:
//!
//! - **Detection**, once per tick over flat per-slot arrays: each unfinished agent's best (least)
//!   count of route cells left to its goal since it was given that goal. The crowd makes
//!   progress in a tick when a goal is reached for the first time (a counted arrival), agents,
//!   goals or the map change (the agents are then not measured: in a settling crowd most ticks
//!   cost nothing), or an agent beats its best. Bests only go down and goals reached are
//!   finite, so a crowd that circles stops making progress; after [`STUCK_WINDOW`] ticks
//!   without any, it is stuck. (A
//!   crowd-wide rule: a busy crowd with a stuck group is caught once the rest has arrived or is
//!   stuck too, and the shipped scenarios that PIBT finishes never trigger it.)
//! - **Resolution**: every live agent goes to LaCAM ([`crate::mapf::lacam`]) from where it
//!   stands, to its goal (an agent arrived, without a goal or without a path: where it stands).
//!   The plan is checked step by step by the independent validator ([`check_step`]) and then
//!   followed, one joint step per tick, as the tick's moves (recorded as events like PIBT's);
//!   then PIBT takes over again. Any change from outside (agents, goals, map, actions) drops
//!   the plan.
//! - **Unsolvable**: when LaCAM exhausts its search (or two agents share a goal), no plan
//!   exists: [`StuckResolution::unsolvable`] ends the run. A search cut by its node limit
//!   proves nothing: PIBT goes on and the window doubles before the next try.
//!
//! - **Lifelong runs** keep reaching goals elsewhere while a group circles, so the crowd-wide
//!   rule never fires there: an agent that has not beaten its best for [`LIFELONG_WINDOW`]
//!   ticks (measured every [`LIFELONG_SAMPLE`] ticks) is stuck. The crowd goes to LaCAM the same
//!   way, each agent to its goal unless another took that cell first (then where it stands);
//!   agents that arrive during the plan get their next goal and wait on the plan's cells until
//!   it ends. A failed search proves nothing here (goals change): PIBT goes on and the window
//!   doubles.
//!
//! It applies to runs with conflicts `pibt`, action model `free` and no controlled agent (see
//! [`super::SimConfig::resolve_stuck`]).

use super::ActionModel;
use super::agent::{AgentSet, AgentState, Chosen};
use super::apply::Apply;
use super::config::{ConflictMode, SimConfig};
use super::events::TickEvents;
use super::move_context::MoveContext;
use super::occupancy::Occupancy;
use crate::grid::{CellId, Grid, NO_CELL};
use crate::mapf::check_step;
use crate::mapf::lacam::{LacamOptions, LacamOutcome, solve};

/// Ticks without progress of the crowd (see the module docs) before it counts as stuck.
pub const STUCK_WINDOW: u64 = 64;

/// Lifelong runs: ticks without an agent beating its best before it counts as stuck.
pub const LIFELONG_WINDOW: u64 = 4 * STUCK_WINDOW;

/// Lifelong runs: the agents are measured every this many ticks (each tick would cost a pass
/// over the crowd in runs where goals are reached every tick).
pub const LIFELONG_SAMPLE: u64 = 8;

/// LaCAM's node budget: about this many bytes of configurations (a node holds every agent's
/// cell, priority and order, and the search's index another copy of the cells: about 24 bytes
/// per agent), at least [`MIN_NODES`] nodes. A plan takes about one node per step when PIBT's
/// proposals work, so crowds of up to about 40,000 agents get thousands of steps.
const NODE_BYTES: usize = 1 << 30;

/// Bytes per agent of one LaCAM node (see [`NODE_BYTES`]).
const NODE_BYTES_PER_AGENT: usize = 24;

/// The least node budget, whatever the crowd (240 MB at 100,000 agents).
const MIN_NODES: usize = 100;

/// The most bytes of LaCAM's distance tables (4 bytes a cell per distinct goal,
/// [`crate::mapf::GoalDistances`]) a resolution may take: 25,000 agents on a 512 x 512 map
/// would need 26 GB (the run was killed for memory before this bound).
const TABLE_BYTES: usize = 1 << 30;

/// Whether LaCAM's distance tables for `goals` on a grid of `cells` cells fit
/// [`TABLE_BYTES`].
fn goal_tables_fit(cells: usize, goals: &[CellId]) -> bool {
    let mut distinct = goals.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len().saturating_mul(cells).saturating_mul(4) <= TABLE_BYTES
}

/// Detection and resolution of a stuck crowd (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct StuckResolution {
    /// Per slot: the goal the best below was measured for ([`NO_CELL`]: none).
    pub(super) goal: Vec<CellId>,
    /// Per slot: the fewest route cells left seen since that goal was given.
    pub(super) best: Vec<u32>,
    /// Lifelong runs, per slot: the tick of its last best (or of its goal).
    pub(super) since: Vec<u64>,
    /// The last tick the crowd made progress.
    pub(super) last_progress: u64,
    /// Ticks without progress before the next resolution (doubles after a search cut short).
    pub(super) window: u64,
    /// The slots the plan moves, and the plan: one configuration per step, in that order.
    pub(super) slots: Vec<u32>,
    pub(super) plan: Vec<Vec<CellId>>,
    /// The next step of the plan to play.
    pub(super) cursor: usize,
    /// LaCAM proved that not every agent can reach its goal.
    pub(super) unsolvable: bool,
    /// Times the crowd was handed to LaCAM.
    pub(crate) triggers: u64,
    /// Ticks played by following LaCAM's plans.
    pub(crate) ticks: u64,
    /// Agents handed to LaCAM, summed over the triggers.
    pub(crate) agents: u64,
}

/// The cell nearest `from` (breadth first over `grid`'s moves, `from` itself first) not marked
/// in `taken`, if its connected area has one. `seen` is all `false` and left so.
fn nearest_untaken(grid: &Grid, from: CellId, taken: &[bool], seen: &mut [bool]) -> Option<CellId> {
    if !taken[from as usize] {
        return Some(from);
    }
    let mut queue = std::collections::VecDeque::from([from]);
    let mut touched = vec![from];
    seen[from as usize] = true;
    let mut found = None;
    while let Some(c) = queue.pop_front() {
        if !taken[c as usize] {
            found = Some(c);
            break;
        }
        for dir in grid.moves(c).iter() {
            let n = grid.step(c, dir);
            if !seen[n as usize] {
                seen[n as usize] = true;
                touched.push(n);
                queue.push_back(n);
            }
        }
    }
    for c in touched {
        seen[c as usize] = false;
    }
    found
}

/// Whether a run with `config` is watched and resolved.
pub(crate) fn applies(config: &SimConfig) -> bool {
    config.resolve_stuck != Some(false)
        && config.conflicts == ConflictMode::Pibt
        && config.action_model == ActionModel::Free
}

impl StuckResolution {
    /// Whether LaCAM proved the instance unsolvable: nothing will change any more.
    pub(crate) fn unsolvable(&self) -> bool {
        self.unsolvable
    }

    /// Whether a plan is being followed.
    pub(crate) fn resolving(&self) -> bool {
        self.cursor < self.plan.len()
    }

    /// Drops the plan being followed (something from outside changed the crowd).
    pub(crate) fn drop_plan(&mut self, tick: u64) {
        self.plan.clear();
        self.slots.clear();
        self.cursor = 0;
        self.last_progress = tick;
    }

    /// Plays the plan's next joint step as the tick's moves, when a plan is being followed
    /// and the crowd stands where the plan left it; returns whether it did (the movement
    /// phase is then skipped).
    pub(crate) fn follow(
        &mut self,
        ctx: &MoveContext,
        agents: &mut AgentSet,
        occupancy: &mut Occupancy,
        events: &mut TickEvents,
    ) -> bool {
        if !self.resolving() {
            return false;
        }
        let (before, after) = (&self.plan[self.cursor - 1], &self.plan[self.cursor]);
        let positions = agents.positions();
        let intact = self.slots.iter().zip(before).all(|(&slot, &cell)| {
            positions.get(slot as usize) == Some(&cell)
                && agents.at(slot).is_some_and(|a| !a.is_controlled())
        }) && self.slots.len() == agents.len();
        if !intact {
            self.drop_plan(ctx.tick);
            return false;
        }
        let mut apply = Apply::new(ctx, Some(occupancy), events, &mut []);
        for (&slot, (&from, &to)) in self.slots.iter().zip(before.iter().zip(after)) {
            if from == to {
                apply.stayed(agents, slot);
            } else {
                apply.moved(agents, slot, to, Chosen::Sent);
            }
        }
        apply.finish();
        self.cursor += 1;
        self.ticks += 1;
        if !self.resolving() {
            self.drop_plan(ctx.tick);
            self.window = STUCK_WINDOW;
        }
        true
    }

    /// Watches the crowd after tick `tick` (whose events are `events`) and, when it has made
    /// no progress for the window, hands it to LaCAM: the plan is followed from the next tick.
    pub(crate) fn observe(
        &mut self,
        grid: &Grid,
        agents: &AgentSet,
        config: &SimConfig,
        events: &TickEvents,
    ) {
        let tick = events.tick();
        if self.window == 0 {
            self.window = STUCK_WINDOW;
        }
        if self.unsolvable || self.resolving() {
            return;
        }
        let changed = events.has_agent_or_map_events();
        if changed {
            // Slots may hold other agents now: measure every one afresh.
            self.goal.clear();
        }
        if config.lifelong {
            self.observe_lifelong(grid, agents, config, tick);
            return;
        }
        if changed
            || !events.goal_changes().is_empty()
            || events.arrivals().iter().any(|a| a.counted)
        {
            // Progress: no need to measure the agents. A best left unlowered can only make
            // a later tick count as progress, and such ticks are as finite as goals reached.
            self.last_progress = tick;
            return;
        }
        let slots = agents.slot_count();
        self.goal.resize(slots, NO_CELL);
        self.best.resize(slots, u32::MAX);
        let (mut progress, mut unfinished) = (false, false);
        for (id, agent) in agents.iter() {
            if agent.is_controlled() {
                // Driven from outside: not this module's to plan.
                self.last_progress = tick;
                return;
            }
            let Some(goal) = agent.goal() else { continue };
            if matches!(agent.state(), AgentState::Arrived | AgentState::NoPath) {
                continue;
            }
            unfinished = true;
            let slot = id.index() as usize;
            let left = agent.route_left().unwrap_or(u32::MAX); // MAX: waiting for a plan
            if self.goal[slot] != goal {
                self.goal[slot] = goal;
                self.best[slot] = left;
                progress = true;
            } else if left < self.best[slot] {
                self.best[slot] = left;
                progress = true;
            }
        }
        if progress || !unfinished {
            self.last_progress = tick;
            return;
        }
        if tick.saturating_sub(self.last_progress) >= self.window {
            self.resolve(grid, agents, config, tick);
        }
    }

    /// Lifelong runs: measures every agent each [`LIFELONG_SAMPLE`] ticks and hands the crowd
    /// to LaCAM when one has not beaten its best for the window (see the module docs).
    fn observe_lifelong(&mut self, grid: &Grid, agents: &AgentSet, config: &SimConfig, tick: u64) {
        if !tick.is_multiple_of(LIFELONG_SAMPLE) {
            return;
        }
        let slots = agents.slot_count();
        self.goal.resize(slots, NO_CELL);
        self.best.resize(slots, u32::MAX);
        self.since.resize(slots, tick);
        let mut stuck = false;
        for (id, agent) in agents.iter() {
            if agent.is_controlled() {
                return; // driven from outside: not this module's to plan
            }
            let Some(goal) = agent.goal() else { continue };
            if matches!(agent.state(), AgentState::Arrived | AgentState::NoPath) {
                continue;
            }
            let slot = id.index() as usize;
            let left = agent.route_left().unwrap_or(u32::MAX); // MAX: waiting for a plan
            if self.goal[slot] != goal || left < self.best[slot] {
                self.goal[slot] = goal;
                self.best[slot] = left;
                self.since[slot] = tick;
            } else if tick.saturating_sub(self.since[slot])
                >= self.window * (LIFELONG_WINDOW / STUCK_WINDOW)
            {
                stuck = true;
            }
        }
        if stuck {
            self.resolve(grid, agents, config, tick);
            // Every agent gets a fresh window after a resolution, planned or not.
            self.since.fill(tick);
        }
    }

    /// Hands every live agent to LaCAM (see the module docs).
    fn resolve(&mut self, grid: &Grid, agents: &AgentSet, config: &SimConfig, tick: u64) {
        self.last_progress = tick;
        self.slots.clear();
        let mut starts = Vec::with_capacity(agents.len());
        let mut goals = Vec::with_capacity(agents.len());
        // Goals of agents that have one, to tell two agents sharing a goal.
        let mut goal_of = vec![false; grid.len()];
        let mut shared_goal = false;
        for (id, agent) in agents.iter() {
            let real = agent.goal().filter(|_| agent.state() != AgentState::NoPath);
            let goal = real.unwrap_or(agent.position());
            if real.is_some() {
                shared_goal |= std::mem::replace(&mut goal_of[goal as usize], true);
            }
            self.slots.push(id.index());
            starts.push(agent.position());
            goals.push(goal);
        }
        self.triggers += 1;
        self.agents += self.slots.len() as u64;
        if shared_goal && config.lifelong {
            // Lifelong goals may coincide: an agent whose goal another took first heads for the
            // nearest cell to it that no other agent ends on (breadth first over the map).
            let mut taken = vec![false; grid.len()];
            for (k, (_, agent)) in agents.iter().enumerate() {
                if agent.goal().is_none() || agent.state() == AgentState::NoPath {
                    taken[goals[k] as usize] = true;
                }
            }
            let mut seen = vec![false; grid.len()];
            for (k, (_, agent)) in agents.iter().enumerate() {
                if agent.goal().is_none() || agent.state() == AgentState::NoPath {
                    continue;
                }
                let target = nearest_untaken(grid, goals[k], &taken, &mut seen);
                let Some(target) = target else {
                    // No cell left for it: no plan this time; the next try waits longer.
                    self.slots.clear();
                    self.window = self.window.saturating_mul(2);
                    return;
                };
                taken[target as usize] = true;
                goals[k] = target;
            }
        } else if shared_goal {
            self.unsolvable = true; // two agents cannot both end on one cell
            self.slots.clear();
            return;
        }
        if !goal_tables_fit(grid.len(), &goals) {
            // LaCAM's distance tables (a grid's worth per distinct goal) would not fit: no
            // plan this time, as for a search cut short.
            self.slots.clear();
            self.window = self.window.saturating_mul(2);
            return;
        }
        let n = starts.len().max(1);
        let options = LacamOptions {
            node_limit: Some((NODE_BYTES / (NODE_BYTES_PER_AGENT * n)).max(MIN_NODES)),
            seed: config.seed,
            ..LacamOptions::default()
        };
        let outcome = solve(grid, &starts, &goals, &options).map(|(o, _)| o);
        match outcome {
            Ok(LacamOutcome::Solved(plan))
                if plan
                    .windows(2)
                    .all(|w| check_step(grid, &w[0], &w[1]).is_ok())
                    && plan.first() == Some(&starts)
                    && plan.len() >= 2 =>
            {
                self.plan = plan;
                self.cursor = 1;
            }
            Ok(LacamOutcome::NoSolution) if !config.lifelong => {
                self.unsolvable = true;
                self.slots.clear();
            }
            // Cut short (or an agent waiting for a plan to a goal it cannot reach), or lifelong
            // (whose goals change): no proof; PIBT goes on and the next try waits twice as long.
            _ => {
                self.slots.clear();
                self.window = self.window.saturating_mul(2);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lacam_tables_are_bounded_by_distinct_goals_times_cells() {
        // 1,024 distinct goals on a 512 x 512 grid: exactly 1 GiB.
        let cells = 512 * 512;
        let goals: Vec<CellId> = (0..1024).collect();
        assert!(goal_tables_fit(cells, &goals));
        // Shared goals count once.
        let shared: Vec<CellId> = (0..5000).map(|i| i % 1024).collect();
        assert!(goal_tables_fit(cells, &shared));
        // One more distinct goal does not fit; 25,000 (26 GB) far from it.
        let more: Vec<CellId> = (0..1025).collect();
        assert!(!goal_tables_fit(cells, &more));
        let crowd: Vec<CellId> = (0..25_000).collect();
        assert!(!goal_tables_fit(cells, &crowd));
    }
}
