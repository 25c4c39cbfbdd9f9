//! The wire contract: every message of the game sockets (`/ws/game/{id}`, `/ws/games`) and
//! the lobby socket (`/ws/lobby`), as serde types, and the one error event all of them answer
//! refused input with. `docs/protocol.md` describes the same messages for client authors.
//!
//! Every message is a JSON object whose `"t"` field names its type. This module depends only
//! on the rules engine and serde, so the game layer, the lobby and the web layer can all use it.

pub mod game;
pub mod lobby;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Why a client message was refused. Nothing changed.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorEvent<'a> {
    pub t: &'static str,
    pub code: &'a str,
    pub message: &'a str,
    /// The `ref` of the lobby command refused, echoed so that its sender hears.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<serde_json::Value>,
}

impl<'a> ErrorEvent<'a> {
    pub fn new(code: &'a str, message: &'a str) -> ErrorEvent<'a> {
        ErrorEvent {
            t: "error",
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
        serde_json::to_string(self)
            .unwrap_or_else(|_| "{\"t\":\"error\",\"code\":\"internal\"}".into())
    }
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
