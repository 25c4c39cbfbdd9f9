//! The lobby against a real server and database: seeks, matching (auto and manual), `play`,
//! challenges, formulas, noplay, presence and seek numbers; and the helpers the other lobby
//! tests share (`lobby_ratings`: colours, ratings, rematches, the read commands, the cap on
//! games; `lobby_protocol`: the JSON forms and the races). Every player has a real lobby
//! WebSocket; commands go through `POST /api/command` unless a test is about the JSON forms.

use crate::server::{fast_settings, TestServer, WAIT};
use oddboard::game::lobby::LobbySettings;
use oddboard_client::{expect_ok, Client, LobbySocket};
use serde_json::{json, Value};
use std::time::Duration;

/// Short timings, with room for a loaded CI machine: users are forgotten 1 s after their
/// last connection. Seek numbers rest an hour, longer than any test, so that a freed
/// number surely does not come back however slow the machine; a test of their reuse sets
/// no rest at all. The tests here do not open most games they start: the join limit is the
/// first-move limit, as if there were none (`lobby_presence` tests it).
pub(super) fn lobby_settings() -> LobbySettings {
    LobbySettings {
        forget_after: Duration::from_secs(1),
        seek_number_reuse: Duration::from_secs(60 * 60),
        join_limit: fast_settings().first_move_limit,
        ..LobbySettings::default()
    }
}

pub(super) async fn server() -> TestServer {
    TestServer::start_with_lobby(fast_settings(), lobby_settings()).await
}

/// A signed-in player with an open lobby socket.
pub(super) struct LobbyPlayer {
    pub(super) name: String,
    pub(super) client: Client,
    pub(super) socket: LobbySocket,
}

impl LobbyPlayer {
    pub(super) async fn connect(client: Client, name: String) -> LobbyPlayer {
        let mut socket = client
            .connect_lobby()
            .await
            .unwrap_or_else(|e| panic!("lobby connect: {e}"));
        let first = socket
            .next(WAIT)
            .await
            .unwrap_or_else(|e| panic!("lobby snapshot: {e}"));
        assert_eq!(first["t"], "lobby", "{first}");
        assert_eq!(first["you"]["name"], name.as_str());
        LobbyPlayer {
            name,
            client,
            socket,
        }
    }

    pub(super) async fn guest(server: &TestServer) -> LobbyPlayer {
        let player = server.guest().await;
        LobbyPlayer::connect(player.client, player.name).await
    }

