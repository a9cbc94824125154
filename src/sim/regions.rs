//! The PIBT movement phase decided region by region, the regions of one phase on the pool
//! ([`SimConfig::regions`](crate::sim::SimConfig::regions)).
//!
//! # Why
//! PIBT decides one agent after another in priority order: with every agent in one pass, the
//! movement phase of a large crowd runs on one core whatever the machine has (at 100,000
//! agents it is most of a tick; `docs/performance.md`). Agents far apart do not interact within
//! a tick, so the map is cut into square regions, coloured in four like the squares of two
//! chessboards (column and row parity), and a tick is decided in four phases, one colour each:
//! the regions of a phase, a region apart from each other, run PIBT passes of their own on the
//! pool ([`Pibt::step_part`]).
//!
//! # Close to one pass
//! - A region's pass starts its own agents, in the crowd's priority order, and may move and
//!   push every agent standing in the region or within [`MARGIN`] cells of it: an agent at a
//!   border steps across and pushes the agents there, as in one pass. Those margins never
//!   overlap within a phase, so the passes of a phase touch disjoint agents and cells.
//! - What a pass cannot know is how the agents of later phases would have moved had they gone
//!   first, as their priority may say. So it does not push an agent not decided yet that ranks
//!   before its root, nor take a cell that such an agent ranks first (its claim), and an agent
//!   that stays is decided last: an agent of higher rank in a later phase may still push it.
//!   Agents nobody moved stay.
//! - Borders move: regions are offset by half a side every other tick.
//!
//! # Correct and deterministic
//! Moves decided by earlier phases are fixed: their cells are reserved for the later passes,
//! which check swaps and crossing diagonals against them. A region's result depends only on
//! the tick's state and the earlier phases, not on which worker runs it or how many there are:
//! the same seed gives the same run on any number of threads.
//!
//! # What it costs
//! Pushes stop at the margin's edge, and an agent of a later phase finds the cells chosen by
//! earlier ones taken. On the default scenario, regions of 256 cost nothing and regions of 128
//! 0.3% of the sum of costs; on crowd-100k regions of 256 cost 1.4% (`docs/performance.md`).
//! Each worker keeps PIBT's per-cell tables for the whole grid (about 8.25 bytes a cell).

use std::sync::Mutex;

use rayon::prelude::*;

use crate::grid::{CellId, Grid, NO_CELL};
use crate::mapf::{Candidates, Claim, Guidance, NO_AGENT, Part, Pibt};

/// Cells around a region that its pass may move agents onto (at most half a side): an agent at
/// the region's border steps across it and pushes the agents there (module docs).
pub(crate) const MARGIN: u32 = 16;

/// One region: its cells, colour and agents (read by the passes of its neighbours too).
#[derive(Debug, Default)]
struct Core {
    /// Its cells: columns `x0..x1`, rows `y0..y1`.
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
    /// Which of the four phases decides it: regions of one colour are a region apart.
    colour: u8,
    /// Its agents, in priority order: slot, cell and place in the order (copied as they are
    /// listed, so that a pass reads its agents in a row rather than from the crowd's arrays).
    agents: Vec<Listed>,
    /// Its agents to decide (not ranking their own cell first), by place in `agents`.
    roots: Vec<u32>,
    /// Those within [`MARGIN`] and a cell of its edge, with their column and row.
    border: Vec<(Listed, u32, u32)>,
}

/// From this many agents on, what the listing needs of each is found on the pool.
const PARALLEL_LISTING: usize = 16_384;

/// An agent as found for the listing: itself, its region, column and row, and whether it is
/// to be decided.
#[derive(Debug, Clone, Copy)]
struct Found {
    listed: Listed,
    region: u32,
    x: u32,
    y: u32,
    root: bool,
}

/// An agent listed in its region: slot, cell and place in the priority order.
#[derive(Debug, Clone, Copy)]
struct Listed {
    slot: u32,
    cell: CellId,
    rank: u32,
}

/// The scratch of one region's pass, reused tick after tick.
#[derive(Debug, Default)]
struct Pass {
    /// The agents of the pass: the region's own (in priority order), then those standing in
    /// its margin.
    local: Vec<u32>,
    /// By position in `local`: cells, moves decided by earlier phases, places in the priority
    /// order.
    positions: Vec<CellId>,
    decided: Vec<CellId>,
    ranks: Vec<u32>,
    order: Vec<u32>,
    /// Cells inside taken for the end of the tick by agents outside (decided earlier).
    reserved: Vec<CellId>,
    /// Cells inside that agents of other regions not decided yet rank first.
    claims: Vec<Claim>,
    /// (slot, cell) of the moves the pass decided.
    out: Vec<(u32, CellId)>,
    swaps: u32,
}

