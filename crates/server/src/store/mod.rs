//! Persistence: the only module that contains SQL. It owns the PostgreSQL pools, the schema
//! (`migrations/`), and the translation between rows and the types the other layers use.
//!
//! - [`users`]: accounts, password hashes and login sessions.
//! - [`admin`]: what `oddboard admin` changes (disabled accounts, aborted games, the session
//!   list), each change with the notice that tells running servers.
//! - [`games`]: games, their seats, results and actions.
//! - [`login_failures`]: the login back-off per username, on the nodes of a cluster.
//! - [`adjustments`]: takebacks (which delete the actions they take back) and gifts of more
//!   time.
//! - [`chat`]: games' chat lines.
//! - [`lobby`]: ratings and their history, lobby settings, noplay lists.
//! - [`leaderboard`]: each variant's highest established ratings.
//! - [`changes`]: [`GameChange`], one change to one game (created, started, an action,
//!   ended, with the ratings of a rated game's end), and the one statement that commits a
//!   batch of them.
//! - [`writer`]: [`GameWriter`], the group-commit task through which game actors commit
//!   their changes, so that a move is acknowledged only once committed without paying one
//!   fsync per move.
//! - [`health`]: [`StoreHealth`], whether PostgreSQL answers, and the store time on which
//!   game clocks run (it stands still while PostgreSQL is away).
//!
//! Queries are runtime-checked (`sqlx::query` / `query_as` with `#[derive(sqlx::FromRow)]`),
//! not the `query!` macros: the crate must build without a database or an offline `.sqlx`
//! cache (Docker, CI). In exchange, every query is exercised by a test against a real
//! PostgreSQL in `tests/it/store*.rs`.
//!
//! Depends on [`crate::rules`] only for the stable ids ([`crate::rules::Variant`],
//! [`crate::rules::Outcome`], [`crate::rules::EndReason`]), and on [`crate::play::rating`] for
//! the Glicko-2 arithmetic it applies as a rated game ends.

pub mod adjustments;
pub mod admin;
pub mod changes;
pub mod chat;
pub mod games;
pub mod health;
pub mod leaderboard;
pub mod lobby;
pub mod login_failures;
pub mod users;
pub mod writer;

pub use crate::play::record::{
    ActionRecord, AdjustmentRecord, ChatRecord, ChatRoom, ColorChoice, GameChange, GameEnd,
    GameRecord, GameStart, GameStatus, GameSummary, JsonText, LastGame, NewAction, NewChatLine,
    NewGame, NewMoreTime, NewTakeback, ParseColorChoiceError, ParseGameStatusError, PlayerResult,
    RatedSeats, RatingHistoryEntry, RatingRecord, RatingValues, TakenBackAction, TimeControl,
    UnfinishedGame, UserSettings, VariantResults,
};
pub use admin::{AccountState, AdminNotice, AdminNotices, Heard, SessionListing, ADMIN_CHANNEL};
pub use changes::rating::{GameResult, RatedGame};
pub use games::PlayersGames;
pub use health::StoreHealth;
pub use leaderboard::{LeaderboardEntry, LEADERBOARD_MAX};
pub use users::{Session, User};
pub use writer::{CommitStats, CommitStatsSnapshot, GameWriter, WriterConfig};

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgDatabaseError, PgPoolOptions};
use sqlx::{Connection, PgConnection, PgPool};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// The schema, embedded at compile time. Also usable from tests:
/// `#[sqlx::test(migrator = "oddboard::store::MIGRATOR")]`.
pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// Connections in the pool. Game actors do not hold connections (their changes go through the
/// single [`GameWriter`]), so a handful serves many games.
const MAX_CONNECTIONS: u32 = 10;

/// Connections of the writer's own pool: the group-commit writer runs one statement at a
/// time, and the second connection covers a dying one being replaced.
const WRITER_CONNECTIONS: u32 = 2;

