//! The game's rules about time, offers, claims and ends, on plain numbers for time: no
//! task, store or server.

use super::*;
use crate::record::{GameChange, GameEnd, RatedSeats};
use crate::rules::{EndReason, Variant};
use crate::{PlayerRequest, Refusal};

fn seat(name: &str) -> Seat {
    Seat {
        user_id: Uuid::new_v4(),
        name: name.into(),
    }
}

fn settings() -> Arc<GameSettings> {
    Arc::new(GameSettings {
        first_move_limit: Duration::from_secs(30),
        min_claim_delay: Duration::from_secs(10),
        max_claim_delay: Duration::from_secs(60),
        hibernate_after: Duration::from_secs(300),
        ..GameSettings::default()
    })
}

fn clock(initial_ms: u64, increment_ms: u64) -> Option<TimeControl> {
    Some(TimeControl {
        initial_ms,
        increment_ms,
    })
}

/// A game Alice (White) opened and Bob (Black) joined at time 0.
struct Table {
    state: GameState,
    white: Seat,
    black: Seat,
}

impl Table {
    fn new(variant: Variant, time_control: Option<TimeControl>, rated: bool) -> Table {
        let (white, black) = (seat("alice"), seat("bob"));
        let mut state = GameState::open(
            founding(&white, variant, time_control, rated),
            settings(),
            test_wall_clock,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let start = state
            .propose_start(black.clone(), state.creator_color(true))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(start.change, GameChange::Start(_)));
        let effects = state.adopt(start.adoption, 0);
        assert_eq!(kinds(&effects), ["started"]);
        assert_eq!((effects.in_progress_delta, effects.notices.len()), (1, 1));
        assert_eq!(effects.challenge_closed, Some(white.user_id));
        Table {
            state,
            white,
            black,
        }
    }

    fn of(&self, color: Color) -> Uuid {
        match color {
            Color::White => self.white.user_id,
            Color::Black => self.black.user_id,
        }
    }

    /// `color` plays `action` as the next ply at `now`, committed at once.
    fn play(&mut self, color: Color, action: &str, now: u64) -> Effects {
        let ply = self.state.ply() + 1;
        let proposal = self
            .state
            .propose_action(color, ply, action, now)
            .unwrap_or_else(|e| panic!("{action}: {e}"));
        self.state.adopt(proposal.adoption, now)
    }

    fn ask(&mut self, color: Color, request: PlayerRequest, now: u64) -> Result<Decision, Refusal> {
        self.state.request(self.of(color), request, now)
    }
}

fn founding(
    creator: &Seat,
    variant: Variant,
    time_control: Option<TimeControl>,
    rated: bool,
) -> Founding {
    Founding {
        id: Uuid::new_v4(),
        creator: creator.clone(),
        color_choice: ColorChoice::White,
        seats: [None, None],
        status: GameStatus::Waiting,
        terms: GameTerms {
            variant,
            time_control,
            rated,
        },
        dice: None,
    }
}

/// The event kinds a change broadcast, in order.
fn kinds(effects: &Effects) -> Vec<String> {
    effects
        .broadcast
        .iter()
        .map(|message| {
            let value: serde_json::Value =
                serde_json::from_str(message).unwrap_or_else(|e| panic!("{e}: {message}"));
            value["kind"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

/// The end a proposal stores.
fn end_of(proposal: &Proposal) -> GameEnd {
    match &proposal.change {
        GameChange::End(end) | GameChange::Act(_, Some(end)) => *end,
        other => panic!("not an end: {other:?}"),
    }
}

fn committed(decision: Result<Decision, Refusal>) -> Proposal {
    match decision {
        Ok(Decision::Commit(proposal)) => proposal,
        other => panic!("expected a change to commit, got {other:?}"),
    }
}

fn told(decision: Result<Decision, Refusal>) -> Vec<String> {
    match decision {
        Ok(Decision::Done(effects)) => kinds(&effects),
        other => panic!("expected an announcement, got {other:?}"),
    }
}

fn refused(result: Result<Decision, Refusal>) -> &'static str {
    match result {
        Err(e) => e.code(),
        Ok(decision) => panic!("expected a refusal, got {decision:?}"),
    }
}

#[test]
fn the_clock_starts_after_both_first_moves_and_adds_the_increment() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 2_000), false);
    table.play(Color::White, "e2e4", 1_000);
    assert!(!table.state.clock().is_some_and(Clock::is_running));
    // Black's first move starts White's time, from when the move was committed.
    table.play(Color::Black, "d7d5", 2_000);
    assert_eq!(table.state.next_deadline(), Some(62_000), "White's flag");
    // Ten seconds used, two seconds back; the commit's half second is charged to nobody.
    let proposal = table
        .state
        .propose_action(Color::White, 3, "e4d5", 12_000)
        .unwrap_or_else(|e| panic!("{e}"));
    table.state.adopt(proposal.adoption, 12_500);
    let view = table.state.clock().map(|c| c.view(22_500));
    assert_eq!(
        view.map(|v| (v.white_ms, v.black_ms)),
        Some((52_000, 50_000))
    );
    assert_eq!(view.and_then(|v| v.running), Some(Color::Black));
}

