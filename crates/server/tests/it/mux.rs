//! The multiplexed socket (`/ws/games`) with real clients: two players play a game of every
//! playable variant at once, each over one socket, with a spectator who drops off mid-way
//! and catches up; every kind of bad input, which gets an error and changes nothing; the
//! limit of games one socket watches; and a preview watch, which follows a game while the
//! game counts it as nobody.

use crate::server::{choose, fast_settings, GameState, Player, TestServer, WAIT};
use oddboard::rules::Variant;
use oddboard_client::GameSocket;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Plies after which a test game is resigned if the rules have not ended it.
const PLY_CAP: u64 = 120;

/// One multiplexed socket and what it knows of each game it watches.
pub(crate) struct MuxClient {
    socket: GameSocket,
    games: HashMap<String, GameState>,
    /// Messages about no game (errors about the frame itself, `pong`).
    untagged: Vec<Value>,
    /// Games the server said this socket no longer watches.
    unwatched: Vec<String>,
}

impl MuxClient {
    pub(crate) async fn open(player: &Player) -> MuxClient {
        let socket = player
            .client
            .connect_games()
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        MuxClient {
            socket,
            games: HashMap::new(),
            untagged: Vec::new(),
            unwatched: Vec::new(),
        }
    }

    pub(crate) fn game(&self, gid: &str) -> &GameState {
        self.games
            .get(gid)
            .unwrap_or_else(|| panic!("no message yet about game {gid}"))
    }

    async fn send(&mut self, message: Value) {
        self.socket
            .send(&message)
            .await
            .unwrap_or_else(|e| panic!("send: {e}"));
    }

    /// Watches a game (after version `since` if given) and reads up to its snapshot or
    /// missed events.
    pub(crate) async fn watch(&mut self, gid: &str, since: Option<u64>) {
        self.send(json!({ "t": "watch", "gid": gid, "v": since }))
            .await;
        if since.is_none() {
            self.read_until(|c| c.games.get(gid).is_some_and(|g| g.version.is_some()))
                .await;
        }
    }

    /// Watches a game as a preview and reads up to its snapshot.
    async fn preview(&mut self, gid: &str) {
        self.send(json!({ "t": "watch", "gid": gid, "preview": true }))
            .await;
        self.read_until(|c| c.games.get(gid).is_some_and(|g| g.version.is_some()))
            .await;
    }

    /// Sends a `/ws/game/{id}` message for one game.
    async fn send_game(&mut self, gid: &str, message: Value) {
        self.send(json!({ "t": "game", "gid": gid, "msg": message }))
            .await;
    }

    async fn act(&mut self, gid: &str, action: &str) {
        let ply = self.game(gid).ply + 1;
        self.send_game(gid, json!({ "t": "act", "ply": ply, "action": action }))
            .await;
    }

    fn absorb(&mut self, message: &Value) {
        let Some(gid) = message["gid"].as_str() else {
            self.untagged.push(message.clone());
            return;
        };
        if message["t"] == "unwatched" {
            self.unwatched.push(gid.to_string());
            return;
        }
        self.games
            .entry(gid.to_string())
            .or_default()
            .absorb(message);
    }

    pub(crate) async fn read_until(&mut self, mut done: impl FnMut(&MuxClient) -> bool) {
        while !done(self) {
            let message = self
                .socket
                .next(WAIT)
                .await
                .unwrap_or_else(|e| panic!("waiting on the multiplexed socket: {e}"));
            self.absorb(&message);
        }
    }

    /// Waits for the next error about `gid` (None: about the frame) and checks its code.
    async fn expect_error(&mut self, gid: Option<&str>, code: &str) {
        let count = |c: &MuxClient| match gid {
            Some(gid) => c.games.get(gid).map_or(0, |g| g.errors.len()),
            None => c.untagged.iter().filter(|m| m["t"] == "error").count(),
        };
        let before = count(self);
        self.read_until(|c| count(c) > before).await;
        let got = match gid {
            Some(gid) => self.game(gid).errors.last().cloned(),
            None => self
                .untagged
                .iter()
                .rev()
                .find(|m| m["t"] == "error")
                .cloned(),
        };
        let got = got.unwrap_or_default();
        assert_eq!(got["code"], code, "expected error {code}, got {got}");
    }
}

/// A started game without a clock between the two (creator White), by variant id.
async fn start_game(white: &mut Player, black: &mut Player, variant: &str) -> String {
    let gid = white.create_game(variant, Value::Null, "white").await;
    black.accept(&gid).await;
    gid
}

