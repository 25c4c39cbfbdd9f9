//! The load tool against a real server: it sets its games up, plays them through the real
//! WebSocket API (Do-Or-Die Chazz, whose forced passes the server plays itself, so the tool's
//! echo of one is refused as a duplicate and must not count as an error), replaces the games
//! that end, and reads the server's figures, with one socket per game or many games on a
//! multiplexed socket. Speeds are measured by running the tool, not here: every run below
//! ends after a number of games ([`run_until_finished`]) or checks only what holds at any
//! speed, so a slow or busy machine passes them as a fast one does.

use crate::server::{fast_settings, TestServer};
use oddboard::loadtest::{run, run_until_finished, LoadOptions};
use std::time::Duration;

/// How long a run that ends after a number of games may take at most: only a server that
/// has stopped playing comes near it (a run's games end in well under a second each).
const BACKSTOP: Duration = Duration::from_secs(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_tool_plays_games_and_reports() {
    let server = TestServer::start(fast_settings()).await;
    let games_to_finish = 4;
    let report = run_until_finished(
        LoadOptions {
            idle: 3,
            ..chazz(&server, 4, 1, None, BACKSTOP)
        },
        games_to_finish,
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors, 0, "{report}");
    assert!(report.games_finished >= games_to_finish, "{report}");
    // Every game that ended was played: at least one move each.
    assert!(report.moves >= report.games_finished, "{report}");
    assert!(
        report.p50_ms > 0.0 && report.p50_ms <= report.p99_ms,
        "{report}"
    );
    // Sampled while every game still played. The idle game's two sockets and its three
    // spectators are held throughout; a game slot whose game just ended may be between its
    // old sockets and its new ones at that instant, so the slots' sockets are not all
    // required.
    let always_held = 2 + 3;
    assert!(report.connections_held >= always_held, "{report}");
    assert!(report.server_rss_bytes.is_some_and(|b| b > 0), "{report}");
    // The server's own histogram, read before and after the run, holds the run's moves.
    let server_p50 = report.server_p50_ms_at_most;
    let server_p99 = report.server_p99_ms_at_most;
    assert!(server_p50.is_some_and(|p50| p50 > 0.0), "{report}");
    assert!(server_p50 <= server_p99, "{report}");
    assert!(server_p99 <= report.server_p999_ms_at_most, "{report}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_tool_plays_many_games_over_each_multiplexed_socket() {
    let server = TestServer::start(fast_settings()).await;
    // Twice as many games end as are set up: the pairs' replacements, made during the run,
    // are played to their ends too.
    let (games, games_to_finish) = (7, 14);
    let report = run_until_finished(chazz(&server, games, 3, None, BACKSTOP), games_to_finish)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors, 0, "{report}");
    assert!(report.games_finished >= games_to_finish, "{report}");
    assert!(report.moves >= report.games_finished, "{report}");
    assert!(
        report.p50_ms > 0.0 && report.p50_ms <= report.p99_ms,
        "{report}"
    );
    // Three pairs (3, 3 and 1 games), one socket per player: six sockets for seven games,
    // held from the set-up to the end of the run whatever their games do.
    assert_eq!(report.connections_held, 6, "{report}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_tool_paces_multiplexed_games() {
    let server = TestServer::start(fast_settings()).await;
    let (games, rate) = (6, 60.0);
    let report = run(chazz(&server, games, 3, Some(rate), Duration::from_secs(3)))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors, 0, "{report}");
    // Flat out, six games do thousands of moves a second. Paced, each game moves at most
    // once per interval (games / rate) from its first turn, which comes within its first
    // interval (a replacement game's at once), so the run's moves are at most the rate's
    // share of its time plus one for each game played: a slower machine only plays fewer.
    let games_played = games as f64 + report.games_finished as f64;
    let most = rate * report.seconds + games_played;
    assert!(report.moves as f64 <= most, "at most {most}: {report}");
    assert_eq!(report.connections_held, 4, "{report}");
    server.stop().await;
}

/// A run of Do-Or-Die Chazz against `server` lasting `duration` at most.
fn chazz(
    server: &TestServer,
    games: usize,
    games_per_socket: usize,
    rate: Option<f64>,
    duration: Duration,
) -> LoadOptions {
    LoadOptions {
        addr: server.addr.clone(),
        games,
        duration,
        rate,
        variant: "chazz".into(),
        idle: 0,
        games_per_socket,
    }
}
