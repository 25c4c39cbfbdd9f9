//! Unit tests: every combat path with scripted dice, the special abilities, the draw rules
//! and replay from a seed.

use super::moves::Occupancy;
use super::*;
use crate::dice;
use crate::geometry::{DIAGONAL, KNIGHT_LEAPS, ORTHOGONAL};

fn game(text: &str) -> Drehs {
    Drehs::from_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Plays `action` (machine form) and returns the faces rolled.
fn play(game: &mut Drehs, action: &str) -> Vec<u32> {
    let parsed = game
        .parse_action(action)
        .unwrap_or_else(|e| panic!("{action}: {e}"));
    game.apply(&parsed)
        .unwrap_or_else(|e| panic!("{action} at {}: {e}", game.position()));
    game.last_roll_records().iter().map(|r| r.value).collect()
}

fn purposes(game: &Drehs) -> Vec<String> {
    game.last_roll_records()
        .into_iter()
        .map(|r| format!("{}:{}", r.purpose, r.dice))
        .collect()
}

fn has_effect(game: &Drehs, keyword: &str) -> bool {
    game.last_effects()
        .iter()
        .any(|e| e.starts_with(&format!("{keyword}:")))
}

fn legal(game: &Drehs) -> Vec<String> {
    game.legal_actions()
        .iter()
        .map(|a| game.action_to_machine(a))
        .collect()
}

#[test]
fn start_position_parses() {
    let start = Drehs::start();
    assert_eq!(start.position(), START_POSITION);
    // 20 orthodox moves, 2 knights x 32 empty squares of teleport, teleports that land
    // within a knight's leap of a black piece and attack it, and the king's heal.
    let actions = legal(&start);
    assert_eq!(
        actions
            .iter()
            .filter(|a| !a.contains('@') && !a.contains(':'))
            .count(),
        20
    );
    assert_eq!(
        actions
            .iter()
            .filter(|a| a.contains('@') && !a.contains('x'))
            .count(),
        64
    );
    assert!(actions.contains(&"heal:e1".to_string()));
    assert_eq!(actions.len(), 165);
}

#[test]
fn a_hit_that_kills_moves_the_attacker_in_with_an_ear() {
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - d5=1").with_scripted_dice(&[20, 4]);
    assert_eq!(play(&mut g, "e4xd5"), [20, 4]);
    assert_eq!(purposes(&g), ["to_hit:d20", "damage:d4"]);
    assert!(has_effect(&g, "hit") && has_effect(&g, "kill"));
    assert_eq!(g.position(), "4k3/8/8/3P4/8/8/8/4K3 b - d5=4e1 - 0 1 2");
}

#[test]
fn a_miss_draws_a_counterattack() {
    // 4 is not greater than armor 4: a miss; the defender strikes back.
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w").with_scripted_dice(&[4, 5, 3]);
    assert_eq!(play(&mut g, "e4xd5"), [4, 5, 3]);
    assert_eq!(
        purposes(&g),
        ["to_hit:d20", "counter_to_hit:d20", "counter_damage:d4"]
    );
    assert!(has_effect(&g, "miss") && has_effect(&g, "counter_hit"));
    assert_eq!(g.position(), "4k3/8/8/3p4/4P3/8/8/4K3 b - e4=1 - 0 1 3");
}

#[test]
fn a_counterattack_can_kill_without_moving_or_ears() {
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - e4=1").with_scripted_dice(&[1, 20, 1]);
    play(&mut g, "e4xd5");
    assert!(has_effect(&g, "counter_kill"));
    assert_eq!(g.position(), "4k3/8/8/3p4/8/8/8/4K3 b - - - 0 1 3");
}

#[test]
fn a_survivor_of_a_hit_counterattacks_too() {
    // Queen 2d6 = 7 against the rook's 8 LP; the rook misses back.
    let mut g = game("3rk3/8/8/8/8/8/8/3QK3 w").with_scripted_dice(&[9, 3, 4, 8]);
    assert_eq!(play(&mut g, "d1xd8"), [9, 3, 4, 8]);
    assert_eq!(
        purposes(&g),
        ["to_hit:d20", "damage:d6", "damage:d6", "counter_to_hit:d20"]
    );
    assert!(has_effect(&g, "counter_miss"));
    assert_eq!(g.position(), "3rk3/8/8/8/8/8/8/3QK3 b - d8=1 - 0 1 4");
}

#[test]
fn ears_add_to_the_to_hit_roll() {
    let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - e4=4e1").with_scripted_dice(&[4, 1, 1]);
    play(&mut g, "e4xd5");
    assert!(has_effect(&g, "hit"), "{:?}", g.last_effects());
    assert_eq!(g.unit(Coord::new(3, 4)).map(|u| u.life), Some(3));
}

#[test]
fn dyads_pair_from_the_a_file_and_double_armor_and_weapon() {
    let g = game("4k3/8/8/8/2PPP3/8/PP6/4K3 w");
    let at = |name: &str| Coord::parse(name).unwrap_or(Coord::new(0, 0));
    assert_eq!(g.armor_at(at("c4")), 8);
    assert_eq!(g.armor_at(at("d4")), 8);
    assert_eq!(
        g.armor_at(at("e4")),
        4,
        "the third pawn of a row is not paired"
    );
    assert_eq!(g.weapon_at(at("c4")), (2, 4));
    assert_eq!(g.weapon_at(at("e4")), (1, 4));
    assert_eq!(
        g.armor_at(at("a2")),
        4,
        "pawns on their initial rank form no dyad"
    );
    let marks: Vec<(String, Vec<String>)> = g
        .snapshot()
        .pieces
        .into_iter()
        .map(|p| {
            let marks = p.marks.into_iter().map(Cow::into_owned).collect();
            (p.square.into_owned(), marks)
        })
        .collect();
    assert!(marks.contains(&("c4".to_string(), vec!["dyad".to_string()])));
    assert!(marks.contains(&("e4".to_string(), vec![])));

    // A dyad pawn attacks with 2d4, and its partner's armor 8 shrugs off a 8.
    let mut g = game("4k3/8/8/4p3/3PP3/8/8/4K3 w").with_scripted_dice(&[20, 1, 1, 1]);
    play(&mut g, "d4xe5");
    assert_eq!(
        purposes(&g),
        ["to_hit:d20", "damage:d4", "damage:d4", "counter_to_hit:d20"]
    );
    let mut g = game("4k3/8/8/3pp3/4P3/8/8/4K3 w").with_scripted_dice(&[8, 1]);
    play(&mut g, "e4xd5");
    assert!(
        has_effect(&g, "miss"),
        "8 is not greater than a dyad's armor 8"
    );
}

#[test]
fn the_king_absorbs_friendly_armor_up_to_19() {
    let g = game("3qk3/4n3/8/8/8/8/3PPP2/3QK3 w");
    assert_eq!(g.armor_at(Coord::new(4, 0)), 19);
    // Black king: queen 12 + knight 6 = 18 on top of 6, capped.
    assert_eq!(g.armor_at(Coord::new(4, 7)), 19);
    let g = game("4k3/8/8/8/8/8/4p3/4K3 w");
    assert_eq!(g.armor_at(Coord::new(4, 0)), 6, "enemies lend no armor");
    let g = game("4k3/8/8/8/8/8/4P3/4K3 w");
    assert_eq!(g.armor_at(Coord::new(4, 0)), 10);
}

#[test]
fn killing_the_king_ends_the_game() {
    let mut g = game("4k3/4Q3/8/8/8/8/8/4K3 w").with_scripted_dice(&[7, 1, 1]);
    play(&mut g, "e7xe8");
    let outcome = g.outcome();
    assert_eq!(
        outcome,
        Some(Outcome::win(Color::White, EndReason::KingKilled))
    );
    assert!(g.legal_actions().is_empty());
    assert_eq!(g.position(), "4Q3/8/8/8/8/8/8/4K3 b - e8=12e1 - 0 1 3");
    let again = game(&g.position());
    assert_eq!(again.outcome(), outcome);
    let action = Action::Move {
        from: Coord::new(4, 0),
        to: Coord::new(4, 1),
        promotion: None,
        dyads: Dyads::DEFAULT,
    };
    assert_eq!(g.clone().apply(&action), Err(IllegalAction::GameOver));
}

#[test]
fn a_teleported_knight_has_one_life_point_and_may_attack_at_once() {
    let mut g = game("4k3/8/8/8/8/8/8/4K1N1 w");
    let actions = legal(&g);
    assert!(actions.contains(&"g1@e5".to_string()));
    assert!(actions.contains(&"g1@d6xe8".to_string()));
    assert!(
        !actions.contains(&"g1@e1".to_string()),
        "only empty squares"
    );
    play(&mut g, "g1@e5");
    assert_eq!(g.position(), "4k3/8/8/4N3/8/8/8/4K3 b - e5=1 - 0 1 0");
    assert!(g
        .snapshot()
        .pieces
        .iter()
        .any(|p| p.marks == ["teleported"]));

    // The attack after the teleport: a miss, and the king's counter kills the 1-LP knight.
    let mut g = game("4k3/8/8/8/8/8/8/4K1N1 w").with_scripted_dice(&[1, 20, 1]);
    play(&mut g, "g1@d6xe8");
    assert!(has_effect(&g, "teleport") && has_effect(&g, "counter_kill"));
    assert_eq!(g.position(), "4k3/8/8/8/8/8/8/4K3 b - - - 0 1 3");
    let mut g = game("4k3/8/8/8/8/8/8/4K1N1 w");
    let refused = g.parse_action("e1@e5").map(|a| g.apply(&a));
    assert_eq!(
        refused.ok().and_then(Result::err).map(|e| e.code()),
        Some("not_a_knight")
    );
}

#[test]
fn an_original_bishop_returns_once_with_three_lp_and_a_black_necklace() {
    let mut g = game("4k3/8/8/8/8/8/8/r1B1K3 b - c1=1").with_scripted_dice(&[20, 1, 1]);
    play(&mut g, "a1xc1");
    assert_eq!(g.position(), "4k3/8/8/8/8/8/8/2r1K3 w - c1=8e1 c1 0 2 3");
    assert!(
        !legal(&g).contains(&"return:c1".to_string()),
        "home occupied"
    );
    assert_eq!(g.snapshot().off_board.len(), 1);

    let mut g = game("4k3/8/8/8/8/8/8/r3K3 w - - c1");
    assert!(legal(&g).contains(&"return:c1".to_string()));
    play(&mut g, "return:c1");
    assert_eq!(g.position(), "4k3/8/8/8/8/8/8/r1B1K3 b - c1=3n - 0 1 0");
    // Killed again, the returned bishop stays dead.
    let mut g = g.with_scripted_dice(&[20, 3, 3]);
    play(&mut g, "a1xc1");
    assert_eq!(g.position(), "4k3/8/8/8/8/8/8/2r1K3 w - c1=8e1 - 0 2 3");
    // A promoted bishop never returns.
    let mut g = game("4k3/8/8/8/8/8/8/r1B1K3 b - c1=1p").with_scripted_dice(&[20, 1, 1]);
    play(&mut g, "a1xc1");
    assert!(g.position().contains(" - 0 2 3"), "{}", g.position());
}

#[test]
fn the_cannon_never_kills_and_splashes_every_neighbour() {
    let mut g = game("4k3/8/8/8/3pn3/2P5/8/3RK3 w - e4=1").with_scripted_dice(&[20, 4, 4]);
    assert!(legal(&g).contains(&"d1^d4".to_string()));
    assert_eq!(play(&mut g, "d1^d4"), [20, 4, 4]);
    assert_eq!(
        purposes(&g),
        ["cannon_to_hit:d20", "cannon_damage:d4", "cannon_damage:d4"]
    );
    // d4 keeps 1 LP; the own pawn on c3 loses 1; the knight at 1 LP is spared; no counter.
    assert_eq!(
        g.position(),
        "4k3/8/8/8/3pn3/2P5/8/3RK3 b - c3=3,d4=1,e4=1 - 0 1 3"
    );
    assert!(has_effect(&g, "splash"));

    // A miss does nothing at all.
    let mut g = game("4k3/8/8/8/3pn3/2P5/8/3RK3 w").with_scripted_dice(&[4]);
    play(&mut g, "d1^d4");
    assert_eq!(g.position(), "4k3/8/8/8/3pn3/2P5/8/3RK3 b - - - 1 1 1");

    // Range 2 to 5 along a clear line only.
    let g = game("k7/p7/8/8/8/8/p7/R6K w");
    let actions = legal(&g);
    assert!(!actions.contains(&"a1^a2".to_string()), "distance 1");
    assert!(actions.contains(&"a1xa2".to_string()));
    let g = game("k7/p7/8/8/8/8/8/R6K w");
    assert!(!legal(&g).iter().any(|a| a.contains('^')), "distance 6");
    let g = game("k7/8/8/p7/8/8/8/R6K w");
    assert!(legal(&g).contains(&"a1^a5".to_string()), "distance 4");

    // The king cannot be hurt by the cannon.
    let mut g = game("4k3/8/8/8/4R3/8/8/7K w").with_scripted_dice(&[20, 4, 4]);
    play(&mut g, "e4^e8");
    assert_eq!(g.outcome(), None);
}

#[test]
fn the_king_heals_adjacent_friends_only() {
    let mut g = game("4k3/8/8/8/8/8/3PPn2/4K3 w - d2=1,e2=3,f2=1");
    play(&mut g, "heal:e1");
    assert_eq!(g.position(), "4k3/8/8/8/8/8/3PPn2/4K3 b - f2=1 - 0 1 0");
    assert_eq!(g.last_effects().len(), 2);
}

#[test]
fn a_heal_with_nothing_to_heal_passes_the_turn() {
    let mut g = game("4k3/8/8/8/8/8/3PPn2/4K3 w - f2=1 - 7 3");
    assert!(legal(&g).contains(&"heal:e1".to_string()));
    play(&mut g, "heal:e1");
    // Nothing changed, so the fifty-move count goes on.
    assert_eq!(g.position(), "4k3/8/8/8/8/8/3PPn2/4K3 b - f2=1 - 8 3 0");
    assert!(has_effect(&g, "heal"));
    assert!(g.last_roll_records().is_empty());
    // A lone king may heal too: the seed sets no condition.
    let g = game("4k3/8/8/8/8/8/8/4K3 w");
    assert!(legal(&g).contains(&"heal:e1".to_string()));
}

#[test]
fn castling_ignores_attacked_squares_and_rights_follow_the_pieces() {
    let mut g = game("4kr2/8/8/8/8/8/8/R3K2R w KQ");
    let actions = legal(&g);
    assert!(actions.contains(&"e1g1".to_string()) && actions.contains(&"e1c1".to_string()));
    play(&mut g, "e1g1");
    assert_eq!(g.position(), "4kr2/8/8/8/8/8/8/R4RK1 b - - - 1 1 0");
    let mut g = game("4kr2/8/8/8/8/8/8/R3K2R w KQ");
    play(&mut g, "h1h2");
    assert!(g.position().contains(" b Q "), "{}", g.position());
}

#[test]
fn promotion_gives_full_life_and_keeps_ears() {
    let mut g = game("4k3/P7/8/8/8/8/8/4K3 w - a7=2e3");
    play(&mut g, "a7a8q");
    assert_eq!(g.position(), "Q3k3/8/8/8/8/8/8/4K3 b - a8=12e3p - 0 1 0");
    let mut g = game("1r2k3/P7/8/8/8/8/8/4K3 w - b8=1").with_scripted_dice(&[20, 4]);
    assert!(!legal(&g).contains(&"a7xb8".to_string()));
    play(&mut g, "a7xb8n");
    assert_eq!(g.position(), "1N2k3/8/8/8/8/8/8/4K3 b - b8=6e1p - 0 1 2");
}

#[test]
fn fifty_moves_without_progress_draw() {
    let mut g = game("4k3/8/8/8/8/8/8/4K3 w - - - 99 60");
    play(&mut g, "e1e2");
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::FiftyMoves)));
}