/// The planner settings of the writer's connections ([`Store::apply_changes`]).
///
/// The writer's statements find game rows by primary key and insert rows; a sequential scan is
/// never the right plan for them. But PostgreSQL caches the generic plan of a prepared
/// statement the first few times it runs, costed on the table's size then, and keeps it until
/// the table is next analyzed. On a new database that plan scans the whole `game` table for
/// every batch; within 20 seconds of load the table holds thousands of games, and autovacuum
/// had not yet analyzed it (seen with auto_explain, docs/performance.md). Turning sequential
/// scans off on these connections only makes the cached plan use `game_pkey` from the start.
///
/// That generic plan is also forced. Left to choose, PostgreSQL costs a plan for each batch's
/// own arrays (a custom plan), and since those look cheaper than the generic plan's guess of
/// ten rows per array, it went on planning the four-part batch statement anew for every batch:
/// 2.4% of the whole machine in a Suicide profile. The generic plan is the one the store tests
/// check.
const WRITER_PLANNER_SETTINGS: [(&str, &str); 2] = [
    ("enable_seqscan", "off"),
    ("plan_cache_mode", "force_generic_plan"),
];

/// How long a query waits for a free connection before giving up.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// SQLSTATE `invalid_catalog_name`: the database named in the URL does not exist.
const INVALID_CATALOG_NAME: &str = "3D000";
/// SQLSTATE `duplicate_database`: somebody else created it between our check and our CREATE.
const DUPLICATE_DATABASE: &str = "42P04";
/// SQLSTATE `unique_violation`: what a CREATE DATABASE racing another one for the same name
/// (several nodes starting at once) may get instead, from `pg_database`'s unique index.
const UNIQUE_VIOLATION: &str = "23505";
/// SQLSTATE `undefined_table`.
const UNDEFINED_TABLE: &str = "42P01";

/// SQLSTATEs that say the database server is going away or not yet there rather than that
/// the statement is wrong: class 08 (connection exceptions) is matched by its prefix, these
/// by name: `admin_shutdown`, `crash_shutdown`, `cannot_connect_now` (starting up or
/// shutting down), `too_many_connections`.
const UNAVAILABLE_SQLSTATES: [&str; 4] = ["57P01", "57P02", "57P03", "53300"];

/// Every way the store can fail. Constraint violations that callers act on have their own
/// variants; everything else is [`StoreError::Database`].
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another account already has this username, ignoring case.
    #[error("username is already taken")]
    UsernameTaken,
    /// This game already has an action at this ply (a replayed or concurrent write).
    #[error("game {game_id} already has an action at ply {ply}")]
    DuplicatePly { game_id: Uuid, ply: i32 },
    /// The row to update (or the row a new one points at) does not exist, or is not in a
    /// state that allows the change (e.g. starting a game that is no longer waiting).
    #[error("not found")]
    NotFound,
    /// PostgreSQL refused the connection or could not be reached at all.
    #[error(
        "cannot reach PostgreSQL at {url_without_password} ({cause}): start it \
         (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) \
         or set DATABASE_URL"
    )]
    Unreachable {
        url_without_password: String,
        cause: String,
    },
    /// A stored value that the code cannot read back (e.g. an unknown variant id): the schema
    /// and the code disagree.
    #[error("column {column} holds an unexpected value `{value}`")]
    InvalidValue { column: &'static str, value: String },
    /// The batch this change was written in failed as a whole (see [`GameWriter`]), for
    /// another reason than PostgreSQL being away.
    #[error("the batch of {rows} game changes failed: {cause}")]
    BatchFailed { rows: usize, cause: String },
    /// PostgreSQL could not be reached, or the connection was lost, while this change was
    /// written (see [`GameWriter`]). It was most likely not committed; if the connection
    /// broke after the commit it was, and writing it again finds its ply taken
    /// ([`StoreError::DuplicatePly`]).
    #[error("PostgreSQL is unavailable: {cause}")]
    Unavailable { cause: String },
    /// A batch of game changes held a change to a game's row beside another change to the
    /// same game, which one statement cannot apply in order (see [`changes`]).
    #[error("the batch changes game {game_id} more than once")]
    SameGameTwice { game_id: Uuid },
    /// Another node took this game over (its `owner_epoch` moved on, see
    /// [`changes`]'s fenced path): this node may commit nothing more to it.
    #[error("game {game_id} is now run by another node")]
    Fenced { game_id: Uuid },
    /// The [`GameWriter`] task is gone, so nothing can be written through it.
    #[error("the game writer has stopped")]
    WriterStopped,
    /// Any other database error.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The migrations could not be applied.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database's schema is older than this binary's (see [`Store::connect_migrated`]).
    #[error(
        "the database is at migration {applied} and this binary needs {needed}: \
         run `oddboard migrate` first"
    )]
    SchemaBehind { applied: i64, needed: i64 },
}

