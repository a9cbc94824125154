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

impl PlanReason {
    /// Its code in flat event lists ([`Event::detail`], the C ABI's `THRONG_PLAN_REASON_*`):
    /// 0 new goal, 1 blocked, 2 drifted, 3 map changed.
    pub const fn code(self) -> u8 {
        match self {
            PlanReason::NewGoal => 0,
            PlanReason::Blocked => 1,
            PlanReason::Drifted => 2,
            PlanReason::MapChanged => 3,
        }
    }
}

/// One plan the planning phase made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanMade {
    /// The agent planned for.
    pub agent: AgentId,
    /// The cell it was planned from.
    pub start: CellId,
    /// The goal it was planned to.
    pub goal: CellId,
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
/// lifelong run's next goal) or left without one ([`super::Simulation::clear_goal`]); agents
/// added with a goal are in [`TickEvents::added`] only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GoalChange {
    /// The agent.
    pub agent: AgentId,
    /// Its new goal; `None` when its goal was cleared.
    pub goal: Option<CellId>,
}

/// One event of a tick, of any kind: what [`TickEvents::all`] lists, for consumers that
/// take one list (the C ABI's event buffer, the bindings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    /// An agent added, standing on `cell`.
    Added {
        /// The agent.
        agent: AgentId,
        /// Where it stands.
        cell: CellId,
    },
    /// An agent removed from `cell`.
    Removed {
        /// The agent (its id names no agent any more).
        agent: AgentId,
        /// The cell it stood on.
        cell: CellId,
    },
    /// A goal given or cleared.
    GoalChanged(GoalChange),
    /// A plan made.
    Planned(PlanMade),
    /// A step taken.
    Moved(Move),
    /// An arrival at a goal.
    Arrived(Arrival),
    /// A map edit applied.
    CellChanged(CellChange),
}

/// The kind of an [`Event`], with a stable code (the C ABI's `THRONG_EVENT_*`, Python's
/// `kind` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EventKind {
    /// An agent added.
    Added = 1,
    /// An agent removed.
    Removed = 2,
    /// A goal given or cleared.
    GoalSet = 3,
    /// A plan that found a path.
    PathFound = 4,
    /// A plan that found no path to the goal: the agent stands.
    NoPath = 5,
    /// A replan around other agents that found no way: the agent keeps its old path.
    Blocked = 6,
    /// A step.
    Moved = 7,
    /// An arrival at a goal.
    Arrived = 8,
    /// A map edit.
    CellChanged = 9,
}

impl EventKind {
    /// Every kind, in code order.
    pub const ALL: [EventKind; 9] = [
        EventKind::Added,
        EventKind::Removed,
        EventKind::GoalSet,
        EventKind::PathFound,
        EventKind::NoPath,
        EventKind::Blocked,
        EventKind::Moved,
        EventKind::Arrived,
        EventKind::CellChanged,
    ];

    /// Its code (1 to 9).
    pub const fn code(self) -> u8 {
        self as u8
    }
}

impl Event {
    /// Its kind.
    pub fn kind(&self) -> EventKind {
        match self {
            Event::Added { .. } => EventKind::Added,
            Event::Removed { .. } => EventKind::Removed,
            Event::GoalChanged(_) => EventKind::GoalSet,
            Event::Planned(p) if p.found => EventKind::PathFound,
            Event::Planned(p) if p.reason == PlanReason::Blocked => EventKind::Blocked,
            Event::Planned(_) => EventKind::NoPath,
            Event::Moved(_) => EventKind::Moved,
            Event::Arrived(_) => EventKind::Arrived,
            Event::CellChanged(_) => EventKind::CellChanged,
        }
    }

    /// The agent it is about; none for a map edit.
    pub fn agent(&self) -> Option<AgentId> {
        match *self {
            Event::Added { agent, .. } | Event::Removed { agent, .. } => Some(agent),
            Event::GoalChanged(g) => Some(g.agent),
            Event::Planned(p) => Some(p.agent),
            Event::Moved(m) => Some(m.agent),
            Event::Arrived(a) => Some(a.agent),
            Event::CellChanged(_) => None,
        }
    }

    /// The cell it is about: where an agent was added or removed, the goal given (none when
    /// cleared), the goal a plan was made for (where the agent stood for
    /// [`EventKind::Blocked`]), the cell stepped onto, the goal arrived at, the cell edited.
    pub fn cell(&self) -> Option<CellId> {
        match *self {
            Event::Added { cell, .. } | Event::Removed { cell, .. } => Some(cell),
            Event::GoalChanged(g) => g.goal,
            Event::Planned(p) if !p.found && p.reason == PlanReason::Blocked => Some(p.start),
            Event::Planned(p) => Some(p.goal),
            Event::Moved(m) => Some(m.to),
            Event::Arrived(a) => Some(a.cell),
            Event::CellChanged(CellChange::SetWalkable { cell, .. })
            | Event::CellChanged(CellChange::SetCost { cell, .. }) => Some(cell),
        }
    }

