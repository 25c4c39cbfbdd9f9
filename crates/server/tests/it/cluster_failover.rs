//! Two nodes of a cluster (the server binary twice, one PostgreSQL database and a private
//! NATS): a game runs on the node that made it; the other will not run it while that node's
//! lease is live. Then the owner is killed with SIGKILL in mid-game: the survivor takes the
//! game over once the lease lapses, the players reconnect to it and play on to the end, and
//! every acknowledged move is stored exactly once.

use super::crash::{
    assert_stored_finished_with, free_port, guest_on, play, play_to_the_end, start_server_with,
    wait_healthy, ServerProcess,
};
use super::nats::PrivateNats;
use super::server::{database_url_named, drop_database, wait_until, Player, Watcher};
use std::time::Duration;

/// A node of the cluster: the server binary on `port`, with NATS and its node id.
fn start_node(port: u16, database_url: &str, nats: &PrivateNats, node_id: &str) -> ServerProcess {
    let settings = [("NATS_URL", nats.url()), ("NODE_ID", node_id.to_string())];
    start_server_with(port, database_url, &settings)
}

/// `player`'s game socket on the node at `addr`, once that node serves the game.
async fn watch_on(player: &mut Player, addr: &str, game_id: &str) -> Watcher {
    player.client.addr = addr.to_string();
    let mut socket = None;
    wait_until(
        "the node to serve the game",
        Duration::from_secs(30),
        async || {
            socket = player.client.connect_game(game_id, None).await.ok();
            socket.is_some()
        },
    )
    .await;
    let mut watcher = Watcher::new(socket.unwrap_or_else(|| panic!("no socket")));
    watcher.read_until(|w| w.status == "active").await;
    watcher
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_survivor_takes_the_game_over_when_its_node_is_killed() {
    let nats = PrivateNats::start().await;
    let database = format!("oddboard_cluster_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let (port_a, port_b) = (free_port(), free_port());
    let (addr_a, addr_b) = (format!("127.0.0.1:{port_a}"), format!("127.0.0.1:{port_b}"));
    let mut node_a = start_node(port_a, &database_url, &nats, "node-a");
    wait_healthy(&addr_a).await;
    let node_b = start_node(port_b, &database_url, &nats, "node-b");
    wait_healthy(&addr_b).await;

    // A game made and played on node A.
    let mut alice = guest_on(&addr_a).await;
    let mut bob = guest_on(&addr_a).await;
    let clock = serde_json::json!({ "minutes": 10, "increment": 5 });
    let game_id = alice.create_game("suicide", clock, "white").await;
    bob.accept(&game_id).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play(&mut white, &mut black, 6).await;
    let acknowledged = white.moves.clone();
    assert_eq!(acknowledged.len(), 6);

    // Node B does not run a game whose lease node A holds.
    let mut elsewhere = alice.client.clone();
    elsewhere.addr = addr_b.clone();
    let refused = elsewhere.connect_game(&game_id, None).await;
    assert!(refused.is_err(), "node B served a game node A runs");

    // Node A dies. Node B takes the game over once A's lease lapses (the game's clock runs,
    // so B's sweep takes it even before anyone asks), and the players go on through B.
    node_a
        .kill()
        .unwrap_or_else(|e| panic!("cannot kill node A: {e}"));
    let _ = node_a.wait();
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
