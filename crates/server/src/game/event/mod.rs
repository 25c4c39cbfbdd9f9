//! Versioned game events and the log that replays them to reconnecting clients.
//!
//! Every change to a live game becomes one [`GameEvent`] with the next version number. The
//! event is serialized once into the wire message ([`EventLog::push`]) and the same bytes go
//! to every player and spectator. The log keeps the most recent messages so that a client
//! reconnecting with the last version it saw receives exactly what it missed; a client
//! further behind gets a fresh snapshot instead.

mod json;

use super::clock::ClockView;
use crate::rules::{Color, Outcome, Snapshot, SnapshotUpdate};
use json::field;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::Arc;
use uuid::Uuid;

/// How many recent events a game keeps for reconnecting clients. This bounds a game's memory
/// (an action event is a few hundred bytes); a client further behind than this simply gets a
/// fresh snapshot (lichess keeps 20).
pub const EVENT_LOG_CAPACITY: usize = 48;

/// Something that happened in a game, as sent to clients.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameEvent {
    /// Both seats are taken; the game has begun.
    Started {
        white: String,
        black: String,
        rules: Box<Snapshot>,
    },
    /// An action was committed and played. `update` turns the rules snapshot of the previous
    /// event (or of the snapshot the client started from) into the new one.
    Action {
        ply: u32,
        machine: String,
        human: String,
        by: Color,
        /// The server played it for `by`, who had no other (a Do-Or-Die Chazz pass); the
        /// field is left out otherwise.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        forced: bool,
        clock: Option<ClockView>,
        update: Box<SnapshotUpdate>,
    },
    DrawOffered {
        by: Color,
    },
    DrawDeclined {
        by: Color,
    },
    RematchOffered {
        by: Color,
    },
    RematchDeclined {
        by: Color,
    },
    /// A rematch was agreed: the new game's id.
    Rematch {
        game_id: Uuid,
    },
    /// A player's last connection closed; the opponent may claim after the delay.
    PlayerGone {
        color: Color,
        claim_after_ms: u64,
    },
    PlayerBack {
        color: Color,
    },
    /// The game is over. For dice variants the seed is revealed now.
    Ended {
        outcome: Outcome,
        clock: Option<ClockView>,
        dice_seed: Option<String>,
    },
}

/// Recent events of one game, already serialized, with their versions.
#[derive(Debug, Default)]
pub struct EventLog {
    version: u64,
    recent: VecDeque<(u64, Arc<str>)>,
    /// The length of the last message: the next one's buffer is sized from it, since a
    /// game's action events are all about as long and growing a buffer step by step cost a
    /// handful of reallocations per move.
    last_length: usize,
}

impl EventLog {
    /// A log starting at `version` (the number of events the game has had).
    pub fn starting_at(version: u64) -> EventLog {
        EventLog {
            version,
            recent: VecDeque::new(),
            last_length: 0,
        }
    }

    /// The version of the latest event (0 before any).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Records an event under the next version and returns its wire message:
    /// `{"t":"event","v":<version>,"kind":…, …the event's fields}`.
    pub fn push(&mut self, event: &GameEvent) -> Arc<str> {
        self.version += 1;
        let message = event_message(self.version, event, self.last_length + 64);
        self.last_length = message.len();
        let text: Arc<str> = message.into();
        if self.recent.len() == EVENT_LOG_CAPACITY {
            self.recent.pop_front();
        }
        self.recent.push_back((self.version, text.clone()));
        text
    }

    /// Forgets all but the last `keep` messages, and the room they took. A finished game
    /// lingers for rematches and late viewers, who catch up from a snapshot just as well: a
    /// full log on each of the thousands of games that end every minute under load would
    /// hold most of the server's memory.
    pub fn keep_last(&mut self, keep: usize) {
        let forgotten = self.recent.len().saturating_sub(keep);
        self.recent.drain(..forgotten);
        self.recent.shrink_to_fit();
    }

    /// The messages after version `seen`, or None if some of them are no longer kept (the
    /// client then needs a full snapshot). A version from the future also yields None.
    pub fn since(&self, seen: u64) -> Option<Vec<Arc<str>>> {
        if seen > self.version {
            return None;
        }
        let oldest_kept = self.recent.front().map_or(self.version + 1, |(v, _)| *v);
        if seen + 1 < oldest_kept {
            return None;
        }
        Some(
            self.recent
                .iter()
                .filter(|(v, _)| *v > seen)
                .map(|(_, m)| m.clone())
                .collect(),
        )
    }
}

