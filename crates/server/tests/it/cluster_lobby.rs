//! One lobby over three nodes (the server binary three times, one database, a private NATS):
//! a seek posted on one node is seen and answered from the others, a challenge crosses
//! nodes, the counts are the cluster's; and the lobby survives its node: after `kill -9` of
//! the node that runs it, its sockets elsewhere end, and a survivor runs the lobby within
//! seconds; after SIGTERM, the last node takes it at once. Nodes are told apart by the
//! lobby's lease in NATS (the test reads it as any node would).

use super::cluster_failover::{signal, start_node};
use super::crash::{free_port, wait_healthy, ServerProcess};
use super::lobby::{game_of, LobbyPlayer};
use super::nats::PrivateNats;
use super::server::{database_url_named, drop_database};
use oddboard::cluster::leases::wall_ms;
use oddboard::cluster::{Cluster, Leases};
use oddboard_client::Client;
use serde_json::Value;
use std::time::Duration;

/// Generous: a node's lease lapses 3 s after it dies, and CI machines are slow.
const MOVE_WAIT: Duration = Duration::from_secs(60);

/// A guest signed in on the node at `addr`, with a lobby socket there.
async fn lobby_guest(addr: &str) -> LobbyPlayer {
    let mut client = Client::new(addr.to_string());
    let me = client.guest().await.unwrap_or_else(|e| panic!("{e}"));
    let name = me["username"].as_str().unwrap_or_default().to_string();
    LobbyPlayer::connect(client, name).await
}

