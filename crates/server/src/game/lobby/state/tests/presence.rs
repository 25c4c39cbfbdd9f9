//! Presence, game starts and ratings: a user's offers outlive their last connection by the
//! grace and then go; a game started anywhere ends both players' seeking; colours alternate
//! by history; new ratings resend the snapshot.

use super::{established, Lobby};
use crate::game::lobby::state::alternate_colors;
use crate::game::Seat;
use crate::rules::{Color, Variant};
use crate::wire::lobby::{GameStartedView, LobbyEvent, RemovedReason};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

#[test]
fn offers_outlive_the_last_connection_by_the_grace_only() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    lobby.seek(ann, "5 0");
    lobby.ok(ann, "match bob");
    // A second connection: closing one is not leaving.
    lobby.state.connect(ann);
    lobby.state.disconnect(ann, lobby.now);
    assert_eq!(lobby.state.next_presence_deadline(), None);
    lobby.state.disconnect(ann, lobby.now);
    let deadline = lobby.state.next_presence_deadline();
    assert_eq!(deadline, Some(lobby.now + Duration::from_secs(5)));
    lobby.advance(Duration::from_secs(4));
    assert!(lobby.state.expire_presence(lobby.now).is_empty());
    assert_eq!(lobby.state.all_seeks().len(), 1);
    lobby.outbox();
    lobby.advance(Duration::from_secs(1));
    assert_eq!(lobby.state.expire_presence(lobby.now), vec![ann]);
    assert!(lobby.state.all_seeks().is_empty());
    assert!(!lobby.state.knows(ann));
    let to_bob = lobby.events_for(bob);
    assert!(to_bob.contains(&LobbyEvent::SeekRemoved { id: 1 }));
    assert!(to_bob.contains(&LobbyEvent::ChallengeRemoved {
        id: 1,
        reason: RemovedReason::Gone
    }));
}

#[test]
fn a_reconnection_within_the_grace_keeps_the_offers() {
    let mut lobby = Lobby::new();
    let ann = lobby.guest("Ann");
    lobby.seek(ann, "5 0");
    lobby.state.disconnect(ann, lobby.now);
    lobby.advance(Duration::from_secs(3));
    lobby.state.connect(ann);
    lobby.advance(Duration::from_secs(10));
    assert!(lobby.state.expire_presence(lobby.now).is_empty());
    assert_eq!(lobby.state.all_seeks().len(), 1);
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
