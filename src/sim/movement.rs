//! The movement phase: every agent with a path tries to take one step.
//!
//! [`MovementStage::run`] is the one entry for every [`ConflictMode`]: `off` steps each agent
//! along its path, `avoid` is below, and `pibt` is [`super::pibt_movement`]. Each mode only
//! decides; [`Apply`] applies every move and stay. The actions chosen from outside come in
//! through [`MovementStage::set_actions`] and their outcomes go out through
//! [`MovementStage::outcomes`].
//!
//! With conflicts `avoid`, an agent moves only into a cell that is free at that moment, and not
//! diagonally across an agent that already stepped the other way across the same 2 x 2 block. Agents are
//! resolved in slot order, but an agent whose next cell is held by an agent not yet resolved
//! resolves that one first (depth first, with an explicit stack), so a line of agents moves
//! together in one tick instead of one per tick. A chain that loops back on itself (two agents
//! swapping, or a rotation) is a cycle: its agents wait. Every agent is resolved once, so the
//! phase is O(agents), and the result depends only on slot order: deterministic.

use super::agent::{AgentId, AgentSet, Chosen};
use super::apply::Apply;
use super::config::{ConflictMode, SimConfig};
use super::control::{self, ActionOutcome, AgentAction};
use super::events::TickEvents;
use super::metrics::PhaseTimes;
use super::move_context::{Forced, MoveContext};
use super::occupancy::Occupancy;
use super::pibt_movement::PibtMovement;
pub(crate) use super::pibt_movement::SpatialTies;
use crate::grid::{CellId, Grid};

const UNSEEN: u8 = 0;
const IN_PROGRESS: u8 = 1;
const DONE: u8 = 2;

/// Scratch memory of the movement phase, reused every tick.
#[derive(Debug, Default)]
pub(crate) struct MovementStage {
    claims: Claims,
    /// Per slot, the moves chosen from outside for this phase (see [`super::control`]); empty
    /// when none was.
    forced: Vec<Forced>,
    /// Per slot, the outcome of the action given (see [`Apply`]); empty when none was.
    outcomes: Vec<ActionOutcome>,
    pibt: PibtMovement,
}

impl MovementStage {
    /// An empty stage.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// PIBT's tie-breaks that follow the map, if drawn (a snapshot keeps them: they were drawn
    /// from the cells of an earlier tick).
    pub(crate) fn spatial_ties(&self) -> Option<&SpatialTies> {
        self.pibt.spatial_ties()
    }

    /// Takes `ties` (from a snapshot) as PIBT's tie-breaks.
    pub(crate) fn set_spatial_ties(&mut self, ties: SpatialTies) {
        self.pibt.set_spatial_ties(ties);
    }

    /// Takes the actions chosen from outside for the next [`run`](Self::run) (checked by the
    /// caller: live agents, each named once), judging each move legal or not on `grid` as it
    /// is now. An agent no longer live (removed this tick) is left alone.
    pub(crate) fn set_actions(
        &mut self,
        grid: &Grid,
        agents: &AgentSet,
        actions: &[(AgentId, AgentAction)],
    ) {
        self.forced.clear();
        self.outcomes.clear();
        if actions.is_empty() {
            return;
        }
        self.forced.resize(agents.slot_count(), Forced::Free);
        self.outcomes
            .resize(agents.slot_count(), ActionOutcome::Illegal);
        for &(id, action) in actions {
            let Some(agent) = agents.get(id) else {
                continue; // removed by a command this tick
            };
            let slot = id.index() as usize;
            (self.forced[slot], self.outcomes[slot]) = match action {
                AgentAction::Wait => (Forced::Stay, ActionOutcome::Waited),
                AgentAction::Move(dir) => {
                    match control::legal_target(grid, agent.position(), dir) {
                        // Blocked until the move is made.
                        Some(cell) => (Forced::To(cell), ActionOutcome::Blocked),
                        None => (Forced::Stay, ActionOutcome::Illegal),
                    }
                }
            };
        }
    }

    /// Moves the agents one step in the tick of `events` (the tick being played), and
    /// appends to `events` what it did: the moves, the arrivals (in the order they happened:
    /// lifelong runs give new goals in that order), the waiting agents and PIBT's swaps.
    /// Returns the time its parts took (the movement fields of [`PhaseTimes`]).
    pub(crate) fn run(
        &mut self,
        grid: &Grid,
        agents: &mut AgentSet,
        occupancy: &mut Occupancy,
        config: &SimConfig,
        events: &mut TickEvents,
    ) -> PhaseTimes {
        let ctx = MoveContext {
            grid,
            config,
            tick: events.tick(),
            forced: &self.forced,
        };
        let occupancy = config.conflicts.separates().then_some(occupancy);
        let mut apply = Apply::new(&ctx, occupancy, events, &mut self.outcomes);
        let mut times = match config.conflicts {
            ConflictMode::Pibt => self.pibt.run(&ctx, agents, &mut apply),
            ConflictMode::Off | ConflictMode::Avoid => self.claims.run(&ctx, agents, &mut apply),
        };
        let clock = Clock::start();
        apply.finish();
        times.applying_ms += clock.ms();
        times
    }

