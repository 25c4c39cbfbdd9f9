//! The lobby socket's messages (`/ws/lobby`, and the JSON bodies of `POST /api/lobby`): what
//! clients send ([`LobbyClientMsg`], each optionally carrying a `ref` that its answer
//! echoes), the events the lobby pushes ([`LobbyEvent`]), the answer to a command
//! ([`LobbyAnswer`]) and the data a reply carries ([`ReplyData`]). A refused command is
//! answered with the shared [`super::ErrorEvent`], its `ref` echoed.
//!
//! The reply data of `games` and `history` carries the store's game rows
//! ([`GameSummary`]) as they are: one row type from the database to the socket.

use crate::record::GameSummary;
use crate::rules::{Color, Variant};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// Seek parameters as asked; anything left out takes the FICS default (time, inc and
/// variant from the user's settings, rated for registered users and unrated for guests, no
/// colour, auto, no formula, 0-9999).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekRequest {
    pub time: Option<u32>,
    pub inc: Option<u32>,
    pub rated: Option<bool>,
    pub color: Option<Color>,
    pub variant: Option<Variant>,
    #[serde(default)]
    pub manual: bool,
    #[serde(default)]
    pub formula: bool,
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// `match`: a challenge to one user; defaults as for seeks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchRequest {
    pub user: String,
    pub time: Option<u32>,
    pub inc: Option<u32>,
    pub rated: Option<bool>,
    /// The colour the challenger wants.
    pub color: Option<Color>,
    pub variant: Option<Variant>,
}

/// Which challenges `accept`, `decline` and `withdraw` mean: `all`, else `id`, else the
/// other side's `user`; none of them: the only one there is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhichMsg {
    pub id: Option<u32>,
    pub user: Option<String>,
    #[serde(default)]
    pub all: bool,
}

fn yes() -> bool {
    true
}

/// What a client may send on the lobby socket or to `POST /api/lobby`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum LobbyClientMsg {
    Seek(SeekRequest),
    /// One seek, or all of the user's.
    Unseek {
        id: Option<u32>,
    },
    Sought {
        #[serde(default)]
        all: bool,
    },
    /// Either a seek number or the seeker's name.
    Play {
        seek: Option<u32>,
        user: Option<String>,
    },
    Match(MatchRequest),
    Accept(WhichMsg),
    Decline(WhichMsg),
    Withdraw(WhichMsg),
    Pending {},
    Rematch {},
    Games {},
    History {
        user: Option<String>,
    },
    Finger {
        user: Option<String>,
    },
    /// No `name`: show the settings; `value` "" clears a formula.
    Set {
        name: Option<String>,
        #[serde(default)]
        value: String,
    },
    /// No `user`: show the list; `on` false takes the user off it.
    Noplay {
        user: Option<String>,
        #[serde(default = "yes")]
        on: bool,
    },
    /// A FICS-style text command.
    Command {
        line: String,
    },
    Ping {},
}

/// A frame that is not a lobby message: its `ref` (if it could be read, so that the error
/// answers it), the code (`bad_message` or `unknown_message`) and what is wrong.
pub type BadFrame = (Option<Value>, &'static str, String);

/// Parses a lobby frame into its `ref` (if any) and its message.
///
/// # Errors
/// The frame is not a lobby message: see [`BadFrame`].
pub fn parse_lobby_msg(text: &str) -> Result<(Option<Value>, LobbyClientMsg), BadFrame> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| (None, "bad_message", format!("not JSON: {e}")))?;
    parse_lobby_value(value)
}

/// [`parse_lobby_msg`] of a body already parsed as JSON.
///
/// # Errors
/// As [`parse_lobby_msg`].
pub fn parse_lobby_value(value: Value) -> Result<(Option<Value>, LobbyClientMsg), BadFrame> {
    let Value::Object(mut fields) = value else {
        return Err((None, "bad_message", "a message is a JSON object".into()));
    };
    let reference = fields.remove("ref");
    let Some(kind) = fields.get("t").and_then(Value::as_str).map(str::to_string) else {
        let message = "a message needs a string field \"t\"".to_string();
        return Err((reference, "bad_message", message));
    };
    match serde_json::from_value(Value::Object(fields)) {
        Ok(message) => Ok((reference, message)),
        Err(e) if e.to_string().contains("unknown variant") => {
            let message = format!("unknown message type `{kind}`");
            Err((reference, "unknown_message", message))
        }
        Err(e) => {
            let message = format!("malformed `{kind}` message: {e}");
            Err((reference, "bad_message", message))
        }
    }
}

/// A seek as clients see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeekView {
    pub id: u32,
    pub user: String,
    /// The seeker's rating in the seek's variant; null for guests.
    pub rating: Option<i64>,
    pub provisional: bool,
    pub variant: Variant,
    pub time: u32,
    pub inc: u32,
    pub rated: bool,
    /// The colour the seeker wants; null for none.
    pub color: Option<Color>,
    pub manual: bool,
    /// Whether responders are screened by the seeker's formula.
    pub formula: bool,
    pub min: i64,
    pub max: i64,
}

