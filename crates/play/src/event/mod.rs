//! Versioned game events and the log that replays them to reconnecting clients.
//!
//! Every change to a live game becomes one [`GameEvent`] (a wire type) with the next version
//! number. The event is serialized once into its wire message, the wire's `EventMsg`
//! ([`EventLog::push`]), and the same bytes go to every player and spectator. The log keeps
//! the most recent messages so that a client reconnecting with the last version it saw
//! receives exactly what it missed; a client further behind gets a fresh snapshot instead.

mod json;

use crate::rules::{Color, SnapshotUpdate};
pub use crate::wire::game::GameEvent;
use crate::wire::game::{ClockView, EventMsg, GameServerMsg};
use json::field;
use std::collections::VecDeque;
use std::sync::Arc;

/// How many recent events a game keeps for reconnecting clients. This bounds a game's memory
/// (an action event is a few hundred bytes); a client further behind than this simply gets a
/// fresh snapshot (lichess keeps 20).
pub const EVENT_LOG_CAPACITY: usize = 48;

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

/// The wire message of an event ([`EventMsg`]). An action event, a live game's message on
/// every move, is written field by field ([`write_action`]); any other goes through serde.
fn event_message(version: u64, event: &GameEvent, capacity: usize) -> String {
    let GameEvent::Action {
        ply,
        machine,
        human,
        by,
        forced,
        clock,
        update,
    } = event
    else {
        return GameServerMsg::Event(EventMsg { v: version, event }).to_json();
    };
    let mut message = Vec::with_capacity(capacity.max(256));
    field(&mut message, b"{\"t\":\"event\",\"v\":", &version);
    let mover = Mover {
        by: *by,
        forced: *forced,
    };
    write_action(&mut message, *ply, machine, human, mover, clock, update);
    // Only JSON text was written: always UTF-8.
    String::from_utf8(message)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
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
mod tests;
