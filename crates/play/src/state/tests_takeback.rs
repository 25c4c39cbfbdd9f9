//! Takebacks and more time, on plain numbers for time.

use super::*;

/// The event a change broadcast first, parsed.
fn first_event(effects: &Effects) -> serde_json::Value {
    let message = effects.broadcast.first().map_or("null", |m| &**m);
    serde_json::from_str(message).unwrap_or_else(|e| panic!("{e}: {message}"))
}

/// Accepts the standing takeback offer as `color` at `now`, committed at once.
fn accept(table: &mut Table, color: Color, now: u64) -> (GameChange, serde_json::Value) {
    let proposal = committed(table.ask(color, PlayerRequest::AcceptTakeback, now));
    let effects = table.state.adopt(proposal.adoption, now);
    (proposal.change, first_event(&effects))
}

/// The game rebuilt from its start by replaying the moves it holds: what loading its
/// stored record gives.
fn replayed(table: &Table, start: Option<&str>) -> AnyGame {
    let variant = table.state.game.variant();
    let mut game = founded_game(variant, start, table.state.dice.as_ref(), table.state.id)
        .unwrap_or_else(|e| panic!("{e}"));
    for m in &table.state.moves {
        game.play(&m.machine).unwrap_or_else(|e| panic!("{e}"));
    }
    game
}

#[test]
fn a_takeback_of_one_ply_goes_back_to_the_proposers_turn_and_runs_their_clock() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), false);
    table.play(Color::White, "e2e3", 0);
    table.play(Color::Black, "h7h6", 1_000);
    table.play(Color::White, "d1h5", 3_000);
    assert_eq!(
        told(table.ask(Color::White, PlayerRequest::OfferTakeback, 4_000)),
        ["takeback_offered"]
    );
    assert_eq!(table.state.takeback_offer(), Some(Color::White));
    let view = serde_json::to_value(table.state.view(None, 4_000)).unwrap_or_default();
    assert_eq!(view["takeback_offer"], "white");
    let (change, event) = accept(&mut table, Color::Black, 5_000);
    let GameChange::Takeback(stored) = change else {
        panic!("not a takeback: {change:?}");
    };
    assert_eq!((stored.by, stored.ply), (Color::White, 2));
    assert_eq!(stored.taken_back.len(), 1);
    assert_eq!(stored.taken_back[0].machine, "d1h5");
    // Black's clock ran from 3 s to 5 s; White's time stays as its move left it.
    assert_eq!(
        (stored.white_ms, stored.black_ms),
        (Some(58_000), Some(58_000))
    );
    assert_eq!(
        (
            event["kind"].as_str(),
            event["by"].as_str(),
            event["plies"].as_u64()
        ),
        (Some("takeback"), Some("white"), Some(1))
    );
    assert_eq!(event["rules"]["turn"], "white");
    assert_eq!(event["rules"]["ply"], 2);
    assert_eq!(event["clock"]["running"], "white");
    assert_eq!(table.state.ply(), 2);
    assert_eq!(table.state.takeback_offer(), None);
    assert_eq!(
        table.state.game.position(),
        replayed(&table, None).position()
    );
    // The proposer plays on from there, another move than the one taken back.
    table.play(Color::White, "g1f3", 6_000);
    assert_eq!(table.state.ply(), 3);
}

#[test]
fn a_takeback_after_the_reply_takes_back_two_plies() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), false);
    for (i, (color, action)) in [
        (Color::White, "e2e3"),
        (Color::Black, "b7b5"),
        (Color::White, "f1b5"),
        (Color::Black, "c7c6"),
    ]
    .into_iter()
    .enumerate()
    {
        table.play(color, action, 1_000 * i as u64);
    }
    told(table.ask(Color::White, PlayerRequest::OfferTakeback, 4_000));
    let (change, event) = accept(&mut table, Color::Black, 4_500);
    let GameChange::Takeback(stored) = change else {
        panic!("not a takeback: {change:?}");
    };
    let machines: Vec<&str> = stored
        .taken_back
        .iter()
        .map(|a| a.machine.as_str())
        .collect();
    assert_eq!((stored.ply, machines), (2, vec!["f1b5", "c7c6"]));
    assert_eq!(event["plies"], 2);
    assert_eq!(table.state.ply(), 2);
    assert_eq!(table.state.game.turn(), Color::White);
    // Back to two plies: the clock still runs (both sides have moved).
    assert!(table.state.clock().is_some_and(Clock::is_running));
}

#[test]
fn taking_back_the_first_move_brings_back_the_first_move_limit() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), false);
    table.play(Color::White, "e2e3", 1_000);
    told(table.ask(Color::White, PlayerRequest::OfferTakeback, 2_000));
    let (_, event) = accept(&mut table, Color::Black, 2_000);
    assert_eq!((event["plies"].as_u64(), table.state.ply()), (Some(1), 0));
    assert!(table.state.first_move_deadline.is_some());
    assert!(!table.state.clock().is_some_and(Clock::is_running));
}

