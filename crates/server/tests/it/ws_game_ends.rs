//! Every way a game ends, over real WebSockets against a real server and database:
//! resignation, agreement, abort, flag, abandonment and claims, the first-move limit, a game
//! left lying, ends and forced actions the database refuses, and what lingers after the end.

use crate::server::{choose, fast_settings, wait_until, Player, TestServer, Watcher, WAIT};
use crate::ws_game::{
    abort_expecting_aborted, aborted, live_view, play_until, server_and_two_guests, start_game,
    stored_record, stored_record_once, untimed_game_after_first_moves,
};
use oddboard::game::GameSettings;
use oddboard::rules::Variant;
use serde_json::{json, Value};
use std::time::Duration;

/// `leaver` closes its socket; waits until `stayer` hears of it and the server lets a claim
/// against the leaver be made (a page opened now is told it may claim at once: the tests'
/// claim delay, 300 ms in `fast_settings`, has passed). `staying` is the stayer's player,
/// who opens that page.
async fn leave_past_the_claim_delay(
    leaver: Watcher,
    stayer: &mut Watcher,
    staying: &Player,
    game_id: &str,
) {
    let color = leaver.you.clone().unwrap_or_default();
    leaver.socket.close().await;
    stayer
        .read_until(|w| w.events.iter().any(|e| e["kind"] == "player_gone"))
        .await;
    wait_until("the claim delay to pass", WAIT, async || {
        live_view(&staying.client, game_id).await["claim_after_ms"][&color] == 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_end_by_resignation_agreement_abort_flag_and_abandonment() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    ends_by_resignation(&mut alice, &mut bob).await;
    ends_by_agreement_after_a_declined_offer(&mut alice, &mut bob).await;
    ends_by_abort_only_before_both_have_moved(&mut alice, &mut bob).await;
    ends_by_the_flag(&mut alice, &mut bob).await;
    a_claim_before_both_have_moved_is_an_abort(&mut alice, &mut bob).await;
    let (game_id, white) = ends_by_abandonment(&mut alice, &mut bob).await;
    a_rematch_swaps_colours(&alice, &bob, &game_id, white).await;
    server.stop().await;
}

/// White resigns: Black wins.
async fn ends_by_resignation(alice: &mut Player, bob: &mut Player) {
    let (_, mut white, mut black) = untimed_game_after_first_moves(alice, bob).await;
    white.send(json!({ "t": "resign" })).await;
    black.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        black.outcome,
        Some(json!({ "winner": "black", "reason": "resignation" }))
    );
}

/// A draw by agreement, after a declined offer and an accept of no offer.
async fn ends_by_agreement_after_a_declined_offer(alice: &mut Player, bob: &mut Player) {
    let game_id = start_game(alice, bob, "suicide", Value::Null).await;
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
}

/// Abort is allowed before both sides have moved, refused after.
async fn ends_by_abort_only_before_both_have_moved(alice: &mut Player, bob: &mut Player) {
    let (_, mut white, _black) = untimed_game_after_first_moves(alice, bob).await;
    white.send(json!({ "t": "abort" })).await;
    white.expect_error("too_late_to_abort").await;
    let game_id = start_game(alice, bob, "chazz", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    abort_expecting_aborted(&mut white).await;
}

/// The shortest clock there is (no minutes, a second's increment: three seconds each):
/// White runs out after both first moves.
async fn ends_by_the_flag(alice: &mut Player, bob: &mut Player) {
    let game_id = start_game(
        alice,
        bob,
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
}

/// An opponent gone before both sides have moved is no win: the game can be aborted.
async fn a_claim_before_both_have_moved_is_an_abort(alice: &mut Player, bob: &mut Player) {
    let game_id = start_game(alice, bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let black = bob.watch(&game_id).await;
    leave_past_the_claim_delay(black, &mut white, alice, &game_id).await;
    white.send(json!({ "t": "claim_victory" })).await;
    white.expect_error("abort_instead").await;
    abort_expecting_aborted(&mut white).await;
}

/// Black leaves; after the claim delay White claims the win. Returns the finished game and
/// White's watcher of it.
async fn ends_by_abandonment(alice: &mut Player, bob: &mut Player) -> (String, Watcher) {
    let (game_id, mut white, black) = untimed_game_after_first_moves(alice, bob).await;
    white.send(json!({ "t": "claim_victory" })).await;
    white.expect_error("opponent_present").await;
    let before = live_view(&alice.client, &game_id).await;
    assert_eq!(before["absent"], json!([]), "{before}");
    assert_eq!(before["claim_after_ms"], json!({}), "{before}");
    leave_past_the_claim_delay(black, &mut white, alice, &game_id).await;
    // A page opened now learns who is gone, and that the claim is allowed already.
    let after = live_view(&alice.client, &game_id).await;
    assert_eq!(after["absent"], json!(["black"]), "{after}");
    assert_eq!(after["claim_after_ms"], json!({ "black": 0 }), "{after}");
    white.send(json!({ "t": "claim_victory" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        white.outcome,
        Some(json!({ "winner": "white", "reason": "abandoned" }))
    );
    (game_id, white)
}

/// A rematch of the finished game: colours swap.
async fn a_rematch_swaps_colours(alice: &Player, bob: &Player, game_id: &str, mut white: Watcher) {
    white.send(json!({ "t": "rematch_offer" })).await;
    let mut black = bob.watch(game_id).await;
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

    // Someone still watches: the game stays up for a rematch past the unwatched delay. A
    // fixed wait (three delays): only waiting out the delay shows that something does not
    // happen, as the server marks no moment for it (see `wait_until` on paused time).
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
    let limit = Duration::from_millis(1_500);
    let settings = GameSettings {
        idle_limit: limit,
        ..fast_settings()
    };
    let (server, mut alice, mut bob) = server_and_two_guests(settings).await;
    let (_game_id, mut white, mut black) =
        untimed_game_after_first_moves(&mut alice, &mut bob).await;
    // Each action gives the next player the whole limit again: the players think for a third
    // and then two thirds of the limit, as long as the limit together, and nothing ends. The
    // pauses are the players' thinking, what the test is about, not waits for something. The
    // first is counted from when the test heard of ply 2, the second from when it sent ply 3
    // (no later than the server took it): each action comes within the limit the one before
    // gave, however slow the machine, unless a message takes a second.
    let mut acted = tokio::time::Instant::now();
    for (ply, thinking) in [(3, limit / 3), (4, limit * 2 / 3)] {
        tokio::time::sleep_until(acted + thinking).await;
        let mover = if white.is_my_turn() {
            &mut white
        } else {
            &mut black
        };
        assert_eq!(mover.outcome, None);
        let action = choose(&mover.legal, mover.ply);
        acted = tokio::time::Instant::now();
        mover.act(&action).await;
        white.read_until(|w| w.ply == ply).await;
        black.read_until(|w| w.ply == ply).await;
    }
    // Then White, to move, lets the game lie: Black wins it, no sooner than the whole limit
    // after the last action (had an action not restarted the limit, the game would have
    // ended a limit after ply 2, before the last action or less than a limit after it).
    assert!(white.is_my_turn());
    white.read_until(|w| w.outcome.is_some()).await;
    assert!(
        acted.elapsed() >= limit,
        "the game ended {:?} after the last action",
        acted.elapsed()
    );
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
    // The database refuses the pass and any end of the game until told otherwise, counting
    // each end it refuses in a sequence (which a rollback does not undo).
    server
        .execute(
            "create sequence refused_ends; \
             create function refuse() returns trigger language plpgsql as $$ \
             begin if tg_name = 'refuse_end' then perform nextval('refused_ends'); end if; \
             raise exception 'the test refuses this'; end $$; \
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
    // White's three seconds run out while neither the pass nor the flag can be stored: the
    // server has tried to store the end (the flag fell) once the sequence has moved.
    let refused_ends = "select case when is_called then last_value else 0 end from refused_ends";
    wait_until("the flag to fall", WAIT, async || {
        server.fetch_number(refused_ends).await > 0
    })
    .await;
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