impl StoreError {
    /// Maps the named constraints that callers act on to their own variants (see the
    /// migrations for the names); any other error stays [`StoreError::Database`].
    pub(crate) fn from_sqlx(err: sqlx::Error) -> StoreError {
        let constraint = err.as_database_error().and_then(|db| db.constraint());
        match constraint {
            Some("app_user_username_key") => StoreError::UsernameTaken,
            // A foreign key pointing at a user or game that does not exist.
            Some(
                "session_user_id_fkey"
                | "game_creator_id_fkey"
                | "game_white_id_fkey"
                | "game_black_id_fkey"
                | "game_action_game_id_fkey"
                | "game_chat_game_id_fkey"
                | "user_setting_user_id_fkey"
                | "noplay_user_id_fkey"
                | "noplay_blocked_id_fkey",
            ) => StoreError::NotFound,
            _ => StoreError::Database(err),
        }
    }

    /// Whether this failure is PostgreSQL being away (stopped, restarting, unreachable, the
    /// connection lost) rather than something wrong with the request: the same request may
    /// well succeed once it is back.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Unavailable { .. } | StoreError::Unreachable { .. } => true,
            StoreError::Database(err) => sqlx_error_is_unavailable(err),
            _ => false,
        }
    }
}

/// Whether a sqlx error means the database could not be reached or the connection broke.
fn sqlx_error_is_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(_) => sqlstate(err)
            .is_some_and(|code| code.starts_with("08") || UNAVAILABLE_SQLSTATES.contains(&code)),
        _ => false,
    }
}

/// The persistence layer: a cheap-to-clone handle on the PostgreSQL pool.
#[derive(Clone, Debug)]
pub struct Store {
    pool: PgPool,
    /// The connections of the group-commit writer ([`Store::apply_changes`]), with
    /// [`WRITER_PLANNER_SETTINGS`]. Same database as `pool`.
    writer_pool: PgPool,
    health: Arc<StoreHealth>,
}

impl Store {
    /// Connects, creating the database named in the URL if it does not exist (through the
    /// `postgres` maintenance database), then runs the migrations.
    ///
    /// # Errors
    /// [`StoreError::Unreachable`] if PostgreSQL cannot be reached (its message tells the
    /// user what to do), [`StoreError::Migrate`] if the schema cannot be brought up to date,
    /// [`StoreError::Database`] for anything else (bad URL, wrong password…).
    #[tracing::instrument(skip(database_url))]
    pub async fn connect(database_url: &str) -> Result<Store, StoreError> {
        let options = PgConnectOptions::from_str(database_url)?;
        ensure_database_exists(&options).await?;
        let pool = pool_options(MAX_CONNECTIONS)
            .connect_with(options.clone())
            .await
            .map_err(|err| unreachable_or(err, &options))?;
        MIGRATOR.run(&pool).await?;
        tracing::info!(url = %url_without_password(&options), "connected to PostgreSQL");
        Ok(Store::from_pool(pool))
    }

    /// Connects to a database that exists and is already migrated to this binary's schema,
    /// changing nothing: for tools run beside a server (`oddboard admin`), where a mistyped
    /// URL must not create a database nor a newer binary migrate one under a running server.
    ///
    /// # Errors
    /// As [`Store::connect`] (a missing database is [`StoreError::Database`]), and
    /// [`StoreError::SchemaBehind`] if migrations are missing.
    #[tracing::instrument(skip(database_url))]
    pub async fn connect_migrated(database_url: &str) -> Result<Store, StoreError> {
        let options = PgConnectOptions::from_str(database_url)?;
        let pool = pool_options(WRITER_CONNECTIONS)
            .connect_with(options.clone())
            .await
            .map_err(|err| unreachable_or(err, &options))?;
        let store = Store::from_pool(pool);
        let needed = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        let applied = match store.schema_version().await {
            Ok(version) => version,
            // A database no migration ever ran on has no table to read.
            Err(StoreError::Database(e)) if sqlstate(&e) == Some(UNDEFINED_TABLE) => 0,
            Err(e) => return Err(e),
        };
        if applied < needed {
            return Err(StoreError::SchemaBehind { applied, needed });
        }
        Ok(store)
    }

