//! The wire contract: every message of the game sockets (`/ws/game/{id}`, `/ws/games`) and
//! the lobby socket (`/ws/lobby`), as serde types, and the messages all of them share: the one
//! error event every socket answers refused input with ([`ErrorEvent`]) and [`Pong`].
//! `docs/protocol.md` describes the same messages for client authors.
//!
//! Every message is a JSON object whose `"t"` field names its type. This module depends only
//! on the rules engine's types, the records ([`crate::record`]) and serde, so the game state,
//! the lobby, the server's web layer and any client can all use it. The few messages written by hand for speed are
//! held to these types' serde output byte for byte by tests.

pub mod game;
pub mod lobby;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a client message was refused. Nothing changed.
/// `{"t":"error","code":"…","message":"…"}`, with `"ref"` when it answers a lobby command.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename = "error")]
pub struct ErrorEvent<'a> {
    /// Stable snake_case, for programs.
    pub code: &'a str,
    /// Text for people.
    pub message: &'a str,
    /// The `ref` of the lobby command refused, echoed so that its sender hears.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<serde_json::Value>,
}

impl<'a> ErrorEvent<'a> {
    pub fn new(code: &'a str, message: &'a str) -> ErrorEvent<'a> {
        ErrorEvent {
            code,
            message,
            reference: None,
        }
    }

    /// The error as the answer to the message that carried `reference` (if any).
    pub fn answering(self, reference: Option<serde_json::Value>) -> ErrorEvent<'a> {
        ErrorEvent { reference, ..self }
    }

    pub fn to_json(&self) -> String {
        to_json(self)
    }
}

/// The answer to a client's `ping`, on every socket: `{"t":"pong"}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "t", rename = "pong")]
pub struct Pong {}

impl Pong {
    pub fn to_json(self) -> String {
        to_json(&self)
    }
}

/// What a client hears if a server message could not be serialized: an [`ErrorEvent`].
const INTERNAL_ERROR: &str = r#"{"t":"error","code":"internal","message":"internal error"}"#;

/// A server message as its JSON text. Serializing these plain types cannot fail; were it ever
/// to, the client hears of an internal error rather than nothing.
pub(crate) fn to_json<T: Serialize + ?Sized>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_else(|_| INTERNAL_ERROR.into())
}

/// Parses a message tagged by its `"t"` field.
pub(crate) fn parse_tagged<T: DeserializeOwned>(text: &str) -> Result<T, (&'static str, String)> {
    // Straight into the message: one parse and no intermediate map for every move. Only a
    // refused frame is parsed again, to say what is wrong with it.
    if let Ok(message) = serde_json::from_str(text) {
        return Ok(message);
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ("bad_message", format!("not JSON: {e}")))?;
    let kind = value
        .get("t")
        .and_then(|t| t.as_str())
        .ok_or((
            "bad_message",
            "a message needs a string field \"t\"".to_string(),
        ))?
        .to_string();
    serde_json::from_value(value).map_err(|e| {
        if e.to_string().contains("unknown variant") {
            ("unknown_message", format!("unknown message type `{kind}`"))
        } else {
            ("bad_message", format!("malformed `{kind}` message: {e}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_event_is_tagged_and_names_its_code_and_message() {
        let error = ErrorEvent::new("not_your_turn", "it is not your turn");
        assert_eq!(
            error.to_json(),
            r#"{"t":"error","code":"not_your_turn","message":"it is not your turn"}"#
        );
        let answer = error.answering(Some(serde_json::json!(7)));
        assert_eq!(
            answer.to_json(),
            r#"{"t":"error","code":"not_your_turn","message":"it is not your turn","ref":7}"#
        );
    }

    #[test]
    fn a_pong_is_its_tag_alone() {
        assert_eq!(Pong {}.to_json(), r#"{"t":"pong"}"#);
    }

    #[test]
    fn the_fallback_error_is_an_error_event() {
        assert_eq!(
            INTERNAL_ERROR,
            ErrorEvent::new("internal", "internal error").to_json()
        );
    }
}
