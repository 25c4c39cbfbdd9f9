//! Properties every playable variant must have: random playouts never panic, every listed
//! action applies, refused input changes nothing, and both notations round-trip. Arbitrary
//! text fed to every parser never panics.

use oddboard_rules::snapshot::Label;
use oddboard_rules::{AnyGame, Snapshot, Variant};
use proptest::prelude::*;
use std::collections::HashSet;

fn playable() -> Vec<Variant> {
    Variant::ALL
        .into_iter()
        .filter(|v| v.is_playable())
        .collect()
}

/// A small deterministic generator so a failing playout can be replayed from its seed
/// (shared by the reference-generator cross-checks).
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Plays up to `max_plies` random legal actions from the start, checking the invariants at
/// every step.
fn random_playout(variant: Variant, seed: u64, max_plies: usize) -> Result<(), String> {
    let mut rng = SplitMix(seed);
    let mut game = AnyGame::start(variant).map_err(|e| e.to_string())?;
    for ply in 0..max_plies {
        let here = format!("{variant} seed {seed} ply {ply} at {}", game.position());
        let reparsed = AnyGame::from_position(variant, &game.position())
            .map_err(|e| format!("{here}: own position refused: {e}"))?;
        if reparsed.position() != game.position() {
            return Err(format!(
                "{here}: position reprints as {}",
                reparsed.position()
            ));
        }
        let legal = game.legal_actions();
        let snapshot = game.snapshot();
        if snapshot.legal_actions != legal {
            return Err(format!("{here}: snapshot lists other actions"));
        }
        // The game actor reads a move's outcome from the snapshot.
        if snapshot.outcome != game.outcome() {
            return Err(format!("{here}: snapshot tells another outcome"));
        }
        if serde_json::to_string(&snapshot).is_err() {
            return Err(format!("{here}: snapshot does not serialize"));
        }
        match (game.outcome(), legal.is_empty()) {
            (Some(_), false) => return Err(format!("{here}: finished game has actions")),
            (None, true) => return Err(format!("{here}: no actions but no outcome")),
            (Some(_), true) => return Ok(()),
            (None, false) => {}
        }
        // Every listed action applies.
        for action in &legal {
            let mut child = game.clone();
            child
                .play(action)
                .map_err(|e| format!("{here}: listed action {action} refused: {e}"))?;
        }
        let action = legal
            .get(rng.below(legal.len()))
            .cloned()
            .unwrap_or_default();
        let human = game
            .human_notation(&action)
            .map_err(|e| format!("{here}: {action}: {e}"))?;
        let played = game
            .play(&action)
            .map_err(|e| format!("{here}: {action}: {e}"))?;
        if played.machine != action {
            return Err(format!("{here}: {action} reprints as {}", played.machine));
        }
        // Variants write the notation while playing; it must be what the position before
        // tells, and what the snapshot shows as the last action.
        if played.human != human {
            return Err(format!(
                "{here}: {action} played as {} but reads {human} before",
                played.human
            ));
        }
        let shown = game.snapshot().last_action.map(|last| last.human.clone());
        if shown.as_deref() != Some(human.as_str()) {
            return Err(format!("{here}: {action} ({human}) shown as {shown:?}"));
        }
    }
    Ok(())
}

#[test]
fn random_playouts_keep_every_invariant() {
    for variant in playable() {
        for seed in 0..40 {
            if let Err(e) = random_playout(variant, seed, 200) {
                panic!("{e}");
            }
        }
    }
}

/// Pieces in a fixed order, so snapshots that list them differently compare equal.
fn sorted_pieces(snapshot: &Snapshot) -> Vec<String> {
    let mut pieces: Vec<String> = snapshot
        .pieces
        .iter()
        .map(|p| serde_json::to_string(p).unwrap_or_default())
        .collect();
    pieces.sort();
    pieces
}

