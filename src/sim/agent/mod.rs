//! Agents: their handles, their states, and the one record of an agent, changed only through
//! its named transitions (a goal given, a path adopted, the route cleared, a wait, an arrival,
//! leaving the goal, a move), so that every reset is written once.
//!
//! An [`AgentId`] is a slot index plus the slot's generation. Removing an agent bumps the
//! generation, so a stale id never reaches the agent that later reuses the slot: it gets
//! `None` ([`AgentSet`], `set.rs`). How a move changes the agent's route is `route.rs`; the
//! route is kept compact, 4 bits a step (`route_code.rs`), and the set mirrors the start of
//! every route, decoded, in a flat array for ranking (`window.rs`).

mod route;
mod route_code;
mod set;
mod snapshot;
mod window;

pub(crate) use route::{Arrived, Chosen, MoveCosts, PlainSteps, RANK_WINDOW, UNIT, WALK_WINDOW};
pub(crate) use route_code::{Cells, RouteCode};
pub(crate) use set::AgentMut;
pub use set::AgentSet;
pub(crate) use window::Window;

use serde::{Deserialize, Serialize};

use super::action_model::Heading;
use super::events::{ArrivalKind, PlanReason};
use crate::dstar::DStarLite;
use crate::grid::{CellId, Grid};
use crate::planner::PlannerKind;

/// Handle of an agent. Copyable; stale handles (of removed agents) resolve to nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AgentId {
    index: u32,
    generation: u32,
}

impl AgentId {
    /// The slot index (dense, reused after removal): handy to index per-agent arrays.
    #[inline]
    pub fn index(self) -> u32 {
        self.index
    }

    /// The slot's generation when the handle was made.
    #[inline]
    pub fn generation(self) -> u32 {
        self.generation
    }

    /// The handle as one number, `generation << 32 | index`: how the Python bindings show
    /// agent ids. [`AgentId::from_bits`] reads it back.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{AgentId, SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("...")?, SimConfig::default())?;
    /// let a = sim.add_agent(0, None)?;
    /// sim.remove_agent(a)?;
    /// let b = sim.add_agent(0, None)?; // the same slot, one generation on
    /// assert_eq!(b.to_bits(), 1 << 32);
    /// assert_eq!(AgentId::from_bits(b.to_bits()), b);
    /// assert!(sim.agent(AgentId::from_bits(a.to_bits())).is_none()); // stale
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    #[inline]
    pub fn to_bits(self) -> u64 {
        u64::from(self.generation) << 32 | u64::from(self.index)
    }

    /// The handle written by [`AgentId::to_bits`]. Any number makes a handle; one that names no
    /// live agent resolves to nothing (as a removed agent's handle does).
    #[inline]
    pub fn from_bits(bits: u64) -> AgentId {
        AgentId {
            index: bits as u32,
            generation: (bits >> 32) as u32,
        }
    }
}

/// What an agent is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    /// No goal.
    Idle,
    /// Has a goal and waits for a plan (queued; plans are made in the planning phase, possibly
    /// over several ticks when plans per tick are capped).
    Planning,
    /// Following its path.
    Moving,
    /// Its next cell was taken this tick; it stays and tries again.
    Waiting,
    /// Reached its goal.
    Arrived,
    /// The planner found no path to the goal (unreachable or over the node budget).
    NoPath,
}

impl AgentState {
    /// A small stable number per state, used in state hashes.
    pub fn code(self) -> u8 {
        match self {
            AgentState::Idle => 0,
            AgentState::Planning => 1,
            AgentState::Moving => 2,
            AgentState::Waiting => 3,
            AgentState::Arrived => 4,
            AgentState::NoPath => 5,
        }
    }
}

