//! The D* Lite priority queue: an indexed binary min-heap over slot indices, keyed by
//! `(k1, k2)`, with update and removal in place (each slot knows its heap position).

use super::table::{NOT_QUEUED, Slot};

/// A D* Lite key: `[min(g, rhs) + h(start, s) + k_m; min(g, rhs)]`, compared lexicographically.
pub(crate) type Key = (u64, u64);

/// See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub(crate) struct Queue {
    heap: Vec<(Key, u32)>,
}

impl Queue {
    /// The heap, for a snapshot.
    pub(super) fn heap(&self) -> &[(Key, u32)] {
        &self.heap
    }

    /// Entries the heap has room for, for a snapshot.
    pub(super) fn capacity(&self) -> usize {
        self.heap.capacity()
    }

    /// The queue holding `heap` (a min-heap by key, as [`heap`](Self::heap) gave it).
    pub(super) fn from_heap(heap: Vec<(Key, u32)>) -> Queue {
        Queue { heap }
    }

    /// The smallest key and its slot.
    #[inline]
    pub fn top(&self) -> Option<(Key, u32)> {
        self.heap.first().copied()
    }

    /// Number of queued vertices.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Adds `slot` (not queued) with `key`.
    pub fn insert(&mut self, slots: &mut [Slot], slot: u32, key: Key) {
        debug_assert_eq!(slots[slot as usize].pos, NOT_QUEUED);
        let i = self.heap.len();
        self.heap.push((key, slot));
        slots[slot as usize].pos = i as u32;
        self.sift_up(slots, i);
    }

    /// Changes the key of a queued `slot`.
    pub fn update(&mut self, slots: &mut [Slot], slot: u32, key: Key) {
        let i = slots[slot as usize].pos as usize;
        let old = self.heap[i].0;
        self.heap[i].0 = key;
        if key < old {
            self.sift_up(slots, i);
        } else {
            self.sift_down(slots, i);
        }
    }

    /// Takes a queued `slot` out.
    pub fn remove(&mut self, slots: &mut [Slot], slot: u32) {
        let i = slots[slot as usize].pos as usize;
        slots[slot as usize].pos = NOT_QUEUED;
        let last = self.heap.pop().expect("slot is queued");
        if i < self.heap.len() {
            let old = self.heap[i].0;
            self.heap[i] = last;
            slots[last.1 as usize].pos = i as u32;
            if last.0 < old {
                self.sift_up(slots, i);
            } else {
                self.sift_down(slots, i);
            }
        }
    }

    /// Empties the queue (the caller resets the slots); `release` gives the memory back.
    pub fn clear(&mut self, release: bool) {
        if release {
            self.heap = Vec::new();
        } else {
            self.heap.clear();
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<(Key, u32)>()
    }

    fn sift_up(&mut self, slots: &mut [Slot], mut i: usize) {
        let item = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].0 <= item.0 {
                break;
            }
            self.heap[i] = self.heap[parent];
            slots[self.heap[i].1 as usize].pos = i as u32;
            i = parent;
        }
        self.heap[i] = item;
        slots[item.1 as usize].pos = i as u32;
    }

    fn sift_down(&mut self, slots: &mut [Slot], mut i: usize) {
        let item = self.heap[i];
        let n = self.heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].0 < self.heap[left].0 {
                right
            } else {
                left
            };
            if self.heap[child].0 >= item.0 {
                break;
            }
            self.heap[i] = self.heap[child];
            slots[self.heap[i].1 as usize].pos = i as u32;
            i = child;
        }
        self.heap[i] = item;
        slots[item.1 as usize].pos = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dstar::table::INF;

    #[test]
    fn pops_in_order_with_updates_and_removals() {
        let mut slots: Vec<Slot> = (0..200u32)
            .map(|cell| Slot {
                cell,
                pos: NOT_QUEUED,
                g: INF,
                rhs: INF,
            })
            .collect();
        let mut keys = vec![None; 200];
        let mut q = Queue::default();
        let mut x: u64 = 88_172_645_463_325_252;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 1000
        };
        for s in 0..200u32 {
            let k = (next(), next());
            q.insert(&mut slots, s, k);
            keys[s as usize] = Some(k);
        }
        for s in (0..200u32).step_by(3) {
            let k = (next(), next());
            q.update(&mut slots, s, k);
            keys[s as usize] = Some(k);
        }
        for s in (1..200u32).step_by(7) {
            q.remove(&mut slots, s);
            keys[s as usize] = None;
        }
        let mut expected: Vec<Key> = keys.iter().flatten().copied().collect();
        expected.sort_unstable();
        let mut popped = Vec::new();
        while let Some((k, s)) = q.top() {
            assert_eq!(slots[s as usize].pos, 0);
            q.remove(&mut slots, s);
            assert_eq!(slots[s as usize].pos, NOT_QUEUED);
            popped.push(k);
        }
        assert_eq!(popped, expected);
        assert_eq!(q.len(), 0);
    }
}
