//! Applying the movement phase's decisions: the one place where an agent's move or stay this
//! tick changes the agent (route, position, state, urgency), the occupancy, the flat positions
//! array and the tick's events, whichever mode decided it (conflict modes `off`, `avoid` and
//! `pibt`, or a stuck crowd's LaCAM plan), and where the outcome of each action is settled.
//!
//! Every live agent gets exactly one call a tick: [`Apply::moved`] or [`Apply::stayed`], or one
//! [`Apply::all`] for the whole crowd, which changes the agents on the pool and then writes the
//! shared tables in slot order (the same result).
//! Moves may be applied in any order: a move frees its cell only if the agent still holds it,
//! so an agent entering the cell another leaves keeps it whichever is applied first.

use super::agent::{AgentMut, AgentSet, Chosen, Window};
use super::config::ConflictMode;
use super::control::ActionOutcome;
use super::events::{ArrivalKind, TickEvents};
use super::move_context::{Forced, MoveContext};
use super::occupancy::Occupancy;
use crate::grid::{CellId, NO_CELL};

/// Where the movement phase writes what its decisions did (see the module docs).
pub(crate) struct Apply<'a> {
    ctx: &'a MoveContext<'a>,
    /// `None` with conflicts `off` (agents may share cells; the occupancy is not kept).
    occupancy: Option<&'a mut Occupancy>,
    events: &'a mut TickEvents,
    /// Per slot, the outcome of the action given to the agent: set by the caller before the
    /// phase ([`ActionOutcome::Blocked`] for a legal move), made [`ActionOutcome::Moved`] here
    /// when the move is made. Empty when no action was given.
    outcomes: &'a mut [ActionOutcome],
    waiting: u32,
}

impl<'a> Apply<'a> {
    pub(crate) fn new(
        ctx: &'a MoveContext<'a>,
        occupancy: Option<&'a mut Occupancy>,
        events: &'a mut TickEvents,
        outcomes: &'a mut [ActionOutcome],
    ) -> Self {
        Apply {
            ctx,
            occupancy,
            events,
            outcomes,
            waiting: 0,
        }
    }

    /// The occupancy as the moves applied so far left it (`None` with conflicts `off`).
    #[inline]
    pub(crate) fn occupancy(&self) -> Option<&Occupancy> {
        self.occupancy.as_deref()
    }

    /// The occupancy, to lend (`None` with conflicts `off`).
    #[inline]
    pub(crate) fn occupancy_mut(&mut self) -> Option<&mut Occupancy> {
        self.occupancy.as_deref_mut()
    }

    /// Agent `slot` moves onto `to`, which the phase found free for it (see
    /// [`crate::sim::Agent::take_move`] for `chosen`).
    pub(crate) fn moved(&mut self, agents: &mut AgentSet, slot: u32, to: CellId, chosen: Chosen) {
        let applied = {
            let mut agent = agents.at_mut(slot).expect("a live agent moves");
            move_agent(self.ctx, &mut agent, to, chosen)
        };
        self.record(agents, slot, applied);
    }

    /// Agent `slot` stays this tick: a controlled agent with a goal waits for its driver; one
    /// told to stay (an action, a refused move) holds its place; any other with a next route
    /// cell waits for it, and in conflict modes `off` and `avoid` asks for a plan around the
    /// others after waiting too long.
    pub(crate) fn stayed(&mut self, agents: &mut AgentSet, slot: u32) {
        let Some(mut agent) = agents.at_mut(slot) else {
            return;
        };
        let applied = stay_agent(self.ctx, &mut agent, slot);
        drop(agent);
        self.record(agents, slot, applied);
    }