#[test]
fn a_flag_loses_on_time_and_a_mover_out_of_time_is_refused_with_it() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), true);
    table.play(Color::White, "e2e4", 0);
    table.play(Color::Black, "d7d5", 0);
    assert!(table.state.deadline_end(59_999).is_none());
    let flag = table
        .state
        .deadline_end(60_000)
        .unwrap_or_else(|| panic!("no flag"));
    let end = end_of(&flag);
    assert_eq!(end.outcome, Outcome::win(Color::Black, EndReason::Timeout));
    let seats = RatedSeats {
        variant: Variant::Suicide,
        white_id: table.white.user_id,
        black_id: table.black.user_id,
    };
    assert_eq!(end.rated, Some(seats), "a rated game's end rates it");
    // The mover whose time ran out gets their loss, not their move.
    let late = table
        .state
        .propose_action(Color::White, 3, "e4d5", 61_000)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        late.adoption,
        Adoption::End {
            flagged_mover: true,
            ..
        }
    ));
    let effects = table.state.adopt(late.adoption, 61_000);
    assert_eq!(kinds(&effects), ["ended"]);
    assert_eq!(table.state.status(), GameStatus::Finished);
    assert_eq!(
        table.state.clock().map(|c| c.view(99_000).white_ms),
        Some(0)
    );
}