#[test]
fn threefold_repetition_draws() {
    let mut g = Drehs::start();
    for _ in 0..2 {
        for action in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            play(&mut g, action);
        }
    }
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Repetition)));
}

#[test]
fn a_game_replays_exactly_from_its_seed_and_actions() {
    let seed = [42u8; 32];
    let run = || {
        let mut g = Drehs::start();
        g.set_dice(seed, "replay");
        let mut positions = Vec::new();
        let mut pick = 7usize;
        for _ in 0..120 {
            let actions = g.legal_actions();
            let Some(action) = actions.get(pick % actions.len().max(1)).copied() else {
                break;
            };
            pick = pick.wrapping_mul(31).wrapping_add(17);
            let _ = g.apply(&action);
            positions.push((g.position(), g.last_roll_records()));
        }
        positions
    };
    let first = run();
    assert_eq!(first, run());
    assert!(first.iter().any(|(_, rolls)| !rolls.is_empty()));
    // The first rolled die is the formula's value at its index.
    let record = first.iter().flat_map(|(_, r)| r.iter()).next().cloned();
    let record = record.unwrap_or_else(|| panic!("no dice rolled"));
    assert!(record.is_consistent_with(&seed, "replay"));
    assert_eq!(dice::PUBLIC_SEED, [0; 32]);
}

