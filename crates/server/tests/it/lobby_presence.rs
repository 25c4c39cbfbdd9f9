//! Seeks that do not outlive their page, against a real server: a seek goes the moment its
//! owner's last lobby socket closes and the owner is told on return; a user without a lobby
//! socket cannot post one over HTTP; a game the lobby paired is aborted at the join limit
//! when a player never opens it, and not when both do.

use crate::lobby::{command, LobbyPlayer};
use crate::server::{fast_settings, TestServer, WAIT};
use crate::ws_game::stored_record;
use oddboard::game::lobby::LobbySettings;
use oddboard::game::GameSettings;
use serde_json::json;
use std::time::Duration;

/// The server's own lobby timings, but a join limit short enough to wait for, and users kept
/// loaded an hour after their last connection: longer than any test, so that what happens
/// when a last socket closes cannot be that grace ending, however slow the machine.
fn settings(join_limit: Duration) -> LobbySettings {
    LobbySettings {
        join_limit,
        forget_after: Duration::from_secs(60 * 60),
        ..LobbySettings::default()
    }
}

async fn seek_ids(player: &mut LobbyPlayer) -> Vec<u64> {
    let data = player.ok("sought all").await;
    let seeks = data["seeks"].as_array().cloned().unwrap_or_default();
    seeks.iter().filter_map(|s| s["id"].as_u64()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_goes_when_its_last_socket_closes_and_its_owner_hears_of_it_on_return() {
    let server =
        TestServer::start_with_lobby(fast_settings(), settings(Duration::from_secs(15))).await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let first = alice.seek("5 0").await;
    let second = alice.seek("3 2 chazz").await;
    // A second tab: closing one socket of two is not leaving.
    let mut other_tab = alice
        .client
        .connect_lobby()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    other_tab
        .wait_for(WAIT, |m| m["t"] == "lobby")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    other_tab.close().await;
    bob.no_event("seek_removed", |_| true).await;
    assert_eq!(seek_ids(&mut bob).await, vec![first, second]);

    // The last one: both seeks go at once, not when the lobby stops keeping her loaded
    // (an hour here, far past the wait for the events).
    let LobbyPlayer {
        name: alice_name,
        client: alice_client,
        socket,
    } = alice;
    socket.close().await;
    for id in [first, second] {
        bob.event("seek_removed", |m| m["id"] == id).await;
    }
    assert!(seek_ids(&mut bob).await.is_empty());
    let anonymous = server.client().get("/api/seeks").await;
    let anonymous = anonymous.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(anonymous.json()["seeks"], json!([]));
    bob.fails(&format!("play {first}"), "no_such_seek").await;

    // Back in the lobby: the snapshot, then a notice naming both seeks; once only.
    let mut alice = LobbyPlayer::connect(alice_client, alice_name).await;
    let notice = alice.event("notice", |m| m["seeks"].is_array()).await;
    let ids: Vec<u64> = notice["seeks"]
        .as_array()
        .map(|s| s.iter().filter_map(|s| s["id"].as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(ids, vec![first, second], "{notice}");
    let text = notice["text"].as_str().unwrap_or_default();
    assert!(text.contains("5 0 unrated suicide"), "{text}");
    assert!(text.contains("3 2 unrated chazz"), "{text}");
    let again = LobbyPlayer::connect(alice.client.clone(), alice.name.clone()).await;
    let mut again = again;
    again.no_event("notice", |_| true).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_lobby_socket_a_seek_or_a_challenge_is_refused_but_answering_works() {
    let server =
        TestServer::start_with_lobby(fast_settings(), settings(Duration::from_secs(15))).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut carol = server.guest().await;
    for line in ["seek 5 0", &format!("match {} 3 0", bob.name)] {
        let answer = command(&mut carol.client, line).await;
        assert_eq!(answer.status, 409, "`{line}`: {:?}", answer.body);
        assert_eq!(answer.body["error"], "not_in_lobby", "{:?}", answer.body);
    }
    let json_seek = carol
        .client
        .post("/api/lobby", &json!({ "t": "seek", "time": 5, "inc": 0 }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json_seek.status, 409, "{}", json_seek.body);
    assert!(seek_ids(&mut bob).await.is_empty(), "nothing was posted");
    bob.no_event("challenge", |_| true).await;
    // Answering an auto seek over HTTP alone starts the game, and the answer names it.
    let seek = bob.seek("4 0").await;
    let answer = command(&mut carol.client, &format!("play {seek}")).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    assert_eq!(answer.body["data"]["kind"], "game_started");
    bob.event("game_started", |_| true).await;
    server.stop().await;
}

/// Alice seeks, Bob answers: the game the lobby paired, and both players' lobby sockets.
async fn paired_game(server: &TestServer) -> (LobbyPlayer, LobbyPlayer, String) {
    let mut alice = LobbyPlayer::guest(server).await;
    let mut bob = LobbyPlayer::guest(server).await;
    let seek = alice.seek("5 0").await;
    let data = bob.ok(&format!("play {seek}")).await;
    assert_eq!(data["kind"], "game_started", "{data}");
    let game_id = data["game"]["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    alice.event("game_started", |_| true).await;
    (alice, bob, game_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paired_game_a_player_never_opens_is_aborted_at_the_join_limit() {
    let join_limit = Duration::from_secs(2);
    // A first-move limit of an hour: an abort within the wait below is the join limit's,
    // however slow the machine.
    let game_settings = GameSettings {
        first_move_limit: Duration::from_secs(60 * 60),
        ..fast_settings()
    };
    let server = TestServer::start_with_lobby(game_settings, settings(join_limit)).await;
    // Alice's lobby page heard of the game but never opens it (its tab was lost).
    let (_alice, bob, game_id) = paired_game(&server).await;
    let mut black_or_white = bob
        .client
        .connect_game(&game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let ended = black_or_white
        .wait_for(Duration::from_secs(20), |m| m["kind"] == "ended")
        .await
        .unwrap_or_else(|e| panic!("no end: {e}"));
    assert_eq!(ended["outcome"]["reason"], "aborted", "{ended}");
    assert_eq!(stored_record(&server, &game_id).await["status"], "aborted");

    // Both players open the next one: it is not aborted at the join limit.
    let (alice, bob, game_id) = paired_game(&server).await;
    let mut sockets = Vec::new();
    for player in [&alice, &bob] {
        let socket = player.client.connect_game(&game_id, None).await;
        sockets.push(socket.unwrap_or_else(|e| panic!("{e}")));
    }
    // A fixed wait: that the game is not aborted shows only once the join limit (counted
    // from the pairing, before the sockets opened) has passed, and nothing the server sends
    // marks that moment (see `wait_until` on paused time).
    tokio::time::sleep(join_limit + Duration::from_secs(1)).await;
    assert_eq!(stored_record(&server, &game_id).await["status"], "active");
    server.stop().await;
}
