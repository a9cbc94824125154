//! What a tick did, as events: the plans made, the moves, the arrivals, the goals given, the
//! outcomes of external actions, the map cells changed, the agents added and removed.
//!
//! The stages write their results here as they make them (planning its plans and the agents
//! it finds on their goal, movement its moves and arrivals), and the simulation adds what it
//! does itself (commands, controlled agents settling, lifelong goals). Consumers read the
//! events instead of diffing or rescanning the crowd: the tick's report and the metrics count
//! them, the trace recorder writes only the agents they name, the Python bindings return
//! arrivals from them.
//!
//! One [`TickEvents`] covers one tick *and the calls made since the tick before it*
//! ([`Simulation::add_agent`], [`Simulation::set_goal`], [`Simulation::change_map`], ...): a
//! consumer that reads [`Simulation::last_events`] after every tick sees every change. The
//! buffers belong to the simulation and are reused, so a tick allocates nothing for its events
//! once they have grown to the crowd's size.
//!
//! [`Simulation::add_agent`]: super::Simulation::add_agent
//! [`Simulation::set_goal`]: super::Simulation::set_goal
//! [`Simulation::change_map`]: super::Simulation::change_map
//! [`Simulation::last_events`]: super::Simulation::last_events

use super::agent::AgentId;
use super::control::ActionOutcome;
use crate::grid::{CellChange, CellId};

/// Why an agent was planned for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanReason {
    /// New goal (or first goal).
    NewGoal,
    /// Waited too long behind other agents: plan around the nearby ones.
    Blocked,
    /// Pushed far off its route by other agents (conflict mode `pibt`).
    Drifted,
    /// The map changed under its path.
    MapChanged,
}

/// One plan the planning phase made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanMade {
    /// The agent planned for.
    pub agent: AgentId,
    /// Why.
    pub reason: PlanReason,
    /// Whether a path was found (a failed replan around other agents keeps the old path).
    pub found: bool,
    /// Whether the plan resumed the agent's earlier D* Lite search (a repair).
    pub repaired: bool,
    /// Nodes the plan expanded.
    pub expanded: u64,
    /// Its wall time, nanoseconds.
    pub nanos: u64,
}

/// One agent's step: from one cell to a neighbouring one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The agent.
    pub agent: AgentId,
    /// The cell it left.
    pub from: CellId,
    /// The cell it stepped onto.
    pub to: CellId,
}

/// How an agent came to stand on its goal in the tick (the rule of its arrival time: see
/// [`Agent::arrived_at`](super::Agent::arrived_at)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrivalKind {
    /// It stepped onto its goal during tick `t`: there from time `t + 1`.
    Stepped,
    /// It already stood on its goal when tick `t` was played (given the cell it stands on as
    /// its goal, or planned from its goal): there from time `t`.
    Standing,
}

/// One agent arriving at its goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Arrival {
    /// The agent.
    pub agent: AgentId,
    /// Its goal, where it stands.
    pub cell: CellId,
    /// Stepped onto it, or found standing on it.
    pub kind: ArrivalKind,
    /// Whether it counts as a goal reached ([`crate::sim::TickReport::goals_reached`]): not
    /// for an agent back on a goal it had reached and been moved off (see `sim/agent/route.rs`).
    pub counted: bool,
}

/// One agent given a goal (by [`super::Simulation::set_goal`], a route, a command, or a
/// lifelong run's next goal); agents added with a goal are in [`TickEvents::added`] only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GoalChange {
    /// The agent.
    pub agent: AgentId,
    /// Its new goal.
    pub goal: CellId,
}

/// The events of one tick: what the tick did, and the calls made since the tick before it
/// (agents added and removed, goals given, map edits). Read it through
/// [`super::Simulation::last_events`] after each tick to follow every change without
/// scanning the crowd; lists are in the order things happened. The simulation reuses its
/// buffers from tick to tick.
#[derive(Debug, Clone, Default)]
pub struct TickEvents {
    pub(crate) tick: u64,
    pub(crate) plans: Vec<PlanMade>,
    pub(crate) deferred: u32,
    pub(crate) moves: Vec<Move>,
    pub(crate) waiting: u32,
    pub(crate) swaps: u32,
    pub(crate) arrivals: Vec<Arrival>,
    pub(crate) goals: Vec<GoalChange>,
    pub(crate) outcomes: Vec<(AgentId, ActionOutcome)>,
    pub(crate) cells: Vec<CellChange>,
    pub(crate) added: Vec<AgentId>,
    pub(crate) removed: Vec<AgentId>,
}

