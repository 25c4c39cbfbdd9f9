//! Two nodes of a cluster (the server binary twice, one PostgreSQL database and a private
//! NATS): a game runs on the node that made it; the other serves it from there while that
//! node's lease is live. Then the owner is killed with SIGKILL in mid-game: the survivor takes the
//! game over once the lease lapses, the players reconnect to it and play on to the end, and
//! every acknowledged move is stored exactly once. And an owner frozen (SIGSTOP) past its
//! lease, then woken while a player's socket to it is still open: the game went on on the
//! other node, and the woken node commits nothing more to it (its late move is refused).

use super::crash::{
    assert_stored_finished_with, free_port, guest_on, play, play_to_the_end, start_server_with,
    wait_healthy, ServerProcess,
};
use super::nats::PrivateNats;
use super::server::{database_url_named, drop_database, wait_until, Player, Watcher};
use std::process::Command;
use std::time::Duration;

/// A node of the cluster: the server binary on `port`, with NATS and its node id.
pub(crate) fn start_node(
    port: u16,
    database_url: &str,
    nats: &PrivateNats,
    node_id: &str,
) -> ServerProcess {
    let settings = [("NATS_URL", nats.url()), ("NODE_ID", node_id.to_string())];
    start_server_with(port, database_url, &settings)
}

/// `player`'s game socket on the node at `addr` with its first snapshot, if that node serves
/// the game now; None if it refuses (another node runs it) or cannot be reached.
pub(crate) async fn watch_if_served(
    player: &mut Player,
    addr: &str,
    game_id: &str,
) -> Option<Watcher> {
    player.client.addr = addr.to_string();
    let socket = player.client.connect_game(game_id, None).await.ok()?;
    let mut watcher = Watcher::new(socket);
    let first = watcher.socket.next(Duration::from_secs(10)).await.ok()?;
    watcher.absorb(&first);
    (first["t"] == "snapshot").then_some(watcher)
}

/// `player`'s game socket on the node at `addr`, once that node serves the game (it may
/// refuse, or close a socket at once, while the game is between nodes).
async fn watch_on(player: &mut Player, addr: &str, game_id: &str) -> Watcher {
    let mut watcher = None;
    wait_until(
        "the node to serve the game",
        Duration::from_secs(30),
        async || {
            watcher = watch_if_served(player, addr, game_id).await;
            watcher.is_some()
        },
    )
    .await;
    let mut watcher = watcher.unwrap_or_else(|| panic!("no socket"));
    watcher.read_until(|w| w.status == "active").await;
    watcher
}

/// Two nodes on one new database and a private NATS.
struct TwoNodes {
    nats: PrivateNats,
    database: String,
    a: ServerProcess,
    b: ServerProcess,
    addr_a: String,
    addr_b: String,
}

