//! The PIBT movement phase decided region by region, each region on its own worker
//! ([`SimConfig::regions`](crate::sim::SimConfig::regions)).
//!
//! # Why
//! PIBT decides one agent after another in priority order: with every agent in one pass, the
//! movement phase of a large crowd runs on one core whatever the machine has (at 100,000
//! agents it is most of a tick; `docs/performance.md`). Agents far apart do not interact within
//! a tick, so the map is cut into square regions and each region's agents are decided by a
//! PIBT pass of their own, the regions spread over the pool.
//!
//! # The rules that keep it correct and deterministic
//! - In a tick an agent ends on a cell of the region it starts in: cells outside are dropped
//!   from its candidates (those ranked up front here, those ranked when it is pushed through
//!   [`Guidance::allows`]). So no two regions ever reserve one cell, and a diagonal move, whose
//!   2 x 2 block then lies in one region, is checked for crossings by that region's pass.
//! - A region's agents are taken in the crowd's priority order, and a region's pass reads only
//!   its own agents, their candidates and the guidance: its result does not depend on which
//!   worker runs it or on how many there are. The same seed gives the same run on any number
//!   of threads.
//! - Borders move: regions are offset by half a side every other tick, so an agent held at a
//!   border one tick is inside a region the next.
//! - Then the border pass, on one thread, in priority order: an agent the regions left on its
//!   cell whose better candidate lies across the border takes it when no agent ends the tick
//!   there and the move crosses no other diagonally (no swap can arise: the agent on that cell,
//!   if any, leaves it for another). It only adds moves onto cells left free, so the tick's
//!   rules still hold.
//!
//! # What it costs
//! Pushes do not cross borders, and an agent whose way across is taken waits; PIBT's promise
//! that the agent of highest priority moves holds region by region. Each worker keeps PIBT's
//! per-cell tables for the whole grid (8 bytes a cell), the border pass one more table (4
//! bytes a cell).

use std::sync::Mutex;

use rayon::prelude::*;

use super::occupancy::Occupancy;
use crate::grid::{CellId, Grid, NO_CELL};
use crate::mapf::{Candidates, Guidance, NO_AGENT, Pibt};

/// One region's agents and what its pass decided, reused tick after tick.
#[derive(Debug, Default)]
struct Region {
    /// Its cells: columns `x0..x1`, rows `y0..y1`.
    x0: u32,
    x1: u32,
    y0: u32,
    y1: u32,
    /// Its agents' slots, in priority order.
    slots: Vec<u32>,
    /// Their cells, candidates (inside the region) and decided next cells, by position in
    /// `slots`.
    positions: Vec<CellId>,
    candidates: Vec<Candidates>,
    order: Vec<u32>,
    next: Vec<CellId>,
    swaps: u32,
}

/// The movement phase's regions (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Regions {
    regions: Vec<Region>,
    /// PIBT's tables, one per worker, each for the whole grid.
    workers: Vec<Mutex<Pibt>>,
    /// The border pass: per cell, the agent that ends the tick there (`NO_AGENT` between
    /// ticks).
    ending: Vec<u32>,
}

/// A region's view of the crowd's guidance: its agents by position in the region's list, and
/// only its own cells allowed.
struct RegionGuide<'a, G: Guidance> {
    inner: &'a G,
    slots: &'a [u32],
    width: u32,
    rect: (u32, u32, u32, u32),
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
        inside(self.rect, cell % self.width, cell / self.width)
    }
}

#[inline]
fn inside((x0, x1, y0, y1): (u32, u32, u32, u32), x: u32, y: u32) -> bool {
    (x0..x1).contains(&x) && (y0..y1).contains(&y)
}