/// A challenge (match request) as clients see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChallengeView {
    pub id: u32,
    pub from: String,
    pub to: String,
    pub from_rating: Option<i64>,
    pub to_rating: Option<i64>,
    pub variant: Variant,
    pub time: u32,
    pub inc: u32,
    pub rated: bool,
    /// The colour the challenger plays; null for none.
    pub color: Option<Color>,
    /// The manual seek this challenge answers, if any.
    pub seek: Option<u32>,
}

/// A started game as the lobby announces it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameStartedView {
    pub game_id: Uuid,
    pub white: String,
    pub black: String,
    pub variant: Variant,
    pub rated: bool,
    pub time: u32,
    pub inc: u32,
}

/// One variant's rating in `finger`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingView {
    pub variant: Variant,
    /// Rounded.
    pub rating: i64,
    pub deviation: f64,
    pub volatility: f64,
    pub provisional: bool,
    pub games: i32,
    pub wins: i32,
    pub losses: i32,
    pub draws: i32,
}

/// `finger`: who a user is, their ratings and their results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FingerView {
    pub user: String,
    pub registered: bool,
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// Only variants the user has a rating in; others are 1500, provisional.
    pub ratings: Vec<RatingView>,
    /// Rated games over all variants.
    pub rated_games: i32,
}

/// The structured part of a reply (the `data` of the JSON forms).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReplyData {
    /// The seek was posted; `challenges` were sent to matching manual seekers.
    SeekPosted {
        seek: SeekView,
        challenges: Vec<ChallengeView>,
    },
    GameStarted {
        game: GameStartedView,
    },
    ChallengeSent {
        challenge: ChallengeView,
    },
    Seeks {
        seeks: Vec<SeekView>,
    },
    /// Seeks taken down.
    Unseeked {
        ids: Vec<u32>,
    },
    /// Challenges removed by decline or withdraw.
    ChallengesRemoved {
        ids: Vec<u32>,
    },
    Pending {
        incoming: Vec<ChallengeView>,
        outgoing: Vec<ChallengeView>,
    },
    Settings {
        time: i32,
        inc: i32,
        variant: Variant,
        formula: String,
        f: Vec<String>,
    },
    Noplay {
        users: Vec<String>,
    },
    Games {
        games: Vec<GameSummary>,
    },
    History {
        user: String,
        games: Vec<GameSummary>,
    },
    Finger {
        finger: FingerView,
    },
    Help,
    /// The answer to `ping` over HTTP.
    Pong,
}

/// Who a lobby connection belongs to, in its snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct You {
    pub name: String,
    pub registered: bool,
}

/// Why a challenge went away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RemovedReason {
    Accepted,
    Declined,
    Withdrawn,
    /// A newer challenge between the same players, in the same direction.
    Replaced,
    Noplay,
    GameStarted,
    /// Its sender or receiver closed their last lobby connection.
    Gone,
}

/// Server → client lobby events, pushed as they happen.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum LobbyEvent {
    /// The first message of every connection, and again when what the user sees changes
    /// wholesale (their formula, a noplay list, a rating).
    Lobby {
        you: You,
        seeks: Vec<SeekView>,
        challenges: Vec<ChallengeView>,
    },
    SeekAdded {
        seek: SeekView,
        /// The FICS announcement, for consoles.
        text: String,
    },
    SeekRemoved {
        id: u32,
    },
    Challenge {
        challenge: ChallengeView,
        text: String,
    },
    ChallengeRemoved {
        id: u32,
        reason: RemovedReason,
    },
    GameStarted {
        game: GameStartedView,
        text: String,
    },
    Notice {
        text: String,
        /// The seeks the notice is about: those that went when their owner left the lobby,
        /// in the notice on the owner's next connection. Absent from other notices.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        seeks: Vec<SeekView>,
    },
}

impl LobbyEvent {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|_| "{\"t\":\"error\",\"code\":\"internal\"}".to_string())
    }
}

/// The answer on the lobby socket to a command that succeeded, or to a ping.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum LobbyAnswer {
    Reply {
        /// The `ref` of the message answered, if it had one.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
        /// FICS-like text for the console.
        reply: String,
        data: ReplyData,
    },
    Pong {
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<Value>,
    },
}

impl LobbyAnswer {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|_| "{\"t\":\"error\",\"code\":\"internal\"}".to_string())
    }
}

