//! Batches of game changes against a real PostgreSQL: every kind of change committed by one
//! statement, each change answered on its own, the change-by-change path a bad change takes,
//! and the batch statement's plan on the writer's connections.

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use crate::store::{action, at, new_game, plies, registered, started_game, with_waiting_games};
use oddboard::rules::{Color, EndReason, Outcome, Variant};
use oddboard::store::changes::APPLY_CHANGES;
use oddboard::store::{
    GameChange, GameEnd, GameStart, GameStatus, GameWriter, NewGame, Store, StoreError, TimeControl,
};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

// ---- batches of game changes -------------------------------------------------------------

fn start(game_id: Uuid, white: Uuid, black: Uuid) -> GameChange {
    GameChange::Start(GameStart {
        game_id,
        white_id: white,
        black_id: black,
        started_at: at(10),
    })
}

fn end(game_id: Uuid, outcome: Outcome) -> GameEnd {
    GameEnd {
        game_id,
        outcome,
        ended_at: at(20),
        rated: None,
    }
}

async fn status_of(store: &Store, game_id: Uuid) -> Option<GameStatus> {
    store
        .load_game(game_id)
        .await
        .unwrap_or_else(|err| panic!("{err}"))
        .map(|game| game.status)
}

/// A Davey Drehs game of `creator` with a clock, dice and a start position of its own.
fn game_with_every_setting(creator: Uuid) -> NewGame {
    NewGame {
        clock: Some(TimeControl {
            initial_ms: 60_000,
            increment_ms: 1_000,
        }),
        dice_commitment: Some("c0ffee".into()),
        dice_seed: Some(vec![7; 32]),
        start_position: Some("8/8/8/8/8/8/8/8 w - - 0 1".into()),
        ..new_game(creator, Variant::Drehs)
    }
}

/// `created` is stored waiting, with each of its settings.
async fn assert_stored_as_created(store: &Store, created: &NewGame) -> Result<(), StoreError> {
    let loaded = store.load_game(created.game_id).await?.expect("created");
    assert_eq!(
        (
            loaded.status,
            loaded.variant,
            loaded.clock,
            loaded.start_position,
            loaded.dice_commitment,
            loaded.dice_seed
        ),
        (
            GameStatus::Waiting,
            created.variant,
            created.clock,
            created.start_position.clone(),
            created.dice_commitment.clone(),
            created.dice_seed.clone()
        )
    );
    Ok(())
}

/// Every kind of change, to different games, in one batch: one statement commits them all.
#[sqlx::test(migrations = "./migrations")]
async fn one_batch_creates_starts_plays_and_ends_games(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let created = game_with_every_setting(a);
    let waiting = new_game(a, Variant::Chazz);
    store.create_game(&waiting).await?;
    let playing = started_game(&store, a, b, Variant::Suicide).await;
    let mated = started_game(&store, a, b, Variant::Suicide).await;
    store.append_actions(&[action(mated, 1)]).await?;
    let resigned = started_game(&store, a, b, Variant::Duel).await;
    let checkmate = Outcome::win(Color::Black, EndReason::Checkmate);
    let resignation = Outcome::win(Color::White, EndReason::Resignation);

    let answers = store
        .apply_changes(&[
            GameChange::Create(created.clone()),
            start(waiting.game_id, a, b),
            GameChange::Act(action(playing, 1), None),
            GameChange::Act(action(mated, 2), Some(end(mated, checkmate))),
            GameChange::End(end(resigned, resignation)),
        ])
        .await?;

    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    assert_stored_as_created(&store, &created).await?;
    let started = store.load_game(waiting.game_id).await?.expect("started");
    assert_eq!(
        (
            started.status,
            started.white_id,
            started.black_id,
            started.started_at
        ),
        (GameStatus::Active, Some(a), Some(b), Some(at(10)))
    );
    assert_eq!(
        plies(&store.load_game(playing).await?.expect("playing").actions),
        [1]
    );
    let over = store.load_game(mated).await?.expect("mated");
    assert_eq!(
        (
            over.status,
            over.outcome,
            over.ended_at,
            plies(&over.actions)
        ),
        (
            GameStatus::Finished,
            Some(checkmate),
            Some(at(20)),
            vec![1, 2]
        )
    );
    let gone = store.load_game(resigned).await?.expect("resigned");
    assert_eq!(
        (gone.status, gone.outcome),
        (GameStatus::Finished, Some(resignation))
    );
    Ok(())
}

