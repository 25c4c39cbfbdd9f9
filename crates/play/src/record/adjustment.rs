//! Takebacks and gifts of more time as records: what the game asks the store to write, and
//! what a game's record lists.

use crate::rules::Color;
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

/// One action taken back, as recorded with its takeback.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TakenBackAction {
    pub ply: i32,
    pub machine: String,
    pub human: String,
}

/// A takeback to commit: the game goes back to `ply` actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewTakeback {
    pub game_id: Uuid,
    /// Whose takeback it is (the side to move after it).
    pub by: Color,
    /// The number of actions left.
    pub ply: i32,
    /// The actions removed, oldest first: plies `ply + 1` onwards, to the last one stored.
    pub taken_back: Vec<TakenBackAction>,
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
}

/// A gift of more time to commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMoreTime {
    pub game_id: Uuid,
    pub by: Color,
    pub to: Color,
    pub ms: i64,
    /// The number of actions played when it was given.
    pub ply: i32,
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
}

/// A stored takeback or gift of more time, as the game's record lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AdjustmentRecord {
    #[serde(skip)]
    pub game_id: Uuid,
    /// `takeback` or `more_time`.
    #[cfg_attr(feature = "openapi", schema(example = "takeback"))]
    pub kind: String,
    /// Who asked for the takeback (it is their turn again after it) or gave the time.
    #[cfg_attr(feature = "openapi", schema(example = "white"))]
    pub by: String,
    /// More time: who received it.
    pub to: Option<String>,
    /// More time: the milliseconds given.
    pub ms: Option<i64>,
    /// The number of actions right after it: the ply a takeback went back to, or the ply
    /// after which the time was given.
    pub ply: i32,
    /// Takeback: the actions taken back, oldest first (`[{"ply","machine","human"}]`).
    pub taken_back: Option<serde_json::Value>,
    /// Both clocks right after it; null without a clock.
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
    pub created_at: DateTime<Utc>,
}
