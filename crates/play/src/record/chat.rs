//! Games' chat lines as records: the room a line is for, a line to store and a stored line.

use chrono::{DateTime, Utc};
use serde::Serialize;
use std::str::FromStr;
use uuid::Uuid;

/// Who a chat line is for: the game's players, or everyone else watching (stored as
/// `players` / `spectators`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    Players,
    Spectators,
}

impl ChatRoom {
    /// The stable id, as stored (`game_chat.room`) and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRoom::Players => "players",
            ChatRoom::Spectators => "spectators",
        }
    }
}

impl FromStr for ChatRoom {
    type Err = ();

    fn from_str(s: &str) -> Result<ChatRoom, ()> {
        match s {
            "players" => Ok(ChatRoom::Players),
            "spectators" => Ok(ChatRoom::Spectators),
            _ => Err(()),
        }
    }
}

/// A line to store.
#[derive(Clone, Copy, Debug)]
pub struct NewChatLine<'a> {
    pub game_id: Uuid,
    /// The writer, whose username is stored with the line.
    pub user_id: Uuid,
    pub room: ChatRoom,
    pub text: &'a str,
    pub at: DateTime<Utc>,
}

/// A stored line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatRecord {
    pub room: ChatRoom,
    pub username: String,
    pub text: String,
    pub at: DateTime<Utc>,
}
