//! A game's chat and live spectator count over real sockets: each room reaches its own
//! readers only (a spectator's line never reaches a player), refused lines reach nobody,
//! lines come back in the snapshot after a reconnect and after a restart, the stored chat is
//! read through the API by who may read it, a line the store cannot take is sent to nobody, the multiplexed socket filters as the game
//! socket does, and the spectator count follows spectators coming and going.
//!
//! "Reaches nobody" is checked without waiting for a silence: each socket's messages come
//! in the order the game sent them, so after a refused or foreign line, the first chat line
//! a socket gets must be a later one sent on purpose.

use crate::outage::{wait_for_health, PrivatePostgres};
use crate::server::{fast_settings, Player, TestServer, Watcher};
use crate::ws_game::start_game;
use oddboard_client::{Client, GameSocket};
use serde_json::{json, Value};

/// Sends a line of chat.
async fn say(watcher: &mut Watcher, text: &str) {
    watcher.send(json!({ "t": "chat", "text": text })).await;
}

/// Reads up to the next chat line and returns it.
async fn next_chat(watcher: &mut Watcher) -> Value {
    loop {
        let message = watcher.next().await;
        if message["t"] == "chat" {
            return message;
        }
    }
}

/// Reads up to the next chat line and returns its text.
pub(crate) async fn next_chat_text(watcher: &mut Watcher) -> String {
    let line = next_chat(watcher).await;
    line["text"].as_str().unwrap_or_default().to_string()
}

/// Reads up to the next spectator count and returns it.
async fn next_count(watcher: &mut Watcher) -> u64 {
    loop {
        let message = watcher.next().await;
        if message["t"] == "spectators" {
            return message["n"].as_u64().unwrap_or(u64::MAX);
        }
    }
}

/// A socket of someone not signed in.
async fn anonymous(server: &TestServer, game_id: &str) -> Watcher {
    let socket = server
        .client()
        .connect_game(game_id, None)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let mut watcher = Watcher::new(socket);
    watcher.read_until(|w| w.version.is_some()).await;
    watcher
}