#[test]
fn a_takeback_offer_is_declined_or_lapses_with_the_next_move() {
    let mut table = Table::new(Variant::Suicide, None, false);
    table.play(Color::White, "e2e3", 0);
    told(table.ask(Color::White, PlayerRequest::OfferTakeback, 1));
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::OfferTakeback, 1)),
        "takeback_already_offered"
    );
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::AcceptTakeback, 1)),
        "no_takeback_offer"
    );
    assert_eq!(
        told(table.ask(Color::Black, PlayerRequest::DeclineTakeback, 2)),
        ["takeback_declined"]
    );
    assert_eq!(table.state.takeback_offer(), None);
    assert_eq!(
        refused(table.ask(Color::Black, PlayerRequest::DeclineTakeback, 2)),
        "no_takeback_offer"
    );
    told(table.ask(Color::White, PlayerRequest::OfferTakeback, 3));
    table.play(Color::Black, "b7b5", 4);
    assert_eq!(table.state.takeback_offer(), None, "moving declines it");
    assert_eq!(
        refused(table.ask(Color::Black, PlayerRequest::AcceptTakeback, 5)),
        "no_takeback_offer"
    );
}

#[test]
fn takebacks_are_refused_when_there_is_nothing_to_take_back_or_the_game_is_not_on() {
    let mut table = Table::new(Variant::Suicide, None, false);
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::OfferTakeback, 0)),
        "nothing_to_take_back"
    );
    table.play(Color::White, "e2e3", 0);
    assert_eq!(
        refused(table.ask(Color::Black, PlayerRequest::OfferTakeback, 0)),
        "nothing_to_take_back"
    );
    let stranger = Uuid::new_v4();
    let asked = table
        .state
        .request(stranger, PlayerRequest::OfferTakeback, 0);
    assert_eq!(refused(asked), "not_a_player");
    let resign = committed(table.ask(Color::Black, PlayerRequest::Resign, 1));
    table.state.adopt(resign.adoption, 1);
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::OfferTakeback, 2)),
        "game_over"
    );
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::GiveMoreTime, 2)),
        "game_over"
    );

    let (alice, bob) = (seat("alice"), seat("bob"));
    let mut waiting = GameState::open(
        founding(&alice, Variant::Suicide, None, false),
        settings(),
        test_wall_clock,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let asked = waiting.request(alice.user_id, PlayerRequest::OfferTakeback, 0);
    assert_eq!(refused(asked), "not_a_player", "no seat before the start");
    let _ = bob;
}

#[test]
fn more_time_adds_fifteen_seconds_to_the_opponent_and_needs_a_clock() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), false);
    table.play(Color::White, "e2e3", 0);
    table.play(Color::Black, "b7b5", 1_000);
    // White's clock runs from 1 s.
    let proposal = committed(table.ask(Color::White, PlayerRequest::GiveMoreTime, 3_000));
    let GameChange::MoreTime(gift) = &proposal.change else {
        panic!("not more time: {:?}", proposal.change);
    };
    assert_eq!(
        (gift.by, gift.to, gift.ms, gift.ply),
        (Color::White, Color::Black, 15_000, 2)
    );
    assert_eq!((gift.white_ms, gift.black_ms), (Some(58_000), Some(75_000)));
    let effects = table.state.adopt(proposal.adoption, 3_000);
    let event = first_event(&effects);
    assert_eq!(
        (
            event["kind"].as_str(),
            event["to"].as_str(),
            event["ms"].as_u64()
        ),
        (Some("more_time"), Some("black"), Some(15_000))
    );
    assert_eq!(event["clock"]["black_ms"], 75_000);
    assert_eq!(event["clock"]["running"], "white");
    assert_eq!(
        table
            .state
            .clock()
            .map(|c| c.remaining(Color::Black, 3_000)),
        Some(75_000)
    );

    let mut untimed = Table::new(Variant::Suicide, None, false);
    assert_eq!(
        refused(untimed.ask(Color::White, PlayerRequest::GiveMoreTime, 0)),
        "no_clock"
    );
}

#[test]
fn a_forced_pass_is_taken_back_with_the_action_before_it() {
    // Chazz: White moved a1a0, Black a5a4, and White, hemmed in, must pass.
    let mut table = chazz_where_white_must_pass(clock(60_000, 0));
    let pass = (table.state.propose_forced(2_000).and_then(Result::ok))
        .unwrap_or_else(|| panic!("no forced pass"));
    table.state.adopt(pass.adoption, 2_000);
    // Black's last action is a5a4, before White's forced pass.
    told(table.ask(Color::Black, PlayerRequest::OfferTakeback, 3_000));
    let (change, event) = accept(&mut table, Color::White, 3_000);
    let GameChange::Takeback(stored) = change else {
        panic!("not a takeback: {change:?}");
    };
    let machines: Vec<&str> = stored
        .taken_back
        .iter()
        .map(|a| a.machine.as_str())
        .collect();
    assert_eq!(machines, ["a5a4", "pass"]);
    assert_eq!((event["plies"].as_u64(), table.state.ply()), (Some(2), 1));
    assert_eq!(table.state.game.turn(), Color::Black);
    let start = Some("p7/8/6k1/7p/P6K w - - 0 1");
    assert_eq!(
        table.state.game.position(),
        replayed(&table, start).position()
    );
    // White, whose only action was forced, has nothing of its own to take back.
    let mut forced_only = chazz_where_white_must_pass(None);
    let pass = (forced_only.state.propose_forced(0).and_then(Result::ok))
        .unwrap_or_else(|| panic!("no forced pass"));
    forced_only.state.adopt(pass.adoption, 0);
    let (change, _) = {
        told(forced_only.ask(Color::White, PlayerRequest::OfferTakeback, 0));
        accept(&mut forced_only, Color::Black, 0)
    };
    let GameChange::Takeback(stored) = change else {
        panic!("not a takeback: {change:?}");
    };
    assert_eq!(
        stored.taken_back[0].machine, "a1a0",
        "back before White's own action"
    );
}

