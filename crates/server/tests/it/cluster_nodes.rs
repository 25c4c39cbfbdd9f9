//! Any node serves any game: three nodes (the server binary three times, one database, a
//! private NATS); a game made on node A, accepted from node B, its players on A and B and a
//! spectator on C. Moves, a chat line and a takeback go across the nodes; everyone sees the
//! same events, in order, none missed or twice (the test client checks each version), on a
//! game socket and on a multiplexed one.

use super::cluster_failover::{start_node, watch_if_served};
use super::crash::{free_port, guest_on, wait_healthy, ServerProcess};
use super::nats::PrivateNats;
use super::server::{database_url_named, drop_database, Watcher};
use super::ws_chat::next_chat_text as next_chat;
use super::ws_takeback::event_of;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_on_two_nodes_and_a_spectator_on_a_third_play_chat_and_take_back() {
    let nats = PrivateNats::start().await;
    let database = format!("oddboard_nodes_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let mut nodes: Vec<ServerProcess> = Vec::new();
    let mut addrs = Vec::new();
    for i in 0..3 {
        let port = free_port();
        addrs.push(format!("127.0.0.1:{port}"));
        nodes.push(start_node(port, &database_url, &nats, &format!("node-{i}")));
        wait_healthy(&addrs[i]).await;
    }
    let (addr_a, addr_b, addr_c) = (&addrs[0], &addrs[1], &addrs[2]);

    // Alice makes a game on A; Bob, signed in on B, accepts it there.
    let mut alice = guest_on(addr_a).await;
    let mut bob = guest_on(addr_b).await;
    let clock = json!({ "minutes": 10, "increment": 5 });
    let game_id = alice.create_game("suicide", clock, "white").await;
    bob.accept(&game_id).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = watch_if_served(&mut bob, addr_b, &game_id)
        .await
        .unwrap_or_else(|| panic!("node B does not serve the game"));
    black.read_until(|w| w.status == "active").await;
    let mut carol = guest_on(addr_c).await;
    let mut spectator = watch_if_served(&mut carol, addr_c, &game_id)
        .await
        .unwrap_or_else(|| panic!("node C does not serve the game"));

    // Moves from A and B, seen on all three nodes.
    for (ply, action) in [(1, "e2e3"), (2, "e7e6"), (3, "f1a6")] {
        let mover = if ply % 2 == 1 { &mut white } else { &mut black };
        mover.act(action).await;
        for watcher in [&mut white, &mut black, &mut spectator] {
            watcher.read_until(|w| w.ply >= ply).await;
        }
        assert!(
            white.errors.is_empty() && black.errors.is_empty(),
            "{:?} {:?}",
            white.errors,
            black.errors
        );
    }
    assert_eq!(spectator.moves, ["e2e3", "e7e6", "f1a6"]);

    // A chat line from B reaches the other player on A, not the spectator's room.
    black
        .send(json!({ "t": "chat", "text": "from node B" }))
        .await;
    assert_eq!(next_chat(&mut white).await, "from node B");
    carol_says(&mut spectator).await;
    assert_eq!(next_chat(&mut spectator).await, "from node C");

    // A multiplexed socket on C watches the game too, from its snapshot on.
    let mut board_watcher = super::mux::MuxClient::open(&carol).await;
    board_watcher.watch(&game_id, None).await;
    assert_eq!(board_watcher.game(&game_id).ply, 3);

    // Black (on B) asks to take back its move; White (on A) accepts; everyone sees it.
    black.send(json!({ "t": "takeback_offer" })).await;
    event_of(&mut white, "takeback_offered").await;
    white.send(json!({ "t": "takeback_accept" })).await;
    let taken = event_of(&mut black, "takeback").await;
    assert_eq!(event_of(&mut spectator, "takeback").await, taken);
    board_watcher.read_until(|c| c.game(&game_id).ply < 3).await;

    // Black resigns from B: the game is over for everyone, and stored on A's record.
    black.send(json!({ "t": "resign" })).await;
    for watcher in [&mut white, &mut black, &mut spectator] {
        watcher.read_until(|w| w.outcome.is_some()).await;
    }
    board_watcher
        .read_until(|c| c.game(&game_id).outcome.is_some())
        .await;
    let record = alice
        .client
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(record["status"], "finished");
    drop(nodes);
    drop_database(&database).await;
}

/// The spectator on C says something in the spectators' room.
async fn carol_says(spectator: &mut Watcher) {
    spectator
        .send(json!({ "t": "chat", "text": "from node C" }))
        .await;
}
