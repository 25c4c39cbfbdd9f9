//! Real WebSocket clients play whole games against a real server and database: every
//! playable variant to its end with a spectator and a reconnect, every other kind of ending,
//! and every kind of bad input.

use crate::server::{choose, fast_settings, Player, TestServer, Watcher, WAIT};
use oddboard::game::GameSettings;
use oddboard::rules::Variant;
use oddboard_client::Client;
use serde_json::{json, Value};
use std::time::Duration;

/// Plies after which a test game is ended by resignation if the rules have not ended it.
const PLY_CAP: u64 = 300;

/// Creates a game (creator White), has the other player accept, and returns the id.
/// The outcome of an aborted game.
fn aborted() -> Option<Value> {
    Some(json!({ "winner": null, "reason": "aborted" }))
}

/// Sends `abort` and waits for the game to end aborted.
async fn abort_expecting_aborted(player: &mut Watcher) {
    player.send(json!({ "t": "abort" })).await;
    player.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(player.outcome, aborted());
}

/// `leaver` closes its socket; waits until `stayer` hears of it and the tests' claim delay
/// (300 ms in `fast_settings`) has passed.
async fn leave_past_the_claim_delay(leaver: Watcher, stayer: &mut Watcher) {
    leaver.socket.close().await;
    stayer
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "player_gone"))
        .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
}

/// A server with the given settings, and two guests on it.
async fn server_and_two_guests(settings: GameSettings) -> (TestServer, Player, Player) {
    let server = TestServer::start(settings).await;
    let alice = server.guest().await;
    let bob = server.guest().await;
    (server, alice, bob)
}

/// An untimed Suicide game between the two, both watching, after each side's first move.
async fn untimed_game_after_first_moves(
    white: &mut Player,
    black: &mut Player,
) -> (String, Watcher, Watcher) {
    let game_id = start_game(white, black, "suicide", Value::Null).await;
    let mut white_view = white.watch(&game_id).await;
    let mut black_view = black.watch(&game_id).await;
    play_until(&mut [&mut white_view, &mut black_view], &mut [], 2).await;
    (game_id, white_view, black_view)
}

/// The game's stored record (`GET /api/games/{id}`).
async fn stored_record(server: &TestServer, game_id: &str) -> Value {
    server
        .client()
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json()
}

