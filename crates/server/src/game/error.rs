//! Why the game layer did not carry out a request ([`GameError`], each with a stable code for
//! clients): a refusal by the game's own rules ([`Refusal`], from the pure core), or what only
//! a server meets (a game it does not hold, an actor gone, a database away).

use crate::play::Refusal;
use crate::rules::ActionError;
use crate::store::StoreError;
use std::fmt;

pub use crate::play::PlayerRequest;

/// Why the game layer did not carry out a request. Each has a stable snake_case code.
#[derive(Debug)]
pub enum GameError {
    /// No game has that id.
    NotFound,
    /// The game's actor has stopped (the server is shutting down).
    Unavailable,
    /// Another node of the cluster runs the game (its lease is live there).
    Elsewhere,
    /// The node that runs the game refused, with this code and message (a request this
    /// node forwarded to it).
    Remote {
        code: &'static str,
        message: String,
    },
    /// The game's rules refused it; nothing changed.
    Refused(Refusal),
    Store(StoreError),
}

impl GameError {
    /// The stable error code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            GameError::NotFound => "game_not_found",
            GameError::Unavailable => "game_unavailable",
            GameError::Elsewhere => "game_elsewhere",
            GameError::Remote { code, .. } => code,
            GameError::Refused(refusal) => refusal.code(),
            // Another node runs the game now: the client reconnects, and lands on it.
            GameError::Store(StoreError::Fenced { .. }) => "game_moved",
            GameError::Store(e) if e.is_unavailable() => "store_unavailable",
            GameError::Store(_) => "storage_failed",
        }
    }

    /// The refusal, when the game's rules refused.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            GameError::Refused(refusal) => Some(refusal),
            _ => None,
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::NotFound => f.write_str("no such game"),
            GameError::Unavailable => f.write_str("the game is not available right now"),
            GameError::Remote { message, .. } => f.write_str(message),
            GameError::Elsewhere => {
                f.write_str("the game runs on another server of this site; try again shortly")
            }
            GameError::Refused(refusal) => refusal.fmt(f),
            GameError::Store(StoreError::Fenced { .. }) => f.write_str(
                "the game moved to another server: nothing was done; reconnect and try again",
            ),
            // Store details are logged, not sent.
            GameError::Store(e) if e.is_unavailable() => f.write_str(
                "the database is unavailable: nothing was done, and no clock runs until it is \
                 back; try again shortly",
            ),
            GameError::Store(_) => f.write_str("the action could not be stored; try again"),
        }
    }
}

impl std::error::Error for GameError {}

impl GameError {
    /// A refusal the node that runs the game sent back: its code (one of this binary's, so a
    /// small set, kept once each) and message.
    pub fn remote(code: &str, message: String) -> GameError {
        GameError::Remote {
            code: intern_code(code, "game_unavailable"),
            message,
        }
    }
}

/// `code` as a `&'static str`: each distinct code is kept once. Codes come from the other
/// nodes, which run this binary, so there are few; past 256 a new code reads `fallback`.
pub(crate) fn intern_code(code: &str, fallback: &'static str) -> &'static str {
    static CODES: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<&'static str>>> =
        std::sync::OnceLock::new();
    let codes = CODES.get_or_init(Default::default);
    let mut codes = codes.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = codes.get(code) {
        return known;
    }
    if codes.len() >= 256 {
        return fallback;
    }
    let kept: &'static str = Box::leak(code.to_string().into_boxed_str());
    codes.insert(kept);
    kept
}

impl From<StoreError> for GameError {
    fn from(e: StoreError) -> Self {
        GameError::Store(e)
    }
}

impl From<Refusal> for GameError {
    fn from(refusal: Refusal) -> Self {
        GameError::Refused(refusal)
    }
}

impl From<ActionError> for GameError {
    fn from(e: ActionError) -> Self {
        GameError::Refused(Refusal::Action(e))
    }
}