/// One agent. Read it through [`crate::sim::Simulation::agent`].
#[derive(Debug, Clone)]
pub struct Agent {
    position: CellId,
    goal: Option<CellId>,
    /// The planned route from the agent's place on it (its position while moving) to the goal;
    /// the cells behind are dropped.
    route: RouteCode,
    state: AgentState,
    /// Pending plan request, with the tick it was made (oldest are served first).
    plan_request: Option<(PlanReason, u64)>,
    /// Consecutive ticks spent waiting.
    waited: u32,
    /// Failed plans around other agents since the agent last moved: each one doubles the wait
    /// before the next try (see [`crate::sim::SimConfig::replan_after_waits`]).
    blocked_failures: u32,
    /// Whether the current path came from a detour around other agents (the next replan
    /// around them then searches the whole way to the goal).
    detoured: bool,
    /// Tick the agent was added or last given a goal (start of its current trip).
    trip_start: u64,
    /// Time it last arrived at its goal (see [`Agent::arrived_at`]).
    arrived_at: Option<u64>,
    goals_reached: u32,
    moves: u64,
    /// D* Lite state of an agent planned by [`crate::planner::PlannerKind::DStar`] (made on its
    /// first plan, kept between plans and repaired on map changes).
    dstar: Option<Box<DStarLite>>,
    /// The agent's own planner, overriding [`crate::sim::SimConfig::planner`].
    planner: Option<PlannerKind>,
    /// Conflict mode `pibt`: cells at the start of `route` spliced in after the agent
    /// was pushed off its route (see `route.rs`).
    drift: u32,
    /// Conflict mode `pibt`: ticks since the agent last stood on its goal (its priority).
    urgency: u32,
    /// The goal of the current trip has been counted as reached: arriving there again (after
    /// being moved off it) is not a new goal (see `route.rs`).
    goal_counted: bool,
    /// Action model `rotate`: the way the agent faces.
    heading: Heading,
    /// Action model `rotate`: the neighbouring cell the movement phase sent the agent to, while
    /// it turns to face it or waits for it to be left (see `sim::action_model`).
    committed: Option<CellId>,
    /// Driven from outside (see [`crate::sim::Simulation::set_controlled`]): never planned for,
    /// no route, moves only when given an action.
    controlled: bool,
    /// Its priority class in conflicts (see [`crate::sim::Simulation::set_priority`]); 0 by
    /// default.
    priority: u8,
}

/// Reading an agent.
impl Agent {
    /// Its priority class in conflicts (see [`crate::sim::Simulation::set_priority`]).
    #[inline]
    pub fn priority(&self) -> u8 {
        self.priority
    }

    /// Whether the agent is driven from outside (see
    /// [`crate::sim::Simulation::set_controlled`]).
    #[inline]
    pub fn is_controlled(&self) -> bool {
        self.controlled
    }

    /// The agent's own planner, when it has one (set by
    /// [`crate::sim::Simulation::add_agent_with_planner`]); `None` means it plans with
    /// [`crate::sim::SimConfig::planner`].
    #[inline]
    pub fn planner(&self) -> Option<PlannerKind> {
        self.planner
    }

    /// Current cell.
    #[inline]
    pub fn position(&self) -> CellId {
        self.position
    }

    /// Goal cell, if any.
    #[inline]
    pub fn goal(&self) -> Option<CellId> {
        self.goal
    }

    /// The way the agent faces (meaningful under [`crate::sim::ActionModel::Rotate`]; agents
    /// start facing east unless [`crate::sim::Simulation::set_heading`] says otherwise).
    #[inline]
    pub fn heading(&self) -> Heading {
        self.heading
    }

    /// Current state.
    #[inline]
    pub fn state(&self) -> AgentState {
        self.state
    }

    /// Bytes the agent's route holds (the capacity of its buffer of step codes).
    pub(crate) fn route_bytes(&self) -> usize {
        self.route.bytes()
    }