    /// Every agent's decision at once: the agent in each slot moves from `from[slot]` to
    /// `to[slot]` ([`Chosen::Sent`]) or stays where they are equal (free slots are `NO_CELL`
    /// in `from`), after `prepare` had the agent. The agents change on the pool when `parallel`
    /// (each depends on its own decision only); the occupancy, the events and the outcomes
    /// are then written in slot order, so the result is the one of [`Apply::moved`] and
    /// [`Apply::stayed`] called slot by slot, on any number of threads. `applied` is scratch.
    pub(crate) fn all<F>(
        &mut self,
        agents: &mut AgentSet,
        from: &[CellId],
        to: &[CellId],
        prepare: F,
        parallel: bool,
        applied: &mut Vec<Applied>,
    ) where
        F: Fn(u32, &mut AgentMut) + Sync,
    {
        let ctx = self.ctx;
        applied.clear();
        applied.resize(agents.slot_count(), Applied::Free);
        let one = |(slot, agent): (u32, &mut AgentMut), out: &mut Applied| {
            let (a, b) = (from[slot as usize], to[slot as usize]);
            if a == NO_CELL {
                return;
            }
            prepare(slot, agent);
            *out = if a == b {
                stay_agent(ctx, agent, slot)
            } else {
                move_agent(ctx, agent, b, Chosen::Sent)
            };
        };
        if parallel && agents.len() >= PARALLEL_APPLY {
            // A move off the window's next cell reads the route's codes (see `take_move`).
            let reads_codes = |slot: usize, window: &Window| {
                from[slot] != to[slot] && window.second() != Some(to[slot])
            };
            agents.par_for_each_mut(applied, MIN_CHUNK, reads_codes, |slot, mut agent, out| {
                one((slot, &mut agent), out)
            });
        } else {
            for (slot, mut agent) in agents.iter_mut() {
                one((slot, &mut agent), &mut applied[slot as usize]);
            }
        }
        if parallel && agents.len() >= PARALLEL_APPLY {
            // The occupancy on one thread, the events beside it on another: each in slot
            // order, as `record` would write them.
            let occupancy = self.occupancy.as_deref_mut();
            let (events, outcomes, agents) = (&mut *self.events, &mut *self.outcomes, &*agents);
            let applied = &applied[..];
            let ((), waiting) = rayon::join(
                || {
                    if let Some(occupancy) = occupancy {
                        for (slot, &a) in applied.iter().enumerate() {
                            if let Applied::Moved { from, to, .. } = a {
                                occupy(occupancy, slot as u32, from, to);
                            }
                        }
                    }
                },
                || {
                    let mut waiting = 0;
                    for (slot, &a) in applied.iter().enumerate() {
                        waiting += report(ctx, events, outcomes, agents, slot as u32, a);
                    }
                    waiting
                },
            );
            self.waiting += waiting;
        } else {
            for (slot, &a) in applied.iter().enumerate() {
                self.record(agents, slot as u32, a);
            }
        }
    }

    /// Writes what applying agent `slot`'s decision did into the occupancy, the events, the
    /// outcomes and the waiting count (slot by slot: the events keep slot order).
    #[inline]
    fn record(&mut self, agents: &AgentSet, slot: u32, applied: Applied) {
        if let (Applied::Moved { from, to, .. }, Some(occupancy)) =
            (applied, self.occupancy.as_deref_mut())
        {
            occupy(occupancy, slot, from, to);
        }
        self.waiting += report(self.ctx, self.events, self.outcomes, agents, slot, applied);
    }

    /// PIBT swapped `pairs` pairs of agents through corridors.
    pub(crate) fn swapped(&mut self, pairs: u32) {
        self.events.swaps += pairs;
    }

    /// Ends the phase: the agents waiting go to the events.
    pub(crate) fn finish(self) {
        self.events.waiting += self.waiting;
    }
}

/// Agent `slot`'s move from `from` to `to` in the occupancy: it frees its cell only if it still
/// holds it (an agent may have entered it already).
#[inline]
fn occupy(occupancy: &mut Occupancy, slot: u32, from: CellId, to: CellId) {
    if occupancy.agent_at(from) == Some(slot) {
        occupancy.clear(from);
    }
    occupancy.set(to, slot);
}

/// Agent `slot`'s decision, as `applied`, in the events and the outcomes; returns 1 when it
/// waits for its next route cell.
#[inline]
fn report(
    ctx: &MoveContext,
    events: &mut TickEvents,
    outcomes: &mut [ActionOutcome],
    agents: &AgentSet,
    slot: u32,
    applied: Applied,
) -> u32 {
    match applied {
        Applied::Free => 0,
        Applied::Stayed { waits } => u32::from(waits),
        Applied::Moved { from, to, arrived } => {
            let id = agents.id_at(slot).expect("a live agent moved");
            events.step(id, from, to);
            if let Some(counted) = arrived {
                events.arrive(id, to, ArrivalKind::Stepped, counted);
            }
            if let Some(outcome) = outcomes.get_mut(slot as usize)
                && matches!(ctx.forced(slot), Forced::To(_))
            {
                *outcome = ActionOutcome::Moved;
            }
            0
        }
    }
}

/// Above this many agents, [`Apply::all`] changes the agents on the rayon pool.
const PARALLEL_APPLY: usize = 4096;

/// Slots per piece of work on the pool.
const MIN_CHUNK: usize = 1024;

/// What applying one agent's decision did, kept until it is written in slot order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Applied {
    /// A free slot, or nothing decided.
    #[default]
    Free,
    /// The agent stayed; whether it waits for its next route cell.
    Stayed {
        /// It waits for its next route cell (counted in the events).
        waits: bool,
    },
    /// The agent moved from `from` to `to`, arriving there when `arrived` (counted or not).
    Moved {
        /// The cell it left.
        from: CellId,
        /// The cell it entered.
        to: CellId,
        /// Its arrival, if it made one (see [`crate::sim::Agent::take_move`]).
        arrived: Option<bool>,
    },
}

/// The agent's side of a move onto `to` (see [`Apply::moved`]).
#[inline]
fn move_agent(ctx: &MoveContext, agent: &mut AgentMut, to: CellId, chosen: Chosen) -> Applied {
    let from = agent.position();
    let arrived = agent.take_move(ctx, to, chosen);
    agent.tick_urgency();
    Applied::Moved { from, to, arrived }
}

