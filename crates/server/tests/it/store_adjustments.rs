//! Takebacks and gifts of more time against a real PostgreSQL (`game_adjustment`,
//! migration 0012): a takeback deletes the actions it takes back in the same commit as it
//! records them, refuses a line the record does not hold, and both reach the loaded record
//! and the games a starting server resumes; through the group-commit writer as well, beside
//! other games' changes.

use crate::store::{action, plies, registered, started_game};
use oddboard::rules::{Color, EndReason, Outcome, Variant};
use oddboard::store::{
    GameChange, GameWriter, NewMoreTime, NewTakeback, Store, StoreError, TakenBackAction,
};
use sqlx::PgPool;
use uuid::Uuid;

/// The takeback of plies `from..=to` of `game_id` (stored by [`action`]) by `by`.
fn takeback(game_id: Uuid, by: Color, from: i32, to: i32) -> GameChange {
    GameChange::Takeback(NewTakeback {
        game_id,
        by,
        ply: from - 1,
        taken_back: (from..=to)
            .map(|ply| TakenBackAction {
                ply,
                machine: format!("m{ply}"),
                human: format!("h{ply}"),
            })
            .collect(),
        white_ms: Some(50_000),
        black_ms: Some(40_000),
    })
}

fn more_time(game_id: Uuid, ply: i32) -> GameChange {
    GameChange::MoreTime(NewMoreTime {
        game_id,
        by: Color::Black,
        to: Color::White,
        ms: 15_000,
        ply,
        white_ms: Some(65_000),
        black_ms: Some(40_000),
    })
}

/// A started game with plies 1..=`count` stored.
async fn game_with_plies(store: &Store, count: i32) -> Uuid {
    let alice = registered(store, &format!("A{}", Uuid::new_v4().simple())).await;
    let bob = registered(store, &format!("B{}", Uuid::new_v4().simple())).await;
    let game = started_game(store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let actions: Vec<_> = (1..=count).map(|ply| action(game, ply)).collect();
    store
        .append_actions(&actions)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    game
}

#[sqlx::test(migrations = "./migrations")]
async fn a_takeback_deletes_its_actions_and_is_recorded_with_them(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let game = game_with_plies(&store, 4).await;
    let answers = store
        .apply_changes(&[takeback(game, Color::White, 3, 4)])
        .await?;
    assert!(matches!(answers.as_slice(), [Ok(())]), "{answers:?}");
    store.append_actions(&[action(game, 3)]).await?;
    store.apply_changes(&[more_time(game, 3)]).await?;

    let record = store.load_game(game).await?.expect("stored");
    assert_eq!(plies(&record.actions), [1, 2, 3]);
    let kinds: Vec<(&str, &str, i32)> = (record.adjustments.iter())
        .map(|a| (a.kind.as_str(), a.by.as_str(), a.ply))
        .collect();
    assert_eq!(kinds, [("takeback", "white", 2), ("more_time", "black", 3)]);
    let taken = &record.adjustments[0];
    assert_eq!(
        taken.taken_back,
        Some(serde_json::json!([
            {"ply": 3, "machine": "m3", "human": "h3"},
            {"ply": 4, "machine": "m4", "human": "h4"}
        ]))
    );
    assert_eq!(
        (taken.white_ms, taken.black_ms, taken.to.clone()),
        (Some(50_000), Some(40_000), None)
    );
    let gift = &record.adjustments[1];
    assert_eq!(
        (gift.to.as_deref(), gift.ms, gift.white_ms),
        (Some("white"), Some(15_000), Some(65_000))
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_takeback_of_another_line_or_in_a_game_not_on_changes_nothing(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let game = game_with_plies(&store, 3).await;
    // Memory thinks the game has four plies: the record's line is another.
    let answers = store
        .apply_changes(&[takeback(game, Color::White, 3, 4)])
        .await?;
    assert!(
        matches!(answers.as_slice(), [Err(StoreError::NotFound)]),
        "{answers:?}"
    );
    // One of the two plies is not the action stored there.
    let GameChange::Takeback(mut wrong) = takeback(game, Color::White, 2, 3) else {
        unreachable!()
    };
    wrong.taken_back[1].machine = "other".into();
    let answers = store.apply_changes(&[GameChange::Takeback(wrong)]).await?;
    assert!(
        matches!(answers.as_slice(), [Err(StoreError::NotFound)]),
        "{answers:?}"
    );
    let record = store.load_game(game).await?.expect("stored");
    assert_eq!(
        (plies(&record.actions), record.adjustments.len()),
        (vec![1, 2, 3], 0)
    );

    // Once over, neither applies.
    let over = Outcome::win(Color::White, EndReason::Resignation);
    store.finish_game(game, &over, crate::store::at(30)).await?;
    for change in [takeback(game, Color::Black, 2, 3), more_time(game, 3)] {
        let answers = store.apply_changes(&[change]).await?;
        assert!(
            matches!(answers.as_slice(), [Err(StoreError::NotFound)]),
            "{answers:?}"
        );
    }
    let record = store.load_game(game).await?.expect("stored");
    assert_eq!(
        (plies(&record.actions), record.adjustments.len()),
        (vec![1, 2, 3], 0)
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn the_writer_commits_adjustments_beside_other_games_and_resumed_games_carry_them(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let game = game_with_plies(&store, 2).await;
    let other = game_with_plies(&store, 1).await;
    let third = game_with_plies(&store, 1).await;
    let writer = GameWriter::spawn(store.clone());
    let (taken, played, gift) = tokio::join!(
        writer.commit(takeback(game, Color::Black, 2, 2)),
        writer.commit(GameChange::Act(action(third, 2), None)),
        writer.commit(more_time(other, 1)),
    );
    assert!(
        taken.is_ok() && played.is_ok() && gift.is_ok(),
        "{taken:?} {played:?} {gift:?}"
    );
    let third = store.load_game(third).await?.expect("stored");
    assert_eq!(plies(&third.actions), [1, 2]);
    // Both games are before their second ply (their first-move limit runs): a starting
    // server resumes them with their adjustments.
    let resumed = store.resume_running_games().await?;
    let of = |id: Uuid| resumed.iter().find(|r| r.game_id == id).expect("resumed");
    assert_eq!(
        (plies(&of(game).actions), of(game).adjustments.len()),
        (vec![1], 1)
    );
    assert_eq!(of(other).adjustments[0].kind, "more_time");
    Ok(())
}
