//! The positions a game has passed through since its last irreversible move, kept for the
//! repetition rule of the variants whose positions are too large to copy on every move.
//!
//! A live game plays each move on a copy of its state (so that a failed commit changes
//! nothing), and a move search copies it at every node. A vector of the positions cost an
//! allocation per board on every copy, and a vector of shared positions a reference count per
//! position, each on another cache line. Here the positions form a list whose tail copies
//! share, so a copy shares every position, and beside the list the positions' hashes sit in one
//! contiguous vector: the repetition rule is asked on every move, and walking the list for it
//! read one node per position, each somewhere else in memory, which under the load of hundreds
//! of games was a cache miss apiece. The hashes are swept in one pass and the list is walked
//! only when one matches, so repetition stays exact whatever the hash.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The hash of a position for [`History::push`], for variants that keep no hash of their own.
/// A multiply-and-rotate hash (FxHash's): it only has to agree between equal positions, a
/// collision costs one comparison of records, and the standard library's SipHash spent more on
/// a Duel Chess position than the rest of the repetition rule.
pub fn position_hash<T: Hash>(position: &T) -> u64 {
    let mut hasher = PositionHasher(0);
    position.hash(&mut hasher);
    hasher.0
}

struct PositionHasher(u64);

impl PositionHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for PositionHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.add(u64::from(byte));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// The positions since the last irreversible move, newest first.
#[derive(Debug)]
pub struct History<R> {
    newest: Option<Arc<Node<R>>>,
    /// The hash of every position in the list, oldest first.
    hashes: Vec<u64>,
}

#[derive(Debug)]
struct Node<R> {
    record: R,
    earlier: Option<Arc<Node<R>>>,
}

impl<R> Default for History<R> {
    fn default() -> Self {
        History {
            newest: None,
            hashes: Vec::new(),
        }
    }
}

impl<R> Clone for History<R> {
    /// Shares every position: one reference count and a copy of the hashes, with room for
    /// one more. A live game clones its state for every move and pushes the new position
    /// onto the copy; a copy cut to its length would reallocate on that push.
    fn clone(&self) -> Self {
        let mut hashes = Vec::with_capacity(self.hashes.len() + 1);
        hashes.extend_from_slice(&self.hashes);
        History {
            newest: self.newest.clone(),
            hashes,
        }
    }
}

impl<R: PartialEq> History<R> {
    /// Records a position, with a hash that equal positions share.
    pub fn push(&mut self, hash: u64, record: R) {
        self.hashes.push(hash);
        let earlier = self.newest.take();
        self.newest = Some(Arc::new(Node { record, earlier }));
    }

    /// Forgets every position (an irreversible move: none of them can recur).
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// How many positions are recorded.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// How many of the positions equal the newest one, counting itself; 0 when empty.
    pub fn occurrences_of_latest(&self) -> usize {
        let Some((&now, earlier)) = self.hashes.split_last() else {
            return 0;
        };
        // No early exit, so the sweep compiles to vector code; a match is rare (a repetition,
        // or a hash collision that the records settle).
        let same_hash = earlier
            .iter()
            .fold(0, |count, &hash| count + usize::from(hash == now));
        if same_hash == 0 {
            return 1;
        }
        let mut records = self.iter();
        match records.next() {
            // The newest record is the position itself: counted without comparing.
            Some(latest) => 1 + records.filter(|record| *record == latest).count(),
            None => 0,
        }
    }

    /// The positions, newest first.
    pub fn iter(&self) -> impl Iterator<Item = &R> {
        let mut next = self.newest.as_deref();
        std::iter::from_fn(move || {
            let node = next?;
            next = node.earlier.as_deref();
            Some(&node.record)
        })
    }
}

impl<R> Drop for History<R> {
    /// Unlinks the nodes no other game shares one by one: dropping a long list recursively
    /// could exhaust the stack.
    fn drop(&mut self) {
        let mut next = self.newest.take();
        while let Some(node) = next {
            next = Arc::into_inner(node).and_then(|mut node| node.earlier.take());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_its_past_and_keeps_its_own_future() {
        let mut game = History::default();
        for (hash, name) in [(1, "a"), (2, "b"), (1, "a")] {
            game.push(hash, name);
        }
        assert_eq!(game.occurrences_of_latest(), 2);
        let branch = game.clone();
        game.push(2, "b");
        game.push(1, "a");
        assert_eq!(game.occurrences_of_latest(), 3);
        assert_eq!(game.len(), 5);
        // The clone saw none of that.
        assert_eq!(branch.occurrences_of_latest(), 2);
        assert_eq!(branch.iter().copied().collect::<Vec<_>>(), ["a", "b", "a"]);
        // Clearing forgets the past in one history only.
        let mut cleared = branch.clone();
        cleared.clear();
        assert!(cleared.is_empty());
        assert_eq!(cleared.occurrences_of_latest(), 0);
        assert_eq!(branch.len(), 3);
    }

    #[test]
    fn records_that_share_a_hash_but_differ_are_not_a_repetition() {
        let mut history = History::default();
        history.push(7, "start");
        history.push(7, "collision");
        assert_eq!(history.occurrences_of_latest(), 1);
        history.push(7, "start");
        assert_eq!(history.occurrences_of_latest(), 2);
        history.push(8, "other");
        history.push(7, "collision");
        assert_eq!(history.occurrences_of_latest(), 2);
    }

    #[test]
    fn equal_positions_hash_alike_and_different_ones_apart() {
        let board = |piece: Option<u8>| [None, piece, Some(3u8), None];
        assert_eq!(
            position_hash(&board(Some(1))),
            position_hash(&board(Some(1)))
        );
        assert_ne!(
            position_hash(&board(Some(1))),
            position_hash(&board(Some(2)))
        );
        assert_ne!(position_hash(&board(Some(1))), position_hash(&board(None)));
    }

    #[test]
    fn a_long_history_drops_without_recursion() {
        let mut history = History::default();
        for _ in 0..1_000_000 {
            history.push(3, 3u8);
        }
        let shared = history.clone();
        drop(history);
        assert_eq!(shared.iter().count(), 1_000_000);
        assert_eq!(shared.occurrences_of_latest(), 1_000_000);
        drop(shared);
    }
}
