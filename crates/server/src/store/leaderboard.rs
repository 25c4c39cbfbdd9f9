//! The leaderboard: each variant's highest ratings among people (registered, enabled, not
//! the computer), from `rating`.
//!
//! Provisional ratings are left out, as lichess leaves them out: a rating of a few games says
//! little about the player, and one lucky win would put a newcomer at the top.

use super::{Store, StoreError};
use crate::play::rating::PROVISIONAL_DEVIATION;
use crate::rules::Variant;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The most players one leaderboard request may ask for.
pub const LEADERBOARD_MAX: i64 = 100;

/// One line of a variant's leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LeaderboardEntry {
    /// 1 for the highest rating; players with equal ratings are ranked by name.
    pub rank: i64,
    /// The player's name as they spelled it.
    pub username: String,
    /// Glicko-2 rating and deviation on the Glicko scale.
    pub rating: f64,
    pub deviation: f64,
    /// Rated games in this variant, and their results.
    pub games: i32,
    pub wins: i32,
    pub draws: i32,
    pub losses: i32,
    /// When the rating last changed (the end of the player's last rated game).
    pub updated_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct LeaderboardRow {
    username: String,
    rating: f64,
    deviation: f64,
    games: i32,
    wins: i32,
    draws: i32,
    losses: i32,
    updated_at: DateTime<Utc>,
}

impl Store {
    /// The `limit` highest established ratings of `variant` (`limit` is brought into
    /// 1..=[`LEADERBOARD_MAX`]), highest first.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn leaderboard(
        &self,
        variant: Variant,
        limit: i64,
    ) -> Result<Vec<LeaderboardEntry>, StoreError> {
        let rows = sqlx::query_as::<_, LeaderboardRow>(
            "select u.username, r.rating, r.deviation, r.games, r.wins, r.draws, r.losses, \
                    r.updated_at \
             from rating r join app_user u using (user_id) \
             where r.variant = $1 and r.deviation <= $2 \
               and not u.is_guest and u.disabled_at is null and u.computer_level is null \
             order by r.rating desc, lower(u.username) \
             limit $3",
        )
        .bind(variant.key())
        .bind(PROVISIONAL_DEVIATION)
        .bind(limit.clamp(1, LEADERBOARD_MAX))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .zip(1..)
            .map(|(row, rank)| LeaderboardEntry {
                rank,
                username: row.username,
                rating: row.rating,
                deviation: row.deviation,
                games: row.games,
                wins: row.wins,
                draws: row.draws,
                losses: row.losses,
                updated_at: row.updated_at,
            })
            .collect())
    }
}
