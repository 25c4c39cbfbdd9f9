//! Presence, game starts and ratings: a user's offers go the moment their last connection
//! closes, and the seeks are named to them when they come back; nobody without a connection
//! posts an offer; a game started anywhere ends both players' seeking; colours alternate by
//! history; new ratings resend the snapshot.

use super::{established, Lobby};
use crate::lobby::state::{alternate_colors, MAX_MISSED_NOTICES};
use crate::rules::{Color, Variant};
use crate::wire::lobby::{GameStartedView, LobbyEvent, RemovedReason};
use crate::Seat;
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

#[test]
fn offers_go_the_moment_the_last_connection_closes() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    lobby.seek(ann, "5 0");
    lobby.ok(ann, "match bob");
    // A second connection: closing one is not leaving.
    lobby.state.connect(ann);
    lobby.state.disconnect(ann, lobby.now);
    assert_eq!(lobby.state.all_seeks().len(), 1);
    assert_eq!(lobby.state.next_presence_deadline(), None);
    lobby.outbox();
    lobby.state.disconnect(ann, lobby.now);
    assert!(lobby.state.all_seeks().is_empty(), "no grace for seeks");
    let to_bob = lobby.events_for(bob);
    assert!(to_bob.contains(&LobbyEvent::SeekRemoved { id: 1 }));
    assert!(to_bob.contains(&LobbyEvent::ChallengeRemoved {
        id: 1,
        reason: RemovedReason::Gone
    }));
    // Bob may not answer what is gone.
    assert_eq!(lobby.fails(bob, "play 1"), "no_such_seek");
    assert_eq!(lobby.fails(bob, "accept"), "no_challenge");
    // She is forgotten (her ratings and settings) only after a while.
    assert_eq!(
        lobby.state.next_presence_deadline(),
        Some(lobby.now + Duration::from_secs(5))
    );
    lobby.advance(Duration::from_secs(4));
    assert!(lobby.state.expire_presence(lobby.now).is_empty());
    assert!(lobby.state.knows(ann));
    lobby.advance(Duration::from_secs(1));
    assert_eq!(lobby.state.expire_presence(lobby.now), vec![ann]);
    assert!(!lobby.state.knows(ann));
}

#[test]
fn a_challenge_to_someone_who_leaves_goes_too() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    lobby.ok(ann, "match bob 3 0");
    lobby.outbox();
    lobby.state.disconnect(bob, lobby.now);
    let removed = LobbyEvent::ChallengeRemoved {
        id: 1,
        reason: RemovedReason::Gone,
    };
    assert!(lobby.events_for(ann).contains(&removed));
    assert_eq!(lobby.fails(ann, "withdraw"), "no_challenge");
}

#[test]
fn the_owner_is_told_on_return_which_seeks_went_once() {
    let mut lobby = Lobby::new();
    let ann = lobby.guest("Ann");
    lobby.seek(ann, "5 0");
    lobby.seek(ann, "3 2 chazz");
    lobby.state.disconnect(ann, lobby.now);
    lobby.advance(Duration::from_secs(60));
    lobby.state.connect(ann);
    let Some(LobbyEvent::Notice { text, seeks }) = lobby.state.missed_notice(ann, lobby.now) else {
        panic!("no notice");
    };
    let terms: Vec<(u32, u32, Variant)> =
        seeks.iter().map(|s| (s.time, s.inc, s.variant)).collect();
    assert_eq!(
        terms,
        vec![(5, 0, Variant::Suicide), (3, 2, Variant::Chazz)]
    );
    assert!(text.contains("5 0 unrated suicide"), "{text}");
    assert!(text.contains("3 2 unrated chazz"), "{text}");
    // Told once; and nothing to tell someone who left with no seek up.
    assert_eq!(lobby.state.missed_notice(ann, lobby.now), None);
    lobby.state.disconnect(ann, lobby.now);
    lobby.state.connect(ann);
    assert_eq!(lobby.state.missed_notice(ann, lobby.now), None);
}

#[test]
fn a_notice_nobody_came_back_for_lapses() {
    let mut lobby = Lobby::new();
    let ann = lobby.guest("Ann");
    lobby.seek(ann, "5 0");
    lobby.state.disconnect(ann, lobby.now);
    lobby.advance(Duration::from_secs(3600));
    lobby.state.connect(ann);
    assert_eq!(lobby.state.missed_notice(ann, lobby.now), None);
}

