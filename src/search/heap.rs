//! The open list: a radix heap over exact integer `f` keys.
//!
//! A* with a consistent heuristic and exact costs pops keys that never decrease, which is the
//! one condition a radix heap needs. Entries are kept in 65 buckets by the highest bit in which
//! their key differs from the last key popped (bucket 0: equal to it). A push is O(1); a pop
//! takes from bucket 0, or else finds the smallest key of the first non-empty bucket, makes it
//! the new "last" and redistributes that bucket's entries into lower buckets. Each entry only
//! ever moves down, so the work per entry is bounded by the number of bits in which keys differ,
//! and in practice is a few moves.
//!
//! Bucket 0 is a LIFO stack: among equal `f` the cell pushed last (the deepest) comes out first,
//! the tie-break that lets A* run straight at the goal instead of widening along a front of
//! equal-`f` cells. There is no decrease-key: a cell whose cost improves is pushed again and its
//! stale entry is skipped when popped, which for a radix heap costs almost nothing.
//! Measurements against binary, 4-ary and indexed heaps are in the search module docs.

use crate::grid::CellId;

const BUCKETS: usize = 65;

/// See the [module docs](self).
#[derive(Debug)]
pub(crate) struct OpenList {
    last: u64,
    buckets: [Vec<(u64, CellId)>; BUCKETS],
    /// Smallest key in each bucket (valid while the bucket is not empty).
    minimum: [u64; BUCKETS],
    /// Bit `i` set when bucket `i` is not empty.
    occupied: u128,
}

impl Default for OpenList {
    fn default() -> Self {
        OpenList {
            last: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            minimum: [u64::MAX; BUCKETS],
            occupied: 0,
        }
    }
}

#[inline(always)]
fn bucket_of(key: u64, last: u64) -> usize {
    (64 - (key ^ last).leading_zeros()) as usize
}

impl OpenList {
    #[inline]
    pub fn clear(&mut self) {
        let mut occupied = self.occupied;
        while occupied != 0 {
            let i = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            self.buckets[i].clear();
        }
        self.occupied = 0;
        self.last = 0;
    }

    /// Bytes held.
    pub fn capacity_bytes(&self) -> usize {
        self.buckets.iter().map(|b| b.capacity() * 16).sum()
    }

    /// Adds `cell` with key `f`. A key below the last one popped (possible only through rounding
    /// of floating-point costs) is treated as equal to it.
    #[inline]
    pub fn push(&mut self, f: u64, cell: CellId) {
        let f = f.max(self.last);
        self.put(f, cell);
    }

    #[inline(always)]
    fn put(&mut self, f: u64, cell: CellId) {
        let b = bucket_of(f, self.last);
        if self.occupied & (1 << b) == 0 {
            self.minimum[b] = f;
            self.occupied |= 1 << b;
        } else if f < self.minimum[b] {
            self.minimum[b] = f;
        }
        self.buckets[b].push((f, cell));
    }

    /// Removes an entry with the smallest key (the most recently pushed among equals).
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, CellId)> {
        if self.occupied & 1 == 0 {
            if self.occupied == 0 {
                return None;
            }
            self.refill();
        }
        let e = self.buckets[0].pop();
        if self.buckets[0].is_empty() {
            self.occupied &= !1;
        }
        e
    }

    /// Moves the smallest key of the first non-empty bucket into bucket 0 (with every entry of
    /// that bucket going to a lower one).
    #[cold]
    fn refill(&mut self) {
        let i = self.occupied.trailing_zeros() as usize;
        let mut bucket = std::mem::take(&mut self.buckets[i]);
        self.occupied &= !(1 << i);
        self.last = self.minimum[i];
        for (f, cell) in bucket.drain(..) {
            debug_assert!(bucket_of(f, self.last) < i);
            self.put(f, cell);
        }
        self.buckets[i] = bucket; // keep its capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys come out in non-decreasing order, and every key pushed comes out, when (as in A*)
    /// nothing below the last popped key is pushed.
    #[test]
    fn monotone_pops_in_order() {
        let mut open = OpenList::default();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut pushed = Vec::new();
        for cell in 0..300u32 {
            let f = 1000 + next() % 100_000;
            pushed.push(f);
            open.push(f, cell);
        }
        let (mut last, mut cell, mut popped) = (0, 300u32, Vec::new());
        while let Some((f, _)) = open.pop() {
            assert!(f >= last, "{f} after {last}");
            last = f;
            popped.push(f);
            if cell < 900 {
                let g = f + next() % 5000;
                pushed.push(g);
                open.push(g, cell);
                cell += 1;
            }
        }
        pushed.sort_unstable();
        assert_eq!(popped, pushed);
    }

    #[test]
    fn equal_keys_are_last_in_first_out() {
        let mut open = OpenList::default();
        open.push(5, 1);
        open.push(9, 2);
        assert_eq!(open.pop(), Some((5, 1)));
        open.push(5, 3);
        open.push(5, 4);
        open.push(7, 5);
        assert_eq!(open.pop(), Some((5, 4)));
        assert_eq!(open.pop(), Some((5, 3)));
        assert_eq!(open.pop(), Some((7, 5)));
        assert_eq!(open.pop(), Some((9, 2)));
        assert_eq!(open.pop(), None);
        open.push(3, 7); // below the last key: treated as equal to it
        assert_eq!(open.pop(), Some((9, 7)));
        open.clear();
        assert_eq!(open.pop(), None);
    }
}