/// The game's stored record (`GET /api/games/{id}`) once it satisfies `done`, or as it is
/// after [`WAIT`].
async fn stored_record_once(
    server: &TestServer,
    game_id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let record = stored_record(server, game_id).await;
        if done(&record) || tokio::time::Instant::now() >= deadline {
            return record;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn start_game(white: &mut Player, black: &mut Player, variant: &str, clock: Value) -> String {
    let game_id = white.create_game(variant, clock, "white").await;
    black.accept(&game_id).await;
    game_id
}

/// Lets both players move by `choose` until the game ends or `until_ply` is reached; every
/// watcher follows along.
async fn play_until(players: &mut [&mut Watcher; 2], others: &mut [&mut Watcher], until_ply: u64) {
    loop {
        let ply = players[0].ply;
        if players[0].outcome.is_some() || ply >= until_ply {
            return;
        }
        let mover = if players[0].is_my_turn() { 0 } else { 1 };
        assert!(
            players[mover].is_my_turn(),
            "nobody can move at ply {ply}: {:?}",
            players[mover].events.last()
        );
        let action = choose(&players[mover].legal, ply);
        players[mover].act(&action).await;
        for watcher in players.iter_mut() {
            watcher
                .read_until(|w| w.ply > ply || w.outcome.is_some())
                .await;
        }
        for watcher in others.iter_mut() {
            watcher
                .read_until(|w| w.ply > ply || w.outcome.is_some())
                .await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_playable_variant_plays_to_its_end_with_a_spectator_and_a_reconnect() {
    let server = TestServer::start(fast_settings()).await;
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let mut alice = server.guest().await;
        let mut bob = server.guest().await;
        let carol = server.guest().await;
        let game_id = start_game(&mut alice, &mut bob, variant.key(), Value::Null).await;
        let mut white = alice.watch(&game_id).await;
        let mut black = bob.watch(&game_id).await;
        let mut spectator = carol.watch(&game_id).await;
        assert_eq!(white.you.as_deref(), Some("white"));
        assert_eq!(black.you.as_deref(), Some("black"));
        assert_eq!(spectator.you, None);

        play_until(&mut [&mut white, &mut black], &mut [&mut spectator], 6).await;

        // Black drops off and comes back with the last version it saw.
        let seen = black.version;
        let old = std::mem::replace(
            &mut black,
            Watcher::new(
                bob.client
                    .connect_game(&game_id, seen)
                    .await
                    .unwrap_or_else(|e| panic!("{e}")),
            ),
        );
        black.version = seen;
        black.ply = old.ply;
        black.you = old.you.clone();
        black.legal = old.legal.clone();
        black.turn = old.turn.clone();
        black.moves = old.moves.clone();
        old.socket.close().await;
        // White moves while Black reconnects; Black must catch up from its version.
        play_until(&mut [&mut white, &mut black], &mut [&mut spectator], 8).await;
        black
            .socket
            .send(&json!({ "t": "sync", "v": black.version.unwrap_or(0) }))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        // Events already on their way (the game may just have ended) come before the answer.
        loop {
            let message = black.next().await;
            match message["t"].as_str() {
                Some("batch") => break,
                Some("event") => {}
                _ => panic!("sync must be answered with a batch: {message}"),
            }
        }

        play_until(
            &mut [&mut white, &mut black],
            &mut [&mut spectator],
            PLY_CAP,
        )
        .await;
        if white.outcome.is_none() {
            white.send(json!({ "t": "resign" })).await;
            for watcher in [&mut white, &mut black, &mut spectator] {
                watcher.read_until(|w| w.outcome.is_some()).await;
            }
        }
        let outcome = white.outcome.clone().unwrap_or_default();
        assert_eq!(black.outcome.as_ref(), Some(&outcome), "{variant}");
        assert_eq!(spectator.outcome.as_ref(), Some(&outcome), "{variant}");
        assert_eq!(white.moves, spectator.moves, "{variant}");
        assert_eq!(black.moves, white.moves, "{variant}");

        // The stored record has every action the players were told about.
        let mut client = server.client();
        let record = client
            .get(&format!("/api/games/{game_id}"))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(record.status, 200);
        let record = record.json();
        let stored: Vec<&str> = record["actions"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x["machine"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(stored, white.moves, "{variant}");
        assert_eq!(record["status"], "finished");
        let export = client
            .get(&format!("/games/{game_id}/export"))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            export
                .body
                .contains(&format!("[Variant \"{}\"]", variant.key())),
            "{}",
            export.body
        );
        assert!(export.body.contains(&format!(
            "[Result \"{}\"]",
            record["result"].as_str().unwrap_or("?")
        )));
        // Each action's `rolls` is the list of its dice in a game with dice, null in a
        // game without; its `effects`, when it has any, a list of texts beside them.
        let actions = record["actions"].as_array().cloned().unwrap_or_default();
        for action in &actions {
            let rolls = &action["rolls"];
            if variant.has_dice() {
                let dice = rolls.as_array().unwrap_or_else(|| panic!("{action}"));
                assert!(dice.iter().all(|d| d["dice"].is_string()), "{action}");
            } else {
                assert!(rolls.is_null(), "{action}");
            }
            let effects = &action["effects"];
            let texts = effects.as_array().map(|e| e.iter().all(Value::is_string));
            assert!(effects.is_null() || texts == Some(true), "{action}");
        }
        if variant.has_dice() {
            let rolled = actions
                .iter()
                .any(|a| a["rolls"].as_array().is_some_and(|r| !r.is_empty()));
            assert!(rolled, "{variant}: no action rolled dice: {record}");
            check_dice_record(&mut client, &game_id).await;
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_end_by_resignation_agreement_abort_flag_and_abandonment() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;

    // Resignation.
    let (_, mut white, mut black) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    white.send(json!({ "t": "resign" })).await;
    black.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        black.outcome,
        Some(json!({ "winner": "black", "reason": "resignation" }))
    );

    // Draw by agreement, after a declined offer.
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    white.send(json!({ "t": "draw_offer" })).await;
    black
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "draw_offered"))
        .await;
    black.send(json!({ "t": "draw_decline" })).await;
    white
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "draw_declined"))
        .await;
    black.send(json!({ "t": "draw_accept" })).await;
    black.expect_error("no_draw_offer").await;
    black.send(json!({ "t": "draw_offer" })).await;
    white
        .read_until(|w| {
            w.events
                .iter()
                .filter(|e| e["kind"] == "draw_offered")
                .count()
                == 2
        })
        .await;
    white.send(json!({ "t": "draw_accept" })).await;
    black.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        black.outcome,
        Some(json!({ "winner": null, "reason": "agreement" }))
    );

    // Abort is allowed before both sides have moved, refused after.
    let (_, mut white, _black) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    white.send(json!({ "t": "abort" })).await;
    white.expect_error("too_late_to_abort").await;
    let game_id = start_game(&mut alice, &mut bob, "chazz", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    abort_expecting_aborted(&mut white).await;

    // Flag: the shortest clock there is (no minutes, a second's increment: three seconds
    // each); White runs out after both first moves.
    let game_id = start_game(
        &mut alice,
        &mut bob,
        "suicide",
        json!({ "minutes": 0, "increment": 1 }),
    )
    .await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play_until(&mut [&mut white, &mut black], &mut [], 2).await;
    white.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        white.outcome,
        Some(json!({ "winner": "black", "reason": "timeout" }))
    );

    // An opponent gone before both sides have moved is no win: the game can be aborted.
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let black = bob.watch(&game_id).await;
    leave_past_the_claim_delay(black, &mut white).await;
    white.send(json!({ "t": "claim_victory" })).await;
    white.expect_error("abort_instead").await;
    abort_expecting_aborted(&mut white).await;

    // Abandonment: Black leaves; after the claim delay White claims the win.
    let (game_id, mut white, black) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    white.send(json!({ "t": "claim_victory" })).await;
    white.expect_error("opponent_present").await;
    let snapshot_game = |mut socket: oddboard_client::GameSocket| async move {
        let snapshot = socket
            .wait_for(WAIT, |m| m["t"] == "snapshot")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        socket.close().await;
        snapshot["game"].clone()
    };
    let connect = || alice.client.connect_game(&game_id, None);
    let before = snapshot_game(connect().await.unwrap_or_else(|e| panic!("{e}"))).await;
    assert_eq!(before["absent"], json!([]), "{before}");
    assert_eq!(before["claim_after_ms"], json!({}), "{before}");
    leave_past_the_claim_delay(black, &mut white).await;
    // A page opened now learns who is gone, and that the claim is allowed already.
    let after = snapshot_game(connect().await.unwrap_or_else(|e| panic!("{e}"))).await;
    assert_eq!(after["absent"], json!(["black"]), "{after}");
    assert_eq!(after["claim_after_ms"], json!({ "black": 0 }), "{after}");
    white.send(json!({ "t": "claim_victory" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        white.outcome,
        Some(json!({ "winner": "white", "reason": "abandoned" }))
    );

    // Rematch from the finished game: colours swap.
    white.send(json!({ "t": "rematch_offer" })).await;
    let mut black = bob.watch(&game_id).await;
    black.send(json!({ "t": "rematch_accept" })).await;
    let rematch = black
        .socket
        .wait_for(WAIT, |m| m["kind"] == "rematch")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let new_id = rematch["game_id"].as_str().unwrap_or_default().to_string();
    let new_black = alice.watch(&new_id).await;
    assert_eq!(new_black.you.as_deref(), Some("black"));
    assert_eq!(new_black.status, "active");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_challenge_can_be_withdrawn_and_expires() {
    let settings = GameSettings {
        open_challenge_limit: Duration::from_millis(600),
        ..fast_settings()
    };
    let (server, mut alice, bob) = server_and_two_guests(settings).await;

    // Withdrawn by its creator, after which nobody can take it.
    let game_id = alice.create_game("suicide", Value::Null, "white").await;
    let mut creator = alice.watch(&game_id).await;
    creator.send(json!({ "t": "abort" })).await;
    creator.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(creator.outcome, aborted());
    let answer = bob
        .client
        .clone()
        .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        answer.json()["error"],
        "game_already_started",
        "{}",
        answer.body
    );

    // Only its creator may withdraw it; left alone, it expires.
    let game_id = alice.create_game("suicide", Value::Null, "white").await;
    let mut visitor = bob.watch(&game_id).await;
    visitor.send(json!({ "t": "abort" })).await;
    visitor.expect_error("not_a_player").await;
    visitor.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(visitor.outcome, aborted());
    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["status"], "aborted", "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_holds_only_so_many_open_challenges() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let limit = oddboard::game::MAX_OPEN_CHALLENGES;
    let mut open = Vec::new();
    for _ in 0..limit {
        open.push(alice.create_game("suicide", Value::Null, "random").await);
    }
    let refused = alice.try_create_game("chazz", Value::Null, "random").await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert_eq!(refused.json()["error"], "too_many_challenges");
    let message = refused.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains(&format!("{limit} open challenges")),
        "{message}"
    );
    assert_eq!(
        server
            .fetch_number("select count(*) from game where variant = 'chazz'")
            .await,
        0,
        "the refused challenge was not stored"
    );
    // Another player is not held back by Alice's, and once one of hers is taken she may
    // make another.
    bob.create_game("chazz", Value::Null, "random").await;
    bob.accept(&open[0]).await;
    alice.create_game("chazz", Value::Null, "random").await;
    let again = alice.try_create_game("chazz", Value::Null, "random").await;
    assert_eq!(again.status, 409, "at the limit again: {}", again.body);
    // Likewise once she withdraws one.
    let mut creator = alice.watch(&open[1]).await;
    abort_expecting_aborted(&mut creator).await;
    alice.create_game("chazz", Value::Null, "random").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_committed_without_its_answer_is_adopted_on_retry() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let (game_id, mut white, mut black) =
        untimed_game_after_first_moves(&mut alice, &mut bob).await;
    // As if White's move had been committed and the answer lost on the way back: the row is
    // there, the game does not know it. White's retry must be taken, not refused forever.
    let action = choose(&white.legal, white.ply);
    server
        .store_action_behind_its_back(&game_id, 3, &action)
        .await;
    white.act(&action).await;
    white.read_until(|w| w.ply == 3).await;
    black.read_until(|w| w.ply == 3).await;
    assert_eq!(black.moves.get(2), Some(&action));
    assert!(white.errors.is_empty(), "{:?}", white.errors);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_end_the_database_refuses_is_not_announced() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let (game_id, mut white, mut black) =
        untimed_game_after_first_moves(&mut alice, &mut bob).await;

    server
        .execute(
            "create function refuse_end() returns trigger language plpgsql as $$ \
             begin raise exception 'the test refuses every end'; end $$; \
             create trigger refuse_end before update of status on game for each row \
             when (new.status <> old.status) execute function refuse_end();",
        )
        .await;
    white.send(json!({ "t": "resign" })).await;
    white.expect_error("storage_failed").await;
    // Nothing was announced and the game goes on: White can still move.
    let action = choose(&white.legal, white.ply);
    white.act(&action).await;
    black.read_until(|w| w.ply == 3).await;
    white.read_until(|w| w.ply == 3).await;
    for watcher in [&white, &black] {
        assert_eq!(watcher.outcome, None);
        assert!(
            !watcher.events.iter().any(|e| e["kind"] == "ended"),
            "{:?}",
            watcher.events
        );
    }

    server.execute("drop trigger refuse_end on game;").await;
    white.send(json!({ "t": "resign" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        white.outcome,
        Some(json!({ "winner": "black", "reason": "resignation" }))
    );
    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["status"], "finished", "{record}");
    assert_eq!(record["result"], "0-1");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_an_error_and_changes_nothing() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let carol = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    let mut spectator = carol.watch(&game_id).await;

    white
        .socket
        .send_text("this is not json".into())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    white.expect_error("bad_message").await;
    white.send(json!({ "t": "teleport" })).await;
    white.expect_error("unknown_message").await;
    white
        .send(json!({ "t": "act", "ply": "one", "action": "e2e4" }))
        .await;
    white.expect_error("bad_message").await;
    white
        .socket
        .send_text(format!(
            "{{\"t\":\"act\",\"ply\":1,\"action\":\"{}\"}}",
            "x".repeat(5000)
        ))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    white.expect_error("frame_too_large").await;
    white
        .send(json!({ "t": "act", "ply": 1, "action": "e2e5" }))
        .await;
    white.expect_error("illegal_action").await;
    white
        .send(json!({ "t": "act", "ply": 1, "action": "zz" }))
        .await;
    white.expect_error("bad_notation").await;
    black
        .send(json!({ "t": "act", "ply": 1, "action": "e7e5" }))
        .await;
    black.expect_error("not_your_turn").await;
    spectator
        .send(json!({ "t": "act", "ply": 1, "action": "e2e4" }))
        .await;
    spectator.expect_error("not_a_player").await;
    spectator.send(json!({ "t": "resign" })).await;
    spectator.expect_error("not_a_player").await;
    white
        .send(json!({ "t": "act", "ply": 3, "action": "e2e4" }))
        .await;
    white.expect_error("wrong_ply").await;

    // Nothing above changed the game.
    assert_eq!(white.ply, 0);
    white.act("e2e4").await;
    white.read_until(|w| w.ply == 1).await;
    // A retry of the same action for the same ply is a duplicate.
    white
        .send(json!({ "t": "act", "ply": 1, "action": "e2e4" }))
        .await;
    white.expect_error("duplicate_action").await;
    // Also when the retry names it in the human notation the variant also reads.
    white
        .send(json!({ "t": "act", "ply": 1, "action": "e4" }))
        .await;
    white.expect_error("duplicate_action").await;
    // Forced capture: after e4 d5, a quiet move is refused with the rules' reason.
    black.read_until(|w| w.ply == 1).await;
    black.act("d7d5").await;
    white.read_until(|w| w.ply == 2).await;
    white.act("a2a3").await;
    white.expect_error("must_capture").await;

    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["actions"].as_array().map(Vec::len), Some(2));
    // The event log never advanced for the refusals: the spectator saw exactly 2 actions.
    spectator.read_until(|w| w.ply == 2).await;
    assert_eq!(
        spectator
            .events
            .iter()
            .filter(|e| e["kind"] == "action")
            .count(),
        2
    );
    server.stop().await;
}

/// A finished dice game's roll log verifies with the revealed seed, and a tampered one fails.
async fn check_dice_record(client: &mut oddboard_client::Client, game_id: &str) {
    let response = client
        .get(&format!("/api/games/{game_id}/dice"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 200, "{}", response.body);
    let mut record = response.json();
    let rolls: usize = record["actions"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| x["rolls"].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0);
    assert!(rolls > 0, "the game rolled no dice: {record}");
    let verify = |record: &Value| {
        let path =
            std::env::temp_dir().join(format!("oddboard-dice-{}.json", uuid::Uuid::new_v4()));
        std::fs::write(&path, record.to_string()).unwrap_or_else(|e| panic!("{e}"));
        let args = vec![
            "verify-dice".to_string(),
            path.to_string_lossy().into_owned(),
        ];
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = oddboard::cli::run_rules(&args, &mut out, &mut err);
        let _ = std::fs::remove_file(&path);
        (status, String::from_utf8_lossy(&err).into_owned())
    };
    let (status, err) = verify(&record);
    assert_eq!(status, 0, "{err}");
    // Change one stored roll: verification must name the mismatch.
    if let Some(actions) = record["actions"].as_array_mut() {
        if let Some(roll) = actions
            .iter_mut()
            .find_map(|a| a["rolls"].as_array_mut().and_then(|r| r.first_mut()))
        {
            let value = roll["value"].as_u64().unwrap_or(1);
            roll["value"] = json!(if value == 1 { 2 } else { value - 1 });
        }
    }
    let (status, _) = verify(&record);
    assert_eq!(status, 1, "a tampered roll log must fail verification");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_variant_ends_by_resignation_agreement_and_flag() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        // Black resigns after two moves.
        let game_id = start_game(&mut alice, &mut bob, variant.key(), Value::Null).await;
        let mut white = alice.watch(&game_id).await;
        let mut black = bob.watch(&game_id).await;
        play_until(&mut [&mut white, &mut black], &mut [], 2).await;
        black.send(json!({ "t": "resign" })).await;
        white.read_until(|w| w.outcome.is_some()).await;
        assert_eq!(
            white.outcome,
            Some(json!({ "winner": "white", "reason": "resignation" })),
            "{variant}"
        );

        // Agreement after three moves.
        let game_id = start_game(&mut alice, &mut bob, variant.key(), Value::Null).await;
        let mut white = alice.watch(&game_id).await;
        let mut black = bob.watch(&game_id).await;
        play_until(&mut [&mut white, &mut black], &mut [], 3).await;
        black.send(json!({ "t": "draw_offer" })).await;
        white
            .read_until(|w| w.events.iter().any(|e| e["kind"] == "draw_offered"))
            .await;
        white.send(json!({ "t": "draw_accept" })).await;
        black.read_until(|w| w.outcome.is_some()).await;
        assert_eq!(
            black.outcome,
            Some(json!({ "winner": null, "reason": "agreement" })),
            "{variant}"
        );

        // Flag: White's few seconds of the shortest clock run out after both first moves.
        let clock = json!({ "minutes": 0, "increment": 1 });
        let game_id = start_game(&mut alice, &mut bob, variant.key(), clock).await;
        let mut white = alice.watch(&game_id).await;
        let mut black = bob.watch(&game_id).await;
        play_until(&mut [&mut white, &mut black], &mut [], 2).await;
        black.read_until(|w| w.outcome.is_some()).await;
        assert_eq!(
            black.outcome,
            Some(json!({ "winner": "black", "reason": "timeout" })),
            "{variant}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_whose_first_move_never_comes_is_aborted() {
    let settings = GameSettings {
        first_move_limit: Duration::from_millis(400),
        ..fast_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings).await;
    // White never moves.
    let game_id = start_game(&mut alice, &mut bob, "chad", Value::Null).await;
    let mut black = bob.watch(&game_id).await;
    black.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(black.outcome, aborted());
    // White moves, Black never answers.
    let game_id = start_game(&mut alice, &mut bob, "chazz", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play_until(&mut [&mut white, &mut black], &mut [], 1).await;
    white.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(white.outcome, aborted());
    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["status"], "aborted");
    assert_eq!(record["result"], "*");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resigned_dice_game_still_verifies_and_states_no_rules_result() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "drehs", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    // Attack-heavy play so that dice are rolled before the resignation.
    for _ in 0..12 {
        if white.outcome.is_some() {
            break;
        }
        let ply = white.ply;
        let mover = if white.is_my_turn() {
            &mut white
        } else {
            &mut black
        };
        let action = mover
            .legal
            .iter()
            .find(|a| a.contains('x'))
            .cloned()
            .unwrap_or_else(|| choose(&mover.legal, ply));
        mover.act(&action).await;
        white
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
        black
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
    }
    if white.outcome.is_none() {
        white.send(json!({ "t": "resign" })).await;
        white.read_until(|w| w.outcome.is_some()).await;
    }
    let mut client = server.client();
    let record = client
        .get(&format!("/api/games/{game_id}/dice"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    if white
        .outcome
        .as_ref()
        .is_some_and(|o| o["reason"] == "resignation")
    {
        assert!(record.get("result").is_none(), "{record}");
    }
    check_dice_record(&mut client, &game_id).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_nobody_watches_is_let_go() {
    let settings = GameSettings {
        linger_unwatched: Duration::from_millis(300),
        ..fast_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings).await;
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let black = bob.watch(&game_id).await;
    white.send(json!({ "t": "resign" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    black.socket.close().await;

    // Someone still watches: the game stays up for a rematch past the unwatched delay.
    tokio::time::sleep(Duration::from_millis(900)).await;
    white.send(json!({ "t": "rematch_offer" })).await;
    white
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "rematch_offered"))
        .await;
    assert!(white.errors.is_empty(), "{:?}", white.errors);

    // Nobody left: it stops, and the socket endpoint no longer knows it (the game page then
    // shows the stored game in the replay).
    white.socket.close().await;
    // (A probe that still connects is a viewer and restarts the delay: probe less often.)
    let mut gone = false;
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(600)).await;
        if bob.client.connect_game(&game_id, None).await.is_err() {
            gone = true;
            break;
        }
    }
    assert!(gone, "an unwatched finished game kept running");
    let record = bob
        .client
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.json()["status"], "finished");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untimed_game_left_lying_is_lost_by_the_player_to_move() {
    let settings = GameSettings {
        idle_limit: Duration::from_millis(1_500),
        ..fast_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings).await;
    let (_game_id, mut white, mut black) =
        untimed_game_after_first_moves(&mut alice, &mut bob).await;
    // Each action gives the next player the whole limit again: two pauses of a second
    // each, longer together than the limit, end nothing.
    for ply in [3, 4] {
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        let mover = if white.is_my_turn() {
            &mut white
        } else {
            &mut black
        };
        assert_eq!(mover.outcome, None);
        let action = choose(&mover.legal, mover.ply);
        mover.act(&action).await;
        white.read_until(|w| w.ply == ply).await;
        black.read_until(|w| w.ply == ply).await;
    }
    // Then White, to move, lets the game lie: Black wins it.
    assert!(white.is_my_turn());
    white.read_until(|w| w.outcome.is_some()).await;
    black.read_until(|w| w.outcome.is_some()).await;
    let abandoned_by_white = Some(json!({ "winner": "black", "reason": "abandoned" }));
    assert_eq!(white.outcome, abandoned_by_white);
    assert_eq!(black.outcome, abandoned_by_white);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untimed_game_left_lying_across_a_restart_ends_when_resumed() {
    let settings = GameSettings {
        idle_limit: Duration::from_secs(60 * 60),
        ..fast_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings.clone()).await;
    let (game_id, _white, _black) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    // As if the last action had been played two hours ago and the server had been down
    // since: the time it was down counts, unlike on a clock.
    server
        .execute(&format!(
            "update game_action set created_at = now() - interval '2 hours' \
             where game_id = '{game_id}';"
        ))
        .await;
    let server = server.restart(settings).await;
    let record = stored_record_once(&server, &game_id, |r| r["status"] != "active").await;
    assert_eq!(record["status"], "finished", "{record}");
    assert_eq!(record["result"], "0-1", "{record}");
    assert_eq!(record["outcome"]["reason"], "abandoned", "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_pass_the_database_refuses_is_played_when_it_can_be() {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let game_id = start_game(&mut alice, &mut bob, "chazz", Value::Null).await;
    // Before anyone moves, the stored game is given a start position where White must pass
    // (no legal move, not in check), and the database refuses every action, counting each
    // attempt in a sequence (which a rollback does not undo).
    server
        .execute(&format!(
            "update game set start_position = '8/8/6k1/7p/7K w - - 0 1' \
             where game_id = '{game_id}'; \
             create sequence refused_actions; \
             create function refuse_action() returns trigger language plpgsql as $$ \
             begin perform nextval('refused_actions'); \
             raise exception 'the test refuses every action'; end $$; \
             create trigger refuse_action before insert on game_action for each row \
             execute function refuse_action();"
        ))
        .await;
    // The resumed game stops at the pass, which the server plays itself; the database
    // refuses it.
    let server = server.restart(fast_settings()).await;
    let refused = "select case when is_called then last_value else 0 end from refused_actions";
    let mut attempts = 0;
    for _ in 0..100 {
        attempts = server.fetch_number(refused).await;
        if attempts > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(attempts > 0, "the server never tried to play the pass");

    // Once the database takes actions again, the pass is tried again and stored, with
    // nobody doing anything.
    server
        .execute("drop trigger refuse_action on game_action;")
        .await;
    let record = stored_record_once(&server, &game_id, |r| {
        r["actions"].as_array().is_some_and(|a| !a.is_empty())
    })
    .await;
    assert_eq!(record["actions"][0]["machine"], "pass", "{record}");
    assert_eq!(record["status"], "active", "{record}");
    server.stop().await;
}

/// A Do-Or-Die Chazz game with `clock`, restarted from a position where White's pawn steps
/// off the board (`a1a0`), Black's steps forward (`a5a4`), and White, with only a hemmed-in
/// king left, must pass at ply 3, which the server plays for White. Returns the restarted
/// server, the game and both players' watchers.
async fn chazz_game_where_white_must_pass(clock: Value) -> (TestServer, String, Watcher, Watcher) {
    let (server, mut alice, mut bob) = server_and_two_guests(fast_settings()).await;
    let game_id = start_game(&mut alice, &mut bob, "chazz", clock).await;
    server
        .execute(&format!(
            "update game set start_position = 'p7/8/6k1/7p/P6K w - - 0 1' \
             where game_id = '{game_id}';"
        ))
        .await;
    let server = server.restart(fast_settings()).await;
    for player in [&mut alice, &mut bob] {
        player.client = player.client.clone();
        player.client.addr = server.addr.clone();
    }
    let white = alice.watch(&game_id).await;
    let black = bob.watch(&game_id).await;
    (server, game_id, white, black)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_pass_that_could_be_stored_only_after_the_flag_fell_loses_on_time() {
    // No minutes and a second's increment: each side starts with three seconds; the pass
    // comes with the clock running.
    let clock = json!({ "minutes": 0, "increment": 1 });
    let (server, game_id, mut white, mut black) = chazz_game_where_white_must_pass(clock).await;
    // The database refuses the pass and any end of the game until told otherwise.
    server
        .execute(
            "create function refuse() returns trigger language plpgsql as $$ \
             begin raise exception 'the test refuses this'; end $$; \
             create trigger refuse_pass before insert on game_action for each row \
             when (new.ply = 3) execute function refuse(); \
             create trigger refuse_end before update of status on game for each row \
             when (new.status <> old.status) execute function refuse();",
        )
        .await;
    white.act("a1a0").await;
    black.read_until(|w| w.ply == 1).await;
    black.act("a5a4").await;
    white.read_until(|w| w.ply == 2).await;
    // White's three seconds run out while neither the pass nor the flag can be stored.
    tokio::time::sleep(Duration::from_millis(4_500)).await;
    server
        .execute("drop trigger refuse_pass on game_action; drop trigger refuse_end on game;")
        .await;
    // The flag fell first: Black wins on time, and the pass, too late, is never stored.
    white.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        white.outcome,
        Some(json!({ "winner": "black", "reason": "timeout" }))
    );
    let record = stored_record_once(&server, &game_id, |r| r["status"] != "active").await;
    assert_eq!(record["status"], "finished", "{record}");
    assert_eq!(
        record["actions"].as_array().map(Vec::len),
        Some(2),
        "{record}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_pass_leaves_a_draw_offer_to_the_passer_standing() {
    let (server, _, mut white, mut black) = chazz_game_where_white_must_pass(Value::Null).await;
    white.act("a1a0").await;
    black.read_until(|w| w.ply == 1).await;
    // Black offers a draw, then moves: its own move leaves its offer standing, and so does
    // the pass White had no choice but to make.
    black.send(json!({ "t": "draw_offer" })).await;
    white
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "draw_offered"))
        .await;
    black.act("a5a4").await;
    white.read_until(|w| w.ply == 3).await;
    let action = |ply: u64| {
        white
            .events
            .iter()
            .find(|e| e["kind"] == "action" && e["ply"] == ply)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(action(3)["machine"], "pass");
    assert_eq!(action(3)["by"], "white");
    assert_eq!(action(3)["forced"], true, "{}", action(3));
    assert_eq!(
        action(2).get("forced"),
        None,
        "a chosen move: {}",
        action(2)
    );
    white.send(json!({ "t": "draw_accept" })).await;
    for watcher in [&mut white, &mut black] {
        watcher.read_until(|w| w.outcome.is_some()).await;
    }
    assert_eq!(
        white.outcome,
        Some(json!({ "winner": null, "reason": "agreement" })),
        "errors: {:?}",
        white.errors
    );
    server.stop().await;
}

/// Settings under which a game nobody watches hibernates within a fifth of a second.
fn hibernating_settings() -> GameSettings {
    GameSettings {
        hibernate_after: Duration::from_millis(200),
        ..fast_settings()
    }
}

/// Long enough for a game left alone under [`hibernating_settings`] to have hibernated.
const HIBERNATED: Duration = Duration::from_millis(1_500);

/// How many times the game's actor was brought back from the store.
async fn lives_after_the_first(server: &TestServer, game_id: &str) -> i64 {
    let query = format!("select restarts::bigint from game where game_id = '{game_id}'");
    server.fetch_number(&query).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_game_hibernates_and_comes_back_as_it_was() {
    let (server, mut alice, mut bob) = server_and_two_guests(hibernating_settings()).await;
    let (game_id, white, black) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    let seen = black.version.unwrap_or(0);
    let moves = black.moves.clone();
    white.socket.close().await;
    black.socket.close().await;
    tokio::time::sleep(HIBERNATED).await;
    assert_eq!(lives_after_the_first(&server, &game_id).await, 0);

    // Black comes back with the version it saw before the game left memory: the new actor's
    // log starts past it, so Black gets the whole game in a snapshot, not a gap.
    let socket = bob
        .client
        .connect_game(&game_id, Some(seen))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut black = Watcher::new(socket);
    let first = black.next().await;
    assert_eq!(first["t"], "snapshot", "{first}");
    assert!(black.version > Some(seen), "{first}");
    assert_eq!(black.moves, moves);
    assert_eq!(first["game"]["status"], "active");
    assert_eq!(lives_after_the_first(&server, &game_id).await, 1);

    // And the game goes on from there.
    let mut white = alice.watch(&game_id).await;
    assert!(white.version > Some(seen));
    play_until(&mut [&mut white, &mut black], &mut [], 4).await;
    assert_eq!(black.ply, 4);
    assert_eq!(
        stored_record(&server, &game_id).await["actions"][3]["ply"],
        4
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_at_once_for_a_hibernated_game_bring_back_one_actor() {
    let (server, mut alice, mut bob) = server_and_two_guests(hibernating_settings()).await;
    let (game_id, white, black) = untimed_game_after_first_moves(&mut alice, &mut bob).await;
    white.socket.close().await;
    black.socket.close().await;
    tokio::time::sleep(HIBERNATED).await;

    let connections = (0..8).map(|_| {
        let client = server.client();
        let game_id = game_id.clone();
        async move {
            let mut socket = client
                .connect_game(&game_id, None)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            socket.next(WAIT).await.unwrap_or_else(|e| panic!("{e}"))
        }
    });
    let snapshots = futures_util::future::join_all(connections).await;
    let versions: Vec<_> = snapshots.iter().map(|s| s["v"].as_u64()).collect();
    assert!(versions.iter().all(|v| *v == versions[0]), "{versions:?}");
    assert_eq!(lives_after_the_first(&server, &game_id).await, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hibernated_open_challenge_can_be_taken_or_expires() {
    let settings = GameSettings {
        open_challenge_limit: Duration::from_secs(4),
        housekeeping_interval: Duration::from_millis(200),
        ..hibernating_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings).await;
    let taken = alice.create_game("suicide", Value::Null, "white").await;
    let forgotten = alice.create_game("chad", Value::Null, "white").await;
    tokio::time::sleep(HIBERNATED).await;

    bob.accept(&taken).await;
    let record = stored_record(&server, &taken).await;
    assert_eq!(record["status"], "active", "{record}");
    assert_eq!(lives_after_the_first(&server, &taken).await, 1);

    // Nobody asks for the other: the housekeeping task wakes it once it is due, and it is
    // withdrawn as it would have been in memory.
    let record = stored_record_once(&server, &forgotten, |r| r["status"] != "waiting").await;
    assert_eq!(record["status"], "aborted", "{record}");
    assert_eq!(record["outcome"]["reason"], "aborted", "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_in_progress_are_capped_per_account() {
    let settings = GameSettings {
        max_games_in_progress: 2,
        ..fast_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings.clone()).await;
    let first = alice.create_game("suicide", Value::Null, "white").await;
    let second = alice.create_game("suicide", Value::Null, "white").await;
    let refused = alice.try_create_game("suicide", Value::Null, "white").await;
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert_eq!(refused.json()["error"], "too_many_games_in_progress");

    // Bob takes one (he has one game in progress now, Alice still two), then creates one.
    bob.accept(&first).await;
    let bobs = bob.create_game("duel", Value::Null, "black").await;
    // Alice's other challenge would be Bob's third game.
    let response = bob
        .client
        .post(&format!("/api/games/{second}/accept"), &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 409, "{}", response.body);
    assert_eq!(response.json()["error"], "too_many_games_in_progress");
    assert!(response.json()["message"]
        .as_str()
        .is_some_and(|m| m.contains(&bob.name)));
    assert_eq!(stored_record(&server, &second).await["status"], "waiting");

    // A game that ends makes room: Alice withdraws her challenge and can create another,
    // and Bob, whose challenge she cannot take either, withdraws his and takes hers.
    let mut view = alice.watch(&second).await;
    abort_expecting_aborted(&mut view).await;
    let third = alice.create_game("suicide", Value::Null, "white").await;
    let mut view = bob.watch(&bobs).await;
    abort_expecting_aborted(&mut view).await;
    bob.accept(&third).await;
    assert_eq!(stored_record(&server, &third).await["status"], "active");

    // The counts survive a restart, whether the games are back in memory or not.
    let server = server.restart(settings).await;
    // Alice's session, on the new server's address.
    let cookie = alice.client.cookie.take();
    alice.client = Client::new(server.addr.clone());
    alice.client.cookie = cookie;
    let refused = alice.try_create_game("suicide", Value::Null, "white").await;
    assert_eq!(refused.json()["error"], "too_many_games_in_progress");
    server.stop().await;
}
