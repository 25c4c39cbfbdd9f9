//! What the lobby knows of a player as records: ratings and their history, lobby settings,
//! the last game (for a rematch).

use crate::rating::Glicko;
use crate::rules::Variant;
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

/// Glicko-2 values as stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingValues {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// One user's rating in one variant, with their rated results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingRecord {
    pub variant: Variant,
    #[serde(flatten)]
    pub values: RatingValues,
    pub games: i32,
    pub wins: i32,
    pub losses: i32,
    pub draws: i32,
}

/// A rating right after one rated game.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingHistoryEntry {
    pub variant: Variant,
    pub game_id: Uuid,
    #[serde(flatten)]
    pub values: RatingValues,
    pub created_at: DateTime<Utc>,
}

/// A user's lobby settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UserSettings {
    pub time_minutes: i32,
    pub increment_seconds: i32,
    pub variant: Variant,
    /// '' when unset.
    pub formula: String,
    /// f1..f9 ('' when unset); may be shorter than 9.
    pub f: Vec<String>,
}

impl Default for UserSettings {
    fn default() -> Self {
        UserSettings {
            time_minutes: 5,
            increment_seconds: 0,
            variant: Variant::Suicide,
            formula: String::new(),
            f: Vec::new(),
        }
    }
}

impl From<RatingValues> for Glicko {
    fn from(v: RatingValues) -> Self {
        Glicko {
            rating: v.rating,
            deviation: v.deviation,
            volatility: v.volatility,
        }
    }
}

impl From<Glicko> for RatingValues {
    fn from(g: Glicko) -> Self {
        RatingValues {
            rating: g.rating,
            deviation: g.deviation,
            volatility: g.volatility,
        }
    }
}
/// A user's most recent game, as the store's `last_game_of` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastGame {
    pub game_id: Uuid,
    pub variant: Variant,
    /// (initial, increment) in milliseconds; None without a clock.
    pub clock_ms: Option<(i64, i64)>,
    pub rated: bool,
    pub white_id: Uuid,
    pub black_id: Uuid,
}
