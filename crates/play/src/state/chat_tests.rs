//! The chat's rules on a plain game state: rooms, limits, the rate, what a snapshot shows,
//! and the spectator count's coalescing.

use super::*;
use crate::record::{ColorChoice, GameStatus};
use crate::rules::Variant;
use crate::state::{test_wall_clock, Founding, SPECTATORS_EVERY_MS};
use crate::{GameSettings, GameTerms, Seat};

fn seat(name: &str) -> Seat {
    Seat {
        user_id: Uuid::new_v4(),
        name: name.into(),
    }
}

/// An untimed, unrated Suicide challenge `creator` opened at time 0.
fn open_challenge(creator: &Seat, color_choice: ColorChoice) -> GameState {
    let founding = Founding {
        id: Uuid::new_v4(),
        creator: creator.clone(),
        color_choice,
        seats: [None, None],
        status: GameStatus::Waiting,
        terms: GameTerms {
            variant: Variant::Suicide,
            time_control: None,
            rated: false,
        },
        dice: None,
    };
    GameState::open(founding, Arc::new(GameSettings::default()), test_wall_clock)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A game Alice (White) opened and Bob (Black) joined at time 0.
struct Table {
    state: GameState,
    alice: Uuid,
    bob: Uuid,
}

impl Table {
    fn new() -> Table {
        let (alice, bob) = (seat("alice"), seat("bob"));
        let mut state = open_challenge(&alice, ColorChoice::White);
        let start = state
            .propose_start(bob.clone(), state.creator_color(true))
            .unwrap_or_else(|e| panic!("{e}"));
        state.adopt(start.adoption, 0);
        Table {
            state,
            alice: alice.user_id,
            bob: bob.user_id,
        }
    }

    /// `user` writes `text` at `now`; the line is stored at once.
    fn say(&mut self, user: Uuid, text: &str, now: u64) -> Result<Outgoing, ChatRefusal> {
        let draft = self.state.propose_chat(Some(user), text, now)?;
        Ok(self.state.adopt_chat(draft, "someone".into(), now))
    }

    fn texts(&self, viewer: Option<Uuid>) -> Vec<String> {
        let lines = self.state.chat_lines(viewer);
        lines.map(|line| line.text.clone()).collect()
    }
}

#[test]
fn players_write_in_their_room_and_only_players_read_it() {
    let mut table = Table::new();
    let (alice, bob, eve) = (table.alice, table.bob, Uuid::new_v4());
    let sent = table
        .say(alice, "  good luck  ", 0)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(sent.reaches(Some(bob)) && sent.reaches(Some(alice)));
    assert!(!sent.reaches(Some(eve)) && !sent.reaches(None));
    let message: serde_json::Value =
        serde_json::from_str(&sent.text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(message["t"], "chat");
    assert_eq!(message["room"], "players");
    assert_eq!(message["text"], "good luck", "trimmed");
    assert_eq!(table.texts(Some(bob)), ["good luck"]);
    assert!(table.texts(Some(eve)).is_empty());
    assert!(table.texts(None).is_empty());
}

#[test]
fn a_spectators_line_never_reaches_a_player() {
    let mut table = Table::new();
    let (alice, bob, eve) = (table.alice, table.bob, Uuid::new_v4());
    let sent = table
        .say(eve, "hi all", 0)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!sent.reaches(Some(alice)) && !sent.reaches(Some(bob)));
    assert!(sent.reaches(Some(eve)) && sent.reaches(Some(Uuid::new_v4())));
    assert!(sent.reaches(None), "anonymous spectators read along");
    assert_eq!(table.texts(None), ["hi all"]);
    assert_eq!(table.texts(Some(Uuid::new_v4())), ["hi all"]);
    assert!(table.texts(Some(alice)).is_empty());
}

#[test]
fn an_anonymous_spectator_must_sign_in_to_write() {
    let table = Table::new();
    assert_eq!(
        table.state.propose_chat(None, "hello", 0),
        Err(ChatRefusal::SignIn)
    );
    assert_eq!(ChatRefusal::SignIn.code(), "sign_in_to_chat");
}

#[test]
fn lines_are_trimmed_and_held_to_their_length_in_characters() {
    assert_eq!(clean_text(""), Err(ChatRefusal::Empty));
    assert_eq!(clean_text(" \u{3000} "), Err(ChatRefusal::Empty));
    assert_eq!(clean_text(&"a".repeat(140)), Ok("a".repeat(140)));
    assert_eq!(clean_text(&"a".repeat(141)), Err(ChatRefusal::TooLong));
    // 140 characters of three bytes each: over 140 bytes, within 140 characters.
    let wide = "é".repeat(140);
    assert_eq!(clean_text(&format!("  {wide}\t")), Ok(wide.clone()));
    assert_eq!(clean_text(&format!("{wide}é")), Err(ChatRefusal::TooLong));
    assert_eq!(clean_text("♞ gg 😀"), Ok("♞ gg 😀".into()));
}

#[test]
fn control_characters_are_refused() {
    for text in [
        "two\nlines",
        "a\tb",
        "bell\u{7}",
        "esc\u{1b}[31m",
        "del\u{7f}",
        "c1\u{85}x",
        "evil\u{202e}txt",
        "iso\u{2066}late",
    ] {
        assert_eq!(clean_text(text), Err(ChatRefusal::BadCharacter), "{text:?}");
    }
}

#[test]
fn five_lines_in_ten_seconds_then_too_fast_until_the_window_moves_on() {
    let mut table = Table::new();
    let (alice, bob) = (table.alice, table.bob);
    for i in 0..5 {
        assert!(table.say(alice, "x", i * 100).is_ok());
    }
    assert_eq!(table.say(alice, "x", 600).err(), Some(ChatRefusal::TooFast));
    assert_eq!(ChatRefusal::TooFast.code(), "chat_too_fast");
    // Per writer: Bob is not held up by Alice.
    assert!(table.say(bob, "y", 700).is_ok());
    // The first line leaves the window 10 s after it was written.
    assert_eq!(
        table.say(alice, "x", 9_999).err(),
        Some(ChatRefusal::TooFast)
    );
    assert!(table.say(alice, "x", 10_000).is_ok());
    assert_eq!(
        table.say(alice, "x", 10_050).err(),
        Some(ChatRefusal::TooFast)
    );
    // A refused line does not count.
    assert!(table.state.propose_chat(Some(alice), "", 20_000).is_err());
    for i in 0..5 {
        assert!(table.say(alice, "x", 20_100 + i).is_ok());
    }
}

#[test]
fn the_rate_remembers_only_the_last_windows_writers() {
    let mut table = Table::new();
    for i in 0..100 {
        assert!(table.say(Uuid::new_v4(), "hi", i).is_ok());
    }
    assert_eq!(table.state.chat.recent.len(), 100);
    assert!(table.say(table.alice, "later", 20_000).is_ok());
    assert_eq!(table.state.chat.recent.len(), 1);
}

#[test]
fn each_room_keeps_its_last_fifty_lines_oldest_first() {
    let mut table = Table::new();
    let eve = Uuid::new_v4();
    for i in 0..60u64 {
        // Far enough apart for the rate.
        let now = i * 3_000;
        assert!(table.say(eve, &format!("s{i}"), now).is_ok());
        assert!(table.say(table.alice, &format!("p{i}"), now).is_ok());
    }
    let spectators = table.texts(None);
    assert_eq!(spectators.len(), CHAT_LINES_KEPT);
    assert_eq!(spectators.first().map(String::as_str), Some("s10"));
    assert_eq!(spectators.last().map(String::as_str), Some("s59"));
    let players = table.texts(Some(table.bob));
    assert_eq!(players.len(), CHAT_LINES_KEPT);
    assert_eq!(players.first().map(String::as_str), Some("p10"));
}

#[test]
fn the_snapshot_shows_the_viewers_room() {
    let mut table = Table::new();
    let eve = Uuid::new_v4();
    assert!(table.say(table.alice, "to bob", 0).is_ok());
    assert!(table.say(eve, "to the crowd", 0).is_ok());
    let shown = |viewer: Option<Uuid>| {
        let view = serde_json::to_value(table.state.view(viewer, 0)).unwrap_or_default();
        view["chat"].clone()
    };
    assert_eq!(shown(Some(table.bob))[0]["text"], "to bob");
    assert_eq!(shown(Some(table.bob))[0]["from"], "someone");
    assert_eq!(shown(Some(eve))[0]["text"], "to the crowd");
    assert_eq!(shown(None)[0]["room"], "spectators");
    assert_eq!(shown(None).as_array().map(Vec::len), Some(1));
}

#[test]
fn a_resumed_games_stored_lines_are_read_once_and_keep_their_rooms() {
    let mut table = Table::new();
    table.state.chat = ChatRooms::unread();
    assert!(!table.state.chat_loaded());
    let line = |room, text: &str| ChatLine {
        room,
        from: "carol".into(),
        text: text.into(),
        at: test_wall_clock(),
    };
    let mut stored = vec![line(ChatRoom::Players, "old")];
    stored.extend((0..55).map(|i| line(ChatRoom::Spectators, &format!("s{i}"))));
    table.state.load_chat(stored);
    assert!(table.state.chat_loaded());
    assert_eq!(table.texts(Some(table.alice)), ["old"]);
    assert_eq!(table.texts(None).len(), CHAT_LINES_KEPT);
    assert_eq!(table.texts(None).first().map(String::as_str), Some("s5"));
}

#[test]
fn a_spectator_who_takes_the_seat_of_an_open_challenge_joins_the_players_room() {
    let (alice, bob) = (seat("alice"), seat("bob"));
    let mut state = open_challenge(&alice, ColorChoice::Random);
    // The creator of an open challenge has no seat yet and is a player all the same.
    assert_eq!(state.chat_room_of(alice.user_id), ChatRoom::Players);
    assert_eq!(state.chat_room_of(bob.user_id), ChatRoom::Spectators);
    let start = state
        .propose_start(bob.clone(), state.creator_color(false))
        .unwrap_or_else(|e| panic!("{e}"));
    state.adopt(start.adoption, 0);
    assert_eq!(state.chat_room_of(bob.user_id), ChatRoom::Players);
}

#[test]
fn the_spectator_count_is_sent_at_most_once_a_second_and_only_when_it_changed() {
    let mut table = Table::new();
    let state = &mut table.state;
    let count = |message: Option<Arc<str>>| {
        let value: serde_json::Value =
            serde_json::from_str(message.as_deref().unwrap_or("null")).unwrap_or_default();
        value["n"].as_u64()
    };
    state.note_spectators(0);
    assert_eq!(state.spectators_due(), None, "nothing changed");
    state.presence(Some(table.alice), true, 0);
    state.note_spectators(0);
    assert_eq!(state.spectators_due(), None, "a player is no spectator");
    state.presence(None, true, 10);
    state.note_spectators(10);
    assert_eq!(
        state.spectators_due(),
        Some(10),
        "the first change goes at once"
    );
    assert_eq!(count(state.announce_spectators(10)), Some(1));
    assert_eq!(state.spectators_due(), None);
    // Three more arrive within the second: one message, a second after the last.
    for at in [20, 30, 40] {
        state.presence(Some(Uuid::new_v4()), true, at);
        state.note_spectators(at);
    }
    assert_eq!(state.spectators_due(), Some(10 + SPECTATORS_EVERY_MS));
    assert_eq!(count(state.announce_spectators(1_010)), Some(4));
    // Someone comes and goes before the count is due: nothing to send.
    state.presence(None, true, 1_100);
    state.note_spectators(1_100);
    state.presence(None, false, 1_200);
    assert_eq!(state.announce_spectators(2_010), None);
    assert_eq!(state.spectators_due(), None);
}
