//! The store against a real PostgreSQL: every query of `oddboard::store`, the named
//! constraints it maps to domain errors, the group-commit writer, and `Store::connect`.
//!
//! Each `#[sqlx::test]` gets a fresh, migrated database. Times are fixed instants
//! ([`at`]), never the wall clock, so comparisons are exact (PostgreSQL keeps microseconds).

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use chrono::{DateTime, Utc};
use oddboard::rules::{Color, EndReason, Outcome, Variant};
use oddboard::store::changes::APPLY_CHANGES;
use oddboard::store::{
    ActionRecord, ColorChoice, GameChange, GameEnd, GameStart, GameStatus, GameSummary, GameWriter,
    JsonText, NewAction, NewGame, PlayerResult, Store, StoreError, TimeControl, UnfinishedGame,
    User, VariantResults, WriterConfig,
};
use sqlx::{Connection, PgConnection, PgPool};
use std::sync::Arc;
use tokio::task::JoinSet;
use uuid::Uuid;

/// A plausible argon2id PHC string; the store never looks inside it.
const HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";

/// A fixed instant, `seconds` after an arbitrary epoch.
fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap_or_default()
}

/// A SHA-256-sized token hash, distinct per `seed`.
fn token_hash(seed: u8) -> Vec<u8> {
    vec![seed; 32]
}

async fn registered(store: &Store, name: &str) -> User {
    store
        .create_user(name, Some(HASH), false)
        .await
        .unwrap_or_else(|err| panic!("create {name}: {err}"))
}

/// A waiting game without clock or dice.
fn new_game(creator_id: Uuid, variant: Variant) -> NewGame {
    NewGame {
        game_id: Uuid::new_v4(),
        variant,
        creator_id,
        white_id: None,
        black_id: None,
        color_choice: ColorChoice::Random,
        clock: None,
        rated: false,
        start_position: None,
        dice_commitment: None,
        dice_seed: None,
    }
}

/// Creates and starts a game between `white` and `black`; returns its id.
async fn started_game(store: &Store, white: Uuid, black: Uuid, variant: Variant) -> Uuid {
    let game = new_game(white, variant);
    store
        .create_game(&game)
        .await
        .unwrap_or_else(|err| panic!("{err}"));
    store
        .start_game(game.game_id, white, black, at(10))
        .await
        .unwrap_or_else(|err| panic!("{err}"));
    game.game_id
}

fn action(game_id: Uuid, ply: i32) -> NewAction {
    NewAction {
        game_id,
        ply,
        machine: format!("m{ply}"),
        human: format!("h{ply}"),
        white_ms: None,
        black_ms: None,
        rolls: None,
    }
}

/// Pins `created_at`, which otherwise is the insert's `now()`, so ordering tests are exact.
async fn set_created_at(store: &Store, game_id: Uuid, created_at: DateTime<Utc>) {
    sqlx::query("update game set created_at = $2 where game_id = $1")
        .bind(game_id)
        .bind(created_at)
        .execute(store.pool())
        .await
        .unwrap_or_else(|err| panic!("{err}"));
}

/// Pins the `created_at` of a game's actions of the plies in `plies`.
async fn set_action_times(
    store: &Store,
    game_id: Uuid,
    plies: std::ops::Range<i32>,
    created_at: DateTime<Utc>,
) {
    sqlx::query(
        "update game_action set created_at = $4 where game_id = $1 and ply >= $2 and ply < $3",
    )
    .bind(game_id)
    .bind(plies.start)
    .bind(plies.end)
    .bind(created_at)
    .execute(store.pool())
    .await
    .unwrap_or_else(|err| panic!("{err}"));
}

/// Adds `count` waiting games of one new user, for the tests of query plans, which depend on
/// the table's size; returns the connection they were made on.
async fn with_waiting_games(
    store: &Store,
    count: i32,
) -> Result<sqlx::pool::PoolConnection<sqlx::Postgres>, StoreError> {
    let creator = registered(store, "Creator").await;
    let mut conn = store.pool().acquire().await?;
    sqlx::query(
        "insert into game (game_id, variant, creator_id, color_choice) \
         select gen_random_uuid(), 'suicide', $1, 'random' from generate_series(1, $2)",
    )
    .bind(creator.user_id)
    .bind(count)
    .execute(&mut *conn)
    .await?;
    Ok(conn)
}

async fn count_actions(store: &Store) -> i64 {
    sqlx::query_scalar("select count(*) from game_action")
        .fetch_one(store.pool())
        .await
        .unwrap_or_else(|err| panic!("{err}"))
}

fn plies(actions: &[ActionRecord]) -> Vec<i32> {
    actions.iter().map(|a| a.ply).collect()
}

// ---- users -------------------------------------------------------------------------------