/// One round over every unfinished game: each side to move plays (all the round's actions
/// go out before any answer is read), then every socket reads until each game is past the
/// ply it was at.
async fn play_round(white: &mut MuxClient, black: &mut MuxClient, others: &mut [&mut MuxClient]) {
    let mut plies = Vec::new();
    for gid in white.games.keys().cloned().collect::<Vec<_>>() {
        let game = white.game(&gid);
        let ply = game.ply;
        if game.outcome.is_some() {
            continue;
        }
        if ply >= PLY_CAP {
            white.send_game(&gid, json!({ "t": "resign" })).await;
        } else if game.is_my_turn() {
            let action = choose(&game.legal, ply);
            white.act(&gid, &action).await;
        } else {
            let action = choose(&black.game(&gid).legal, ply);
            black.act(&gid, &action).await;
        }
        plies.push((gid, ply));
    }
    for client in [white, black]
        .into_iter()
        .chain(others.iter_mut().map(|c| &mut **c))
    {
        for (gid, ply) in &plies {
            client
                .read_until(|c| {
                    let game = c.game(gid);
                    game.ply > *ply || game.outcome.is_some()
                })
                .await;
        }
    }
}

fn all_over(client: &MuxClient) -> bool {
    client.games.values().all(|g| g.outcome.is_some())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_socket_each_plays_every_variant_at_once_with_a_spectator_who_catches_up() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let carol = server.guest().await;
    let mut games = Vec::new();
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        games.push((
            start_game(&mut alice, &mut bob, variant.key()).await,
            variant,
        ));
    }
    let mut white = MuxClient::open(&alice).await;
    let mut black = MuxClient::open(&bob).await;
    let mut spectator = MuxClient::open(&carol).await;
    for (gid, _) in &games {
        white.watch(gid, None).await;
        black.watch(gid, None).await;
        spectator.watch(gid, None).await;
        assert_eq!(white.game(gid).you.as_deref(), Some("white"));
        assert_eq!(black.game(gid).you.as_deref(), Some("black"));
        assert_eq!(spectator.game(gid).you, None);
    }

    for _ in 0..6 {
        play_round(&mut white, &mut black, &mut [&mut spectator]).await;
    }
    // The spectator drops off; the games go on; it comes back on a new socket and watches
    // each game after the version it saw, getting what it missed.
    let seen = std::mem::take(&mut spectator.games);
    spectator.socket.close().await;
    for _ in 0..3 {
        play_round(&mut white, &mut black, &mut []).await;
    }
    spectator = MuxClient::open(&carol).await;
    spectator.games = seen;
    for (gid, _) in &games {
        let since = spectator.game(gid).version;
        spectator.watch(gid, since).await;
    }
    for (gid, _) in &games {
        let (ply, ended) = (white.game(gid).ply, white.game(gid).outcome.is_some());
        spectator
            .read_until(|c| c.game(gid).ply >= ply && (c.game(gid).outcome.is_some() || !ended))
            .await;
    }

    while !all_over(&white) {
        play_round(&mut white, &mut black, &mut [&mut spectator]).await;
    }
    let mut client = server.client();
    for (gid, variant) in &games {
        let outcome = white.game(gid).outcome.clone();
        assert!(outcome.is_some(), "{variant}");
        assert_eq!(black.game(gid).outcome, outcome, "{variant}");
        assert_eq!(spectator.game(gid).outcome, outcome, "{variant}");
        assert_eq!(black.game(gid).moves, white.game(gid).moves, "{variant}");
        assert_eq!(
            spectator.game(gid).moves,
            white.game(gid).moves,
            "{variant}"
        );
        // Every action the players were told of is stored.
        let record = client
            .get(&format!("/api/games/{gid}"))
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .json();
        let stored: Vec<&str> = record["actions"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x["machine"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(stored, white.game(gid).moves, "{variant}");
        assert_eq!(record["status"], "finished", "{variant}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_on_the_multiplexed_socket_gets_an_error_and_changes_nothing() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let carol = server.guest().await;
    let gid = start_game(&mut alice, &mut bob, "suicide").await;
    let mut white = MuxClient::open(&alice).await;
    let mut black = MuxClient::open(&bob).await;
    let mut spectator = MuxClient::open(&carol).await;

    refuses_unreadable_frames(&mut white, &gid).await;
    // A game not watched yet, and one that does not exist.
    white
        .send_game(&gid, json!({ "t": "act", "ply": 1, "action": "e2e3" }))
        .await;
    white.expect_error(Some(&gid), "not_watching").await;
    let nowhere = "0190a5e8-0000-7000-8000-000000000000";
    white.watch(nowhere, Some(0)).await;
    white.expect_error(Some(nowhere), "game_not_found").await;

    white.watch(&gid, None).await;
    black.watch(&gid, None).await;
    spectator.watch(&gid, None).await;
    white.watch(&gid, Some(0)).await;
    white.expect_error(Some(&gid), "already_watching").await;
    // Out of turn, an illegal action, a spectator's action, a wrong ply.
    let legal = white.game(&gid).legal.clone();
    black.act(&gid, "e7e6").await;
    black.expect_error(Some(&gid), "not_your_turn").await;
    white.act(&gid, "e2e5").await;
    white.expect_error(Some(&gid), "illegal_action").await;
    spectator.act(&gid, &legal[0]).await;
    spectator.expect_error(Some(&gid), "not_a_player").await;
    white
        .send_game(&gid, json!({ "t": "act", "ply": 3, "action": legal[0] }))
        .await;
    white.expect_error(Some(&gid), "wrong_ply").await;
    // Nothing changed: the game is still at its start, and a legal action still plays.
    assert_eq!(white.game(&gid).ply, 0);
    white.act(&gid, &legal[0]).await;
    for client in [&mut white, &mut black, &mut spectator] {
        client.read_until(|c| c.game(&gid).ply == 1).await;
        assert_eq!(client.game(&gid).moves, vec![legal[0].clone()]);
    }
    unwatching_stops_a_game(&mut spectator, &mut white, &mut black, &gid).await;

    // A logout closes the session's multiplexed socket as it does its game sockets.
    alice
        .client
        .post("/api/auth/logout", &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reason = white
        .socket
        .closed(WAIT)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reason, "logged_out");
    server.stop().await;
}

/// Frames the socket cannot read, each answered with an error about no game.
async fn refuses_unreadable_frames(white: &mut MuxClient, gid: &str) {
    white.send(json!({ "t": "fly" })).await;
    white.expect_error(None, "unknown_message").await;
    white
        .socket
        .send_text("{not json".into())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    white.expect_error(None, "bad_message").await;
    white
        .send(json!({ "t": "act", "ply": 1, "action": "e2e3" }))
        .await;
    white.expect_error(None, "unknown_message").await;
    white
        .send(json!({ "t": "game", "gid": gid, "msg": { "t": "fly" } }))
        .await;
    white.expect_error(None, "unknown_message").await;
    white
        .send(json!({ "t": "game", "gid": gid, "msg": { "t": "act", "ply": 1 } }))
        .await;
    white.expect_error(None, "bad_message").await;
    let long = format!(
        r#"{{"t":"game","gid":"{gid}","msg":{{"t":"act","ply":1,"action":"{}"}}}}"#,
        "x".repeat(5000)
    );
    white
        .socket
        .send_text(long)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    white.expect_error(None, "frame_too_large").await;
}

/// Once `spectator` unwatches the game (at ply 1), its messages stop and its actions are
/// refused, while the players play on.
async fn unwatching_stops_a_game(
    spectator: &mut MuxClient,
    white: &mut MuxClient,
    black: &mut MuxClient,
    gid: &str,
) {
    spectator.send(json!({ "t": "unwatch", "gid": gid })).await;
    spectator
        .read_until(|c| c.unwatched.iter().any(|u| u == gid))
        .await;
    spectator.send(json!({ "t": "ping" })).await;
    spectator
        .read_until(|c| c.untagged.iter().any(|m| m["t"] == "pong"))
        .await;
    let reply = black.game(gid).legal[0].clone();
    black.act(gid, &reply).await;
    white.read_until(|c| c.game(gid).ply == 2).await;
    spectator.act(gid, "e2e4").await;
    spectator.expect_error(Some(gid), "not_watching").await;
    assert_eq!(spectator.game(gid).ply, 1, "no event after the unwatch");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_watches_at_most_its_limit_of_games() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let carol = server.guest().await;
    let limit = oddboard::web::mux::MAX_WATCHED;
    let mut games = Vec::new();
    for _ in 0..=limit {
        games.push(start_game(&mut alice, &mut bob, "suicide").await);
    }
    let mut viewer = MuxClient::open(&carol).await;
    for gid in &games[..limit] {
        viewer.send(json!({ "t": "watch", "gid": gid })).await;
    }
    viewer
        .read_until(|c| c.games.values().filter(|g| g.version.is_some()).count() == limit)
        .await;
    let last = &games[limit];
    viewer.watch(last, Some(0)).await;
    viewer.expect_error(Some(last), "too_many_games").await;
    // One unwatched makes room for it.
    viewer
        .send(json!({ "t": "unwatch", "gid": games[0] }))
        .await;
    viewer.watch(last, None).await;
    assert_eq!(viewer.game(last).status, "active");
    server.stop().await;
}

/// What a fresh connection of `player` reads in the game's snapshot: its spectator count and
/// its absent seats.
async fn spectators_and_absent(player: &Player, gid: &str) -> (Value, Value) {
    let mut socket = player
        .client
        .connect_game(gid, None)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let snapshot = socket
        .wait_for(WAIT, |m| m["t"] == "snapshot")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (
        snapshot["game"]["spectators"].clone(),
        snapshot["game"]["absent"].clone(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_follows_a_game_counted_as_nobody_and_only_reads() {
    let server = TestServer::start(fast_settings()).await;
    let mut white = server.guest().await;
    let mut black = server.guest().await;
    let carol = server.guest().await;
    let gid = start_game(&mut white, &mut black, "suicide").await;
    let mut white_socket = MuxClient::open(&white).await;
    white_socket.watch(&gid, None).await;

    // Black previews their own game (the lobby's live board) and Carol previews it too.
    let mut black_preview = MuxClient::open(&black).await;
    black_preview.preview(&gid).await;
    assert_eq!(
        black_preview.game(&gid).you,
        None,
        "a preview reads what a spectator reads"
    );
    let mut carol_preview = MuxClient::open(&carol).await;
    carol_preview.preview(&gid).await;
    let (spectators, absent) = spectators_and_absent(&white, &gid).await;
    assert_eq!(spectators, json!(0), "previews are no spectators");
    assert_eq!(
        absent,
        json!(["black"]),
        "a player's preview is not presence"
    );

    // Both previews follow the game's actions.
    let first = white_socket.game(&gid).legal[0].clone();
    white_socket.act(&gid, &first).await;
    white_socket.read_until(|c| c.game(&gid).ply == 1).await;
    for preview in [&mut black_preview, &mut carol_preview] {
        preview.read_until(|c| c.game(&gid).ply == 1).await;
        assert_eq!(preview.game(&gid).moves, vec![first.clone()]);
    }

    // A preview only reads: its game messages are refused and change nothing.
    let reply = black_preview.game(&gid).legal[0].clone();
    black_preview.act(&gid, &reply).await;
    black_preview.expect_error(Some(&gid), "preview_only").await;
    black_preview
        .send_game(&gid, json!({ "t": "resign" }))
        .await;
    black_preview.expect_error(Some(&gid), "preview_only").await;
    let fresh = white.watch(&gid).await;
    assert_eq!((fresh.ply, fresh.status.as_str()), (1, "active"));
    // It may catch up as any spectator does: `sync` is answered with what it missed.
    black_preview
        .send_game(&gid, json!({ "t": "sync", "v": 0 }))
        .await;
    let batch = loop {
        let message = black_preview
            .socket
            .next(WAIT)
            .await
            .unwrap_or_else(|e| panic!("waiting for the sync's answer: {e}"));
        if message["t"] == "batch" {
            break message;
        }
        black_preview.absorb(&message);
    };
    assert_eq!(batch["gid"], gid.as_str(), "{batch}");
    let caught_up: Vec<&Value> = batch["messages"]
        .as_array()
        .map(|m| m.iter().filter(|e| e["kind"] == "action").collect())
        .unwrap_or_default();
    assert_eq!(caught_up.len(), 1, "{batch}");
    assert_eq!(caught_up[0]["machine"], first.as_str(), "{batch}");

    // Watched for real, the same users count: Carol as a spectator, Black as present.
    let mut carol_socket = MuxClient::open(&carol).await;
    carol_socket.watch(&gid, None).await;
    let mut black_socket = MuxClient::open(&black).await;
    black_socket.watch(&gid, None).await;
    let (spectators, absent) = spectators_and_absent(&white, &gid).await;
    assert_eq!(spectators, json!(1));
    assert_eq!(absent, json!([]));

    // Ending the previews takes nothing away from those counts.
    for preview in [&mut carol_preview, &mut black_preview] {
        preview.send(json!({ "t": "unwatch", "gid": gid })).await;
        preview.read_until(|c| c.unwatched.contains(&gid)).await;
    }
    let (spectators, absent) = spectators_and_absent(&white, &gid).await;
    assert_eq!(spectators, json!(1));
    assert_eq!(absent, json!([]));
    server.stop().await;
}
