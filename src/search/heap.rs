//! Indexed binary min-heap of open cells, keyed by `(f, -g)`.
//!
//! "Indexed" means the heap knows where each cell sits (`pos`), so a cell whose cost improves is
//! moved up in place (decrease-key) instead of pushed a second time. `pos` is a flat per-cell
//! array owned by the heap; an entry is only read for a cell the caller knows is open, so it
//! never needs clearing between queries.

use crate::grid::CellId;

/// One open cell.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HeapEntry {
    /// `g + h`.
    pub f: f64,
    /// Cost from the start.
    pub g: f64,
    /// The cell.
    pub cell: CellId,
}

impl HeapEntry {
    /// Whether `self` comes out before `other`: lower `f`, then higher `g` (deeper nodes first,
    /// which on grids with many equal-`f` ties reaches the goal with far fewer expansions).
    #[inline(always)]
    fn before(&self, other: &HeapEntry) -> bool {
        self.f < other.f || (self.f == other.f && self.g > other.g)
    }
}

/// See the [module docs](self).
#[derive(Debug, Default)]
pub(crate) struct IndexedHeap {
    entries: Vec<HeapEntry>,
    pos: Vec<u32>,
}

impl IndexedHeap {
    /// Makes room for cell ids `0..cells` (allocates only when the grid grew).
    pub fn ensure_cells(&mut self, cells: usize) {
        if self.pos.len() < cells {
            self.pos.resize(cells, 0);
        }
    }

    #[inline]
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    #[inline]
    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Adds a cell that is not in the heap.
    #[inline]
    pub fn push(&mut self, entry: HeapEntry) {
        let i = self.entries.len();
        self.entries.push(entry);
        self.sift_up(i);
    }

    /// Removes and returns the first entry.
    #[inline]
    pub fn pop(&mut self) -> Option<HeapEntry> {
        let last = self.entries.pop()?;
        if self.entries.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.entries[0], last);
        self.sift_down(0);
        Some(top)
    }

    /// Gives `cell`, which must be in the heap, the smaller key `(f, g)`.
    #[inline]
    pub fn decrease(&mut self, cell: CellId, f: f64, g: f64) {
        let i = self.pos[cell as usize] as usize;
        debug_assert_eq!(
            self.entries[i].cell, cell,
            "decrease of a cell not in the heap"
        );
        self.entries[i].f = f;
        self.entries[i].g = g;
        self.sift_up(i);
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.entries[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.entries[parent];
            if !entry.before(&p) {
                break;
            }
            self.entries[i] = p;
            self.pos[p.cell as usize] = i as u32;
            i = parent;
        }
        self.entries[i] = entry;
        self.pos[entry.cell as usize] = i as u32;
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.entries.len();
        let entry = self.entries[i];
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.entries[right].before(&self.entries[left]) {
                right
            } else {
                left
            };
            let c = self.entries[child];
            if !c.before(&entry) {
                break;
            }
            self.entries[i] = c;
            self.pos[c.cell as usize] = i as u32;
            i = child;
        }
        self.entries[i] = entry;
        self.pos[entry.cell as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops come out in key order, and decrease-key moves an entry forward, on a pseudo-random
    /// sequence checked against a sort.
    #[test]
    fn pops_in_order_with_decrease_key() {
        let mut heap = IndexedHeap::default();
        heap.ensure_cells(500);
        let mut keys = vec![0.0f64; 500];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for (cell, key) in keys.iter_mut().enumerate() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *key = (x % 1000) as f64;
            heap.push(HeapEntry {
                f: *key,
                g: 0.0,
                cell: cell as u32,
            });
        }
        for cell in (0..500).step_by(7) {
            keys[cell] /= 3.0;
            heap.decrease(cell as u32, keys[cell], 0.0);
        }
        let mut popped = Vec::new();
        while let Some(e) = heap.pop() {
            assert_eq!(e.f, keys[e.cell as usize]);
            popped.push(e.f);
        }
        assert_eq!(popped.len(), 500);
        assert!(popped.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn ties_prefer_larger_g() {
        let mut heap = IndexedHeap::default();
        heap.ensure_cells(3);
        heap.push(HeapEntry {
            f: 5.0,
            g: 1.0,
            cell: 0,
        });
        heap.push(HeapEntry {
            f: 5.0,
            g: 4.0,
            cell: 1,
        });
        heap.push(HeapEntry {
            f: 6.0,
            g: 6.0,
            cell: 2,
        });
        let order: Vec<_> = std::iter::from_fn(|| heap.pop()).map(|e| e.cell).collect();
        assert_eq!(order, vec![1, 0, 2]);
    }
}
