//! Agents and the generational arena that holds them.
//!
//! An [`AgentId`] is a slot index plus the slot's generation. Removing an agent bumps the
//! generation, so a stale id never reaches the agent that later reuses the slot: it gets
//! `None`.

use serde::{Deserialize, Serialize};

use super::action_model::Heading;
use super::events::PlanReason;
use crate::dstar::DStarLite;
use crate::grid::CellId;
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
    pub(crate) position: CellId,
    pub(crate) goal: Option<CellId>,
    /// The planned path, start to goal; `path[cursor]` is the current position while moving.
    pub(crate) path: Vec<CellId>,
    pub(crate) cursor: usize,
    pub(crate) state: AgentState,
    /// Pending plan request, with the tick it was made (oldest are served first).
    pub(crate) plan_request: Option<(PlanReason, u64)>,
    /// Consecutive ticks spent waiting.
    pub(crate) waited: u32,
    /// Failed plans around other agents since the agent last moved: each one doubles the wait
    /// before the next try (see [`crate::sim::SimConfig::replan_after_waits`]).
    pub(crate) blocked_failures: u32,
    /// Whether the current path came from a detour around other agents (the next replan
    /// around them then searches the whole way to the goal).
    pub(crate) detoured: bool,
    /// Tick the agent was added or last given a goal (start of its current trip).
    pub(crate) trip_start: u64,
    /// Time it last arrived at its goal (see [`Agent::arrived_at`]).
    pub(crate) arrived_at: Option<u64>,
    pub(crate) goals_reached: u32,
    pub(crate) moves: u64,
    /// D* Lite state of an agent planned by [`crate::planner::PlannerKind::DStar`] (made on its first
    /// plan, kept between plans and repaired on map changes).
    pub(crate) dstar: Option<Box<DStarLite>>,
    /// The agent's own planner, overriding [`crate::sim::SimConfig::planner`].
    pub(crate) planner: Option<PlannerKind>,
    /// Conflict mode `pibt`: cells at the start of `path[cursor..]` spliced in after the agent
    /// was pushed off its route (see `sim::route`).
    pub(crate) drift: u32,
    /// Conflict mode `pibt`: ticks since the agent last stood on its goal (its priority).
    pub(crate) urgency: u32,
    /// The goal of the current trip has been counted as reached: arriving there again (after
    /// being moved off it) is not a new goal (see `sim::route`).
    pub(crate) goal_counted: bool,
    /// Action model `rotate`: the way the agent faces.
    pub(crate) heading: Heading,
    /// Action model `rotate`: the neighbouring cell the movement phase sent the agent to, while
    /// it turns to face it or waits for it to be left (see `sim::action_model`).
    pub(crate) committed: Option<CellId>,
    /// Driven from outside (see [`crate::sim::Simulation::set_controlled`]): never planned for,
    /// no route, moves only when given an action.
    pub(crate) controlled: bool,
}