/// The wire message of an event: the envelope's `t` and `v` first, then the event's own
/// fields. An action event, a live game's message on every move, is written field by field
/// ([`write_action`]); any other event is written by serde straight after the envelope.
fn event_message(version: u64, event: &GameEvent, capacity: usize) -> String {
    let mut message = Vec::with_capacity(capacity.max(256));
    field(&mut message, b"{\"t\":\"event\",\"v\":", &version);
    match event {
        GameEvent::Action {
            ply,
            machine,
            human,
            by,
            forced,
            clock,
            update,
        } => {
            let mover = Mover {
                by: *by,
                forced: *forced,
            };
            write_action(&mut message, *ply, machine, human, mover, clock, update);
        }
        _ => write_with_serde(&mut message, event),
    }
    // Only JSON text was written: always UTF-8.
    String::from_utf8(message)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Appends `event`'s fields to an envelope already in `message`, closing the object. Written
/// as the event's object without its opening brace rather than through `#[serde(flatten)]`,
/// which serializes every field through a map: the brace becomes the comma after the envelope.
/// Serializing plain data cannot fail; if it ever did, the bare envelope keeps the version
/// sequence intact.
fn write_with_serde(message: &mut Vec<u8>, event: &GameEvent) {
    let envelope = message.len();
    let serialized = serde_json::to_writer(&mut *message, event).is_ok();
    match message.get(envelope..envelope + 2) {
        Some([b'{', b'"']) if serialized => message[envelope] = b',',
        _ => {
            message.truncate(envelope);
            message.push(b'}');
        }
    }
}

/// Appends an action event's fields after the envelope, byte for byte what serde writes for
/// [`GameEvent::Action`] (a test holds it to that), written by hand ([`json`]) but for the
/// outcome, which only the last move of a game has.
fn write_action(
    out: &mut Vec<u8>,
    ply: u32,
    machine: &str,
    human: &str,
    mover: Mover,
    clock: &Option<ClockView>,
    update: &SnapshotUpdate,
) {
    out.extend_from_slice(b",\"kind\":\"action\"");
    field(out, b",\"ply\":", &ply);
    field(out, b",\"machine\":", machine);
    field(out, b",\"human\":", human);
    field(out, b",\"by\":", &mover.by);
    if mover.forced {
        out.extend_from_slice(b",\"forced\":true");
    }
    field(out, b",\"clock\":", clock);
    field(out, b",\"update\":{\"position\":", &update.position);
    field(out, b",\"turn\":", &update.turn);
    field(out, b",\"ply\":", &update.ply);
    field(out, b",\"last_action\":", &update.last_action);
    field(out, b",\"off_board\":", &update.off_board);
    field(out, b",\"check\":", &update.check);
    // Up to a few hundred short texts: room for all of them at once.
    out.reserve(
        2 + update
            .legal_actions
            .iter()
            .map(|t| t.len() + 3)
            .sum::<usize>(),
    );
    field(out, b",\"legal_actions\":", &update.legal_actions);
    out.extend_from_slice(b",\"outcome\":");
    let _ = serde_json::to_writer(&mut *out, &update.outcome);
    field(out, b",\"removed\":", &update.removed);
    field(out, b",\"placed\":", &update.placed);
    out.extend_from_slice(b"}}");
}

/// Who played an action: the side, and whether the server played it for them.
#[derive(Clone, Copy)]
struct Mover {
    by: Color,
    forced: bool,
}

/// Test data: the action events of up to `plies` plies of `variant` from its start, playing
/// the legal action numbered `ply * stride` (modulo their count) at each ply, with the clock
/// `clock(ply, mover)` gives.
#[cfg(test)]
pub(crate) fn sample_action_events(
    variant: crate::rules::Variant,
    plies: u32,
    stride: usize,
    clock: impl Fn(u32, Color) -> Option<ClockView>,
) -> Vec<GameEvent> {
    let Ok(mut game) = crate::rules::AnyGame::start(variant) else {
        panic!("{variant} does not start");
    };
    let mut pieces = game.snapshot().pieces;
    let mut events = Vec::new();
    for ply in 1..=plies {
        let legal = game.legal_actions();
        let Some(action) = legal.get(ply as usize * stride % legal.len().max(1)) else {
            break;
        };
        let by = game.turn();
        let Ok(played) = game.play(action) else {
            panic!("{variant}: {action} refused");
        };
        let (update, now) = game.snapshot().into_update(&pieces);
        pieces = now;
        events.push(GameEvent::Action {
            ply,
            machine: played.machine,
            human: played.human,
            by,
            // Every fifth one, so that the field is written both ways.
            forced: ply.is_multiple_of(5),
            clock: clock(ply, by),
            update: Box::new(update),
        });
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{AnyGame, Variant};
    use std::borrow::Cow;

    /// The message as serde alone writes it.
    fn by_serde(version: u64, event: &GameEvent) -> String {
        let mut message = format!(r#"{{"t":"event","v":{version}"#).into_bytes();
        write_with_serde(&mut message, event);
        String::from_utf8(message).unwrap_or_default()
    }

    #[test]
    fn action_events_are_written_as_serde_writes_them() {
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
        let message: serde_json::Value =
            serde_json::from_str(&log.push(&ended)).unwrap_or_default();
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
}
