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
//! Measurements against binary, 4-ary and indexed heaps: `docs/performance.md`.
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

    /// Calls `f` with every cell on the list, in no particular order.
    pub(crate) fn for_each_cell(&self, mut f: impl FnMut(CellId)) {
        self.equal.iter().for_each(|&c| f(c));
        let mut occupied = self.occupied;
        while occupied != 0 {
            let i = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            self.buckets[i].iter().for_each(|&(_, c)| f(c));
        }
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

/// What the A* loop needs of an open list: push a key and a cell, pop a smallest key (the most
/// recently pushed among equals).
pub(crate) trait OpenQueue {
    fn push(&mut self, f: u64, cell: CellId);
    fn pop(&mut self) -> Option<(u64, CellId)>;
}

impl OpenQueue for OpenList {
    #[inline(always)]
    fn push(&mut self, f: u64, cell: CellId) {
        OpenList::push(self, f, cell);
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(u64, CellId)> {
        OpenList::pop(self)
    }
}

/// One slot of the [`LevelHeap`]'s key table.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    level: u32,
    /// The table generation that wrote the slot; any other value: empty.
    generation: u32,
}

/// An open list that stores each distinct key once: a radix heap ([`OpenList`]) over levels,
/// each level a LIFO stack of the cells with that key, found by a hash table on the key. Pushing
/// a cell onto a pending level is a table probe and a stack push, and a level, not each of its
/// cells, is what the radix heap moves between buckets.
#[derive(Debug, Default)]
pub(crate) struct LevelHeap {
    /// Key of the current level (the last one popped).
    current: u64,
    /// Cells of the current level.
    stack: Vec<CellId>,
    /// Pending levels: key and index into `pool`.
    heap: OpenList,
    /// Stacks of the pending levels, and empty ones kept for reuse. When a level becomes the
    /// current one its cells are copied to `stack`.
    pool: Vec<Vec<CellId>>,
    /// Key of each pool stack while it is pending.
    pool_key: Vec<u64>,
    /// Indices of the empty stacks in `pool`.
    free: Vec<u32>,
    /// Open-addressing table from key to level (linear probing); slots of levels already
    /// popped (key <= `current`) are dead but keep probe chains intact until a rebuild.
    slots: Vec<Slot>,
    /// Slots written in this table generation (live and dead).
    used: usize,
    generation: u32,
}

impl LevelHeap {
    pub(crate) fn clear(&mut self) {
        self.stack.clear();
        let pool = &mut self.pool;
        self.heap.for_each_cell(|i| pool[i as usize].clear());
        self.heap.clear();
        // Stacks are handed out in the same order in every query, so that a query's demands
        // on each stack's capacity depend on the query alone: once every query of a set has
        // run, running them again allocates nothing.
        self.free.clear();
        self.free.extend((0..self.pool.len() as u32).rev());
        self.current = 0;
        self.new_table_generation();
    }

    fn new_table_generation(&mut self) {
        self.used = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
        if self.slots.is_empty() {
            self.slots.resize(1024, Slot::default());
        }
    }

    /// Bytes held.
    pub(crate) fn capacity_bytes(&self) -> usize {
        let cell = std::mem::size_of::<CellId>();
        self.stack.capacity() * cell
            + self.heap.capacity_bytes()
            + self.pool_key.capacity() * 8
            + self.free.capacity() * 4
            + self.slots.capacity() * std::mem::size_of::<Slot>()
            + self
                .pool
                .iter()
                .map(|v| v.capacity() * cell + std::mem::size_of::<Vec<CellId>>())
                .sum::<usize>()
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & (self.slots.len() - 1)
    }

    /// Pushes onto a pending level, creating it when the key is new.
    #[inline(always)]
    fn push_pending(&mut self, f: u64, cell: CellId) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(f);
        loop {
            let slot = self.slots[i];
            if slot.generation != self.generation {
                break;
            }
            if slot.key == f {
                self.pool[slot.level as usize].push(cell);
                return;
            }
            i = (i + 1) & mask;
        }
        self.new_level(f, cell, i);
    }

    #[cold]
    #[inline(never)]
    fn new_level(&mut self, f: u64, cell: CellId, slot: usize) {
        let level = match self.free.pop() {
            Some(i) => i,
            None => {
                self.pool.push(Vec::new());
                self.pool_key.push(0);
                self.free.reserve(self.pool.len());
                (self.pool.len() - 1) as u32
            }
        };
        self.pool[level as usize].push(cell);
        self.pool_key[level as usize] = f;
        self.heap.push(f, level);
        if 2 * (self.used + 1) > self.slots.len() {
            self.rebuild();
            return; // the rebuild entered the new level too
        }
        self.slots[slot] = Slot {
            key: f,
            level,
            generation: self.generation,
        };
        self.used += 1;
    }

    /// Drops the dead slots: a new table generation holding only the pending levels (doubling
    /// the table when they fill more than a quarter of it).
    fn rebuild(&mut self) {
        self.new_table_generation();
        let mut live = 0;
        for (level, stack) in self.pool.iter().enumerate() {
            if !stack.is_empty() && self.pool_key[level] > self.current {
                live += 1;
            }
        }
        if 4 * live > self.slots.len() {
            let n = self.slots.len() * 2;
            self.slots.clear();
            self.slots.resize(n, Slot::default());
        }
        let mask = self.slots.len() - 1;
        for level in 0..self.pool.len() {
            let key = self.pool_key[level];
            if self.pool[level].is_empty() || key <= self.current {
                continue;
            }
            let mut i = self.home(key);
            while self.slots[i].generation == self.generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = Slot {
                key,
                level: level as u32,
                generation: self.generation,
            };
            self.used += 1;
        }
    }
}

