//! The generational arena that holds the agents, with every slot's cell and route window in
//! flat arrays, kept up to date by the one way to change an agent ([`AgentMut`]).

use std::ops::{Deref, DerefMut};

use rayon::prelude::*;

use super::route::on_route;
use super::window::{Stamp, Window};
use super::{Agent, AgentId, Arrived, Chosen};
use crate::grid::{CellId, NO_CELL};
use crate::sim::move_context::MoveContext;

/// How many slots ahead the agents' route codes are asked for (see [`crate::prefetch`]).
const PREFETCH_AHEAD: usize = 8;

#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) generation: u32,
    pub(super) agent: Option<Agent>,
}

impl Slot {
    /// Asks for its agent's route codes ahead of a read (see [`crate::prefetch`]).
    #[inline]
    fn prefetch_route(&self) {
        if let Some(agent) = &self.agent {
            agent.route.prefetch();
        }
    }
}

/// The agents of a simulation, in a generational arena. Iteration is in slot order, which
/// makes every pass over the agents deterministic.
///
/// Besides the agent records, the set keeps every slot's cell in one contiguous array
/// ([`AgentSet::positions`], `CellId::MAX` for a free slot), written wherever an agent is added,
/// removed or moved: readers that want only positions (the Python bindings' `positions()`, the
/// PIBT movement phase) copy one flat array instead of walking the records. It keeps the start
/// of every agent's route, decoded, the same way (see `window.rs`): PIBT's ranking reads those.
/// When an agent changed through the set is let go (`AgentMut`), its cell is written and its
/// window marked stale if it may have changed; `AgentSet::refresh_windows` decodes those.
#[derive(Clone, Default)]
pub struct AgentSet {
    pub(super) slots: Vec<Slot>,
    /// Each slot's cell, [`NO_CELL`] for a free slot: an exact mirror of the
    /// agents' `position` fields.
    pub(super) positions: Vec<CellId>,
    /// Each slot's route window (the default for a free slot): stale, or an exact mirror of
    /// [`Window::of`] the agent.
    pub(super) windows: Vec<Window>,
    /// Free slot indices, reused last-freed first.
    pub(super) free: Vec<u32>,
    pub(super) len: usize,
}