/// A successful command over HTTP (`POST /api/command`, `POST /api/lobby`); a refused one
/// is the HTTP error body with a real status.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CommandAnswer {
    /// FICS-like text for the console.
    pub reply: String,
    pub data: ReplyData,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LobbyClientMsg, &'static str> {
        parse_lobby_msg(text)
            .map(|(_, message)| message)
            .map_err(|(_, code, _)| code)
    }

    #[test]
    fn lobby_messages_parse_and_keep_their_ref() {
        let seek = r#"{"t":"seek","time":5,"inc":0,"rated":false,"color":"white","variant":"chazz","manual":true,"min":1000,"max":2000,"ref":7}"#;
        let expected = SeekRequest {
            time: Some(5),
            inc: Some(0),
            rated: Some(false),
            color: Some(Color::White),
            variant: Some(Variant::Chazz),
            manual: true,
            formula: false,
            min: Some(1000),
            max: Some(2000),
        };
        assert_eq!(
            parse_lobby_msg(seek).ok(),
            Some((Some(Value::from(7)), LobbyClientMsg::Seek(expected)))
        );
        let play = LobbyClientMsg::Play {
            seek: Some(3),
            user: None,
        };
        assert_eq!(parse(r#"{"t":"play","seek":3}"#), Ok(play));
        let all = WhichMsg {
            all: true,
            ..WhichMsg::default()
        };
        assert_eq!(
            parse(r#"{"t":"decline","all":true}"#),
            Ok(LobbyClientMsg::Decline(all))
        );
        let line = LobbyClientMsg::Command {
            line: "sought all".into(),
        };
        assert_eq!(parse(r#"{"t":"command","line":"sought all"}"#), Ok(line));
        assert_eq!(parse(r#"{"t":"ping"}"#), Ok(LobbyClientMsg::Ping {}));
        let noplay = LobbyClientMsg::Noplay {
            user: Some("bob".into()),
            on: true,
        };
        assert_eq!(parse(r#"{"t":"noplay","user":"bob"}"#), Ok(noplay));
    }

    #[test]
    fn every_lobby_message_refuses_an_unknown_field() {
        let every_kind = [
            r#"{"t":"seek"}"#,
            r#"{"t":"unseek"}"#,
            r#"{"t":"sought"}"#,
            r#"{"t":"play","seek":1}"#,
            r#"{"t":"match","user":"bob"}"#,
            r#"{"t":"accept"}"#,
            r#"{"t":"decline"}"#,
            r#"{"t":"withdraw"}"#,
            r#"{"t":"pending"}"#,
            r#"{"t":"rematch"}"#,
            r#"{"t":"games"}"#,
            r#"{"t":"history"}"#,
            r#"{"t":"finger"}"#,
            r#"{"t":"set"}"#,
            r#"{"t":"noplay"}"#,
            r#"{"t":"command","line":"games"}"#,
            r#"{"t":"ping"}"#,
        ];
        for json in every_kind {
            assert!(parse(json).is_ok(), "{json} was refused");
            let extended = format!("{},\"x\":1}}", json.trim_end_matches('}'));
            assert_eq!(parse(&extended), Err("bad_message"), "{extended} was taken");
        }
    }

    #[test]
    fn bad_lobby_messages_are_named_and_answer_their_ref() {
        assert_eq!(parse("[]"), Err("bad_message"));
        assert_eq!(parse("{"), Err("bad_message"));
        assert_eq!(parse(r#"{"x":1}"#), Err("bad_message"));
        assert_eq!(parse(r#"{"t":"fly"}"#), Err("unknown_message"));
        assert_eq!(
            parse(r#"{"t":"seek","colour":"white"}"#),
            Err("bad_message")
        );
        assert_eq!(parse(r#"{"t":"seek","time":-1}"#), Err("bad_message"));
        assert_eq!(parse(r#"{"t":"pending","x":1}"#), Err("bad_message"));
        assert_eq!(parse(r#"{"t":"ping","x":1}"#), Err("bad_message"));
        let refused = parse_lobby_msg(r#"{"t":"fly","ref":"a"}"#);
        assert_eq!(
            refused.err().map(|(reference, code, _)| (reference, code)),
            Some((Some(Value::from("a")), "unknown_message"))
        );
    }

    #[test]
    fn answers_and_events_have_their_documented_shape() {
        let reply = LobbyAnswer::Reply {
            reference: Some(Value::from(3)),
            reply: "pong".into(),
            data: ReplyData::Help,
        };
        assert_eq!(
            reply.to_json(),
            r#"{"t":"reply","ref":3,"reply":"pong","data":{"kind":"help"}}"#
        );
        let pong = LobbyAnswer::Pong { reference: None };
        assert_eq!(pong.to_json(), r#"{"t":"pong"}"#);
        let removed = LobbyEvent::ChallengeRemoved {
            id: 4,
            reason: RemovedReason::GameStarted,
        };
        assert_eq!(
            removed.to_json(),
            r#"{"t":"challenge_removed","id":4,"reason":"game_started"}"#
        );
    }
}
