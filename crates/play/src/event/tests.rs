//! The event log's tests: its messages are the wire's `EventMsg` as serde writes it, byte for
//! byte; versions; catch-ups.

use super::*;
use crate::rules::{AnyGame, EndReason, Outcome, Variant};
use std::borrow::Cow;
use uuid::Uuid;

/// The message as the wire's type serializes it with serde.
fn by_serde(version: u64, event: &GameEvent) -> String {
    GameServerMsg::Event(EventMsg { v: version, event }).to_json()
}

/// What a sample of action events covers, so that the byte-for-byte test is known to have
/// written every optional part at least once both ways.
#[derive(Default)]
struct Coverage {
    forced: [bool; 2],
    clock: [bool; 2],
    rolls: bool,
    effects: bool,
    stats: bool,
    off_board: bool,
}

impl Coverage {
    fn note(&mut self, event: &GameEvent) {
        let GameEvent::Action {
            forced,
            clock,
            update,
            ..
        } = event
        else {
            return;
        };
        self.forced[usize::from(*forced)] = true;
        self.clock[usize::from(clock.is_some())] = true;
        if let Some(last) = &update.last_action {
            self.rolls |= !last.rolls.is_empty();
            self.effects |= !last.effects.is_empty();
        }
        self.stats |= update.placed.iter().any(|p| p.stats.is_some());
        self.off_board |= !update.off_board.is_empty();
    }
}

#[test]
fn action_events_of_every_variant_are_written_as_serde_writes_them() {
    let mut coverage = Coverage::default();
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let clock = |ply: u32, by: Color| {
            ply.is_multiple_of(2).then_some(ClockView {
                white_ms: u64::from(ply) * 1000,
                black_ms: 7,
                running: Some(by.other()),
            })
        };
        for (version, event) in (4..).zip(sample_action_events(variant, 80, 7, clock)) {
            let ours = event_message(version, &event, 0);
            assert_eq!(ours, by_serde(version, &event), "{variant} v{version}");
            coverage.note(&event);
        }
    }
    assert_eq!(coverage.forced, [true, true], "forced both ways");
    assert_eq!(coverage.clock, [true, true], "with and without a clock");
    assert!(coverage.rolls, "no dice roll among the samples");
    assert!(coverage.effects, "no effect among the samples");
    assert!(coverage.stats, "no piece stats among the samples");
    assert!(
        coverage.off_board,
        "no piece off the board among the samples"
    );
}

/// One event of every kind but the action, with the kind's name; the match makes a new kind
/// a compile error here until it has a sample.
fn one_of_every_other_kind() -> Vec<(&'static str, GameEvent)> {
    let Ok(game) = AnyGame::start(Variant::Drehs) else {
        panic!("drehs does not start");
    };
    let clock = Some(ClockView {
        white_ms: 1,
        black_ms: 0,
        running: None,
    });
    let samples = vec![
        GameEvent::Started {
            white: "al\"ice".into(),
            black: "bob".into(),
            rules: Box::new(game.snapshot()),
        },
        GameEvent::DrawOffered { by: Color::White },
        GameEvent::DrawDeclined { by: Color::Black },
        GameEvent::RematchOffered { by: Color::Black },
        GameEvent::RematchDeclined { by: Color::White },
        GameEvent::Rematch {
            game_id: Uuid::from_u128(0x0190_a5e8_0000_7000_8000_0000_0000_0001),
        },
        GameEvent::TakebackOffered { by: Color::White },
        GameEvent::TakebackDeclined { by: Color::Black },
        GameEvent::Takeback {
            by: Color::White,
            plies: 2,
            rules: Box::new(game.snapshot()),
            clock,
        },
        GameEvent::MoreTime {
            by: Color::Black,
            to: Color::White,
            ms: 15_000,
            clock,
        },
        GameEvent::PlayerGone {
            color: Color::Black,
            claim_after_ms: 41_200,
        },
        GameEvent::PlayerBack {
            color: Color::White,
        },
        GameEvent::Ended {
            outcome: Outcome::win(Color::White, EndReason::Resignation),
            clock,
            dice_seed: Some("00ff".into()),
        },
        GameEvent::Ended {
            outcome: Outcome::draw(EndReason::Aborted),
            clock: None,
            dice_seed: None,
        },
    ];
    samples
        .into_iter()
        .map(|event| {
            let kind = match &event {
                GameEvent::Started { .. } => "started",
                GameEvent::Action { .. } => "action",
                GameEvent::DrawOffered { .. } => "draw_offered",
                GameEvent::DrawDeclined { .. } => "draw_declined",
                GameEvent::RematchOffered { .. } => "rematch_offered",
                GameEvent::RematchDeclined { .. } => "rematch_declined",
                GameEvent::Rematch { .. } => "rematch",
                GameEvent::TakebackOffered { .. } => "takeback_offered",
                GameEvent::TakebackDeclined { .. } => "takeback_declined",
                GameEvent::Takeback { .. } => "takeback",
                GameEvent::MoreTime { .. } => "more_time",
                GameEvent::PlayerGone { .. } => "player_gone",
                GameEvent::PlayerBack { .. } => "player_back",
                GameEvent::Ended { .. } => "ended",
            };
            (kind, event)
        })
        .collect()
}