    /// A small number whose meaning the kind gives: a plan's [`PlanReason::code`]; 1 for an
    /// arrival that counts as a goal reached, else 0; for a map edit 1 made walkable, 0
    /// blocked, 2 a new cost; 0 for the other kinds.
    pub fn detail(&self) -> u8 {
        match *self {
            Event::Planned(p) => p.reason.code(),
            Event::Arrived(a) => u8::from(a.counted),
            Event::CellChanged(CellChange::SetWalkable { walkable, .. }) => u8::from(walkable),
            Event::CellChanged(CellChange::SetCost { .. }) => 2,
            _ => 0,
        }
    }
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
    /// Per agent of `added`: the cell it was added on.
    pub(crate) added_cells: Vec<CellId>,
    pub(crate) removed: Vec<AgentId>,
    /// Per agent of `removed`: the cell it stood on.
    pub(crate) removed_cells: Vec<CellId>,
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
        self.added_cells.clear();
        self.removed.clear();
        self.removed_cells.clear();
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

    /// Every event of the tick in one list, grouped by kind in this order: agents added,
    /// agents removed, goals given or cleared, map edits (the calls since the tick before, then
    /// those of the tick itself), plans, moves, arrivals. Within a kind, in the order things
    /// happened. The outcomes of external actions are not in it (see
    /// [`outcomes`](Self::outcomes)).
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{Event, SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("...")?, SimConfig::default())?;
    /// let id = sim.add_agent(0, Some(1))?;
    /// sim.step();
    /// let kinds: Vec<&str> = sim
    ///     .last_events()
    ///     .all()
    ///     .map(|e| match e {
    ///         Event::Added { .. } => "added",
    ///         Event::Planned(_) => "planned",
    ///         Event::Moved(_) => "moved",
    ///         Event::Arrived(_) => "arrived",
    ///         _ => "other",
    ///     })
    ///     .collect();
    /// assert_eq!(kinds, ["added", "planned", "moved", "arrived"]);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    pub fn all(&self) -> impl Iterator<Item = Event> + '_ {
        let added = (self.added.iter().zip(&self.added_cells))
            .map(|(&agent, &cell)| Event::Added { agent, cell });
        let removed = (self.removed.iter().zip(&self.removed_cells))
            .map(|(&agent, &cell)| Event::Removed { agent, cell });
        added
            .chain(removed)
            .chain(self.goals.iter().map(|&g| Event::GoalChanged(g)))
            .chain(self.cells.iter().map(|&c| Event::CellChanged(c)))
            .chain(self.plans.iter().map(|&p| Event::Planned(p)))
            .chain(self.moves.iter().map(|&m| Event::Moved(m)))
            .chain(self.arrivals.iter().map(|&a| Event::Arrived(a)))
    }

    /// Calls `f` with each event of [`all`](Self::all), in the same order: a loop per kind,
    /// where the chained iterator of `all` decides the kind again for every event (the C ABI
    /// converts every event of a tick this way: about 8,500 a tick on the default scenario).
    #[inline]
    pub fn for_each_event(&self, mut f: impl FnMut(Event)) {
        for (&agent, &cell) in self.added.iter().zip(&self.added_cells) {
            f(Event::Added { agent, cell });
        }
        for (&agent, &cell) in self.removed.iter().zip(&self.removed_cells) {
            f(Event::Removed { agent, cell });
        }
        for &g in &self.goals {
            f(Event::GoalChanged(g));
        }
        for &c in &self.cells {
            f(Event::CellChanged(c));
        }
        for &p in &self.plans {
            f(Event::Planned(p));
        }
        for &m in &self.moves {
            f(Event::Moved(m));
        }
        for &a in &self.arrivals {
            f(Event::Arrived(a));
        }
    }

    /// How many events [`all`](Self::all) lists.
    pub fn len(&self) -> usize {
        self.added.len()
            + self.removed.len()
            + self.goals.len()
            + self.cells.len()
            + self.plans.len()
            + self.moves.len()
            + self.arrivals.len()
    }

    /// Whether [`all`](Self::all) lists nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        self.goals.push(GoalChange {
            agent,
            goal: Some(goal),
        });
    }

    pub(crate) fn goal_cleared(&mut self, agent: AgentId) {
        self.goals.push(GoalChange { agent, goal: None });
    }

    pub(crate) fn agent_added(&mut self, agent: AgentId, cell: CellId) {
        self.added.push(agent);
        self.added_cells.push(cell);
    }

    pub(crate) fn agent_removed(&mut self, agent: AgentId, cell: CellId) {
        self.removed.push(agent);
        self.removed_cells.push(cell);
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
        self.added_cells.extend_from_slice(&other.added_cells);
        self.removed.extend_from_slice(&other.removed);
        self.removed_cells.extend_from_slice(&other.removed_cells);
    }
}