    /// The outcome of each action of the last [`set_actions`](Self::set_actions), in the order
    /// given, after [`run`](Self::run) (an agent removed before the phase: illegal).
    pub(crate) fn outcomes<'a>(
        &'a self,
        agents: &'a AgentSet,
        actions: &'a [(AgentId, AgentAction)],
    ) -> impl Iterator<Item = (AgentId, ActionOutcome)> + 'a {
        actions.iter().map(|&(id, _)| {
            let outcome = match agents.get(id) {
                Some(_) => self.outcomes[id.index() as usize],
                None => ActionOutcome::Illegal,
            };
            (id, outcome)
        })
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
    /// The slots in the order they claim: slot order, or class by class when an agent has a
    /// priority class (see [`crate::sim::Simulation::set_priority`]).
    order: Vec<u32>,
}

/// What the claim resolution decided for the agent on top of its stack.
enum Claim {
    Stay,
    Move(CellId),
    /// Resolve the agent ahead first.
    After(u32),
}

impl Claims {
    /// Moves the agents one step in conflict mode `off` or `avoid`; returns the time of the
    /// order and of the claims (moves applied as they are decided).
    fn run(&mut self, ctx: &MoveContext, agents: &mut AgentSet, apply: &mut Apply) -> PhaseTimes {
        let mut clock = Clock::start();
        let mut times = PhaseTimes::default();
        let slots = agents.slot_count();
        self.status.clear();
        self.status.resize(slots, UNSEEN);
        // Each slot's cell at the start of the phase (a copy of the flat positions array).
        self.start.clear();
        self.start.extend_from_slice(agents.positions());
        self.order.clear();
        self.order.extend(0..slots as u32);
        if agents.iter().any(|(_, a)| a.priority() > 0) {
            let class = |slot: u32| agents.at(slot).map_or(0, |a| a.priority());
            // Stable: slot order within a class.
            self.order
                .sort_by_key(|&slot| std::cmp::Reverse(class(slot)));
        }
        times.ordering_ms = clock.lap();
        for i in 0..self.order.len() {
            let slot = self.order[i];
            if self.status[slot as usize] != UNSEEN {
                continue;
            }
            match ctx.config.conflicts {
                ConflictMode::Off => {
                    self.status[slot as usize] = DONE;
                    match intent(ctx, agents, slot) {
                        Some(to) => apply.moved(agents, slot, to, chosen(ctx, slot)),
                        None => apply.stayed(agents, slot),
                    }
                }
                ConflictMode::Avoid => self.resolve(ctx, agents, apply, slot),
                ConflictMode::Pibt => unreachable!("handled by `PibtMovement`"),
            }
        }
        times.deciding_ms = clock.lap();
        times
    }

    /// Whether agent `slot` stepping diagonally onto `to` would cross an agent that already
    /// stepped between the block's two other cells this tick.
    fn crosses(&self, grid: &Grid, occupancy: &Occupancy, slot: u32, to: CellId) -> bool {
        let Some(&from) = self.start.get(slot as usize) else {
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
    fn resolve(&mut self, ctx: &MoveContext, agents: &mut AgentSet, apply: &mut Apply, root: u32) {
        self.stack.clear();
        self.stack.push(root);
        self.status[root as usize] = IN_PROGRESS;
        while let Some(&slot) = self.stack.last() {
            let claim = match intent(ctx, agents, slot) {
                None => Claim::Stay,
                Some(next) => {
                    let occupancy = apply
                        .occupancy()
                        .expect("conflicts avoid keep the occupancy");
                    match occupancy.agent_at(next) {
                        // Another agent already crossed this 2 x 2 block the other way.
                        None if self.crosses(ctx.grid, occupancy, slot, next) => Claim::Stay,
                        None => Claim::Move(next),
                        // Let the agent ahead go first; come back to this one after.
                        Some(other) if self.status[other as usize] == UNSEEN => Claim::After(other),
                        // Ahead is an agent that stays (done) or a cycle back to this chain.
                        Some(_) => Claim::Stay,
                    }
                }
            };
            match claim {
                Claim::After(other) => {
                    self.status[other as usize] = IN_PROGRESS;
                    self.stack.push(other);
                    continue;
                }
                Claim::Move(to) => apply.moved(agents, slot, to, chosen(ctx, slot)),
                Claim::Stay => apply.stayed(agents, slot),
            }
            self.status[slot as usize] = DONE;
            self.stack.pop();
        }
    }
}

/// A stopwatch for the phases' times ([`PhaseTimes`]).
pub(crate) struct Clock(std::time::Instant);

impl Clock {
    /// Started now.
    pub(crate) fn start() -> Clock {
        Clock(std::time::Instant::now())
    }

    /// Milliseconds since the start.
    pub(crate) fn ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }

    /// Milliseconds since the start, and starts again.
    pub(crate) fn lap(&mut self) -> f64 {
        let now = std::time::Instant::now();
        let ms = (now - self.0).as_secs_f64() * 1e3;
        self.0 = now;
        ms
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
            .filter(|a| !a.is_controlled())
            .and_then(|a| a.next_cell()),
    }
}

/// How agent `slot`'s [`intent`] was chosen.
fn chosen(ctx: &MoveContext, slot: u32) -> Chosen {
    match ctx.forced(slot) {
        Forced::To(_) => Chosen::Sent,
        _ => Chosen::Route,
    }
}