/// Conditional changes that find no game in the right state are answered `NotFound` on
/// their own; the rest of the batch commits.
#[sqlx::test(migrations = "./migrations")]
async fn a_batch_answers_each_change_on_its_own(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let active = started_game(&store, a, b, Variant::Chad).await;
    let over = started_game(&store, a, b, Variant::Chad).await;
    let draw = Outcome::draw(EndReason::Agreement);
    store.finish_game(over, &draw, at(15)).await?;
    let waiting = new_game(a, Variant::Chad);
    store.create_game(&waiting).await?;

    let answers = store
        .apply_changes(&[
            // Already active: cannot start again.
            start(active, a, b),
            // Already over: cannot end again.
            GameChange::End(end(over, Outcome::win(Color::White, EndReason::Timeout))),
            GameChange::End(end(Uuid::new_v4(), draw)),
            GameChange::End(end(waiting.game_id, Outcome::draw(EndReason::Aborted))),
        ])
        .await?;

    assert!(
        matches!(
            answers.as_slice(),
            [
                Err(StoreError::NotFound),
                Err(StoreError::NotFound),
                Err(StoreError::NotFound),
                Ok(())
            ]
        ),
        "{answers:?}"
    );
    assert_eq!(
        store.load_game(over).await?.expect("over").outcome,
        Some(draw)
    );
    assert_eq!(
        status_of(&store, waiting.game_id).await,
        Some(GameStatus::Aborted)
    );
    Ok(())
}

/// A bad change (a ply already stored, a game created twice) sends the batch down the
/// change-by-change path: it alone is refused, and the others commit, the last move with
/// its game's end.
#[sqlx::test(migrations = "./migrations")]
async fn a_bad_change_does_not_sink_its_batch(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let replayed = started_game(&store, a, b, Variant::Suicide).await;
    store.append_actions(&[action(replayed, 1)]).await?;
    let mated = started_game(&store, a, b, Variant::Suicide).await;
    let existing = new_game(a, Variant::Suicide);
    store.create_game(&existing).await?;
    let fresh = new_game(a, Variant::Suicide);
    let no_user = new_game(Uuid::new_v4(), Variant::Suicide);
    let stalemate = Outcome::win(Color::White, EndReason::Stalemate);

    let answers = store
        .apply_changes(&[
            GameChange::Act(action(replayed, 1), None),
            GameChange::Act(action(mated, 1), Some(end(mated, stalemate))),
            GameChange::Create(existing.clone()),
            GameChange::Create(fresh.clone()),
            GameChange::Create(no_user),
        ])
        .await?;

    assert!(
        matches!(
            answers.as_slice(),
            [
                Err(StoreError::DuplicatePly { ply: 1, .. }),
                Ok(()),
                Err(StoreError::Database(_)),
                Ok(()),
                Err(StoreError::NotFound)
            ]
        ),
        "{answers:?}"
    );
    let over = store.load_game(mated).await?.expect("mated");
    assert_eq!(
        (over.status, over.outcome, plies(&over.actions)),
        (GameStatus::Finished, Some(stalemate), vec![1])
    );
    assert_eq!(
        status_of(&store, fresh.game_id).await,
        Some(GameStatus::Waiting)
    );
    Ok(())
}