mod records {
    use super::super::record::{record_game, verify, DiceRecord, VerifyError};

    const SEED: [u8; 32] = [0x5a; 32];

    fn sample() -> DiceRecord {
        let actions: Vec<String> = ["g1@c6xd8", "b8@c3xd1", "e2e4"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        record_game(SEED, "game-7", None, &actions).unwrap_or_else(|e| panic!("{e}"))
    }

    fn mismatch(record: &DiceRecord) -> String {
        match verify(record) {
            Err(VerifyError::Mismatch(m)) => m,
            other => panic!("expected a mismatch, got {other:?}"),
        }
    }

    #[test]
    fn an_honest_record_verifies_and_survives_json() {
        let record = sample();
        assert!(record.actions[0].rolls.len() >= 2);
        assert_eq!(record.actions[0].rolls[0].index, 0);
        let json = serde_json::to_string_pretty(&record).unwrap_or_default();
        let back: DiceRecord = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, record);
        let verified = verify(&back).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(verified.actions, 3);
        assert_eq!(
            verified.rolls,
            record.actions.iter().map(|a| a.rolls.len()).sum::<usize>()
        );
    }

    #[test]
    fn a_tampered_roll_is_named() {
        let mut record = sample();
        let roll = &mut record.actions[1].rolls[0];
        roll.value = roll.value % 20 + 1;
        assert!(mismatch(&record).starts_with("action 2 `b8@c3xd1`, roll 1"));

        let mut record = sample();
        record.actions[0].rolls.pop();
        assert!(mismatch(&record).contains("action 1"));

        let mut record = sample();
        let extra = record.actions[0].rolls[0].clone();
        record.actions[2].rolls.push(extra);
        assert!(mismatch(&record).contains("action 3"));
    }

