//! The one replay, per variant: a game played by the rules engine and recorded as the store
//! keeps it comes back position for position, with its dice, clocks, takebacks and end; the
//! record formats beside it.

use super::*;
use crate::record::{ActionRecord, AdjustmentRecord, ColorChoice, GameStatus, TimeControl};
use crate::rules::{Color, EndReason};
use chrono::{DateTime, Utc};

const SEED: [u8; 32] = [9; 32];

fn at() -> DateTime<Utc> {
    DateTime::UNIX_EPOCH + chrono::TimeDelta::days(20_000)
}

/// A game of `variant` played `plies` actions deep, taking at each ply a legal action picked
/// by a fixed stride through the engine's list, with its positions as played,
/// and its record as the store keeps it; the record stops early if the game ends.
fn played(variant: Variant, plies: usize) -> (GameRecord, Vec<String>) {
    let game_id = Uuid::from_u128(u128::from(plies as u64) + 17);
    let seed = variant.has_dice().then_some(SEED);
    let mut game = start_game(variant, None, seed, game_id).unwrap_or_else(|e| panic!("{e}"));
    let mut positions = vec![game.position()];
    let mut actions = Vec::new();
    for ply in 1..=plies {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.legal_actions();
        let Some(action) = legal.get(ply * 7 % legal.len().max(1)).cloned() else {
            break;
        };
        let played = game.play(&action).unwrap_or_else(|e| panic!("{e}"));
        positions.push(game.position());
        actions.push(ActionRecord {
            ply: i32::try_from(ply).unwrap_or(i32::MAX),
            machine: played.machine,
            human: played.human,
            white_ms: Some(60_000 - 100 * i64::try_from(ply).unwrap_or(0)),
            black_ms: Some(60_000),
            rolls: None,
            created_at: at(),
        });
    }
    let record = GameRecord {
        game_id,
        variant,
        creator_id: Uuid::from_u128(1),
        white_id: Some(Uuid::from_u128(1)),
        black_id: Some(Uuid::from_u128(2)),
        white_name: Some("alice".into()),
        black_name: Some("bob".into()),
        creator_name: "alice".into(),
        color_choice: ColorChoice::White,
        clock: Some(TimeControl {
            initial_ms: 60_000,
            increment_ms: 0,
        }),
        rated: false,
        status: GameStatus::Active,
        restarts: 0,
        outcome: game.outcome(),
        start_position: None,
        dice_commitment: seed.map(|s| crate::rules::dice::commitment(&s)),
        dice_seed: seed.map(Vec::from),
        created_at: at(),
        started_at: Some(at()),
        ended_at: None,
        actions,
        adjustments: Vec::new(),
    };
    (record, positions)
}

#[test]
fn every_variant_replays_position_for_position() {
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let (record, positions) = played(variant, 24);
        assert!(record.actions.len() >= 4, "{variant}: too short a game");
        let snapshots = Replay::new(&record, Seed::Stored)
            .snapshots()
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(snapshots.len(), record.actions.len() + 1, "{variant}");
        let mut seen = Vec::new();
        let last = Replay::new(&record, Seed::Stored)
            .play_through(|game, played| {
                seen.push(game.position());
                if let Some(played) = played {
                    let stored = &record.actions[seen.len() - 2];
                    assert_eq!(
                        (played.machine, played.human),
                        (stored.machine.clone(), stored.human.clone())
                    );
                }
            })
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(seen, positions, "{variant}");
        assert_eq!(Some(last.position()), positions.last().cloned());
    }
}

#[test]
fn a_running_dice_game_replays_with_its_stored_seed_but_not_for_a_reader() {
    let (mut record, positions) = played(Variant::Drehs, 16);
    assert!(!record.status.is_over());
    let stored = Replay::new(&record, Seed::Stored).final_game();
    assert_eq!(stored.map(|g| g.position()).ok(), positions.last().cloned());
    assert_eq!(
        Replay::new(&record, Seed::Revealed).start().err(),
        Some(ReplayError::NoSeed)
    );
    record.status = GameStatus::Finished;
    record.outcome = Some(Outcome::win(Color::White, EndReason::Resignation));
    let revealed = Replay::new(&record, Seed::Revealed).final_game();
    assert_eq!(
        revealed.map(|g| g.position()).ok(),
        positions.last().cloned()
    );
    // Another seed rolls other dice: the same actions roll other values (or no longer play).
    let rolls = |record: &GameRecord| -> Vec<String> {
        let snapshots = Replay::new(record, Seed::Revealed).snapshots();
        (snapshots.unwrap_or_default().iter())
            .filter_map(|s| s.last_action.as_ref())
            .flat_map(|a| a.rolls.iter().map(|r| format!("{r:?}")))
            .collect()
    };
    let ours = rolls(&record);
    assert!(!ours.is_empty(), "the game rolled no dice");
    record.dice_seed = Some(vec![3; 32]);
    assert_ne!(rolls(&record), ours);
}

