//! The tasks of a League of Robot Runners run that may still be assigned (free ones, and those
//! whose first errand nobody reached yet), bucketed by the block of the map their first errand
//! lies in, so that the best one for a robot is found by looking at the blocks around it,
//! nearest first, instead of scanning every task (5,000 robots x 7,500 tasks at the first step
//! of `warehouse_large_5000`). With Manhattan costs the answer is the scan's (the least
//! distance, ties to the smallest task id) unless the best lies past a bound of blocks.

use crate::grid::CellId;

/// Side of a block, in cells.
const BLOCK: u32 = 8;

/// Blocks [`TaskIndex::best`] visits at most once it has a candidate.
pub(crate) const SEARCH_BLOCKS: usize = 256;

/// Assignable tasks by block of their first errand.
#[derive(Debug, Clone)]
pub(crate) struct TaskIndex {
    width: u32,
    blocks_x: u32,
    blocks_y: u32,
    /// Per block: (task id, first errand cell) of its tasks.
    blocks: Vec<Vec<(u32, CellId)>>,
    len: usize,
}

impl TaskIndex {
    /// An empty index over a `width` x `height` map.
    pub(crate) fn new(width: u32, height: u32) -> TaskIndex {
        let (blocks_x, blocks_y) = (width.div_ceil(BLOCK).max(1), height.div_ceil(BLOCK).max(1));
        TaskIndex {
            width,
            blocks_x,
            blocks_y,
            blocks: vec![Vec::new(); (blocks_x * blocks_y) as usize],
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

    /// Adds task `task`, whose first errand is `first`.
    pub(crate) fn insert(&mut self, task: u32, first: CellId) {
        let b = self.block_of(first);
        self.blocks[b].push((task, first));
        self.len += 1;
    }

    /// Takes out task `task`, whose first errand is `first`; whether it was there.
    pub(crate) fn remove(&mut self, task: u32, first: CellId) -> bool {
        let b = self.block_of(first);
        let Some(i) = self.blocks[b].iter().position(|&(t, _)| t == task) else {
            return false;
        };
        self.blocks[b].swap_remove(i);
        self.len -= 1;
        true
    }

    /// The task of least `cost(task, first errand)` among those held (`None`: not a
    /// candidate), ties to the smallest id: (task, its first errand, cost). `cost` must be at least the
    /// Manhattan distance from `at` to the errand: the blocks are visited ring by ring around
    /// `at` and the search stops at the first ring every cell of which is farther than the
    /// best cost found. After [`SEARCH_BLOCKS`] blocks with a candidate found it stops
    /// anyway (an answer near the best: costs far above the Manhattan distance, as in a maze,
    /// would otherwise visit most of the map).
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
        let mut visited_since_found = 0usize;
        for r in 0..=rings {
            // Every cell of a block r rings out is at least (r - 1) * BLOCK + 1 away.
            let floor = if r == 0 { 0 } else { (r - 1) * BLOCK + 1 };
            if best.is_some_and(|(c, ..)| floor > c) || visited_since_found > SEARCH_BLOCKS {
                break;
            }
            let (x0, x1) = (bx.saturating_sub(r), (bx + r).min(self.blocks_x - 1));
            let (y0, y1) = (by.saturating_sub(r), (by + r).min(self.blocks_y - 1));
            for yy in y0..=y1 {
                for xx in x0..=x1 {
                    if xx.abs_diff(bx).max(yy.abs_diff(by)) != r {
                        continue;
                    }
                    if best.is_some() {
                        visited_since_found += 1;
                    }
                    let b = (yy * self.blocks_x + xx) as usize;
                    for &(task, cell) in &self.blocks[b] {
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
            index.insert(t, cell);
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
