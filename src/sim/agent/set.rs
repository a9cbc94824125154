//! The generational arena that holds the agents, with every slot's cell in one flat array.

use super::{Agent, AgentId};
use crate::grid::{CellId, NO_CELL};

#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) generation: u32,
    pub(super) agent: Option<Agent>,
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
    pub(super) slots: Vec<Slot>,
    /// Each slot's cell, [`NO_CELL`] for a free slot: an exact mirror of the
    /// agents' `position` fields.
    pub(super) positions: Vec<CellId>,
    /// Free slot indices, reused last-freed first.
    pub(super) free: Vec<u32>,
    pub(super) len: usize,
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

    /// Every slot's cell, indexed by slot ([`AgentId::index`]): [`NO_CELL`] where
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
            && self
                .slots
                .iter()
                .zip(&self.positions)
                .all(|(s, &p)| s.agent.as_ref().map_or(p == NO_CELL, |a| a.position == p))
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
        self.positions[id.index as usize] = NO_CELL;
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
    use crate::sim::agent::Agent;

    #[test]
    fn stale_handles_never_alias() {
        let mut set = AgentSet::new();
        let a = set.insert(Agent::new(1, 0, None, false));
        let b = set.insert(Agent::new(2, 0, None, false));
        assert_eq!(set.remove(a).map(|x| x.position), Some(1));
        assert!(set.get(a).is_none());
        assert!(set.remove(a).is_none(), "double remove");
        let c = set.insert(Agent::new(3, 0, None, false));
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
        assert_eq!(set.positions(), &[3, NO_CELL]);
        set.at_mut(c.index()).unwrap().position = 7;
        assert!(
            !set.positions_agree(),
            "the record moved, the flat array not yet"
        );
        set.sync_position(c.index());
        assert_eq!(set.positions(), &[7, NO_CELL]);
        assert!(set.positions_agree());
    }
}
