//! Three nodes under load through faults: games made on every node are played on without
//! pause while NATS is restarted and then every node in turn is stopped (SIGTERM) and started
//! again, as a rolling deploy does. The players go wherever their game is served (a node
//! that does not run it refuses, as behind a balancer that retries), and in the end every
//! move any player was told was played is stored, at its ply, exactly once.

use super::cluster_failover::{game_on, start_node, watch_if_served};
use super::crash::{free_port, wait_healthy, ServerProcess};
use super::nats::PrivateNats;
use super::server::{choose, database_url_named, drop_database, Player, Watcher};
use oddboard_client::Client;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const GAMES: usize = 6;
/// Times a player found its game's socket gone (the node stopped, or let the game go) and
/// looked for the game afresh: the faults reached the players.
static RECONNECTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// How long a player waits for the answer to its move before it looks for the game afresh.
const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// Reads `watcher` until it has seen ply `ply`; false if its socket fails first.
async fn caught_up(watcher: &mut Watcher, ply: u64) -> bool {
    while watcher.ply < ply {
        match watcher.socket.next(ANSWER_WAIT).await {
            Ok(message) => watcher.absorb(&message),
            Err(_) => return false,
        }
    }
    true
}

/// One game's two players, playing until `stop`, over whichever node serves the game; the
/// moves they were told were played, by ply.
async fn keep_playing(
    mut white: Player,
    mut black: Player,
    mut game_id: String,
    addrs: Vec<String>,
    stop: Arc<AtomicBool>,
) -> Vec<(String, Vec<(u64, String)>)> {
    let mut played = Vec::new();
    let mut acknowledged: Vec<(u64, String)> = Vec::new();
    let mut sockets: Option<(Watcher, Watcher)> = None;
    let mut attempt = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let Some((w, b)) = sockets.as_mut() else {
            // Find the node that serves the game; both players connect there.
            let addr = &addrs[attempt % addrs.len()];
            attempt += 1;
            let served = match watch_if_served(&mut white, addr, &game_id).await {
                Some(w) => watch_if_served(&mut black, addr, &game_id)
                    .await
                    .map(|b| (w, b)),
                None => None,
            };
            if served.is_none() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            sockets = served;
            continue;
        };
        if w.outcome.is_some() || w.status != "active" {
            // Over: the same two start another, on whichever node takes it.
            played.push((game_id, std::mem::take(&mut acknowledged)));
            game_id = new_game(&mut white, &mut black, &addrs, attempt).await;
            sockets = None;
            continue;
        }
        let ply = w.ply + 1;
        let mover = if w.turn == "white" { &mut *w } else { &mut *b };
        let action = choose(&mover.legal, ply);
        mover.act(&action).await;
        // The answer: the move announced (acknowledged), a refusal, or the socket gone.
        let answered = loop {
            match mover.socket.next(ANSWER_WAIT).await {
                Ok(message) => {
                    let refused = message["t"] == "error";
                    mover.absorb(&message);
                    if refused {
                        break false;
                    }
                    if mover.ply >= ply {
                        break true;
                    }
                }
                Err(_) => break false,
            }
        };
        if answered {
            acknowledged.push((ply, mover.moves[(ply - 1) as usize].clone()));
            // Both players' views up to the move, for the next one's turn and legal moves.
            if !(caught_up(w, ply).await && caught_up(b, ply).await) {
                sockets = None;
                RECONNECTS.fetch_add(1, Ordering::Relaxed);
            }
        } else {
            sockets = None;
            RECONNECTS.fetch_add(1, Ordering::Relaxed);
        }
    }
    played.push((game_id, acknowledged));
    played
}