    #[test]
    fn a_tampered_seed_or_commitment_fails() {
        let mut record = sample();
        record.seed = hex::encode([0x5b; 32]);
        assert!(mismatch(&record).contains("commitment"));

        let mut record = sample();
        record.commitment = super::dice::commitment(&[1; 32]);
        assert!(mismatch(&record).contains("commitment"));

        // Another seed with a matching commitment still fails on the first roll.
        let mut record = sample();
        record.seed = hex::encode([0x5b; 32]);
        record.commitment = super::dice::commitment(&[0x5b; 32]);
        assert!(mismatch(&record).contains("roll"));

        let mut record = sample();
        record.game_id = "game-8".to_string();
        assert!(mismatch(&record).contains("roll"));

        let mut record = sample();
        record.seed = "xyz".to_string();
        assert!(matches!(verify(&record), Err(VerifyError::Malformed(_))));
    }

    #[test]
    fn a_wrong_result_or_illegal_action_fails() {
        let mut record = sample();
        record.result = Some("1-0".to_string());
        assert!(mismatch(&record).contains("result"));
        let mut record = sample();
        record.actions[2].action = "e2e5".to_string();
        assert!(mismatch(&record).contains("not legal"));
    }
}

/// Every teleport that attacks on landing borrows from the table the text it would be spelled
/// with: the table's numbering (pair, then knight leap) has no off-by-one.
#[test]
fn teleport_attack_labels_are_their_machine_texts() {
    let squares: Vec<Coord> = shape().squares().collect();
    let mut tabled = 0;
    for &from in &squares {
        for &to in &squares {
            for (df, dr) in KNIGHT_LEAPS {
                let Some(target) = shape().step(to, df, dr) else {
                    continue;
                };
                let action = Action::Teleport {
                    from,
                    to,
                    attack: Some(target),
                };
                let label = notation::sorted_action_labels(&[action])
                    .pop()
                    .unwrap_or_default();
                assert_eq!(label, notation::action_machine(&action));
                tabled += usize::from(matches!(label, std::borrow::Cow::Borrowed(_)));
            }
        }
    }
    // 64 x 64 pairs times the 336 knight leaps that stay on an 8x8 board.
    assert_eq!(tabled, 64 * 336);
}

