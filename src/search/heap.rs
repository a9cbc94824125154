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
//!
//! Layout: bucket 0 holds only cell ids (its key is `last`), and a push whose key is not above
//! `last` goes straight there, with no bucket arithmetic. The 64 other buckets are tracked by a
//! `u64` occupancy mask (a `u128` mask cost about 7 instructions per variable shift and test)
//! and a per-bucket minimum kept at `u64::MAX` while empty, so a push is a branch-free
//! `or` and `min`.

use crate::grid::CellId;

/// Buckets above bucket 0: bucket `b` holds keys whose highest bit differing from `last` is `b`.
const BUCKETS: usize = 64;

/// See the [module docs](self).
#[derive(Debug)]
pub(crate) struct OpenList {
    last: u64,
    /// Bucket 0: cells whose key equals `last` (so only the cell is stored), a LIFO stack.
    equal: Vec<CellId>,
    buckets: [Vec<(u64, CellId)>; BUCKETS],
    /// Smallest key in each bucket, `u64::MAX` while the bucket is empty.
    minimum: [u64; BUCKETS],
    /// Bit `b` set when `buckets[b]` is not empty.
    occupied: u64,
}

impl Default for OpenList {
    fn default() -> Self {
        OpenList {
            last: 0,
            equal: Vec::new(),
            buckets: std::array::from_fn(|_| Vec::new()),
            minimum: [u64::MAX; BUCKETS],
            occupied: 0,
        }
    }
}

impl OpenList {
    #[inline]
    pub fn clear(&mut self) {
        let mut occupied = self.occupied;
        while occupied != 0 {
            let i = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            self.buckets[i].clear();
            self.minimum[i] = u64::MAX;
        }
        self.equal.clear();
        self.occupied = 0;
        self.last = 0;
    }

    /// Bytes held.
    pub fn capacity_bytes(&self) -> usize {
        self.equal.capacity() * std::mem::size_of::<CellId>()
            + self
                .buckets
                .iter()
                .map(|b| b.capacity() * 16)
                .sum::<usize>()
    }

    /// Adds `cell` with key `f`. A key below the last one popped (possible only through rounding
    /// of floating-point costs) is treated as equal to it.
    #[inline]
    pub fn push(&mut self, f: u64, cell: CellId) {
        let last = self.last;
        if f <= last {
            self.equal.push(cell);
        } else {
            self.put_above(f, cell, last);
        }
    }

    /// Puts a key above `last` into its bucket.
    #[inline(always)]
    fn put_above(&mut self, f: u64, cell: CellId, last: u64) {
        let b = (63 - (f ^ last).leading_zeros()) as usize & (BUCKETS - 1);
        self.occupied |= 1 << b;
        let m = &mut self.minimum[b];
        *m = (*m).min(f);
        self.buckets[b].push((f, cell));
    }

    /// Removes an entry with the smallest key (the most recently pushed among equals).
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, CellId)> {
        if let Some(cell) = self.equal.pop() {
            return Some((self.last, cell));
        }
        if self.occupied == 0 {
            return None;
        }
        self.refill();
        self.equal.pop().map(|cell| (self.last, cell))
    }

    /// Makes the smallest key of the first non-empty bucket the new `last` and moves every
    /// entry of that bucket down: those equal to it into the stack, the others into lower
    /// buckets.
    #[cold]
    fn refill(&mut self) {
        let i = self.occupied.trailing_zeros() as usize;
        let mut bucket = std::mem::take(&mut self.buckets[i]);
        self.occupied &= !(1 << i);
        let last = self.minimum[i];
        self.minimum[i] = u64::MAX;
        self.last = last;
        for &(f, cell) in &bucket {
            if f == last {
                self.equal.push(cell);
            } else {
                debug_assert!(63 - (f ^ last).leading_zeros() < i as u32);
                self.put_above(f, cell, last);
            }
        }
        bucket.clear();
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