    /// Wraps an existing pool (tests, tools), adding the writer's own pool on the same
    /// database (connected on first use). Runs no migrations.
    pub fn from_pool(pool: PgPool) -> Store {
        let writer_options = (*pool.connect_options())
            .clone()
            .options(WRITER_PLANNER_SETTINGS);
        let writer_pool = pool_options(WRITER_CONNECTIONS).connect_lazy_with(writer_options);
        Store {
            pool,
            writer_pool,
            health: Arc::default(),
        }
    }

    /// Whether PostgreSQL answers, and the store time that game clocks run on.
    pub fn health(&self) -> &StoreHealth {
        &self.health
    }

    /// Refuses at once while an outage is under way (see [`StoreHealth`]), for callers that
    /// would otherwise wait out the pool's acquire timeout for nothing.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] during an outage.
    pub fn check_available(&self) -> Result<(), StoreError> {
        if self.health.is_available() {
            return Ok(());
        }
        Err(StoreError::Unavailable {
            cause: "PostgreSQL has not answered since the last failure".into(),
        })
    }

    /// Tells the store how a query went: a failure because PostgreSQL is away begins an
    /// outage (and starts the prober that ends it), a success ends one. Other failures say
    /// nothing about availability.
    pub fn observe<T>(&self, result: &Result<T, StoreError>) {
        match result {
            Ok(_) => self.health.mark_back(),
            Err(err) => self.observe_failure(err),
        }
    }

    /// Tells the store that a query failed with `err` (see [`Store::observe`]).
    pub fn observe_failure(&self, err: &StoreError) {
        if err.is_unavailable() {
            if self.health.mark_away() {
                tracing::error!(cause = %err, "PostgreSQL is unavailable; clocks are paused");
            }
            if self.health.start_probing() {
                tokio::spawn(probe_until_back(self.clone()));
            }
        }
    }

    /// The underlying pool, for health checks and tests.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The pool of the group-commit writer, whose connections carry the writer's planner
    /// settings; for tests.
    pub fn writer_pool(&self) -> &PgPool {
        &self.writer_pool
    }

    /// One round trip to the database, for readiness checks.
    ///
    /// # Errors
    /// The database cannot be reached or does not answer.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let result = ping_pool(&self.pool).await;
        self.observe(&result);
        result
    }
}

/// One `select 1` on `pool`, given up after [`ACQUIRE_TIMEOUT`] more than the pool's own wait
/// for a connection: a connection to a server that vanished without closing it would
/// otherwise hang the health check, and the prober that ends an outage, for good.
async fn ping_pool(pool: &PgPool) -> Result<(), StoreError> {
    let ping = sqlx::query("select 1").execute(pool);
    match tokio::time::timeout(2 * ACQUIRE_TIMEOUT, ping).await {
        Ok(answer) => answer.map(|_| ()).map_err(StoreError::from),
        Err(_) => Err(StoreError::Unavailable {
            cause: "PostgreSQL did not answer a ping".into(),
        }),
    }
}

/// The prober of an outage: pings both pools every [`health::PROBE_INTERVAL`] until both
/// answer, then ends the outage. Each failed ping also drops a connection the outage left
/// dead (sqlx closes a connection that fails its check on release), so that after a restart
/// the players' first commits do not land on them.
async fn probe_until_back(store: Store) {
    loop {
        tokio::time::sleep(health::PROBE_INTERVAL).await;
        if !store.health.is_available() {
            let writer = ping_pool(&store.writer_pool).await;
            let main = ping_pool(&store.pool).await;
            if writer.is_err() || main.is_err() {
                continue;
            }
            store.health.mark_back();
            tracing::info!("PostgreSQL answers again; clocks run");
        }
        store.health.stop_probing();
        // A failure between the last check and giving the slot back found the slot taken
        // and started no prober of its own: this one carries on.
        if store.health.is_available() || !store.health.start_probing() {
            break;
        }
    }
}

/// The settings both pools share.
fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        // No ping before every acquire: it was a whole extra round trip to PostgreSQL per
        // commit batch and per query (5% of the server's CPU under load, and as much of the
        // database's). A connection that died is found by the query that uses it, which
        // fails like any database error (an action batch answers `store_unavailable` and
        // nothing is adopted), and the pool then replaces it.
        .test_before_acquire(false)
}