    /// The cells still ahead on the current path, nearest first (none when not moving). The
    /// route is kept compact (4 bits a step), so its cells are decoded as they are read.
    ///
    /// ```
    /// use throng::grid::Grid;
    /// use throng::sim::{SimConfig, Simulation};
    ///
    /// let mut sim = Simulation::new(Grid::from_ascii("....")?, SimConfig::default())?;
    /// let a = sim.add_agent(0, Some(3))?;
    /// sim.step();
    /// let ahead: Vec<u32> = sim.agent(a).unwrap().remaining_path().collect();
    /// assert_eq!(ahead, [2, 3]);
    /// # Ok::<(), throng::error::Error>(())
    /// ```
    pub fn remaining_path(&self) -> impl ExactSizeIterator<Item = CellId> + Clone + '_ {
        let mut cells = match self.state {
            AgentState::Moving | AgentState::Waiting => self.route.cells(),
            _ => Cells::empty(),
        };
        cells.next();
        cells
    }

    /// The next cell on the path, if the agent has one to go to.
    #[inline]
    pub(crate) fn next_cell(&self) -> Option<CellId> {
        match self.state {
            AgentState::Moving | AgentState::Waiting => self.route.second(),
            _ => None,
        }
    }

    /// Goals reached so far.
    pub fn goals_reached(&self) -> u32 {
        self.goals_reached
    }

    /// Cells moved so far.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Time of the last arrival at a goal: the time from which the agent stands on it, time `t`
    /// being the moment tick `t` begins. An agent that steps onto its goal during tick `t`
    /// arrives at time `t + 1`; one that already stands on it when tick `t` is played (given
    /// the cell it stands on as goal, or planned from there) arrives at time `t`. A trip's
    /// cost in the run summary is this time minus the time the goal was given (MAPF
    /// convention: 0 for an agent that starts on its goal). One rule for every arrival
    /// (`route.rs`).
    pub fn arrived_at(&self) -> Option<u64> {
        self.arrived_at
    }

    /// Bytes held by the agent's D* Lite state (0 without one).
    pub fn dstar_bytes(&self) -> usize {
        self.dstar.as_ref().map_or(0, |d| d.memory_bytes())
    }

    /// The ticks the current trip took, for an agent at its goal (the run summary's trips).
    pub(crate) fn trip_cost(&self) -> Option<u64> {
        (self.state == AgentState::Arrived)
            .then(|| self.arrived_at.map(|t| t.saturating_sub(self.trip_start)))
            .flatten()
    }

    /// The agent's D* Lite state, if it has one.
    pub(crate) fn dstar(&self) -> Option<&DStarLite> {
        self.dstar.as_deref()
    }

    /// Route cells left to the goal from where the agent stands, when it follows its route
    /// (`None`: waiting for a plan, or off its route).
    pub(crate) fn route_left(&self) -> Option<u32> {
        route::on_route(self).then(|| self.route.len() as u32)
    }

    /// The pending plan request's tick, if the agent waits for a plan.
    #[inline]
    pub(crate) fn plan_requested_at(&self) -> Option<u64> {
        self.plan_request.map(|(_, tick)| tick)
    }

    /// Whether the current path is a detour around other agents.
    pub(crate) fn detoured(&self) -> bool {
        self.detoured
    }

    /// Ticks since the agent last stood on its goal (conflict mode `pibt`: its priority).
    #[inline]
    pub(crate) fn urgency(&self) -> u32 {
        self.urgency
    }

    /// Action model `rotate`: the cell the agent is committed to (see `sim::action_model`).
    #[inline]
    pub(crate) fn committed(&self) -> Option<CellId> {
        self.committed
    }

    /// The agent's route from where it stands, and its drift, when it follows one.
    #[inline]
    pub(crate) fn ahead(&self) -> Option<(Cells<'_>, u32)> {
        route::ahead(self)
    }

    /// Writes the first `drift + window` cells of the agent's route from where it stands into
    /// `out` (as many as fit) and returns how many, with its drift, when it follows one.
    #[inline]
    pub(crate) fn ahead_into(&self, out: &mut [CellId], window: usize) -> Option<(usize, u32)> {
        let want = (self.drift as usize + window).min(out.len());
        route::on_route(self).then(|| (self.route.decode_into(&mut out[..want]), self.drift))
    }
}