impl Agent {
    pub(crate) fn new(position: CellId, tick: u64) -> Agent {
        Agent {
            position,
            goal: None,
            path: Vec::new(),
            cursor: 0,
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
            planner: None,
            drift: 0,
            urgency: 0,
            goal_counted: false,
            heading: Heading::East,
            committed: None,
            controlled: false,
        }
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

    /// The cells still ahead on the current path (empty when not moving).
    pub fn remaining_path(&self) -> &[CellId] {
        match self.state {
            AgentState::Moving | AgentState::Waiting => {
                self.path.get(self.cursor + 1..).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The next cell on the path, if the agent has one to go to.
    #[inline]
    pub(crate) fn next_cell(&self) -> Option<CellId> {
        match self.state {
            AgentState::Moving | AgentState::Waiting => self.path.get(self.cursor + 1).copied(),
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
    /// (`sim::route`).
    pub fn arrived_at(&self) -> Option<u64> {
        self.arrived_at
    }

    /// Sets a new goal and queues a plan (or arrives at once when already there). A controlled
    /// agent gets no plan: it is on its way (state moving) as its driver moves it; one given
    /// the cell it stands on arrives when the next tick is played (the simulation sees to it).
    pub(crate) fn set_goal(&mut self, goal: CellId, tick: u64) {
        self.goal = Some(goal);
        self.trip_start = tick;
        self.arrived_at = None;
        self.path.clear();
        self.cursor = 0;
        self.waited = 0;
        self.drift = 0;
        self.goal_counted = false;
        if self.controlled {
            self.state = AgentState::Moving;
            self.plan_request = None;
            return;
        }
        self.state = AgentState::Planning;
        self.plan_request = Some((PlanReason::NewGoal, tick));
        if let Some(dstar) = &mut self.dstar {
            dstar.set_goal(goal);
        }
    }

    /// Bytes held by the agent's D* Lite state (0 without one).
    pub fn dstar_bytes(&self) -> usize {
        self.dstar.as_ref().map_or(0, |d| d.memory_bytes())
    }
}

#[derive(Debug, Clone)]
struct Slot {
    generation: u32,
    agent: Option<Agent>,
}

/// The agents of a simulation, in a generational arena. Iteration is in slot order, which
/// makes every pass over the agents deterministic.
///
/// Besides the agent records, the set keeps every slot's cell in one contiguous array
/// ([`AgentSet::positions`], `CellId::MAX` for a free slot), written wherever an agent is added,
/// removed or moved: readers that want only positions (the Python bindings' `positions()`, the
/// PIBT movement phase) copy one flat array instead of walking the records.
#[derive(Debug, Clone, Default)]
pub struct AgentSet {
    slots: Vec<Slot>,
    /// Each slot's cell, [`AgentSet::NO_POSITION`] for a free slot: an exact mirror of the
    /// agents' `position` fields.
    positions: Vec<CellId>,
    /// Free slot indices, reused last-freed first.
    free: Vec<u32>,
    len: usize,
}

impl AgentSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live agents.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no agent.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of slots (live or free); slot indices are `0..capacity_slots()`.
    #[inline]
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The entry of a free slot in [`AgentSet::positions`].
    pub const NO_POSITION: CellId = CellId::MAX;

    /// Every slot's cell, indexed by slot ([`AgentId::index`]): [`AgentSet::NO_POSITION`] where
    /// the slot is free. Always equal to the agents' [`Agent::position`]s.
    #[inline]
    pub fn positions(&self) -> &[CellId] {
        &self.positions
    }

    /// Copies the record's position of the agent in `slot` into [`AgentSet::positions`] (for
    /// the movement phases, which move agents through `&mut Agent`).
    #[inline]
    pub(crate) fn sync_position(&mut self, slot: u32) {
        if let Some(cell) = self.at(slot).map(|a| a.position) {
            self.positions[slot as usize] = cell;
        }
    }

    /// Whether [`AgentSet::positions`] agrees with every record (a check for tests and debug
    /// builds).
    pub fn positions_agree(&self) -> bool {
        self.positions.len() == self.slots.len()
            && self.slots.iter().zip(&self.positions).all(|(s, &p)| {
                s.agent
                    .as_ref()
                    .map_or(p == Self::NO_POSITION, |a| a.position == p)
            })
    }

    pub(crate) fn insert(&mut self, agent: Agent) -> AgentId {
        self.len += 1;
        if let Some(index) = self.free.pop() {
            self.positions[index as usize] = agent.position;
            let slot = &mut self.slots[index as usize];
            slot.agent = Some(agent);
            AgentId {
                index,
                generation: slot.generation,
            }
        } else {
            let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 agents");
            self.positions.push(agent.position);
            self.slots.push(Slot {
                generation: 0,
                agent: Some(agent),
            });
            AgentId {
                index,
                generation: 0,
            }
        }
    }

    pub(crate) fn remove(&mut self, id: AgentId) -> Option<Agent> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation || slot.agent.is_none() {
            return None;
        }
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.len -= 1;
        self.positions[id.index as usize] = Self::NO_POSITION;
        slot.agent.take()
    }

    /// The agent behind `id`, or `None` when it was removed.
    #[inline]
    pub fn get(&self, id: AgentId) -> Option<&Agent> {
        let slot = self.slots.get(id.index as usize)?;
        (slot.generation == id.generation)
            .then_some(slot.agent.as_ref())
            .flatten()
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: AgentId) -> Option<&mut Agent> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation == id.generation {
            slot.agent.as_mut()
        } else {
            None
        }
    }

    /// The live agent in slot `index`.
    #[inline]
    pub(crate) fn at(&self, index: u32) -> Option<&Agent> {
        self.slots.get(index as usize)?.agent.as_ref()
    }

    #[inline]
    pub(crate) fn at_mut(&mut self, index: u32) -> Option<&mut Agent> {
        self.slots.get_mut(index as usize)?.agent.as_mut()
    }

    /// The id of the live agent in slot `index`.
    pub fn id_at(&self, index: u32) -> Option<AgentId> {
        let slot = self.slots.get(index as usize)?;
        slot.agent.as_ref().map(|_| AgentId {
            index,
            generation: slot.generation,
        })
    }

    /// Live agents with their ids, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (AgentId, &Agent)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.agent.as_ref().map(|a| {
                (
                    AgentId {
                        index: i as u32,
                        generation: s.generation,
                    },
                    a,
                )
            })
        })
    }

    /// Live agents with their ids, in slot order, to change.
    pub(crate) fn iter_mut_ids(&mut self) -> impl Iterator<Item = (AgentId, &mut Agent)> {
        self.slots.iter_mut().enumerate().filter_map(|(i, s)| {
            let generation = s.generation;
            s.agent.as_mut().map(|a| {
                (
                    AgentId {
                        index: i as u32,
                        generation,
                    },
                    a,
                )
            })
        })
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut Agent)> {
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(|(i, s)| s.agent.as_mut().map(|a| (i as u32, a)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handles_never_alias() {
        let mut set = AgentSet::new();
        let a = set.insert(Agent::new(1, 0));
        let b = set.insert(Agent::new(2, 0));
        assert_eq!(set.remove(a).map(|x| x.position), Some(1));
        assert!(set.get(a).is_none());
        assert!(set.remove(a).is_none(), "double remove");
        let c = set.insert(Agent::new(3, 0));
        assert_eq!(c.index(), a.index(), "slot reused");
        assert_ne!(c, a);
        assert!(
            set.get(a).is_none(),
            "old handle does not reach the new agent"
        );
        assert_eq!(set.get(c).unwrap().position(), 3);
        assert_eq!(set.get(b).unwrap().position(), 2);
        assert_eq!(set.len(), 2);
        let ids: Vec<_> = set.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, vec![c, b]);
        assert_eq!(set.positions(), &[3, 2]);
        set.remove(b);
        assert_eq!(set.positions(), &[3, AgentSet::NO_POSITION]);
        set.at_mut(c.index()).unwrap().position = 7;
        assert!(
            !set.positions_agree(),
            "the record moved, the flat array not yet"
        );
        set.sync_position(c.index());
        assert_eq!(set.positions(), &[7, AgentSet::NO_POSITION]);
        assert!(set.positions_agree());
    }
}