/// The texts of the snapshot's chat a new connection of `client` gets.
async fn snapshot_chat(client: &Client, game_id: &str) -> Vec<String> {
    let mut socket: GameSocket = client
        .connect_game(game_id, None)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let snapshot = socket
        .wait_for(crate::server::WAIT, |m| m["t"] == "snapshot")
        .await
        .unwrap_or_else(|e| panic!("snapshot: {e}"));
    socket.close().await;
    let lines = snapshot["game"]["chat"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for line in &lines {
        assert!(line.get("t").is_none(), "{line}");
        assert!(
            line["at"].as_str().is_some_and(|at| at.ends_with('Z')),
            "{line}"
        );
    }
    lines
        .iter()
        .map(|l| l["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A started untimed game of Alice (White) and Bob (Black), both watching, and Eve, a
/// guest, watching it.
struct Room {
    server: TestServer,
    game_id: String,
    alice: Player,
    bob: Player,
    eve: Player,
    alice_view: Watcher,
    bob_view: Watcher,
    eve_view: Watcher,
}

impl Room {
    async fn open(clock: Value) -> Room {
        let server = TestServer::start(fast_settings()).await;
        let mut alice = server.guest().await;
        let mut bob = server.guest().await;
        let eve = server.guest().await;
        let game_id = start_game(&mut alice, &mut bob, "suicide", clock).await;
        let alice_view = alice.watch(&game_id).await;
        let bob_view = bob.watch(&game_id).await;
        let eve_view = eve.watch(&game_id).await;
        Room {
            server,
            game_id,
            alice,
            bob,
            eve,
            alice_view,
            bob_view,
            eve_view,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_room_reaches_its_own_readers_only() {
    let mut room = Room::open(Value::Null).await;
    let mut nobody = anonymous(&room.server, &room.game_id).await;

    say(&mut room.alice_view, "  good luck  ").await;
    let line = next_chat(&mut room.bob_view).await;
    assert_eq!(line["room"], "players");
    assert_eq!(line["from"], room.alice.name.as_str());
    assert_eq!(line["text"], "good luck");
    assert!(
        line["at"].as_str().is_some_and(|at| at.ends_with('Z')),
        "{line}"
    );
    assert_eq!(line.get("v"), None, "chat is not a versioned event");
    // The writer's own line is their acknowledgement.
    assert_eq!(next_chat_text(&mut room.alice_view).await, "good luck");

    say(&mut room.eve_view, "hello crowd").await;
    // Alice's line came first but is not theirs: each spectator's first line is Eve's.
    let line = next_chat(&mut room.eve_view).await;
    assert_eq!(
        (line["room"].as_str(), line["text"].as_str()),
        (Some("spectators"), Some("hello crowd"))
    );
    assert_eq!(line["from"], room.eve.name.as_str());
    assert_eq!(next_chat_text(&mut nobody).await, "hello crowd");

    say(&mut room.bob_view, "thanks").await;
    // Eve's line came before Bob's, and reaches neither player.
    assert_eq!(next_chat_text(&mut room.alice_view).await, "thanks");
    assert_eq!(next_chat_text(&mut room.bob_view).await, "thanks");

    // The players play on undisturbed, and the spectators see the move.
    let legal = room.alice_view.legal.clone();
    room.alice_view.act(&legal[0]).await;
    nobody.read_until(|w| w.ply == 1).await;
    room.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_lines_are_answered_to_their_writer_and_reach_nobody() {
    let mut room = Room::open(Value::Null).await;
    let mut nobody = anonymous(&room.server, &room.game_id).await;

    for (text, code) in [
        ("   ".to_string(), "chat_empty"),
        ("x".repeat(141), "chat_too_long"),
        ("two\nlines".to_string(), "chat_bad_character"),
    ] {
        say(&mut room.alice_view, &text).await;
        room.alice_view.expect_error(code).await;
        say(&mut room.eve_view, &text).await;
        room.eve_view.expect_error(code).await;
    }
    // Within the frame limit, 140 characters of two bytes each are one line.
    say(&mut room.alice_view, &"é".repeat(140)).await;
    assert_eq!(next_chat_text(&mut room.bob_view).await, "é".repeat(140));
    // The socket's own frame limit comes first.
    say(&mut room.alice_view, &"x".repeat(5000)).await;
    room.alice_view.expect_error("frame_too_large").await;

    say(&mut nobody, "let me in").await;
    nobody.expect_error("sign_in_to_chat").await;

    // Four more lines make five in ten seconds; the sixth is too fast.
    for i in 1..=4 {
        say(&mut room.alice_view, &format!("line {i}")).await;
    }
    say(&mut room.alice_view, "one too many").await;
    room.alice_view.expect_error("chat_too_fast").await;
    // Eve is not held up by Alice.
    say(&mut room.eve_view, "still here").await;

    for i in 1..=4 {
        assert_eq!(
            next_chat_text(&mut room.bob_view).await,
            format!("line {i}")
        );
    }
    say(&mut room.bob_view, "after").await;
    assert_eq!(next_chat_text(&mut room.bob_view).await, "after");
    // None of the refused lines reached a spectator: the first they see is Eve's good one.
    assert_eq!(next_chat_text(&mut nobody).await, "still here");
    assert_eq!(next_chat_text(&mut room.eve_view).await, "still here");

    // And none was stored.
    let stored = room
        .server
        .fetch_number("select count(*) from game_chat")
        .await;
    assert_eq!(stored, 1 + 4 + 1 + 1);
    room.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_is_in_the_snapshot_after_a_reconnect_and_after_a_restart() {
    // A game with a clock, which a restarting server resumes at once.
    let clock = json!({ "minutes": 10, "increment": 0 });
    let mut room = Room::open(clock).await;
    say(&mut room.alice_view, "gl").await;
    assert_eq!(next_chat_text(&mut room.bob_view).await, "gl");
    say(&mut room.eve_view, "go alice").await;
    assert_eq!(next_chat_text(&mut room.eve_view).await, "go alice");

    assert_eq!(snapshot_chat(&room.bob.client, &room.game_id).await, ["gl"]);
    assert_eq!(
        snapshot_chat(&room.eve.client, &room.game_id).await,
        ["go alice"]
    );
    assert_eq!(
        snapshot_chat(&room.server.client(), &room.game_id).await,
        ["go alice"]
    );

    let Room {
        server,
        game_id,
        mut alice,
        mut bob,
        mut eve,
        ..
    } = room;
    let server = server.restart(fast_settings()).await;
    for player in [&mut alice, &mut bob, &mut eve] {
        let cookie = player.client.cookie.take();
        player.client = Client::new(server.addr.clone());
        player.client.cookie = cookie;
    }
    assert_eq!(snapshot_chat(&alice.client, &game_id).await, ["gl"]);
    assert_eq!(snapshot_chat(&eve.client, &game_id).await, ["go alice"]);

    // The chat goes on after the lines read back.
    let mut bob_view = bob.watch(&game_id).await;
    say(&mut bob_view, "ty").await;
    assert_eq!(next_chat_text(&mut bob_view).await, "ty");
    assert_eq!(snapshot_chat(&alice.client, &game_id).await, ["gl", "ty"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stored_chat_is_read_by_who_may_read_it() {
    let mut room = Room::open(Value::Null).await;
    say(&mut room.bob_view, "between us").await;
    assert_eq!(next_chat_text(&mut room.alice_view).await, "between us");
    say(&mut room.eve_view, "for all").await;
    assert_eq!(next_chat_text(&mut room.eve_view).await, "for all");

    let path = format!("/api/games/{}/chat", room.game_id);
    let read = |body: Value| -> Vec<(String, String)> {
        assert_eq!(body["game_id"], room.game_id.as_str());
        let lines = body["chat"].as_array().cloned().unwrap_or_default();
        lines
            .iter()
            .map(|l| {
                (
                    l["room"].as_str().unwrap_or_default().into(),
                    l["text"].as_str().unwrap_or_default().into(),
                )
            })
            .collect()
    };
    let both = vec![
        ("players".to_string(), "between us".to_string()),
        ("spectators".to_string(), "for all".to_string()),
    ];
    let spectators = vec![("spectators".to_string(), "for all".to_string())];
    let mut answers = Vec::new();
    for client in [
        &mut room.alice.client,
        &mut room.eve.client,
        &mut room.server.client(),
    ] {
        let response = client.get(&path).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(response.status, 200);
        answers.push(read(response.json()));
    }
    assert_eq!(answers, [both, spectators.clone(), spectators]);

    let mut anyone = room.server.client();
    let unknown = anyone
        .get(&format!("/api/games/{}/chat", uuid::Uuid::new_v4()))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"], "game_not_found");
    room.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_multiplexed_socket_carries_chat_and_filters_it_as_the_game_socket_does() {
    let mut room = Room::open(Value::Null).await;
    let gid = room.game_id.clone();
    let mut eve = room
        .eve
        .client
        .connect_games()
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    eve.send(&json!({ "t": "watch", "gid": gid }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let wait = crate::server::WAIT;
    eve.wait_for(wait, |m| m["t"] == "snapshot")
        .await
        .unwrap_or_else(|e| panic!("{e}"));

    say(&mut room.alice_view, "players only").await;
    assert_eq!(next_chat_text(&mut room.bob_view).await, "players only");
    let wrapped = json!({ "t": "game", "gid": gid, "msg": { "t": "chat", "text": "via mux" } });
    eve.send(&wrapped).await.unwrap_or_else(|e| panic!("{e}"));
    let line = eve
        .wait_for(wait, |m| m["t"] == "chat")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(line["gid"], gid.as_str());
    assert_eq!(
        (line["room"].as_str(), line["text"].as_str()),
        (Some("spectators"), Some("via mux"))
    );
    // On Eve's game socket too, and never on a player's.
    assert_eq!(next_chat_text(&mut room.eve_view).await, "via mux");
    say(&mut room.bob_view, "still players only").await;
    assert_eq!(next_chat_text(&mut room.alice_view).await, "players only");
    assert_eq!(
        next_chat_text(&mut room.alice_view).await,
        "still players only"
    );
    room.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_spectator_count_follows_spectators_coming_and_going() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let eve = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut alice_view = alice.watch(&game_id).await;
    let _bob_view = bob.watch(&game_id).await;

    let eve_view = eve.watch(&game_id).await;
    assert_eq!(next_count(&mut alice_view).await, 1);
    let mut nobody = anonymous(&server, &game_id).await;
    assert_eq!(next_count(&mut alice_view).await, 2);
    eve_view.socket.close().await;
    assert_eq!(next_count(&mut alice_view).await, 1);
    // Spectators hear it too, anonymous ones included (the count of two may come first,
    // had it not been sent yet when this one subscribed).
    let mut heard = next_count(&mut nobody).await;
    if heard == 2 {
        heard = next_count(&mut nobody).await;
    }
    assert_eq!(heard, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_the_database_refuses_is_sent_to_nobody() {
    let mut room = Room::open(Value::Null).await;
    room.server
        .execute("alter table game_chat add constraint test_refuses check (false) not valid;")
        .await;
    say(&mut room.alice_view, "lost").await;
    room.alice_view.expect_error("storage_failed").await;
    say(&mut room.eve_view, "lost too").await;
    room.eve_view.expect_error("storage_failed").await;
    room.server
        .execute("alter table game_chat drop constraint test_refuses;")
        .await;
    say(&mut room.alice_view, "kept").await;
    assert_eq!(next_chat_text(&mut room.bob_view).await, "kept");
    assert_eq!(next_chat_text(&mut room.alice_view).await, "kept");
    say(&mut room.eve_view, "kept too").await;
    assert_eq!(next_chat_text(&mut room.eve_view).await, "kept too");
    assert_eq!(
        snapshot_chat(&room.bob.client, &room.game_id).await,
        ["kept"]
    );
    room.server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_postgresql_is_away_a_line_is_refused_at_once_and_sent_to_nobody() {
    let postgres = PrivatePostgres::start();
    let server = TestServer::start_configured(fast_settings(), |config| {
        config.database_url = postgres.url("oddboard_chat_outage");
    })
    .await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let eve = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut alice_view = alice.watch(&game_id).await;
    let mut bob_view = bob.watch(&game_id).await;
    let mut eve_view = eve.watch(&game_id).await;

    postgres.stop();
    wait_for_health(&server.addr, 503).await;
    say(&mut alice_view, "into the void").await;
    alice_view.expect_error("store_unavailable").await;
    say(&mut eve_view, "anyone?").await;
    eve_view.expect_error("store_unavailable").await;

    postgres.start_again();
    wait_for_health(&server.addr, 200).await;
    say(&mut alice_view, "back").await;
    assert_eq!(next_chat_text(&mut bob_view).await, "back");
    say(&mut eve_view, "welcome back").await;
    assert_eq!(next_chat_text(&mut eve_view).await, "welcome back");
    assert_eq!(snapshot_chat(&bob.client, &game_id).await, ["back"]);
    server.stop().await;
}