impl OpenQueue for LevelHeap {
    #[inline(always)]
    fn push(&mut self, f: u64, cell: CellId) {
        if f <= self.current {
            self.stack.push(cell);
        } else {
            self.push_pending(f, cell);
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(u64, CellId)> {
        loop {
            if let Some(cell) = self.stack.pop() {
                return Some((self.current, cell));
            }
            let (f, i) = self.heap.pop()?;
            self.current = f;
            // Copied rather than swapped: each stack keeps its own capacity.
            let level = &mut self.pool[i as usize];
            self.stack.extend_from_slice(level);
            level.clear();
            self.free.push(i);
        }
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

    /// The level heap pops exactly like a sorted map of LIFO stacks, through table rebuilds
    /// and growth (thousands of pending levels) and across queries.
    #[test]
    fn level_heap_matches_sorted_stacks() {
        use std::collections::BTreeMap;
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut open = LevelHeap::default();
        for round in 0..3u64 {
            open.clear();
            let spread = [50, 5000, 1 << 40][round as usize];
            let mut model: BTreeMap<u64, Vec<CellId>> = BTreeMap::new();
            let mut cell = 0;
            let mut push = |open: &mut LevelHeap, model: &mut BTreeMap<_, Vec<_>>, f, current| {
                OpenQueue::push(open, f, cell);
                model.entry(u64::max(f, current)).or_default().push(cell);
                cell += 1;
                cell
            };
            let mut pushed = 0;
            for _ in 0..3000 {
                let f = 1 + next() % spread;
                pushed = push(&mut open, &mut model, f, 0);
            }
            while let Some((f, c)) = OpenQueue::pop(&mut open) {
                let mut entry = model.first_entry().unwrap();
                assert_eq!((f, Some(c)), (*entry.key(), entry.get_mut().pop()));
                if entry.get().is_empty() {
                    entry.remove();
                }
                if pushed < 20_000 {
                    for _ in 0..next() % 3 {
                        let g = f + next() % (spread / 10 + 2) - 1; // sometimes f - 1
                        pushed = push(&mut open, &mut model, g, f);
                    }
                }
            }
            assert!(model.is_empty());
        }
    }
}
