//! What the game sockets show of a game: the snapshot's [`GameView`] and the values events
//! share with it (the clock reading [`ClockView`], a played action [`MoveView`]).

use crate::record::{ColorChoice, GameStatus, TimeControl};
use crate::rules::{Color, Outcome, Snapshot, Variant};
use serde::Serialize;
use uuid::Uuid;

/// Everything a client needs to show a game, for one viewer: the `game` of a snapshot.
#[derive(Clone, Debug, Serialize)]
pub struct GameView<'a> {
    pub id: Uuid,
    pub variant: Variant,
    pub status: GameStatus,
    /// The players' names, once their seats are taken.
    pub white: Option<&'a str>,
    pub black: Option<&'a str>,
    pub creator: &'a str,
    pub color_choice: ColorChoice,
    /// None for a game without a clock.
    pub time_control: Option<TimeControl>,
    pub rated: bool,
    pub clock: Option<ClockView>,
    pub moves: &'a [MoveView],
    /// The rules engine's whole snapshot: boards, pieces, turn, legal actions, outcome.
    pub rules: Snapshot,
    /// The side with a draw (or rematch) offer standing.
    pub draw_offer: Option<Color>,
    pub rematch_offer: Option<Color>,
    /// The side whose takeback offer stands.
    pub takeback_offer: Option<Color>,
    /// The rematch's game, once one was agreed.
    pub rematch_game: Option<Uuid>,
    pub outcome: Option<Outcome>,
    /// The viewer's colour, if they play in this game.
    pub you: Option<Color>,
    pub spectators: u32,
    /// Dice variants: the hash the seed is held to once revealed.
    pub dice_commitment: Option<&'a str>,
    /// Revealed once the game is over.
    pub dice_seed: Option<String>,
    /// Milliseconds left for the pending first move before the game is aborted.
    pub first_move_deadline_ms: Option<u64>,
    /// Seats whose player has no open connection right now.
    pub absent: Vec<Color>,
    /// For each absent seat, milliseconds until its opponent may claim against it (0 once
    /// they may), as `player_gone` says when the player leaves.
    pub claim_after_ms: SeatTimes,
    /// The last lines (up to 50) of the viewer's chat room, oldest first
    /// (`super::chat`).
    pub chat: Vec<&'a super::ChatLine>,
}

/// One played action as kept in memory and shown in snapshots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    pub ply: u32,
    pub machine: String,
    pub human: String,
}

/// A number of milliseconds per seat, where it applies (`{"black":1200}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeatTimes {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black: Option<u64>,
}

/// What a client is told about the clock: remaining times at the moment the message is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    pub white_ms: u64,
    pub black_ms: u64,
    /// The side whose clock is running, if any.
    pub running: Option<Color>,
}
