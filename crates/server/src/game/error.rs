//! Why the game layer refuses a request ([`GameError`], each with a stable code for
//! clients), and what a player may ask of a game besides an action ([`PlayerRequest`]).

use super::MAX_OPEN_CHALLENGES;
use crate::rules::ActionError;
use crate::store::StoreError;
use std::fmt;

/// Why the game layer refused a request. Each has a stable snake_case code.
#[derive(Debug)]
pub enum GameError {
    NotFound,
    /// The game's actor has stopped (the server is shutting down).
    Unavailable,
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
    /// A player (named) already has [`super::GameSettings::max_games_in_progress`] games in
    /// progress.
    TooManyGames {
        player: String,
        limit: usize,
    },
    /// The player already has [`super::GameSettings::max_computer_games_per_player`] games
    /// against the computer in progress.
    TooManyComputerGames {
        limit: usize,
    },
    /// The computer plays [`super::GameSettings::max_computer_games`] games already, or has
    /// no account at the level asked for.
    ComputerBusy,
    /// A chat line the rules of the chat refuse.
    Chat(super::state::ChatRefusal),
    Store(StoreError),
}

impl GameError {
    /// The stable error code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            GameError::NotFound => "game_not_found",
            GameError::Unavailable => "game_unavailable",
            GameError::NotAPlayer => "not_a_player",
            GameError::NotStarted => "game_not_started",
            GameError::GameOver => "game_over",
            GameError::AlreadyStarted => "game_already_started",
            GameError::OwnGame => "own_game",
            GameError::NotYourTurn => "not_your_turn",
            GameError::WrongPly { .. } => "wrong_ply",
            GameError::Duplicate { .. } => "duplicate_action",
            GameError::Action(e) => e.code(),
            GameError::TimeOut => "time_out",
            GameError::NotAllowed(code) => code,
            GameError::TooManyChallenges => "too_many_challenges",
            GameError::TooManyGames { .. } => "too_many_games_in_progress",
            GameError::TooManyComputerGames { .. } => "too_many_computer_games",
            GameError::ComputerBusy => "computer_busy",
            GameError::Chat(refusal) => refusal.code(),
            GameError::Store(e) if e.is_unavailable() => "store_unavailable",
            GameError::Store(_) => "storage_failed",
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::NotFound => f.write_str("no such game"),
            GameError::Unavailable => f.write_str("the game is not available right now"),
            GameError::NotAPlayer => f.write_str("you are not playing in this game"),
            GameError::NotStarted => f.write_str("the game has not started"),
            GameError::GameOver => f.write_str("the game is over"),
            GameError::AlreadyStarted => f.write_str("the game already has both players"),
            GameError::OwnGame => f.write_str("you cannot accept your own challenge"),
            GameError::NotYourTurn => f.write_str("it is not your turn"),
            GameError::WrongPly { expected } => {
                write!(f, "that action is not for the next ply ({expected})")
            }
            GameError::Duplicate { ply } => write!(f, "ply {ply} was already played"),
            GameError::Action(e) => e.fmt(f),
            GameError::TimeOut => f.write_str("your time ran out"),
            GameError::NotAllowed(code) => write!(f, "not allowed now ({code})"),
            GameError::TooManyChallenges => write!(
                f,
                "you already have {MAX_OPEN_CHALLENGES} open challenges: withdraw one or wait \
                 until one is taken"
            ),
            GameError::TooManyGames { player, limit } => write!(
                f,
                "{player} already has {limit} games in progress (open challenges included): \
                 finish or withdraw one first"
            ),
            GameError::TooManyComputerGames { limit } => write!(
                f,
                "you already have {limit} games against the computer in progress: finish one \
                 first"
            ),
            GameError::ComputerBusy => {
                f.write_str("the computer cannot take on another game right now; try again shortly")
            }
            GameError::Chat(refusal) => refusal.fmt(f),
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

impl From<StoreError> for GameError {
    fn from(e: StoreError) -> Self {
        GameError::Store(e)
    }
}

impl From<ActionError> for GameError {
    fn from(e: ActionError) -> Self {
        GameError::Action(e)
    }
}

/// What a player asks of a game besides playing an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Give the opponent [`crate::game::state::MORE_TIME_MS`] more.
    GiveMoreTime,
}
