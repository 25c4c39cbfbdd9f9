//! What the lobby keeps: ratings per user and variant (`rating`) and their history
//! (`rating_history`), lobby settings (`user_setting`), noplay lists (`noplay`), and the
//! read-only views of `game` the lobby needs (colour history, games in progress).
//!
//! Ratings change with the end of a rated game, in the same commit
//! ([`super::changes::rating`]).

use super::{Store, StoreError};
use crate::play::record::*;
use crate::rules::{Color, Variant};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct RatingRow {
    variant: String,
    rating: f64,
    deviation: f64,
    volatility: f64,
    games: i32,
    wins: i32,
    losses: i32,
    draws: i32,
}

fn parse_variant(column: &'static str, value: &str) -> Result<Variant, StoreError> {
    value.parse().map_err(|_| StoreError::InvalidValue {
        column,
        value: value.to_string(),
    })
}

impl TryFrom<RatingRow> for RatingRecord {
    type Error = StoreError;

    fn try_from(row: RatingRow) -> Result<Self, Self::Error> {
        Ok(RatingRecord {
            variant: parse_variant("rating.variant", &row.variant)?,
            values: RatingValues {
                rating: row.rating,
                deviation: row.deviation,
                volatility: row.volatility,
            },
            games: row.games,
            wins: row.wins,
            losses: row.losses,
            draws: row.draws,
        })
    }
}

impl Store {
    /// A user's ratings, one per variant they have a rating in.
    ///
    /// # Errors
    /// Database failures; [`StoreError::InvalidValue`] for an unknown variant id.
    #[tracing::instrument(skip(self))]
    pub async fn ratings(&self, user_id: Uuid) -> Result<Vec<RatingRecord>, StoreError> {
        let rows = sqlx::query_as::<_, RatingRow>(
            "select variant, rating, deviation, volatility, games, wins, losses, draws \
             from rating where user_id = $1 order by variant",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(RatingRecord::try_from).collect()
    }

    /// A user's rating after each rated game, oldest first, optionally of one variant.
    ///
    /// # Errors
    /// Database failures; [`StoreError::InvalidValue`] for an unknown variant id.
    #[tracing::instrument(skip(self))]
    pub async fn rating_history(
        &self,
        user_id: Uuid,
        variant: Option<Variant>,
    ) -> Result<Vec<RatingHistoryEntry>, StoreError> {
        let rows: Vec<(String, Uuid, f64, f64, f64, DateTime<Utc>)> = sqlx::query_as(
            "select variant, game_id, rating, deviation, volatility, created_at \
             from rating_history where user_id = $1 and ($2::text is null or variant = $2) \
             order by created_at, game_id",
        )
        .bind(user_id)
        .bind(variant.map(Variant::key))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(v, game_id, rating, deviation, volatility, created_at)| {
                Ok(RatingHistoryEntry {
                    variant: parse_variant("rating_history.variant", &v)?,
                    game_id,
                    values: RatingValues {
                        rating,
                        deviation,
                        volatility,
                    },
                    created_at,
                })
            })
            .collect()
    }

    /// A user's lobby settings (the defaults if never saved).
    ///
    /// # Errors
    /// Database failures; [`StoreError::InvalidValue`] for an unknown variant id.
    #[tracing::instrument(skip(self))]
    pub async fn user_settings(&self, user_id: Uuid) -> Result<UserSettings, StoreError> {
        let row: Option<(i32, i32, String, String, Vec<String>)> = sqlx::query_as(
            "select time_minutes, increment_seconds, variant, formula, f \
             from user_setting where user_id = $1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((time_minutes, increment_seconds, variant, formula, f)) = row else {
            return Ok(UserSettings::default());
        };
        Ok(UserSettings {
            time_minutes,
            increment_seconds,
            variant: parse_variant("user_setting.variant", &variant)?,
            formula,
            f,
        })
    }

