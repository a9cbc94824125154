//! The search states of one refinement search, in an open-addressing hash table keyed by
//! state index: memory grows with the states a search reaches, not with the cells times the
//! timesteps of the plan (a 256 x 256 map with a makespan of 500 would need 590 MB as a flat
//! array), and a search's few thousand states stay in the caches.

/// What a search knows of a state (a cell and a free run of it).
#[derive(Debug, Clone, Copy)]
pub(super) struct State {
    /// Its earliest arrival.
    pub(super) arrive: u32,
    /// The state it was reached from ([`super::NO_STATE`] for the root).
    pub(super) parent: u64,
}

/// One slot: a key, the search that wrote it (older slots are empty), the state.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    search: u32,
    arrive: u32,
    parent: u64,
}

/// States by key, emptied in O(1) per search (see the module docs).
#[derive(Debug)]
pub(super) struct StateTable {
    slots: Vec<Slot>,
    /// The current search; slots of other searches are empty.
    search: u32,
    /// Slots of the current search.
    len: usize,
}

/// Slots to start with (a power of two).
const INITIAL_SLOTS: usize = 1 << 12;

impl StateTable {
    pub(super) fn new() -> Self {
        StateTable {
            slots: vec![Slot::default(); INITIAL_SLOTS],
            search: 1,
            len: 0,
        }
    }

    /// Empties the table for a new search.
    pub(super) fn clear(&mut self) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.slots.fill(Slot::default());
            self.search = 1;
        }
        self.len = 0;
    }

    /// Where `key` is or would go.
    #[inline]
    fn position(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: neighbouring keys spread over the table.
        let mut i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & mask;
        loop {
            let slot = &self.slots[i];
            if slot.search != self.search || slot.key == key {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// The state of `key`, if the search reached it.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<State> {
        let slot = &self.slots[self.position(key)];
        (slot.search == self.search).then_some(State {
            arrive: slot.arrive,
            parent: slot.parent,
        })
    }

    /// Sets the state of `key`.
    #[inline]
    pub(super) fn set(&mut self, key: u64, state: State) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let i = self.position(key);
        let slot = &mut self.slots[i];
        if slot.search != self.search {
            self.len += 1;
        }
        *slot = Slot {
            key,
            search: self.search,
            arrive: state.arrive,
            parent: state.parent,
        };
    }

    /// Doubles the slots, keeping the current search's states.
    fn grow(&mut self) {
        let doubled = vec![Slot::default(); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        let search = self.search;
        self.search = 1;
        self.len = 0;
        for slot in old.into_iter().filter(|s| s.search == search) {
            let state = State {
                arrive: slot.arrive,
                parent: slot.parent,
            };
            self.set(slot.key, state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_kept_by_key_grown_and_cleared() {
        let mut table = StateTable::new();
        for key in 0..20_000u64 {
            let state = State {
                arrive: key as u32,
                parent: key * 3,
            };
            table.set(key * 4096 + 7, state);
        }
        assert!(table.slots.len() >= 40_000);
        for key in 0..20_000u64 {
            let s = table.get(key * 4096 + 7).unwrap();
            assert_eq!((s.arrive, s.parent), (key as u32, key * 3));
        }
        assert!(table.get(5).is_none());
        table.set(
            7,
            State {
                arrive: 1,
                parent: 2,
            },
        );
        table.set(
            7,
            State {
                arrive: 3,
                parent: 4,
            },
        );
        assert_eq!(table.get(7).unwrap().arrive, 3);
        table.clear();
        assert!(table.get(7).is_none() && table.get(4096 + 7).is_none());
    }
}