#[test]
fn perft_from_the_start_with_the_public_dice() {
    // The CLI refuses perft for a dice game; these figures hold for the public default dice
    // only (depth 2 includes the replies after attacks that the dice resolved one way).
    let start = Drehs::start();
    assert_eq!(start.perft(1), 165);
    assert_eq!(start.perft(2), 27_801);
}

mod properties {
    //! Random games from random seeds: positions and both action notations round-trip, and
    //! every listed action is accepted.

    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn notations_round_trip_in_random_games(seed in any::<[u8; 32]>(), picks in proptest::collection::vec(any::<u16>(), 1..80)) {
            let mut g = Drehs::start();
            g.set_dice(seed, "proptest");
            for pick in picks {
                let reparsed = Drehs::from_position(&g.position());
                prop_assert_eq!(reparsed.map(|r| r.position()), Ok(g.position()));
                let actions = g.legal_actions();
                if actions.is_empty() {
                    prop_assert!(g.outcome().is_some());
                    break;
                }
                for action in &actions {
                    let machine = g.action_to_machine(action);
                    prop_assert_eq!(g.parse_action(&machine), Ok(*action));
                    let human = g.action_to_human(action);
                    prop_assert_eq!(g.parse_action(&human), Ok(*action), "{}", human);
                }
                let action = actions[usize::from(pick) % actions.len()];
                prop_assert!(g.apply(&action).is_ok());
            }
        }
    }
}