/// Opens one connection to the target database; if PostgreSQL says the database does not
/// exist, creates it from the `postgres` maintenance database. A first-time `cargo run` then
/// needs nothing but a running server.
async fn ensure_database_exists(options: &PgConnectOptions) -> Result<(), StoreError> {
    let missing = match PgConnection::connect_with(options).await {
        Ok(conn) => {
            conn.close().await?;
            return Ok(());
        }
        Err(err) if sqlstate(&err) == Some(INVALID_CATALOG_NAME) => err,
        Err(err) => return Err(unreachable_or(err, options)),
    };
    let Some(name) = options.get_database() else {
        // No database in the URL means "the user's own": nothing we can create.
        return Err(StoreError::Database(missing));
    };
    let mut admin = PgConnection::connect_with(&options.clone().database("postgres"))
        .await
        .map_err(|err| unreachable_or(err, options))?;
    // Identifiers cannot be bound as parameters: quote it, doubling any embedded quote.
    let create = format!("create database \"{}\"", name.replace('"', "\"\""));
    match sqlx::query(&create).execute(&mut admin).await {
        Ok(_) => tracing::info!(database = name, "created the database"),
        Err(err) if matches!(sqlstate(&err), Some(DUPLICATE_DATABASE | UNIQUE_VIOLATION)) => {}
        Err(err) => return Err(err.into()),
    }
    admin.close().await?;
    Ok(())
}

/// The SQLSTATE code of a database error, if it is one.
fn sqlstate(err: &sqlx::Error) -> Option<&str> {
    err.as_database_error()
        .and_then(|db| db.try_downcast_ref::<PgDatabaseError>())
        .map(PgDatabaseError::code)
}

/// Turns connection-level failures (refused, unresolvable host, timeout) into
/// [`StoreError::Unreachable`]; leaves other errors (bad password, …) as they are.
fn unreachable_or(err: sqlx::Error, options: &PgConnectOptions) -> StoreError {
    match err {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::Tls(_) => {
            StoreError::Unreachable {
                url_without_password: url_without_password(options),
                cause: err.to_string(),
            }
        }
        other => StoreError::Database(other),
    }
}

/// The connection URL minus the password, for messages and logs.
fn url_without_password(options: &PgConnectOptions) -> String {
    format!(
        "postgres://{}@{}:{}/{}",
        options.get_username(),
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_without_password_drops_the_password() {
        let options = PgConnectOptions::from_str("postgres://alice:secret@db.example:6543/odd")
            .unwrap_or_else(|err| panic!("{err}"));
        let shown = url_without_password(&options);
        assert_eq!(shown, "postgres://alice@db.example:6543/odd");
        assert!(!shown.contains("secret"));
    }

    #[test]
    fn connection_failures_are_unavailability_and_refusals_are_not() {
        let io = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        for unavailable in [
            StoreError::Database(sqlx::Error::Io(io())),
            StoreError::Database(sqlx::Error::PoolTimedOut),
            StoreError::Database(sqlx::Error::PoolClosed),
            StoreError::Unavailable {
                cause: "cut".into(),
            },
            StoreError::Unreachable {
                url_without_password: "postgres://postgres@127.0.0.1:1/x".into(),
                cause: "refused".into(),
            },
        ] {
            assert!(unavailable.is_unavailable(), "{unavailable:?}");
        }
        for refused in [
            StoreError::Database(sqlx::Error::RowNotFound),
            StoreError::NotFound,
            StoreError::DuplicatePly {
                game_id: Uuid::nil(),
                ply: 1,
            },
            StoreError::BatchFailed {
                rows: 1,
                cause: "check constraint".into(),
            },
            StoreError::WriterStopped,
        ] {
            assert!(!refused.is_unavailable(), "{refused:?}");
        }
    }

    #[test]
    fn unreachable_message_is_one_line() {
        let err = StoreError::Unreachable {
            url_without_password: "postgres://postgres@127.0.0.1:1/x".into(),
            cause: "Connection refused (os error 111)".into(),
        };
        let message = err.to_string();
        assert!(!message.contains('\n'), "{message}");
        assert!(message.contains("DATABASE_URL"), "{message}");
    }
}
