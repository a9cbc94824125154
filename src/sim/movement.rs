//! The movement phase: every agent with a path tries to take one step.
//!
//! [`MovementStage::run`] is the one entry for every [`ConflictMode`]: `off` steps each agent
//! along its path, `avoid` is below, and `pibt` is [`super::pibt_movement`].
//!
//! With conflicts `avoid`, an agent moves only into a cell that is free at that moment, and not
//! diagonally across an agent that already stepped the other way across the same 2 x 2 block. Agents are
//! resolved in slot order, but an agent whose next cell is held by an agent not yet resolved
//! resolves that one first (depth first, with an explicit stack), so a line of agents moves
//! together in one tick instead of one per tick. A chain that loops back on itself (two agents
//! swapping, or a rotation) is a cycle: its agents wait. Every agent is resolved once, so the
//! phase is O(agents), and the result depends only on slot order: deterministic.

use super::agent::{AgentSet, AgentState};
use super::config::{ConflictMode, SimConfig};
use super::control;
use super::events::{ArrivalKind, PlanReason, TickEvents};
use super::move_context::{Forced, MoveContext};
use super::occupancy::Occupancy;
use super::pibt_movement::PibtMovement;
use super::route;
use crate::grid::{CellId, Grid};

const UNSEEN: u8 = 0;
const IN_PROGRESS: u8 = 1;
const DONE: u8 = 2;

/// Scratch memory of the movement phase, reused every tick.
#[derive(Debug, Default)]
pub(crate) struct MovementStage {
    claims: Claims,
    /// Per slot, the moves chosen from outside for this phase (see [`super::control`]); empty
    /// when none was. Set by the simulation before [`MovementStage::run`], cleared after.
    pub(crate) forced: Vec<Forced>,
    pibt: PibtMovement,
}

impl MovementStage {
    /// An empty stage.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the agents one step in the tick of `events` (the tick being played), and
    /// appends to `events` what it did: the moves, the arrivals (in the order they happened:
    /// lifelong runs give new goals in that order), the waiting agents and PIBT's swaps.
    pub fn run(
        &mut self,
        grid: &Grid,
        agents: &mut AgentSet,
        occupancy: &mut Occupancy,
        config: &SimConfig,
        events: &mut TickEvents,
    ) {
        let ctx = MoveContext {
            grid,
            config,
            tick: events.tick(),
            forced: &self.forced,
        };
        match config.conflicts {
            ConflictMode::Pibt => self.pibt.run(&ctx, agents, occupancy, events),
            ConflictMode::Off | ConflictMode::Avoid => {
                self.claims.run(&ctx, agents, occupancy, events)
            }
        }
    }
}

/// Scratch memory of conflict modes `off` and `avoid`: agents claim their next cells in slot
/// order (see the module docs).
#[derive(Debug, Default)]
struct Claims {
    status: Vec<u8>,
    /// Each slot's cell at the start of the phase (conflict mode `avoid`: to tell a diagonal
    /// crossing).
    start: Vec<CellId>,
    stack: Vec<u32>,
}

impl Claims {
    /// Moves the agents one step in conflict mode `off` or `avoid`, appending what they did to
    /// `events`.
    fn run(
        &mut self,
        ctx: &MoveContext,
        agents: &mut AgentSet,
        occupancy: &mut Occupancy,
        events: &mut TickEvents,
    ) {
        let slots = agents.slot_count();
        self.status.clear();
        self.status.resize(slots, UNSEEN);
        // Each slot's cell at the start of the phase (a copy of the flat positions array).
        self.start.clear();
        self.start.extend_from_slice(agents.positions());
        for slot in 0..slots as u32 {
            if self.status[slot as usize] != UNSEEN {
                continue;
            }
            match ctx.config.conflicts {
                ConflictMode::Off => {
                    self.status[slot as usize] = DONE;
                    if intent(ctx, agents, slot).is_some() {
                        advance(ctx, agents, slot, None, events);
                    }
                }
                ConflictMode::Avoid => self.resolve(ctx, agents, occupancy, slot, events),
                ConflictMode::Pibt => unreachable!("handled by `PibtMovement`"),
            }
        }
        // Waiting agents: count, and after too many waits ask for a plan around the others
        // (not agents moved from outside this tick, nor controlled ones: never planned for).
        let mut waiting = 0;
        for (slot, agent) in agents.iter_mut() {
            let forced = ctx.forced(slot);
            if agent.controlled {
                let moved = self.start.get(slot as usize) != Some(&agent.position);
                control::settle_controlled(agent, moved);
                if agent.state == AgentState::Waiting {
                    waiting += 1;
                }
                continue;
            }
            if forced == Forced::Stay && agent.next_cell().is_some() {
                agent.state = AgentState::Waiting; // asked to wait
            }
            if agent.state == AgentState::Waiting && forced != Forced::Free {
                waiting += 1;
                continue;
            }
            if agent.state == AgentState::Waiting {
                waiting += 1;
                agent.waited += 1;
                // Each failed replan around the others doubles the wait (at most 32 times).
                let patience = ctx
                    .config
                    .replan_after_waits
                    .saturating_mul(1 << agent.blocked_failures.min(5));
                if agent.waited >= patience && agent.plan_request.is_none() {
                    agent.plan_request = Some((PlanReason::Blocked, ctx.tick));
                    agent.waited = 0;
                }
            }
        }
        events.waiting += waiting;
    }