/// A Davey Drehs game from `position` between Alice (White) and Bob, with a dice seed.
fn drehs(position: &str) -> Table {
    let (white, black) = (seat("alice"), seat("bob"));
    let mut founding = founding(&white, Variant::Drehs, None, false);
    founding.seats = [Some(white.clone()), Some(black.clone())];
    founding.status = GameStatus::Active;
    founding.dice = DiceSecret::for_variant(Variant::Drehs, [7; 32]);
    let state = GameState::new(founding, Some(position), settings(), test_wall_clock)
        .unwrap_or_else(|e| panic!("{e}"));
    Table {
        state,
        white,
        black,
    }
}

#[test]
fn in_drehs_an_action_that_rolled_dice_is_not_taken_back_and_the_dice_run_on() {
    let position = "4k3/4p3/8/8/8/8/4Q3/4K3 w - - - 0 1 0";
    let mut table = drehs(position);
    // A quiet move rolls nothing: taken back, the game is the replay of its record.
    table.play(Color::White, "e1d1", 0);
    told(table.ask(Color::White, PlayerRequest::OfferTakeback, 1));
    accept(&mut table, Color::Black, 1);
    assert_eq!(table.state.ply(), 0);
    assert_eq!(
        table.state.game.position(),
        replayed(&table, Some(position)).position()
    );
    // The queen's attack on e7 rolls dice: final.
    table.play(Color::White, "e2xe7", 2);
    let rolled = table.state.game.snapshot().last_action;
    assert!(
        rolled.is_some_and(|a| !a.rolls.is_empty()),
        "the attack rolls"
    );
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::OfferTakeback, 3)),
        "takeback_after_roll"
    );
    // Its dice are where a replay of the record puts them.
    assert_eq!(
        table.state.game.position(),
        replayed(&table, Some(position)).position()
    );
}

#[test]
fn a_resumed_game_takes_its_clock_from_the_latest_of_its_last_action_and_adjustments() {
    let adjustment = |ply: i32, white_ms: i64| crate::record::AdjustmentRecord {
        game_id: Uuid::nil(),
        kind: "more_time".into(),
        by: "white".into(),
        to: Some("black".into()),
        ms: Some(15_000),
        ply,
        taken_back: None,
        white_ms: Some(white_ms),
        black_ms: Some(45_000),
        created_at: test_wall_clock(),
    };
    let mut stored = record(clock(60_000, 0), &["e2e3", "b7b5"]);
    assert_eq!(
        crate::replay::Replay::new(&stored, crate::replay::Seed::Stored).clock(),
        Some((40_000, 30_000))
    );
    stored.adjustments.push(adjustment(2, 39_000));
    assert_eq!(
        crate::replay::Replay::new(&stored, crate::replay::Seed::Stored).clock(),
        Some((39_000, 45_000))
    );
    // An adjustment before the last action is older than it.
    stored.adjustments = vec![adjustment(1, 39_000)];
    assert_eq!(
        crate::replay::Replay::new(&stored, crate::replay::Seed::Stored).clock(),
        Some((40_000, 30_000))
    );
    let restored = GameState::restore(
        &{
            stored.adjustments.push(adjustment(2, 20_000));
            stored
        },
        settings(),
        test_wall_clock,
        0,
        Duration::ZERO,
        Duration::ZERO,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let view = restored.clock().map(|c| c.view(0));
    assert_eq!(
        view.map(|v| (v.white_ms, v.black_ms)),
        Some((20_000, 45_000))
    );
}

#[test]
fn neither_a_takeback_nor_more_time_rescues_a_side_whose_time_ran_out() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), false);
    table.play(Color::White, "e2e3", 0);
    table.play(Color::Black, "h7h6", 0);
    table.play(Color::White, "d1h5", 1_000);
    told(table.ask(Color::White, PlayerRequest::OfferTakeback, 1_000));
    // Black's time ran out at 61 s; the deadline has not been handled yet.
    for request in [PlayerRequest::AcceptTakeback, PlayerRequest::GiveMoreTime] {
        let proposal = committed(table.ask(Color::Black, request, 62_000));
        let end = end_of(&proposal);
        assert_eq!(end.outcome, Outcome::win(Color::White, EndReason::Timeout));
    }
}
