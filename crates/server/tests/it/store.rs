//! The store against a real PostgreSQL: users and sessions, `Store::connect`, and the
//! helpers the other store tests share (`store_games`, `store_writer`,
//! `store_changes`, `store_lobby`).
//!
//! Each `#[sqlx::test]` gets a fresh, migrated database. Times are fixed instants
//! ([`at`]), never the wall clock, so comparisons are exact (PostgreSQL keeps microseconds).

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use chrono::{DateTime, Utc};
use oddboard::rules::{EndReason, Outcome, Variant};
use oddboard::store::{ActionRecord, ColorChoice, NewAction, NewGame, Store, StoreError, User};
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

/// A plausible argon2id PHC string; the store never looks inside it.
pub(crate) const HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";

/// A fixed instant, `seconds` after an arbitrary epoch.
pub(crate) fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap_or_default()
}

/// A SHA-256-sized token hash, distinct per `seed`.
pub(crate) fn token_hash(seed: u8) -> Vec<u8> {
    vec![seed; 32]
}

pub(crate) async fn registered(store: &Store, name: &str) -> User {
    store
        .create_user(name, Some(HASH), false)
        .await
        .unwrap_or_else(|err| panic!("create {name}: {err}"))
}

/// A waiting game without clock or dice.
pub(crate) fn new_game(creator_id: Uuid, variant: Variant) -> NewGame {
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
pub(crate) async fn started_game(
    store: &Store,
    white: Uuid,
    black: Uuid,
    variant: Variant,
) -> Uuid {
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

pub(crate) fn action(game_id: Uuid, ply: i32) -> NewAction {
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
pub(crate) async fn set_created_at(store: &Store, game_id: Uuid, created_at: DateTime<Utc>) {
    sqlx::query("update game set created_at = $2 where game_id = $1")
        .bind(game_id)
        .bind(created_at)
        .execute(store.pool())
        .await
        .unwrap_or_else(|err| panic!("{err}"));
}

/// Pins the `created_at` of a game's actions of the plies in `plies`.
pub(crate) async fn set_action_times(
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
pub(crate) async fn with_waiting_games(
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

pub(crate) async fn count_actions(store: &Store) -> i64 {
    sqlx::query_scalar("select count(*) from game_action")
        .fetch_one(store.pool())
        .await
        .unwrap_or_else(|err| panic!("{err}"))
}

pub(crate) fn plies(actions: &[ActionRecord]) -> Vec<i32> {
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

#[sqlx::test(migrations = "./migrations")]
async fn the_computer_has_one_account_per_level_without_a_password(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());

    let computers = store.computer_players().await?;

    let levels: Vec<u8> = computers.iter().map(|c| c.2).collect();
    assert_eq!(levels, (0..=8).collect::<Vec<u8>>());
    for (user_id, name, level) in &computers {
        assert_eq!(name, &format!("Computer-level-{level}"));
        assert_eq!(store.password_hash(*user_id).await?, None);
        let user = store.user_by_id(*user_id).await?;
        assert!(user.is_some_and(|u| !u.is_guest));
    }
    // The schema holds a level to one account and keeps passwords off them.
    let second = sqlx::query("insert into app_user (username, computer_level) values ('x2', 3)")
        .execute(&pool)
        .await;
    assert!(second.is_err());
    let with_password =
        sqlx::query("update app_user set password_hash = 'h' where computer_level = 1")
            .execute(&pool)
            .await;
    assert!(with_password.is_err());
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

/// Guests in every situation the purge tells apart: all created at `at(0)` but `young`.
struct Guests {
    /// Its only session expired.
    idle: User,
    /// Has a live session.
    signed_in: User,
    /// Finished a game.
    finished: User,
    /// Is in a game in play.
    playing: User,
    /// Has an open challenge.
    challenging: User,
    /// Has only an aborted game and a withdrawn challenge.
    aborted: User,
    /// Created after the purge's range.
    young: User,
}

/// Creates the [`Guests`] and backdates them.
async fn guests_of_every_kind(store: &Store) -> Result<Guests, StoreError> {
    let guest = |name: &'static str| {
        let store = store.clone();
        async move {
            store
                .create_user(name, None, true)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
        }
    };
    let guests = Guests {
        idle: guest("Guest0001").await,
        signed_in: guest("Guest0002").await,
        finished: guest("Guest0003").await,
        playing: guest("Guest0004").await,
        challenging: guest("Guest0005").await,
        aborted: guest("Guest0006").await,
        young: guest("Guest0007").await,
    };
    let old = [
        &guests.idle,
        &guests.signed_in,
        &guests.finished,
        &guests.playing,
        &guests.challenging,
        &guests.aborted,
    ];
    for (user, created_at) in old
        .into_iter()
        .map(|u| (u, at(0)))
        .chain([(&guests.young, at(200))])
    {
        sqlx::query("update app_user set created_at = $2 where user_id = $1")
            .bind(user.user_id)
            .bind(created_at)
            .execute(store.pool())
            .await?;
    }
    Ok(guests)
}

/// The games a purged guest takes along and the one a kept guest keeps.
struct GuestGames {
    won: Uuid,
    against_alice: Uuid,
    withdrawn: Uuid,
}

/// Gives each of the [`Guests`] its sessions and games, against `alice`.
async fn give_guests_their_pasts(
    store: &Store,
    guests: &Guests,
    alice: &User,
) -> Result<GuestGames, StoreError> {
    store
        .create_session(guests.signed_in.user_id, &token_hash(1), at(1_000))
        .await?;
    store
        .create_session(guests.idle.user_id, &token_hash(2), at(50))
        .await?;
    let won = started_game(
        store,
        guests.finished.user_id,
        alice.user_id,
        Variant::Suicide,
    )
    .await;
    store
        .finish_game(won, &Outcome::draw(EndReason::Agreement), at(3))
        .await?;
    started_game(
        store,
        alice.user_id,
        guests.playing.user_id,
        Variant::Suicide,
    )
    .await;
    store
        .create_game(&new_game(guests.challenging.user_id, Variant::Chad))
        .await?;
    // An aborted game and an aborted open challenge, which go with the guest.
    let against_alice =
        started_game(store, guests.aborted.user_id, alice.user_id, Variant::Duel).await;
    let withdrawn = new_game(guests.aborted.user_id, Variant::Chad);
    store.create_game(&withdrawn).await?;
    store.append_actions(&[action(against_alice, 1)]).await?;
    for game in [against_alice, withdrawn.game_id] {
        store
            .finish_game(game, &Outcome::draw(EndReason::Aborted), at(3))
            .await?;
    }
    Ok(GuestGames {
        won,
        against_alice,
        withdrawn: withdrawn.game_id,
    })
}

#[sqlx::test(migrations = "./migrations")]
async fn guests_that_cannot_come_back_and_never_finished_a_game_are_purged(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let guests = guests_of_every_kind(&store).await?;
    let games = give_guests_their_pasts(&store, &guests, &alice).await?;

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
        (&guests.idle, false),
        (&guests.aborted, false),
        (&guests.signed_in, true),
        (&guests.finished, true),
        (&guests.playing, true),
        (&guests.challenging, true),
        (&guests.young, true),
        (&alice, true),
    ] {
        let found = store.user_by_id(user.user_id).await?.is_some();
        assert_eq!(found, kept, "{}", user.username);
    }
    assert_eq!(store.load_game(games.against_alice).await?, None);
    assert_eq!(store.load_game(games.withdrawn).await?, None);
    assert!(store.load_game(games.won).await?.is_some());
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

// ---- connecting --------------------------------------------------------------------------

/// `DATABASE_URL` without its database name, e.g. `postgres://postgres@localhost:5432`.
pub(crate) fn server_url() -> String {
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
pub(crate) fn scratch_database_name(purpose: &str) -> String {
    format!("oddboard_{purpose}_{}", Uuid::new_v4().simple())
}

pub(crate) async fn drop_database(name: &str) -> Result<(), StoreError> {
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
    // Only the computer's accounts, one per level (migration 0011).
    assert_eq!(users, 9);
    Ok(())
}

/// Several nodes starting at once on a database nobody has made yet: each makes it or finds
/// it made (PostgreSQL answers a racing CREATE DATABASE with either of two errors), and all
/// start.
#[tokio::test]
async fn nodes_connecting_at_once_to_a_missing_database_all_start() -> Result<(), StoreError> {
    let name = scratch_database_name("race");
    let url = format!("{}/{name}", server_url());
    let connects = (0..4).map(|_| Store::connect(&url));
    let stores = futures_util::future::join_all(connects).await;
    let mut failures = Vec::new();
    for store in stores {
        match store {
            Ok(store) => store.pool().close().await,
            Err(e) => failures.push(e.to_string()),
        }
    }
    drop_database(&name).await?;
    assert!(failures.is_empty(), "{failures:?}");
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