#[test]
fn every_other_event_kind_is_the_envelope_then_the_event() {
    let samples = one_of_every_other_kind();
    let kinds: std::collections::BTreeSet<_> = samples.iter().map(|(kind, _)| *kind).collect();
    assert_eq!(kinds.len(), 13, "{kinds:?}");
    for (kind, event) in samples {
        let ours = event_message(5, &event, 0);
        assert_eq!(ours, by_serde(5, &event));
        let prefix = format!(r#"{{"t":"event","v":5,"kind":"{kind}""#);
        assert!(ours.starts_with(&prefix), "{ours}");
    }
}

/// The protocol document's events section.
fn documented_events() -> &'static str {
    let doc = include_str!("../../../../docs/protocol.md");
    let start = doc.find("#### Events (`GameEvent`)").unwrap_or(0);
    let end = doc[start..]
        .find("#### Applying")
        .map_or(doc.len(), |e| start + e);
    &doc[start..end]
}

#[test]
fn the_protocol_document_names_every_event_kind_and_field() {
    // The fifth is a forced one, which has every field.
    let Some(action) = sample_action_events(Variant::Drehs, 5, 1, |_, _| None).pop() else {
        panic!("no action sampled");
    };
    let section = documented_events();
    let samples = one_of_every_other_kind().into_iter().map(|(_, e)| e);
    for event in samples.chain([action]) {
        let message: serde_json::Value =
            serde_json::from_str(&event_message(1, &event, 0)).unwrap_or_default();
        let kind = message["kind"].as_str().unwrap_or("?");
        let Some(fields) = message.as_object() else {
            panic!("not an object: {message}");
        };
        assert!(
            section.contains(&format!("`{kind}`")),
            "{kind} is not documented"
        );
        for field in fields
            .keys()
            .filter(|k| !["t", "v", "kind"].contains(&k.as_str()))
        {
            assert!(
                section.contains(&format!("`{field}`")),
                "{kind}'s `{field}` is not documented"
            );
        }
    }
}

#[test]
fn action_texts_that_need_escapes_are_escaped() {
    let Ok(game) = AnyGame::start(Variant::Suicide) else {
        panic!("suicide does not start");
    };
    // Plain and escaped texts next to each other in every order, first and last.
    let lists: [&[&str]; 4] = [
        &["e2e4", "a\"b", "c\\d", "tab\there", "\u{1}", "é♞", ""],
        &["\"", "x", "\\"],
        &["\n"],
        &[],
    ];
    for list in lists {
        let (mut update, _) = game.snapshot().into_update(&[]);
        // Owned, as a variant's spelled actions are: a borrowed label is the server's own
        // static text, which needs no escape (`json`'s writer relies on it).
        update.legal_actions = list.iter().map(|&t| Cow::Owned(t.to_string())).collect();
        let event = GameEvent::Action {
            ply: 1,
            machine: "quote\"d".into(),
            human: "back\\slash".into(),
            by: Color::White,
            forced: false,
            clock: None,
            update: Box::new(update),
        };
        let ours = event_message(9, &event, 0);
        assert_eq!(ours, by_serde(9, &event), "{list:?}");
        let parsed: serde_json::Value = serde_json::from_str(&ours).unwrap_or_default();
        assert_eq!(parsed["update"]["legal_actions"], serde_json::json!(list));
    }
}

fn offer(by: Color) -> GameEvent {
    GameEvent::DrawOffered { by }
}

#[test]
fn versions_increase_and_messages_carry_them() {
    let mut log = EventLog::default();
    let first = log.push(&offer(Color::White));
    assert!(first.contains("\"v\":1"));
    assert!(first.contains("\"kind\":\"draw_offered\""));
    log.push(&offer(Color::Black));
    assert_eq!(log.version(), 2);
}

#[test]
fn the_message_is_the_envelope_then_the_event() {
    let mut log = EventLog::starting_at(41);
    assert_eq!(
        &*log.push(&offer(Color::Black)),
        r#"{"t":"event","v":42,"kind":"draw_offered","by":"black"}"#
    );
    let ended = GameEvent::Ended {
        outcome: Outcome::win(Color::White, crate::rules::EndReason::Resignation),
        clock: None,
        dice_seed: None,
    };
    let message: serde_json::Value = serde_json::from_str(&log.push(&ended)).unwrap_or_default();
    assert_eq!(message["t"], "event");
    assert_eq!(message["v"], 43);
    assert_eq!(message["kind"], "ended");
    assert_eq!(message["outcome"]["reason"], "resignation");
}

#[test]
fn a_reconnect_gets_exactly_the_missed_events() {
    let mut log = EventLog::default();
    for _ in 0..5 {
        log.push(&offer(Color::White));
    }
    let missed = log.since(3).unwrap_or_default();
    assert_eq!(missed.len(), 2);
    assert!(missed[0].contains("\"v\":4"));
    assert_eq!(log.since(5).map(|m| m.len()), Some(0));
    assert_eq!(log.since(6), None);
}

#[test]
fn a_trimmed_log_still_serves_the_latest_and_asks_older_for_a_snapshot() {
    let mut log = EventLog::default();
    for _ in 0..10 {
        log.push(&offer(Color::White));
    }
    log.keep_last(2);
    assert_eq!(log.since(8).map(|m| m.len()), Some(2));
    assert_eq!(log.since(10).map(|m| m.len()), Some(0));
    assert_eq!(log.since(7), None);
    log.push(&offer(Color::Black));
    assert_eq!(log.version(), 11);
}

#[test]
fn a_client_too_far_behind_needs_a_snapshot() {
    let mut log = EventLog::starting_at(10);
    for _ in 0..(EVENT_LOG_CAPACITY + 3) {
        log.push(&offer(Color::White));
    }
    assert_eq!(log.since(10), None);
    let oldest = log.version() - EVENT_LOG_CAPACITY as u64;
    assert_eq!(log.since(oldest).map(|m| m.len()), Some(EVENT_LOG_CAPACITY));
    assert_eq!(log.since(oldest - 1), None);
}