    pub(super) async fn registered(server: &TestServer, name: &str) -> LobbyPlayer {
        let mut client = server.client();
        let response = client
            .post(
                "/api/auth/register",
                &json!({ "username": name, "password": "correct horse battery" }),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        expect_ok(&response).unwrap_or_else(|e| panic!("register: {e}"));
        LobbyPlayer::connect(client, name.to_string()).await
    }

    /// Runs a text command that must succeed; returns the whole answer (`reply`, `data`).
    pub(super) async fn cmd(&mut self, line: &str) -> Value {
        let answer = command(&mut self.client, line).await;
        assert_eq!(
            answer.status, 200,
            "{} `{line}`: {}",
            self.name, answer.body
        );
        answer.body
    }

    /// Runs a command that must succeed; returns its data.
    pub(super) async fn ok(&mut self, line: &str) -> Value {
        self.cmd(line).await["data"].clone()
    }

    /// Runs a command that must fail with `code`; returns the message.
    pub(super) async fn fails(&mut self, line: &str, code: &str) -> String {
        let answer = command(&mut self.client, line).await;
        let body = &answer.body;
        assert_eq!(body["error"], code, "{} `{line}`: {body}", self.name);
        assert_eq!(
            answer.status,
            status_of(code),
            "{} `{line}`: {body}",
            self.name
        );
        body["message"].as_str().unwrap_or_default().to_string()
    }

    /// Posts a seek that must not pair; returns its number.
    pub(super) async fn seek(&mut self, args: &str) -> u64 {
        let data = self.ok(&format!("seek {args}")).await;
        assert_eq!(data["kind"], "seek_posted", "{data}");
        data["seek"]["id"].as_u64().unwrap_or_default()
    }

    /// Reads lobby events until one with type `t` satisfies `accept`.
    pub(super) async fn event(&mut self, t: &str, mut accept: impl FnMut(&Value) -> bool) -> Value {
        let t = t.to_string();
        self.socket
            .wait_for(WAIT, |m| m["t"] == t.as_str() && accept(m))
            .await
            .unwrap_or_else(|e| panic!("waiting for {t}: {e}"))
    }

    /// Asserts no event with type `t` arrives within a short while.
    pub(super) async fn no_event(&mut self, t: &str, mut accept: impl FnMut(&Value) -> bool) {
        let t = t.to_string();
        let got = self
            .socket
            .wait_for(Duration::from_millis(300), |m| {
                m["t"] == t.as_str() && accept(m)
            })
            .await;
        assert!(got.is_err(), "unexpected {t}: {got:?}");
    }

    pub(super) async fn sought(&mut self, all: bool) -> Vec<Value> {
        let data = self.ok(if all { "sought all" } else { "sought" }).await;
        data["seeks"].as_array().cloned().unwrap_or_default()
    }

    /// Resigns a game over the game socket and waits for its end.
    pub(super) async fn resign(&self, game_id: &str) {
        let mut socket = self
            .client
            .connect_game(game_id, None)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        socket
            .send(&json!({ "t": "resign" }))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        socket
            .wait_for(WAIT, |m| m["kind"] == "ended")
            .await
            .unwrap_or_else(|e| panic!("waiting for the end: {e}"));
        socket.close().await;
    }
}

/// A command's HTTP answer.
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) body: Value,
}

/// Runs a text command through `POST /api/command`.
pub(super) async fn command(client: &mut Client, line: &str) -> Answer {
    let response = client
        .post("/api/command", &json!({ "line": line }))
        .await
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    Answer {
        status: response.status,
        body: response.json(),
    }
}

/// The HTTP status of a refused command's code (`docs/protocol.md`, "Lobby").
pub(super) fn status_of(code: &str) -> u16 {
    match code {
        "unknown_user" | "no_such_seek" | "no_challenge" | "no_previous_game" => 404,
        "guests_play_unrated" | "rating_out_of_range" | "formula_rejected" | "noplay" => 403,
        "too_many_seeks"
        | "duplicate_seek"
        | "user_not_online"
        | "ambiguous"
        | "too_many_games_in_progress" => 409,
        _ => 400,
    }
}

pub(super) fn game_of(data: &Value) -> Value {
    assert_eq!(data["kind"], "game_started", "{data}");
    data["game"].clone()
}