/// What a live game sends after each action is enough to rebuild the next snapshot: applying
/// every update in turn to the first snapshot gives each later snapshot exactly (pieces in
/// any order), and an update never lists more pieces than the snapshot has. Every variant
/// lists a snapshot's pieces in the byte order of their (board, square) labels.
#[test]
fn updates_rebuild_every_snapshot() {
    for variant in playable() {
        for seed in 0..20 {
            let mut rng = SplitMix(seed);
            let Ok(mut game) = AnyGame::start(variant) else {
                continue;
            };
            let mut client = game.snapshot();
            let mut pieces = client.pieces.clone();
            for ply in 0..150 {
                let legal = game.legal_actions();
                if legal.is_empty() {
                    break;
                }
                let action = legal[rng.below(legal.len())].clone();
                assert!(game.play(&action).is_ok());
                let snapshot = game.snapshot();
                let here = format!("{variant} seed {seed} ply {ply} after {action}");
                let squares: HashSet<(Label, Label)> = snapshot
                    .pieces
                    .iter()
                    .map(|p| (p.board.clone(), p.square.clone()))
                    .collect();
                assert_eq!(
                    squares.len(),
                    snapshot.pieces.len(),
                    "{here}: two pieces on a square"
                );
                // Listed in (board, square) byte order, so the update diff need not sort.
                assert!(
                    snapshot
                        .pieces
                        .is_sorted_by_key(|p| (p.board.clone(), p.square.clone())),
                    "{here}: pieces out of label order"
                );
                let expected = snapshot.clone();
                // The previous pieces in any order give the same update as in square order.
                let reversed: Vec<_> = pieces.iter().rev().cloned().collect();
                let (from_reversed, _) = expected.clone().into_update(&reversed);
                let (update, now) = snapshot.into_update(&pieces);
                assert_eq!(
                    from_reversed, update,
                    "{here}: update depends on piece order"
                );
                assert!(update.placed.len() <= now.len(), "{here}: update too large");
                // Minimal: nothing placed that stood there already, nothing removed that stands.
                for piece in &update.placed {
                    assert!(
                        !pieces.contains(piece),
                        "{here}: unchanged {piece:?} placed"
                    );
                }
                for square in &update.removed {
                    let key = (square.board.clone(), square.square.clone());
                    assert!(
                        !squares.contains(&key),
                        "{here}: occupied {square:?} removed"
                    );
                }
                pieces = now;
                client.apply(&update);
                assert_eq!(sorted_pieces(&client), sorted_pieces(&expected), "{here}");
                client.pieces = expected.pieces.clone();
                assert_eq!(client, expected, "{here}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_positions_never_panic(text in ".{0,120}", bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        for variant in playable() {
            for candidate in [&text, &lossy] {
                if let Ok(game) = AnyGame::from_position(variant, candidate) {
                    // A position we accept must be usable and reprint to something we accept.
                    let _ = game.legal_actions();
                    let _ = game.outcome();
                    let _ = game.snapshot();
                    prop_assert!(AnyGame::from_position(variant, &game.position()).is_ok());
                }
            }
        }
    }

    #[test]
    fn arbitrary_actions_never_panic_and_refusals_change_nothing(text in ".{0,24}", bytes in proptest::collection::vec(any::<u8>(), 0..24), seed in 0u64..1000) {
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        for variant in playable() {
            let Ok(mut game) = AnyGame::start(variant) else { continue };
            // Walk a few random plies so the probe meets more than the start position.
            let mut rng = SplitMix(seed);
            for _ in 0..rng.below(12) {
                let legal = game.legal_actions();
                if legal.is_empty() { break; }
                let action = legal[rng.below(legal.len())].clone();
                prop_assert!(game.play(&action).is_ok());
            }
            for candidate in [&text, &lossy] {
                let before = game.position();
                let mut probe = game.clone();
                if probe.play(candidate).is_err() {
                    prop_assert_eq!(probe.position(), before);
                }
            }
        }
    }

    #[test]
    fn mutated_positions_never_panic(seed in 0u64..10_000, cut in 0usize..80, insert in any::<char>()) {
        for variant in playable() {
            let Ok(game) = AnyGame::start(variant) else { continue };
            let mut text: Vec<char> = game.position().chars().collect();
            let at = cut % (text.len() + 1);
            if seed % 2 == 0 { text.insert(at, insert); } else if at < text.len() { text.remove(at); }
            let text: String = text.into_iter().collect();
            if let Ok(game) = AnyGame::from_position(variant, &text) {
                let _ = game.legal_actions();
                let _ = game.snapshot();
            }
        }
    }
}
