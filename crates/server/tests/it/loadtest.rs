//! The load tool against a real server: it sets its games up, plays them through the real
//! WebSocket API (Do-Or-Die Chazz, whose forced passes the server plays itself, so the tool's
//! echo of one is refused as a duplicate and must not count as an error), replaces the games
//! that end, and reads the server's figures, with one socket per game or many games on a
//! multiplexed socket. Speeds are measured by running the tool, not here: every run below
//! ends after a number of games ([`run_until_finished`]) or checks only what holds at any
//! speed, so a slow or busy machine passes them as a fast one does. And the tool's own JSON
//! reader ([`Incoming`]) reads the server's real messages of every variant as serde_json does.

use crate::server::{choose, fast_settings, Player, TestServer, Watcher, WAIT};
use oddboard::rules::Variant;
use oddboard_client::loadtest::incoming::{Incoming, RulesPart};
use oddboard_client::loadtest::{run, run_until_finished, LoadOptions};
use oddboard_client::GameSocket;
use serde_json::{json, Value};
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
    // Beside them, two games against the computer keep its searches going.
    let options = LoadOptions {
        computer_games: 2,
        computer_level: 1,
        ..chazz(&server, games, 3, Some(rate), Duration::from_secs(3))
    };
    let report = run(options).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors, 0, "{report}");
    assert!(report.computer_actions > 0, "{report}");
    // Flat out, six games do thousands of moves a second. Paced, each game moves at most
    // once per interval (games / rate) from its first turn, which comes within its first
    // interval (a replacement game's at once), so the run's moves are at most the rate's
    // share of its time plus one for each game played: a slower machine only plays fewer.
    let games_played = games as f64 + report.games_finished as f64;
    let most = rate * report.seconds + games_played;
    assert!(report.moves as f64 <= most, "at most {most}: {report}");
    // The two pairs' multiplexed sockets and the two games against the computer. A game
    // against the computer that ends is followed by a new one, and between the two (its socket
    // closed, the next not yet open) it holds no socket: on a fast machine its games are short,
    // so the count read at the end may miss one or both of them, never more.
    assert!((4..=6).contains(&report.connections_held), "{report}");
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
        nodes: Vec::new(),
        play_elsewhere: false,
        games,
        duration,
        rate,
        variant: "chazz".into(),
        idle: 0,
        games_per_socket,
        computer_games: 0,
        computer_level: 8,
    }
}

/// Turn, legal actions (as JSON text, serde's spacing) and whether there is an outcome, as
/// serde_json reads them from a rules object (or from Null: nothing).
fn rules_by_serde(rules: &Value) -> (String, Option<String>, bool) {
    (
        rules["turn"].as_str().unwrap_or_default().to_string(),
        rules
            .get("legal_actions")
            .filter(|l| !l.is_null())
            .map(|l| l.to_string()),
        !rules["outcome"].is_null(),
    )
}

/// The same as the load tool's reader has them.
fn rules_by_reader(rules: Option<&RulesPart>) -> (String, Option<String>, bool) {
    let Some(rules) = rules else {
        return (String::new(), None, false);
    };
    let legal = rules.legal_actions.map(|text| {
        // Compared as values: the server writes its own spacing.
        serde_json::from_str::<Value>(text)
            .unwrap_or_default()
            .to_string()
    });
    (rules.turn.to_string(), legal, rules.outcome)
}

/// Every field the reader keeps of `ours` is what serde_json reads in `value`, the messages
/// of a batch included.
fn assert_read_alike(ours: &Incoming, value: &Value, frame: &str) {
    let fields = |t: &str, gid, code, kind, ply| (t.to_string(), gid, code, kind, ply);
    assert_eq!(
        fields(ours.t, ours.gid, ours.code, ours.kind, ours.ply),
        fields(
            value["t"].as_str().unwrap_or_default(),
            value["gid"].as_str(),
            value["code"].as_str(),
            value["kind"].as_str(),
            value["ply"].as_u64()
        ),
        "{frame}"
    );
    let rules = if value["rules"].is_object() {
        &value["rules"]
    } else {
        &value["update"]
    };
    let our_rules = ours.rules.as_ref().or(ours.update.as_ref());
    assert_eq!(rules_by_reader(our_rules), rules_by_serde(rules), "{frame}");
    if let Some(game) = &ours.game {
        let moves = value["game"]["moves"].as_array().map_or(0, Vec::len) as u64;
        let outcome = !value["game"]["outcome"].is_null();
        assert_eq!((game.moves, game.outcome), (moves, outcome), "{frame}");
        let rules = rules_by_serde(&value["game"]["rules"]);
        assert_eq!(rules_by_reader(Some(&game.rules)), rules, "{frame}");
    }
    let messages = value["messages"].as_array().map_or(&[][..], Vec::as_slice);
    assert_eq!(ours.messages.len(), messages.len(), "{frame}");
    for (ours, value) in ours.messages.iter().zip(messages) {
        assert_read_alike(ours, value, frame);
    }
}

