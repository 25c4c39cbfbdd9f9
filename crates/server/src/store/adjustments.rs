//! Takebacks and gifts of more time (`game_adjustment`, migration 0012): the changes to an
//! active game that are not actions. A takeback deletes the `game_action` rows it takes back
//! in the same transaction as it records them, so `game_action` always holds the game's
//! actual line; a gift of more time only records the clock after it.
//!
//! Both are written on the group-commit writer's one-by-one path
//! ([`super::Store::apply_changes`]), each in its own savepoint: they are rare, and each
//! needs checks (the game active, the rows taken back the ones expected) that the batch
//! statement does not make.

use super::{Store, StoreError};
use crate::play::record::*;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use uuid::Uuid;

/// A `game_adjustment` row as read ([`ADJUSTMENT_COLUMNS`]); the other layers see it as an
/// [`AdjustmentRecord`], which knows nothing of rows.
#[derive(sqlx::FromRow)]
struct AdjustmentRow {
    game_id: Uuid,
    kind: String,
    by_color: String,
    to_color: Option<String>,
    ms: Option<i64>,
    ply: i32,
    taken_back: Option<serde_json::Value>,
    white_ms: Option<i64>,
    black_ms: Option<i64>,
    created_at: DateTime<Utc>,
}

impl From<AdjustmentRow> for AdjustmentRecord {
    fn from(row: AdjustmentRow) -> Self {
        AdjustmentRecord {
            game_id: row.game_id,
            kind: row.kind,
            by: row.by_color,
            to: row.to_color,
            ms: row.ms,
            ply: row.ply,
            taken_back: row.taken_back,
            white_ms: row.white_ms,
            black_ms: row.black_ms,
            created_at: row.created_at,
        }
    }
}

/// The columns of an adjustment, in the order of [`AdjustmentRow`].
const ADJUSTMENT_COLUMNS: &str =
    "game_id, kind, by_color, to_color, ms, ply, taken_back, white_ms, black_ms, created_at";

/// Records a takeback and deletes the actions it takes back; [`StoreError::NotFound`] if
/// the game is not active or its last actions are not the ones taken back (the caller's
/// savepoint then undoes both).
pub(super) async fn record_takeback(
    tx: &mut sqlx::PgConnection,
    takeback: &NewTakeback,
) -> Result<(), StoreError> {
    let taken_back =
        serde_json::to_string(&takeback.taken_back).map_err(|e| StoreError::InvalidValue {
            column: "game_adjustment.taken_back",
            value: e.to_string(),
        })?;
    let inserted = sqlx::query(
        "insert into game_adjustment (game_id, kind, by_color, ply, taken_back, white_ms, \
                                      black_ms) \
         select game_id, 'takeback', $2, $3, $4::jsonb, $5, $6 from game \
         where game_id = $1 and status = 'active'",
    )
    .bind(takeback.game_id)
    .bind(takeback.by.as_str())
    .bind(takeback.ply)
    .bind(&taken_back)
    .bind(takeback.white_ms)
    .bind(takeback.black_ms)
    .execute(&mut *tx)
    .await
    .map_err(StoreError::from_sqlx)?;
    if inserted.rows_affected() == 0 {
        return Err(StoreError::NotFound);
    }
    let deleted: Vec<(i32, String)> = sqlx::query_as(
        "delete from game_action where game_id = $1 and ply > $2 returning ply, machine",
    )
    .bind(takeback.game_id)
    .bind(takeback.ply)
    .fetch_all(&mut *tx)
    .await
    .map_err(StoreError::from_sqlx)?;
    let mut deleted = deleted;
    deleted.sort_unstable();
    let expected: Vec<(i32, String)> = (takeback.taken_back.iter())
        .map(|a| (a.ply, a.machine.clone()))
        .collect();
    if deleted != expected {
        // The record holds another line than the game in memory: nothing is taken back.
        return Err(StoreError::NotFound);
    }
    Ok(())
}

/// Records a gift of more time; [`StoreError::NotFound`] if the game is not active.
pub(super) async fn record_more_time(
    tx: &mut sqlx::PgConnection,
    gift: &NewMoreTime,
) -> Result<(), StoreError> {
    let inserted = sqlx::query(
        "insert into game_adjustment (game_id, kind, by_color, to_color, ms, ply, white_ms, \
                                      black_ms) \
         select game_id, 'more_time', $2, $3, $4, $5, $6, $7 from game \
         where game_id = $1 and status = 'active'",
    )
    .bind(gift.game_id)
    .bind(gift.by.as_str())
    .bind(gift.to.as_str())
    .bind(gift.ms)
    .bind(gift.ply)
    .bind(gift.white_ms)
    .bind(gift.black_ms)
    .execute(&mut *tx)
    .await
    .map_err(StoreError::from_sqlx)?;
    if inserted.rows_affected() == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

impl Store {
    /// The adjustments of the given games, each game's in commit order.
    ///
    /// # Errors
    /// Database failures.
    pub async fn adjustments_of(
        &self,
        game_ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<AdjustmentRecord>>, StoreError> {
        let rows = sqlx::query_as::<_, AdjustmentRow>(&format!(
            "select {ADJUSTMENT_COLUMNS} from game_adjustment where game_id = any($1) \
             order by game_id, adjustment_id"
        ))
        .bind(game_ids)
        .fetch_all(&self.pool)
        .await?;
        let mut by_game: HashMap<Uuid, Vec<AdjustmentRecord>> = HashMap::new();
        for row in rows {
            by_game.entry(row.game_id).or_default().push(row.into());
        }
        Ok(by_game)
    }
}