/// The transitions: every change to an agent goes through one of these.
impl Agent {
    /// A new agent on `position` in `tick`, with no goal.
    pub(crate) fn new(
        position: CellId,
        tick: u64,
        planner: Option<PlannerKind>,
        controlled: bool,
    ) -> Agent {
        Agent {
            position,
            goal: None,
            route: RouteCode::default(),
            state: AgentState::Idle,
            plan_request: None,
            waited: 0,
            blocked_failures: 0,
            detoured: false,
            trip_start: tick,
            arrived_at: None,
            goals_reached: 0,
            moves: 0,
            dstar: None,
            planner,
            drift: 0,
            urgency: 0,
            goal_counted: false,
            heading: Heading::East,
            committed: None,
            controlled,
            priority: 0,
        }
    }

    /// Sets a new goal and queues a plan (or arrives at once when already there). A controlled
    /// agent gets no plan: it is on its way (state moving) as its driver moves it; one given
    /// the cell it stands on arrives when the next tick is played (the simulation sees to it).
    pub(crate) fn set_goal(&mut self, goal: CellId, tick: u64) {
        self.goal = Some(goal);
        self.trip_start = tick;
        self.arrived_at = None;
        self.goal_counted = false;
        self.clear_route();
        self.waited = 0;
        if self.controlled {
            self.state = AgentState::Moving;
            self.plan_request = None;
            return;
        }
        self.request_plan(PlanReason::NewGoal, tick);
        if let Some(dstar) = &mut self.dstar {
            dstar.set_goal(goal);
        }
    }

    /// Sets its priority class.
    pub(crate) fn set_priority(&mut self, priority: u8) {
        self.priority = priority;
    }

    /// Sets its own planner (`None`: the simulation's) in `tick`: an agent on its way to a goal
    /// plans again with it; a D* Lite search of its own is dropped when it leaves that planner.
    pub(crate) fn set_planner(&mut self, planner: Option<PlannerKind>, tick: u64) {
        if planner == self.planner {
            return;
        }
        self.planner = planner;
        if planner != Some(PlannerKind::DStar) {
            self.dstar = None;
        }
        let on_its_way = matches!(
            self.state,
            AgentState::Planning | AgentState::Moving | AgentState::Waiting | AgentState::NoPath
        );
        if on_its_way && self.goal.is_some() && !self.controlled {
            self.clear_route();
            self.request_plan(PlanReason::NewGoal, tick);
        }
    }

    /// Drops the goal and the route: the agent stands, idle, with no plan asked for.
    pub(crate) fn clear_goal(&mut self) {
        self.goal = None;
        self.arrived_at = None;
        self.goal_counted = false;
        self.clear_route();
        self.waited = 0;
        self.blocked_failures = 0;
        self.detoured = false;
        self.committed = None;
        self.plan_request = None;
        self.state = AgentState::Idle;
    }

    /// Gives the agent `route` of its own (from its cell to its new goal, the last cell, on a
    /// grid `width` wide) in `tick`: no planner is asked.
    pub(crate) fn set_route(&mut self, route: &[CellId], width: u32, tick: u64) {
        self.set_goal(*route.last().expect("a route is not empty"), tick);
        if route.len() > 1 {
            self.route.set(route, width);
            self.plan_request = None;
            self.state = AgentState::Moving;
            self.blocked_failures = 0;
            self.detoured = false;
        }
    }