#[sqlx::test(migrations = "./migrations")]
async fn create_user_and_look_it_up(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);

    let alice = store.create_user("Alice", Some(HASH), false).await?;
    let guest = store.create_user("Guest-7f3a", None, true).await?;

    assert_eq!(alice.username, "Alice");
    assert!(!alice.is_guest);
    assert!(guest.is_guest);
    assert_eq!(store.user_by_id(alice.user_id).await?, Some(alice.clone()));
    assert_eq!(store.user_by_name("alice").await?, Some(alice.clone()));
    assert_eq!(store.user_by_name("ALICE").await?, Some(alice.clone()));
    assert_eq!(store.user_by_name("bob").await?, None);
    assert_eq!(store.user_by_id(Uuid::new_v4()).await?, None);
    assert_eq!(
        store.password_hash(alice.user_id).await?.as_deref(),
        Some(HASH)
    );
    assert_eq!(store.password_hash(guest.user_id).await?, None);
    assert_eq!(store.password_hash(Uuid::new_v4()).await?, None);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn usernames_are_unique_ignoring_case(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    store.create_user("Alice", Some(HASH), false).await?;

    let again = store.create_user("aLICE", None, true).await;

    assert!(matches!(again, Err(StoreError::UsernameTaken)), "{again:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn schema_rejects_blank_names_and_guest_passwords(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);

    let blank = store.create_user("  ", Some(HASH), false).await;
    let guest_with_password = store.create_user("Guest-1", Some(HASH), true).await;

    assert!(matches!(blank, Err(StoreError::Database(_))), "{blank:?}");
    assert!(
        matches!(guest_with_password, Err(StoreError::Database(_))),
        "{guest_with_password:?}"
    );
    Ok(())
}

// ---- sessions ----------------------------------------------------------------------------

#[sqlx::test(migrations = "./migrations")]
async fn session_lifecycle(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let token = token_hash(1);

    store.create_session(alice.user_id, &token, at(100)).await?;

    let session = store.session(&token, at(99)).await?;
    assert_eq!(session.as_ref().map(|s| s.expires_at), Some(at(100)));
    assert_eq!(session.map(|s| s.user), Some(alice));
    assert_eq!(
        store.session(&token, at(100)).await?.map(|s| s.user),
        None,
        "expired"
    );
    assert_eq!(
        store.session(&token_hash(2), at(0)).await?.map(|s| s.user),
        None
    );

    store.delete_session(&token).await?;
    assert_eq!(store.session(&token, at(0)).await?.map(|s| s.user), None);
    // Logging out twice is harmless.
    store.delete_session(&token).await?;
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn guests_that_cannot_come_back_and_never_finished_a_game_are_purged(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let guest = |name: &'static str| {
        let store = store.clone();
        async move {
            store
                .create_user(name, None, true)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
        }
    };
    let idle = guest("Guest0001").await;
    let signed_in = guest("Guest0002").await;
    let finished = guest("Guest0003").await;
    let playing = guest("Guest0004").await;
    let challenging = guest("Guest0005").await;
    let aborted = guest("Guest0006").await;
    let young = guest("Guest0007").await;
    let old = [
        &idle,
        &signed_in,
        &finished,
        &playing,
        &challenging,
        &aborted,
    ];
    for (user, created_at) in old.iter().map(|u| (u, at(0))).chain([(&&young, at(200))]) {
        sqlx::query("update app_user set created_at = $2 where user_id = $1")
            .bind(user.user_id)
            .bind(created_at)
            .execute(store.pool())
            .await?;
    }
    store
        .create_session(signed_in.user_id, &token_hash(1), at(1_000))
        .await?;
    store
        .create_session(idle.user_id, &token_hash(2), at(50))
        .await?;
    let won = started_game(&store, finished.user_id, alice.user_id, Variant::Suicide).await;
    store
        .finish_game(won, &Outcome::draw(EndReason::Agreement), at(3))
        .await?;
    started_game(&store, alice.user_id, playing.user_id, Variant::Suicide).await;
    store
        .create_game(&new_game(challenging.user_id, Variant::Chad))
        .await?;
    // An aborted game and an aborted open challenge, which go with the guest.
    let against_alice = started_game(&store, aborted.user_id, alice.user_id, Variant::Duel).await;
    let withdrawn = new_game(aborted.user_id, Variant::Chad);
    store.create_game(&withdrawn).await?;
    store.append_actions(&[action(against_alice, 1)]).await?;
    for game in [against_alice, withdrawn.game_id] {
        store
            .finish_game(game, &Outcome::draw(EndReason::Aborted), at(3))
            .await?;
    }

    // Not a guest created outside the range.
    assert_eq!(
        store
            .delete_stale_guests(at(1)..=at(100), at(100), 100)
            .await?,
        0
    );
    let purged = store
        .delete_stale_guests(at(0)..=at(100), at(100), 100)
        .await?;

    assert_eq!(purged, 2);
    for (user, kept) in [
        (&idle, false),
        (&aborted, false),
        (&signed_in, true),
        (&finished, true),
        (&playing, true),
        (&challenging, true),
        (&young, true),
        (&alice, true),
    ] {
        let found = store.user_by_id(user.user_id).await?.is_some();
        assert_eq!(found, kept, "{}", user.username);
    }
    assert_eq!(store.load_game(against_alice).await?, None);
    assert_eq!(store.load_game(withdrawn.game_id).await?, None);
    assert!(store.load_game(won).await?.is_some());
    assert_eq!(store.session(&token_hash(2), at(0)).await?, None);
    // Nothing more to purge.
    assert_eq!(
        store
            .delete_stale_guests(at(0)..=at(100), at(100), 100)
            .await?,
        0
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn expired_sessions_are_purged(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    store
        .create_session(alice.user_id, &token_hash(1), at(100))
        .await?;
    store
        .create_session(alice.user_id, &token_hash(2), at(200))
        .await?;

    assert_eq!(store.delete_expired_sessions(at(150)).await?, 1);

    assert_eq!(
        store.session(&token_hash(1), at(0)).await?.map(|s| s.user),
        None
    );
    assert!(store
        .session(&token_hash(2), at(0))
        .await?
        .map(|s| s.user)
        .is_some());
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn session_needs_an_existing_user_and_a_sha256(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;

    let nobody = store
        .create_session(Uuid::new_v4(), &token_hash(1), at(100))
        .await;
    let short = store.create_session(alice.user_id, b"short", at(100)).await;
    store
        .create_session(alice.user_id, &token_hash(3), at(100))
        .await?;
    let reused = store
        .create_session(alice.user_id, &token_hash(3), at(100))
        .await;

    assert!(matches!(nobody, Err(StoreError::NotFound)), "{nobody:?}");
    assert!(matches!(short, Err(StoreError::Database(_))), "{short:?}");
    assert!(matches!(reused, Err(StoreError::Database(_))), "{reused:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn deleting_a_user_deletes_their_sessions(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    store
        .create_session(alice.user_id, &token_hash(1), at(100))
        .await?;

    sqlx::query("delete from app_user where user_id = $1")
        .bind(alice.user_id)
        .execute(store.pool())
        .await?;

    let left: i64 = sqlx::query_scalar("select count(*) from session")
        .fetch_one(store.pool())
        .await?;
    assert_eq!(left, 0);
    Ok(())
}

// ---- games -------------------------------------------------------------------------------

#[sqlx::test(migrations = "./migrations")]
async fn create_and_load_a_game(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let game = NewGame {
        white_id: Some(alice.user_id),
        color_choice: ColorChoice::White,
        clock: Some(TimeControl {
            initial_ms: 300_000,
            increment_ms: 2_000,
        }),
        rated: true,
        start_position: Some("some position".into()),
        dice_commitment: Some("ab".repeat(32)),
        dice_seed: Some(vec![7; 16]),
        ..new_game(alice.user_id, Variant::Drehs)
    };

    store.create_game(&game).await?;
    let loaded = store.load_game(game.game_id).await?.expect("the game");

    assert_eq!(loaded.game_id, game.game_id);
    assert_eq!(loaded.variant, Variant::Drehs);
    assert_eq!(loaded.creator_id, alice.user_id);
    assert_eq!(loaded.white_id, Some(alice.user_id));
    assert_eq!(loaded.white_name.as_deref(), Some("Alice"));
    assert_eq!(
        (loaded.black_id, loaded.black_name.as_deref()),
        (None, None)
    );
    assert_eq!(loaded.color_choice, ColorChoice::White);
    assert_eq!(loaded.clock, game.clock);
    assert!(loaded.rated);
    assert_eq!(loaded.status, GameStatus::Waiting);
    assert_eq!(loaded.outcome, None);
    assert_eq!(loaded.start_position, game.start_position);
    assert_eq!(loaded.dice_commitment, game.dice_commitment);
    assert_eq!(loaded.dice_seed, game.dice_seed);
    assert_eq!((loaded.started_at, loaded.ended_at), (None, None));
    assert!(loaded.actions.is_empty());
    assert_eq!(store.load_game(Uuid::new_v4()).await?, None);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn dice_seed_is_never_serialized(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let game = NewGame {
        dice_commitment: Some("cd".repeat(32)),
        dice_seed: Some(vec![1, 2, 3]),
        ..new_game(alice.user_id, Variant::Drehs)
    };
    store.create_game(&game).await?;
    let loaded = store.load_game(game.game_id).await?.expect("the game");

    let json = serde_json::to_value(&loaded).unwrap_or_default();

    assert!(json.get("dice_seed").is_none(), "{json}");
    assert_eq!(
        loaded.revealed_dice_seed(),
        None,
        "secret while the game runs"
    );
    assert_eq!(json["dice_commitment"], "cd".repeat(32));
    assert_eq!(json["status"], "waiting");
    assert_eq!(json["variant"], "drehs");

    store
        .finish_game(game.game_id, &Outcome::draw(EndReason::Aborted), at(1))
        .await?;
    let over = store.load_game(game.game_id).await?.expect("the game");
    assert_eq!(over.revealed_dice_seed(), Some(&[1_u8, 2, 3][..]));
    let json = serde_json::to_value(&over).unwrap_or_default();
    assert!(
        json.get("dice_seed").is_none(),
        "the web layer decides: {json}"
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn create_game_checks_players_and_settings(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;

    let unknown_creator = store
        .create_game(&new_game(Uuid::new_v4(), Variant::Chad))
        .await;
    let unknown_black = store
        .create_game(&NewGame {
            black_id: Some(Uuid::new_v4()),
            ..new_game(alice.user_id, Variant::Chad)
        })
        .await;
    // (A negative clock, which the table's check constraint refuses, is not even a
    // `TimeControl`: its milliseconds are unsigned.)
    let uncommitted_seed = store
        .create_game(&NewGame {
            dice_seed: Some(vec![1]),
            ..new_game(alice.user_id, Variant::Drehs)
        })
        .await;

    assert!(matches!(unknown_creator, Err(StoreError::NotFound)));
    assert!(matches!(unknown_black, Err(StoreError::NotFound)));
    assert!(matches!(uncommitted_seed, Err(StoreError::Database(_))));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn start_a_waiting_game(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game = new_game(alice.user_id, Variant::Suicide);
    store.create_game(&game).await?;
    let updated_before: DateTime<Utc> =
        sqlx::query_scalar("select updated_at from game where game_id = $1")
            .bind(game.game_id)
            .fetch_one(store.pool())
            .await?;

    store
        .start_game(game.game_id, bob.user_id, alice.user_id, at(5))
        .await?;

    let loaded = store.load_game(game.game_id).await?.expect("the game");
    assert_eq!(loaded.status, GameStatus::Active);
    assert_eq!(loaded.white_id, Some(bob.user_id));
    assert_eq!(loaded.black_id, Some(alice.user_id));
    assert_eq!(loaded.white_name.as_deref(), Some("Bob"));
    assert_eq!(loaded.black_name.as_deref(), Some("Alice"));
    assert_eq!(loaded.started_at, Some(at(5)));
    let updated_after: DateTime<Utc> =
        sqlx::query_scalar("select updated_at from game where game_id = $1")
            .bind(game.game_id)
            .fetch_one(store.pool())
            .await?;
    assert!(
        updated_after > updated_before,
        "the trigger bumps updated_at"
    );

    // Only a waiting game can start.
    let again = store
        .start_game(game.game_id, bob.user_id, alice.user_id, at(6))
        .await;
    let unknown = store
        .start_game(Uuid::new_v4(), bob.user_id, alice.user_id, at(6))
        .await;
    assert!(matches!(again, Err(StoreError::NotFound)), "{again:?}");
    assert!(matches!(unknown, Err(StoreError::NotFound)), "{unknown:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn finish_with_every_kind_of_result(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let cases = [
        (
            Outcome::win(Color::White, EndReason::Checkmate),
            GameStatus::Finished,
            "1-0",
        ),
        (
            Outcome::win(Color::Black, EndReason::Timeout),
            GameStatus::Finished,
            "0-1",
        ),
        (
            Outcome::draw(EndReason::Agreement),
            GameStatus::Finished,
            "1/2-1/2",
        ),
        (Outcome::draw(EndReason::Aborted), GameStatus::Aborted, "*"),
    ];

    for (outcome, status, result) in cases {
        let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Chazz).await;

        store.finish_game(game_id, &outcome, at(60)).await?;

        let loaded = store.load_game(game_id).await?.expect("the game");
        assert_eq!(loaded.status, status, "{outcome:?}");
        assert_eq!(loaded.outcome, Some(outcome));
        assert_eq!(loaded.ended_at, Some(at(60)));
        let (stored_result, stored_reason): (String, String) =
            sqlx::query_as("select result, end_reason from game where game_id = $1")
                .bind(game_id)
                .fetch_one(store.pool())
                .await?;
        assert_eq!(stored_result, result);
        assert_eq!(stored_reason, outcome.reason.as_str());

        // Over is over.
        let again = store.finish_game(game_id, &outcome, at(61)).await;
        assert!(matches!(again, Err(StoreError::NotFound)), "{again:?}");
    }
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_waiting_game_can_be_aborted_but_not_finished(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let aborted = new_game(alice.user_id, Variant::Duel);
    let won = new_game(alice.user_id, Variant::Duel);
    store.create_game(&aborted).await?;
    store.create_game(&won).await?;

    store
        .finish_game(aborted.game_id, &Outcome::draw(EndReason::Aborted), at(1))
        .await?;
    let finish_unstarted = store
        .finish_game(
            won.game_id,
            &Outcome::win(Color::White, EndReason::Resignation),
            at(1),
        )
        .await;
    let unknown = store
        .finish_game(Uuid::new_v4(), &Outcome::draw(EndReason::Aborted), at(1))
        .await;

    let loaded = store.load_game(aborted.game_id).await?.expect("the game");
    assert_eq!(loaded.status, GameStatus::Aborted);
    assert_eq!(loaded.outcome, Some(Outcome::draw(EndReason::Aborted)));
    assert!(
        matches!(finish_unstarted, Err(StoreError::Database(_))),
        "{finish_unstarted:?}"
    );
    assert!(matches!(unknown, Err(StoreError::NotFound)), "{unknown:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn load_returns_actions_in_ply_order(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Drehs).await;
    let roll_record = serde_json::json!({"attack": [6, 2], "defence": [1]});
    let rolled = NewAction {
        white_ms: Some(299_000),
        black_ms: Some(300_000),
        rolls: Some(JsonText::of(&roll_record).expect("JSON text")),
        ..action(game_id, 1)
    };

    // Stored out of order, in two batches.
    let first = store
        .append_actions(&[action(game_id, 3), rolled.clone()])
        .await?;
    let second = store.append_actions(&[action(game_id, 2)]).await?;
    assert!(first.iter().chain(&second).all(Result::is_ok));

    let loaded = store.load_game(game_id).await?.expect("the game");
    assert_eq!(plies(&loaded.actions), [1, 2, 3]);
    let ply1 = &loaded.actions[0];
    assert_eq!((ply1.machine.as_str(), ply1.human.as_str()), ("m1", "h1"));
    assert_eq!(
        (ply1.white_ms, ply1.black_ms),
        (Some(299_000), Some(300_000))
    );
    assert_eq!(ply1.rolls, Some(roll_record));
    assert_eq!(loaded.actions[1].rolls, None);
    assert_eq!(loaded.actions[1].white_ms, None);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn running_games_are_resumed_with_their_actions_and_count_the_restart(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let waiting = new_game(alice.user_id, Variant::Chad);
    store.create_game(&waiting).await?;
    let clocked = NewGame {
        clock: Some(TimeControl {
            initial_ms: 60_000,
            increment_ms: 0,
        }),
        ..new_game(alice.user_id, Variant::Suicide)
    };
    store.create_game(&clocked).await?;
    store
        .start_game(clocked.game_id, alice.user_id, bob.user_id, at(10))
        .await?;
    let opening = started_game(&store, bob.user_id, alice.user_id, Variant::Duel).await;
    let unclocked = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let finished = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    let aborted = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    set_created_at(&store, waiting.game_id, at(1)).await;
    set_created_at(&store, clocked.game_id, at(2)).await;
    set_created_at(&store, opening, at(3)).await;
    store
        .append_actions(&[
            action(clocked.game_id, 2),
            action(finished, 1),
            action(clocked.game_id, 1),
            action(opening, 1),
            action(unclocked, 1),
            action(unclocked, 2),
        ])
        .await?;
    store
        .finish_game(finished, &Outcome::draw(EndReason::Repetition), at(3))
        .await?;
    store
        .finish_game(aborted, &Outcome::draw(EndReason::Aborted), at(3))
        .await?;

    let games = store.resume_running_games().await?;

    // The open challenge and the game without a clock past its first moves hibernate.
    let ids: Vec<Uuid> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(ids, [clocked.game_id, opening], "oldest first");
    assert_eq!(games[0].status, GameStatus::Active);
    assert_eq!(plies(&games[0].actions), [1, 2]);
    assert_eq!(games[0].white_name.as_deref(), Some("Alice"));
    assert_eq!(plies(&games[1].actions), [1]);
    assert_eq!([games[0].restarts, games[1].restarts], [1, 1]);

    let again = store.resume_running_games().await?;
    assert_eq!([again[0].restarts, again[1].restarts], [2, 2]);
    for (game, restarts) in [(finished, 0), (waiting.game_id, 0), (unclocked, 0)] {
        let record = store.load_game(game).await?;
        assert_eq!(record.map(|g| g.restarts), Some(restarts), "{game}");
    }
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_hibernated_game_wakes_counted_as_restarted_and_a_finished_one_does_not(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let waiting = new_game(alice.user_id, Variant::Chad);
    store.create_game(&waiting).await?;
    let active = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    store
        .append_actions(&[action(active, 1), action(active, 2)])
        .await?;
    let finished = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    store
        .finish_game(finished, &Outcome::draw(EndReason::Agreement), at(3))
        .await?;

    let woken = store
        .wake_game(waiting.game_id)
        .await?
        .expect("the challenge");
    // A waiting game has no seats yet, but its creator's name comes with it.
    assert_eq!(
        (woken.status, woken.creator_name.as_str(), woken.restarts),
        (GameStatus::Waiting, "Alice", 1)
    );
    let woken = store.wake_game(active).await?.expect("the game");
    assert_eq!((plies(&woken.actions), woken.restarts), (vec![1, 2], 1));
    let again = store.wake_game(active).await?.expect("the game");
    assert_eq!(again.restarts, 2, "every life of the game starts a new log");

    assert_eq!(store.wake_game(finished).await?, None);
    assert_eq!(store.wake_game(Uuid::new_v4()).await?, None);
    let finished_record = store.load_game(finished).await?;
    assert_eq!(finished_record.map(|g| g.restarts), Some(0));

    let mut players = store.unfinished_game_players().await?;
    players.sort_by_key(|g| g.status == GameStatus::Active);
    assert_eq!(
        players,
        [
            UnfinishedGame {
                game_id: waiting.game_id,
                status: GameStatus::Waiting,
                creator_id: alice.user_id,
                white_id: None,
                black_id: None,
            },
            UnfinishedGame {
                game_id: active,
                status: GameStatus::Active,
                creator_id: alice.user_id,
                white_id: Some(alice.user_id),
                black_id: Some(bob.user_id),
            },
        ]
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn overdue_games_are_expired_challenges_and_idle_games_without_a_clock(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let old_challenge = new_game(alice.user_id, Variant::Chad);
    let new_challenge = new_game(alice.user_id, Variant::Chad);
    store.create_game(&old_challenge).await?;
    store.create_game(&new_challenge).await?;
    set_created_at(&store, old_challenge.game_id, at(1)).await;
    set_created_at(&store, new_challenge.game_id, at(100)).await;
    let idle = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let busy = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let opening = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    set_created_at(&store, idle, at(2)).await;
    store
        .append_actions(&[
            action(idle, 1),
            action(idle, 2),
            action(busy, 1),
            action(busy, 2),
            action(busy, 3),
            action(opening, 1),
        ])
        .await?;
    set_action_times(&store, idle, 1..3, at(10)).await;
    // Only `busy`'s last action is recent.
    set_action_times(&store, busy, 1..3, at(10)).await;
    set_action_times(&store, busy, 3..4, at(100)).await;
    set_action_times(&store, opening, 1..2, at(10)).await;

    let overdue = store.overdue_unfinished_games(at(50), at(50), 10).await?;
    assert_eq!(overdue, [old_challenge.game_id, idle], "oldest first");
    let first = store.overdue_unfinished_games(at(50), at(50), 1).await?;
    assert_eq!(first, [old_challenge.game_id], "at most the limit");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn results_are_counted_and_filtered_from_each_players_side(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    // Alice: wins as White and as Black, loses once, draws once, in Suicide; one Chad win;
    // one Suicide game still running and one aborted, which count for nothing.
    let won_as_white = started_game(&store, a, b, Variant::Suicide).await;
    let won_as_black = started_game(&store, b, a, Variant::Suicide).await;
    let lost = started_game(&store, a, b, Variant::Suicide).await;
    let drawn = started_game(&store, b, a, Variant::Suicide).await;
    let chad = started_game(&store, b, a, Variant::Chad).await;
    started_game(&store, a, b, Variant::Suicide).await;
    let aborted = started_game(&store, a, b, Variant::Suicide).await;
    let endings = [
        (
            won_as_white,
            Outcome::win(Color::White, EndReason::Resignation),
        ),
        (won_as_black, Outcome::win(Color::Black, EndReason::Timeout)),
        (lost, Outcome::win(Color::Black, EndReason::Resignation)),
        (drawn, Outcome::draw(EndReason::Agreement)),
        (chad, Outcome::win(Color::Black, EndReason::Resignation)),
        (aborted, Outcome::draw(EndReason::Aborted)),
    ];
    for (game, outcome) in endings {
        store.finish_game(game, &outcome, at(20)).await?;
    }

    let counted = |v: Variant, finished, wins, draws, losses| VariantResults {
        variant: v,
        finished,
        wins,
        draws,
        losses,
    };
    assert_eq!(
        store.user_results("alice").await?,
        [
            counted(Variant::Chad, 1, 1, 0, 0),
            counted(Variant::Suicide, 4, 2, 1, 1)
        ]
    );
    assert_eq!(
        store.user_results("Bob").await?,
        [
            counted(Variant::Chad, 1, 0, 0, 1),
            counted(Variant::Suicide, 4, 1, 1, 2)
        ]
    );
    assert!(store.user_results("nobody").await?.is_empty());

    let ids = |games: Vec<GameSummary>| {
        let mut ids: Vec<Uuid> = games.into_iter().map(|g| g.game_id).collect();
        ids.sort();
        ids
    };
    let sorted = |mut v: Vec<Uuid>| {
        v.sort();
        v
    };
    let alice_wins = store
        .user_games("alice", None, Some(PlayerResult::Win), 10, 0)
        .await?;
    assert_eq!(
        ids(alice_wins),
        sorted(vec![won_as_white, won_as_black, chad])
    );
    let bob_wins = store
        .user_games(
            "bob",
            Some(Variant::Suicide),
            Some(PlayerResult::Win),
            10,
            0,
        )
        .await?;
    assert_eq!(ids(bob_wins), [lost]);
    let alice_losses = store
        .user_games("alice", None, Some(PlayerResult::Loss), 10, 0)
        .await?;
    assert_eq!(ids(alice_losses), [lost]);
    let draws = store
        .user_games("alice", None, Some(PlayerResult::Draw), 10, 0)
        .await?;
    assert_eq!(ids(draws), [drawn]);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn user_games_newest_first_with_filter_and_paging(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let carol = registered(&store, "Carol").await;
    // g1 (oldest) … g3 (newest) are Alice's; g4 is not; g5 is only a seek.
    let g1 = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let g2 = started_game(&store, bob.user_id, alice.user_id, Variant::Chazz).await;
    let g3 = started_game(&store, alice.user_id, carol.user_id, Variant::Suicide).await;
    let g4 = started_game(&store, bob.user_id, carol.user_id, Variant::Suicide).await;
    let seek = NewGame {
        white_id: Some(alice.user_id),
        color_choice: ColorChoice::White,
        ..new_game(alice.user_id, Variant::Suicide)
    };
    store.create_game(&seek).await?;
    for (game_id, created) in [(g1, 1), (g2, 2), (g3, 3), (g4, 4), (seek.game_id, 5)] {
        set_created_at(&store, game_id, at(created)).await;
    }
    store
        .finish_game(g1, &Outcome::win(Color::Black, EndReason::NoPieces), at(9))
        .await?;
    store
        .finish_game(g3, &Outcome::draw(EndReason::Aborted), at(9))
        .await?;
    store
        .append_actions(&[action(g1, 1), action(g1, 2), action(g2, 1)])
        .await?;

    let all = store.user_games("aLiCe", None, None, 10, 0).await?;
    let suicide = store
        .user_games("alice", Some(Variant::Suicide), None, 10, 0)
        .await?;
    let page1 = store.user_games("alice", None, None, 2, 0).await?;
    let page2 = store.user_games("alice", None, None, 2, 2).await?;
    let past_the_end = store.user_games("alice", None, None, 2, 4).await?;
    let nobody = store.user_games("nobody", None, None, 10, 0).await?;

    let ids = |games: &[oddboard::store::GameSummary]| -> Vec<Uuid> {
        games.iter().map(|g| g.game_id).collect()
    };
    assert_eq!(ids(&all), [g3, g2, g1]);
    assert_eq!(ids(&suicide), [g3, g1]);
    assert_eq!(ids(&page1), [g3, g2]);
    assert_eq!(ids(&page2), [g1]);
    assert!(past_the_end.is_empty());
    assert!(nobody.is_empty());

    let oldest = &all[2];
    assert_eq!(oldest.variant, Variant::Suicide);
    assert_eq!(oldest.white_name.as_deref(), Some("Alice"));
    assert_eq!(oldest.black_name.as_deref(), Some("Bob"));
    assert_eq!(oldest.status, GameStatus::Finished);
    assert_eq!(
        oldest.outcome,
        Some(Outcome::win(Color::Black, EndReason::NoPieces))
    );
    assert_eq!(oldest.created_at, at(1));
    assert_eq!(oldest.ended_at, Some(at(9)));
    assert_eq!(oldest.action_count, 2);
    assert_eq!(all[1].status, GameStatus::Active);
    assert_eq!(all[1].action_count, 1);
    assert_eq!(all[0].status, GameStatus::Aborted);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn user_games_break_ties_by_game_id(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Duel).await;
        set_created_at(&store, game_id, at(1)).await;
        ids.push(game_id);
    }
    ids.sort_unstable_by(|a, b| b.cmp(a));

    let first_two = store.user_games("bob", None, None, 2, 0).await?;
    let last = store.user_games("bob", None, None, 2, 2).await?;

    let listed: Vec<Uuid> = first_two.iter().chain(&last).map(|g| g.game_id).collect();
    assert_eq!(listed, ids, "stable order across pages");
    Ok(())
}

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

/// Every kind of change, to different games, in one batch: one statement commits them all.
#[sqlx::test(migrations = "./migrations")]
async fn one_batch_creates_starts_plays_and_ends_games(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let (a, b) = (alice.user_id, bob.user_id);
    let created = NewGame {
        clock: Some(TimeControl {
            initial_ms: 60_000,
            increment_ms: 1_000,
        }),
        dice_commitment: Some("c0ffee".into()),
        dice_seed: Some(vec![7; 32]),
        start_position: Some("8/8/8/8/8/8/8/8 w - - 0 1".into()),
        ..new_game(a, Variant::Drehs)
    };
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
            Variant::Drehs,
            created.clock,
            created.start_position,
            created.dice_commitment,
            created.dice_seed
        )
    );
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

// ---- connecting --------------------------------------------------------------------------

/// `DATABASE_URL` without its database name, e.g. `postgres://postgres@localhost:5432`.
fn server_url() -> String {
    let url = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@localhost:5432/postgres".into());
    match url.rsplit_once('/') {
        Some((server, _database)) if server.contains("//") && !server.ends_with('/') => {
            server.to_string()
        }
        _ => url,
    }
}

/// A database name nobody else uses.
fn scratch_database_name(purpose: &str) -> String {
    format!("oddboard_{purpose}_{}", Uuid::new_v4().simple())
}

async fn drop_database(name: &str) -> Result<(), StoreError> {
    let mut admin = PgConnection::connect(&format!("{}/postgres", server_url())).await?;
    sqlx::query(&format!("drop database \"{name}\" with (force)"))
        .execute(&mut admin)
        .await?;
    admin.close().await?;
    Ok(())
}

#[tokio::test]
async fn connect_creates_a_missing_database_and_migrates_it() -> Result<(), StoreError> {
    let name = scratch_database_name("connect");
    let url = format!("{}/{name}", server_url());

    let store = Store::connect(&url).await?;
    let users: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(store.pool())
        .await?;
    store.ping().await?;
    store.pool().close().await;
    // A second connect finds the database and the migrations already there.
    let again = Store::connect(&url).await?;
    again.pool().close().await;

    drop_database(&name).await?;
    assert_eq!(users, 0);
    Ok(())
}

#[tokio::test]
async fn connect_to_a_closed_port_says_what_to_do() -> Result<(), StoreError> {
    // Bind then release a port, so nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("its address").port();
    drop(listener);

    let result = Store::connect(&format!("postgres://someone:secret@127.0.0.1:{port}/x")).await;

    let Err(err @ StoreError::Unreachable { .. }) = result else {
        panic!("expected Unreachable, got {result:?}");
    };
    let message = err.to_string();
    assert!(!message.contains('\n'), "{message}");
    assert!(!message.contains("secret"), "{message}");
    assert!(
        message.contains(&format!("postgres://someone@127.0.0.1:{port}/x")),
        "{message}"
    );
    assert!(message.contains("DATABASE_URL"), "{message}");
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

// ---- lobby: ratings, settings, noplay, colour history --------------------------------------

fn values(rating: f64) -> oddboard::store::RatingValues {
    oddboard::store::RatingValues {
        rating,
        deviation: 350.0,
        volatility: 0.06,
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn rating_a_game_updates_both_players_once(pool: PgPool) -> Result<(), StoreError> {
    use oddboard::store::{GameResult, RatedGame};
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Chazz).await;
    let result = GameResult {
        game_id,
        variant: Variant::Chazz,
        white_id: alice.user_id,
        black_id: bob.user_id,
        winner: Some(Color::Black),
    };
    let rated = store
        .rate_game(&result, values(1500.0), |w, b| {
            assert_eq!(
                (w.rating, b.rating),
                (1500.0, 1500.0),
                "new players start at initial"
            );
            (values(1400.0), values(1600.0))
        })
        .await?;
    assert!(matches!(rated, RatedGame::Rated { .. }), "{rated:?}");
    // The same game again changes nothing.
    let again = store
        .rate_game(&result, values(1500.0), |_, _| (values(0.5), values(0.5)))
        .await?;
    assert_eq!(again, RatedGame::AlreadyRated);
    let alice_ratings = store.ratings(alice.user_id).await?;
    assert_eq!(alice_ratings.len(), 1);
    assert_eq!(alice_ratings[0].variant, Variant::Chazz);
    assert_eq!(alice_ratings[0].values.rating, 1400.0);
    assert_eq!((alice_ratings[0].games, alice_ratings[0].losses), (1, 1));
    let bob_ratings = store.ratings(bob.user_id).await?;
    assert_eq!((bob_ratings[0].games, bob_ratings[0].wins), (1, 1));
    let history = store
        .rating_history(bob.user_id, Some(Variant::Chazz))
        .await?;
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].game_id, game_id);
    assert_eq!(history[0].values.rating, 1600.0);
    assert!(store
        .rating_history(bob.user_id, Some(Variant::Duel))
        .await?
        .is_empty());
    // A draw counts as one.
    let second = started_game(&store, bob.user_id, alice.user_id, Variant::Chazz).await;
    store
        .rate_game(
            &GameResult {
                game_id: second,
                white_id: bob.user_id,
                black_id: alice.user_id,
                winner: None,
                ..result
            },
            values(1500.0),
            |w, b| {
                assert_eq!((w.rating, b.rating), (1600.0, 1400.0));
                (w, b)
            },
        )
        .await?;
    let alice_ratings = store.ratings(alice.user_id).await?;
    assert_eq!((alice_ratings[0].games, alice_ratings[0].draws), (2, 1));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn guests_are_never_rated(pool: PgPool) -> Result<(), StoreError> {
    use oddboard::store::{GameResult, RatedGame};
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let guest = store.create_user("Guest0001", None, true).await?;
    let game_id = started_game(&store, alice.user_id, guest.user_id, Variant::Suicide).await;
    let rated = store
        .rate_game(
            &GameResult {
                game_id,
                variant: Variant::Suicide,
                white_id: alice.user_id,
                black_id: guest.user_id,
                winner: Some(Color::White),
            },
            values(1500.0),
            |w, b| (w, b),
        )
        .await?;
    assert_eq!(rated, RatedGame::Guest);
    assert!(store.ratings(alice.user_id).await?.is_empty());
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn settings_round_trip_with_defaults(pool: PgPool) -> Result<(), StoreError> {
    use oddboard::store::UserSettings;
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    assert_eq!(
        store.user_settings(alice.user_id).await?,
        UserSettings::default()
    );
    let settings = UserSettings {
        time_minutes: 3,
        increment_seconds: 2,
        variant: Variant::Duel,
        formula: "f1 && rated".into(),
        f: vec!["rating > 1400".into(), String::new()],
    };
    store.save_user_settings(alice.user_id, &settings).await?;
    assert_eq!(store.user_settings(alice.user_id).await?, settings);
    let bad = UserSettings {
        time_minutes: 999,
        ..settings.clone()
    };
    assert!(store.save_user_settings(alice.user_id, &bad).await.is_err());
    assert!(matches!(
        store.save_user_settings(Uuid::new_v4(), &settings).await,
        Err(StoreError::NotFound)
    ));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn noplay_lists_and_colour_history(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    assert!(store.set_noplay(alice.user_id, bob.user_id, true).await?);
    assert!(!store.set_noplay(alice.user_id, bob.user_id, true).await?);
    assert_eq!(
        store.noplay_list(alice.user_id).await?,
        vec![(bob.user_id, "Bob".to_string())]
    );
    assert!(store.noplay_list(bob.user_id).await?.is_empty());
    assert!(store
        .set_noplay(alice.user_id, alice.user_id, true)
        .await
        .is_err());
    assert!(store.set_noplay(alice.user_id, bob.user_id, false).await?);
    assert!(store.noplay_list(alice.user_id).await?.is_empty());

    assert!(store.color_history(alice.user_id, 10).await?.is_empty());
    let first = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let second = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    sqlx::query("update game set started_at = $2 where game_id = $1")
        .bind(second)
        .bind(at(20))
        .execute(store.pool())
        .await?;
    assert_eq!(
        store.color_history(alice.user_id, 10).await?,
        vec![Color::Black, Color::White],
        "newest first"
    );
    assert_eq!(
        store.color_history(alice.user_id, 1).await?,
        vec![Color::Black]
    );
    let last = store.last_game_of(alice.user_id).await?.map(|g| g.game_id);
    assert_eq!(last, Some(second));
    // Aborted games are not history.
    store
        .finish_game(second, &Outcome::draw(EndReason::Aborted), at(30))
        .await?;
    assert_eq!(
        store.color_history(alice.user_id, 10).await?,
        vec![Color::White]
    );
    assert_eq!(
        store.last_game_of(alice.user_id).await?.map(|g| g.game_id),
        Some(first)
    );
    assert_eq!(store.active_games(10).await?.len(), 1);
    Ok(())
}