#[test]
fn a_stored_action_the_rules_refuse_names_its_ply() {
    let (mut record, _) = played(Variant::Suicide, 6);
    record.actions[3].machine = "a1a8".into();
    match Replay::new(&record, Seed::Stored).snapshots() {
        Err(ReplayError::Action { ply, machine, .. }) => {
            assert_eq!((ply, machine.as_str()), (4, "a1a8"))
        }
        other => panic!("{other:?}"),
    }
    record.start_position = Some("not a position".into());
    assert!(matches!(
        Replay::new(&record, Seed::Stored).start(),
        Err(ReplayError::BadSetup(_))
    ));
}

fn adjustment(kind: &str, ply: i32, white_ms: i64, black_ms: i64) -> AdjustmentRecord {
    AdjustmentRecord {
        game_id: Uuid::nil(),
        kind: kind.into(),
        by: "white".into(),
        to: None,
        ms: None,
        ply,
        taken_back: None,
        white_ms: Some(white_ms),
        black_ms: Some(black_ms),
        created_at: at(),
    }
}

#[test]
fn the_clocks_come_from_the_last_action_or_a_later_takeback_or_gift() {
    let (mut record, positions) = played(Variant::Chazz, 8);
    let replay = |record: &GameRecord| Replay::new(record, Seed::Stored).clock();
    assert_eq!(replay(&record), Some((59_200, 60_000)));
    // A takeback to ply 6: the two last actions are gone from the record, and the clocks are
    // those the takeback stored.
    record.actions.truncate(6);
    record
        .adjustments
        .push(adjustment("takeback", 6, 55_000, 58_000));
    assert_eq!(replay(&record), Some((55_000, 58_000)));
    let after_takeback = Replay::new(&record, Seed::Stored).final_game();
    assert_eq!(
        after_takeback.map(|g| g.position()).ok(),
        positions.get(6).cloned()
    );
    // An action after it: its own readings count again.
    record.actions.push(ActionRecord {
        ply: 7,
        ..record.actions[5].clone()
    });
    record.actions[6].white_ms = Some(54_000);
    assert_eq!(replay(&record).map(|(white, _)| white), Some(54_000));
    // A gift of more time after that action.
    record
        .adjustments
        .push(adjustment("more_time", 7, 54_000, 73_000));
    assert_eq!(replay(&record), Some((54_000, 73_000)));
    record.actions.clear();
    record.adjustments.clear();
    assert_eq!(replay(&record), None);
}

#[test]
fn the_export_names_the_players_moves_and_result() {
    let (mut record, _) = played(Variant::Duel, 6);
    record.status = GameStatus::Finished;
    record.outcome = Some(Outcome::win(Color::Black, EndReason::Resignation));
    let text = pgn::export_text(&record);
    assert!(
        text.contains("[White \"alice\"]\n[Black \"bob\"]\n[Result \"0-1\"]\n"),
        "{text}"
    );
    assert!(text.contains("[Variant \"duel\"]"), "{text}");
    assert!(text.contains("[TimeControl \"60+0\"]"), "{text}");
    assert!(!text.contains("SetUp"), "{text}");
    let first = &record.actions[0].human;
    assert!(text.contains(&format!("\n1. {first} ")), "{text}");
    assert!(text.trim_end().ends_with("0-1"), "{text}");
    assert!(text
        .lines()
        .all(|line| line.len() <= 80 || line.starts_with('[')));
}

#[test]
fn the_export_says_a_dice_attacks_result_in_words_before_its_effects() {
    let (mut record, _) = played(Variant::Drehs, 2);
    record.actions[0].rolls = Some(serde_json::json!({
        "rolls": [{ "purpose": "to_hit", "dice": "d20", "value": 2 }],
        "effects": [
            "miss: white pawn e4 rolls d20 2 + 0 ears = 2 <= armor 4 of black pawn d5",
            "counter_miss: black pawn d5 rolls d20 1 + 0 ears = 1 <= armor 4 of white pawn e4",
        ],
    }));
    let text = pgn::export_text(&record).replace('\n', " ");
    assert!(
        text.contains("{miss, counter miss; miss: white pawn e4 rolls d20 2"),
        "{text}"
    );
    // An action without effects has no comment.
    let second = &record.actions[1].human;
    assert!(text.contains(&format!(" {second} *")), "{text}");
}

#[test]
fn a_dice_record_only_for_a_finished_dice_game_with_the_rules_result_only() {
    let (mut record, _) = played(Variant::Drehs, 10);
    assert_eq!(
        dice::dice_record(&record).err(),
        Some(dice::NoDiceRecord::NotAvailable)
    );
    record.status = GameStatus::Finished;
    record.outcome = Some(Outcome::win(Color::White, EndReason::Resignation));
    let file = dice::dice_record(&record).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(file.seed, hex::encode(SEED));
    assert_eq!(file.actions.len(), record.actions.len());
    // A resignation is the server's, not the rules': the record states no result.
    assert_eq!(file.result, None);
    let (suicide, _) = played(Variant::Suicide, 4);
    let mut suicide = suicide;
    suicide.status = GameStatus::Finished;
    assert_eq!(
        dice::dice_record(&suicide).err(),
        Some(dice::NoDiceRecord::NotAvailable)
    );
}