    /// Makes the agent driven from outside or planned again in `tick` (see
    /// [`crate::sim::Simulation::set_controlled`]); returns whether it is a controlled agent
    /// standing on the goal it has not arrived at (it arrives when the next tick is played).
    pub(crate) fn set_controlled(&mut self, controlled: bool, tick: u64) -> bool {
        if self.controlled == controlled {
            return false;
        }
        self.controlled = controlled;
        self.clear_route();
        self.waited = 0;
        self.blocked_failures = 0;
        self.detoured = false;
        self.committed = None;
        if controlled {
            self.plan_request = None;
            self.dstar = None;
            if self.goal.is_some() && self.state != AgentState::Arrived {
                self.state = AgentState::Moving;
                return self.goal == Some(self.position);
            }
        } else if self.goal.is_some() {
            if self.state == AgentState::Arrived {
                // A route of one cell: where it stays (no step, so no width needed).
                self.route.set(&[self.position], 0);
            } else {
                self.request_plan(PlanReason::NewGoal, tick);
            }
        }
        false
    }

    /// Turns the agent to face `heading`.
    pub(crate) fn set_heading(&mut self, heading: Heading) {
        self.heading = heading;
    }

    /// The map changed in `tick` (`opened`: some cell became walkable; `costed`: the cells
    /// whose cost changed): an agent whose route ahead crosses a cell no longer walkable, or
    /// a cell of a new cost, stops until a new plan (with a plan cap the replan may wait for a
    /// later tick, and the old route would walk into the new wall meanwhile); one without a
    /// path tries again when a way may have opened. A controlled agent has no route: its
    /// driver sees the new map. `scratch` holds the decoded route meanwhile.
    pub(crate) fn map_changed(
        &mut self,
        grid: &Grid,
        opened: bool,
        costed: &std::collections::HashSet<CellId>,
        tick: u64,
        scratch: &mut Vec<CellId>,
    ) {
        if self.controlled {
            return;
        }
        let moving = matches!(self.state, AgentState::Moving | AgentState::Waiting);
        if moving {
            scratch.clear();
            scratch.extend(self.route.cells());
        }
        match self.state {
            AgentState::Moving | AgentState::Waiting
                if grid.path_cost(scratch).is_err()
                    || (!costed.is_empty() && scratch[1..].iter().any(|c| costed.contains(c))) =>
            {
                self.clear_route();
                self.request_plan(PlanReason::MapChanged, tick);
            }
            AgentState::NoPath if opened && self.goal.is_some() => {
                self.request_plan(PlanReason::MapChanged, tick);
            }
            _ => {}
        }
    }

    /// Drops the route (the path and the agent's place and drift on it).
    pub(crate) fn clear_route(&mut self) {
        self.route.clear();
        self.drift = 0;
    }

    /// Stops the agent until a new plan, asked for `reason` in `tick` (state planning).
    pub(crate) fn request_plan(&mut self, reason: PlanReason, tick: u64) {
        self.state = AgentState::Planning;
        self.plan_request = Some((reason, tick));
    }

    /// Asks for a new plan for `reason` in `tick` unless one is pending, going on meanwhile
    /// (pushed far off the route, or waiting behind others).
    pub(crate) fn ask_plan(&mut self, reason: PlanReason, tick: u64) {
        if self.plan_request.is_none() {
            self.plan_request = Some((reason, tick));
        }
    }

    /// Takes the pending plan request's reason (the planning phase serves it).
    pub(crate) fn take_plan_request(&mut self) -> Option<PlanReason> {
        self.plan_request.take().map(|(reason, _)| reason)
    }

    /// Writes the agent's route, from its place on it, into `buffer` (the planning phase
    /// gives it to a waiting agent's replan around others).
    pub(crate) fn copy_route(&self, buffer: &mut Vec<CellId>) {
        buffer.clear();
        buffer.extend(self.route.cells());
    }

    /// Takes the agent's D* Lite state out (for a plan on another thread).
    pub(crate) fn take_dstar(&mut self) -> Option<Box<DStarLite>> {
        self.dstar.take()
    }

    /// Gives the agent its D* Lite state (back).
    pub(crate) fn put_dstar(&mut self, dstar: Box<DStarLite>) {
        self.dstar = Some(dstar);
    }

