//! What the server sends on the game sockets: every message of `/ws/game/{id}`
//! ([`GameServerMsg`]) and of the multiplexed `/ws/games` ([`MuxServerMsg`]), and the two
//! writers that put already serialized messages together without parsing them again (a
//! catch-up's [`batch_message`], the multiplexed socket's [`tag_with_gid`]), each held to
//! these types' serde output by the tests below.

use super::{GameEvent, GameView};
use crate::wire::{to_json, ErrorEvent, Pong};
use serde::Serialize;
use std::sync::Arc;
use uuid::Uuid;

/// A message of `/ws/game/{id}`; each kind names itself in its `"t"` field.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum GameServerMsg<'a> {
    /// Boxed: a view is several times the size of any other message.
    Snapshot(Box<SnapshotMsg<'a>>),
    Event(EventMsg<'a>),
    Batch(BatchMsg<'a>),
    Pong(Pong),
    Error(ErrorEvent<'a>),
}

impl<'a> GameServerMsg<'a> {
    /// The snapshot of `game` as of version `v`.
    pub fn snapshot(v: u64, game: GameView<'a>) -> GameServerMsg<'a> {
        GameServerMsg::Snapshot(Box::new(SnapshotMsg { v, game }))
    }

    pub fn to_json(&self) -> String {
        to_json(self)
    }
}

/// The whole game for one viewer, as of version `v`: sent on connect, and instead of a
/// catch-up the server no longer has the events for. `{"t":"snapshot","v":…,"game":{…}}`
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename = "snapshot")]
pub struct SnapshotMsg<'a> {
    pub v: u64,
    pub game: GameView<'a>,
}

/// One versioned event: `{"t":"event","v":…,"kind":…, …the event's fields}`.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename = "event")]
pub struct EventMsg<'a> {
    pub v: u64,
    #[serde(flatten)]
    pub event: &'a GameEvent,
}

/// A catch-up in one frame, in order (the answer to `sync`):
/// `{"t":"batch","messages":[…events, or one snapshot]}`.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename = "batch")]
pub struct BatchMsg<'a> {
    pub messages: &'a [GameServerMsg<'a>],
}

/// A message of `/ws/games`.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum MuxServerMsg<'a> {
    /// A watched game's message, or an error about one game.
    Game(GidTagged<GameServerMsg<'a>>),
    /// The socket no longer carries the game.
    Unwatched(GidTagged<Unwatched>),
    Pong(Pong),
    /// A refused frame that is about no one game.
    Error(ErrorEvent<'a>),
}

impl MuxServerMsg<'_> {
    pub fn to_json(&self) -> String {
        to_json(self)
    }
}

/// A message with the game's id as its first field: `{"gid":"…","t":…, …}`.
#[derive(Clone, Debug, Serialize)]
pub struct GidTagged<M> {
    pub gid: Uuid,
    #[serde(flatten)]
    pub msg: M,
}

/// `{"t":"unwatched"}` (with its `gid`): after an `unwatch`, or when the game stops (let go
/// after its end, or the server stopping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "t", rename = "unwatched")]
pub struct Unwatched {}

/// The [`BatchMsg`] of messages already serialized (a game's event log keeps its events as
/// text): byte for byte what serde writes for the messages themselves.
pub fn batch_message(messages: &[Arc<str>]) -> String {
    let length = messages.iter().map(|m| m.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(length + 32);
    out.push_str("{\"t\":\"batch\",\"messages\":[");
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(message);
    }
    out.push_str("]}");
    out
}

/// The [`GidTagged`] form of a game's message already serialized: the message's own fields
/// spliced after the id, byte for byte what serde writes, without parsing the message again
/// (the multiplexed socket does this for every event of every game it carries).
pub fn tag_with_gid(gid: Uuid, message: &str) -> String {
    let mut id = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = gid.hyphenated().encode_lower(&mut id);
    let mut out = String::with_capacity(message.len() + id.len() + 10);
    out.push_str("{\"gid\":\"");
    out.push_str(id);
    out.push('"');
    // Every message the server writes is a JSON object; anything else would be carried whole.
    match message.strip_prefix('{') {
        Some("}") => out.push('}'),
        Some(fields) => {
            out.push(',');
            out.push_str(fields);
        }
        None => {
            out.push_str(",\"msg\":");
            out.push_str(message);
            out.push('}');
        }
    }
    out
}

/// `{"gid":"…","t":"unwatched"}`.
pub fn unwatched_message(gid: Uuid) -> String {
    MuxServerMsg::Unwatched(GidTagged {
        gid,
        msg: Unwatched {},
    })
    .to_json()
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
