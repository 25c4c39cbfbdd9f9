//! Seeks: defaults and limits, pairing (oldest auto seek, terms, colours, ranges,
//! formulas), manual seeks, `play`, `unseek`, `sought` and the seek numbers.

use super::Lobby;
use crate::lobby::SettingName;
use crate::rules::Color;
use crate::wire::lobby::{LobbyEvent, ReplyData};
use std::time::Duration;

#[test]
fn seeks_take_the_defaults_and_keep_to_the_limits() {
    let mut lobby = Lobby::new();
    let guest = lobby.guest("Guest1");
    let reply = lobby.ok(guest, "seek");
    let ReplyData::SeekPosted { seek, challenges } = reply.data else {
        panic!("{reply:?}");
    };
    // The user's settings (5 0 suicide), unrated for a guest, open colour, auto, 0-9999.
    assert_eq!((seek.time, seek.inc, seek.rated), (5, 0, false));
    assert_eq!(
        (seek.color, seek.manual, seek.min, seek.max),
        (None, false, 0, 9999)
    );
    assert!(challenges.is_empty());
    assert_eq!(lobby.fails(guest, "seek rated"), "guests_play_unrated");
    assert_eq!(lobby.fails(guest, "seek"), "duplicate_seek");
    lobby.seek(guest, "3 0");
    lobby.seek(guest, "4 0");
    assert_eq!(lobby.fails(guest, "seek 6 0"), "too_many_seeks");
    assert_eq!(lobby.fails(guest, "seek 181 0"), "invalid_value");
    assert_eq!(lobby.fails(guest, "seek 7 0 1800-1300"), "invalid_value");
}

#[test]
fn a_seek_pairs_at_once_with_the_oldest_auto_seek_on_the_same_terms() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let bob = lobby.player("Bob", 1800.0);
    let cy = lobby.player("Cy", 1650.0);
    // Ann and Bob are outside each other's ranges; Cy fits both.
    let oldest = lobby.seek(ann, "5 0 rated 1400-1700");
    let younger = lobby.seek(bob, "5 0 rated 1600-1900");
    lobby.seek(bob, "5 0 rated manual");
    lobby.outbox();
    let game = lobby.pairs(cy, "seek 5 0 rated");
    assert_eq!((game.a, game.b, game.a_color), (cy, ann, None));
    assert!(game.intro.contains("Ann"), "{}", game.intro);
    let reply = lobby.create(&game);
    assert!(reply.text.contains("Creating:"), "{}", reply.text);
    // Ann's seek goes; Bob's stay.
    let left = lobby.seek_ids(bob, true);
    assert!(
        !left.contains(&oldest) && left.contains(&younger),
        "{left:?}"
    );
    assert_eq!(left.len(), 2);
    let removed = lobby.events_for(bob);
    assert!(removed.contains(&LobbyEvent::SeekRemoved { id: oldest }));
}

#[test]
fn seeks_pair_only_with_compatible_colours_and_terms() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    lobby.seek(ann, "5 0 white");
    lobby.seek(bob, "5 0 white");
    lobby.seek(bob, "5 1 black");
    let game = lobby.pairs(bob, "seek 5 0 black");
    assert_eq!(
        (game.a, game.b, game.a_color),
        (bob, ann, Some(Color::Black))
    );
    // An open colour does not pair with a chosen one.
    lobby.seek(ann, "5 1");
    let game = lobby.pairs(ann, "seek 5 1 white");
    assert_eq!((game.a, game.a_color), (ann, Some(Color::White)));
}

#[test]
fn rating_ranges_apply_both_ways_and_to_play() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let low = lobby.player("Low", 1400.0);
    let high = lobby.player("High", 1700.0);
    let seek = lobby.seek(ann, "5 0 rated 1600-1800");
    lobby.seek(low, "5 0 rated");
    assert!(!lobby.seek_ids(low, false).contains(&seek));
    assert_eq!(
        lobby.fails(low, &format!("play {seek}")),
        "rating_out_of_range"
    );
    // High fits Ann's range, but Ann does not fit High's.
    lobby.seek(high, "5 0 rated 1600-2000");
    let game = lobby.pairs(high, &format!("play {seek}"));
    assert_eq!((game.a, game.b), (high, ann));
}

#[test]
fn formulas_screen_both_ways_but_play_skips_the_responders_own() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let bob = lobby.player("Bob", 1500.0);
    let change = lobby
        .state
        .prepare_setting(ann, SettingName::Formula(0), "rating > 1600")
        .unwrap_or_else(|e| panic!("{e}"));
    lobby
        .state
        .apply_setting(ann, change)
        .unwrap_or_else(|e| panic!("{e}"));
    let plain = lobby.seek(ann, "5 0 rated");
    let screened = lobby.seek(ann, "3 0 rated formula");
    // Bob's own seek on the same terms does not pair: Ann's formula refuses him.
    lobby.seek(bob, "5 0 rated");
    assert_eq!(lobby.seek_ids(bob, false), vec![plain]);
    assert_eq!(
        lobby.fails(bob, &format!("play {screened}")),
        "formula_rejected"
    );
    // Bob's formula refuses Ann, but answering a seek accepts its terms.
    let change = lobby
        .state
        .prepare_setting(bob, SettingName::Formula(0), "rating > 2000")
        .unwrap_or_else(|e| panic!("{e}"));
    lobby
        .state
        .apply_setting(bob, change)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(lobby.seek_ids(bob, false).is_empty());
    let game = lobby.pairs(bob, &format!("play {plain}"));
    assert_eq!((game.a, game.b), (bob, ann));
}