#[test]
fn the_notices_kept_are_bounded() {
    let mut lobby = Lobby::new();
    let first = lobby.guest("First");
    lobby.seek(first, "5 0");
    lobby.state.disconnect(first, lobby.now);
    for n in 0..MAX_MISSED_NOTICES {
        lobby.advance(Duration::from_millis(1));
        let user = lobby.guest(&format!("U{n}"));
        lobby.seek(user, "5 0");
        lobby.state.disconnect(user, lobby.now);
        // Their users leave the cache as they would (forgotten, the notice kept).
        lobby.state.expire_presence(lobby.now);
    }
    lobby.outbox();
    // The oldest list made room for the newest: the first user hears of nothing, the last
    // user does.
    assert_eq!(lobby.state.missed_notice(first, lobby.now), None);
    let last = lobby
        .state
        .user_named(&format!("U{}", MAX_MISSED_NOTICES - 1));
    let last = last.unwrap_or_else(|| panic!("the last user is still loaded"));
    assert!(lobby.state.missed_notice(last, lobby.now).is_some());
}

#[test]
fn a_user_with_no_connection_posts_no_offer_but_may_answer() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    // Cy is loaded (an HTTP request) but has no lobby connection.
    let cy = lobby.load("Cy", false, None);
    assert_eq!(lobby.fails(cy, "seek 5 0"), "not_in_lobby");
    assert_eq!(lobby.fails(cy, "match ann"), "not_in_lobby");
    assert!(lobby.state.all_seeks().is_empty());
    assert!(lobby.outbox().is_empty(), "nothing was announced");
    // Answering a manual seek sends a challenge: refused too.
    let manual = lobby.seek(ann, "3 0 manual");
    assert_eq!(lobby.fails(cy, &format!("play {manual}")), "not_in_lobby");
    // Answering an auto seek starts the game at once: the answer names it.
    let auto = lobby.seek(bob, "5 0");
    let game = lobby.pairs(cy, &format!("play {auto}"));
    assert_eq!((game.a, game.b), (cy, bob));
    // Once connected, Cy may seek.
    lobby.state.connect(cy);
    lobby.seek(cy, "7 0");
}

#[test]
fn a_game_started_anywhere_ends_both_players_seeking() {
    let mut lobby = Lobby::new();
    let (ann, bob, cy) = (lobby.guest("Ann"), lobby.guest("Bob"), lobby.guest("Cy"));
    lobby.seek(ann, "5 0");
    lobby.seek(bob, "3 0");
    lobby.seek(cy, "1 0");
    lobby.ok(cy, "match ann");
    lobby.outbox();
    let seat = |user_id, name: &str| Seat {
        user_id,
        name: name.into(),
    };
    let view = GameStartedView {
        game_id: Uuid::new_v4(),
        white: "Ann".into(),
        black: "Bob".into(),
        variant: Variant::Suicide,
        rated: false,
        time: 2,
        inc: 0,
    };
    lobby
        .state
        .game_started(&seat(ann, "Ann"), &seat(bob, "Bob"), view, lobby.now);
    let left: Vec<String> = lobby
        .state
        .all_seeks()
        .into_iter()
        .map(|s| s.user)
        .collect();
    assert_eq!(left, vec!["Cy".to_string()]);
    let out = lobby.outbox();
    let started: Vec<&Vec<Uuid>> = out
        .iter()
        .filter(|d| matches!(d.event, LobbyEvent::GameStarted { .. }))
        .map(|d| &d.to)
        .collect();
    assert_eq!(started, vec![&vec![ann, bob]]);
    let cy_removed = LobbyEvent::ChallengeRemoved {
        id: 1,
        reason: RemovedReason::GameStarted,
    };
    assert!(out
        .iter()
        .any(|d| d.to.contains(&cy) && d.event == cy_removed));
}

#[test]
fn colours_alternate_by_history_when_nobody_asks() {
    use Color::{Black, White};
    assert_eq!(alternate_colors(&[], &[], Black), Black);
    assert_eq!(alternate_colors(&[White], &[], Black), Black);
    assert_eq!(alternate_colors(&[], &[White], Black), White);
    // The newest game where they differ decides.
    assert_eq!(
        alternate_colors(&[White, White], &[White, Black], Black),
        Black
    );
    assert_eq!(
        alternate_colors(&[Black, White], &[Black, Black], White),
        Black
    );
}

#[test]
fn new_ratings_change_what_a_player_sees() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let bob = lobby.player("Bob", 1500.0);
    let seek = lobby.seek(ann, "5 0 rated 1600-2000");
    assert!(lobby.seek_ids(bob, false).is_empty());
    lobby.outbox();
    let ratings = HashMap::from([(Variant::Suicide, established(1650.0))]);
    lobby.state.set_ratings(bob, ratings);
    assert_eq!(lobby.seek_ids(bob, false), vec![seek]);
    let events = lobby.events_for(bob);
    let LobbyEvent::Lobby { seeks, .. } = &events[0] else {
        panic!("{events:?}");
    };
    assert_eq!(seeks.iter().map(|s| s.id).collect::<Vec<_>>(), vec![seek]);
}