    /// Saves a user's lobby settings.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown user; database failures, including values
    /// the schema refuses.
    #[tracing::instrument(skip(self, settings))]
    pub async fn save_user_settings(
        &self,
        user_id: Uuid,
        settings: &UserSettings,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "insert into user_setting (user_id, time_minutes, increment_seconds, variant, formula, f) \
             values ($1, $2, $3, $4, $5, $6) \
             on conflict (user_id) do update set time_minutes = excluded.time_minutes, \
                 increment_seconds = excluded.increment_seconds, variant = excluded.variant, \
                 formula = excluded.formula, f = excluded.f",
        )
        .bind(user_id)
        .bind(settings.time_minutes)
        .bind(settings.increment_seconds)
        .bind(settings.variant.key())
        .bind(&settings.formula)
        .bind(&settings.f)
        .execute(&self.pool)
        .await
        .map_err(StoreError::from_sqlx)?;
        Ok(())
    }

    /// The users `user_id` refuses to play, with their names.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn noplay_list(&self, user_id: Uuid) -> Result<Vec<(Uuid, String)>, StoreError> {
        let rows = sqlx::query_as(
            "select n.blocked_id, u.username from noplay n \
             join app_user u on u.user_id = n.blocked_id \
             where n.user_id = $1 order by lower(u.username)",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    /// Adds (`on`) or removes a noplay entry. Returns whether anything changed.
    ///
    /// # Errors
    /// Database failures, including blocking oneself or an unknown user.
    #[tracing::instrument(skip(self))]
    pub async fn set_noplay(
        &self,
        user_id: Uuid,
        blocked_id: Uuid,
        on: bool,
    ) -> Result<bool, StoreError> {
        let query = if on {
            "insert into noplay (user_id, blocked_id) values ($1, $2) \
             on conflict on constraint noplay_pkey do nothing"
        } else {
            "delete from noplay where user_id = $1 and blocked_id = $2"
        };
        let done = sqlx::query(query)
            .bind(user_id)
            .bind(blocked_id)
            .execute(&self.pool)
            .await
            .map_err(StoreError::from_sqlx)?;
        Ok(done.rows_affected() > 0)
    }

    /// The colours `user_id` played in their last `limit` started games, newest first
    /// (aborted games left out, as FICS's history does), for colour alternation.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn color_history(&self, user_id: Uuid, limit: i64) -> Result<Vec<Color>, StoreError> {
        let rows: Vec<(bool,)> = sqlx::query_as(
            "select white_id = $1 from game \
             where (white_id = $1 or black_id = $1) and status in ('active', 'finished') \
             order by started_at desc, game_id desc limit $2",
        )
        .bind(user_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(white,)| if white { Color::White } else { Color::Black })
            .collect())
    }

    /// The two players of every game in progress, one pair per game: what the lobby counts
    /// on a node of a cluster, where the games run on several nodes and none knows them all.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn players_in_play(&self) -> Result<Vec<(Uuid, Uuid)>, StoreError> {
        Ok(sqlx::query_as(
            "select white_id, black_id from game \
             where status = 'active' and white_id is not null and black_id is not null",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// A user's most recent started game, for `rematch`: its variant, clock, rating flag
    /// and who had White.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn last_game_of(&self, user_id: Uuid) -> Result<Option<LastGame>, StoreError> {
        #[derive(sqlx::FromRow)]
        struct Row {
            game_id: Uuid,
            variant: String,
            clock_initial_ms: Option<i64>,
            clock_increment_ms: Option<i64>,
            rated: bool,
            white_id: Uuid,
            black_id: Uuid,
        }
        let row: Option<Row> = sqlx::query_as(
            "select g.game_id, g.variant, g.clock_initial_ms, g.clock_increment_ms, g.rated, \
                        g.white_id, g.black_id \
                 from game g \
                 where (g.white_id = $1 or g.black_id = $1) and g.status in ('active', 'finished') \
                 order by g.started_at desc, g.game_id desc limit 1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(LastGame {
            game_id: row.game_id,
            variant: parse_variant("game.variant", &row.variant)?,
            clock_ms: row.clock_initial_ms.zip(row.clock_increment_ms),
            rated: row.rated,
            white_id: row.white_id,
            black_id: row.black_id,
        }))
    }
}