async fn two_nodes() -> TwoNodes {
    let nats = PrivateNats::start().await;
    let database = format!("oddboard_cluster_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let (port_a, port_b) = (free_port(), free_port());
    let (addr_a, addr_b) = (format!("127.0.0.1:{port_a}"), format!("127.0.0.1:{port_b}"));
    let a = start_node(port_a, &database_url, &nats, "node-a");
    wait_healthy(&addr_a).await;
    let b = start_node(port_b, &database_url, &nats, "node-b");
    wait_healthy(&addr_b).await;
    TwoNodes {
        nats,
        database,
        a,
        b,
        addr_a,
        addr_b,
    }
}

/// A 10+5 Suicide game between two new guests on the node at `addr`, under way, with both
/// players' sockets: (White, Black, the game's id, White's socket, Black's socket).
pub(crate) async fn game_on(addr: &str) -> (Player, Player, String, Watcher, Watcher) {
    let mut alice = guest_on(addr).await;
    let mut bob = guest_on(addr).await;
    let clock = serde_json::json!({ "minutes": 10, "increment": 5 });
    let game_id = alice.create_game("suicide", clock, "white").await;
    bob.accept(&game_id).await;
    let white = alice.watch(&game_id).await;
    let black = bob.watch(&game_id).await;
    (alice, bob, game_id, white, black)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_survivor_takes_the_game_over_when_its_node_is_killed() {
    let TwoNodes {
        nats: _nats,
        database,
        a: mut node_a,
        b: node_b,
        addr_a,
        addr_b,
    } = two_nodes().await;
    // A game made and played on node A.
    let (mut alice, mut bob, game_id, mut white, mut black) = game_on(&addr_a).await;
    play(&mut white, &mut black, 6).await;
    let acknowledged = white.moves.clone();
    assert_eq!(acknowledged.len(), 6);

    // Node B serves the game node A runs, from node A.
    let mut spectator = Player {
        name: String::new(),
        client: alice.client.clone(),
    };
    let mut seen_on_b = watch_if_served(&mut spectator, &addr_b, &game_id)
        .await
        .unwrap_or_else(|| panic!("node B does not serve the game node A runs"));
    assert_eq!(seen_on_b.moves, acknowledged);

    // Node A dies. Node B takes the game over once A's lease lapses (the game's clock runs,
    // so B's sweep takes it even before anyone asks), and the players go on through B.
    node_a
        .kill()
        .unwrap_or_else(|e| panic!("cannot kill node A: {e}"));
    let _ = node_a.wait();
    // The spectator's socket on B, which waited on A's events and sent nothing, is let go
    // once B runs the game, so that its client reconnects to the game's events there.
    if let Err(e) = seen_on_b.socket.closed(Duration::from_secs(60)).await {
        assert!(
            !e.to_string().contains("timed out"),
            "the spectator on B was left waiting on the dead node: {e}"
        );
    }
    let mut black = watch_on(&mut bob, &addr_b, &game_id).await;
    let mut white = watch_on(&mut alice, &addr_b, &game_id).await;
    assert_eq!(white.moves, acknowledged, "every acknowledged move, once");
    assert_eq!(black.moves, acknowledged);
    play(&mut white, &mut black, 4).await;
    play_to_the_end(&mut white, &mut black).await;
    assert_stored_finished_with(&addr_b, &game_id, white.moves.len()).await;
    assert_eq!(white.moves[..6], acknowledged[..]);

    drop(node_b);
    drop_database(&database).await;
}

/// Sends SIGSTOP or SIGCONT to the node's process (ours, by its PID).
pub(crate) fn signal(node: &ServerProcess, signal: &str) {
    signal_pid(node.id(), signal);
}

/// Sends `signal` to process `pid`, one this test started (itself or through the server).
pub(crate) fn signal_pid(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill {signal}: {e}"));
    assert!(status.success(), "kill {signal} {pid} failed");
}

/// Reads `socket` until the node refuses the late move or the game's events end there;
/// panics if the node instead announces the move (it committed it).
async fn refused_or_let_go(watcher: &mut Watcher, ply: u64) -> String {
    loop {
        let message = match watcher.socket.next(Duration::from_secs(30)).await {
            Ok(message) => message,
            Err(e) => return format!("closed: {e}"),
        };
        if message["t"] == "error" {
            return message["code"].as_str().unwrap_or_default().to_string();
        }
        if message["t"] == "event" && message["kind"] == "action" && message["ply"] == ply {
            panic!("the frozen node committed a move after losing the game: {message}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_owner_commits_nothing_once_the_game_has_moved_on() {
    let TwoNodes {
        nats: _nats,
        database,
        a: node_a,
        b: node_b,
        addr_a,
        addr_b,
    } = two_nodes().await;
    let (alice, mut bob, game_id, mut white_on_a, mut black) = game_on(&addr_a).await;
    play(&mut white_on_a, &mut black, 4).await;

    // Node A freezes; its lease lapses and node B takes the game over. White plays ply 5
    // through node B, with a second socket.
    signal(&node_a, "-STOP");
    let mut black = watch_on(&mut bob, &addr_b, &game_id).await;
    let mut alice_on_b = Player {
        name: alice.name.clone(),
        client: alice.client.clone(),
    };
    let mut white = watch_on(&mut alice_on_b, &addr_b, &game_id).await;
    assert_eq!(white.ply, 4);
    let on_b = super::server::choose(&white.legal, 5);
    white.act(&on_b).await;
    white.read_until(|w| w.ply == 5).await;
    black.read_until(|w| w.ply == 5).await;

    // Node A wakes still believing it runs the game at ply 4, and White's first socket asks
    // it for another ply 5: refused (fenced, or the game let go), never committed.
    signal(&node_a, "-CONT");
    let late = white_on_a
        .legal
        .iter()
        .find(|a| **a != on_b)
        .cloned()
        .unwrap_or_else(|| on_b.clone());
    white_on_a.act(&late).await;
    let answer = refused_or_let_go(&mut white_on_a, 5).await;
    assert!(
        ["game_moved", "game_unavailable", "game_elsewhere"].contains(&answer.as_str())
            || answer.starts_with("closed"),
        "{answer}"
    );

    eprintln!("cluster: the woken node answered the late move with {answer}");
    // And node A let the game go (a fenced commit or its lost lease), as its metrics say.
    let mut metrics = oddboard_client::Client::new(addr_a.clone());
    wait_until(
        "node A to count the game it let go",
        Duration::from_secs(20),
        async || {
            let body = metrics
                .get("/metrics")
                .await
                .map(|r| r.body)
                .unwrap_or_default();
            body.lines().any(|l| l == "oddboard_games_moved_total 1")
        },
    )
    .await;

    // The game goes on through node B; ply 5 is node B's, once.
    play_to_the_end(&mut white, &mut black).await;
    assert_stored_finished_with(&addr_b, &game_id, white.moves.len()).await;
    assert_eq!(white.moves[4], on_b);
    drop(node_a);
    drop(node_b);
    drop_database(&database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_node_hands_its_games_over_at_once() {
    let TwoNodes {
        nats,
        database,
        a: mut node_a,
        b: node_b,
        addr_a,
        addr_b,
    } = two_nodes().await;
    let (mut alice, mut bob, game_id, mut white, mut black) = game_on(&addr_a).await;
    play(&mut white, &mut black, 3).await;
    let acknowledged = white.moves.clone();

    // SIGTERM: node A gives its leases back as it stops, so that the moment it is gone no
    // live lease of its holds the game (a lease not given back would live on up to 3 s).
    signal(&node_a, "-TERM");
    let _ = node_a.wait();
    let observer =
        oddboard::cluster::Cluster::connect(&nats.url(), "observer", Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    let game_uuid = uuid::Uuid::parse_str(&game_id).unwrap_or_else(|e| panic!("{e}"));
    let key = oddboard::cluster::Leases::game_key(game_uuid);
    let holder = observer
        .leases()
        .holder(&key, oddboard::cluster::leases::wall_ms())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(
        holder.as_deref(),
        Some("node-a"),
        "node A kept its lease after it stopped"
    );

    // The players go on through node B with every acknowledged move.
    let mut black = watch_on(&mut bob, &addr_b, &game_id).await;
    let mut white = watch_on(&mut alice, &addr_b, &game_id).await;
    assert_eq!(white.moves, acknowledged);
    play_to_the_end(&mut white, &mut black).await;
    assert_stored_finished_with(&addr_b, &game_id, white.moves.len()).await;
    drop(node_b);
    drop_database(&database).await;
}

/// Failover time (issue 49's benchmark, not a timed test): node B runs throughout; each
/// round starts node A, makes `FAILOVER_GAMES` games on it with one move each, kills A with
/// SIGKILL, and measures, for every game, the time from the kill to its next acknowledged
/// move through node B (the players reconnecting to B as soon as it serves the game).
/// Prints p50, p90, p99 and the worst over all rounds; asserts only that every game went on
/// with its acknowledged move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: cargo test --release --test it failover_time -- --ignored --nocapture"]
async fn failover_time() {
    const FAILOVER_GAMES: usize = 100;
    let rounds: usize = std::env::var("FAILOVER_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    let TwoNodes {
        nats,
        database,
        a: node_a,
        b: node_b,
        addr_a,
        addr_b,
    } = two_nodes().await;
    let database_url = database_url_named(&database);
    let port_a: u16 = addr_a
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let mut node_a = Some(node_a);
    let mut samples: Vec<Duration> = Vec::new();
    for round in 0..rounds {
        let mut a = match node_a.take() {
            Some(a) => a,
            None => {
                let a = start_node(port_a, &database_url, &nats, &format!("node-a{round}"));
                wait_healthy(&addr_a).await;
                a
            }
        };
        let mut games = Vec::new();
        for _ in 0..FAILOVER_GAMES {
            let (white_player, black_player, game_id, mut white, mut black) =
                game_on(&addr_a).await;
            play(&mut white, &mut black, 1).await;
            games.push((white_player, black_player, game_id, white.moves.clone()));
        }
        a.kill()
            .unwrap_or_else(|e| panic!("cannot kill node A: {e}"));
        let killed = tokio::time::Instant::now();
        let _ = a.wait();
        // All at once, in this task (the players' sockets need not move between threads).
        let waiting =
            games
                .into_iter()
                .map(|(_white_player, mut black_player, game_id, acknowledged)| {
                    let addr_b = addr_b.clone();
                    async move {
                        // Black is to move: it reconnects to B and plays; the time is its move's.
                        let mut black = watch_on(&mut black_player, &addr_b, &game_id).await;
                        assert_eq!(black.moves, acknowledged);
                        let action = super::server::choose(&black.legal, 1);
                        black.act(&action).await;
                        black.read_until(|w| w.ply >= 2).await;
                        killed.elapsed()
                    }
                });
        samples.extend(futures_util::future::join_all(waiting).await);
        eprintln!("failover round {round}: {} games", samples.len());
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    eprintln!(
        "failover over {rounds} kills of a node running {FAILOVER_GAMES} games ({} games): \
         p50 {:?}, p90 {:?}, p99 {:?}, worst {:?}",
        samples.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        samples.last().copied().unwrap_or_default()
    );
    drop(node_b);
    drop_database(&database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_load_tool_spreads_its_games_over_the_nodes() {
    let TwoNodes {
        nats: _nats,
        database,
        a,
        b,
        addr_a,
        addr_b,
    } = two_nodes().await;
    let options = oddboard_client::loadtest::LoadOptions {
        addr: addr_a.clone(),
        nodes: vec![addr_a.clone(), addr_b.clone()],
        games: 4,
        duration: Duration::from_secs(2),
        variant: "chazz".into(),
        ..Default::default()
    };
    let report = oddboard_client::loadtest::run(options.clone())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors, 0, "{report}");
    assert!(report.moves > 0, "{report}");
    // And with every player on the other node than its game's: every move forwarded.
    let forwarded = oddboard_client::loadtest::LoadOptions {
        play_elsewhere: true,
        ..options
    };
    let report = oddboard_client::loadtest::run(forwarded)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.errors, 0, "forwarded: {report}");
    assert!(report.moves > 0, "forwarded: {report}");
    // Each node made and runs its share of the games.
    for addr in [&addr_a, &addr_b] {
        let mut client = oddboard_client::Client::new(addr.clone());
        let metrics = client
            .get("/metrics")
            .await
            .map(|r| r.body)
            .unwrap_or_default();
        let owned: i64 = metrics
            .lines()
            .find_map(|l| l.strip_prefix("oddboard_games_owned "))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        assert!(owned >= 2, "{addr} runs {owned} games");
    }
    drop((a, b));
    drop_database(&database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_stops_at_sigterm_even_with_nats_gone() {
    let TwoNodes {
        nats,
        database,
        a: mut node_a,
        b: node_b,
        addr_a,
        addr_b: _,
    } = two_nodes().await;
    let (_alice, _bob, _game_id, _white, _black) = game_on(&addr_a).await;
    // NATS goes away; node A, asked to stop, cannot give its lease back, and stops anyway.
    drop(nats);
    signal(&node_a, "-TERM");
    wait_until("node A to stop", Duration::from_secs(30), async || {
        node_a.try_wait().is_ok_and(|status| status.is_some())
    })
    .await;
    drop(node_b);
    drop_database(&database).await;
}
