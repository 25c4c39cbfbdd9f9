//! Why a game refuses a request ([`Refusal`], each with a stable code for clients), and what
//! a player may ask of a game besides an action ([`PlayerRequest`]).
//!
//! A refusal is decided by the rules of play alone, so it is the same on every server; what
//! only a server can meet (a game it does not hold, a database away) is the server's own
//! error, which wraps this one.

use crate::rules::ActionError;
use std::fmt;

/// The most open challenges (games waiting for an opponent) one player may hold at once.
pub const MAX_OPEN_CHALLENGES: usize = 20;

/// Why a game refused a request. Each has a stable snake_case code.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    NotAPlayer,
    NotStarted,
    GameOver,
    AlreadyStarted,
    OwnGame,
    NotYourTurn,
    /// The action was meant for another ply than the next one.
    WrongPly {
        expected: u32,
    },
    /// The same action was already applied at that ply.
    Duplicate {
        ply: u32,
    },
    Action(ActionError),
    /// The player's time had run out.
    TimeOut,
    /// Abort, claims and offers that the game's state does not allow.
    NotAllowed(&'static str),
    /// The player already holds [`MAX_OPEN_CHALLENGES`] open challenges.
    TooManyChallenges,
    /// A player (named) already has [`crate::GameSettings::max_games_in_progress`] games in
    /// progress.
    TooManyGames {
        player: String,
        limit: usize,
    },
    /// The player already has [`crate::GameSettings::max_computer_games_per_player`] games
    /// against the computer in progress.
    TooManyComputerGames {
        limit: usize,
    },
    /// The computer plays [`crate::GameSettings::max_computer_games`] games already, or has
    /// no account at the level asked for.
    ComputerBusy,
    /// A chat line the rules of the chat refuse.
    Chat(crate::state::ChatRefusal),
}

impl Refusal {
    /// The stable error code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::NotAPlayer => "not_a_player",
            Refusal::NotStarted => "game_not_started",
            Refusal::GameOver => "game_over",
            Refusal::AlreadyStarted => "game_already_started",
            Refusal::OwnGame => "own_game",
            Refusal::NotYourTurn => "not_your_turn",
            Refusal::WrongPly { .. } => "wrong_ply",
            Refusal::Duplicate { .. } => "duplicate_action",
            Refusal::Action(e) => e.code(),
            Refusal::TimeOut => "time_out",
            Refusal::NotAllowed(code) => code,
            Refusal::TooManyChallenges => "too_many_challenges",
            Refusal::TooManyGames { .. } => "too_many_games_in_progress",
            Refusal::TooManyComputerGames { .. } => "too_many_computer_games",
            Refusal::ComputerBusy => "computer_busy",
            Refusal::Chat(refusal) => refusal.code(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotAPlayer => f.write_str("you are not playing in this game"),
            Refusal::NotStarted => f.write_str("the game has not started"),
            Refusal::GameOver => f.write_str("the game is over"),
            Refusal::AlreadyStarted => f.write_str("the game already has both players"),
            Refusal::OwnGame => f.write_str("you cannot accept your own challenge"),
            Refusal::NotYourTurn => f.write_str("it is not your turn"),
            Refusal::WrongPly { expected } => {
                write!(f, "that action is not for the next ply ({expected})")
            }
            Refusal::Duplicate { ply } => write!(f, "ply {ply} was already played"),
            Refusal::Action(e) => e.fmt(f),
            Refusal::TimeOut => f.write_str("your time ran out"),
            Refusal::NotAllowed(code) => write!(f, "not allowed now ({code})"),
            Refusal::TooManyChallenges => write!(
                f,
                "you already have {MAX_OPEN_CHALLENGES} open challenges: withdraw one or wait \
                 until one is taken"
            ),
            Refusal::TooManyGames { player, limit } => write!(
                f,
                "{player} already has {limit} games in progress (open challenges included): \
                 finish or withdraw one first"
            ),
            Refusal::TooManyComputerGames { limit } => write!(
                f,
                "you already have {limit} games against the computer in progress: finish one \
                 first"
            ),
            Refusal::ComputerBusy => {
                f.write_str("the computer cannot take on another game right now; try again shortly")
            }
            Refusal::Chat(refusal) => refusal.fmt(f),
        }
    }
}

impl std::error::Error for Refusal {}

impl From<ActionError> for Refusal {
    fn from(e: ActionError) -> Self {
        Refusal::Action(e)
    }
}

/// What a player asks of a game besides playing an action. Serialized (snake_case) when a
/// node of a cluster forwards it to the node that runs the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerRequest {
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Abort,
    OfferRematch,
    AcceptRematch,
    DeclineRematch,
    /// Claim the win against an opponent who left.
    ClaimVictory,
    /// Call the game a draw against an opponent who left.
    ClaimDraw,
    OfferTakeback,
    AcceptTakeback,
    DeclineTakeback,
    /// Give the opponent [`crate::state::MORE_TIME_MS`] more.
    GiveMoreTime,
}

impl From<crate::replay::ReplayError> for Refusal {
    fn from(e: crate::replay::ReplayError) -> Self {
        use crate::replay::ReplayError;
        match e {
            ReplayError::VariantNotPlayable(_) => Refusal::NotAllowed("variant_not_playable"),
            ReplayError::BadSetup(_) | ReplayError::NoSeed => Refusal::NotAllowed("bad_setup"),
            ReplayError::Action { reason, .. } => Refusal::Action(reason),
        }
    }
}