/// A last action whose game's end the database refuses is refused with its end (the two go
/// together, as in the one-statement path), and the rest of the batch commits.
#[sqlx::test(migrations = "./migrations")]
async fn a_refused_end_takes_only_its_own_last_action(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let ongoing = started_game(&store, a, b, Variant::Suicide).await;
    let ending = started_game(&store, a, b, Variant::Suicide).await;
    sqlx::raw_sql(&format!(
        "create function refuse_end() returns trigger language plpgsql as $$ \
         begin raise exception 'refused for the test'; end $$; \
         create trigger refuse_end before update of status on game for each row \
         when (new.game_id = '{ending}') execute function refuse_end();"
    ))
    .execute(&pool)
    .await?;
    let stalemate = Outcome::win(Color::White, EndReason::Stalemate);

    let answers = store
        .apply_changes(&[
            GameChange::Act(action(ongoing, 1), None),
            GameChange::Act(action(ending, 1), Some(end(ending, stalemate))),
        ])
        .await?;

    assert!(
        matches!(answers.as_slice(), [Ok(()), Err(StoreError::Database(_))]),
        "{answers:?}"
    );
    let ongoing = store.load_game(ongoing).await?.expect("ongoing");
    assert_eq!(plies(&ongoing.actions), [1]);
    let ending = store.load_game(ending).await?.expect("ending");
    assert_eq!(
        (ending.status, ending.actions.len()),
        (GameStatus::Active, 0)
    );
    Ok(())
}

/// One statement cannot change a game's row twice: such a batch is refused whole, before
/// anything is written. Several plain actions of one game are fine.
#[sqlx::test(migrations = "./migrations")]
async fn one_statement_changes_a_game_row_once(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let game = new_game(a, Variant::Duel);

    let refused = store
        .apply_changes(&[GameChange::Create(game.clone()), start(game.game_id, a, b)])
        .await;

    assert!(
        matches!(refused, Err(StoreError::SameGameTwice { game_id }) if game_id == game.game_id),
        "{refused:?}"
    );
    assert_eq!(status_of(&store, game.game_id).await, None);
    let playing = started_game(&store, a, b, Variant::Duel).await;
    let answers = store
        .apply_changes(&[
            GameChange::Act(action(playing, 1), None),
            GameChange::Act(action(playing, 2), None),
        ])
        .await?;
    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    Ok(())
}

/// Prepares the batch statement as `apply_changes` on `conn`, under the connection's own
/// planner settings, and returns the arguments of a batch that changes nothing: it starts and
/// ends a game that does not exist.
async fn prepare_apply_changes(conn: &mut PgConnection) -> Result<String, StoreError> {
    let types = "uuid[], text[], uuid[], uuid[], uuid[], text[], int8[], int8[], bool[], \
                 text[], text[], bytea[], uuid[], uuid[], uuid[], timestamptz[], uuid[], \
                 int4[], text[], text[], int8[], int8[], text[], uuid[], text[], text[], \
                 text[], timestamptz[]";
    sqlx::raw_sql(&format!(
        "prepare apply_changes ({types}) as {APPLY_CHANGES}"
    ))
    .execute(&mut *conn)
    .await?;
    let one = "array[gen_random_uuid()]";
    let arguments: Vec<&str> = (1..=28)
        .map(|n| match n {
            13..=15 | 24 => one,
            16 | 28 => "array[now()]",
            25..=27 => "array['x']",
            _ => "'{}'",
        })
        .collect();
    Ok(arguments.join(", "))
}

/// The plan a prepared statement settles on for the batch statement, as the writer's
/// statement cache would keep it, on `conn`.
async fn generic_plan_of_apply_changes(conn: &mut PgConnection) -> Result<String, StoreError> {
    sqlx::raw_sql("set plan_cache_mode = force_generic_plan")
        .execute(&mut *conn)
        .await?;
    let arguments = prepare_apply_changes(conn).await?;
    let plan: Vec<String> = sqlx::query_scalar(&format!(
        "explain (costs off) execute apply_changes ({arguments})"
    ))
    .fetch_all(&mut *conn)
    .await?;
    Ok(plan.join("\n"))
}