/// The records, their cells and the free list; not the route windows, which are decoded from
/// the records (and may be stale until the next movement phase refreshes them).
impl std::fmt::Debug for AgentSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSet")
            .field("slots", &self.slots)
            .field("positions", &self.positions)
            .field("free", &self.free)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
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

    /// The route window of the agent in `slot` (see `window.rs`), as of the last
    /// [`refresh_windows`](Self::refresh_windows).
    #[inline]
    pub(crate) fn window(&self, slot: u32) -> &Window {
        let window = &self.windows[slot as usize];
        debug_assert!(
            !window.is_stale(),
            "windows are refreshed before they are read"
        );
        window
    }

    /// Decodes every stale window again from its agent's record (on the pool when `parallel`
    /// and there are many agents). Windows depend on their own agent only, so the result does
    /// not depend on the threads.
    pub(crate) fn refresh_windows(&mut self, parallel: bool) {
        // In pieces, each asking for the route codes of the stale windows a few slots ahead
        // (one cache miss each in a large crowd) while it decodes this one.
        let refresh = |(windows, slots): (&mut [Window], &[Slot])| {
            for i in 0..windows.len() {
                if windows
                    .get(i + PREFETCH_AHEAD)
                    .is_some_and(Window::is_stale)
                {
                    slots[i + PREFETCH_AHEAD].prefetch_route();
                }
                if windows[i].is_stale() {
                    windows[i] = slots[i]
                        .agent
                        .as_ref()
                        .map_or_else(Window::default, Window::of);
                }
            }
        };
        if parallel && self.slots.len() >= 4096 {
            self.windows
                .par_chunks_mut(1024)
                .zip(self.slots.par_chunks(1024))
                .for_each(refresh);
        } else {
            refresh((&mut self.windows, &self.slots));
        }
    }

    /// Bytes of the route windows, one per slot (the run summary counts them with the routes).
    pub(crate) fn window_bytes(&self) -> usize {
        self.windows.len() * std::mem::size_of::<Window>()
    }

    /// Whether [`AgentSet::positions`] and the route windows that are not stale agree with
    /// every record (a check for tests and debug builds).
    pub fn positions_agree(&self) -> bool {
        self.positions.len() == self.slots.len()
            && self.windows.len() == self.slots.len()
            && self
                .slots
                .iter()
                .zip(&self.positions)
                .zip(&self.windows)
                .all(|((s, &p), w)| {
                    s.agent.as_ref().map_or(p == NO_CELL, |a| {
                        a.position == p && (w.is_stale() || w.agrees_with(a))
                    })
                })
    }

    pub(crate) fn insert(&mut self, agent: Agent) -> AgentId {
        self.len += 1;
        let window = Window::of(&agent);
        if let Some(index) = self.free.pop() {
            self.positions[index as usize] = agent.position;
            self.windows[index as usize] = window;
            let slot = &mut self.slots[index as usize];
            slot.agent = Some(agent);
            AgentId {
                index,
                generation: slot.generation,
            }
        } else {
            let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 agents");
            self.positions.push(agent.position);
            self.windows.push(window);
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
        self.windows[id.index as usize] = Window::default();
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

    /// The agent behind `id`, to change, or `None` when it was removed.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: AgentId) -> Option<AgentMut<'_>> {
        let slot = self.slots.get(id.index as usize)?;
        if slot.generation == id.generation {
            self.at_mut(id.index)
        } else {
            None
        }
    }

    /// The live agent in slot `index`.
    #[inline]
    pub(crate) fn at(&self, index: u32) -> Option<&Agent> {
        self.slots.get(index as usize)?.agent.as_ref()
    }

    /// The live agent in slot `index`, to change.
    #[inline]
    pub(crate) fn at_mut(&mut self, index: u32) -> Option<AgentMut<'_>> {
        let i = index as usize;
        let agent = self.slots.get_mut(i)?.agent.as_mut()?;
        Some(AgentMut::new(
            agent,
            &mut self.positions[i],
            &mut self.windows[i],
        ))
    }

    /// The id of the live agent in slot `index`.
    pub fn id_at(&self, index: u32) -> Option<AgentId> {
        let slot = self.slots.get(index as usize)?;
        slot.agent.as_ref().map(|_| AgentId {
            index,
            generation: slot.generation,
        })
    }

    /// Every live agent, with its id, mapped by `map`, the results combined by `add` from
    /// `zero`; on the pool when `parallel` (pieces of 4,096 slots). `add` must not care about
    /// order or grouping (a sum), so that the result is the same on any number of threads.
    pub(crate) fn sum_live<T, M, A>(&self, parallel: bool, zero: T, map: M, add: A) -> T
    where
        T: Send + Sync + Copy,
        M: Fn(AgentId, &Agent) -> T + Sync,
        A: Fn(T, T) -> T + Sync + Send,
    {
        let one = |(index, slot): (usize, &Slot)| {
            slot.agent.as_ref().map_or(zero, |a| {
                let id = AgentId {
                    index: index as u32,
                    generation: slot.generation,
                };
                map(id, a)
            })
        };
        if parallel && self.slots.len() >= 4096 {
            self.slots
                .par_iter()
                .enumerate()
                .with_min_len(4096)
                .map(one)
                .reduce(|| zero, &add)
        } else {
            self.slots.iter().enumerate().map(one).fold(zero, &add)
        }
    }

    /// Hands the allocator's free pages back to the system for a large crowd (see
    /// [`give_back_free_pages`]); called every few hundred ticks.
    pub(crate) fn give_back_memory(&self) {
        if self.len() >= TRIM_MIN_AGENTS {
            give_back_free_pages();
        }
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

    /// Live agents in slot order, to change.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (u32, AgentMut<'_>)> {
        self.slots
            .iter_mut()
            .zip(self.positions.iter_mut().zip(self.windows.iter_mut()))
            .enumerate()
            .filter_map(|(i, (s, (p, w)))| {
                s.agent.as_mut().map(|a| (i as u32, AgentMut::new(a, p, w)))
            })
    }
    /// Calls `f` with every live agent, to change, and its slot's entry of `out` (one per
    /// slot), on the rayon pool in pieces of `min_len` slots. Each call sees its own agent
    /// only, so the result does not depend on the threads. The route codes of the agent a few
    /// slots ahead are asked for where `prefetch(slot, window)` says `f` will read them.
    pub(crate) fn par_for_each_mut<T, F, P>(
        &mut self,
        out: &mut [T],
        min_len: usize,
        prefetch: P,
        f: F,
    ) where
        T: Send,
        F: Fn(u32, AgentMut<'_>, &mut T) + Sync,
        P: Fn(usize, &Window) -> bool + Sync,
    {
        assert_eq!(out.len(), self.slots.len(), "one entry per slot");
        self.slots
            .par_chunks_mut(min_len)
            .zip(self.positions.par_chunks_mut(min_len))
            .zip(self.windows.par_chunks_mut(min_len))
            .zip(out.par_chunks_mut(min_len))
            .enumerate()
            .for_each(|(k, (((slots, cells), windows), outs))| {
                let first = k * min_len;
                for i in 0..slots.len() {
                    let j = i + PREFETCH_AHEAD;
                    if j < slots.len() && prefetch(first + j, &windows[j]) {
                        slots[j].prefetch_route();
                    }
                    if let Some(a) = slots[i].agent.as_mut() {
                        f(
                            (first + i) as u32,
                            AgentMut::new(a, &mut cells[i], &mut windows[i]),
                            &mut outs[i],
                        );
                    }
                }
            });
    }
}