/// A new game of `white` and `black` (Suicide, 10+5), made on the first node from
/// `attempt` on that answers.
async fn new_game(
    white: &mut Player,
    black: &mut Player,
    addrs: &[String],
    attempt: usize,
) -> String {
    for i in 0.. {
        let addr = &addrs[(attempt + i) % addrs.len()];
        white.client.addr = addr.clone();
        let terms = serde_json::json!({
            "variant": "suicide", "clock": { "minutes": 10, "increment": 5 }, "color": "white",
        });
        let created = white.client.post("/api/games", &terms);
        let Ok(response) = created.await else {
            continue;
        };
        let Some(id) = response.json()["game_id"].as_str().map(str::to_string) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        black.client.addr = addr.clone();
        black.accept(&id).await;
        return id;
    }
    unreachable!()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_move_is_lost_through_a_nats_restart_and_a_rolling_restart() {
    let mut nats = PrivateNats::start().await;
    let database = format!("oddboard_faults_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let addrs: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let mut nodes: Vec<ServerProcess> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        nodes.push(start_node(
            *port,
            &database_url,
            &nats,
            &format!("node-{i}"),
        ));
        wait_healthy(&addrs[i]).await;
    }

    // Games made on every node, played without pause from here on.
    let stop = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    for i in 0..GAMES {
        let (white, black, game_id, _, _) = game_on(&addrs[i % addrs.len()]).await;
        players.push((white, black, game_id));
    }
    let playing = futures_util::future::join_all(
        players
            .into_iter()
            .map(|(w, b, id)| keep_playing(w, b, id, addrs.clone(), Arc::clone(&stop))),
    );
    let pool = sqlx::PgPool::connect(&database_url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let faults = async {
        moves_stored(&pool, 20, "moves before the faults").await;
        // NATS restarts: leases are neither renewed nor taken meanwhile.
        nats.restart().await;
        moves_stored(&pool, 60, "moves after NATS restarted").await;
        // Every node in turn: SIGTERM (its games handed over), then started again.
        let mut at_least = 60;
        for i in 0..nodes.len() {
            super::cluster_failover::signal(&nodes[i], "-TERM");
            let _ = nodes[i].wait();
            at_least += 30;
            moves_stored(&pool, at_least, "moves while a node is down").await;
            nodes[i] = start_node(ports[i], &database_url, &nats, &format!("node-{i}-again"));
            wait_healthy(&addrs[i]).await;
        }
        moves_stored(&pool, at_least + 30, "moves after the rolling restart").await;
        stop.store(true, Ordering::Relaxed);
    };
    let (results, ()) = tokio::join!(playing, faults);

    let results: Vec<(String, Vec<(u64, String)>)> = results.into_iter().flatten().collect();
    let games_played = results.len();
    let acknowledged_in_all = assert_stored_once(&addrs[0], results).await;
    let reconnects = RECONNECTS.load(Ordering::Relaxed);
    eprintln!(
        "faults: {acknowledged_in_all} acknowledged moves over {games_played} games, all stored \
         once; the players looked for their games afresh {reconnects} times"
    );
    // Each of the three stopped nodes ran two of the first games.
    assert!(reconnects >= 3, "the faults never reached the players");
    assert!(acknowledged_in_all >= 90, "{acknowledged_in_all}");
    drop(nodes);
    pool.close().await;
    drop_database(&database).await;
}

/// Every move a player was told was played is stored at its ply (a ply holds one move, so
/// once); returns how many were checked.
async fn assert_stored_once(addr: &str, results: Vec<(String, Vec<(u64, String)>)>) -> usize {
    let mut client = Client::new(addr.to_string());
    let mut checked = 0;
    for (game_id, acknowledged) in results {
        let record = client
            .get(&format!("/api/games/{game_id}"))
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .json();
        let stored: Vec<String> = record["actions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x["machine"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        for (ply, action) in &acknowledged {
            assert_eq!(
                stored.get((*ply - 1) as usize),
                Some(action),
                "game {game_id}: acknowledged ply {ply} ({action}) not stored there: {stored:?}"
            );
        }
        checked += acknowledged.len();
    }
    checked
}

/// Waits until the database holds at least `min` moves in all.
async fn moves_stored(pool: &sqlx::PgPool, min: i64, what: &str) {
    super::server::wait_until(what, Duration::from_secs(60), async || {
        let count: i64 = sqlx::query_scalar("select count(*) from game_action")
            .fetch_one(pool)
            .await
            .unwrap_or(0);
        count >= min
    })
    .await;
}
