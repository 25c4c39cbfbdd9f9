//! The transposition table: what earlier searches learned about a position, keyed by the
//! rules' position hash. It stores the best action as its index in the position's legal
//! action list (the rules list them in a fixed order), so it needs no variant's types and
//! one table serves an [`crate::Engine`] across searches.

/// How a stored score bounds the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (the search failed high).
    Lower,
    /// The true score is at most this (no action reached alpha).
    Upper,
}

/// One remembered position.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub depth: i32,
    pub score: i32,
    pub bound: Bound,
    /// Index of the best action in the legal list, if one was found.
    pub best: Option<u16>,
}

/// A fixed-size table, always replacing (the newest result is the most relevant one).
#[derive(Clone, Debug)]
pub struct Table {
    slots: Vec<Option<Entry>>,
    mask: u64,
}

impl Table {
    /// A table of 2^`bits` entries.
    pub fn new(bits: u32) -> Table {
        let size = 1usize << bits.min(26);
        Table {
            slots: vec![None; size],
            mask: size as u64 - 1,
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key & self.mask) as usize
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots
            .get(self.slot(key))
            .copied()
            .flatten()
            .filter(|e| e.key == key)
    }

    pub fn store(&mut self, entry: Entry) {
        let slot = self.slot(entry.key);
        if let Some(cell) = self.slots.get_mut(slot) {
            // Keep a deeper result of the same position over a shallower one.
            let keep = cell.is_some_and(|old| old.key == entry.key && old.depth > entry.depth);
            if !keep {
                *cell = Some(entry);
            }
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
    }
}
