//! Sparse per-agent storage: an open-addressing hash table from cell id to a slot holding the
//! vertex's `g`, `rhs` and queue position. Memory grows with the cells a search touched, never
//! with the map.

use crate::grid::CellId;

/// "No slot": an empty bucket of the index.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// A slot's queue position when it is not in the queue.
pub(crate) const NOT_QUEUED: u32 = u32::MAX;

/// An infinite cost key.
pub(crate) const INF: u64 = u64::MAX;

/// One touched vertex.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    /// The cell.
    pub cell: CellId,
    /// Position in the queue's heap, or [`NOT_QUEUED`].
    pub pos: u32,
    /// Cost-to-goal estimate (a cost key).
    pub g: u64,
    /// One-step lookahead of `g` (a cost key).
    pub rhs: u64,
}

/// Cell id -> slot, linear probing, load at most 1/2, no deletion (a search only ever adds
/// vertices; starting over clears everything).
#[derive(Debug, Clone, Default)]
pub(crate) struct SlotTable {
    /// Slot index per bucket, [`NO_SLOT`] when empty. Length is 0 or a power of two.
    index: Vec<u32>,
    /// The slots, in order of first touch.
    pub slots: Vec<Slot>,
    /// `64 - log2(index.len())`: Fibonacci hashing keeps the top bits.
    shift: u32,
}

impl SlotTable {
    #[inline(always)]
    fn bucket(&self, cell: CellId) -> usize {
        (u64::from(cell).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The slot of `cell`, if it was touched.
    #[inline]
    pub fn find(&self, cell: CellId) -> Option<u32> {
        if self.index.is_empty() {
            return None;
        }
        let mask = self.index.len() - 1;
        let mut i = self.bucket(cell);
        loop {
            let s = self.index[i];
            if s == NO_SLOT {
                return None;
            }
            if self.slots[s as usize].cell == cell {
                return Some(s);
            }
            i = (i + 1) & mask;
        }
    }

    /// The slot of `cell`, created (g = rhs = infinity, not queued) when missing.
    #[inline]
    pub fn find_or_insert(&mut self, cell: CellId) -> u32 {
        if (self.slots.len() + 1) * 2 > self.index.len() {
            self.grow();
        }
        let mask = self.index.len() - 1;
        let mut i = self.bucket(cell);
        loop {
            let s = self.index[i];
            if s == NO_SLOT {
                let new = self.slots.len() as u32;
                self.slots.push(Slot {
                    cell,
                    pos: NOT_QUEUED,
                    g: INF,
                    rhs: INF,
                });
                self.index[i] = new;
                return new;
            }
            if self.slots[s as usize].cell == cell {
                return s;
            }
            i = (i + 1) & mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let len = (self.index.len() * 2).max(64);
        self.shift = 64 - len.trailing_zeros();
        self.index.clear();
        self.index.resize(len, NO_SLOT);
        let mask = len - 1;
        for (s, slot) in self.slots.iter().enumerate() {
            let mut i = self.bucket(slot.cell);
            while self.index[i] != NO_SLOT {
                i = (i + 1) & mask;
            }
            self.index[i] = s as u32;
        }
    }

    /// Buckets of the index (0 or a power of two) and its capacity, for a snapshot.
    pub(super) fn index_shape(&self) -> (usize, usize) {
        (self.index.len(), self.index.capacity())
    }

    /// The table holding `slots` (in that order) with an index of `index_len` buckets and
    /// `index_capacity`, as [`index_shape`](Self::index_shape) described it; `None` when the
    /// shape cannot hold them (not a power of two of at least 64, over half full, or with a
    /// capacity below its length) or a cell has two slots.
    pub(super) fn from_parts(
        slots: Vec<Slot>,
        index_len: usize,
        index_capacity: usize,
    ) -> Option<SlotTable> {
        if index_len == 0 {
            return (slots.is_empty() && index_capacity == 0).then(SlotTable::default);
        }
        if !index_len.is_power_of_two()
            || index_len < 64
            || slots.len() * 2 > index_len
            || index_capacity < index_len
        {
            return None;
        }
        let mut index = Vec::with_capacity(index_capacity);
        index.resize(index_len, NO_SLOT);
        let mut table = SlotTable {
            index,
            slots: Vec::new(),
            shift: 64 - index_len.trailing_zeros(),
        };
        let mask = index_len - 1;
        for (s, slot) in slots.iter().enumerate() {
            let mut i = table.bucket(slot.cell);
            loop {
                let at = table.index[i];
                if at == NO_SLOT {
                    break;
                }
                if slots[at as usize].cell == slot.cell {
                    return None;
                }
                i = (i + 1) & mask;
            }
            table.index[i] = s as u32;
        }
        table.slots = slots;
        Some(table)
    }

    /// Number of touched vertices.
    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Forgets every vertex; `release` also gives the memory back.
    pub fn clear(&mut self, release: bool) {
        if release {
            *self = SlotTable::default();
        } else {
            self.slots.clear();
            self.index.fill(NO_SLOT);
        }
    }

    /// Bytes held (capacities).
    pub fn memory_bytes(&self) -> usize {
        self.index.capacity() * std::mem::size_of::<u32>()
            + self.slots.capacity() * std::mem::size_of::<Slot>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted_across_growth() {
        let mut t = SlotTable::default();
        assert_eq!(t.find(5), None);
        let cells: Vec<CellId> = (0..5000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 1_000_000)
            .collect();
        for &c in &cells {
            let s = t.find_or_insert(c);
            assert_eq!(t.slots[s as usize].cell, c);
        }
        for &c in &cells {
            let s = t.find(c).expect("inserted");
            assert_eq!(t.slots[s as usize].cell, c);
            assert_eq!(t.find_or_insert(c), s);
        }
        assert_eq!(t.find(1_000_001), None);
        t.clear(false);
        assert_eq!(t.find(cells[0]), None);
        assert_eq!(t.len(), 0);
        t.clear(true);
        assert_eq!(t.memory_bytes(), 0);
    }
}
