//! The types of games and their records as the store hands them out: what a creator asks
//! for, statuses, time controls, new rows, ends, loaded records and summaries.

use crate::rules::{EndReason, Outcome, Variant};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// What the creator of a game asked for. The seats actually taken are in
/// [`GameRecord::white_id`] / [`GameRecord::black_id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    /// Colours are drawn when the game starts.
    Random,
    /// The creator plays White.
    White,
    /// The creator plays Black.
    Black,
}

impl ColorChoice {
    /// Every choice, in a fixed order.
    pub const ALL: [ColorChoice; 3] = [ColorChoice::Random, ColorChoice::White, ColorChoice::Black];

    /// The stable id stored in `game.color_choice`.
    pub fn as_str(self) -> &'static str {
        match self {
            ColorChoice::Random => "random",
            ColorChoice::White => "white",
            ColorChoice::Black => "black",
        }
    }
}

/// Where a game is in its life. Only the store's writers move it forward:
/// `waiting` → `active` (the store's `start_game`) → `finished`
/// (the store's `finish_game`), or `waiting`/`active` → `aborted`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// Created, waiting for an opponent.
    Waiting,
    /// Both seats taken, being played.
    Active,
    /// Over, with a result.
    Finished,
    /// Called off; counts for nobody.
    Aborted,
}

impl GameStatus {
    /// Every status, in life order.
    pub const ALL: [GameStatus; 4] = [
        GameStatus::Waiting,
        GameStatus::Active,
        GameStatus::Finished,
        GameStatus::Aborted,
    ];

    /// The stable id stored in `game.status`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
            GameStatus::Aborted => "aborted",
        }
    }

    /// Finished or aborted: nothing more will happen, and secrets such as the dice seed may be
    /// shown.
    pub fn is_over(self) -> bool {
        matches!(self, GameStatus::Finished | GameStatus::Aborted)
    }
}

/// Implements `Display` (the id) and `FromStr` (back from the id, through `ALL`) for an enum
/// with stable string ids and an `as_str`, and defines its parse error.
macro_rules! string_id {
    ($ty:ident, $error:ident, $what:literal) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[doc = concat!("A ", $what, " id that is not one of [`", stringify!($ty), "::ALL`].")]
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $error(pub String);

        impl fmt::Display for $error {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let known: Vec<&str> = $ty::ALL.iter().map(|v| v.as_str()).collect();
                write!(
                    f,
                    "unknown {} `{}` (known: {})",
                    $what,
                    self.0,
                    known.join(", ")
                )
            }
        }

        impl std::error::Error for $error {}

        impl FromStr for $ty {
            type Err = $error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| $error(s.to_string()))
            }
        }
    };
}

string_id!(ColorChoice, ParseColorChoiceError, "colour choice");
string_id!(GameStatus, ParseGameStatusError, "game status");

/// A time control: each side starts with `initial_ms` and gains `increment_ms` per action.
/// The one type for it in every layer: the store keeps it, the game layer's clocks run it
/// (`game::clock`, which also holds the rule of what a game may be played with), the API
/// shows it. The columns are `bigint`; values beyond them are refused before they get here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TimeControl {
    pub initial_ms: u64,
    pub increment_ms: u64,
}

/// Everything needed to create a game row; it starts as [`GameStatus::Waiting`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// Chosen by the caller, so the game actor can exist before the row does.
    pub game_id: Uuid,
    pub variant: Variant,
    pub creator_id: Uuid,
    /// Seats already taken at creation (usually the creator's, when a colour was chosen).
    pub white_id: Option<Uuid>,
    pub black_id: Option<Uuid>,
    pub color_choice: ColorChoice,
    /// `None`: no clock.
    pub clock: Option<TimeControl>,
    pub rated: bool,
    /// Position notation to start from; `None` for the variant's standard start.
    pub start_position: Option<String>,
    /// Hex SHA-256 of `dice_seed`, for dice variants.
    pub dice_commitment: Option<String>,
    /// Secret until the game is over.
    pub dice_seed: Option<Vec<u8>>,
}

/// One action to append. `ply` is 1-based: the first action of a game is ply 1.
#[derive(Clone, Debug, PartialEq)]
pub struct NewAction {
    pub game_id: Uuid,
    pub ply: i32,
    /// The variant's machine notation, replayed through the rules engine on load.
    pub machine: String,
    /// The human notation shown in move lists.
    pub human: String,
    /// White's remaining time right after the action; `None` without a clock.
    pub white_ms: Option<i64>,
    /// Black's remaining time right after the action; `None` without a clock.
    pub black_ms: Option<i64>,
    /// The action's record beyond its notation, when it has one: the dice it rolled and
    /// what it did besides moving (a capture, a promotion), as the snapshot's last action.
    pub rolls: Option<JsonText>,
}