/// The writer's connections plan the batch statement once and keep that plan: left to
/// choose, PostgreSQL planned it anew for every batch (a custom plan each time).
#[sqlx::test(migrations = "./migrations")]
async fn the_writer_plans_its_batch_statement_once(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let mut conn = store.writer_pool().acquire().await?;
    let arguments = prepare_apply_changes(&mut conn).await?;
    for _ in 0..8 {
        sqlx::raw_sql(&format!("execute apply_changes ({arguments})"))
            .execute(&mut *conn)
            .await?;
    }
    let plans: (i64, i64) = sqlx::query_as(
        "select generic_plans, custom_plans from pg_prepared_statements \
         where name = 'apply_changes'",
    )
    .fetch_one(&mut *conn)
    .await?;
    assert_eq!(plans, (8, 0), "(generic plans, custom plans)");
    Ok(())
}

/// The batch statement's updates probe `game_pkey` once for each game of the batch, in the
/// plan a prepared statement settles on, however many games are unfinished: reading the
/// partial index of unfinished games instead costs every batch a pass over all games in play,
/// and a join filter compares every game found with every game of the batch.
#[sqlx::test(migrations = "./migrations")]
async fn the_batch_statement_finds_games_by_primary_key(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let mut conn = with_waiting_games(&store, 3000).await?;
    sqlx::raw_sql("analyze game").execute(&mut *conn).await?;
    let plan = generic_plan_of_apply_changes(&mut conn).await?;
    assert_eq!(
        plan.matches("Index Scan using game_pkey").count(),
        2,
        "{plan}"
    );
    assert!(!plan.contains("Join Filter"), "{plan}");
    assert!(!plan.contains("game_unfinished_idx"), "{plan}");
    assert!(!plan.contains("Seq Scan on game "), "{plan}");
    Ok(())
}

/// On the writer's connections the batch statement probes `game_pkey` even when the plan is
/// made on a new database, whose `game` table is nearly empty and not yet analyzed: that plan
/// is the one the writer's statement cache keeps while the table grows.
#[sqlx::test(migrations = "./migrations")]
async fn the_writer_plans_for_a_growing_game_table(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    drop(with_waiting_games(&store, 3).await?);
    let mut conn = store.writer_pool().acquire().await?;
    let plan = generic_plan_of_apply_changes(&mut conn).await?;
    assert_eq!(
        plan.matches("Index Scan using game_pkey").count(),
        2,
        "{plan}"
    );
    assert!(!plan.contains("Join Filter"), "{plan}");
    assert!(!plan.contains("Seq Scan on game "), "{plan}");
    Ok(())
}

/// Through the writer, a game's whole life queued at once (each change sent before the
/// previous one is answered) commits in order: the writer cuts the batch into statements.
#[sqlx::test(migrations = "./migrations")]
async fn the_writer_commits_a_whole_game_queued_at_once(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let game = new_game(a, Variant::Suicide);
    let other = started_game(&store, a, b, Variant::Suicide).await;
    let id = game.game_id;
    let outcome = Outcome::win(Color::White, EndReason::Checkmate);
    let writer = GameWriter::spawn(store.clone());

    // `join!` polls in order, so the changes are queued in this order.
    let answers = tokio::join!(
        writer.commit(GameChange::Create(game)),
        writer.commit(start(id, a, b)),
        writer.append(action(other, 1)),
        writer.append(action(id, 1)),
        writer.append(action(id, 2)),
        writer.commit(GameChange::Act(action(id, 3), Some(end(id, outcome)))),
        writer.append(action(other, 2)),
    );

    assert!(
        matches!(
            answers,
            (Ok(()), Ok(()), Ok(()), Ok(()), Ok(()), Ok(()), Ok(()))
        ),
        "{answers:?}"
    );
    let over = store.load_game(id).await?.expect("the game");
    assert_eq!(
        (over.status, over.outcome, plies(&over.actions)),
        (GameStatus::Finished, Some(outcome), vec![1, 2, 3])
    );
    let stats = writer.stats().snapshot();
    assert_eq!(stats.rows_committed, 7);
    // Created, started, and the plain moves with the last: at least three statements.
    assert!(stats.batches_committed >= 3, "{stats:?}");
    Ok(())
}
