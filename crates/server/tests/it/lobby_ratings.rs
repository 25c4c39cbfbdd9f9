//! The lobby's colours, ratings and records against a real server: colour alternation by
//! history, ratings after rated games (and not after aborted ones), rematches, `games`,
//! `history`, `finger`, `help`, and the cap on games in progress.

use super::lobby::{game_of, lobby_settings, server, LobbyPlayer};
use crate::server::{fast_settings, TestServer, WAIT};
use oddboard::game::GameSettings;
use oddboard::play::rating::{rate_game, Glicko};
use oddboard::rules::Color;
use oddboard_client::expect_ok;
use serde_json::{json, Value};

/// The rating of `name` in suicide, from finger.
async fn suicide_rating(player: &mut LobbyPlayer, name: &str) -> Value {
    let finger = player
        .client
        .get(&format!("/api/users/{name}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    finger["ratings"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["variant"] == "suicide").cloned())
        .unwrap_or(Value::Null)
}

/// Rita offers a rematch on the game page and Sam accepts; the lobby announces the new game
/// (rated, colours swapped). Returns its id.
async fn rematch_from_the_game_page(
    rita: &LobbyPlayer,
    sam: &mut LobbyPlayer,
    game_id: &str,
) -> String {
    let mut socket = rita
        .client
        .connect_game(game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    socket
        .send(&json!({ "t": "rematch_offer" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sam_socket = sam
        .client
        .connect_game(game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    sam_socket
        .wait_for(WAIT, |m| {
            m["kind"] == "rematch_offered" || m["game"]["rematch_offer"] == "white"
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    sam_socket
        .send(&json!({ "t": "rematch_accept" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let rematch = socket
        .wait_for(WAIT, |m| m["kind"] == "rematch")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let rematch_id = rematch["game_id"].as_str().unwrap_or_default().to_string();
    let started = sam
        .event("game_started", |m| {
            m["game"]["game_id"] == rematch_id.as_str()
        })
        .await;
    assert_eq!(started["game"]["rated"], true);
    assert_eq!(started["game"]["white"], "Sam", "colours swap in a rematch");
    rematch_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colours_alternate_by_history_when_nobody_asks() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    alice.seek("1 0 white").await;
    let game = game_of(&bob.ok("seek 1 0 black").await);
    assert_eq!(game["white"], alice.name.as_str());
    alice
        .resign(game["game_id"].as_str().unwrap_or_default())
        .await;
    // Alice had White, Bob Black: now Alice gets Black, whoever seeks first.
    for round in 0..2 {
        alice.seek("1 0").await;
        let game = game_of(&bob.ok("seek 1 0").await);
        let expected_white = if round == 0 { &bob.name } else { &alice.name };
        assert_eq!(game["white"], expected_white.as_str(), "round {round}");
        bob.resign(game["game_id"].as_str().unwrap_or_default())
            .await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_games_move_ratings_and_aborted_ones_do_not() {
    let server = server().await;
    let mut rita = LobbyPlayer::registered(&server, "Rita").await;
    let mut sam = LobbyPlayer::registered(&server, "Sam").await;
    rita.seek("5 0 rated white").await;
    let game = game_of(&sam.ok("seek 5 0 rated black").await);
    assert_eq!(game["rated"], true);
    let game_id = game["game_id"].as_str().unwrap_or_default().to_string();
    sam.resign(&game_id).await;
    // Rita (White) won: both ratings as Glicko-2 computes them from 1500/350/0.06.
    let (white, black) = rate_game(Glicko::default(), Glicko::default(), Some(Color::White));
    let r = suicide_rating(&mut rita, "Rita").await;
    let s = suicide_rating(&mut rita, "Sam").await;
    assert_eq!(r["rating"], white.rating.round() as i64);
    assert_eq!(s["rating"], black.rating.round() as i64);
    assert!((r["deviation"].as_f64().unwrap_or_default() - white.deviation).abs() < 1e-6);
    assert_eq!(
        (r["games"].clone(), r["wins"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(
        (s["games"].clone(), s["losses"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(r["provisional"], true);
    let history = rita
        .client
        .get("/api/users/rita/ratings/history?variant=suicide")
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(history["user"], "Rita");
    assert_eq!(history["history"][0]["game_id"], game_id.as_str());
    // finger as a command, and the new rating in the seek list.
    let text = rita.cmd("finger Sam").await["reply"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("suicide"), "{text}");
    let data = rita.ok("seek 5 0 rated").await;
    assert_eq!(data["seek"]["rating"], white.rating.round() as i64);
    rita.ok("unseek").await;
    // The rematch of a rated game is rated, and ratings move again.
    let rematch_id = rematch_from_the_game_page(&rita, &mut sam, &game_id).await;
    // Aborted: not rated.
    let mut rematch_socket = sam
        .client
        .connect_game(&rematch_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    rematch_socket
        .send(&json!({ "t": "abort" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    rematch_socket
        .wait_for(WAIT, |m| m["kind"] == "ended")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let after = suicide_rating(&mut rita, "Rita").await;
    assert_eq!(after["games"], 1, "an aborted game is not rated");
    // `rematch` as a lobby command challenges the last opponent with colours swapped.
    let data = rita.ok("rematch").await;
    assert_eq!(data["challenge"]["to"], "Sam");
    assert_eq!(data["challenge"]["rated"], true);
    // Guests are never rated.
    let mut gus = LobbyPlayer::guest(&server).await;
    gus.fails("match Rita rated", "guests_play_unrated").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematch_of_a_game_in_fractional_minutes_is_refused_not_rounded() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    // Half a minute, through the API: the lobby's controls are whole minutes, and rounding
    // down would make the rematch a game without a clock.
    let created = alice
        .client
        .post(
            "/api/games",
            &json!({ "variant": "suicide", "clock": { "minutes": 0.5, "increment": 0 } }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let game_id = created.json()["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let accepted = bob
        .client
        .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    expect_ok(&accepted).unwrap_or_else(|e| panic!("accept: {e}"));
    alice.fails("rematch", "invalid_value").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_history_finger_and_help() {
    let server = server().await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    alice.seek("2 0").await;
    let game = game_of(&bob.ok("seek 2 0").await);
    let game_id = game["game_id"].as_str().unwrap_or_default().to_string();
    let games = alice.ok("games").await;
    assert_eq!(games["games"][0]["game_id"], game_id.as_str());
    let live = alice
        .client
        .get("/api/games/live")
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(live["games"][0]["game_id"], game_id.as_str());
    bob.resign(&game_id).await;
    let history = alice.cmd("history").await;
    assert_eq!(history["data"]["games"][0]["game_id"], game_id.as_str());
    let text = history["reply"].as_str().unwrap_or_default();
    assert!(text.contains("History for"), "{text}");
    assert!(text.contains("resignation"), "{text}");
    let finger = alice.ok(&format!("finger {}", bob.name)).await;
    assert_eq!(finger["finger"]["registered"], false);
    alice.fails("finger Nobody123", "unknown_user").await;
    // Words after the name are refused, not taken for no name (the caller's own record).
    alice
        .fails(&format!("finger {} please", bob.name), "bad_command")
        .await;
    alice
        .fails(&format!("history {} now", bob.name), "bad_command")
        .await;
    let help = alice.cmd("help").await;
    assert!(help["reply"].as_str().unwrap_or_default().contains("seek"));
    alice.fails("fly", "bad_command").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_at_the_cap_on_games_in_progress_can_start_no_other() {
    let settings = GameSettings {
        max_games_in_progress: 1,
        ..fast_settings()
    };
    let server = TestServer::start_with_lobby(settings, lobby_settings()).await;
    let mut alice = LobbyPlayer::guest(&server).await;
    let mut bob = LobbyPlayer::guest(&server).await;
    let mut carol = LobbyPlayer::guest(&server).await;
    alice.seek("5 0 white").await;
    let data = bob.ok("seek 5 0 black").await;
    assert_eq!(game_of(&data)["white"], alice.name.as_str());

    // Alice and Bob each have their one game: neither may seek or ask for a match, and a
    // match Carol offers cannot be taken.
    alice.fails("seek 3 0", "too_many_games_in_progress").await;
    let carol_name = carol.name.clone();
    bob.fails(
        &format!("match {carol_name} 3 0"),
        "too_many_games_in_progress",
    )
    .await;
    let data = carol.ok(&format!("match {} 3 0", alice.name)).await;
    let id = data["challenge"]["id"].clone();
    alice
        .event("challenge", |m| m["challenge"]["id"] == id)
        .await;
    let reply = alice.fails("accept", "too_many_games_in_progress").await;
    assert!(reply.contains(&alice.name), "{reply}");
    // The refused offer stands, and Carol can still seek.
    assert_eq!(alice.ok("pending").await["incoming"][0]["id"], id);
    carol.seek("7 0").await;
    server.stop().await;
}