/// The node that holds the lobby's lease now, waiting until one does.
async fn lobby_node(observer: &Cluster) -> String {
    let deadline = tokio::time::Instant::now() + MOVE_WAIT;
    loop {
        if let Ok(Some(node)) = observer.leases().holder(Leases::LOBBY_KEY, wall_ms()).await {
            return node;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no node took the lobby"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until a node other than `old` holds the lobby's lease; returns it.
async fn lobby_moves_from(observer: &Cluster, old: &str) -> String {
    let deadline = tokio::time::Instant::now() + MOVE_WAIT;
    loop {
        let node = lobby_node(observer).await;
        if node != old {
            return node;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the lobby stayed on {old}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

struct Nodes {
    ids: Vec<String>,
    addrs: Vec<String>,
    processes: Vec<Option<ServerProcess>>,
}

impl Nodes {
    async fn start(nats: &PrivateNats, database_url: &str, count: usize) -> Nodes {
        let mut nodes = Nodes {
            ids: Vec::new(),
            addrs: Vec::new(),
            processes: Vec::new(),
        };
        for i in 0..count {
            let port = free_port();
            let id = format!("lobby-node-{i}");
            let addr = format!("127.0.0.1:{port}");
            nodes
                .processes
                .push(Some(start_node(port, database_url, nats, &id)));
            wait_healthy(&addr).await;
            nodes.ids.push(id);
            nodes.addrs.push(addr);
        }
        nodes
    }

    fn index_of(&self, id: &str) -> usize {
        self.ids
            .iter()
            .position(|n| n == id)
            .unwrap_or_else(|| panic!("{id} is not one of the nodes"))
    }

    fn process(&self, index: usize) -> &ServerProcess {
        self.processes[index]
            .as_ref()
            .unwrap_or_else(|| panic!("node {index} is stopped"))
    }
}

/// Runs `line` until the lobby answers it (it may be moving between nodes): the answer.
async fn once_the_lobby_answers(player: &mut LobbyPlayer, line: &str) -> Value {
    let deadline = tokio::time::Instant::now() + MOVE_WAIT;
    loop {
        let answer = super::lobby::command(&mut player.client, line).await;
        if answer.status == 200 {
            return answer.body["data"].clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{line}: {}",
            answer.body
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A lobby socket for `player` on the node at `addr` again, once the lobby answers there.
async fn reconnect(player: LobbyPlayer, addr: &str) -> LobbyPlayer {
    let LobbyPlayer { name, client, .. } = player;
    let deadline = tokio::time::Instant::now() + MOVE_WAIT;
    loop {
        let mut socket = match client.connect_lobby().await {
            Ok(socket) => socket,
            Err(e) => panic!("{addr}: {e}"),
        };
        match socket.next(Duration::from_secs(15)).await {
            Ok(first) if first["t"] == "lobby" => {
                return LobbyPlayer {
                    name,
                    client,
                    socket,
                }
            }
            other => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "no lobby on {addr}: {other:?}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_on_one_node_is_answered_from_another_and_a_challenge_crosses_nodes() {
    let nats = PrivateNats::start().await;
    let database = format!("oddboard_lobby_nodes_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let nodes = Nodes::start(&nats, &database_url, 3).await;
    let observer = Cluster::connect(&nats.url(), "observer", Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let runs_lobby = nodes.index_of(&lobby_node(&observer).await);
    // Alice and Bob on the two nodes that do not run the lobby, Carol on the one that does.
    let others: Vec<usize> = (0..3).filter(|i| *i != runs_lobby).collect();
    let mut alice = lobby_guest(&nodes.addrs[others[0]]).await;
    let mut bob = lobby_guest(&nodes.addrs[others[1]]).await;
    let mut carol = lobby_guest(&nodes.addrs[runs_lobby]).await;

    // Alice's seek, posted through her node, reaches Bob's and Carol's sockets.
    let number = alice.seek("5 0 suicide").await;
    bob.event("seek_added", |m| m["seek"]["id"] == number).await;
    carol
        .event("seek_added", |m| m["seek"]["id"] == number)
        .await;
    let seen = bob.sought(true).await;
    assert_eq!(seen.len(), 1, "{seen:?}");

    // Bob answers it from his node: one game, announced to both.
    let game = game_of(&bob.ok(&format!("play {number}")).await);
    let started = alice.event("game_started", |_| true).await;
    assert_eq!(started["game"]["game_id"], game["game_id"]);
    carol.event("seek_removed", |m| m["id"] == number).await;

    // The counts are the cluster's, asked on any node.
    let mut anyone = Client::new(nodes.addrs[others[0]].clone());
    let stats = anyone
        .get("/api/lobby/stats")
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(stats["games_in_play"], 1, "{stats}");
    assert!(stats["players_online"].as_u64() >= Some(3), "{stats}");

    // Carol challenges Alice across nodes; Alice accepts from hers.
    let sent = carol.ok(&format!("match {} 3 0 chazz", alice.name)).await;
    assert_eq!(sent["kind"], "challenge_sent", "{sent}");
    let challenge = alice.event("challenge", |_| true).await;
    assert_eq!(challenge["challenge"]["from"], carol.name.as_str());
    let accepted = game_of(&alice.ok(&format!("accept {}", carol.name)).await);
    carol
        .event("game_started", |m| {
            m["game"]["game_id"] == accepted["game_id"]
        })
        .await;

    // A refusal from the lobby's node keeps its code on the way back.
    alice.fails("play 999", "no_such_seek").await;
    drop(nodes);
    drop_database(&database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_moves_to_a_survivor_after_kill_and_at_once_after_sigterm() {
    let nats = PrivateNats::start().await;
    let database = format!("oddboard_lobby_moves_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let mut nodes = Nodes::start(&nats, &database_url, 3).await;
    let observer = Cluster::connect(&nats.url(), "observer", Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let first = lobby_node(&observer).await;
    let dead = nodes.index_of(&first);
    let others: Vec<usize> = (0..3).filter(|i| *i != dead).collect();
    let mut alice = lobby_guest(&nodes.addrs[others[0]]).await;
    let bob = lobby_guest(&nodes.addrs[others[1]]).await;
    alice.seek("5 0 suicide").await;

    // kill -9 of the lobby's node: the sockets on the other nodes end, as after a restart.
    signal(nodes.process(dead), "-KILL");
    nodes.processes[dead] = None;
    // Closed, or dropped without a close: either way not timed out.
    if let Err(e) = alice.socket.closed(MOVE_WAIT).await {
        assert!(
            !e.to_string().contains("timed out"),
            "alice's lobby socket did not end: {e}"
        );
    }
    let second = lobby_moves_from(&observer, &first).await;

    // A survivor runs a fresh lobby: the players reconnect, seek again and are paired.
    let mut alice = reconnect(alice, &nodes.addrs[others[0]]).await;
    let mut bob = reconnect(bob, &nodes.addrs[others[1]]).await;
    let data = once_the_lobby_answers(&mut alice, "seek 5 0 suicide").await;
    assert_eq!(data["kind"], "seek_posted", "{data}");
    let number = data["seek"]["id"].as_u64().unwrap_or_default();
    let game = game_of(&once_the_lobby_answers(&mut bob, &format!("play {number}")).await);
    let started = alice.event("game_started", |_| true).await;
    assert_eq!(started["game"]["game_id"], game["game_id"]);

    // SIGTERM of the node that runs it now: the last node takes the lobby over, and a seek
    // posted there is answered.
    let stopping = nodes.index_of(&second);
    let last = others
        .iter()
        .copied()
        .find(|i| *i != stopping)
        .unwrap_or_else(|| panic!("no node left"));
    signal(nodes.process(stopping), "-TERM");
    let third = lobby_moves_from(&observer, &second).await;
    assert_eq!(third, nodes.ids[last]);
    let mut dave = lobby_guest(&nodes.addrs[last]).await;
    let data = once_the_lobby_answers(&mut dave, "seek 3 0 chazz").await;
    assert_eq!(data["kind"], "seek_posted", "{data}");
    drop(nodes);
    drop_database(&database).await;
}
