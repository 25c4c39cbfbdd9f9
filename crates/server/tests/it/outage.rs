//! PostgreSQL going away under a live server. Each test runs a PostgreSQL instance of its own
//! ([`PrivatePostgres`]: Debian's `initdb` and `pg_ctl` in a temporary directory, on a free
//! port), so stopping it leaves the shared test cluster alone, starts a server on it, plays
//! through real sockets, stops and starts the instance mid-game, and checks what the players
//! were told against what the database holds.

use crate::server::{choose, fast_settings, wait_until, Player, TestServer, Watcher, WAIT};
use oddboard_client::Client;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Where Debian installs each PostgreSQL version's programs (`<version>/bin`).
const POSTGRESQL_LIBS: &str = "/usr/lib/postgresql";

/// A PostgreSQL instance in a temporary directory, stopped and removed when dropped, so a
/// failing test leaves nothing running.
pub(crate) struct PrivatePostgres {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    /// Root runs the programs as the `postgres` user (PostgreSQL refuses to run as root).
    as_postgres: bool,
}

impl PrivatePostgres {
    /// Creates a cluster (trust authentication, user `postgres`) and starts it on
    /// 127.0.0.1 on a free port.
    pub(crate) fn start() -> PrivatePostgres {
        let dir =
            std::env::temp_dir().join(format!("oddboard-outage-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let postgres = PrivatePostgres {
            dir,
            bin: postgresql_bin(),
            port: free_port(),
            as_postgres: running_as_root(),
        };
        if postgres.as_postgres {
            run(Command::new("chown")
                .arg("postgres:postgres")
                .arg(&postgres.dir));
        }
        let data = postgres.data();
        postgres.run_tool(
            "initdb",
            &[
                "-D",
                &data,
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        postgres.start_again();
        postgres
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// A URL of a database in this instance.
    pub(crate) fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Starts the (stopped) instance and waits until it accepts connections.
    pub(crate) fn start_again(&self) {
        // Durability across a crash of the machine is not what these tests are about.
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("postgresql.log").display().to_string();
        self.run_tool(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "start",
            ],
        );
    }

    /// A fast shutdown, as a restart by the operating system does it: open connections are
    /// cut, transactions under way are rolled back.
    pub(crate) fn stop(&self) {
        self.run_tool("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }

    fn run_tool(&self, tool: &str, args: &[&str]) {
        let program = self.bin.join(tool);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        };
        command.args(args).current_dir(&self.dir);
        run(&mut command);
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let program = self.bin.join("pg_ctl");
        let data = self.data();
        let args = ["-D", data.as_str(), "-m", "immediate", "-w", "stop"];
        // Already stopped (the test's own stop, or a failed start) is fine.
        let _ = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(program)
                .args(args)
                .output()
        } else {
            Command::new(program).args(args).output()
        };
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs a command to its end; panics with its output if it fails.
fn run(command: &mut Command) {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `bin` directory of the newest PostgreSQL installed.
fn postgresql_bin() -> PathBuf {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(POSTGRESQL_LIBS)
        .unwrap_or_else(|e| panic!("PostgreSQL is not installed in {POSTGRESQL_LIBS}: {e}"))
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("pg_ctl").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .unwrap_or_else(|| panic!("no pg_ctl under {POSTGRESQL_LIBS}"))
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("no free port: {e}"))
}

/// The status `/healthz` answers.
async fn health(addr: &str) -> u16 {
    Client::new(addr)
        .get("/healthz")
        .await
        .map_or(0, |response| response.status)
}

/// Waits (up to [`WAIT`]) until `/healthz` answers `status`.
pub(crate) async fn wait_for_health(addr: &str, status: u16) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while health(addr).await != status {
        assert!(
            tokio::time::Instant::now() < deadline,
            "/healthz never answered {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A game's stored status and its actions, `(ply, machine)` in ply order, read from the
/// instance.
async fn stored_game(url: &str, game_id: &str) -> (String, Vec<(i32, String)>) {
    let pool = sqlx::PgPool::connect(url)
        .await
        .unwrap_or_else(|e| panic!("cannot read the database back: {e}"));
    let game_id = uuid::Uuid::parse_str(game_id).unwrap_or_else(|e| panic!("{game_id}: {e}"));
    let actions =
        sqlx::query_as("select ply, machine from game_action where game_id = $1 order by ply")
            .bind(game_id)
            .fetch_all(&pool)
            .await
            .unwrap_or_else(|e| panic!("reading the actions back: {e}"));
    let status = sqlx::query_scalar("select status from game where game_id = $1")
        .bind(game_id)
        .fetch_one(&pool)
        .await
        .unwrap_or_else(|e| panic!("reading the game back: {e}"));
    pool.close().await;
    (status, actions)
}

/// Both players move in turn (by [`choose`]) until the game reaches `until_ply`; each action
/// is acknowledged to both before the next.
async fn play_to(white: &mut Watcher, black: &mut Watcher, until_ply: u64) {
    while white.ply < until_ply {
        let ply = white.ply;
        let mover = if white.is_my_turn() {
            &mut *white
        } else {
            &mut *black
        };
        assert!(mover.is_my_turn(), "nobody can move at ply {ply}");
        let action = choose(&mover.legal, ply);
        mover.act(&action).await;
        white.read_until(|w| w.ply > ply).await;
        black.read_until(|w| w.ply > ply).await;
    }
}

fn acknowledged(watcher: &Watcher) -> Vec<(i32, String)> {
    watcher
        .moves
        .iter()
        .enumerate()
        .map(|(i, machine)| (i32::try_from(i + 1).unwrap_or(i32::MAX), machine.clone()))
        .collect()
}

/// The clock reading in the last action event a watcher saw.
fn last_clock(watcher: &Watcher) -> Value {
    watcher
        .events
        .iter()
        .rev()
        .find(|event| event["kind"] == "action")
        .map(|event| event["clock"].clone())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgresql_restart_mid_game_loses_nothing_and_charges_no_time() {
    let postgres = PrivatePostgres::start();
    let database = "oddboard_outage";
    let server = TestServer::start_configured(fast_settings(), |config| {
        config.database_url = postgres.url(database);
    })
    .await;
    let mut alice: Player = server.guest().await;
    let mut bob = server.guest().await;
    // The shortest clock (no minutes, a second's increment: three seconds each and a second a
    // move): the outage below lasts longer than White's whole time, so had it been charged,
    // White's flag would fall.
    let clock = json!({ "minutes": 0, "increment": 1 });
    let game_id = alice.create_game("suicide", clock.clone(), "white").await;
    bob.accept(&game_id).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play_to(&mut white, &mut black, 4).await;
    assert_eq!(health(&server.addr).await, 200);

    postgres.stop();

    assert_eq!(health(&server.addr).await, 503);
    let action = choose(&white.legal, white.ply);
    white.act(&action).await;
    white.expect_error("store_unavailable").await;
    let refused = alice.try_create_game("suicide", clock, "white").await;
    assert_eq!(
        (refused.status, refused.json()["error"].clone()),
        (503, json!("store_unavailable")),
        "{}",
        refused.body
    );
    // Longer than White's whole time: had the outage been charged, White's flag would have
    // fallen by then (White's clock has run since the last action event, which came before the
    // stop). A fixed wait, as nothing can show that something does not happen but waiting
    // out the time it would take; its length is read from the game's own clock.
    let white_time = Duration::from_millis(last_clock(&white)["white_ms"].as_u64().unwrap_or(0));
    assert!(white_time > Duration::ZERO, "{}", last_clock(&white));
    tokio::time::sleep(white_time + Duration::from_secs(1)).await;
    assert_eq!(health(&server.addr).await, 503);

    postgres.start_again();
    wait_for_health(&server.addr, 200).await;

    // The same action goes through now: no flag fell, and the writer took it.
    white.act(&action).await;
    white.read_until(|w| w.ply == 5).await;
    black.read_until(|w| w.ply == 5).await;
    let white_ms = last_clock(&white)["white_ms"].as_u64().unwrap_or(0);
    assert!(white_ms > 0, "{}", last_clock(&white));
    play_to(&mut white, &mut black, 8).await;
    for watcher in [&white, &black] {
        assert_eq!(
            watcher.outcome, None,
            "the game ended: {:?}",
            watcher.events
        );
        assert!(
            !watcher
                .errors
                .iter()
                .any(|e| e["code"] != "store_unavailable"),
            "{:?}",
            watcher.errors
        );
    }
    assert_eq!(black.moves, white.moves);

    // Every acknowledged action is in the database, once, and nothing else is.
    let stored = stored_game(&postgres.url(database), &game_id).await;
    assert_eq!(stored, ("active".to_string(), acknowledged(&white)));
    server.stop().await;
}

/// How a game's player answers: the action was acknowledged (its event came), or refused
/// because PostgreSQL is away.
enum Answer {
    Acknowledged,
    StoreUnavailable,
}

/// What the players of all games have seen so far, for the test to wait on.
#[derive(Default)]
struct Tally {
    /// Actions acknowledged.
    acknowledged: AtomicU64,
    /// Actions refused with `store_unavailable` (each try counts).
    refused: AtomicU64,
}

/// Plays one game to `until_ply` (or its end) as both players would through an outage:
/// an action refused with `store_unavailable` is sent again a little later, until the game
/// takes it.
async fn play_through_outages(
    mut game: PlayedGame,
    until_ply: u64,
    tally: Arc<Tally>,
) -> PlayedGame {
    let PlayedGame {
        white,
        black,
        refusals,
        ..
    } = &mut game;
    while white.ply < until_ply && white.outcome.is_none() {
        let ply = white.ply;
        let (mover, other) = if white.is_my_turn() {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        assert!(mover.is_my_turn(), "nobody can move at ply {ply}");
        let action = choose(&mover.legal, ply);
        loop {
            mover.act(&action).await;
            match answer(mover, ply).await {
                Answer::Acknowledged => {
                    tally.acknowledged.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Answer::StoreUnavailable => {
                    *refusals += 1;
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                    // A player's pause before trying again, not a wait for a condition.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        other
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
    }
    game
}

/// One game as its two players saw it.
struct PlayedGame {
    game_id: String,
    white: Watcher,
    black: Watcher,
    /// Actions refused with `store_unavailable` (and sent again).
    refusals: u32,
}

/// Reads the mover's messages until its action at `ply + 1` is acknowledged or refused.
async fn answer(mover: &mut Watcher, ply: u64) -> Answer {
    loop {
        let message = mover.next().await;
        if mover.ply > ply || mover.outcome.is_some() {
            return Answer::Acknowledged;
        }
        match message["code"].as_str() {
            None => {}
            Some("store_unavailable") => return Answer::StoreUnavailable,
            // The answer to an earlier try that was stored after all (its cut-off commit was
            // read back and adopted, and the event came first).
            Some("duplicate_action") => {}
            Some(_) => panic!("refused at ply {ply}: {message}"),
        }
    }
}

/// `count` games between new guests, without a clock (what is checked is the record, not
/// the time), each four plies in.
async fn games_four_plies_in(server: &TestServer, count: usize) -> Vec<PlayedGame> {
    let mut games = Vec::new();
    for _ in 0..count {
        let mut alice = server.guest().await;
        let mut bob = server.guest().await;
        let game_id = alice.create_game("suicide", Value::Null, "white").await;
        bob.accept(&game_id).await;
        let game = PlayedGame {
            white: alice.watch(&game_id).await,
            black: bob.watch(&game_id).await,
            game_id,
            refusals: 0,
        };
        games.push(play_through_outages(game, 4, Arc::default()).await);
    }
    games
}

/// Both players saw the same game, played to its end or to `until_ply`; every acknowledged
/// action is in the database at `database_url`, once, and nothing else is; so is the end of
/// a game that was announced.
async fn assert_recorded_as_played(game: &PlayedGame, database_url: &str, until_ply: u64) {
    let PlayedGame {
        game_id,
        white,
        black,
        ..
    } = game;
    assert_eq!(black.moves, white.moves);
    assert!(
        white.ply >= until_ply || white.outcome.is_some(),
        "stopped at ply {}",
        white.ply
    );
    let status = if white.outcome.is_some() {
        "finished"
    } else {
        "active"
    };
    let stored = stored_game(database_url, game_id).await;
    assert_eq!(
        stored,
        (status.to_string(), acknowledged(white)),
        "game {game_id}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_in_play_ride_out_a_restart_without_losing_or_repeating_an_action() {
    const GAMES: usize = 6;
    // Past the end: every game is played out (72 plies with this policy), through the
    // outage and the action that ends it, committed with the result.
    const UNTIL_PLY: u64 = 1000;
    let postgres = PrivatePostgres::start();
    let database = "oddboard_outage_load";
    let server = TestServer::start_configured(fast_settings(), |config| {
        config.database_url = postgres.url(database);
    })
    .await;
    let games = games_four_plies_in(&server, GAMES).await;

    // Stopped while the games are being played (some 30 plies into the 400 or so left
    // to play), and started again once the server knows PostgreSQL is away (its health says
    // so and the clocks are paused) and the players have since had as many actions refused
    // as there are games: the outage has been felt, however long that took. (Refusals come
    // at once then; an action in the first batch after the stop hears of it only when that
    // batch gives up, after the pool's acquire timeout of 5 s.)
    let tally = Arc::new(Tally::default());
    let mut players = tokio::task::JoinSet::new();
    for game in games {
        players.spawn(play_through_outages(game, UNTIL_PLY, Arc::clone(&tally)));
    }
    wait_until("30 actions acknowledged", WAIT, async || {
        tally.acknowledged.load(Ordering::Relaxed) >= 30
    })
    .await;
    postgres.stop();
    wait_for_health(&server.addr, 503).await;
    let known_away = tally.refused.load(Ordering::Relaxed);
    wait_until("actions refused", WAIT, async || {
        tally.refused.load(Ordering::Relaxed) >= known_away + GAMES as u64
    })
    .await;
    postgres.start_again();

    let mut played = Vec::new();
    while let Some(views) = players.join_next().await {
        played.push(views.unwrap_or_else(|e| panic!("a game's players failed: {e}")));
    }
    wait_for_health(&server.addr, 200).await;
    assert_eq!(played.len(), GAMES);
    let refusals: u32 = played.iter().map(|game| game.refusals).sum();
    eprintln!("actions refused with store_unavailable and sent again: {refusals}");
    for game in &played {
        assert_recorded_as_played(game, &postgres.url(database), UNTIL_PLY).await;
    }
    server.stop().await;
}

/// Two guests in a game without a clock, after both first moves.
async fn untimed_game_after_first_moves(server: &TestServer) -> (String, Watcher, Watcher) {
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let game_id = alice.create_game("suicide", Value::Null, "white").await;
    bob.accept(&game_id).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play_to(&mut white, &mut black, 2).await;
    (game_id, white, black)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ply_stored_with_another_action_is_taken_in_and_play_goes_on() {
    let server = TestServer::start(fast_settings()).await;
    let (game_id, mut white, mut black) = untimed_game_after_first_moves(&server).await;
    // As if White's move had been committed when the connection broke, and White had then
    // chosen another move: the record holds one action for ply 3, the game none.
    let stored = choose(&white.legal, white.ply);
    let other = white
        .legal
        .iter()
        .find(|action| **action != stored)
        .cloned()
        .unwrap_or_default();
    server
        .store_action_behind_its_back(&game_id, 3, &stored)
        .await;

    white.act(&other).await;

    // The stored action is announced as played, and the other one came too late for its ply
    // (the answer and the event may come in either order).
    white.expect_error("wrong_ply").await;
    white.read_until(|w| w.ply == 3).await;
    black.read_until(|w| w.ply == 3).await;
    for watcher in [&white, &black] {
        assert_eq!(watcher.moves.get(2), Some(&stored));
    }
    // Play goes on from the record.
    play_to(&mut white, &mut black, 6).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_end_stored_without_its_answer_is_taken_in() {
    let server = TestServer::start(fast_settings()).await;
    let (game_id, mut white, mut black) = untimed_game_after_first_moves(&server).await;
    // As if a resignation by White had been committed when the connection broke: the record
    // has the game over, the game does not know it.
    server
        .execute(&format!(
            "update game set status = 'finished', result = '0-1', \
             end_reason = 'resignation', ended_at = now() where game_id = '{game_id}';"
        ))
        .await;

    // White resigns again: the end already stored is taken in and announced.
    white.send(json!({ "t": "resign" })).await;
    let resigned = json!({ "winner": "black", "reason": "resignation" });
    for watcher in [&mut white, &mut black] {
        watcher.read_until(|w| w.outcome.is_some()).await;
        assert_eq!(watcher.outcome, Some(resigned.clone()));
    }
    assert!(white.errors.is_empty(), "{:?}", white.errors);
    server.stop().await;
}