/// The machine texts of `actions`, sorted.
fn sorted_texts(game: &Drehs, actions: &[Action]) -> Vec<String> {
    let mut texts: Vec<String> = actions.iter().map(|a| game.action_to_machine(a)).collect();
    texts.sort();
    texts
}

/// The teleports as the rule states them: every empty square, alone and with each enemy a
/// knight's leap from it, found by walking the board.
fn teleports_square_by_square(game: &Drehs, from: Coord, color: Color) -> Vec<String> {
    let shape = game.board.shape();
    let mut out = Vec::new();
    for to in shape.squares().filter(|&to| game.board.is_empty_square(to)) {
        out.push(Action::Teleport {
            from,
            to,
            attack: None,
        });
        for &(df, dr) in &KNIGHT_LEAPS {
            if let Some(target) = shape.step(to, df, dr).filter(|&t| game.is_enemy(t, color)) {
                out.push(Action::Teleport {
                    from,
                    to,
                    attack: Some(target),
                });
            }
        }
    }
    sorted_texts(game, &out)
}

/// The search's bitmaps find exactly the teleports of the walk, in every position of a game
/// played out with a fixed choice of actions (the knights thinning and the board opening up).
#[test]
fn teleports_from_bitmaps_are_the_teleports_of_the_rule() {
    let mut g = Drehs::start();
    let (mut knights_seen, mut attacks_seen) = (0, 0);
    for step in 0..120usize {
        let color = g.turn;
        let knights: Vec<Coord> = g
            .board
            .occupied()
            .filter(|(_, u)| u.piece == Piece::new(color, Role::Knight))
            .map(|(c, _)| c)
            .collect();
        for from in knights {
            let mut found = Vec::new();
            g.teleport_actions(from, Occupancy::of(&g.board, color), &|_| true, &mut found);
            let texts = sorted_texts(&g, &found);
            assert_eq!(
                texts,
                teleports_square_by_square(&g, from, color),
                "{}",
                g.position()
            );
            knights_seen += 1;
            attacks_seen += texts.iter().filter(|t| t.contains('x')).count();
        }
        let actions = g.legal_actions();
        let Some(action) = actions.get(step.wrapping_mul(7907) % actions.len().max(1)) else {
            break;
        };
        g.apply(action).unwrap_or_else(|e| panic!("{e}"));
    }
    // The game's knights are taken within its first moves; these say the check still covered
    // dozens of knight positions and many landings beside enemies.
    assert!(knights_seen >= 20, "only {knights_seen} knights checked");
    assert!(
        attacks_seen >= 200,
        "only {attacks_seen} attacking teleports checked"
    );
}

