//! Actions against a real PostgreSQL: duplicate plies, bad rows and their batches, the
//! per-statement game check and its plan, and the group-commit writer under concurrent
//! appends, failures and a lost database, and its throughput (an ignored benchmark).

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use crate::store::{
    action, count_actions, drop_database, plies, registered, scratch_database_name, server_url,
    started_game, with_waiting_games,
};
use oddboard::rules::Variant;
use oddboard::store::{GameWriter, NewAction, Store, StoreError, WriterConfig};
use sqlx::PgPool;
use std::sync::Arc;
use tokio::task::JoinSet;
use uuid::Uuid;

// ---- actions -----------------------------------------------------------------------------

#[sqlx::test(migrations = "./migrations")]
async fn duplicate_ply_fails_alone(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let g1 = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let g2 = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    store.append_actions(&[action(g1, 1)]).await?;

    let results = store
        .append_actions(&[
            action(g2, 1),
            action(g1, 1), // already stored
            action(g1, 2),
            NewAction {
                machine: "late".into(),
                ..action(g1, 2) // repeated within the batch: the first one wins
            },
        ])
        .await?;

    assert!(results[0].is_ok());
    assert!(
        matches!(results[1], Err(StoreError::DuplicatePly { game_id, ply: 1 }) if game_id == g1),
        "{:?}",
        results[1]
    );
    assert!(results[2].is_ok());
    assert!(
        matches!(results[3], Err(StoreError::DuplicatePly { game_id, ply: 2 }) if game_id == g1),
        "{:?}",
        results[3]
    );
    let loaded = store.load_game(g1).await?.expect("the game");
    assert_eq!(plies(&loaded.actions), [1, 2]);
    assert_eq!(loaded.actions[1].machine, "m2");
    assert_eq!(count_actions(&store).await, 3);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_bad_row_does_not_sink_its_batch(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Chad).await;
    store.append_actions(&[action(game_id, 1)]).await?;

    let results = store
        .append_actions(&[
            action(game_id, 2),
            action(Uuid::new_v4(), 1), // no such game
            action(game_id, 0),        // plies start at 1
            action(game_id, 1),        // duplicate
            action(game_id, 3),
        ])
        .await?;

    assert!(results[0].is_ok());
    assert!(
        matches!(results[1], Err(StoreError::NotFound)),
        "{:?}",
        results[1]
    );
    assert!(
        matches!(results[2], Err(StoreError::Database(_))),
        "{:?}",
        results[2]
    );
    assert!(
        matches!(results[3], Err(StoreError::DuplicatePly { ply: 1, .. })),
        "{:?}",
        results[3]
    );
    assert!(results[4].is_ok());
    let loaded = store.load_game(game_id).await?.expect("the game");
    assert_eq!(plies(&loaded.actions), [1, 2, 3]);
    Ok(())
}

/// The game reference is checked per statement (migration 0004): a batch whose rows all name
/// unknown games stores nothing, and deleting a game still deletes its actions.
#[sqlx::test(migrations = "./migrations")]
async fn actions_need_their_game_and_go_with_it(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let kept = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let deleted = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    store
        .append_actions(&[action(kept, 1), action(deleted, 1), action(deleted, 2)])
        .await?;

    let orphans = store
        .append_actions(&[action(Uuid::new_v4(), 1), action(Uuid::new_v4(), 1)])
        .await?;
    assert!(
        orphans
            .iter()
            .all(|r| matches!(r, Err(StoreError::NotFound))),
        "{orphans:?}"
    );
    assert_eq!(count_actions(&store).await, 3);

    sqlx::query("delete from game where game_id = $1")
        .bind(deleted)
        .execute(store.pool())
        .await?;
    assert_eq!(count_actions(&store).await, 1);
    assert!(store.load_game(kept).await?.is_some());
    Ok(())
}

