//! Games against the computer over the real API and game socket: every variant to its end,
//! every level in either colour, what the computer does with offers and claims, a restart
//! in the middle of its game, and every refusal of `POST /api/games/computer`.

use crate::server::{choose, fast_settings, Player, TestServer, Watcher, WAIT};
use crate::ws_game::{live_view, stored_record_once};
use oddboard::game::GameSettings;
use oddboard::rules::Variant;
use oddboard_client::{Client, HttpResponse};
use serde_json::{json, Value};

/// Plies after which a test game is resigned if the rules have not ended it.
const PLY_CAP: u64 = 400;

async fn ask_computer_game(player: &mut Player, body: Value) -> HttpResponse {
    player
        .client
        .post("/api/games/computer", &body)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Starts a game against the computer and opens its socket.
async fn computer_game(player: &mut Player, body: Value) -> (String, Watcher) {
    let response = ask_computer_game(player, body.clone()).await;
    assert_eq!(response.status, 201, "{body}: {}", response.json());
    let game_id = response.json()["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let watcher = player.watch(&game_id).await;
    (game_id, watcher)
}

/// The person moves by `choose` whenever it is their turn; the computer answers, until the
/// game ends or `until_ply`.
async fn play_against_computer(person: &mut Watcher, until_ply: u64) {
    loop {
        if person.outcome.is_some() || person.ply >= until_ply {
            return;
        }
        if person.is_my_turn() {
            let ply = person.ply;
            let action = choose(&person.legal, ply);
            person.act(&action).await;
            person
                .read_until(|w| w.ply > ply || w.outcome.is_some())
                .await;
        } else {
            // The computer's turn: its action (or the end) must come.
            let ply = person.ply;
            person
                .read_until(|w| w.ply > ply || w.outcome.is_some())
                .await;
        }
        // A forced action (a Do-Or-Die Chazz pass) is played by the server as well as sent by
        // this simple player: the server answers the second `duplicate_action`.
        let unexpected: Vec<&serde_json::Value> = (person.errors.iter())
            .filter(|e| e["code"] != "duplicate_action")
            .collect();
        assert!(unexpected.is_empty(), "{unexpected:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_the_computer_to_the_end_in_every_variant() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let body = json!({ "variant": variant.key(), "level": 1, "color": "white" });
        let (game_id, mut person) = computer_game(&mut alice, body).await;
        assert_eq!(person.you.as_deref(), Some("white"));
        play_against_computer(&mut person, PLY_CAP).await;
        if person.outcome.is_none() {
            person.send(json!({ "t": "resign" })).await;
            person.read_until(|w| w.outcome.is_some()).await;
        }
        let record = stored_record_once(&server, &game_id, |r| r["status"] == "finished").await;
        assert_eq!(record["status"], "finished", "{variant}: {record}");
        assert_eq!(record["rated"], false, "{record}");
        assert_eq!(record["black_name"], "Computer-level-1", "{record}");
        assert_eq!(
            record["actions"].as_array().map(Vec::len),
            Some(person.moves.len()),
            "{variant}: every action is stored"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_level_answers_in_either_colour_on_its_own_clock() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    for level in 0..=8u8 {
        let color = if level % 2 == 0 { "black" } else { "white" };
        let body = json!({
            "variant": "suicide",
            "level": level,
            "color": color,
            "clock": { "minutes": 1, "increment": 0 },
        });
        let (game_id, mut person) = computer_game(&mut alice, body).await;
        assert_eq!(person.you.as_deref(), Some(color));
        // As Black the person first sees the computer's opening action.
        play_against_computer(&mut person, 4).await;
        assert!(person.ply >= 4, "level {level}: {:?}", person.events.last());
        // The computer's clock ran while it thought, and each thought took at most a quarter
        // of what was left: after two moves at least (3/4)² of the minute remains.
        let computer = if color == "white" { "black" } else { "white" };
        let last_clock = (person.events.iter().rev())
            .find_map(|e| e["clock"].as_object().cloned())
            .unwrap_or_default();
        let left = last_clock[&format!("{computer}_ms")].as_u64().unwrap_or(0);
        assert!(left >= 60_000 * 9 / 16, "level {level}: {last_clock:?}");
        person.send(json!({ "t": "resign" })).await;
        person.read_until(|w| w.outcome.is_some()).await;
        let record = stored_record_once(&server, &game_id, |r| r["status"] == "finished").await;
        assert_eq!(
            record[format!("{computer}_name")],
            format!("Computer-level-{level}")
        );
        assert_eq!(record["rated"], false);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_declines_draws_accepts_rematches_and_is_never_away() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let body = json!({ "variant": "chazz", "level": 2, "color": "white" });
    let (game_id, mut person) = computer_game(&mut alice, body).await;
    play_against_computer(&mut person, 2).await;
    person.send(json!({ "t": "draw_offer" })).await;
    person
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "draw_declined"))
        .await;
    // The computer has no socket, yet it is never away: the game counts no seat absent,
    // so no claim delay runs, and nothing may be claimed. (Absence is counted the moment
    // a seat has no connection; only the claim waits for the delay.)
    let view = live_view(&alice.client, &game_id).await;
    assert_eq!(view["absent"], json!([]), "{view}");
    assert_eq!(view["claim_after_ms"], json!({}), "{view}");
    person.send(json!({ "t": "claim_victory" })).await;
    person.expect_error("opponent_present").await;
    person.send(json!({ "t": "resign" })).await;
    person.read_until(|w| w.outcome.is_some()).await;
    person.send(json!({ "t": "rematch_offer" })).await;
    let rematch = person
        .socket
        .wait_for(WAIT, |m| m["kind"] == "rematch")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let new_id = rematch["game_id"].as_str().unwrap_or_default().to_string();
    assert_ne!(new_id, game_id);
    let mut again = alice.watch(&new_id).await;
    assert_eq!(again.you.as_deref(), Some("black"));
    // The computer, White now, opens the rematch.
    again.read_until(|w| w.ply >= 1).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_moves_after_a_restart_on_its_turn() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let body = json!({
        "variant": "duel",
        "level": 3,
        "color": "white",
        "clock": { "minutes": 5, "increment": 0 },
    });
    let (game_id, mut person) = computer_game(&mut alice, body).await;
    play_against_computer(&mut person, 4).await;
    person.socket.close().await;
    let stored = server
        .fetch_number(&format!(
            "select count(*) from game_action where game_id = '{game_id}'"
        ))
        .await;
    let server = server.restart(fast_settings()).await;
    // Alice's session, on the new server's address.
    let cookie = alice.client.cookie.take();
    alice.client = Client::new(server.addr.clone());
    alice.client.cookie = cookie;
    let mut watcher = alice.watch(&game_id).await;
    assert!(watcher.ply as i64 >= stored);
    play_against_computer(&mut watcher, 8).await;
    assert!(watcher.ply >= 8 || watcher.outcome.is_some());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_for_a_computer_game_are_refused_and_change_nothing() {
    let settings = GameSettings {
        max_computer_games_per_player: 2,
        max_computer_games: 3,
        ..fast_settings()
    };
    let server = TestServer::start(settings).await;
    let mut alice = server.guest().await;
    let refusals = [
        (
            json!({ "variant": "suicide", "level": 9 }),
            422,
            "invalid_level",
        ),
        (
            json!({ "variant": "nosuch", "level": 1 }),
            422,
            "unknown_variant",
        ),
        (
            json!({ "variant": "suicide", "level": 1, "color": "green" }),
            422,
            "invalid_color",
        ),
        (
            json!({ "variant": "suicide", "level": 1, "clock": { "minutes": 0, "increment": 0 } }),
            422,
            "invalid_clock",
        ),
        (json!({ "variant": "suicide" }), 422, "bad_body"),
    ];
    for (body, status, code) in refusals {
        let response = ask_computer_game(&mut alice, body.clone()).await;
        assert_eq!(response.status, status, "{body}");
        assert_eq!(response.json()["error"], code, "{body}");
    }
    let mut nobody = server.client();
    let response = nobody
        .post(
            "/api/games/computer",
            &json!({ "variant": "suicide", "level": 1 }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 401);
    // Two games each at most, three in all.
    for _ in 0..2 {
        computer_game(&mut alice, json!({ "variant": "suicide", "level": 0 })).await;
    }
    let third = ask_computer_game(&mut alice, json!({ "variant": "suicide", "level": 0 })).await;
    assert_eq!(third.status, 409);
    assert_eq!(third.json()["error"], "too_many_computer_games");
    let mut bob = server.guest().await;
    computer_game(&mut bob, json!({ "variant": "chad", "level": 0 })).await;
    let full = ask_computer_game(&mut bob, json!({ "variant": "chad", "level": 0 })).await;
    assert_eq!(full.status, 503);
    assert_eq!(full.json()["error"], "computer_busy");
    let games = server
        .fetch_number("select count(*) from game where not rated")
        .await;
    assert_eq!(games, 3, "refusals create nothing");
    server.stop().await;
}
