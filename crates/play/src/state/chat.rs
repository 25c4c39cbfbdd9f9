//! A game's chat: two rooms, the players' and the spectators', and the rules of a line.
//!
//! A player (a seated account, or the creator of an open challenge) writes in the players'
//! room, anyone else in the spectators'. The players' room reaches the players only and the
//! spectators' room everyone else ([`crate::Audience`]), so a spectator's line never
//! reaches a player. A line is trimmed and must then hold 1 to [`CHAT_MAX_CHARS`] characters
//! and no control character; each writer has at most [`CHAT_BURST`] lines per
//! [`CHAT_WINDOW_MS`] in a game; a spectator must be signed in (a guest account is).
//!
//! As with an action, a line is checked here ([`GameState::propose_chat`]), stored by the
//! actor, and only then taken in and broadcast ([`GameState::adopt_chat`]): a line nobody
//! could store was never seen by anyone. Memory holds the last [`CHAT_LINES_KEPT`] lines of
//! each room, what a snapshot shows; the store holds up to [`CHAT_LINES_STORED`] lines a
//! game, which the store enforces as it writes.

use super::GameState;
use crate::wire::game::{chat_message, ChatLine, ChatRoom};
use crate::{Audience, Outgoing};
use chrono::{DateTime, SubsecRound, Utc};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::Arc;
use uuid::Uuid;

/// The longest line, in characters (Unicode scalar values, not bytes), after trimming.
pub const CHAT_MAX_CHARS: usize = 140;
/// Lines one writer may send in a game within [`CHAT_WINDOW_MS`].
pub const CHAT_BURST: usize = 5;
/// The window of the rate limit, in milliseconds.
pub const CHAT_WINDOW_MS: u64 = 10_000;
/// Lines of each room kept in memory and shown in a snapshot.
pub const CHAT_LINES_KEPT: usize = 50;
/// Lines stored for one game, both rooms together: beyond, `chat_full`. Bounds what
/// strangers can make the server keep for good (about 1,000 × 140 characters a game).
pub const CHAT_LINES_STORED: i64 = 1_000;

/// Why a chat line was refused. Nothing was stored or sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatRefusal {
    /// A viewer who is not signed in (guests are).
    SignIn,
    /// Nothing left once trimmed.
    Empty,
    /// Over [`CHAT_MAX_CHARS`] characters.
    TooLong,
    /// A control character (a line break, a tab…) or a bidirectional-text control.
    BadCharacter,
    /// Over [`CHAT_BURST`] lines in [`CHAT_WINDOW_MS`].
    TooFast,
    /// The game already stores [`CHAT_LINES_STORED`] lines.
    Full,
}

impl ChatRefusal {
    /// The stable error code sent to clients.
    pub fn code(self) -> &'static str {
        match self {
            ChatRefusal::SignIn => "sign_in_to_chat",
            ChatRefusal::Empty => "chat_empty",
            ChatRefusal::TooLong => "chat_too_long",
            ChatRefusal::BadCharacter => "chat_bad_character",
            ChatRefusal::TooFast => "chat_too_fast",
            ChatRefusal::Full => "chat_full",
        }
    }
}

impl fmt::Display for ChatRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChatRefusal::SignIn => f.write_str("sign in (or play as a guest) to chat"),
            ChatRefusal::Empty => f.write_str("the message is empty"),
            ChatRefusal::TooLong => {
                write!(f, "messages are limited to {CHAT_MAX_CHARS} characters")
            }
            ChatRefusal::BadCharacter => {
                f.write_str("messages may not contain line breaks or other control characters")
            }
            ChatRefusal::TooFast => write!(
                f,
                "at most {CHAT_BURST} messages every {} seconds",
                CHAT_WINDOW_MS / 1000
            ),
            ChatRefusal::Full => {
                write!(f, "this game's chat is full ({CHAT_LINES_STORED} messages)")
            }
        }
    }
}

/// A line the rules allow, to store before anyone sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatDraft {
    pub room: ChatRoom,
    pub user_id: Uuid,
    /// Trimmed and checked.
    pub text: String,
    /// The wall-clock time it is stamped with, to the millisecond (what PostgreSQL keeps and
    /// a client is shown, live or read back).
    pub at: DateTime<Utc>,
}

/// The chat a live game holds in memory.
#[derive(Debug)]
pub struct ChatRooms {
    players: VecDeque<ChatLine>,
    spectators: VecDeque<ChatLine>,
    /// When each writer's lines of the last [`CHAT_WINDOW_MS`] were taken in, oldest first
    /// (the actor's milliseconds). Writers whose lines are all older are forgotten, so this
    /// holds only the last window's writers.
    recent: HashMap<Uuid, VecDeque<u64>>,
    /// Whether the stored lines are in memory: a resumed game's are read by its actor
    /// ([`GameState::load_chat`]); a new game has none.
    loaded: bool,
}

impl ChatRooms {
    /// A new game's chat: empty, and nothing stored to read.
    pub fn new() -> ChatRooms {
        ChatRooms {
            players: VecDeque::new(),
            spectators: VecDeque::new(),
            recent: HashMap::new(),
            loaded: true,
        }
    }

    /// A resumed game's chat, until its stored lines are read.
    pub fn unread() -> ChatRooms {
        ChatRooms {
            loaded: false,
            ..ChatRooms::new()
        }
    }

