//! Challenges: `match` and its refusals, accept, decline, withdraw, replacing, crossing,
//! the formula notice, `pending`, and the rematch's terms.

use super::Lobby;
use crate::lobby::state::rematch_request;
use crate::lobby::SettingName;
use crate::record::LastGame;
use crate::rules::{Color, Variant};
use crate::wire::lobby::{LobbyEvent, RemovedReason, ReplyData};
use uuid::Uuid;

fn removed(events: &[LobbyEvent]) -> Vec<(u32, RemovedReason)> {
    events
        .iter()
        .filter_map(|e| match e {
            LobbyEvent::ChallengeRemoved { id, reason } => Some((*id, *reason)),
            _ => None,
        })
        .collect()
}

#[test]
fn match_is_refused_to_oneself_the_absent_and_guests_rated() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    lobby.guest("Guest1");
    lobby.load("Away", true, None);
    assert_eq!(lobby.fails(ann, "match ann"), "self_challenge");
    assert_eq!(lobby.fails(ann, "match away"), "user_not_online");
    assert_eq!(lobby.fails(ann, "match nobody"), "unknown_user");
    assert_eq!(
        lobby.fails(ann, "match guest1 5 0 rated"),
        "guests_play_unrated"
    );
    // Between a player and a guest the default is unrated.
    let reply = lobby.ok(ann, "match guest1 5 0");
    let ReplyData::ChallengeSent { challenge } = reply.data else {
        panic!("{reply:?}");
    };
    assert!(!challenge.rated);
    assert_eq!(
        (challenge.from.as_str(), challenge.to.as_str()),
        ("Ann", "Guest1")
    );
}

#[test]
fn an_accepted_challenge_starts_the_game_and_goes() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    lobby.ok(ann, "match bob 3 2 white");
    assert_eq!(lobby.fails(ann, "accept"), "no_challenge");
    let game = lobby.pairs(bob, "accept");
    assert_eq!(
        (game.a, game.b, game.a_color),
        (ann, bob, Some(Color::White))
    );
    assert_eq!((game.terms.time, game.terms.inc), (3, 2));
    lobby.outbox();
    let reply = lobby.create(&game);
    assert!(
        reply
            .text
            .starts_with("You accept the match offer from Ann."),
        "{}",
        reply.text
    );
    let (white, black) = lobby.state.seats(&game, Color::White);
    assert_eq!((white.user_id, black.user_id), (ann, bob));
    let game_id = match reply.data {
        ReplyData::GameStarted { game } => game.game_id,
        other => panic!("{other:?}"),
    };
    assert_ne!(game_id, Uuid::nil());
    assert_eq!(
        removed(&lobby.events_for(ann)),
        vec![(1, RemovedReason::Accepted)]
    );
    assert_eq!(lobby.fails(bob, "accept"), "no_challenge");
}

#[test]
fn decline_and_withdraw_say_which_when_several_are_pending() {
    let mut lobby = Lobby::new();
    let (ann, bob, cy) = (lobby.guest("Ann"), lobby.guest("Bob"), lobby.guest("Cy"));
    lobby.ok(bob, "match ann");
    lobby.ok(cy, "match ann");
    assert_eq!(lobby.fails(ann, "accept"), "ambiguous");
    assert_eq!(lobby.fails(ann, "decline"), "ambiguous");
    let pending = lobby.ok(ann, "pending");
    let ReplyData::Pending { incoming, outgoing } = pending.data else {
        panic!("{pending:?}");
    };
    assert_eq!((incoming.len(), outgoing.len()), (2, 0));
    lobby.outbox();
    lobby.ok(ann, "decline bob");
    assert_eq!(
        removed(&lobby.events_for(bob)),
        vec![(1, RemovedReason::Declined)]
    );
    lobby.ok(cy, "withdraw");
    assert_eq!(
        removed(&lobby.events_for(ann)),
        vec![(2, RemovedReason::Withdrawn)]
    );
    assert_eq!(lobby.fails(cy, "withdraw"), "no_challenge");
    lobby.ok(bob, "match ann");
    lobby.ok(cy, "match ann");
    let reply = lobby.ok(ann, "decline all");
    assert_eq!(reply.data, ReplyData::ChallengesRemoved { ids: vec![3, 4] });
}

#[test]
fn a_new_challenge_replaces_the_last_and_crossing_ones_meet() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    lobby.ok(ann, "match bob 5 0");
    lobby.outbox();
    lobby.ok(ann, "match bob 3 0");
    assert_eq!(
        removed(&lobby.events_for(bob)),
        vec![(1, RemovedReason::Replaced)]
    );
    // Bob's equivalent challenge meets Ann's: the game starts with Ann's terms.
    let game = lobby.pairs(bob, "match ann 3 0");
    assert_eq!((game.a, game.b, game.accepted), (ann, bob, Some(2)));
    assert!(game.intro.contains("intercepts"), "{}", game.intro);
}

#[test]
fn a_formula_refusal_tells_its_owner_and_the_challenger() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let bob = lobby.player("Bob", 1500.0);
    let change = lobby
        .state
        .prepare_setting(bob, SettingName::Formula(0), "!rated")
        .unwrap_or_else(|e| panic!("{e}"));
    lobby
        .state
        .apply_setting(bob, change)
        .unwrap_or_else(|e| panic!("{e}"));
    lobby.outbox();
    assert_eq!(lobby.fails(ann, "match bob 5 0 rated"), "formula_rejected");
    let notices: Vec<LobbyEvent> = lobby
        .events_for(bob)
        .into_iter()
        .filter(|e| matches!(e, LobbyEvent::Notice { .. }))
        .collect();
    assert_eq!(
        notices,
        vec![LobbyEvent::Notice {
            text: "Ignoring (formula): Ann (1500) rated suicide 5 0".into(),
            seeks: Vec::new(),
        }]
    );
    lobby.ok(ann, "match bob 5 0 unrated");
}

#[test]
fn a_rematch_swaps_colours_and_refuses_fractional_minutes() {
    let (me, them) = (Uuid::new_v4(), Uuid::new_v4());
    let mut last = LastGame {
        game_id: Uuid::new_v4(),
        variant: Variant::Chazz,
        clock_ms: Some((180_000, 2000)),
        rated: true,
        white_id: me,
        black_id: them,
    };
    let request = rematch_request(me, &last, "Them".into()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(request.user, "Them");
    assert_eq!((request.time, request.inc), (Some(3), Some(2)));
    assert_eq!(request.color, Some(Color::Black));
    assert_eq!(
        (request.rated, request.variant),
        (Some(true), Some(Variant::Chazz))
    );
    last.clock_ms = None;
    let untimed = rematch_request(them, &last, "Me".into()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (untimed.time, untimed.inc, untimed.color),
        (Some(0), Some(0), Some(Color::White))
    );
    last.clock_ms = Some((30_000, 0));
    let refused = rematch_request(me, &last, "Them".into())
        .map(|_| ())
        .map_err(|e| e.code());
    assert_eq!(refused, Err("invalid_value"));
}