/// The movement phase's regions (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Regions {
    cores: Vec<Core>,
    passes: Vec<Pass>,
    /// PIBT's tables, one per worker, each for the whole grid.
    workers: Vec<Mutex<Pibt>>,
    /// Scratch of the listing: each agent as found, in priority order.
    found: Vec<Found>,
}

/// A region's view of the crowd's guidance: its agents by position in the pass's list, and
/// only the cells of the region and its margin allowed.
struct RegionGuide<'a, G: Guidance> {
    inner: &'a G,
    slots: &'a [u32],
    width: u32,
    rect: Rect,
}

impl<G: Guidance> Guidance for RegionGuide<'_, G> {
    fn cost_to_go(&self, agent: u32, cell: CellId) -> i64 {
        self.inner.cost_to_go(self.slots[agent as usize], cell)
    }

    fn is_goal(&self, agent: u32, cell: CellId) -> bool {
        self.inner.is_goal(self.slots[agent as usize], cell)
    }

    fn costs_to_go(&self, agent: u32, cells: &[CellId], out: &mut [i64]) {
        self.inner
            .costs_to_go(self.slots[agent as usize], cells, out);
    }

    fn allows(&self, cell: CellId) -> bool {
        self.rect.holds(cell % self.width, cell / self.width)
    }

    fn allows_around(&self, cell: CellId) -> bool {
        // The cell a column and a row inside the rectangle (its 3 x 3 block in it): one
        // division for the agent's candidates instead of one each.
        let (x, y) = (cell % self.width, cell / self.width);
        x > self.rect.x0 && x + 1 < self.rect.x1 && y > self.rect.y0 && y + 1 < self.rect.y1
    }

    fn may_be_goal(&self, cell: CellId) -> bool {
        self.inner.may_be_goal(cell)
    }
}

/// Columns `x0..x1`, rows `y0..y1`.
#[derive(Debug, Clone, Copy)]
struct Rect {
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
}

impl Rect {
    #[inline]
    fn holds(&self, x: u32, y: u32) -> bool {
        (self.x0..self.x1).contains(&x) && (self.y0..self.y1).contains(&y)
    }

    /// The rectangle grown by `by` cells on every side, within a `w` x `h` map.
    fn grown(&self, by: u32, w: u32, h: u32) -> Rect {
        Rect {
            x0: self.x0.saturating_sub(by),
            x1: (self.x1 + by).min(w),
            y0: self.y0.saturating_sub(by),
            y1: (self.y1 + by).min(h),
        }
    }
}

/// How a tick's decision is set up: the settings PIBT runs with, shared by every region.
pub(crate) struct RegionStep<'a, G: Guidance> {
    pub(crate) grid: &'a Grid,
    /// Each slot's cell (`NO_CELL` for a free slot).
    pub(crate) positions: &'a [CellId],
    /// Each slot's candidates, ranked.
    pub(crate) candidates: &'a [Candidates],
    /// Per slot: whether its candidates rank its own cell first
    /// ([`Candidates::is_stay_first`]): a flag a slot, read for every agent as it is listed
    /// where its candidates would be a line each.
    pub(crate) stay_first: &'a [bool],
    /// Every live slot, highest priority first.
    pub(crate) order: &'a [u32],
    pub(crate) guide: &'a G,
    pub(crate) salt: u64,
    /// The side of a region, cells.
    pub(crate) side: u32,
    /// The tick being decided (odd ticks shift the regions by half a side).
    pub(crate) tick: u64,
    pub(crate) swap_needs_room: bool,
    /// Whether regions go to the pool (else one after another, with the same result).
    pub(crate) parallel: bool,
}