/// The steps, slides, attacks and cannon shots of the man on `from` as the rules state them,
/// found by walking its leaps and rays on the board (pawns, teleports, heals and castling
/// aside).
fn moves_square_by_square(game: &Drehs, from: Coord, unit: Unit) -> Vec<String> {
    let shape = game.board.shape();
    let color = unit.piece.color;
    let mut out = Vec::new();
    let land = |to: Coord, out: &mut Vec<Action>| {
        if game.board.is_empty_square(to) {
            out.push(Action::Move {
                from,
                to,
                promotion: None,
                dyads: Dyads::DEFAULT,
            });
        } else if game.is_enemy(to, color) {
            out.push(Action::Attack {
                from,
                to,
                promotion: None,
                dyads: Dyads::DEFAULT,
            });
        }
    };
    const NONE: &[(i8, i8)] = &[];
    let (steps, slides) = match unit.piece.role {
        Role::Knight => (&KNIGHT_LEAPS[..], NONE),
        Role::King => (&KING_STEPS[..], NONE),
        Role::Bishop => (NONE, &DIAGONAL[..]),
        Role::Rook => (NONE, &ORTHOGONAL[..]),
        Role::Queen => (NONE, &KING_STEPS[..]),
        _ => (NONE, NONE),
    };
    for &(df, dr) in steps {
        if let Some(to) = shape.step(from, df, dr) {
            land(to, &mut out);
        }
    }
    for &(df, dr) in slides {
        for (steps, to) in shape.ray(from, df, dr).enumerate() {
            land(to, &mut out);
            if !game.board.is_empty_square(to) {
                let distance = steps as u8 + 1;
                if unit.piece.role == Role::Rook
                    && CANNON_RANGE.contains(&distance)
                    && game.is_enemy(to, color)
                {
                    out.push(Action::Cannon { from, to });
                }
                break;
            }
        }
    }
    sorted_texts(game, &out)
}

