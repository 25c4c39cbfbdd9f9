//! The lobby's JSON forms and races against a real server: commands as JSON over the socket
//! (replies, errors and pongs answering their `ref`) and over HTTP (a refused command is
//! the HTTP error with its status); two `play`s of one seek, three seeks of one user paired
//! at once, an accept against a pairing.

use super::lobby::{command, server, LobbyPlayer};
use oddboard_client::Client;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_forms_over_the_socket() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    alice
        .socket
        .send(&json!({ "t": "seek", "time": 3, "inc": 1, "manual": true, "ref": "a1" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reply = alice.event("reply", |_| true).await;
    assert_eq!(reply["ref"], "a1");
    assert_eq!(reply["data"]["kind"], "seek_posted");
    let id = reply["data"]["seek"]["id"].clone();
    assert!(reply["reply"]
        .as_str()
        .unwrap_or_default()
        .contains("posted with index"));
    // A text command over the socket.
    alice
        .socket
        .send(&json!({ "t": "command", "line": "sought all" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reply = alice.event("reply", |_| true).await;
    assert!(reply["reply"]
        .as_str()
        .unwrap_or_default()
        .contains("1 ads displayed."));
    // A refused command is the error event, answering its `ref`, with the FICS text.
    alice
        .socket
        .send(&json!({ "t": "play", "seek": id, "ref": 2 }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let error = alice.event("error", |e| e["ref"] == 2).await;
    assert_eq!(error["code"], "own_seek", "{error}");
    assert_eq!(error["message"], "You cannot respond to your own seek.");
    alice
        .socket
        .send(&json!({ "t": "ping", "ref": "p" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    alice.event("pong", |p| p["ref"] == "p").await;
    alice
        .socket
        .send_text("{\"t\":\"fly\"}".into())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let error = alice.event("error", |_| true).await;
    assert_eq!(error["code"], "unknown_message");
    // A command that cannot be read answers its `ref`, so the sender's wait ends.
    alice
        .socket
        .send(&json!({ "t": "seek", "time": 2.5, "inc": 0, "ref": 3 }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let error = alice.event("error", |_| true).await;
    assert_eq!(error["ref"], 3, "{error}");
    // Over 4 KiB (read over several of the socket's 1 KiB reads): refused, and the socket
    // goes on.
    let long_line = format!("sought {}", "x".repeat(5000));
    alice
        .socket
        .send(&json!({ "t": "command", "line": long_line }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let error = alice.event("error", |_| true).await;
    assert_eq!(error["code"], "frame_too_large");
    alice
        .socket
        .send(&json!({ "t": "command", "line": "sought all", "ref": "after" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reply = alice.event("reply", |r| r["ref"] == "after").await;
    assert_eq!(reply["data"]["kind"], "seeks", "{reply}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_forms_over_http() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let id = alice.seek("3 1 manual").await;
    // POST /api/lobby takes the same JSON as the socket.
    let response = bob
        .client
        .post("/api/lobby", &json!({ "t": "play", "seek": id }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let answer = response.json();
    assert_eq!(response.status, 200, "{answer}");
    assert_eq!(answer["data"]["kind"], "challenge_sent");
    // Refused over HTTP: the HTTP error with the command's status.
    let response = bob
        .client
        .post("/api/lobby", &json!({ "t": "play", "seek": 999 }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 404, "{}", response.body);
    assert_eq!(response.json()["error"], "no_such_seek");
    assert_eq!(response.json()["message"], "That seek is not available.");
    let response = bob
        .client
        .post("/api/lobby", &json!({ "t": "seek", "colour": "red" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 422);
    // Not signed in: 401.
    let mut anonymous = server.client();
    let response = anonymous
        .post("/api/command", &json!({ "line": "seek" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 401);
    assert!(anonymous.connect_lobby().await.is_err());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_plays_of_one_seek_make_exactly_one_game() {
    let server = server().await;
    for _ in 0..3 {
        let mut alice = LobbyPlayer::guest(&server).await;
        let bob = LobbyPlayer::guest(&server).await;
        let carol = LobbyPlayer::guest(&server).await;
        let n = alice.seek("5 0").await;
        let line = format!("play {n}");
        let (mut b, mut c) = (bob.client.clone(), carol.client.clone());
        let answers = tokio::join!(command(&mut b, &line), command(&mut c, &line));
        let answers = [answers.0, answers.1];
        let games = answers.iter().filter(|a| a.status == 200).count();
        assert_eq!(games, 1, "{answers:?}");
        let loser = answers.iter().find(|a| a.status != 200);
        let loser = loser.map(|a| (a.status, a.body["error"].clone()));
        assert_eq!(loser, Some((404, json!("no_such_seek"))), "{answers:?}");
        alice.event("game_started", |_| true).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_seeks_of_one_user_matched_at_once_make_one_game_for_them() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    for args in ["1 0", "2 0", "3 0"] {
        alice.seek(args).await;
    }
    let mut others = Vec::new();
    for _ in 0..3 {
        others.push(LobbyPlayer::guest(&server).await);
    }
    let mut clients: Vec<Client> = others.iter().map(|p| p.client.clone()).collect();
    let (mut x, mut y, mut z) = (clients.remove(0), clients.remove(0), clients.remove(0));
    let (a, b, c) = tokio::join!(
        command(&mut x, "seek 1 0"),
        command(&mut y, "seek 2 0"),
        command(&mut z, "seek 3 0")
    );
    let answers: Vec<Value> = [a, b, c].into_iter().map(|a| a.body).collect();
    let games: Vec<&Value> = answers
        .iter()
        .filter(|a| a["data"]["kind"] == "game_started")
        .collect();
    assert_eq!(games.len(), 1, "{answers:?}");
    let posted = answers
        .iter()
        .filter(|a| a["data"]["kind"] == "seek_posted")
        .count();
    assert_eq!(posted, 2, "the others' seeks are posted: {answers:?}");
    alice.event("game_started", |_| true).await;
    alice
        .socket
        .send(&json!({ "t": "sought", "all": true }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reply = alice.event("reply", |_| true).await;
    let seeks = reply["data"]["seeks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        seeks.iter().all(|s| s["user"] != alice.name.as_str()),
        "none of Alice's seeks is left: {seeks:?}"
    );
    assert_eq!(seeks.len(), 2);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_accepted_while_its_senders_seek_pairs_makes_one_game() {
    let server = server().await;
    for round in 0..3 {
        let mut alice = LobbyPlayer::guest(&server).await;
        let mut bob = LobbyPlayer::guest(&server).await;
        let dave = LobbyPlayer::guest(&server).await;
        // A time of its own each round, so a seek left from an earlier round cannot pair.
        let seek = format!("seek {} 0", 5 + round);
        alice.ok(&seek).await;
        alice.ok(&format!("match {} 3 0", bob.name)).await;
        bob.event("challenge", |_| true).await;
        let (mut b, mut d) = (bob.client.clone(), dave.client.clone());
        let (accept, seek) = tokio::join!(command(&mut b, "accept"), command(&mut d, &seek));
        let (accepted, seek) = (accept.status == 200, seek.body);
        let accept = accept.body;
        let games = [&accept, &seek]
            .iter()
            .filter(|a| a["data"]["kind"] == "game_started")
            .count();
        assert_eq!(games, 1, "accept: {accept}, seek: {seek}");
        if !accepted {
            assert_eq!(accept["error"], "no_challenge");
        } else {
            assert_eq!(seek["data"]["kind"], "seek_posted");
        }
        alice.event("game_started", |_| true).await;
        alice.no_event("game_started", |_| true).await;
    }
    server.stop().await;
}