pub(super) fn ids(seeks: &[Value]) -> Vec<u64> {
    seeks.iter().filter_map(|s| s["id"].as_u64()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeks_take_fics_defaults_and_limits() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    // Defaults: time and inc from the settings (5 0 until set), unrated for a guest, auto,
    // no colour, no formula, 0-9999.
    let data = alice.ok("seek").await;
    let seek = &data["seek"];
    assert_eq!(
        (
            seek["time"].clone(),
            seek["inc"].clone(),
            seek["rated"].clone()
        ),
        (json!(5), json!(0), json!(false))
    );
    assert_eq!(seek["variant"], "suicide");
    assert_eq!(
        (seek["min"].clone(), seek["max"].clone()),
        (json!(0), json!(9999))
    );
    assert_eq!(seek["manual"], false);
    assert_eq!(seek["color"], Value::Null);
    assert_eq!(seek["rating"], Value::Null, "guests have no rating");
    alice.ok("set time 3").await;
    alice.ok("set inc 2").await;
    alice.ok("set variant chazz").await;
    let data = alice.ok("seek").await;
    assert_eq!(
        (
            data["seek"]["time"].clone(),
            data["seek"]["inc"].clone(),
            data["seek"]["variant"].clone()
        ),
        (json!(3), json!(2), json!("chazz"))
    );
    // `seek 2` keeps the default increment, as FICS's does.
    let data = alice.ok("seek 2").await;
    assert_eq!(
        (data["seek"]["time"].clone(), data["seek"]["inc"].clone()),
        (json!(2), json!(2))
    );
    // Three at most; an identical one is refused first.
    alice.fails("seek 2", "duplicate_seek").await;
    alice.fails("seek 1 0", "too_many_seeks").await;
    alice.fails("seek 1 0 rated", "guests_play_unrated").await;
    alice.fails("seek 1 0 1800-1200", "invalid_value").await;
    alice.fails("seek 500 0", "invalid_value").await;
    alice.fails("seek 1 0 sideways", "bad_command").await;
    let all = alice.sought(true).await;
    assert_eq!(ids(&all), vec![1, 2, 3]);
    assert!(
        alice.sought(false).await.is_empty(),
        "your own seeks are not for you"
    );
    let data = alice.ok("unseek 2").await;
    assert_eq!(data["ids"], json!([2]));
    alice.fails("unseek 2", "no_such_seek").await;
    let data = alice.ok("unseek").await;
    assert_eq!(data["ids"], json!([1, 3]));
    assert!(alice.sought(true).await.is_empty());
    // Registered players seek rated by default.
    let mut reg = LobbyPlayer::registered(&server, "Rita").await;
    let data = reg.ok("seek 5 0").await;
    assert_eq!(data["seek"]["rated"], true);
    assert_eq!(data["seek"]["rating"], 1500);
    assert_eq!(data["seek"]["provisional"], true);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_auto_seek_pairs_at_once_with_the_oldest_match() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut carol = LobbyPlayer::guest(&server).await;
    // Alice and Bob both want White, so they cannot pair with each other.
    let a = alice.seek("5 0 white").await;
    let b = bob.seek("5 0 white").await;
    assert_ne!(a, b);
    // Carol's black seek matches both; the oldest (Alice's) wins and Carol's is never posted.
    let data = carol.ok("seek 5 0 black").await;
    let game = game_of(&data);
    assert_eq!(game["white"], alice.name.as_str());
    assert_eq!(game["black"], carol.name.as_str());
    let answer = carol.cmd("sought all").await;
    assert_eq!(
        ids(answer["data"]["seeks"]
            .as_array()
            .map_or(&[][..], |v| v.as_slice())),
        vec![b]
    );
    let started = alice.event("game_started", |_| true).await;
    assert_eq!(started["game"]["game_id"], game["game_id"]);
    carol.event("game_started", |_| true).await;
    bob.event("seek_removed", |m| m["id"] == a).await;
    // The game exists and is live.
    let game_id = game["game_id"].as_str().unwrap_or_default().to_string();
    let record = alice
        .client
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(record["status"], "active");
    assert_eq!(record["rated"], false);
    assert_eq!(record["clock"]["initial_ms"], 300_000);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeks_pair_only_on_the_same_terms_and_compatible_colours() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    alice.seek("5 0").await;
    // Different time, increment, variant, a named colour against an open one: all posted.
    bob.seek("5 1").await;
    bob.seek("4 0").await;
    bob.seek("5 0 chazz").await;
    bob.ok("unseek").await;
    bob.seek("5 0 white").await;
    bob.seek("5 0 black").await;
    alice.ok("unseek").await;
    bob.ok("unseek").await;
    // Same colour both: no pair.
    alice.seek("5 0 black").await;
    bob.seek("5 0 black").await;
    // Opposite colours: pair, each with the colour they asked for.
    let game = game_of(&bob.ok("seek 5 0 white").await);
    assert_eq!(game["white"], bob.name.as_str());
    assert_eq!(game["black"], alice.name.as_str());
    // Rated against unrated never meets (a registered player's seek).
    let mut rita = LobbyPlayer::registered(&server, "Rita").await;
    let mut carol = LobbyPlayer::guest(&server).await;
    rita.seek("2 0 rated").await;
    carol.seek("2 0").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rating_ranges_apply_both_ways_and_to_play() {
    let server = server().await;
    let mut rita = LobbyPlayer::registered(&server, "Rita").await;
    let mut sam = LobbyPlayer::registered(&server, "Sam").await;
    let mut gus = LobbyPlayer::guest(&server).await;
    // Everyone registered starts at 1500; guests count as 0.
    let high = rita.seek("5 0 unrated 1600-9999").await;
    sam.seek("5 0 unrated").await;
    sam.fails(&format!("play {high}"), "rating_out_of_range")
        .await;
    sam.ok("unseek").await;
    // The new seek's range is checked against the old seek's owner too.
    rita.ok("unseek").await;
    rita.seek("3 0 unrated").await;
    sam.seek("3 0 unrated 0-1400").await;
    sam.ok("unseek").await;
    // Guests are 0: a 1000-2000 seek is not for them, and they do not see it.
    let mid = rita.seek("1 0 unrated 1000-2000").await;
    assert!(!ids(&gus.sought(false).await).contains(&mid));
    gus.fails(&format!("play {mid}"), "rating_out_of_range")
        .await;
    let game = game_of(&sam.ok(&format!("play {mid}")).await);
    assert_eq!(game["rated"], false);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formulas_screen_both_ways_but_play_skips_the_responders_own() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut carol = LobbyPlayer::guest(&server).await;
    // A malformed formula is refused with the position of the error.
    let reply = alice.fails("set formula inc > ", "bad_formula").await;
    assert!(reply.contains("position 6"), "{reply}");
    let reply = alice.fails("set f2 f3 + 1", "bad_formula").await;
    assert!(reply.contains("f2 may only refer to f1"), "{reply}");
    alice.ok("set f1 inc > 0").await;
    let data = alice.ok("set formula f1 && !chazz").await;
    assert_eq!(data["formula"], "f1 && !chazz");
    // Alice's formula refuses 5 0: Bob's seek and hers stay posted, and she does not see his.
    let bobs = bob.seek("5 0").await;
    alice.seek("5 0").await;
    assert!(!ids(&alice.sought(false).await).contains(&bobs));
    assert!(ids(&alice.sought(true).await).contains(&bobs));
    // Bob's formula refuses Alice on 5 2 (only inc 0 for him): no pair either way.
    bob.ok("set formula inc = 0").await;
    alice.seek("5 2").await;
    bob.seek("5 2").await;
    // Both formulas accept 7 3: they pair.
    bob.ok("set formula inc = 0 || time = 7").await;
    alice.ok("unseek").await;
    bob.ok("unseek").await;
    alice.seek("7 3").await;
    let game = game_of(&bob.ok("seek 7 3").await);
    assert!(game["white"] == alice.name.as_str() || game["black"] == alice.name.as_str());
    // `f` seeks screen responders with the seeker's formula; the responder's is not checked.
    carol.ok("set formula 0").await;
    let mut dave = LobbyPlayer::guest(&server).await;
    dave.ok("set formula time = 2").await;
    let f_seek = dave.seek("3 0 f").await;
    carol
        .fails(&format!("play {f_seek}"), "formula_rejected")
        .await;
    let plain = dave.seek("2 0 f").await;
    let game = game_of(&carol.ok(&format!("play {plain}")).await);
    assert!(game["white"] == carol.name.as_str() || game["black"] == carol.name.as_str());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manual_seeks_turn_answers_into_challenges() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut carol = LobbyPlayer::guest(&server).await;
    let n = alice.seek("5 0 white m").await;
    // `play` on a manual seek sends the seeker a challenge with the colour reversed.
    let data = bob.ok(&format!("play {n}")).await;
    assert_eq!(data["kind"], "challenge_sent");
    assert_eq!(data["challenge"]["color"], "black");
    assert_eq!(data["challenge"]["seek"], n);
    let challenge = alice.event("challenge", |_| true).await;
    assert_eq!(challenge["challenge"]["from"], bob.name.as_str());
    // A new seek that matches a manual one also issues a challenge, and is posted.
    let data = carol.ok("seek 5 0 black").await;
    assert_eq!(data["kind"], "seek_posted");
    assert_eq!(data["challenges"][0]["to"], alice.name.as_str());
    alice.fails("accept", "ambiguous").await;
    let game = game_of(&alice.ok(&format!("accept {}", bob.name)).await);
    assert_eq!(game["white"], alice.name.as_str());
    assert_eq!(game["black"], bob.name.as_str());
    bob.event("game_started", |_| true).await;
    // Carol's challenge went with Alice's game; her seek stays.
    carol
        .event("challenge_removed", |m| m["reason"] == "game_started")
        .await;
    assert_eq!(carol.sought(true).await.len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_accept_decline_withdraw_intercept_and_formula() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let bob_name = bob.name.clone();
    let alice_name = alice.name.clone();
    alice.fails("match Nobody123", "unknown_user").await;
    alice
        .fails(&format!("match {alice_name}"), "self_challenge")
        .await;
    alice
        .fails(&format!("match {bob_name} rated"), "guests_play_unrated")
        .await;
    bob.fails("accept", "no_challenge").await;
    // Decline.
    let data = alice.ok(&format!("match {bob_name} 3 0")).await;
    let id = data["challenge"]["id"].clone();
    bob.event("challenge", |m| m["challenge"]["id"] == id).await;
    let pending = bob.ok("pending").await;
    assert_eq!(pending["incoming"][0]["id"], id);
    bob.ok("decline").await;
    alice
        .event("challenge_removed", |m| {
            m["id"] == id && m["reason"] == "declined"
        })
        .await;
    // Withdraw.
    let data = alice.ok(&format!("match {bob_name} 3 0")).await;
    let id = data["challenge"]["id"].clone();
    alice.ok("withdraw").await;
    bob.event("challenge_removed", |m| {
        m["id"] == id && m["reason"] == "withdrawn"
    })
    .await;
    // Two equivalent challenges meet: the game starts at once.
    alice.ok(&format!("match {bob_name} 2 1 white duel")).await;
    let game = game_of(&bob.ok(&format!("match {alice_name} 2 1 black duel")).await);
    assert_eq!(game["white"], alice_name.as_str());
    assert_eq!(game["variant"], "duel");
    alice
        .event("challenge_removed", |m| m["reason"] == "accepted")
        .await;
    alice.event("game_started", |_| true).await;
    // A challenge the receiver's formula refuses is declined at once, with the reason.
    bob.ok("set formula time > 10").await;
    let reply = alice
        .fails(&format!("match {bob_name} 3 0"), "formula_rejected")
        .await;
    assert!(reply.contains("formula"), "{reply}");
    let notice = bob.event("notice", |_| true).await;
    assert!(
        notice["text"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Ignoring (formula)"),
        "{notice}"
    );
    // Accepting through the formula works.
    alice.ok(&format!("match {bob_name} 15 0")).await;
    let game = game_of(&bob.ok("accept").await);
    assert_eq!(game["time"], 15);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn noplay_blocks_seeks_plays_and_matches() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let bob_name = bob.name.clone();
    let alice_name = alice.name.clone();
    let data = alice.ok(&format!("+noplay {bob_name}")).await;
    assert_eq!(data["users"], json!([bob_name.clone()]));
    // Bob's list is refreshed too.
    bob.event("lobby", |_| true).await;
    let n = alice.seek("5 0").await;
    bob.seek("5 0").await;
    bob.fails(&format!("play {n}"), "noplay").await;
    let reply = bob.fails(&format!("match {alice_name}"), "noplay").await;
    assert!(reply.contains("noplay list"), "{reply}");
    assert!(!ids(&bob.sought(false).await).contains(&n));
    alice.ok(&format!("-noplay {bob_name}")).await;
    let game = game_of(&bob.ok(&format!("play {n}")).await);
    assert!(game["game_id"].is_string());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_list_follows_each_viewers_formula() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut viewer = LobbyPlayer::guest(&server).await;
    viewer.ok("set formula inc > 0").await;
    // The formula change re-sends the viewer a snapshot.
    viewer.event("lobby", |_| true).await;
    let hidden = alice.seek("5 0").await;
    let shown = alice.seek("5 2").await;
    let added = viewer.event("seek_added", |_| true).await;
    assert_eq!(added["seek"]["id"], shown, "the 5 0 seek is filtered out");
    let text = added["text"].as_str().unwrap_or_default();
    assert!(
        text.ends_with(&format!(
            "(++++) seeking 5 2 unrated suicide (\"play {shown}\" to respond)"
        )),
        "{text}"
    );
    assert_eq!(added["seek"]["user"], alice.name.as_str());
    // The seeker sees their own.
    alice
        .event("seek_added", |m| m["seek"]["id"] == hidden)
        .await;
    alice.ok(&format!("unseek {shown}")).await;
    viewer.event("seek_removed", |m| m["id"] == shown).await;
    // A new connection's snapshot is filtered the same way.
    let mut second = viewer
        .client
        .connect_lobby()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let snapshot = second
        .wait_for(WAIT, |m| m["t"] == "lobby")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(snapshot["seeks"], json!([]));
    // GET /api/seeks answers for the viewer, `all=true` for everyone.
    let seeks = viewer
        .client
        .get("/api/seeks")
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(seeks["seeks"], json!([]));
    let all = viewer
        .client
        .get("/api/seeks?all=true")
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(all["seeks"][0]["id"], hidden);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeks_go_with_a_game_start_and_a_closed_connection_and_numbers_rest() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut watcher = LobbyPlayer::guest(&server).await;
    let first = alice.seek("1 0").await;
    let second = alice.seek("2 0").await;
    let third = alice.seek("3 0").await;
    assert_eq!((first, second, third), (1, 2, 3));
    // A game started by any means (here a `match`) takes down all her seeks.
    alice.ok(&format!("match {} 9 9", bob.name)).await;
    bob.ok("accept").await;
    for id in [first, second, third] {
        watcher.event("seek_removed", |m| m["id"] == id).await;
    }
    // Freed numbers rest (an hour here) before they come back (`rested_seek_numbers_…`).
    let fourth = watcher.seek("4 0").await;
    assert_eq!(fourth, 4, "a freed number came back before its rest");
    let fifth = watcher.seek("5 0").await;
    assert_eq!(fifth, 5, "a freed number came back before its rest");
    // Bob has read past the removals of Alice's seeks once he sees the new seek.
    bob.event("seek_added", |m| {
        m["seek"]["id"] == fifth && m["seek"]["time"] == 5
    })
    .await;
    // Closing the last connection takes the seeks down at once.
    let LobbyPlayer {
        name: watcher_name,
        client: watcher_client,
        socket,
    } = watcher;
    socket.close().await;
    let the_watchers_seeks = |m: &Value| m["id"] == fourth || m["id"] == fifth;
    let mut removed = vec![
        bob.event("seek_removed", the_watchers_seeks).await["id"].clone(),
        bob.event("seek_removed", the_watchers_seeks).await["id"].clone(),
    ];
    removed.sort_by_key(|id| id.as_u64());
    let mut expected = vec![json!(fourth), json!(fifth)];
    expected.sort_by_key(|id| id.as_u64());
    assert_eq!(removed, expected);
    assert!(bob.sought(true).await.is_empty());
    // Someone who is not connected cannot be challenged.
    let _ = watcher_client;
    bob.fails(&format!("match {watcher_name}"), "user_not_online")
        .await;
    server.stop().await;
}

/// Rested numbers come back lowest first. With no rest at all, so that the order does not
/// depend on how long the machine took (the length of the rest is the lobby state's to
/// keep, tested there with its own clock).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rested_seek_numbers_come_back_lowest_first() {
    let settings = LobbySettings {
        seek_number_reuse: Duration::ZERO,
        ..lobby_settings()
    };
    let server = TestServer::start_with_lobby(fast_settings(), settings).await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let ids = [
        alice.seek("1 0").await,
        alice.seek("2 0").await,
        alice.seek("3 0").await,
    ];
    assert_eq!(ids, [1, 2, 3]);
    alice.ok("unseek 3").await;
    alice.ok("unseek 1").await;
    // Taken down last, 1 comes back first: the lowest rested number, not the oldest.
    let again = [alice.seek("4 0").await, alice.seek("5 0").await];
    assert_eq!(again, [1, 3], "rested numbers are reused, lowest first");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_by_name_numbered_offers_and_hostile_formulas_by_command() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut carol = LobbyPlayer::guest(&server).await;
    let (alice_name, bob_name) = (alice.name.clone(), bob.name.clone());
    // Offers by number; decline all; withdraw all.
    let first = bob.ok(&format!("match {alice_name} 3 0")).await["challenge"]["id"].clone();
    let second = carol.ok(&format!("match {alice_name} 4 0")).await["challenge"]["id"].clone();
    alice.fails("decline", "ambiguous").await;
    alice.fails("accept 999", "no_challenge").await;
    let data = alice.ok("decline all").await;
    assert_eq!(data["ids"], json!([first, second]));
    bob.ok(&format!("match {alice_name} 3 0")).await;
    let data = bob.ok("withdraw all").await;
    assert_eq!(data["ids"].as_array().map(Vec::len), Some(1));
    let id = carol.ok(&format!("match {alice_name} 4 0")).await["challenge"]["id"].clone();
    let game = game_of(&alice.ok(&format!("accept {id}")).await);
    assert_eq!(game["time"], 4);
    // `play <user>` answers that user's oldest seek.
    bob.seek("2 0 unrated").await;
    bob.seek("1 0 unrated").await;
    let game = game_of(&carol.ok(&format!("play {bob_name}")).await);
    assert_eq!(game["time"], 2);
    carol.fails("play Nobody123", "unknown_user").await;
    carol
        .fails(&format!("play {bob_name}"), "no_such_seek")
        .await;
    // Hostile formulas are refused without harm and the old formula stays.
    alice.ok("set formula rating >= 0").await;
    let deep = format!("set formula {}1{}", "(".repeat(40), ")".repeat(40));
    let reply = alice.fails(&deep, "bad_formula").await;
    assert!(reply.contains("nested"), "{reply}");
    let huge = format!("set formula {}1{}", "(".repeat(5000), ")".repeat(5000));
    let response = alice
        .client
        .post("/api/command", &json!({ "line": huge }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 422, "lines over 4 KiB are refused");
    let long = format!("set formula {}", "1+".repeat(2000) + "1");
    assert!(long.len() < 4096);
    alice.fails(&long, "bad_formula").await;
    alice
        .fails("set formula 99999999999999999999999", "bad_formula")
        .await;
    alice.fails("set f1 f1", "bad_formula").await;
    let data = alice.ok("set").await;
    assert_eq!(data["formula"], "rating >= 0");
    // Division by zero and overflow evaluate (FICS: /0 divides by 0.001) instead of failing.
    alice
        .ok("set formula 1 / 0 > 999 && 9223372036854775807 + 1 > 0")
        .await;
    let n = bob.seek("9 0 unrated").await;
    assert!(ids(&alice.sought(false).await).contains(&n));
    server.stop().await;
}