/// The search's bitmaps and slider tables find exactly the moves, attacks and cannon shots
/// of walking the board, for every man of both sides over a game played out with a fixed
/// choice of actions.
#[test]
fn moves_from_bitmaps_are_the_moves_of_the_rule() {
    let mut g = Drehs::start();
    let (mut men_seen, mut attacks_seen, mut cannon_seen) = (0, 0, 0);
    for step in 0..200usize {
        for color in Color::ALL {
            let occupancy = Occupancy::of(&g.board, color);
            let men: Vec<(Coord, Unit)> = g
                .board
                .occupied()
                .filter(|(_, u)| u.piece.color == color && u.piece.role != Role::Pawn)
                .map(|(c, u)| (c, *u))
                .collect();
            for (from, unit) in men {
                let mut found = Vec::new();
                g.piece_actions(from, unit, occupancy, &|_| true, &mut found);
                found.retain(|a| {
                    matches!(
                        a,
                        Action::Move { .. } | Action::Attack { .. } | Action::Cannon { .. }
                    )
                });
                let mut texts: Vec<String> = found.iter().map(|a| g.action_to_machine(a)).collect();
                texts.sort();
                assert_eq!(
                    texts,
                    moves_square_by_square(&g, from, unit),
                    "{} from {}",
                    g.position(),
                    from.name()
                );
                men_seen += 1;
                attacks_seen += found
                    .iter()
                    .filter(|a| matches!(a, Action::Attack { .. }))
                    .count();
                cannon_seen += found
                    .iter()
                    .filter(|a| matches!(a, Action::Cannon { .. }))
                    .count();
            }
        }
        let actions = g.legal_actions();
        let Some(action) = actions.get(step.wrapping_mul(7919) % actions.len().max(1)) else {
            break;
        };
        g.apply(action).unwrap_or_else(|e| panic!("{e}"));
    }
    // Enough men, attacks and cannon shots that the agreement means something.
    assert!(
        men_seen >= 500 && attacks_seen >= 50 && cannon_seen >= 10,
        "{men_seen} men, {attacks_seen} attacks, {cannon_seen} cannon shots"
    );
}

#[test]
fn strikes_list_either_sides_attacks_with_their_dice() {
    // White's queen beside Black's bare king; a black pawn on d3 may strike White's king
    // and is struck at by nobody (the king on e1 reaches d2, e2, f2, d1, f1).
    let g = game("4k3/4Q3/8/8/8/3p4/8/4K3 w - - - 0 1 0");
    let squares = |color: Color| -> Vec<(String, String)> {
        g.strikes(color)
            .iter()
            .map(|s| (s.from.name(), s.to.name()))
            .collect()
    };
    assert_eq!(
        squares(Color::White),
        [("e7".to_string(), "e8".to_string())]
    );
    let black: Vec<(String, String)> = squares(Color::Black);
    assert_eq!(
        black,
        [("e8".to_string(), "e7".to_string())],
        "the pawn on d3 strikes c2 and e2, both empty"
    );
    let queen_on_king = g.strikes(Color::White)[0];
    assert_eq!(
        (queen_on_king.attacker.armor, queen_on_king.attacker.weapon),
        (12, (2, 6))
    );
    assert_eq!(queen_on_king.attacker.life, 12);
    assert_eq!(queen_on_king.target.role, Role::King);
    assert_eq!(queen_on_king.target.armor, 6, "no friend beside the king");
    let after_push = game("4k3/4Q3/8/8/8/8/3p4/4K3 w - - - 0 1 0");
    assert_eq!(
        after_push.strikes(Color::Black).len(),
        2,
        "the pawn on d2 now strikes the king on e1 too"
    );
}