/// The agent's side of a stay (see [`Apply::stayed`]).
#[inline]
fn stay_agent(ctx: &MoveContext, agent: &mut AgentMut, slot: u32) -> Applied {
    let waits = if agent.is_controlled() {
        agent.settle_controlled(false);
        agent.state() == super::AgentState::Waiting
    } else if ctx.forced(slot) != Forced::Free {
        agent.hold()
    } else {
        let waits = agent.wait();
        if waits && ctx.config.conflicts != ConflictMode::Pibt {
            agent.lose_patience(ctx.config.replan_after_waits, ctx.tick);
        }
        waits
    };
    agent.tick_urgency();
    Applied::Stayed { waits }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;
    use crate::sim::SimConfig;
    use crate::sim::agent::Agent;

    /// `Apply::all`, on the pool or not, leaves what calls slot by slot leave: 6,000 agents
    /// on a 100 x 100 map, two columns in three shifting down a row (each onto the cell the
    /// next one leaves), the third staying.
    #[test]
    fn all_at_once_is_slot_by_slot() {
        let grid = Grid::new(100, 100).unwrap();
        let config = SimConfig::default();
        let ctx = MoveContext {
            grid: &grid,
            config: &config,
            tick: 0,
            forced: &[],
        };
        let n = 6000u32;
        let from: Vec<CellId> = (0..n).collect();
        let to: Vec<CellId> = (0..n)
            .map(|c| if c % 100 % 3 == 2 { c } else { c + 100 })
            .collect();
        let run = |how: u8| {
            let mut agents = AgentSet::new();
            let mut occupancy = Occupancy::new(grid.len());
            for c in 0..n {
                agents.insert(Agent::new(c, 0, None, false));
                occupancy.set(c, c);
            }
            let mut events = TickEvents::new(0);
            let mut apply = Apply::new(&ctx, Some(&mut occupancy), &mut events, &mut []);
            let mut applied = Vec::new();
            match how {
                0 => {
                    for slot in (0..n).rev() {
                        let (a, b) = (from[slot as usize], to[slot as usize]);
                        if a == b {
                            apply.stayed(&mut agents, slot);
                        } else {
                            apply.moved(&mut agents, slot, b, Chosen::Sent);
                        }
                    }
                }
                _ => apply.all(&mut agents, &from, &to, |_, _| {}, how == 2, &mut applied),
            }
            apply.finish();
            assert!(agents.positions_agree());
            let cells: Vec<_> = (0..grid.len() as u32)
                .map(|c| occupancy.agent_at(c))
                .collect();
            let mut moved: Vec<_> = events.moves().iter().map(|m| (m.from, m.to)).collect();
            moved.sort_unstable();
            (cells, agents.positions().to_vec(), moved, events.waiting)
        };
        let one_by_one = run(0);
        assert_eq!(one_by_one.2.len(), 67 * 60, "67 columns of 60 agents moved");
        assert_eq!(one_by_one.1[0], 100);
        assert_eq!(run(1), one_by_one, "all, one thread");
        assert_eq!(run(2), one_by_one, "all, on the pool");
    }

    /// Three agents turning round a 2 x 2 block (each onto the cell the next one leaves) and
    /// one staying: whatever order the moves are applied in, the occupancy, the flat positions
    /// and the events come out the same.
    #[test]
    fn moves_apply_in_any_order() {
        let grid = Grid::from_ascii("..\n..").unwrap();
        let config = SimConfig::default();
        let ctx = MoveContext {
            grid: &grid,
            config: &config,
            tick: 0,
            forced: &[],
        };
        // Cells 0 1 / 2 3: slot 0 on 0 -> 1, slot 1 on 1 -> 3, slot 2 on 3 -> 0 (a
        // rotation), slot 3 stays on 2.
        let moves = [(0u32, 1), (1, 3), (2, 0)];
        let mut results = Vec::new();
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let mut agents = AgentSet::new();
            let mut occupancy = Occupancy::new(grid.len());
            for (slot, start) in [0u32, 1, 3, 2].into_iter().enumerate() {
                agents.insert(Agent::new(start, 0, None, false));
                occupancy.set(start, slot as u32);
            }
            let mut events = TickEvents::new(0);
            let mut apply = Apply::new(&ctx, Some(&mut occupancy), &mut events, &mut []);
            for k in order {
                let (slot, to) = moves[k];
                apply.moved(&mut agents, slot, to, Chosen::Sent);
            }
            apply.stayed(&mut agents, 3);
            apply.finish();
            let cells: Vec<_> = (0..4).map(|c| occupancy.agent_at(c)).collect();
            assert_eq!(
                cells,
                [Some(2), Some(0), Some(3), Some(1)],
                "order {order:?}"
            );
            assert_eq!(agents.positions(), &[1, 3, 0, 2]);
            assert!(agents.positions_agree());
            let mut moved: Vec<_> = events.moves().iter().map(|m| (m.from, m.to)).collect();
            moved.sort_unstable();
            results.push(moved);
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]));
    }
}