impl TickEvents {
    /// No event, for `tick`.
    pub fn new(tick: u64) -> Self {
        TickEvents {
            tick,
            ..TickEvents::default()
        }
    }

    /// Forgets every event (keeping the buffers) and starts `tick`'s.
    pub fn clear(&mut self, tick: u64) {
        self.tick = tick;
        self.plans.clear();
        self.deferred = 0;
        self.moves.clear();
        self.waiting = 0;
        self.swaps = 0;
        self.arrivals.clear();
        self.goals.clear();
        self.outcomes.clear();
        self.cells.clear();
        self.added.clear();
        self.removed.clear();
    }

    /// The tick played.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Plans made, in the order of the planning queue (oldest request first).
    pub fn plans(&self) -> &[PlanMade] {
        &self.plans
    }

    /// Plan requests left for later ticks by the per-tick cap.
    pub fn deferred(&self) -> u32 {
        self.deferred
    }

    /// Steps taken. Each agent steps at most once a tick.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Agents that wanted to step but waited (a count: waiting is a state, not a change).
    pub fn waiting(&self) -> u32 {
        self.waiting
    }

    /// Pairs PIBT swapped through a corridor (conflict mode `pibt`).
    pub fn swaps(&self) -> u32 {
        self.swaps
    }

    /// Arrivals at goals: found standing on it by planning or settling first, then stepped.
    pub fn arrivals(&self) -> &[Arrival] {
        &self.arrivals
    }

    /// Goals given (agents added are in [`added`](Self::added) only).
    pub fn goal_changes(&self) -> &[GoalChange] {
        &self.goals
    }

    /// Outcome of each action given to [`super::Simulation::step_with_actions`], in the order
    /// given.
    pub fn outcomes(&self) -> &[(AgentId, ActionOutcome)] {
        &self.outcomes
    }

    /// Map edits applied, in order.
    pub fn cell_changes(&self) -> &[CellChange] {
        &self.cells
    }

    /// Agents added, in order.
    pub fn added(&self) -> &[AgentId] {
        &self.added
    }

    /// Agents removed, in order.
    pub fn removed(&self) -> &[AgentId] {
        &self.removed
    }

    /// Goals reached: the arrivals that count.
    pub fn goals_reached(&self) -> u32 {
        self.arrivals.iter().filter(|a| a.counted).count() as u32
    }

    pub(crate) fn plan(&mut self, plan: PlanMade) {
        self.plans.push(plan);
    }

    #[inline]
    pub(crate) fn step(&mut self, agent: AgentId, from: CellId, to: CellId) {
        self.moves.push(Move { agent, from, to });
    }

    #[inline]
    pub(crate) fn arrive(
        &mut self,
        agent: AgentId,
        cell: CellId,
        kind: ArrivalKind,
        counted: bool,
    ) {
        self.arrivals.push(Arrival {
            agent,
            cell,
            kind,
            counted,
        });
    }

    pub(crate) fn goal(&mut self, agent: AgentId, goal: CellId) {
        self.goals.push(GoalChange { agent, goal });
    }

    /// Whether there is an agent added or removed, a goal given or a map edit.
    pub(crate) fn has_agent_or_map_events(&self) -> bool {
        !(self.goals.is_empty()
            && self.cells.is_empty()
            && self.added.is_empty()
            && self.removed.is_empty())
    }

    /// Appends `other`'s agent and map events (the calls made between ticks) to these.
    pub(crate) fn absorb_calls(&mut self, other: &TickEvents) {
        self.goals.extend_from_slice(&other.goals);
        self.cells.extend_from_slice(&other.cells);
        self.added.extend_from_slice(&other.added);
        self.removed.extend_from_slice(&other.removed);
    }
}
