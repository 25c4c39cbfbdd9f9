//! Takebacks and more time over real game sockets: offered, accepted (one and two plies),
//! declined, declined by moving, refused, stored (the taken-back actions leave
//! `game_action`, the record lists both), surviving a restart, and granted by the computer;
//! and a running dice game's positions served for browsing without its seed.

use crate::server::{choose, fast_settings, Player, TestServer, Watcher};
use crate::ws_game::{
    server_and_two_guests, start_game, stored_record, stored_record_once,
    untimed_game_after_first_moves,
};
use oddboard_client::Client;
use serde_json::{json, Value};

/// A five-minute Suicide game between the two, both watching, nothing played yet.
async fn timed_game(white: &mut Player, black: &mut Player) -> (String, Watcher, Watcher) {
    let clock = json!({ "minutes": 5, "increment": 0 });
    let game_id = start_game(white, black, "suicide", clock).await;
    let white_view = white.watch(&game_id).await;
    let black_view = black.watch(&game_id).await;
    (game_id, white_view, black_view)
}

/// `mover` plays `action`; both sides read it.
async fn play(mover: &mut Watcher, other: &mut Watcher, action: &str) {
    let ply = mover.ply;
    mover.act(action).await;
    mover.read_until(|w| w.ply > ply).await;
    other.read_until(|w| w.ply > ply).await;
}

/// Reads until an event of `kind` arrives, and returns it.
pub(crate) async fn event_of(watcher: &mut Watcher, kind: &str) -> Value {
    loop {
        let message = watcher.next().await;
        if message["t"] == "event" && message["kind"] == kind {
            return message;
        }
        assert_ne!(message["t"], "error", "waiting for {kind}: {message}");
    }
}