/// A Chazz game from a position where, after White's pawn steps off the board and Black's
/// steps forward, White has only a hemmed-in king and must pass.
fn chazz_where_white_must_pass(time_control: Option<TimeControl>) -> Table {
    let (white, black) = (seat("alice"), seat("bob"));
    let mut founding = founding(&white, Variant::Chazz, time_control, false);
    founding.seats = [Some(white.clone()), Some(black.clone())];
    founding.status = GameStatus::Active;
    let mut state = GameState::new(
        founding,
        Some("p7/8/6k1/7p/P6K w - - 0 1"),
        settings(),
        test_wall_clock,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    state.resume_timers(0);
    let mut table = Table {
        state,
        white,
        black,
    };
    table.play(Color::White, "a1a0", 0);
    table.play(Color::Black, "a5a4", 1_000);
    table
}

#[test]
fn a_forced_pass_is_proposed_and_leaves_a_draw_offer_to_the_passer_standing() {
    let mut table = chazz_where_white_must_pass(clock(60_000, 0));
    assert_eq!(
        told(table.ask(Color::Black, PlayerRequest::OfferDraw, 1_500)),
        ["draw_offered"]
    );
    let pass = table.state.propose_forced(2_000);
    let pass = pass
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no forced pass"));
    let effects = table.state.adopt(pass.adoption, 2_000);
    let event: serde_json::Value = serde_json::from_str(&effects.broadcast[0]).unwrap_or_default();
    assert_eq!(
        (event["machine"].as_str(), event["forced"].as_bool()),
        (Some("pass"), Some(true))
    );
    assert_eq!(
        table.state.draw_offer(),
        Some(Color::Black),
        "a forced pass is no answer"
    );
    assert!(
        table.state.propose_forced(2_000).is_none(),
        "Black has a choice"
    );
}

#[test]
fn a_flag_against_a_side_that_cannot_win_is_a_draw() {
    let mut table = chazz_where_white_must_pass(clock(60_000, 0));
    let pass = table.state.propose_forced(1_000).and_then(Result::ok);
    let pass = pass.unwrap_or_else(|| panic!("no forced pass"));
    table.state.adopt(pass.adoption, 1_000);
    // Black's time runs out, but White has a bare king: no win on time.
    let flag = table
        .state
        .deadline_end(61_000)
        .unwrap_or_else(|| panic!("no flag"));
    let outcome = end_of(&flag).outcome;
    assert_eq!(outcome, Outcome::draw(EndReason::TimeoutVsInsufficient));
}

#[test]
fn a_paired_player_who_never_comes_aborts_the_game_at_the_join_limit() {
    let mut table = Table::new(Variant::Suicide, None, false);
    let (white, black) = (table.white.user_id, table.black.user_id);
    table.state.expect_players(500, Duration::from_secs(10));
    assert_eq!(table.state.next_deadline(), Some(10_500));
    // White comes and goes again: once come counts as come. Black never comes.
    table.state.presence(Some(white), true, 1_000);
    table.state.presence(Some(white), false, 2_000);
    assert!(table.state.deadline_end(10_499).is_none());
    let abort = table
        .state
        .deadline_end(10_500)
        .unwrap_or_else(|| panic!("no abort at the join limit"));
    assert_eq!(end_of(&abort).outcome, Outcome::draw(EndReason::Aborted));
    // Had Black come, even late, the join limit would not have ended it.
    table.state.presence(Some(black), true, 10_000);
    assert!(table.state.deadline_end(10_500).is_none());
    assert_eq!(
        table.state.next_deadline(),
        Some(30_000),
        "the first-move limit"
    );
}

#[test]
fn the_join_limit_is_for_pairings_only_and_both_players_here_meet_it() {
    // A game nobody asked the join limit of waits out the first-move limit.
    let table = Table::new(Variant::Suicide, None, false);
    assert!(table.state.deadline_end(29_999).is_none());
    // Players already on the page when it is asked meet it at once.
    let mut table = Table::new(Variant::Suicide, None, false);
    let (white, black) = (table.white.user_id, table.black.user_id);
    table.state.presence(Some(white), true, 100);
    table.state.presence(Some(black), true, 100);
    table.state.expect_players(200, Duration::from_secs(10));
    assert_eq!(table.state.next_deadline(), Some(30_000));
    assert!(table.state.deadline_end(10_200).is_none());
}

#[test]
fn a_first_move_that_never_comes_aborts_the_game_unrated() {
    let mut table = Table::new(Variant::Suicide, None, true);
    assert_eq!(table.state.next_deadline(), Some(30_000));
    assert!(table.state.deadline_end(29_999).is_none());
    table.play(Color::White, "e2e4", 10_000);
    // Each side has its own limit for its first move.
    assert!(table.state.deadline_end(30_000).is_none());
    let abort = table
        .state
        .deadline_end(40_000)
        .unwrap_or_else(|| panic!("no abort"));
    assert_eq!(end_of(&abort).outcome, Outcome::draw(EndReason::Aborted));
    assert_eq!(end_of(&abort).rated, None, "an aborted game is not rated");
    let effects = table.state.adopt(abort.adoption, 40_000);
    assert_eq!(table.state.status(), GameStatus::Aborted);
    assert_eq!(effects.in_progress_delta, -1);
    let mut released = effects.released_places.clone();
    released.sort();
    released.dedup();
    assert_eq!(released.len(), 2, "both players' places are free");
    // The actor lingers, then stops.
    assert!(!table.state.lingered(40_000));
    assert!(table.state.lingered(40_000 + 60_000));
}

#[test]
fn a_draw_is_offered_declined_dropped_by_a_move_and_agreed() {
    let mut table = Table::new(Variant::Suicide, None, false);
    assert_eq!(
        refused(table.ask(Color::Black, PlayerRequest::AcceptDraw, 0)),
        "no_draw_offer"
    );
    assert_eq!(
        told(table.ask(Color::White, PlayerRequest::OfferDraw, 0)),
        ["draw_offered"]
    );
    let again = table.ask(Color::White, PlayerRequest::OfferDraw, 0);
    assert_eq!(refused(again), "draw_already_offered");
    assert_eq!(
        told(table.ask(Color::Black, PlayerRequest::DeclineDraw, 0)),
        ["draw_declined"]
    );
    assert_eq!(table.state.draw_offer(), None);
    // Moving instead of answering declines the offer.
    assert_eq!(
        told(table.ask(Color::Black, PlayerRequest::OfferDraw, 0)),
        ["draw_offered"]
    );
    table.play(Color::White, "e2e4", 1_000);
    assert_eq!(table.state.draw_offer(), None);
    // Offered by one side, accepted by the other; or offered by both.
    told(table.ask(Color::White, PlayerRequest::OfferDraw, 2_000));
    let agreed = committed(table.ask(Color::Black, PlayerRequest::AcceptDraw, 2_000));
    assert_eq!(end_of(&agreed).outcome, Outcome::draw(EndReason::Agreement));
    let both = committed(table.ask(Color::Black, PlayerRequest::OfferDraw, 2_000));
    assert_eq!(end_of(&both).outcome, Outcome::draw(EndReason::Agreement));
    assert_eq!(
        table.state.status(),
        GameStatus::Active,
        "nothing changes before the commit"
    );
    let effects = table.state.adopt(agreed.adoption, 2_000);
    assert_eq!(kinds(&effects), ["ended"]);
    assert_eq!(effects.notices.len(), 1, "the lobby hears of the end");
    assert_eq!(
        refused(table.ask(Color::White, PlayerRequest::Resign, 3_000)),
        "game_over"
    );
}

#[test]
fn an_absent_opponent_may_be_claimed_against_after_the_delay() {
    let mut table = Table::new(Variant::Suicide, None, false);
    let (white, black) = (table.white.user_id, table.black.user_id);
    table.state.presence(Some(white), true, 0);
    assert_eq!(
        kinds(&table.state.presence(Some(black), true, 0)),
        ["player_back"]
    );
    let gone = table.state.presence(Some(black), false, 1_000);
    assert_eq!(kinds(&gone), ["player_gone"]);
    // Before both sides have moved, the game is aborted instead.
    let early = table.ask(Color::White, PlayerRequest::ClaimVictory, 61_000);
    assert_eq!(refused(early), "abort_instead");
    table.play(Color::White, "e2e4", 0);
    table.play(Color::Black, "d7d5", 0);
    // Untimed games wait the longest delay, a minute, from the last connection's close.
    let soon = table.ask(Color::White, PlayerRequest::ClaimVictory, 60_999);
    assert_eq!(refused(soon), "opponent_present");
    let win = committed(table.ask(Color::White, PlayerRequest::ClaimVictory, 61_000));
    assert_eq!(
        end_of(&win).outcome,
        Outcome::win(Color::White, EndReason::Abandoned)
    );
    let draw = committed(table.ask(Color::White, PlayerRequest::ClaimDraw, 61_000));
    assert_eq!(end_of(&draw).outcome, Outcome::draw(EndReason::Abandoned));
    // The absent player cannot claim against one who is here; and once back, no claim.
    let other = table.ask(Color::Black, PlayerRequest::ClaimVictory, 61_000);
    assert_eq!(refused(other), "opponent_present");
    assert_eq!(
        kinds(&table.state.presence(Some(black), true, 62_000)),
        ["player_back"]
    );
    let back = table.ask(Color::White, PlayerRequest::ClaimVictory, 200_000);
    assert_eq!(refused(back), "opponent_present");
}

#[test]
fn the_computer_is_never_away_and_thinks_only_on_its_turn_without_the_dice_seed() {
    let mut table = Table::new(Variant::Drehs, clock(60_000, 1_000), false);
    let (white, black) = (table.white.user_id, table.black.user_id);
    // Black is the computer: nobody is connected yet, and only White counts as gone.
    assert!(table.state.computer_turn(0, [0; 32]).is_none());
    table.state.set_resident(black);
    assert_eq!(table.state.resident(), Some(black));
    assert!(
        table.state.computer_turn(0, [7; 32]).is_none(),
        "White's turn"
    );
    let first = table.state.game.legal_actions()[0].clone();
    table.play(Color::White, &first, 0);
    // Black's turn, its clock not started before both first moves.
    let turn = table.state.computer_turn(500, [7; 32]);
    let turn = turn.unwrap_or_else(|| panic!("the computer's turn"));
    assert_eq!((turn.color, turn.ply), (Color::Black, 2));
    assert_eq!(turn.clock, Some((60_000, 1_000)));
    // The same position and legal actions as the game's, but other dice.
    assert_eq!(turn.game.position(), table.state.game.position());
    assert_eq!(turn.game.legal_actions(), table.state.game.legal_actions());
    let second = table.state.game.legal_actions()[0].clone();
    table.play(Color::Black, &second, 500);
    // Black never connected, yet cannot be claimed against; White, gone, can be.
    let claim = table.ask(Color::White, PlayerRequest::ClaimVictory, 3_600_000);
    assert_eq!(refused(claim), "opponent_present");
    // Nor is it shown as away.
    let view = table.state.view(Some(white), 3_600_000);
    assert_eq!(view.absent, vec![Color::White]);
    assert_eq!(view.claim_after_ms.black, None);
    table.state.presence(Some(white), true, 1_000);
    let gone = table.state.presence(Some(white), false, 2_000);
    assert_eq!(kinds(&gone), ["player_gone"]);
    assert!(
        table.state.computer_turn(2_000, [7; 32]).is_none(),
        "White's turn"
    );
}

#[test]
fn a_rematch_is_offered_declined_and_accepted_with_colours_swapped() {
    let mut table = Table::new(Variant::Suicide, clock(60_000, 0), true);
    let early = table.ask(Color::White, PlayerRequest::OfferRematch, 0);
    assert_eq!(refused(early), "game_not_over");
    let resign = committed(table.ask(Color::White, PlayerRequest::Resign, 0));
    assert_eq!(
        end_of(&resign).outcome,
        Outcome::win(Color::Black, EndReason::Resignation)
    );
    table.state.adopt(resign.adoption, 0);
    let none = table.ask(Color::Black, PlayerRequest::AcceptRematch, 1);
    assert_eq!(refused(none), "no_rematch_offer");
    assert_eq!(
        told(table.ask(Color::White, PlayerRequest::OfferRematch, 1)),
        ["rematch_offered"]
    );
    let twice = table.ask(Color::White, PlayerRequest::OfferRematch, 1);
    assert_eq!(refused(twice), "rematch_already_offered");
    let own = table.ask(Color::White, PlayerRequest::DeclineRematch, 1);
    assert_eq!(refused(own), "no_rematch_offer");
    assert_eq!(
        told(table.ask(Color::Black, PlayerRequest::DeclineRematch, 1)),
        ["rematch_declined"]
    );
    assert_eq!(table.state.rematch_offer(), None);
    told(table.ask(Color::Black, PlayerRequest::OfferRematch, 2));
    match table.ask(Color::White, PlayerRequest::AcceptRematch, 2) {
        Ok(Decision::Rematch {
            white,
            black,
            terms,
        }) => {
            assert_eq!(
                (white.user_id, black.user_id),
                (table.black.user_id, table.white.user_id)
            );
            assert!(terms.rated && terms.time_control == clock(60_000, 0));
        }
        other => panic!("expected a rematch, got {other:?}"),
    }
    let new_game = Uuid::new_v4();
    assert_eq!(kinds(&table.state.rematch_started(new_game)), ["rematch"]);
    let after = table.ask(Color::Black, PlayerRequest::OfferRematch, 3);
    assert_eq!(refused(after), "rematch_already_started");
}

#[test]
fn bad_requests_are_refused_and_change_nothing() {
    let mut table = Table::new(Variant::Suicide, None, false);
    let stranger = Uuid::new_v4();
    let version = table.state.log.version();
    let refusals = [
        table.state.propose_action(Color::Black, 1, "e7e5", 0).err(),
        table.state.propose_action(Color::White, 2, "e2e4", 0).err(),
        table.state.propose_action(Color::White, 1, "e2e5", 0).err(),
        table.state.propose_action(Color::White, 1, "zz", 0).err(),
        table.state.mover(stranger).err(),
        table
            .state
            .request(stranger, PlayerRequest::Resign, 0)
            .err(),
    ];
    let codes: Vec<_> = refusals
        .iter()
        .map(|e| e.as_ref().map(Refusal::code))
        .collect();
    let expected = [
        "not_your_turn",
        "wrong_ply",
        "illegal_action",
        "bad_notation",
        "not_a_player",
        "not_a_player",
    ];
    assert_eq!(codes, expected.map(Some));
    table.play(Color::White, "e2e4", 0);
    let retry = table.state.propose_action(Color::White, 1, "e4", 0).err();
    assert_eq!(retry.as_ref().map(Refusal::code), Some("duplicate_action"));
    table.play(Color::Black, "e7e5", 0);
    let late = table.ask(Color::White, PlayerRequest::Abort, 0);
    assert_eq!(refused(late), "too_late_to_abort");
    assert_eq!(
        (table.state.ply(), table.state.log.version()),
        (2, version + 2)
    );
    assert_eq!(table.state.status(), GameStatus::Active);
}

#[test]
fn an_open_challenge_is_withdrawn_by_its_creator_or_expires() {
    let creator = seat("alice");
    let state = GameState::open(
        founding(&creator, Variant::Suicide, None, false),
        settings(),
        test_wall_clock,
    );
    let mut state = state.unwrap_or_else(|e| panic!("{e}"));
    let own = state.propose_start(creator.clone(), Color::White).err();
    assert_eq!(own.as_ref().map(Refusal::code), Some("own_game"));
    let resign = state.request(creator.user_id, PlayerRequest::Resign, 0);
    assert_eq!(refused(resign), "not_a_player");
    let withdrawn = committed(state.request(creator.user_id, PlayerRequest::Abort, 0));
    assert_eq!(
        end_of(&withdrawn).outcome,
        Outcome::draw(EndReason::Aborted)
    );
    let day = 24 * 60 * 60 * 1000;
    assert!(state.deadline_end(day - 1).is_none());
    let expired = state
        .deadline_end(day)
        .unwrap_or_else(|| panic!("no expiry"));
    let effects = state.adopt(expired.adoption, day);
    assert_eq!(effects.challenge_closed, Some(creator.user_id));
    assert_eq!((effects.in_progress_delta, effects.notices.len()), (0, 0));
    let join = state.propose_start(seat("bob"), Color::White).err();
    assert_eq!(
        join.as_ref().map(Refusal::code),
        Some("game_already_started")
    );
}

#[test]
fn only_an_unwatched_game_without_a_running_timer_hibernates() {
    // An open challenge nobody watches: after the delay from its last command.
    let creator = seat("alice");
    let waiting = GameState::open(
        founding(&creator, Variant::Suicide, None, false),
        settings(),
        test_wall_clock,
    );
    let mut waiting = waiting.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(waiting.hibernation_due_at(), Some(300_000));
    waiting.command_received(1_000);
    assert_eq!(waiting.hibernation_due_at(), Some(301_000));
    // Not while someone is connected; after the delay from when the last one left.
    waiting.presence(None, true, 2_000);
    assert_eq!(waiting.hibernation_due_at(), None);
    waiting.presence(None, false, 5_000);
    assert_eq!(waiting.hibernation_due_at(), Some(305_000));

    // A game without a clock, past the first moves; not while a retry waits, nor once over.
    let mut untimed = Table::new(Variant::Suicide, None, false);
    assert_eq!(untimed.state.hibernation_due_at(), None, "first-move limit");
    untimed.play(Color::White, "e2e4", 0);
    untimed.play(Color::Black, "e7e5", 0);
    assert!(untimed.state.hibernation_due_at().is_some());
    untimed.state.retry_later(1_000);
    assert_eq!(untimed.state.hibernation_due_at(), None);
    assert_eq!(
        untimed.state.next_deadline(),
        Some(2_000),
        "the retry comes first"
    );
    assert!(untimed.state.waiting_to_retry(1_999));
    assert!(!untimed.state.waiting_to_retry(2_000));
    let resign = committed(untimed.ask(Color::White, PlayerRequest::Resign, 3_000));
    untimed.state.adopt(resign.adoption, 3_000);
    assert_eq!(untimed.state.hibernation_due_at(), None);

    // A game whose clock runs never does.
    let mut timed = Table::new(Variant::Suicide, clock(60_000, 0), false);
    timed.play(Color::White, "e2e4", 0);
    timed.play(Color::Black, "e7e5", 0);
    assert_eq!(timed.state.hibernation_due_at(), None);
}

/// A stored game between Alice and Bob with `plies` of a Suicide opening played.
fn record(time_control: Option<TimeControl>, plies: &[&str]) -> GameRecord {
    let (white, black) = (seat("alice"), seat("bob"));
    let actions = plies
        .iter()
        .zip(1..)
        .map(|(machine, ply)| crate::record::ActionRecord {
            ply,
            machine: (*machine).into(),
            human: (*machine).into(),
            white_ms: time_control.map(|_| 40_000),
            black_ms: time_control.map(|_| 30_000),
            rolls: None,
            created_at: test_wall_clock(),
        })
        .collect();
    GameRecord {
        game_id: Uuid::new_v4(),
        variant: Variant::Suicide,
        creator_id: white.user_id,
        white_id: Some(white.user_id),
        black_id: Some(black.user_id),
        white_name: Some(white.name),
        black_name: Some(black.name),
        creator_name: "alice".into(),
        color_choice: ColorChoice::White,
        clock: time_control,
        rated: false,
        status: GameStatus::Active,
        restarts: 2,
        outcome: None,
        start_position: None,
        dice_commitment: None,
        dice_seed: None,
        created_at: test_wall_clock(),
        started_at: None,
        ended_at: None,
        actions,
        adjustments: Vec::new(),
    }
}

#[test]
fn a_restored_game_resumes_its_clock_its_limits_and_a_later_log() {
    let stored = record(clock(60_000, 0), &["e2e4", "d7d5", "e4d5"]);
    let day = Duration::from_secs(24 * 60 * 60);
    let state = GameState::restore(&stored, settings(), test_wall_clock, 0, day, day);
    let state = state.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(state.ply(), 3);
    // Black resumes with the time stored with the last action, from now.
    let view = state.clock().map(|c| c.view(0));
    assert_eq!(
        view.map(|v| (v.white_ms, v.black_ms)),
        Some((40_000, 30_000))
    );
    assert_eq!(state.next_deadline(), Some(30_000), "Black's flag");
    // A client from an earlier life of the game gets a snapshot, not a tail of this log.
    let messages = state.catch_up(None, Some(5), 0);
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].starts_with("{\"t\":\"snapshot\""),
        "{}",
        messages[0]
    );
    // Nobody is back yet: both seats are absent from now, and a one-minute game's claim
    // delay (a twentieth of its length) is held to the shortest allowed.
    let view = state.view(None, 0);
    assert_eq!(view.absent, [Color::White, Color::Black]);
    assert_eq!(view.claim_after_ms.white, Some(10_000));

    // Without a clock, the idle limit counts the time since the last action, downtime and all.
    let untimed = record(None, &["e2e4", "e7e5"]);
    let state = GameState::restore(&untimed, settings(), test_wall_clock, 0, day, day);
    let state = state.unwrap_or_else(|e| panic!("{e}"));
    let idle_left = 20 * 24 * 60 * 60 * 1000;
    assert_eq!(state.next_deadline(), Some(idle_left.min(300_000)));
    let lost = state
        .deadline_end(idle_left)
        .unwrap_or_else(|| panic!("not idle"));
    assert_eq!(
        end_of(&lost).outcome,
        Outcome::win(Color::Black, EndReason::Abandoned)
    );
}

// A child module, for the helpers above, kept in a file of its own beside this one.
#[path = "tests_takeback.rs"]
mod takeback;
