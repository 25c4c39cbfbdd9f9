//! A game's chat and its live spectator count on the game sockets: a line as every client
//! sees it ([`ChatLine`], also the snapshot's `chat` and `GET /api/games/{id}/chat`), the
//! line as it is sent live ([`ChatMsg`], `{"t":"chat",…}`) and the count of spectators
//! ([`SpectatorsMsg`], `{"t":"spectators","n":3}`). Neither is a versioned event: they are
//! not in the event log and not replayed on a reconnect, whose snapshot carries both.

use crate::record::ChatRecord;
use crate::wire::to_json;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Serialize, Serializer};
use std::sync::Arc;

pub use crate::record::ChatRoom;

/// One line of a game's chat: `{"room","from","text","at"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChatLine {
    pub room: ChatRoom,
    /// The writer's username.
    pub from: String,
    /// Trimmed, 1 to 140 characters, no control characters.
    pub text: String,
    /// When the line was stored, RFC 3339 in UTC to the millisecond
    /// (`2026-11-26T08:01:02.345Z`), the same live and read back.
    #[serde(serialize_with = "rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: DateTime<Utc>,
}

impl From<ChatRecord> for ChatLine {
    fn from(record: ChatRecord) -> ChatLine {
        ChatLine {
            room: record.room,
            from: record.username,
            text: record.text,
            at: record.at,
        }
    }
}

fn rfc3339_millis<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&at.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// A chat line as sent live: `{"t":"chat","room":…,"from":…,"text":…,"at":…}`.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename = "chat")]
pub struct ChatMsg<'a> {
    #[serde(flatten)]
    pub line: &'a ChatLine,
}

/// The number of spectators changed: `{"t":"spectators","n":3}` (counted as the snapshot's
/// `spectators` is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "t", rename = "spectators")]
pub struct SpectatorsMsg {
    pub n: u32,
}

/// The live message of a chat line.
pub fn chat_message(line: &ChatLine) -> Arc<str> {
    to_json(&ChatMsg { line }).into()
}

/// The live message of the spectator count.
pub fn spectators_message(n: u32) -> Arc<str> {
    to_json(&SpectatorsMsg { n }).into()
}

/// What `GET /api/games/{id}/chat` answers: the stored lines the requester may read, oldest
/// first.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameChat {
    pub game_id: uuid::Uuid,
    /// The spectators' room, and the players' too when the requester played in the game,
    /// interleaved in the order they were written.
    pub chat: Vec<ChatLine>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::game::{tag_with_gid, GidTagged};

    fn line() -> ChatLine {
        let at = DateTime::parse_from_rfc3339("2026-11-26T08:01:02.345Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        ChatLine {
            room: ChatRoom::Spectators,
            from: "alice".into(),
            text: "nice \"move\"".into(),
            at,
        }
    }

    #[test]
    fn a_chat_line_is_sent_with_its_room_author_text_and_time() {
        assert_eq!(
            &*chat_message(&line()),
            r#"{"t":"chat","room":"spectators","from":"alice","text":"nice \"move\"","at":"2026-11-26T08:01:02.345Z"}"#
        );
        assert_eq!(&*spectators_message(3), r#"{"t":"spectators","n":3}"#);
    }

    #[test]
    fn on_the_multiplexed_socket_they_carry_the_game_id() {
        let gid = uuid::Uuid::from_u128(5);
        let line = line();
        let expected = to_json(&GidTagged {
            gid,
            msg: ChatMsg { line: &line },
        });
        assert_eq!(tag_with_gid(gid, &chat_message(&line)), expected);
    }

    #[test]
    fn rooms_read_back_what_they_store() {
        for room in [ChatRoom::Players, ChatRoom::Spectators] {
            assert_eq!(room.as_str().parse(), Ok(room));
        }
        assert_eq!("lobby".parse::<ChatRoom>(), Err(()));
    }
}