/// A value written as JSON text, for a jsonb column. Made only by serializing a value, so
/// it is always valid JSON: one bad row would fail the batch that carries other games'
/// moves. A live game records the last action's rolls and effects this way on every move
/// that has any, written once rather than built as a [`serde_json::Value`] tree first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonText(String);

impl JsonText {
    /// `value` as JSON text.
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<JsonText, serde_json::Error> {
        serde_json::to_string(value).map(JsonText)
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The seats of a waiting game as it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameStart {
    pub game_id: Uuid,
    pub white_id: Uuid,
    pub black_id: Uuid,
    pub started_at: DateTime<Utc>,
}

/// The end of a game: `aborted` when the reason is [`EndReason::Aborted`], `finished`
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub game_id: Uuid,
    pub outcome: Outcome,
    pub ended_at: DateTime<Utc>,
    /// The players of a rated game that was played, whose ratings the end updates in the
    /// same commit; None for unrated or aborted games.
    pub rated: Option<RatedSeats>,
}

/// Who a rated game's end rates, and in which variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedSeats {
    pub variant: Variant,
    pub white_id: Uuid,
    pub black_id: Uuid,
}

impl GameEnd {
    /// The status the game is left in.
    pub fn status(&self) -> GameStatus {
        if self.outcome.reason == EndReason::Aborted {
            GameStatus::Aborted
        } else {
            GameStatus::Finished
        }
    }
}

/// Who is in an unfinished game (the store's `unfinished_game_players`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnfinishedGame {
    pub game_id: Uuid,
    /// Waiting or active.
    pub status: GameStatus,
    pub creator_id: Uuid,
    pub white_id: Option<Uuid>,
    pub black_id: Option<Uuid>,
}

/// A stored action.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ActionRecord {
    pub ply: i32,
    pub machine: String,
    pub human: String,
    pub white_ms: Option<i64>,
    pub black_ms: Option<i64>,
    pub rolls: Option<serde_json::Value>,
    pub created_at: DateTime<Utc>,
}

/// A whole game: its settings, seats (with usernames), state, and every action in ply order.
/// Enough to rebuild the live game by replaying the actions from the start position.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameRecord {
    pub game_id: Uuid,
    pub variant: Variant,
    pub creator_id: Uuid,
    pub white_id: Option<Uuid>,
    pub black_id: Option<Uuid>,
    pub white_name: Option<String>,
    pub black_name: Option<String>,
    pub creator_name: String,
    pub color_choice: ColorChoice,
    pub clock: Option<TimeControl>,
    pub rated: bool,
    pub status: GameStatus,
    /// How many times a server has resumed the game after a restart or brought it back after
    /// it hibernated (see the store's `resume_running_games`,
    /// the store's `wake_game`).
    #[serde(skip)]
    pub restarts: u32,
    /// `Some` exactly when the game is over.
    pub outcome: Option<Outcome>,
    pub start_position: Option<String>,
    pub dice_commitment: Option<String>,
    /// Never serialized: the seed must stay secret while the game runs, so the web layer
    /// decides when to reveal it (once [`GameStatus::is_over`]).
    #[serde(skip)]
    pub dice_seed: Option<Vec<u8>>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// Serialized by the web layer in its own form (each action's dice split into rolls and
    /// effects), not as stored.
    #[serde(skip_serializing)]
    pub actions: Vec<ActionRecord>,
    /// Takebacks and gifts of more time, in order (`game_adjustment`). The actions a
    /// takeback removed are no longer in `actions`.
    pub adjustments: Vec<super::AdjustmentRecord>,
}

impl GameRecord {
    /// The dice seed, but only once the game is over: while it runs the seed would let a
    /// player predict the dice. What the web layer should show next to the commitment.
    pub fn revealed_dice_seed(&self) -> Option<&[u8]> {
        if self.status.is_over() {
            self.dice_seed.as_deref()
        } else {
            None
        }
    }
}

/// A finished game's result from one player's side: what a history can be filtered by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PlayerResult {
    Win,
    Loss,
    Draw,
}

impl PlayerResult {
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerResult::Win => "win",
            PlayerResult::Loss => "loss",
            PlayerResult::Draw => "draw",
        }
    }
}

/// A player's finished games of one variant, counted by result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VariantResults {
    pub variant: Variant,
    pub finished: i64,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
}

/// One line of a user's game history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GameSummary {
    pub game_id: Uuid,
    pub variant: Variant,
    pub white_name: Option<String>,
    pub black_name: Option<String>,
    pub status: GameStatus,
    pub outcome: Option<Outcome>,
    pub clock: Option<TimeControl>,
    pub rated: bool,
    pub created_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    /// How many actions were played.
    pub action_count: i64,
}