#[test]
fn manual_seeks_turn_answers_into_challenges() {
    let mut lobby = Lobby::new();
    let (ann, bob, cy) = (lobby.guest("Ann"), lobby.guest("Bob"), lobby.guest("Cy"));
    let manual = lobby.seek(ann, "5 0 manual");
    let reply = lobby.ok(bob, "seek 5 0");
    let ReplyData::SeekPosted { challenges, .. } = reply.data else {
        panic!("{reply:?}");
    };
    assert_eq!(challenges.len(), 1);
    assert_eq!(
        (challenges[0].to.as_str(), challenges[0].seek),
        ("Ann", Some(manual))
    );
    let reply = lobby.ok(cy, &format!("play {manual}"));
    assert!(
        matches!(reply.data, ReplyData::ChallengeSent { .. }),
        "{reply:?}"
    );
    let to_ann = lobby.events_for(ann);
    let challenges = to_ann
        .iter()
        .filter(|e| matches!(e, LobbyEvent::Challenge { .. }))
        .count();
    assert_eq!(challenges, 2);
}

#[test]
fn play_refuses_own_missing_and_rated_seeks_for_guests_and_finds_by_name() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let guest = lobby.guest("Guest1");
    let rated = lobby.seek(ann, "5 0 rated");
    assert_eq!(lobby.fails(ann, &format!("play {rated}")), "own_seek");
    assert_eq!(lobby.fails(guest, "play 99"), "no_such_seek");
    assert_eq!(
        lobby.fails(guest, &format!("play {rated}")),
        "guests_play_unrated"
    );
    assert_eq!(lobby.fails(guest, "play Nobody"), "unknown_user");
    lobby.seek(ann, "2 0 unrated");
    // By name: the oldest of the seeker's seeks.
    assert_eq!(lobby.fails(guest, "play ann"), "guests_play_unrated");
    lobby.ok(ann, &format!("unseek {rated}"));
    let game = lobby.pairs(guest, "play ann");
    assert_eq!(game.terms.time, 2);
}

#[test]
fn unseek_takes_one_or_all_and_numbers_rest_before_reuse() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    let one = lobby.seek(ann, "1 0");
    let two = lobby.seek(ann, "2 0");
    assert_eq!((one, two), (1, 2));
    assert_eq!(lobby.fails(bob, &format!("unseek {one}")), "no_such_seek");
    lobby.outbox();
    let reply = lobby.ok(ann, "unseek");
    assert_eq!(reply.data, ReplyData::Unseeked { ids: vec![1, 2] });
    assert!(lobby
        .events_for(bob)
        .contains(&LobbyEvent::SeekRemoved { id: 1 }));
    assert_eq!(lobby.ok(ann, "unseek").text, "You have no active seeks.");
    // Numbers rest 90 s.
    assert_eq!(lobby.seek(bob, "3 0"), 3);
    lobby.advance(Duration::from_secs(91));
    assert_eq!(lobby.seek(bob, "4 0"), 1);
}

#[test]
fn a_new_seek_is_announced_to_those_who_would_see_it() {
    let mut lobby = Lobby::new();
    let ann = lobby.player("Ann", 1500.0);
    let bob = lobby.player("Bob", 1500.0);
    let guest = lobby.guest("Guest1");
    lobby.outbox();
    let reply = lobby.ok(ann, "seek 5 0 rated");
    assert!(
        reply.text.contains("(1 player(s) saw the seek.)"),
        "{}",
        reply.text
    );
    let added = lobby
        .outbox()
        .into_iter()
        .find(|d| matches!(d.event, LobbyEvent::SeekAdded { .. }))
        .map(|d| d.to);
    let mut to = added.unwrap_or_default();
    to.sort();
    let mut expected = vec![ann, bob];
    expected.sort();
    // Not the guest: a rated seek is not theirs to answer.
    assert_eq!(to, expected);
    assert!(lobby.seek_ids(guest, false).is_empty());
    assert_eq!(lobby.seek_ids(guest, true).len(), 1);
}

#[test]
fn a_guest_and_a_registered_player_pair_on_the_same_unrated_seek() {
    // The lobby page's quick pairing: an automatic seek with an open colour and the full
    // range, unrated from a guest and, when they choose casual, from a registered player.
    let mut lobby = Lobby::new();
    let carol = lobby.player("Carol", 1900.0);
    let guest = lobby.guest("Guest1");
    let quick = "3 2 chazz unrated 0-9999";
    lobby.seek(carol, quick);
    let game = lobby.pairs(guest, &format!("seek {quick}"));
    assert_eq!((game.a, game.b, game.a_color), (guest, carol, None));
    assert!(!game.terms.rated);
    lobby.create(&game);
    // A rated seek of the registered player's is not the guest's to pair with.
    lobby.seek(carol, "3 2 chazz rated 0-9999");
    lobby.seek(guest, quick);
}