    fn room(&self, room: ChatRoom) -> &VecDeque<ChatLine> {
        match room {
            ChatRoom::Players => &self.players,
            ChatRoom::Spectators => &self.spectators,
        }
    }

    /// Adds a line at the end of its room, dropping the room's oldest beyond
    /// [`CHAT_LINES_KEPT`].
    fn push(&mut self, line: ChatLine) {
        let room = match line.room {
            ChatRoom::Players => &mut self.players,
            ChatRoom::Spectators => &mut self.spectators,
        };
        if room.len() >= CHAT_LINES_KEPT {
            room.pop_front();
        }
        room.push_back(line);
    }

    /// `user_id`'s lines still inside the window at `now`.
    fn written_lately(&self, user_id: Uuid, now: u64) -> usize {
        self.recent.get(&user_id).map_or(0, |times| {
            times
                .iter()
                .filter(|&&t| now.saturating_sub(t) < CHAT_WINDOW_MS)
                .count()
        })
    }

    /// Counts a line of `user_id` at `now` against the rate limit, and forgets what has
    /// left the window.
    fn count_line(&mut self, user_id: Uuid, now: u64) {
        let fresh = |t: &u64| now.saturating_sub(*t) < CHAT_WINDOW_MS;
        self.recent.retain(|_, times| {
            times.retain(fresh);
            !times.is_empty()
        });
        let times = self.recent.entry(user_id).or_default();
        times.push_back(now);
        // Only the last burst's times matter.
        while times.len() > CHAT_BURST {
            times.pop_front();
        }
    }
}

impl Default for ChatRooms {
    fn default() -> ChatRooms {
        ChatRooms::new()
    }
}

/// Trims a line and checks its characters and length.
///
/// # Errors
/// [`ChatRefusal::Empty`], [`ChatRefusal::BadCharacter`] or [`ChatRefusal::TooLong`].
pub fn clean_text(text: &str) -> Result<String, ChatRefusal> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ChatRefusal::Empty);
    }
    if text.chars().any(is_refused_char) {
        return Err(ChatRefusal::BadCharacter);
    }
    if text.chars().count() > CHAT_MAX_CHARS {
        return Err(ChatRefusal::TooLong);
    }
    Ok(text.to_string())
}

/// Control characters (C0, DEL, C1: line breaks, tabs, escapes) and the bidirectional
/// embeddings, overrides and isolates, with which a line could reorder the text shown after
/// it or pose as someone else's words.
fn is_refused_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

impl GameState {
    /// The room `user_id` writes in and reads: the players' for the creator and the seated
    /// players, the spectators' for anyone else.
    pub fn chat_room_of(&self, user_id: Uuid) -> ChatRoom {
        if self.players().contains(&user_id) {
            ChatRoom::Players
        } else {
            ChatRoom::Spectators
        }
    }

    /// Checks `viewer`'s line `text` at `now`: the line to store, or why it is refused.
    ///
    /// # Errors
    /// Why the line is refused; nothing changed.
    pub fn propose_chat(
        &self,
        viewer: Option<Uuid>,
        text: &str,
        now: u64,
    ) -> Result<ChatDraft, ChatRefusal> {
        // Only a spectator can be anonymous: a player is always signed in.
        let user_id = viewer.ok_or(ChatRefusal::SignIn)?;
        let text = clean_text(text)?;
        if self.chat.written_lately(user_id, now) >= CHAT_BURST {
            return Err(ChatRefusal::TooFast);
        }
        Ok(ChatDraft {
            room: self.chat_room_of(user_id),
            user_id,
            text,
            at: (self.wall_clock)().trunc_subsecs(3),
        })
    }

    /// Takes in a stored line written by `from` (a username) at `now`; returns its message
    /// for its room.
    pub fn adopt_chat(&mut self, draft: ChatDraft, from: String, now: u64) -> Outgoing {
        self.chat.count_line(draft.user_id, now);
        let line = ChatLine {
            room: draft.room,
            from,
            text: draft.text,
            at: draft.at,
        };
        let text = chat_message(&line);
        self.chat.push(line);
        let players: Arc<[Uuid]> = self.players().into();
        let audience = match draft.room {
            ChatRoom::Players => Audience::Only(players),
            ChatRoom::Spectators => Audience::AllBut(players),
        };
        Outgoing { audience, text }
    }

    /// The lines of `viewer`'s room in memory, oldest first (an anonymous viewer reads the
    /// spectators').
    pub fn chat_lines(&self, viewer: Option<Uuid>) -> impl Iterator<Item = &ChatLine> {
        let room = viewer.map_or(ChatRoom::Spectators, |v| self.chat_room_of(v));
        self.chat.room(room).iter()
    }

    /// Whether the stored lines of a resumed game are in memory yet.
    pub fn chat_loaded(&self) -> bool {
        self.chat.loaded
    }

    /// Takes in a resumed game's stored lines (any rooms, oldest first), before any new line.
    pub fn load_chat(&mut self, lines: Vec<ChatLine>) {
        let mut rooms = ChatRooms::new();
        for line in lines {
            rooms.push(line);
        }
        rooms.recent = std::mem::take(&mut self.chat.recent);
        self.chat = rooms;
    }
}

#[cfg(test)]
#[path = "chat_tests.rs"]
mod tests;