impl Regions {
    /// Decides every agent's next cell region by region into `next` (by slot, `NO_CELL` for
    /// free slots); returns the swaps made.
    pub(crate) fn decide<G: Guidance>(
        &mut self,
        step: &RegionStep<'_, G>,
        next: &mut Vec<CellId>,
    ) -> u32 {
        let grid = step.grid;
        let (w, h) = (grid.width(), grid.height());
        let side = step.side.max(1);
        let margin = MARGIN.min(side / 2);
        let shift = if step.tick % 2 == 1 { side / 2 } else { 0 };
        let across = (w + shift).div_ceil(side);
        let down = (h + shift).div_ceil(side);
        let count = (across * down) as usize;
        self.cores.resize_with(count, Core::default);
        self.passes.resize_with(count, Pass::default);
        for (i, r) in self.cores.iter_mut().enumerate() {
            let (rx, ry) = (i as u32 % across, i as u32 / across);
            r.x0 = (rx * side).saturating_sub(shift);
            r.x1 = ((rx + 1) * side - shift).min(w);
            r.y0 = (ry * side).saturating_sub(shift);
            r.y1 = ((ry + 1) * side - shift).min(h);
            r.colour = (rx % 2 + 2 * (ry % 2)) as u8;
            r.agents.clear();
            r.roots.clear();
            r.border.clear();
        }
        // Each agent to its region, in priority order, those to decide apart; those near its
        // border, which the passes of its neighbours look at, apart too. What each agent needs
        // from the crowd's arrays (a read each, scattered) is found on the pool first, in the
        // order's order, so that the listing itself reads one array in a row.
        let find = |(rank, &slot): (usize, &u32)| {
            let at = step.positions[slot as usize];
            let (x, y) = (at % w, at / w);
            Found {
                listed: Listed {
                    slot,
                    cell: at,
                    rank: rank as u32,
                },
                region: (y + shift) / side * across + (x + shift) / side,
                x,
                y,
                root: !step.stay_first[slot as usize],
            }
        };
        self.found.clear();
        if step.parallel && step.order.len() >= PARALLEL_LISTING {
            self.found.par_extend(
                step.order
                    .par_iter()
                    .enumerate()
                    .with_min_len(4096)
                    .map(find),
            );
        } else {
            self.found.extend(step.order.iter().enumerate().map(find));
        }
        let near = margin + 1;
        for &Found {
            listed,
            region,
            x,
            y,
            root,
        } in &self.found
        {
            let core = &mut self.cores[region as usize];
            if root {
                core.roots.push(core.agents.len() as u32);
            }
            core.agents.push(listed);
            if x < core.x0 + near
                || x + near >= core.x1
                || y < core.y0 + near
                || y + near >= core.y1
            {
                core.border.push((listed, x, y));
            }
        }
        let workers = if step.parallel {
            rayon::current_num_threads().max(1)
        } else {
            1
        };
        if self.workers.len() < workers
            || self
                .workers
                .first()
                .is_some_and(|p| p.lock().expect("not poisoned").cells() != grid.len())
        {
            self.workers = (0..workers)
                .map(|_| Mutex::new(Pibt::new(grid.len())))
                .collect();
        }
        next.clear();
        next.resize(step.positions.len(), NO_CELL);
        let mut swaps = 0;
        for colour in 0..4u8 {
            let (cores, workers, decided) = (&self.cores, &self.workers, &*next);
            let pass = |(i, p): (usize, &mut Pass)| {
                let core = &cores[i];
                p.out.clear();
                p.swaps = 0;
                if core.colour != colour {
                    return;
                }
                // A pass decides its own agents only, but for those that rank their own cell
                // first or were pushed by an earlier phase (`Pibt::step_part`): with none else
                // it would move nobody, so it is skipped (most regions late in a run, when few
                // agents travel).
                let undecided =
                    |&k: &u32| decided[core.agents[k as usize].slot as usize] == NO_CELL;
                if !core.roots.iter().any(undecided) {
                    return;
                }
                let rect = Rect {
                    x0: core.x0,
                    x1: core.x1,
                    y0: core.y0,
                    y1: core.y1,
                }
                .grown(margin, w, h);
                let edge = rect.grown(1, w, h);
                p.local.clear();
                p.reserved.clear();
                p.claims.clear();
                p.local.extend(core.agents.iter().map(|a| a.slot));
                p.positions.clear();
                p.ranks.clear();
                p.positions.extend(core.agents.iter().map(|a| a.cell));
                p.ranks.extend(core.agents.iter().map(|a| a.rank));
                // The agents of the neighbouring regions in the margin, and the cells inside
                // taken by those just outside it.
                let (rx, ry) = (i as u32 % across, i as u32 / across);
                for ny in ry.saturating_sub(1)..(ry + 2).min(down) {
                    for nx in rx.saturating_sub(1)..(rx + 2).min(across) {
                        if (nx, ny) == (rx, ry) {
                            continue;
                        }
                        for &(listed, x, y) in &cores[(ny * across + nx) as usize].border {
                            let Listed {
                                slot,
                                cell: at,
                                rank,
                            } = listed;
                            let to = decided[slot as usize];
                            let inside = rect.holds(x, y);
                            if inside {
                                p.local.push(slot);
                                p.positions.push(at);
                                p.ranks.push(rank);
                            } else if !edge.holds(x, y) {
                                continue;
                            } else if to != NO_CELL && rect.holds(to % w, to / w) {
                                p.reserved.push(to);
                            }
                            if to == NO_CELL
                                && let Some(&first) =
                                    step.candidates[slot as usize].as_slice().first()
                                && first != at
                                && rect.holds(first % w, first / w)
                            {
                                p.claims.push(Claim {
                                    cell: first,
                                    rank,
                                    agent: if inside {
                                        p.local.len() as u32 - 1
                                    } else {
                                        NO_AGENT
                                    },
                                });
                            }
                        }
                    }
                }
                p.decided.clear();
                p.decided
                    .extend(p.local.iter().map(|&slot| decided[slot as usize]));
                p.order.clear();
                p.order.extend_from_slice(&core.roots);
                let guide = RegionGuide {
                    inner: step.guide,
                    slots: &p.local,
                    width: w,
                    rect,
                };
                // One worker's tables: which worker does not change the result.
                let index = rayon::current_thread_index().unwrap_or(0) % workers.len();
                let mut pibt = workers[index].lock().expect("not poisoned");
                pibt.set_swap_needs_room(step.swap_needs_room);
                let part = Part {
                    slots: &p.local,
                    positions: &p.positions,
                    decided: &p.decided,
                    ranks: &p.ranks,
                    reserved: &p.reserved,
                    claims: &p.claims,
                };
                let result =
                    pibt.step_part(grid, &part, step.candidates, &p.order, &guide, step.salt);
                for (k, (&before, &after)) in p.decided.iter().zip(result).enumerate() {
                    if before == NO_CELL && after != NO_CELL {
                        p.out.push((p.local[k], after));
                    }
                }
                p.swaps = pibt.swaps();
            };
            if step.parallel {
                self.passes.par_iter_mut().enumerate().for_each(pass);
            } else {
                self.passes.iter_mut().enumerate().for_each(pass);
            }
            for p in &self.passes {
                for &(slot, cell) in &p.out {
                    next[slot as usize] = cell;
                }
                swaps += p.swaps;
            }
        }
        // Agents nobody pushed that rank their own cell first stay.
        for &slot in step.order {
            if next[slot as usize] == NO_CELL {
                next[slot as usize] = step.positions[slot as usize];
            }
        }
        swaps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Open;

    impl Guidance for Open {
        fn cost_to_go(&self, _agent: u32, _cell: CellId) -> i64 {
            0
        }

        fn is_goal(&self, _agent: u32, _cell: CellId) -> bool {
            false
        }
    }

    /// A region's guide says every cell around a cell is allowed only where each is, and says
    /// so for every cell a column and a row inside its rectangle.
    #[test]
    fn allowed_all_around_only_where_each_cell_is() {
        let (w, h) = (12u32, 9u32);
        let rect = Rect {
            x0: 2,
            x1: 7,
            y0: 1,
            y1: 6,
        };
        let guide = RegionGuide {
            inner: &Open,
            slots: &[],
            width: w,
            rect,
        };
        let mut around = 0;
        for y in 0..h {
            for x in 0..w {
                let cell = y * w + x;
                let block = (y.saturating_sub(1)..=(y + 1).min(h - 1)).all(|ny| {
                    (x.saturating_sub(1)..=(x + 1).min(w - 1)).all(|nx| guide.allows(ny * w + nx))
                });
                let inner = x > rect.x0 && x + 1 < rect.x1 && y > rect.y0 && y + 1 < rect.y1;
                assert_eq!(guide.allows_around(cell), inner, "({x}, {y})");
                assert!(!inner || block, "({x}, {y})");
                around += usize::from(inner);
            }
        }
        assert_eq!(around, 3 * 3);
    }
}