/// The per-statement game check (migration 0005) looks each row's game up in `game_pkey`.
/// With a few thousand games, 0004's plain anti-join read the whole `game` table into a hash
/// for every batch. The plan is read for the installed function's own query, over a
/// stand-in for its transition table.
#[sqlx::test(migrations = "./migrations")]
async fn the_game_check_probes_the_primary_key(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    // Temporary tables belong to one connection: everything below runs on this one.
    let mut conn = with_waiting_games(&store, 3000).await?;
    for statement in [
        "analyze game",
        "create temp table inserted as select game_id, 1 as ply from game limit 48",
        "analyze inserted",
    ] {
        sqlx::query(statement).execute(&mut *conn).await?;
    }
    let check: String = sqlx::query_scalar(
        r"select substring(prosrc from 'if\s+(exists\s.*\))\s+then') from pg_proc
          where proname = 'game_action_check_game'",
    )
    .fetch_one(&mut *conn)
    .await?;
    let plan: Vec<String> = sqlx::query_scalar(&format!("explain (costs off) select {check}"))
        .fetch_all(&mut *conn)
        .await?;
    let plan = plan.join("\n");
    assert!(plan.contains("using game_pkey on game"), "{plan}");
    assert!(!plan.contains("Seq Scan on game "), "{plan}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn an_empty_batch_is_a_no_op(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);

    assert!(store.append_actions(&[]).await?.is_empty());
    Ok(())
}

// ---- the group-commit writer -------------------------------------------------------------

/// One task per game, each appending plies `1..=plies` one after the other like a game actor
/// (the next move only once the previous one is committed), all games at once.
async fn play_concurrently(
    writer: &GameWriter,
    game_ids: &[Uuid],
    plies: i32,
) -> Result<(), StoreError> {
    let mut games = JoinSet::new();
    for &game_id in game_ids {
        let writer = writer.clone();
        games.spawn(async move {
            for ply in 1..=plies {
                writer.append(action(game_id, ply)).await?;
            }
            Ok::<_, StoreError>(())
        });
    }
    while let Some(done) = games.join_next().await {
        done.expect("the game task")?;
    }
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn writer_commits_concurrent_appends_in_batches(pool: PgPool) -> Result<(), StoreError> {
    concurrent_appends_in_batches(Store::from_pool(pool), WriterConfig::default()).await
}

#[sqlx::test(migrations = "./migrations")]
async fn writer_with_two_batches_in_flight_commits_everything(
    pool: PgPool,
) -> Result<(), StoreError> {
    let config = WriterConfig {
        max_in_flight: 2,
        ..WriterConfig::default()
    };
    concurrent_appends_in_batches(Store::from_pool(pool), config).await
}

/// 100 games appending 20 plies each at the same time: everything commits, in batches.
async fn concurrent_appends_in_batches(
    store: Store,
    config: WriterConfig,
) -> Result<(), StoreError> {
    const GAMES: usize = 100;
    const PLIES: i32 = 20;
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let mut game_ids = Vec::new();
    for _ in 0..GAMES {
        game_ids.push(started_game(&store, alice.user_id, bob.user_id, Variant::Chazz).await);
    }
    let writer = GameWriter::spawn_with(store.clone(), config);

    play_concurrently(&writer, &game_ids, PLIES).await?;

    let stats = writer.stats().snapshot();
    let rows = u64::try_from(GAMES).unwrap_or(0) * u64::try_from(PLIES).unwrap_or(0);
    eprintln!(
        "writer ({} in flight): {} rows in {} batches (mean {:.1}); sizes {:?}",
        config.max_in_flight,
        stats.rows_committed,
        stats.batches_committed,
        stats.mean_batch_size(),
        stats.batch_sizes
    );
    assert_eq!(stats.rows_committed, rows);
    assert_eq!(
        (stats.rows_rejected, stats.failed_batches, stats.rows_failed),
        (0, 0, 0)
    );
    assert!(stats.batches_committed < rows, "{stats:?}");
    assert!(stats.multi_row_batches() > 0, "{stats:?}");
    let histogram_total: u64 = stats.batch_sizes.iter().map(|(_, n)| n).sum();
    assert_eq!(histogram_total, stats.batches_committed);
    assert_eq!(stats.commit_times.count(), stats.batches_committed);
    assert!(stats.commit_times.sum_us > 0, "{stats:?}");
    assert_eq!(
        count_actions(&store).await,
        i64::try_from(rows).unwrap_or(0)
    );
    let one = store.load_game(game_ids[0]).await?.expect("the game");
    assert_eq!(plies(&one.actions), (1..=PLIES).collect::<Vec<_>>());
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn writer_reports_failures_to_the_right_caller(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let g1 = started_game(&store, alice.user_id, bob.user_id, Variant::Duel).await;
    let g2 = started_game(&store, alice.user_id, bob.user_id, Variant::Duel).await;
    let writer = GameWriter::spawn(store.clone());
    writer.append(action(g1, 1)).await?;

    let (duplicate, next, other_game, unknown_game) = tokio::join!(
        writer.append(action(g1, 1)),
        writer.append(action(g1, 2)),
        writer.append(action(g2, 1)),
        writer.append(action(Uuid::new_v4(), 1)),
    );

    assert!(
        matches!(duplicate, Err(StoreError::DuplicatePly { game_id, ply: 1 }) if game_id == g1),
        "{duplicate:?}"
    );
    assert!(next.is_ok(), "{next:?}");
    assert!(other_game.is_ok(), "{other_game:?}");
    assert!(
        matches!(unknown_game, Err(StoreError::NotFound)),
        "{unknown_game:?}"
    );
    let stats = writer.stats().snapshot();
    assert_eq!((stats.rows_committed, stats.rows_rejected), (3, 2));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn racing_appends_of_one_ply_commit_exactly_one(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let writer = GameWriter::spawn(store.clone());

    let (first, second) = tokio::join!(
        writer.append(NewAction {
            machine: "first".into(),
            ..action(game_id, 1)
        }),
        writer.append(NewAction {
            machine: "second".into(),
            ..action(game_id, 1)
        }),
    );

    let winner = match (&first, &second) {
        (Ok(()), Err(StoreError::DuplicatePly { .. })) => "first",
        (Err(StoreError::DuplicatePly { .. }), Ok(())) => "second",
        other => panic!("exactly one should commit: {other:?}"),
    };
    let loaded = store.load_game(game_id).await?.expect("the game");
    assert_eq!(loaded.actions.len(), 1);
    assert_eq!(loaded.actions[0].machine, winner);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn writer_stops_once_every_handle_is_dropped(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Chad).await;
    let writer = GameWriter::spawn(store.clone());
    let stats = writer.stats();
    let clone = writer.clone();
    writer.append(action(game_id, 1)).await?;

    drop(writer);
    // A clone keeps it going.
    clone.append(action(game_id, 2)).await?;
    drop(clone);

    // The task holds the only other reference to the counters: it is gone once they are ours
    // alone. It notices within a few scheduler turns.
    for _ in 0..1000 {
        if Arc::strong_count(&stats) == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    assert_eq!(Arc::strong_count(&stats), 1, "the writer task has ended");
    assert_eq!(stats.snapshot().rows_committed, 2);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn writer_reports_a_lost_database(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let writer = GameWriter::spawn(store.clone());
    store.writer_pool().close().await;

    let result = writer.append(action(Uuid::new_v4(), 1)).await;

    assert!(
        matches!(result, Err(StoreError::Unavailable { .. })),
        "{result:?}"
    );
    assert_eq!(writer.stats().snapshot().failed_batches, 1);
    // The clocks of the games stop until the store answers again.
    assert!(!store.health().is_available());
    Ok(())
}

// ---- throughput --------------------------------------------------------------------------

/// Group-commit latency and throughput at four levels of concurrency, on a multi-threaded runtime and
/// its own database. Prints figures; asserts only that everything was committed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: cargo test --release --test it writer_throughput -- --ignored --nocapture"]
async fn writer_throughput() -> Result<(), StoreError> {
    let name = scratch_database_name("bench");
    let store = Store::connect(&format!("{}/{name}", server_url())).await?;
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;

    // One game alone measures the latency of an append (its time / plies); the others, the
    // throughput with many games at once.
    let rounds = [(1_usize, 300_i32), (10, 2_000), (100, 300), (1_000, 40)];
    for (in_flight, (games, plies)) in [1, 2].into_iter().flat_map(|n| rounds.map(|r| (n, r))) {
        let mut game_ids = Vec::with_capacity(games);
        for _ in 0..games {
            game_ids.push(started_game(&store, alice.user_id, bob.user_id, Variant::Chad).await);
        }
        let config = WriterConfig {
            max_in_flight: in_flight,
            ..WriterConfig::default()
        };
        let writer = GameWriter::spawn_with(store.clone(), config);
        let started = std::time::Instant::now();
        play_concurrently(&writer, &game_ids, plies).await?;
        let elapsed = started.elapsed();
        let stats = writer.stats().snapshot();
        #[allow(clippy::cast_precision_loss)]
        let per_second = stats.rows_committed as f64 / elapsed.as_secs_f64();
        eprintln!(
            "{in_flight} in flight, {games} games x {plies} plies: {} rows in {elapsed:.2?} = {per_second:.0} appends/s; \
             {} batches, mean {:.1} rows; sizes {:?}",
            stats.rows_committed,
            stats.batches_committed,
            stats.mean_batch_size(),
            stats.batch_sizes
        );
        assert_eq!(
            stats.rows_committed,
            u64::try_from(games).unwrap_or(0) * u64::try_from(plies).unwrap_or(0)
        );
    }

    store.pool().close().await;
    drop_database(&name).await
}
