//! Real WebSocket clients play whole games against a real server and database: every
//! playable variant to its end with a spectator and a reconnect, every kind of bad input,
//! open challenges and their limits, hibernation; and the steps the game tests share (the
//! endings are in `ws_game_ends`).

use crate::server::{choose, fast_settings, wait_until, Player, TestServer, Watcher, WAIT};
use oddboard::game::GameSettings;
use oddboard::rules::Variant;
use oddboard_client::Client;
use serde_json::{json, Value};
use std::time::Duration;

/// Plies after which a test game is ended by resignation if the rules have not ended it.
const PLY_CAP: u64 = 300;

/// The outcome of an aborted game.
pub(crate) fn aborted() -> Option<Value> {
    Some(json!({ "winner": null, "reason": "aborted" }))
}

/// Sends `abort` and waits for the game to end aborted.
pub(crate) async fn abort_expecting_aborted(player: &mut Watcher) {
    player.send(json!({ "t": "abort" })).await;
    player.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(player.outcome, aborted());
}

/// A server with the given settings, and two guests on it.
pub(crate) async fn server_and_two_guests(settings: GameSettings) -> (TestServer, Player, Player) {
    let server = TestServer::start(settings).await;
    let alice = server.guest().await;
    let bob = server.guest().await;
    (server, alice, bob)
}

/// An untimed Suicide game between the two, both watching, after each side's first move.
pub(crate) async fn untimed_game_after_first_moves(
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
pub(crate) async fn stored_record(server: &TestServer, game_id: &str) -> Value {
    server
        .client()
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json()
}

/// The game's stored record (`GET /api/games/{id}`) once it satisfies `done`, or as it is
/// after [`WAIT`].
pub(crate) async fn stored_record_once(
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

/// The game as the server holds it now: the `game` of the snapshot a socket opened by
/// `client` gets first (the socket is closed again).
pub(crate) async fn live_view(client: &Client, game_id: &str) -> Value {
    let mut socket = client
        .connect_game(game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let snapshot = socket
        .wait_for(WAIT, |m| m["t"] == "snapshot")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    socket.close().await;
    snapshot["game"].clone()
}

/// Creates a game (creator White), has the other player accept, and returns the id.
pub(crate) async fn start_game(
    white: &mut Player,
    black: &mut Player,
    variant: &str,
    clock: Value,
) -> String {
    let game_id = white.create_game(variant, clock, "white").await;
    black.accept(&game_id).await;
    game_id
}

/// Lets both players move by `choose` until the game ends or `until_ply` is reached; every
/// watcher follows along.
pub(crate) async fn play_until(
    players: &mut [&mut Watcher; 2],
    others: &mut [&mut Watcher],
    until_ply: u64,
) {
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
        black = reconnect_from_last_version(&bob, &game_id, black).await;
        // White moves while Black reconnects; Black must catch up from its version.
        play_until(&mut [&mut white, &mut black], &mut [&mut spectator], 8).await;
        sync_is_answered_with_a_batch(&mut black).await;

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
        check_stored_game(&server, variant, &game_id, &white.moves).await;
    }
    server.stop().await;
}

/// `old`'s socket drops off and `player` comes back with the last version it saw: the new
/// watcher knows what the old one knew, and is sent only what it missed.
async fn reconnect_from_last_version(player: &Player, game_id: &str, old: Watcher) -> Watcher {
    let seen = old.version;
    let socket = player
        .client
        .connect_game(game_id, seen)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut watcher = Watcher::new(socket);
    watcher.version = seen;
    watcher.ply = old.ply;
    watcher.you = old.you.clone();
    watcher.legal = old.legal.clone();
    watcher.turn = old.turn.clone();
    watcher.moves = old.moves.clone();
    old.socket.close().await;
    watcher
}

/// Sends `sync` from the last version seen: the answer is one `batch`, though events already
/// on their way (the game may just have ended) come before it.
async fn sync_is_answered_with_a_batch(watcher: &mut Watcher) {
    watcher
        .socket
        .send(&json!({ "t": "sync", "v": watcher.version.unwrap_or(0) }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    loop {
        let message = watcher.next().await;
        match message["t"].as_str() {
            Some("batch") => break,
            Some("event") => {}
            _ => panic!("sync must be answered with a batch: {message}"),
        }
    }
}

/// A finished game's stored record and export hold every action the players were told about
/// (`moves`), with its dice where the variant rolls them.
async fn check_stored_game(server: &TestServer, variant: Variant, game_id: &str, moves: &[String]) {
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
    assert_eq!(stored, moves, "{variant}");
    assert_eq!(record["status"], "finished");
    let export = client
        .get(&format!("/games/{game_id}/export"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let variant_tag = format!("[Variant \"{}\"]", variant.key());
    assert!(export.body.contains(&variant_tag), "{}", export.body);
    let result = record["result"].as_str().unwrap_or("?");
    assert!(export.body.contains(&format!("[Result \"{result}\"]")));
    check_stored_dice(&mut client, variant, game_id, &record).await;
}

/// Each action's `rolls` is the list of its dice in a game with dice, null in a game without;
/// its `effects`, when it has any, a list of texts beside them.
async fn check_stored_dice(client: &mut Client, variant: Variant, game_id: &str, record: &Value) {
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
        check_dice_record(client, game_id).await;
    }
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
async fn bad_input_gets_an_error_and_changes_nothing() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let carol = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    let mut spectator = carol.watch(&game_id).await;

    refuses_malformed_frames(&mut white).await;
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

/// Frames that are not a message at all, or not one the server knows, or too long, each get
/// their error.
async fn refuses_malformed_frames(player: &mut Watcher) {
    player
        .socket
        .send_text("this is not json".into())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    player.expect_error("bad_message").await;
    player.send(json!({ "t": "teleport" })).await;
    player.expect_error("unknown_message").await;
    player
        .send(json!({ "t": "act", "ply": "one", "action": "e2e4" }))
        .await;
    player.expect_error("bad_message").await;
    player
        .socket
        .send_text(format!(
            "{{\"t\":\"act\",\"ply\":1,\"action\":\"{}\"}}",
            "x".repeat(5000)
        ))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    player.expect_error("frame_too_large").await;
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

/// Settings under which a game nobody watches hibernates within a fifth of a second.
fn hibernating_settings() -> GameSettings {
    GameSettings {
        hibernate_after: Duration::from_millis(200),
        ..fast_settings()
    }
}

/// Waits until every game on the server has hibernated (left memory): with nobody watching
/// and nothing due, within a fifth of a second under [`hibernating_settings`].
async fn all_hibernated(server: &TestServer) {
    wait_until("every game to hibernate", WAIT, async || {
        server.live_games() == 0
    })
    .await;
}

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
    all_hibernated(&server).await;
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
    all_hibernated(&server).await;

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
    all_hibernated(&server).await;

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