/// From this many agents on, [`AgentSet::give_back_memory`] hands the allocator's free pages
/// back to the system: a crowd whose routes take hundreds of megabytes. Below it, not worth a
/// call that locks every heap of the process (an embedding program's too).
const TRIM_MIN_AGENTS: usize = 65_536;

/// Hands the allocator's free pages back to the system (glibc's `malloc_trim`): the route
/// buffers freed by replans (on whichever thread planned them) are free blocks scattered
/// through the allocator's heaps, which keeps them resident; without this a
/// long run's resident memory grew with the heaps' fragmentation (crowd-1m: 2,770 -> 2,907
/// MiB after its planning, `docs/performance.md`). It trims the whole process's heaps, not
/// only the simulation's. A no-op on other systems and C libraries, and under another
/// allocator.
fn give_back_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    {
        unsafe extern "C" {
            /// glibc: releases free memory at the heaps' tops and the free pages within them;
            /// `pad` bytes are kept at the top. Returns 1 when memory was released.
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: `malloc_trim` takes no pointer and only returns free memory to the
        // system; glibc makes it safe to call from any thread at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// An agent being changed: derefs to the [`Agent`], and when let go writes the agent's cell
/// into the set's flat array and marks its route window stale when it may have changed, so
/// that neither can fall behind the record unnoticed.
pub(crate) struct AgentMut<'a> {
    agent: &'a mut Agent,
    cell: &'a mut CellId,
    window: &'a mut Window,
    stamp: Stamp,
}

impl<'a> AgentMut<'a> {
    #[inline]
    fn new(agent: &'a mut Agent, cell: &'a mut CellId, window: &'a mut Window) -> Self {
        let stamp = Stamp::of(agent);
        AgentMut {
            agent,
            cell,
            window,
            stamp,
        }
    }
}

impl AgentMut<'_> {
    /// [`Agent::take_move`], with the slot's window: a move sent onto the route's next cell,
    /// which the window shows, steps without reading the route's codes and shifts the window
    /// (the same change to the agent; a walking crowd's steps then touch only their records).
    #[inline]
    pub(crate) fn take_move(&mut self, ctx: &MoveContext, to: CellId, chosen: Chosen) -> Arrived {
        if chosen == Chosen::Sent
            && !self.window.is_stale()
            && self.window.second() == Some(to)
            && Stamp::of(self.agent) == self.stamp
            && let Some(arrived) = self.agent.step_to_second(ctx, to)
        {
            if on_route(self.agent) {
                self.window.stepped(self.agent.drift, arrived.is_some());
            } else {
                self.window.mark_stale();
            }
            self.stamp = Stamp::of(self.agent);
            return arrived;
        }
        self.agent.take_move(ctx, to, chosen)
    }
}

