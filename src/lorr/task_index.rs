//! The tasks of a League of Robot Runners run that may still be assigned (free ones, and those
//! whose first errand nobody reached yet), bucketed by the block of the map their first errand
//! lies in, so that the best one for a robot is found by looking at the blocks around it,
//! nearest first, instead of scanning every task (5,000 robots x 7,500 tasks at the first step
//! of `warehouse_large_5000`). Each task carries a weight (its own length's share of the cost)
//! that bounds its cost from below with the Manhattan distance, so that blocks of long tasks
//! are passed over. With Manhattan costs the answer is the scan's (the least distance, ties to
//! the smallest task id) unless the best lies past a bound of blocks.

use crate::grid::CellId;

/// Side of a block, in cells.
const BLOCK: u32 = 8;

/// Blocks [`TaskIndex::best`] looks into at most once it has a candidate.
pub(crate) const SEARCH_BLOCKS: usize = 256;

/// Assignable tasks by block of their first errand.
#[derive(Debug, Clone)]
pub(crate) struct TaskIndex {
    width: u32,
    blocks_x: u32,
    blocks_y: u32,
    /// Per block: (task id, first errand cell, weight) of its tasks.
    blocks: Vec<Vec<(u32, CellId, u32)>>,
    /// Per block: the least weight of its tasks (`u32::MAX` when it has none).
    least: Vec<u32>,
    len: usize,
}

impl TaskIndex {
    /// An empty index over a `width` x `height` map.
    pub(crate) fn new(width: u32, height: u32) -> TaskIndex {
        let (blocks_x, blocks_y) = (width.div_ceil(BLOCK).max(1), height.div_ceil(BLOCK).max(1));
        let blocks = (blocks_x * blocks_y) as usize;
        TaskIndex {
            width,
            blocks_x,
            blocks_y,
            blocks: vec![Vec::new(); blocks],
            least: vec![u32::MAX; blocks],
            len: 0,
        }
    }

    fn block_of(&self, cell: CellId) -> usize {
        let (x, y) = (cell % self.width, cell / self.width);
        ((y / BLOCK) * self.blocks_x + x / BLOCK) as usize
    }

    /// Tasks held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds task `task`, whose first errand is `first`, with `weight`: a cost the search's
    /// `cost` adds to the Manhattan distance at least.
    pub(crate) fn insert(&mut self, task: u32, first: CellId, weight: u32) {
        let b = self.block_of(first);
        self.blocks[b].push((task, first, weight));
        self.least[b] = self.least[b].min(weight);
        self.len += 1;
    }

    /// Takes out task `task`, whose first errand is `first`; whether it was there.
    pub(crate) fn remove(&mut self, task: u32, first: CellId) -> bool {
        let b = self.block_of(first);
        let Some(i) = self.blocks[b].iter().position(|&(t, ..)| t == task) else {
            return false;
        };
        self.blocks[b].swap_remove(i);
        self.least[b] = self.blocks[b]
            .iter()
            .map(|&(.., w)| w)
            .min()
            .unwrap_or(u32::MAX);
        self.len -= 1;
        true
    }

    /// The task of least `cost(task, first errand)` among those held (`None`: not a
    /// candidate), ties to the smallest id: (task, its first errand, cost). `cost` must be at
    /// least the Manhattan distance from `at` to the errand plus the task's weight: the blocks
    /// are visited ring by ring around `at`, a block skipped when its nearest cell plus its
    /// least weight costs more than the best found, and the search stops at the first ring
    /// every cell of which is farther than that. Once it has a candidate it looks into at most
    /// [`SEARCH_BLOCKS`] more blocks (an answer near the best: costs far above the bound, as
    /// in a maze, would otherwise visit most of the map).
    pub(crate) fn best(
        &self,
        at: CellId,
        mut cost: impl FnMut(u32, CellId) -> Option<u32>,
    ) -> Option<(u32, CellId, u32)> {
        if self.len == 0 {
            return None;
        }
        let (x, y) = (at % self.width, at / self.width);
        let (bx, by) = (x / BLOCK, y / BLOCK);
        let mut best: Option<(u32, u32, CellId)> = None; // (cost, task, first errand)
        let rings = self.blocks_x.max(self.blocks_y);
        let mut looked_since_found = 0usize;
        for r in 0..=rings {
            // Every cell of a block r rings out is at least (r - 1) * BLOCK + 1 away.
            let floor = if r == 0 { 0 } else { (r - 1) * BLOCK + 1 };
            if best.is_some_and(|(c, ..)| floor > c) || looked_since_found > SEARCH_BLOCKS {
                break;
            }
            let (x0, x1) = (bx.saturating_sub(r), (bx + r).min(self.blocks_x - 1));
            let (y0, y1) = (by.saturating_sub(r), (by + r).min(self.blocks_y - 1));
            for yy in y0..=y1 {
                for xx in x0..=x1 {
                    if xx.abs_diff(bx).max(yy.abs_diff(by)) != r {
                        continue;
                    }
                    let b = (yy * self.blocks_x + xx) as usize;
                    if self.blocks[b].is_empty() {
                        continue;
                    }
                    // The block's nearest cell to `at`.
                    let near = |v: u32, block: u32| {
                        let (lo, hi) = (block * BLOCK, block * BLOCK + BLOCK - 1);
                        lo.saturating_sub(v) + v.saturating_sub(hi)
                    };
                    let bound = (near(x, xx) + near(y, yy)).saturating_add(self.least[b]);
                    if let Some((c, ..)) = best {
                        if bound > c {
                            continue;
                        }
                        looked_since_found += 1;
                    }
                    for &(task, cell, _) in &self.blocks[b] {
                        let Some(c) = cost(task, cell) else {
                            continue;
                        };
                        if best.is_none_or(|(bc, bt, _)| c < bc || (c == bc && task < bt)) {
                            best = Some((c, task, cell));
                        }
                    }
                }
            }
        }
        best.map(|(c, t, cell)| (t, cell, c))
    }

    /// Takes out the task nearest `at` (Manhattan distance of its first errand; ties to the
    /// smallest id), if any.
    #[cfg(test)]
    pub(crate) fn take_nearest(&mut self, at: CellId) -> Option<u32> {
        let w = self.width;
        let d = |c: CellId| (c % w).abs_diff(at % w) + (c / w).abs_diff(at / w);
        let (task, cell, _) = self.best(at, |_, c| Some(d(c)))?;
        self.remove(task, cell);
        Some(task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_is_the_scans_answer() {
        // A 40 x 30 map, tasks scattered by a simple hash; robots everywhere.
        let (w, h) = (40u32, 30u32);
        let mut index = TaskIndex::new(w, h);
        let mut scan: Vec<(u32, CellId)> = Vec::new();
        for t in 0..300u32 {
            let cell = (t.wrapping_mul(2_654_435_761) >> 7) % (w * h);
            index.insert(t, cell, 0);
            scan.push((t, cell));
        }
        for k in 0..300u32 {
            let at = (k.wrapping_mul(40_503) >> 3) % (w * h);
            let d = |c: CellId| (c % w).abs_diff(at % w) + (c / w).abs_diff(at / w);
            let want = scan.iter().map(|&(t, c)| (d(c), t)).min().map(|(_, t)| t);
            assert_eq!(index.take_nearest(at), want, "robot at {at}");
            scan.retain(|&(t, _)| Some(t) != want);
        }
        assert_eq!(index.len(), 0);
        assert_eq!(index.take_nearest(0), None);
    }
}
