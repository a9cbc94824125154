//! LaCAM*'s swap test for PIBT ([`Pibt::swap_partner`]): when an agent must pass another that
//! stands on its best cell, or clear one out of a corridor, the two swap places instead of
//! pushing each other back and forth. The test walks corridors from the cell ahead
//! ([`Pibt::swap_required`], [`Pibt::swap_possible`]), counting the ways on from each cell.

use super::{Guidance, NO_AGENT, NO_CELL, Pibt, Ranked};
use crate::grid::{CellId, Grid};
use crate::mapf::Candidates;

/// Longest corridor walk of the swap test; past it the swap is judged not needed (a corridor
/// that long is walked by plain PIBT's pushes anyway, and the walk must stay cheap).
const MAX_CORRIDOR_WALK: usize = 1024;

impl Pibt {
    /// The agent this agent should swap with, or [`NO_AGENT`] (LaCAM*'s swap test): the
    /// undecided agent on its best cell when the two must pass each other and can, or else a
    /// neighbour that wants this agent's best cell's way and must be cleared out of a corridor.
    pub(super) fn swap_partner<R: Ranked + ?Sized>(
        &self,
        grid: &Grid,
        positions: &[CellId],
        all: &R,
        cands: &Candidates,
        guide: &impl Guidance,
        agent: u32,
    ) -> u32 {
        let from = positions[agent as usize];
        let best = cands.cells[0];
        if best == from {
            // Staying is best: no agent on its best cell to pass, and nothing to clear.
            return NO_AGENT;
        }
        // Both tests below start by walking from `best` away from `from`; where that cell has
        // two ways on, the walk ends at once (see `swap_required`).
        let mut open = None;
        let mut narrow =
            |this: &Self| *open.get_or_insert_with(|| this.ways_on(grid, guide, best, from).0) < 2;
        let ahead = self.occupied_now[best as usize];
        // Cheapest tests first: `fixed` reads the other agent's candidates, a line of its
        // own in a large crowd, and most pushes end the test before it.
        if ahead != NO_AGENT
            && ahead != agent
            && self.next[ahead as usize] == NO_CELL
            && (narrow(self) || guide.is_goal(agent, from))
            && !all.get(ahead).fixed
            && self.swap_required(grid, guide, agent, ahead, from, best)
            && self.swap_possible(grid, guide, best, from)
        {
            return ahead;
        }
        // A neighbour qualifies only where the way on is narrow or `from` is its goal.
        if !guide.may_be_goal(from) && !narrow(self) {
            return NO_AGENT;
        }
        let offsets = grid.move_offsets();
        for dir in grid.moves(from).iter() {
            let u = (i64::from(from) + offsets[dir.index()]) as CellId;
            let other = self.occupied_now[u as usize];
            // Cheapest tests first: `fixed` reads the neighbour's candidates, a line of its
            // own in a large crowd.
            if other != NO_AGENT
                && best != positions[other as usize]
                && (narrow(self) || guide.is_goal(other, from))
                && !all.get(other).fixed
                && self.swap_required(grid, guide, other, agent, from, best)
                && self.swap_possible(grid, guide, best, from)
            {
                return other;
            }
        }
        NO_AGENT
    }

    /// Walks from the puller's cell away from the pusher along a corridor while the pusher's
    /// goal lies that way: the swap is required when the corridor gives no room to pass before
    /// that, and the puller wants the pusher's side. (Callers skip the call when the puller's
    /// cell has two ways on and the pusher is not on its goal: a walk that starts then ends at
    /// once with "not required", and one that does not start can only end "required" when the
    /// pusher stands on its goal.)
    fn swap_required(
        &self,
        grid: &Grid,
        guide: &impl Guidance,
        pusher: u32,
        puller: u32,
        pusher_origin: CellId,
        puller_origin: CellId,
    ) -> bool {
        let (mut v_pusher, mut v_puller) = (pusher_origin, puller_origin);
        let mut walked = 0;
        while guide.cost_to_go(pusher, v_puller) < guide.cost_to_go(pusher, v_pusher) {
            walked += 1;
            if walked > MAX_CORRIDOR_WALK {
                return false;
            }
            let (open, last) = self.ways_on(grid, guide, v_puller, v_pusher);
            if open >= 2 {
                return false; // room to pass
            }
            let Some(next) = last else { break };
            v_pusher = v_puller;
            v_puller = next;
        }
        guide.cost_to_go(puller, v_pusher) < guide.cost_to_go(puller, v_puller)
            && (guide.is_goal(pusher, v_pusher)
                || guide.cost_to_go(pusher, v_puller) < guide.cost_to_go(pusher, v_pusher))
    }

    /// Whether the pair can swap: walking on from the puller's cell away from the pusher
    /// reaches a cell with two ways on before a dead end.
    fn swap_possible(
        &self,
        grid: &Grid,
        guide: &impl Guidance,
        pusher_origin: CellId,
        puller_origin: CellId,
    ) -> bool {
        let (mut v_pusher, mut v_puller) = (pusher_origin, puller_origin);
        let mut walked = 0;
        while v_puller != pusher_origin {
            walked += 1;
            if walked > MAX_CORRIDOR_WALK {
                return false;
            }
            let (open, last) = self.ways_on(grid, guide, v_puller, v_pusher);
            if open >= 2 {
                return true;
            }
            let Some(next) = last else { return false };
            v_pusher = v_puller;
            v_puller = next;
        }
        false
    }

    /// The neighbours of `cell` an agent pulled onto it could move on to: all but `behind`
    /// and dead ends holding an agent at its goal. Returns their count, counted up to 2 (every
    /// caller asks only whether there are two: a crowded step calls this for most pushes),
    /// and the last one when there are fewer.
    fn ways_on(
        &self,
        grid: &Grid,
        guide: &impl Guidance,
        cell: CellId,
        behind: CellId,
    ) -> (u32, Option<CellId>) {
        let offsets = grid.move_offsets();
        let (mut open, mut last) = (0, None);
        for dir in grid.moves(cell).iter() {
            let u = (i64::from(cell) + offsets[dir.index()]) as CellId;
            if u == behind {
                continue;
            }
            let there = self.occupied_now[u as usize];
            if there != NO_AGENT && grid.moves(u).len() == 1 && guide.is_goal(there, u) {
                continue;
            }
            open += 1;
            last = Some(u);
            if open == 2 {
                break;
            }
        }
        (open, last)
    }
}
