//! Settings and the noplay list: validation before the store hears of a change, what
//! applying it changes, and noplay's effect on challenges, seeks, plays and matches.

use super::Lobby;
use crate::lobby::state::LobbyState;
use crate::lobby::SettingName;
use crate::rules::Variant;
use crate::wire::lobby::{LobbyEvent, RemovedReason, ReplyData};

#[test]
fn settings_are_validated_then_applied() {
    let mut lobby = Lobby::new();
    let ann = lobby.guest("Ann");
    let code = |lobby: &Lobby, name, value: &str| {
        lobby
            .state
            .prepare_setting(ann, name, value)
            .map(|_| ())
            .map_err(|e| e.code())
    };
    assert_eq!(code(&lobby, SettingName::Time, "181"), Err("invalid_value"));
    assert_eq!(code(&lobby, SettingName::Inc, "x"), Err("invalid_value"));
    assert_eq!(
        code(&lobby, SettingName::Variant, "go"),
        Err("invalid_value")
    );
    assert_eq!(
        code(&lobby, SettingName::Formula(0), "rating >"),
        Err("bad_formula")
    );
    assert_eq!(
        code(&lobby, SettingName::Formula(2), "f3"),
        Err("bad_formula")
    );
    let change = lobby
        .state
        .prepare_setting(ann, SettingName::Variant, "Chazz")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(change.settings.variant, Variant::Chazz);
    // Not applied until the actor has saved it.
    assert!(lobby.ok(ann, "set").text.contains("variant=suicide"));
    let reply = lobby
        .state
        .apply_setting(ann, change)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.text, "Variant set to chazz.");
    let ReplyData::Settings { variant, .. } = lobby.ok(ann, "set").data else {
        panic!("not settings");
    };
    assert_eq!(variant, Variant::Chazz);
    // A seek with no variant takes the setting.
    let id = lobby.seek(ann, "");
    assert_eq!(
        lobby.state.all_seeks().first().map(|s| (s.id, s.variant)),
        Some((id, Variant::Chazz))
    );
}

#[test]
fn a_formula_change_resends_the_snapshot() {
    let mut lobby = Lobby::new();
    let ann = lobby.guest("Ann");
    let change = lobby
        .state
        .prepare_setting(ann, SettingName::Formula(0), "time < 10")
        .unwrap_or_else(|e| panic!("{e}"));
    lobby.outbox();
    lobby
        .state
        .apply_setting(ann, change)
        .unwrap_or_else(|e| panic!("{e}"));
    let events = lobby.events_for(ann);
    assert!(
        matches!(events.as_slice(), [LobbyEvent::Lobby { .. }]),
        "{events:?}"
    );
}

#[test]
fn noplay_removes_challenges_and_blocks_seeks_plays_and_matches() {
    let mut lobby = Lobby::new();
    let (ann, bob) = (lobby.guest("Ann"), lobby.guest("Bob"));
    assert_eq!(
        LobbyState::check_noplay(ann, ann).map_err(|e| e.code()),
        Err("invalid_value")
    );
    lobby.ok(bob, "match ann");
    let seek = lobby.seek(ann, "5 0");
    lobby.outbox();
    let text = lobby.state.set_noplay(ann, bob, true);
    assert_eq!(text, "Bob added to your noplay list.");
    let to_bob = lobby.events_for(bob);
    assert!(to_bob.contains(&LobbyEvent::ChallengeRemoved {
        id: 1,
        reason: RemovedReason::Noplay
    }));
    // Both get a snapshot without the other's seeks.
    assert!(to_bob.iter().any(|e| matches!(e, LobbyEvent::Lobby { .. })));
    assert!(lobby.seek_ids(bob, false).is_empty());
    let code = lobby.fails(bob, &format!("play {seek}"));
    assert_eq!(code, "noplay");
    assert_eq!(lobby.fails(bob, "match ann"), "noplay");
    assert_eq!(lobby.fails(ann, "match bob"), "noplay");
    lobby.seek(bob, "5 0");
    assert_eq!(lobby.state.all_seeks().len(), 2);
    lobby.state.set_noplay(ann, bob, false);
    let game = lobby.pairs(bob, &format!("play {seek}"));
    assert_eq!(game.b, ann);
}
