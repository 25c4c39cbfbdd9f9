//! Fenced commits against the real PostgreSQL (store/changes/fence.rs): a node's commit
//! carries the `owner_epoch` it holds; once another node has taken the game over
//! (`Store::take_over_game`), that node's changes are refused (`Fenced`) and nothing of them
//! is written, in a batch with other games' changes that are written; a takeover waits for a
//! batch that holds the game's row.

use super::store_commit::{action, registered, started_rated_game};
use chrono::Utc;
use oddboard::rules::{Color, EndReason, Outcome};
use oddboard::store::{GameChange, GameEnd, GameStatus, GameWriter, Store, StoreError};
use sqlx::PgPool;
use uuid::Uuid;

/// A rated Chazz game between two new users, created and started.
async fn started_game(store: &Store) -> Uuid {
    let suffix = &Uuid::new_v4().simple().to_string()[..8];
    let white = registered(store, &format!("w{suffix}")).await;
    let black = registered(store, &format!("b{suffix}")).await;
    started_rated_game(store, &white, &black).await
}

fn act(game_id: Uuid, ply: i32, machine: &str) -> GameChange {
    GameChange::Act(action(game_id, ply, machine), None)
}

async fn plies(store: &Store, game_id: Uuid) -> Vec<String> {
    let record = store.load_game(game_id).await;
    let record = record
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no game {game_id}"));
    record.actions.into_iter().map(|a| a.machine).collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn a_superseded_epoch_commits_nothing_and_the_new_owner_goes_on(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let game = started_game(&store).await;
    let other = started_game(&store).await;
    assert_eq!(store.owner_epoch(game).await?, Some(0));
    let writer = GameWriter::spawn(store.clone());

    // The first owner (epoch 0) commits; a second node takes the game over (epoch 1).
    writer.commit_fenced(act(game, 1, "a2a3"), Some(0)).await?;
    assert_eq!(store.take_over_game(game).await?, Some(1));

    // The first owner's next move is refused and not written, while another game's move in
    // the same batch is.
    let answers = store
        .apply_changes_fenced(
            &[act(game, 2, "a7a6"), act(other, 1, "a2a3")],
            &[Some(0), Some(0)],
        )
        .await?;
    assert!(
        matches!(answers.as_slice(), [Err(StoreError::Fenced { game_id }), Ok(())] if *game_id == game),
        "{answers:?}"
    );
    assert_eq!(plies(&store, game).await, ["a2a3"]);
    assert_eq!(plies(&store, other).await, ["a2a3"]);

    // Through the writer too, and an end as much as a move.
    let stale = writer.commit_fenced(act(game, 2, "a7a6"), Some(0)).await;
    assert!(matches!(stale, Err(StoreError::Fenced { .. })), "{stale:?}");
    let end = GameEnd {
        game_id: game,
        outcome: Outcome::win(Color::White, EndReason::Resignation),
        ended_at: Utc::now(),
        rated: None,
    };
    let stale_end = writer.commit_fenced(GameChange::End(end), Some(0)).await;
    assert!(
        matches!(stale_end, Err(StoreError::Fenced { .. })),
        "{stale_end:?}"
    );
    let record = store
        .load_game(game)
        .await?
        .unwrap_or_else(|| panic!("no game"));
    assert_eq!(record.status, GameStatus::Active);

    // The new owner goes on from what is stored: ply 2 is free, and its end is written.
    writer.commit_fenced(act(game, 2, "a7a6"), Some(1)).await?;
    writer.commit_fenced(GameChange::End(end), Some(1)).await?;
    assert_eq!(plies(&store, game).await, ["a2a3", "a7a6"]);
    let record = store
        .load_game(game)
        .await?
        .unwrap_or_else(|| panic!("no game"));
    assert_eq!(record.status, GameStatus::Finished);
    // A game that is over is nobody's to take.
    assert_eq!(store.take_over_game(game).await?, None);
    assert_eq!(store.take_over_game(Uuid::new_v4()).await?, None);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_takeover_waits_for_the_batch_that_holds_the_game(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    let game = started_game(&store).await;
    // A batch of the first owner, in flight: its transaction holds the game's row as the
    // fenced path does, and has written its move but not committed.
    let mut batch = pool.begin().await?;
    sqlx::query("select owner_epoch from game where game_id = $1 for share")
        .bind(game)
        .fetch_one(&mut *batch)
        .await?;
    sqlx::query(
        "insert into game_action (game_id, ply, machine, human) values ($1, 1, 'a2a3', 'e3')",
    )
    .bind(game)
    .execute(&mut *batch)
    .await?;
    let takeover = tokio::spawn({
        let store = store.clone();
        async move { store.take_over_game(game).await }
    });
    // The takeover waits on the batch's lock (PostgreSQL says so), and goes on only once
    // the batch commits; the new owner then reads the move.
    let waiting = || async {
        let waiting: i64 = sqlx::query_scalar(
            "select count(*) from pg_stat_activity \
             where wait_event_type = 'Lock' and query like 'update game set owner_epoch%'",
        )
        .fetch_one(&pool)
        .await
        .unwrap_or(0);
        waiting == 1
    };
    super::server::wait_until(
        "the takeover waiting for the batch",
        std::time::Duration::from_secs(20),
        waiting,
    )
    .await;
    assert!(!takeover.is_finished());
    batch.commit().await?;
    let epoch = takeover.await.unwrap_or_else(|e| panic!("{e}"))?;
    assert_eq!(epoch, Some(1));
    assert_eq!(plies(&store, game).await, ["a2a3"]);
    Ok(())
}
