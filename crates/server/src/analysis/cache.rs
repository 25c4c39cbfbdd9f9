//! The evaluation cache: one entry per (variant, position text), within a byte budget.
//!
//! Two generations stand in for a least-recently-used list: entries go into the young one;
//! once it holds half the budget it becomes the old one and the old one is dropped. A hit in
//! the old generation moves the entry back to the young one, so what is used stays and what
//! is not goes within two turns. Every operation is O(1), and the memory never exceeds the
//! budget by more than one entry.

use super::evaluate::Evaluation;
use crate::rules::Variant;
use std::collections::HashMap;

type Key = (Variant, String);

/// Bytes an entry costs beyond its strings: the map's slots, the key's header.
const ENTRY_OVERHEAD: usize = 64;

pub struct Cache {
    young: HashMap<Key, Evaluation>,
    old: HashMap<Key, Evaluation>,
    young_bytes: usize,
    /// Bytes one generation may hold: half the budget.
    generation_bytes: usize,
    hits: u64,
    misses: u64,
}

fn entry_bytes(key: &Key, value: &Evaluation) -> usize {
    ENTRY_OVERHEAD + key.1.len() + value.bytes()
}

impl Cache {
    pub fn new(budget_bytes: usize) -> Cache {
        Cache {
            young: HashMap::new(),
            old: HashMap::new(),
            young_bytes: 0,
            generation_bytes: (budget_bytes / 2).max(1),
            hits: 0,
            misses: 0,
        }
    }

    /// The evaluation of `text`, if cached; a hit keeps it.
    pub fn get(&mut self, variant: Variant, text: &str) -> Option<Evaluation> {
        let key = (variant, text.to_string());
        if let Some(found) = self.young.get(&key) {
            self.hits += 1;
            return Some(found.clone());
        }
        let Some(found) = self.old.remove(&key) else {
            self.misses += 1;
            return None;
        };
        self.hits += 1;
        self.insert_young(key, found.clone());
        Some(found)
    }

    pub fn insert(&mut self, variant: Variant, text: &str, evaluation: Evaluation) {
        let key = (variant, text.to_string());
        self.old.remove(&key);
        self.insert_young(key, evaluation);
    }

    fn insert_young(&mut self, key: Key, evaluation: Evaluation) {
        let bytes = entry_bytes(&key, &evaluation);
        if self.young_bytes + bytes > self.generation_bytes && !self.young.is_empty() {
            self.old = std::mem::take(&mut self.young);
            self.young_bytes = 0;
        }
        if let Some(previous) = self.young.insert(key.clone(), evaluation) {
            self.young_bytes = self
                .young_bytes
                .saturating_sub(entry_bytes(&key, &previous));
        }
        self.young_bytes += bytes;
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    pub fn is_empty(&self) -> bool {
        self.young.is_empty() && self.old.is_empty()
    }

    /// Lookups answered and not answered since the start.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::evaluate::WhiteScore;

    fn evaluation(cp: i32) -> Evaluation {
        Evaluation {
            score: WhiteScore::Cp(cp),
            best: Some("e4".into()),
            best_machine: Some("e2e4".into()),
            pv: vec!["e4".into(), "e5".into()],
            depth: 3,
            nodes: 100,
        }
    }

    #[test]
    fn keeps_what_is_used_within_its_budget() {
        let one = entry_bytes(&(Variant::Suicide, "p0".into()), &evaluation(0));
        let mut cache = Cache::new(one * 8);
        cache.insert(Variant::Suicide, "p0", evaluation(0));
        for n in 1..100 {
            cache.insert(Variant::Suicide, &format!("p{n}"), evaluation(n));
            // p0 is used all along: it stays.
            assert_eq!(cache.get(Variant::Suicide, "p0"), Some(evaluation(0)));
            assert!(cache.len() <= 8 + 1, "{} entries", cache.len());
        }
        assert_eq!(cache.get(Variant::Suicide, "p1"), None);
        assert_eq!(cache.get(Variant::Suicide, "p99"), Some(evaluation(99)));
        // The same text in another variant is another position.
        assert_eq!(cache.get(Variant::Chazz, "p99"), None);
        assert_eq!(cache.hits_and_misses(), (100, 2));
    }
}