impl Deref for AgentMut<'_> {
    type Target = Agent;

    #[inline]
    fn deref(&self) -> &Agent {
        self.agent
    }
}

impl DerefMut for AgentMut<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Agent {
        self.agent
    }
}

impl Drop for AgentMut<'_> {
    #[inline]
    fn drop(&mut self) {
        *self.cell = self.agent.position;
        if Stamp::of(self.agent) != self.stamp {
            self.window.mark_stale();
        }
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
        assert_eq!(set.positions(), &[7, NO_CELL], "written when let go");
        assert!(set.positions_agree());
        let mut agent = set.at_mut(c.index()).unwrap();
        agent.set_route(&[7, 8, 9], 10, 0);
        drop(agent);
        assert!(set.windows[c.index() as usize].is_stale());
        set.refresh_windows(false);
        assert!(set.window(c.index()).travelling());
        assert_eq!(
            set.window(c.index()).ahead(2).map(|(r, _)| r),
            Some(&[7, 8, 9][..])
        );
        assert!(set.positions_agree());
    }

    /// Walking a route through the slot's window (moves onto the next cell shift the window,
    /// with a refresh where it runs short) changes the agent as the record's own search does,
    /// including a push off the route and the arrival, and every window agrees with its record.
    #[test]
    fn walking_through_the_window_is_walking_the_record() {
        use crate::grid::Grid;
        use crate::sim::SimConfig;
        let grid = Grid::new(40, 3).unwrap();
        let config = SimConfig::default();
        let ctx = MoveContext {
            grid: &grid,
            config: &config,
            tick: 0,
            forced: &[],
        };
        let route: Vec<CellId> = (41..79).collect(); // the middle row, west to east
        let mut set = AgentSet::new();
        let mut plain = Agent::new(41, 0, None, false);
        plain.set_goal(78, 0);
        let slot = set.insert(plain.clone()).index();
        plain.set_route(&route, 40, 0);
        set.at_mut(slot).unwrap().set_route(&route, 40, 0);
        // East along the row, pushed onto the row below once, then back and on to the goal.
        let mut moves: Vec<CellId> = (42..50).collect();
        moves.extend([89, 49]);
        moves.extend(50..79);
        let mut shifted = 0;
        for (tick, &to) in moves.iter().enumerate() {
            set.refresh_windows(false);
            let fresh = *set.window(slot);
            let ctx = MoveContext {
                tick: tick as u64,
                ..ctx
            };
            let want = plain.take_move(&ctx, to, Chosen::Sent);
            let got = set.at_mut(slot).unwrap().take_move(&ctx, to, Chosen::Sent);
            assert_eq!(got, want, "move {tick} onto {to}");
            let agent = set.at(slot).unwrap();
            assert_eq!(
                (agent.position, agent.drift, agent.state, agent.moves),
                (plain.position, plain.drift, plain.state, plain.moves)
            );
            assert_eq!(
                agent.route.cells().collect::<Vec<_>>(),
                plain.route.cells().collect::<Vec<_>>()
            );
            assert!(set.positions_agree(), "move {tick}");
            if !set.windows[slot as usize].is_stale() && fresh.second() == Some(to) {
                shifted += 1;
            }
        }
        assert_eq!(
            set.at(slot).unwrap().state,
            super::super::AgentState::Arrived
        );
        assert!(shifted > 20, "most steps shift the window: {shifted}");
    }
}