/// Reads the next frame, holds the reader to serde_json on it, and returns serde's value.
async fn next_read_alike(socket: &mut GameSocket) -> Value {
    let frame = socket
        .next_text(WAIT)
        .await
        .unwrap_or_else(|e| panic!("waiting for a message: {e}"));
    let value: Value = serde_json::from_str(&frame).unwrap_or_else(|e| panic!("{e}: {frame}"));
    match Incoming::parse(&frame) {
        Ok(ours) => assert_read_alike(&ours, &value, &frame),
        Err(e) => panic!("the load tool cannot read {frame}: {e}"),
    }
    value
}

/// Plays up to `plies` plies of the game both watchers are on, reading every message of both
/// through [`next_read_alike`].
async fn play_read_alike(players: &mut [Watcher; 2], plies: u64) {
    for pick in 0..plies {
        let Some(mover) = players.iter().position(|w| w.is_my_turn()) else {
            break;
        };
        let ply = players[mover].ply;
        let action = choose(&players[mover].legal, pick);
        players[mover].act(&action).await;
        for watcher in players.iter_mut() {
            while watcher.ply <= ply && watcher.outcome.is_none() {
                let message = next_read_alike(&mut watcher.socket).await;
                watcher.absorb(&message);
            }
        }
    }
}

/// A game of `variant` between two new guests, both watching it from its snapshot.
async fn started_game(server: &TestServer, variant: Variant) -> (String, [Watcher; 2], Player) {
    let mut white = server.guest().await;
    let mut black = server.guest().await;
    let game_id = white
        .create_game(&variant.to_string(), Value::Null, "white")
        .await;
    black.accept(&game_id).await;
    let mut watchers = Vec::new();
    for player in [&white, &black] {
        let socket = player
            .client
            .connect_game(&game_id, None)
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        let mut watcher = Watcher::new(socket);
        while watcher.version.is_none() || watcher.turn.is_empty() {
            let message = next_read_alike(&mut watcher.socket).await;
            watcher.absorb(&message);
        }
        watchers.push(watcher);
    }
    match watchers.try_into() {
        Ok(pair) => (game_id, pair, white),
        Err(_) => panic!("two watchers"),
    }
}

/// The snapshots, events, catch-up batches and multiplexed messages of a real server, in
/// every playable variant, read by the load tool's reader give what serde_json gives; the
/// whitespace and field order are the server's own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_tools_reader_reads_real_messages_as_serde_does() {
    let server = TestServer::start(fast_settings()).await;
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let (game_id, mut players, white) = started_game(&server, variant).await;
        play_read_alike(&mut players, 30).await;
        if players[0].outcome.is_some() {
            // A finished game is read through the API, not the sockets.
            continue;
        }
        // Every event from the start again, in one catch-up batch.
        let socket = &mut players[0].socket;
        socket
            .send(&json!({ "t": "sync", "v": 0 }))
            .await
            .unwrap_or_else(|e| panic!("send: {e}"));
        // Events still on their way (a move the server forced) may come first.
        let mut batch = next_read_alike(socket).await;
        for _ in 0..10 {
            if batch["t"] == "batch" {
                break;
            }
            batch = next_read_alike(socket).await;
        }
        assert_eq!(batch["t"], "batch", "{variant}: {batch}");
        let mut multiplexed = white
            .client
            .connect_games()
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        multiplexed
            .send(&json!({ "t": "watch", "gid": game_id }))
            .await
            .unwrap_or_else(|e| panic!("send: {e}"));
        let snapshot = next_read_alike(&mut multiplexed).await;
        assert_eq!(snapshot["gid"], game_id.as_str(), "{variant}: {snapshot}");
    }
    server.stop().await;
}
