//! Who plays a game and on what terms, and what a game tells the lobby as it starts and ends.

use crate::clock::TimeControl;
use crate::rules::{Outcome, Variant};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A player as the game layer knows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub user_id: Uuid,
    pub name: String,
}

/// What the registry tells its listeners (the lobby) about games starting and ending.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum GameNotice {
    /// Both seats are taken and the game is on.
    Started {
        game_id: Uuid,
        white: Seat,
        black: Seat,
        terms: GameTerms,
    },
    /// A started game is over (ratings, if rated, are already stored).
    Ended {
        game_id: Uuid,
        white: Seat,
        black: Seat,
        rated: bool,
        outcome: Outcome,
    },
}

/// What a new game looks like before anyone has moved.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameTerms {
    pub variant: Variant,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
}
