//! Rating a finished game: both players' Glicko-2 ratings, result counts and a history entry
//! each, written in the transaction that stores the game's end ([`Store::apply_changes`]),
//! so a rated game's last action, its end and the new ratings land together.
//!
//! The arithmetic is [`crate::play::rating`]'s; the rows are locked here, so concurrent games of
//! the same players see each other's updates.

use crate::play::rating::Glicko;
use crate::rules::{Color, Variant};
use crate::store::{GameEnd, RatingValues, Store, StoreError};
use sqlx::PgConnection;
use uuid::Uuid;

/// The result of a finished game, as [`Store::rate_game`] needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub game_id: Uuid,
    pub variant: Variant,
    pub white_id: Uuid,
    pub black_id: Uuid,
    /// None: a draw.
    pub winner: Option<Color>,
}

/// What rating a game did.
#[derive(Clone, Debug, PartialEq)]
pub enum RatedGame {
    /// Both players were rated: their values before and after.
    Rated {
        white_before: RatingValues,
        black_before: RatingValues,
        white_after: RatingValues,
        black_after: RatingValues,
    },
    /// A player is a guest: nothing changed.
    Guest,
    /// The game was already rated: nothing changed.
    AlreadyRated,
}

impl Store {
    /// Rates a finished game in a transaction of its own, with `update` for the arithmetic
    /// and `initial` for a player's first rating in the variant (see `rate_in`). A game's
    /// end rates it already when the end carries [`crate::store::RatedSeats`]; this is
    /// for a game whose end was stored without them.
    ///
    /// # Errors
    /// Database failures; nothing is changed then.
    #[tracing::instrument(skip(self, initial, update))]
    pub async fn rate_game(
        &self,
        game: &GameResult,
        initial: RatingValues,
        update: impl FnOnce(RatingValues, RatingValues) -> (RatingValues, RatingValues),
    ) -> Result<RatedGame, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rated = rate_in(&mut tx, game, initial, update).await?;
        tx.commit().await?;
        Ok(rated)
    }
}

/// Rates the game `end` ends, if it carries rated seats, with Glicko-2 from a new player's
/// 1500 ± 350.
///
/// # Errors
/// Database failures: the caller's transaction is then unusable.
pub(super) async fn rate_end(conn: &mut PgConnection, end: &GameEnd) -> Result<(), StoreError> {
    let Some(seats) = end.rated else {
        return Ok(());
    };
    let winner = end.outcome.winner;
    let game = GameResult {
        game_id: end.game_id,
        variant: seats.variant,
        white_id: seats.white_id,
        black_id: seats.black_id,
        winner,
    };
    rate_in(conn, &game, Glicko::default().into(), |white, black| {
        let (white, black) = crate::play::rating::rate_game(white.into(), black.into(), winner);
        (white.into(), black.into())
    })
    .await
    .map(|_| ())
}

/// Rates a finished game inside the caller's transaction: locks (creating at `initial` if
/// missing) both players' ratings in the variant, asks `update` for the new values, stores
/// them with the result counts and a history entry each. Guests are never rated, and a game
/// is rated at most once (the history key).
///
/// # Errors
/// Database failures.
pub(super) async fn rate_in(
    conn: &mut PgConnection,
    game: &GameResult,
    initial: RatingValues,
    update: impl FnOnce(RatingValues, RatingValues) -> (RatingValues, RatingValues),
) -> Result<RatedGame, StoreError> {
    let GameResult {
        game_id,
        variant,
        white_id,
        black_id,
        winner,
    } = *game;
    let registered: i64 = sqlx::query_scalar(
        "select count(*) from app_user where user_id in ($1, $2) and not is_guest",
    )
    .bind(white_id)
    .bind(black_id)
    .fetch_one(&mut *conn)
    .await?;
    if registered < 2 || white_id == black_id {
        return Ok(RatedGame::Guest);
    }
    let (white_before, black_before) = lock_ratings(conn, game, initial).await?;
    let (white_after, black_after) = update(white_before, black_before);
    let inserted = sqlx::query(
        "insert into rating_history (user_id, variant, game_id, rating, deviation, volatility) \
         values ($1, $3, $4, $5, $6, $7), ($2, $3, $4, $8, $9, $10) \
         on conflict on constraint rating_history_pkey do nothing",
    )
    .bind(white_id)
    .bind(black_id)
    .bind(variant.key())
    .bind(game_id)
    .bind(white_after.rating)
    .bind(white_after.deviation)
    .bind(white_after.volatility)
    .bind(black_after.rating)
    .bind(black_after.deviation)
    .bind(black_after.volatility)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted < 2 {
        return Ok(RatedGame::AlreadyRated);
    }
    for (user_id, after, score) in [
        (white_id, white_after, winner.map(|w| w == Color::White)),
        (black_id, black_after, winner.map(|w| w == Color::Black)),
    ] {
        sqlx::query(
            "update rating set rating = $3, deviation = $4, volatility = $5, \
                 games = games + 1, \
                 wins = wins + ($6 is true)::int, \
                 losses = losses + ($6 is false)::int, \
                 draws = draws + ($6 is null)::int \
             where user_id = $1 and variant = $2",
        )
        .bind(user_id)
        .bind(variant.key())
        .bind(after.rating)
        .bind(after.deviation)
        .bind(after.volatility)
        .bind(score)
        .execute(&mut *conn)
        .await?;
    }
    Ok(RatedGame::Rated {
        white_before,
        black_before,
        white_after,
        black_after,
    })
}

/// Both players' ratings in the game's variant, created at `initial` if missing and locked
/// for the rest of the transaction, in user-id order, so that two games of the same players
/// cannot deadlock.
async fn lock_ratings(
    conn: &mut PgConnection,
    game: &GameResult,
    initial: RatingValues,
) -> Result<(RatingValues, RatingValues), StoreError> {
    sqlx::query(
        "insert into rating (user_id, variant, rating, deviation, volatility) \
         values ($1, $3, $4, $5, $6), ($2, $3, $4, $5, $6) \
         on conflict on constraint rating_pkey do nothing",
    )
    .bind(game.white_id)
    .bind(game.black_id)
    .bind(game.variant.key())
    .bind(initial.rating)
    .bind(initial.deviation)
    .bind(initial.volatility)
    .execute(&mut *conn)
    .await?;
    let rows: Vec<(Uuid, f64, f64, f64)> = sqlx::query_as(
        "select user_id, rating, deviation, volatility from rating \
         where user_id in ($1, $2) and variant = $3 order by user_id for update",
    )
    .bind(game.white_id)
    .bind(game.black_id)
    .bind(game.variant.key())
    .fetch_all(&mut *conn)
    .await?;
    let values = |id: Uuid| {
        rows.iter()
            .find(|r| r.0 == id)
            .map(|r| RatingValues {
                rating: r.1,
                deviation: r.2,
                volatility: r.3,
            })
            .ok_or(StoreError::NotFound)
    };
    Ok((values(game.white_id)?, values(game.black_id)?))
}
