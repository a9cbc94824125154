//! The free tasks of a League of Robot Runners run, bucketed by the block of the map their first
//! errand lies in, so that the nearest one to a robot is found by looking at the blocks around
//! it, nearest first, instead of scanning every free task (5,000 robots x 7,500 tasks at the
//! first step of `warehouse_large_5000`). The answer is exactly the scan's: the least
//! Manhattan distance, ties to the smallest task id.

use crate::grid::CellId;

/// Side of a block, in cells.
const BLOCK: u32 = 8;

/// Free tasks by block of their first errand.
#[derive(Debug, Clone)]
pub(crate) struct TaskIndex {
    width: u32,
    blocks_x: u32,
    blocks_y: u32,
    /// Per block: (task id, first errand cell) of its free tasks.
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

    /// Free tasks held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds free task `task`, whose first errand is `first`.
    pub(crate) fn insert(&mut self, task: u32, first: CellId) {
        let b = self.block_of(first);
        self.blocks[b].push((task, first));
        self.len += 1;
    }

    /// Takes out the free task nearest `at` (Manhattan distance of its first errand; ties to
    /// the smallest id), if any.
    pub(crate) fn take_nearest(&mut self, at: CellId) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (x, y) = (at % self.width, at / self.width);
        let (bx, by) = (x / BLOCK, y / BLOCK);
        let mut best: Option<(u32, u32, usize, usize)> = None; // (cost, task, block, index)
        let rings = self.blocks_x.max(self.blocks_y);
        for r in 0..=rings {
            // Every cell of a block r rings out is at least (r - 1) * BLOCK + 1 away.
            let floor = if r == 0 { 0 } else { (r - 1) * BLOCK + 1 };
            if best.is_some_and(|(cost, ..)| floor > cost) {
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
                    for (i, &(task, cell)) in self.blocks[b].iter().enumerate() {
                        let (cx, cy) = (cell % self.width, cell / self.width);
                        let cost = cx.abs_diff(x) + cy.abs_diff(y);
                        if best.is_none_or(|(c, t, ..)| cost < c || (cost == c && task < t)) {
                            best = Some((cost, task, b, i));
                        }
                    }
                }
            }
        }
        let (_, task, b, i) = best?;
        self.blocks[b].swap_remove(i);
        self.len -= 1;
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