    /// The agent's D* Lite state, to tell it of map changes.
    pub(crate) fn dstar_mut(&mut self) -> Option<&mut DStarLite> {
        self.dstar.as_deref_mut()
    }

    /// Adopts the new path in `path` (taken, leaving it empty), made in `tick`: the agent
    /// moves along it, or arrives when the path is its own cell (planned from its goal).
    pub(crate) fn adopt_path(
        &mut self,
        path: &mut RouteCode,
        detoured: bool,
        tick: u64,
    ) -> Arrived {
        self.route.take(path);
        self.detoured = detoured;
        self.drift = 0;
        self.waited = 0;
        if self.route.len() > 1 {
            self.state = AgentState::Moving;
            None
        } else if self.state != AgentState::Arrived {
            Some(self.arrive(tick, ArrivalKind::Standing))
        } else {
            None
        }
    }

    /// A plan around other agents found nothing: the agent keeps its route and waits twice as
    /// long before the next try.
    pub(crate) fn blocked_plan_failed(&mut self) {
        self.blocked_failures += 1;
    }

    /// The planner found no path to the goal.
    pub(crate) fn no_path(&mut self) {
        self.clear_route();
        self.state = AgentState::NoPath;
    }

    /// The goal was given where a controlled agent stands, in `tick`: it arrives (when the
    /// tick is played), unless it has already.
    pub(crate) fn settle(&mut self, tick: u64) -> Arrived {
        (self.controlled && self.goal == Some(self.position) && self.state != AgentState::Arrived)
            .then(|| self.arrive(tick, ArrivalKind::Standing))
    }

    /// The agent stays this tick: one with a next route cell waits (one more tick waited);
    /// returns whether it waits.
    pub(crate) fn wait(&mut self) -> bool {
        if self.next_cell().is_none() {
            return false;
        }
        self.state = AgentState::Waiting;
        self.waited += 1;
        true
    }

    /// The agent stays as told (an action, or a move refused): one with a next route cell
    /// waits, without counting toward a replan around others; returns whether it waits.
    pub(crate) fn hold(&mut self) -> bool {
        if self.next_cell().is_none() {
            return false;
        }
        self.state = AgentState::Waiting;
        true
    }

    /// After [`wait`](Self::wait) in conflict modes `off` and `avoid`: having waited
    /// `patience` ticks, the agent asks for a plan around the others in `tick`.
    pub(crate) fn lose_patience(&mut self, patience: u32, tick: u64) {
        let patience = patience.saturating_mul(1 << self.blocked_failures.min(5));
        if self.waited >= patience && self.plan_request.is_none() {
            self.plan_request = Some((PlanReason::Blocked, tick));
            self.waited = 0;
        }
    }

    /// A controlled agent with a goal that did not move and is not on its goal is waiting.
    pub(crate) fn settle_controlled(&mut self, moved: bool) {
        if self.controlled
            && !moved
            && self.goal.is_some()
            && matches!(self.state, AgentState::Moving | AgentState::Waiting)
        {
            self.state = AgentState::Waiting;
        }
    }

    /// Counts the tick in the agent's urgency (reset while it has no goal or stands on it).
    #[inline]
    pub(crate) fn tick_urgency(&mut self) {
        if self.state == AgentState::Arrived || self.goal.is_none() {
            self.urgency = 0;
        } else {
            self.urgency = self.urgency.saturating_add(1);
        }
    }

    /// Action model `rotate`: sets or drops the agent's commitment to a cell.
    #[inline]
    pub(crate) fn commit(&mut self, cell: Option<CellId>) {
        self.committed = cell;
    }

    /// Action model `rotate`: turns toward `want` (a quarter turn at most).
    pub(crate) fn turn_toward(&mut self, want: Heading) {
        self.heading = self.heading.after(self.heading.turn_toward(want));
    }
}