    /// Whether agent `slot` stepping diagonally onto `to` would cross an agent that already
    /// stepped between the block's two other cells this tick.
    fn crosses(
        &self,
        grid: &Grid,
        agents: &AgentSet,
        occupancy: &Occupancy,
        slot: u32,
        to: CellId,
    ) -> bool {
        let Some(from) = agents.at(slot).map(|a| a.position) else {
            return false;
        };
        let ((fx, fy), (tx, ty)) = (grid.coords(from), grid.coords(to));
        if fx == tx || fy == ty {
            return false;
        }
        let w = grid.width();
        let (c1, c2) = (ty * w + fx, fy * w + tx);
        [(c1, c2), (c2, c1)].into_iter().any(|(was, now)| {
            occupancy
                .agent_at(now)
                .is_some_and(|other| self.start.get(other as usize) == Some(&was))
        })
    }

    /// Resolves agent `root` and, first, the chain of agents ahead of it (conflict mode
    /// `avoid`: see the module docs).
    fn resolve(
        &mut self,
        ctx: &MoveContext,
        agents: &mut AgentSet,
        occupancy: &mut Occupancy,
        root: u32,
        record: &mut TickEvents,
    ) {
        self.stack.clear();
        self.stack.push(root);
        self.status[root as usize] = IN_PROGRESS;
        while let Some(&slot) = self.stack.last() {
            let Some(next) = intent(ctx, agents, slot) else {
                self.status[slot as usize] = DONE;
                self.stack.pop();
                continue;
            };
            match occupancy.agent_at(next) {
                None if self.crosses(ctx.grid, agents, occupancy, slot, next) => {
                    // Another agent already crossed this 2 x 2 block the other way.
                    if let Some(agent) = agents.at_mut(slot) {
                        agent.state = AgentState::Waiting;
                    }
                    self.status[slot as usize] = DONE;
                    self.stack.pop();
                }
                None => {
                    advance(ctx, agents, slot, Some(occupancy), record);
                    self.status[slot as usize] = DONE;
                    self.stack.pop();
                }
                Some(other) if self.status[other as usize] == UNSEEN => {
                    // Let the agent ahead go first; come back to this one after.
                    self.status[other as usize] = IN_PROGRESS;
                    self.stack.push(other);
                }
                Some(_) => {
                    // Ahead is an agent that stays (done) or a cycle back to this chain.
                    if let Some(agent) = agents.at_mut(slot) {
                        agent.state = AgentState::Waiting;
                    }
                    self.status[slot as usize] = DONE;
                    self.stack.pop();
                }
            }
        }
    }
}

/// The cell agent `slot` means to step onto this tick: the one chosen from outside, else its
/// route's next cell (none for a controlled agent).
fn intent(ctx: &MoveContext, agents: &AgentSet, slot: u32) -> Option<CellId> {
    match ctx.forced(slot) {
        Forced::To(cell) => Some(cell),
        Forced::Stay => None,
        Forced::Free => agents
            .at(slot)
            .filter(|a| !a.controlled)
            .and_then(|a| a.next_cell()),
    }
}

/// Moves agent `slot` onto its [`intent`] (which the caller found free): one cell along its
/// route, or where an action sent it.
fn advance(
    ctx: &MoveContext,
    agents: &mut AgentSet,
    slot: u32,
    occupancy: Option<&mut Occupancy>,
    record: &mut TickEvents,
) {
    let id = agents.id_at(slot).expect("live agent");
    let agent = agents.at_mut(slot).expect("live agent");
    let from = agent.position;
    let (to, arrived) = match ctx.forced(slot) {
        Forced::To(to) => (to, control::move_by_action(ctx, agent, to)),
        _ => {
            let arrived = route::step_along(agent, ctx.tick);
            debug_assert!(
                ctx.grid.is_walkable(agent.position),
                "paths only cross walkable cells"
            );
            (agent.position, arrived)
        }
    };
    record.step(id, from, to);
    if let Some(counted) = arrived {
        record.arrive(id, to, ArrivalKind::Stepped, counted);
    }
    if let Some(occ) = occupancy {
        occ.clear(from);
        occ.set(to, slot);
    }
    agents.sync_position(slot);
}