/// How a tick's decision is set up: the settings PIBT runs with, shared by every region.
pub(crate) struct RegionStep<'a, G: Guidance> {
    pub(crate) grid: &'a Grid,
    /// Each slot's cell (`NO_CELL` for a free slot).
    pub(crate) positions: &'a [CellId],
    /// Each slot's candidates, ranked.
    pub(crate) candidates: &'a [Candidates],
    /// Every live slot, highest priority first.
    pub(crate) order: &'a [u32],
    /// Who stands where at the start of the tick.
    pub(crate) occupancy: &'a Occupancy,
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
        let shift = if step.tick % 2 == 1 { side / 2 } else { 0 };
        let across = (w + shift).div_ceil(side);
        let down = (h + shift).div_ceil(side);
        let count = (across * down) as usize;
        self.regions.resize_with(count, Region::default);
        for (i, r) in self.regions.iter_mut().enumerate() {
            let (rx, ry) = (i as u32 % across, i as u32 / across);
            r.x0 = (rx * side).saturating_sub(shift);
            r.x1 = ((rx + 1) * side - shift).min(w);
            r.y0 = (ry * side).saturating_sub(shift);
            r.y1 = ((ry + 1) * side - shift).min(h);
            r.slots.clear();
            r.positions.clear();
            r.candidates.clear();
            r.next.clear();
            r.swaps = 0;
        }
        // Each agent to its region, in priority order (its candidates are kept to the region
        // by the region's own pass, on the pool).
        for &slot in step.order {
            let at = step.positions[slot as usize];
            let (x, y) = (at % w, at / w);
            let i = ((y + shift) / side * across + (x + shift) / side) as usize;
            let r = &mut self.regions[i];
            r.slots.push(slot);
            r.positions.push(at);
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
        let pass = |r: &mut Region| {
            // One worker's tables: which worker does not change the result.
            let index = rayon::current_thread_index().unwrap_or(0) % self.workers.len();
            let rect = (r.x0, r.x1, r.y0, r.y1);
            r.candidates.extend(r.slots.iter().map(|&slot| {
                let mut cands = step.candidates[slot as usize];
                cands.retain(|c| inside(rect, c % w, c / w));
                cands
            }));
            let mut pibt = self.workers[index].lock().expect("not poisoned");
            pibt.set_swap_needs_room(step.swap_needs_room);
            r.order.clear();
            r.order.extend(0..r.slots.len() as u32);
            let guide = RegionGuide {
                inner: step.guide,
                slots: &r.slots,
                width: w,
                rect,
            };
            let decided = pibt.step(
                grid,
                &r.positions,
                &r.candidates,
                &r.order,
                &guide,
                step.salt,
            );
            r.next.clear();
            r.next.extend_from_slice(decided);
            r.swaps = pibt.swaps();
        };
        if step.parallel {
            self.regions
                .par_iter_mut()
                .filter(|r| !r.slots.is_empty())
                .for_each(pass);
        } else {
            self.regions
                .iter_mut()
                .filter(|r| !r.slots.is_empty())
                .for_each(pass);
        }
        next.clear();
        next.resize(step.positions.len(), NO_CELL);
        let mut swaps = 0;
        for r in &self.regions {
            for (&slot, &cell) in r.slots.iter().zip(&r.next) {
                next[slot as usize] = cell;
            }
            swaps += r.swaps;
        }
        self.border_pass(step, next);
        swaps
    }

    /// Moves agents held at a border across it where the cell they want is left free (see
    /// the module docs).
    fn border_pass<G: Guidance>(&mut self, step: &RegionStep<'_, G>, next: &mut [CellId]) {
        let grid = step.grid;
        let w = grid.width();
        if self.ending.len() != grid.len() {
            self.ending = vec![NO_AGENT; grid.len()];
        }
        for &slot in step.order {
            self.ending[next[slot as usize] as usize] = slot;
        }
        for &slot in step.order {
            let at = step.positions[slot as usize];
            if next[slot as usize] != at {
                continue;
            }
            // Its cells better than staying, best first (lazy lists rank staying first).
            for &to in step.candidates[slot as usize].as_slice() {
                if to == at {
                    break;
                }
                if self.ending[to as usize] != NO_AGENT {
                    continue;
                }
                let (fx, fy, tx, ty) = (at % w, at / w, to % w, to / w);
                if fx != tx && fy != ty {
                    // The block's other diagonal, walked by another agent this tick.
                    let (c1, c2) = (ty * w + fx, fy * w + tx);
                    let crossing = |a: CellId, b: CellId| {
                        step.occupancy
                            .agent_at(a)
                            .is_some_and(|other| next[other as usize] == b)
                    };
                    if crossing(c1, c2) || crossing(c2, c1) {
                        continue;
                    }
                }
                self.ending[at as usize] = NO_AGENT;
                self.ending[to as usize] = slot;
                next[slot as usize] = to;
                break;
            }
        }
        for &slot in step.order {
            self.ending[next[slot as usize] as usize] = NO_AGENT;
        }
    }
}
