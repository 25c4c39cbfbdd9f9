//! The rules layer's errors: a position or action that does not parse, and an action that
//! parses but is not legal here. Each carries a stable snake_case code for the API.

use std::fmt;

/// A position string that does not describe a valid position of the variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePositionError {
    message: String,
}

impl ParsePositionError {
    pub fn new(message: impl Into<String>) -> ParsePositionError {
        ParsePositionError {
            message: message.into(),
        }
    }

    /// The stable error code.
    pub fn code(&self) -> &'static str {
        "bad_position"
    }
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad position: {}", self.message)
    }
}

impl std::error::Error for ParsePositionError {}

/// Text that is not an action of the variant's notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseActionError {
    message: String,
}

impl ParseActionError {
    pub fn new(message: impl Into<String>) -> ParseActionError {
        ParseActionError {
            message: message.into(),
        }
    }

    /// The stable error code.
    pub fn code(&self) -> &'static str {
        "bad_notation"
    }
}

impl fmt::Display for ParseActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad action notation: {}", self.message)
    }
}

impl std::error::Error for ParseActionError {}

/// Why a well-formed action cannot be played in the current position.
///
/// The position is left unchanged whenever this is returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalAction {
    /// The game has already ended.
    GameOver,
    /// There is no piece on the square the action starts from.
    EmptySquare(String),
    /// The piece on that square belongs to the side not to move.
    NotYourPiece(String),
    /// A capture is available, and the rules make capturing compulsory.
    MustCapture,
    /// The action would leave (or put) the mover's own king in check.
    KingInCheck,
    /// A rule specific to the variant forbids it: a stable code and an explanation.
    Rule { code: &'static str, message: String },
    /// The piece cannot do that (wrong geometry, blocked path, occupied target…).
    NotLegal(String),
}

impl IllegalAction {
    /// A variant-specific reason.
    pub fn rule(code: &'static str, message: impl Into<String>) -> IllegalAction {
        IllegalAction::Rule {
            code,
            message: message.into(),
        }
    }

    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            IllegalAction::GameOver => "game_over",
            IllegalAction::EmptySquare(_) => "empty_square",
            IllegalAction::NotYourPiece(_) => "not_your_piece",
            IllegalAction::MustCapture => "must_capture",
            IllegalAction::KingInCheck => "king_in_check",
            IllegalAction::Rule { code, .. } => code,
            IllegalAction::NotLegal(_) => "illegal_action",
        }
    }
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalAction::GameOver => f.write_str("the game is over"),
            IllegalAction::EmptySquare(sq) => write!(f, "there is no piece on {sq}"),
            IllegalAction::NotYourPiece(sq) => write!(f, "the piece on {sq} is not yours"),
            IllegalAction::MustCapture => f.write_str("you must capture"),
            IllegalAction::KingInCheck => f.write_str("that would leave your king in check"),
            IllegalAction::Rule { message, .. } => f.write_str(message),
            IllegalAction::NotLegal(action) => write!(f, "{action} is not a legal action here"),
        }
    }
}

impl std::error::Error for IllegalAction {}

/// An action refused by [`super::Rules::play`], with the unchanged position handed back.
#[derive(Clone, Debug)]
pub struct PlayError<P> {
    pub position: P,
    pub reason: IllegalAction,
}

impl<P> fmt::Display for PlayError<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.reason.fmt(f)
    }
}

/// Text that failed to parse, or an action that parsed but is illegal: what the layers above
/// the engine see when they hand it a client's action string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    Parse(ParseActionError),
    Illegal(IllegalAction),
}

impl ActionError {
    /// The stable snake_case code.
    pub fn code(&self) -> &'static str {
        match self {
            ActionError::Parse(e) => e.code(),
            ActionError::Illegal(e) => e.code(),
        }
    }
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::Parse(e) => e.fmt(f),
            ActionError::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ActionError {}

impl From<ParseActionError> for ActionError {
    fn from(e: ParseActionError) -> Self {
        ActionError::Parse(e)
    }
}

impl From<IllegalAction> for ActionError {
    fn from(e: IllegalAction) -> Self {
        ActionError::Illegal(e)
    }
}
