//! PIBT over part of a step ([`Pibt::step_part`]): the passes of the simulation's regions
//! (`sim/regions.rs`), each deciding the agents of one region while the other regions' agents
//! wait for passes of their own, before or after it.
//!
//! A part cannot know how the agents of later parts would have moved had they gone first, as
//! their priority may say. So, to stay close to one pass in priority order, it does not push
//! an agent not decided yet that ranks before the root of the push, nor take a cell such an
//! agent ranks first (its [`Claim`]), and an agent that stays is left undecided: an agent of
//! higher rank in a later part may still push it.

use super::{CellBits, Pibt, Ranked};
use crate::grid::{CellId, Grid, NO_CELL};
use crate::mapf::{Candidates, Guidance, NO_AGENT};

/// A cell that an agent not decided yet ranks first ([`Pibt::step_part`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Claim {
    /// The cell.
    pub cell: CellId,
    /// The agent's place in the priority order (lower first).
    pub rank: u32,
    /// The agent, in the part's numbering, or [`NO_AGENT`] when it is not in the part.
    pub agent: u32,
}

/// The agents of a part of a step ([`Pibt::step_part`]), numbered from 0 by their place in
/// these slices.
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    /// Per agent: its index in the crowd (into the step's candidates).
    pub slots: &'a [u32],
    /// Per agent: its cell.
    pub positions: &'a [CellId],
    /// Per agent: the cell an earlier part decided it moves to, or [`NO_CELL`].
    pub decided: &'a [CellId],
    /// Per agent: its place in the priority order (lower first).
    pub ranks: &'a [u32],
    /// Cells that agents not in the part end the step on.
    pub reserved: &'a [CellId],
    /// Cells that agents not decided yet, in the part or not, rank first.
    pub claims: &'a [Claim],
}

/// A crowd's candidates read through a part's numbering; kept to the cells the part's guide
/// allows when loaded.
struct PartRanked<'a> {
    slots: &'a [u32],
    all: &'a [Candidates],
}

impl Ranked for PartRanked<'_> {
    const KEEP_TO_GUIDE: bool = true;

    #[inline]
    fn get(&self, agent: u32) -> &Candidates {
        &self.all[self.slots[agent as usize] as usize]
    }
}

impl Pibt {
    /// [`Pibt::step`] over part of a step (see the module docs): the agents of `part`, with
    /// the candidates of the whole crowd (`candidates[part.slots[a]]` are agent `a`'s; those
    /// outside what [`Guidance::allows`] are dropped). Moves decided by earlier parts are kept.
    /// The agents of `order` (in the part's numbering, by decreasing priority) are decided as
    /// in a step, except those whose candidates rank their own cell first
    /// ([`Candidates::stay_first`]); every agent ends undecided ([`NO_CELL`] in the result)
    /// unless it moves: the caller keeps those no part moved on their cells.
    ///
    /// # Panics
    /// When the part's slices disagree in length, or an agent stands outside the tables: a
    /// caller's bug, not bad input.
    pub fn step_part(
        &mut self,
        grid: &Grid,
        part: &Part<'_>,
        candidates: &[Candidates],
        order: &[u32],
        guide: &impl Guidance,
        salt: u64,
    ) -> &[CellId] {
        self.own_occupancy();
        let positions = part.positions;
        assert_eq!(positions.len(), part.slots.len());
        assert_eq!(positions.len(), part.decided.len());
        assert_eq!(positions.len(), part.ranks.len());
        assert_eq!(
            self.occupied_now.len(),
            grid.len(),
            "tables of another grid"
        );
        if self.claimed.0.len() != self.occupied_now.len().div_ceil(64) {
            self.claimed = CellBits::new(self.occupied_now.len());
        }
        self.claims.clear();
        self.claims.extend_from_slice(part.claims);
        self.claims.sort_unstable();
        for c in part.claims {
            self.claimed.set(c.cell);
        }
        self.swaps = 0;
        self.salt = salt;
        self.next.clear();
        self.next.extend_from_slice(part.decided);
        for (agent, &cell) in positions.iter().enumerate() {
            if cell != NO_CELL {
                debug_assert_eq!(self.occupied_now[cell as usize], NO_AGENT, "shared cell");
                self.occupied_now[cell as usize] = agent as u32;
            }
        }
        for &cell in part.decided.iter().chain(part.reserved) {
            if cell != NO_CELL {
                self.occupied_next.set(cell);
            }
        }
        let ranked = PartRanked {
            slots: part.slots,
            all: candidates,
        };
        for &agent in order {
            if self.next[agent as usize] != NO_CELL {
                continue;
            }
            if ranked.get(agent).lazy {
                // Its own cell ranks first: it stays undecided, for a later part to push.
                continue;
            }
            self.decide(grid, positions, &ranked, guide, agent, part.ranks);
        }
        for &cell in positions {
            if cell != NO_CELL {
                self.occupied_now[cell as usize] = NO_AGENT;
            }
        }
        for &cell in self.next.iter().chain(part.reserved) {
            if cell != NO_CELL {
                self.occupied_next.clear(cell);
            }
        }
        for c in part.claims {
            self.claimed.clear(c.cell);
        }
        self.claims.clear();
        // Staying is not final: an agent of higher rank in a later part may still push it.
        for ((next, &before), &at) in self.next.iter_mut().zip(part.decided).zip(positions) {
            if before == NO_CELL && *next == at {
                *next = NO_CELL;
            }
        }
        &self.next
    }

    /// Whether an agent not decided yet that ranks before `root_rank` claims `cell`
    /// ([`Pibt::step_part`]).
    pub(super) fn contested(&self, cell: CellId, root_rank: u32) -> bool {
        if self.claimed.0.is_empty() || !self.claimed.get(cell) {
            return false;
        }
        let start = self.claims.partition_point(|c| c.cell < cell);
        self.claims[start..]
            .iter()
            .take_while(|c| c.cell == cell)
            .any(|c| {
                c.rank < root_rank
                    && (c.agent == NO_AGENT || self.next[c.agent as usize] == NO_CELL)
            })
    }
}
