//! What a game costs in memory, in memory and hibernated: the server's resident set (RSS)
//! started on a database holding no game, then on one holding `N` unfinished games without a
//! clock (each between two players of its own, `P` plies played), which hibernate and are not
//! restored at the start, and then once every one of them has been woken into a live actor.
//! Each measurement is a process of its own (this program runs itself), so one's memory does
//! not carry into the next. The figures are in `docs/performance.md`.
//!
//! ```text
//! cargo build --release --example hibernation_memory
//! target/release/examples/hibernation_memory [games N (10000)] [plies P (20)]
//! ```
//!
//! `DATABASE_URL` names the PostgreSQL server (default
//! `postgres://postgres@localhost:5432/oddboard`); the program makes a database of its own
//! there and drops it at the end.

use oddboard::app::App;
use oddboard::config::Config;
use oddboard::game::GameSettings;
use oddboard::rules::{AnyGame, Variant};
use oddboard::store::Store;
use std::process::Command;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How long the server is left to settle before its memory is read.
const SETTLE: Duration = Duration::from_secs(2);

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, database_url, games] = args.as_slice() {
        if mode == "--measure" {
            return measure(database_url, games.parse()?).await;
        }
    }
    let number = |i: usize| args.get(i).and_then(|a| a.parse::<usize>().ok());
    let games = number(0).unwrap_or(10_000);
    let plies = number(1).unwrap_or(20);
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@localhost:5432/oddboard".to_string());
    let database = format!("oddboard_memory_{}", uuid::Uuid::new_v4().simple());
    let database_url = match base.rfind('/') {
        Some(slash) => format!("{}/{database}", &base[..slash]),
        None => return Err("DATABASE_URL has no database name".into()),
    };
    let store = Store::connect(&database_url).await?;
    let empty = run_measurement(&database_url, 0)?;
    insert_games(&store, games, plies).await?;
    store.pool().close().await;
    let with_games = run_measurement(&database_url, games)?;
    drop_database(&base, &database).await?;

    let (hibernated, live) = (with_games[0], with_games[1]);
    println!("games {games}, plies {plies}");
    println!("empty server          {:>8} KiB", empty[0]);
    println!("{games} hibernated {:>8} KiB", hibernated);
    println!("{games} live       {:>8} KiB", live);
    let per_game = |more: u64, less: u64| (more as f64 - less as f64) / games.max(1) as f64;
    println!(
        "per hibernated game {:.2} KiB, per live game {:.2} KiB",
        per_game(hibernated, empty[0]),
        per_game(live, hibernated)
    );
    Ok(())
}

/// Runs this program as a server process measuring itself; returns its two readings (KiB):
/// after the start, and after waking every game.
fn run_measurement(database_url: &str, games: usize) -> Result<Vec<u64>, BoxError> {
    let output = Command::new(std::env::current_exe()?)
        .args(["--measure", database_url, &games.to_string()])
        .output()?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    let text = String::from_utf8(output.stdout)?;
    Ok(text
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect())
}

/// The server's side: starts it on the database, reads its RSS, wakes all `games`
/// unfinished games, reads it again, and prints both.
async fn measure(database_url: &str, games: usize) -> Result<(), BoxError> {
    let config = Config {
        database_url: database_url.to_string(),
        ..Config::default()
    };
    let app = App::build(&config, GameSettings::default()).await?;
    tokio::time::sleep(SETTLE).await;
    let started = rss_kib()?;
    let ids: Vec<uuid::Uuid> =
        sqlx::query_scalar("select game_id from game where status = 'active'")
            .fetch_all(app.state.store.pool())
            .await?;
    for id in ids {
        app.state.games.find(id).await?;
    }
    if app.state.games.live_count() != games {
        return Err(format!("{} games live, not {games}", app.state.games.live_count()).into());
    }
    tokio::time::sleep(SETTLE).await;
    println!("{started} {}", rss_kib()?);
    Ok(())
}

/// Inserts `games` active Suicide games without a clock, each between two new guests,
/// with the same `plies` legal actions played.
async fn insert_games(store: &Store, games: usize, plies: usize) -> Result<(), BoxError> {
    let mut game = AnyGame::start(Variant::Suicide)?;
    let mut actions: Vec<(i32, String, String)> = Vec::new();
    for ply in 1..=plies {
        let legal = game.legal_actions();
        let Some(choice) = legal.get(ply * 7 % legal.len().max(1)) else {
            break;
        };
        let played = game.play(choice)?;
        actions.push((i32::try_from(ply)?, played.machine, played.human));
    }
    let games = i64::try_from(games)?;
    sqlx::raw_sql("set synchronous_commit = off")
        .execute(store.pool())
        .await?;
    sqlx::query(
        "insert into app_user (username, is_guest) \
         select 'Guest' || n, true from generate_series(1, 2 * $1) n",
    )
    .bind(games)
    .execute(store.pool())
    .await?;
    sqlx::query(
        "with seat as (select user_id, row_number() over (order by user_id) as n from app_user) \
         insert into game (game_id, variant, creator_id, white_id, black_id, color_choice, \
                           status, started_at) \
         select gen_random_uuid(), 'suicide', w.user_id, w.user_id, b.user_id, 'white', \
                'active', now() \
         from seat w join seat b on b.n = w.n + $1 where w.n <= $1",
    )
    .bind(games)
    .execute(store.pool())
    .await?;
    for (ply, machine, human) in actions {
        sqlx::query(
            "insert into game_action (game_id, ply, machine, human) \
             select game_id, $1, $2, $3 from game",
        )
        .bind(ply)
        .bind(machine)
        .bind(human)
        .execute(store.pool())
        .await?;
    }
    Ok(())
}

async fn drop_database(base_url: &str, database: &str) -> Result<(), BoxError> {
    let admin_url = match base_url.rfind('/') {
        Some(slash) => format!("{}/postgres", &base_url[..slash]),
        None => base_url.to_string(),
    };
    let pool = sqlx::PgPool::connect(&admin_url).await?;
    sqlx::query(&format!(
        "drop database if exists \"{database}\" with (force)"
    ))
    .execute(&pool)
    .await?;
    pool.close().await;
    Ok(())
}

/// This process's resident set, from `/proc/self/status` (Linux).
fn rss_kib() -> Result<u64, BoxError> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .ok_or_else(|| "no VmRSS in /proc/self/status".into())
}