/// `proposer` offers a takeback, `answerer` accepts; returns the `takeback` event.
async fn taken_back(proposer: &mut Watcher, answerer: &mut Watcher) -> Value {
    proposer.send(json!({ "t": "takeback_offer" })).await;
    let offered = event_of(answerer, "takeback_offered").await;
    assert_eq!(offered["by"], proposer.you.clone().unwrap_or_default());
    answerer.send(json!({ "t": "takeback_accept" })).await;
    let event = event_of(answerer, "takeback").await;
    assert_eq!(event_of(proposer, "takeback").await, event);
    event
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_of_one_then_two_plies_is_stored_and_listed_in_the_record() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let (game_id, mut white, mut black) = timed_game(&mut alice, &mut bob).await;
    play(&mut white, &mut black, "e2e3").await;
    play(&mut black, &mut white, "h7h6").await;
    play(&mut white, &mut black, "d1h5").await;

    // White takes back its last move: one ply, White to move again.
    let event = taken_back(&mut white, &mut black).await;
    assert_eq!(
        (event["by"].as_str(), event["plies"].as_u64()),
        (Some("white"), Some(1))
    );
    assert_eq!(event["rules"]["turn"], "white");
    assert_eq!(event["clock"]["running"], "white");
    assert_eq!(
        (white.ply, black.moves.clone()),
        (2, vec!["e2e3".to_string(), "h7h6".into()])
    );

    // White plays another move, Black answers, and White takes both back: two plies.
    play(&mut white, &mut black, "g1f3").await;
    play(&mut black, &mut white, "g7g6").await;
    let event = taken_back(&mut white, &mut black).await;
    assert_eq!(event["plies"], 2);
    assert_eq!((white.ply, black.ply), (2, 2));

    // The game goes on from there, and a reconnecting client sees the same line.
    play(&mut white, &mut black, "b1c3").await;
    let again = bob.watch(&game_id).await;
    assert_eq!(again.moves, ["e2e3", "h7h6", "b1c3"]);

    let record = stored_record(&server, &game_id).await;
    let actions: Vec<&str> = (record["actions"].as_array().into_iter().flatten())
        .filter_map(|a| a["machine"].as_str())
        .collect();
    assert_eq!(actions, ["e2e3", "h7h6", "b1c3"], "{record}");
    let adjustments = record["adjustments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(adjustments.len(), 2, "{record}");
    assert_eq!(adjustments[0]["kind"], "takeback");
    assert_eq!(adjustments[0]["by"], "white");
    assert_eq!(adjustments[0]["ply"], 2);
    assert_eq!(adjustments[0]["taken_back"][0]["machine"], "d1h5");
    let second: Vec<&str> = (adjustments[1]["taken_back"]
        .as_array()
        .into_iter()
        .flatten())
    .filter_map(|a| a["machine"].as_str())
    .collect();
    assert_eq!(second, ["g1f3", "g7g6"]);
    assert!(adjustments[1]["white_ms"].as_i64().is_some(), "{record}");
    // The replay page's data lists them too.
    let replay = (server
        .client()
        .get(&format!("/api/games/{game_id}/replay"))
        .await)
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(replay["adjustments"], record["adjustments"]);
    assert_eq!(replay["snapshots"].as_array().map(Vec::len), Some(4));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_offer_is_declined_or_declined_by_moving() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let (game_id, mut white, mut black) =
        untimed_game_after_first_moves(&mut alice, &mut bob).await;
    // Black moved last: Black asks, White declines.
    black.send(json!({ "t": "takeback_offer" })).await;
    event_of(&mut white, "takeback_offered").await;
    // A client connecting now sees the offer standing.
    let socket = (bob.client.connect_game(&game_id, None).await).unwrap_or_else(|e| panic!("{e}"));
    let snapshot = Watcher::new(socket).next().await;
    assert_eq!(snapshot["game"]["takeback_offer"], "black", "{snapshot}");
    white.send(json!({ "t": "takeback_decline" })).await;
    let declined = event_of(&mut black, "takeback_declined").await;
    assert_eq!(declined["by"], "white");
    // Black asks again; White moves instead of answering, which declines it.
    black.send(json!({ "t": "takeback_offer" })).await;
    event_of(&mut white, "takeback_offered").await;
    let action = choose(&white.legal, white.ply);
    play(&mut white, &mut black, &action).await;
    white.send(json!({ "t": "takeback_accept" })).await;
    white.expect_error("no_takeback_offer").await;
    assert_eq!(white.ply, 3);
    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["adjustments"], json!([]), "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takebacks_and_more_time_are_refused_where_they_do_not_apply() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let (game_id, mut white, mut black) = timed_game(&mut alice, &mut bob).await;
    // Nothing of one's own to take back yet.
    white.send(json!({ "t": "takeback_offer" })).await;
    white.expect_error("nothing_to_take_back").await;
    play(&mut white, &mut black, "e2e3").await;
    black.send(json!({ "t": "takeback_offer" })).await;
    black.expect_error("nothing_to_take_back").await;
    black.send(json!({ "t": "takeback_accept" })).await;
    black.expect_error("no_takeback_offer").await;
    white.send(json!({ "t": "takeback_offer" })).await;
    event_of(&mut black, "takeback_offered").await;
    white.send(json!({ "t": "takeback_offer" })).await;
    white.expect_error("takeback_already_offered").await;
    // A spectator is no player.
    let carol = server.guest().await;
    let mut spectator = carol.watch(&game_id).await;
    for message in ["takeback_offer", "takeback_accept", "more_time"] {
        spectator.send(json!({ "t": message })).await;
        spectator.expect_error("not_a_player").await;
    }
    // Over: nothing more.
    white.send(json!({ "t": "resign" })).await;
    black.read_until(|w| w.outcome.is_some()).await;
    for message in ["takeback_offer", "more_time"] {
        black.send(json!({ "t": message })).await;
        black.expect_error("game_over").await;
    }
    // No clock, no more time.
    let (_, mut untimed, _) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    untimed.send(json!({ "t": "more_time" })).await;
    untimed.expect_error("no_clock").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_davey_drehs_an_action_that_rolled_dice_is_not_taken_back() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let game_id = start_game(&mut alice, &mut bob, "drehs", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    // Play until an action rolls dice (an attack does), preferring attacks.
    loop {
        assert!(white.outcome.is_none() && white.ply < 300, "no roll came");
        let mover = if white.is_my_turn() {
            &mut white
        } else {
            &mut black
        };
        let attacks: Vec<String> = (mover.legal.iter())
            .filter(|a| a.contains('x'))
            .cloned()
            .collect();
        let action = choose(
            if attacks.is_empty() {
                &mover.legal
            } else {
                &attacks
            },
            mover.ply,
        );
        let ply = mover.ply;
        mover.act(&action).await;
        white
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
        black
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
        let last = white.events.last().cloned().unwrap_or_default();
        let rolled = last["update"]["last_action"]["rolls"]
            .as_array()
            .is_some_and(|r| !r.is_empty());
        if rolled && white.outcome.is_none() {
            let mover = if last["by"] == "white" {
                &mut white
            } else {
                &mut black
            };
            mover.send(json!({ "t": "takeback_offer" })).await;
            mover.expect_error("takeback_after_roll").await;
            break;
        }
    }
    // The positions so far are served while the game runs (the game page browses them), with
    // the rolls already made and without the seed.
    let replay = (server
        .client()
        .get(&format!("/api/games/{game_id}/replay"))
        .await)
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    let snapshots = replay["snapshots"].as_array().cloned().unwrap_or_default();
    assert_eq!(snapshots.len(), white.ply as usize + 1, "{replay}");
    assert_eq!(replay["dice_seed"], Value::Null, "{replay}");
    let last = white.events.last().cloned().unwrap_or_default();
    assert_eq!(
        snapshots.last().map(|s| &s["last_action"]["rolls"]),
        Some(&last["update"]["last_action"]["rolls"])
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_time_and_a_takeback_survive_a_restart() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let (game_id, mut white, mut black) = timed_game(&mut alice, &mut bob).await;
    play(&mut white, &mut black, "e2e3").await;
    play(&mut black, &mut white, "h7h6").await;
    play(&mut white, &mut black, "d1h5").await;
    // Black, to move, gives White 15 s.
    black.send(json!({ "t": "more_time" })).await;
    let gift = event_of(&mut white, "more_time").await;
    assert_eq!(
        (
            gift["by"].as_str(),
            gift["to"].as_str(),
            gift["ms"].as_u64()
        ),
        (Some("black"), Some("white"), Some(15_000))
    );
    assert!(gift["clock"]["white_ms"].as_u64() > Some(300_000), "{gift}");
    let event = taken_back(&mut white, &mut black).await;
    let white_ms = event["clock"]["white_ms"].as_u64().unwrap_or(0);
    assert!(
        white_ms > 300_000,
        "the gift stays after the takeback: {event}"
    );

    white.socket.close().await;
    black.socket.close().await;
    let server = server.restart(fast_settings()).await;
    // Alice's session, on the new server's address.
    let cookie = alice.client.cookie.take();
    alice.client = Client::new(server.addr.clone());
    alice.client.cookie = cookie;
    let socket =
        (alice.client.connect_game(&game_id, None).await).unwrap_or_else(|e| panic!("{e}"));
    let mut white = Watcher::new(socket);
    let snapshot = white.next().await;
    assert_eq!(white.moves, ["e2e3", "h7h6"], "{snapshot}");
    let clock = &snapshot["game"]["clock"];
    // The clock as the takeback left it (the time the server was down is no one's).
    let resumed = clock["white_ms"].as_u64().unwrap_or(0);
    assert!(
        resumed > 300_000 && resumed <= white_ms,
        "{clock} after {event}"
    );
    assert_eq!(clock["running"], "white");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_grants_a_takeback_and_plays_on() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let body = json!({ "variant": "suicide", "level": 0, "color": "white" });
    let response =
        (alice.client.post("/api/games/computer", &body).await).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 201, "{}", response.json());
    let game_id = response.json()["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut person = alice.watch(&game_id).await;
    for _ in 0..2 {
        let ply = person.ply;
        let action = choose(&person.legal, ply);
        person.act(&action).await;
        // The computer's answer.
        person
            .read_until(|w| w.ply >= ply + 2 || w.outcome.is_some())
            .await;
    }
    assert!(person.outcome.is_none() && person.is_my_turn());
    person.send(json!({ "t": "takeback_offer" })).await;
    let event = event_of(&mut person, "takeback").await;
    assert_eq!(
        (event["by"].as_str(), event["plies"].as_u64()),
        (Some("white"), Some(2))
    );
    assert_eq!(person.ply, 2);
    // The game goes on: the person moves, the computer answers.
    let action = choose(&person.legal, 7);
    person.act(&action).await;
    person
        .read_until(|w| w.ply >= 4 || w.outcome.is_some())
        .await;
    let record = stored_record_once(&server, &game_id, |r| {
        r["adjustments"].as_array().is_some_and(|a| !a.is_empty())
    })
    .await;
    assert_eq!(record["adjustments"][0]["by"], "white", "{record}");
    server.stop().await;
}
