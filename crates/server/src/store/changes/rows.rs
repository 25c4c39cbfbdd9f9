//! The statements that write one change of one game: a new game's row, its seats, its
//! end, and a multi-row insert of actions. The one-statement batch ([`super::statement`])
//! writes the same columns for many games at once; these serve the slow path and the
//! plain batches of actions.

use crate::store::games::bigint;
use crate::store::{GameEnd, GameStart, JsonText, NewAction, NewGame, StoreError};
use sqlx::PgExecutor;
use uuid::Uuid;

/// The row of a new game, in the `waiting` state.
pub(in crate::store) async fn insert_game<'e>(
    executor: impl PgExecutor<'e>,
    game: &NewGame,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "insert into game (game_id, variant, creator_id, white_id, black_id, color_choice, \
                           clock_initial_ms, clock_increment_ms, rated, status, \
                           start_position, dice_commitment, dice_seed) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'waiting', $10, $11, $12)",
    )
    .bind(game.game_id)
    .bind(game.variant.key())
    .bind(game.creator_id)
    .bind(game.white_id)
    .bind(game.black_id)
    .bind(game.color_choice.as_str())
    .bind(game.clock.map(|c| bigint(c.initial_ms)))
    .bind(game.clock.map(|c| bigint(c.increment_ms)))
    .bind(game.rated)
    .bind(game.start_position.as_deref())
    .bind(game.dice_commitment.as_deref())
    .bind(game.dice_seed.as_deref())
    .execute(executor)
    .await?;
    Ok(())
}

/// Seats both players of a waiting game and makes it `active`; [`StoreError::NotFound`] if
/// there is no such waiting game.
pub(in crate::store) async fn seat_players<'e>(
    executor: impl PgExecutor<'e>,
    start: &GameStart,
) -> Result<(), StoreError> {
    let done = sqlx::query(
        "update game set status = 'active', white_id = $2, black_id = $3, started_at = $4 \
         where game_id = $1 and status = 'waiting'",
    )
    .bind(start.game_id)
    .bind(start.white_id)
    .bind(start.black_id)
    .bind(start.started_at)
    .execute(executor)
    .await
    .map_err(StoreError::from_sqlx)?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

/// Stores the end of a waiting or active game; [`StoreError::NotFound`] if there is no such
/// game or it is already over.
pub(in crate::store) async fn record_end<'e>(
    executor: impl PgExecutor<'e>,
    end: &GameEnd,
) -> Result<(), StoreError> {
    let done = sqlx::query(
        "update game set status = $2, result = $3, end_reason = $4, ended_at = $5 \
         where game_id = $1 and status in ('waiting', 'active')",
    )
    .bind(end.game_id)
    .bind(end.status().as_str())
    .bind(end.outcome.result_str())
    .bind(end.outcome.reason.as_str())
    .bind(end.ended_at)
    .execute(executor)
    .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

/// The multi-row insert: one array per column, zipped by `unnest`, so any number of rows is
/// one statement with seven parameters. Any bad row (a key already taken included) fails the
/// whole statement.
///
/// It is a plain insert: no `on conflict` (whose speculative insertion probes the key index
/// and writes a second WAL record for every row) and no `returning`. The game actors never
/// send a ply twice, so a batch with a duplicate, like one with any other bad row, is rare,
/// and [`Store::apply_changes`] then retries it one row at a time.
pub(in crate::store) async fn insert_actions<'e>(
    executor: impl PgExecutor<'e>,
    actions: &[&NewAction],
) -> Result<(), sqlx::Error> {
    let game_ids: Vec<Uuid> = actions.iter().map(|a| a.game_id).collect();
    let plies: Vec<i32> = actions.iter().map(|a| a.ply).collect();
    let machines: Vec<&str> = actions.iter().map(|a| a.machine.as_str()).collect();
    let humans: Vec<&str> = actions.iter().map(|a| a.human.as_str()).collect();
    let white_ms: Vec<Option<i64>> = actions.iter().map(|a| a.white_ms).collect();
    let black_ms: Vec<Option<i64>> = actions.iter().map(|a| a.black_ms).collect();
    let rolls: Vec<Option<&str>> = actions
        .iter()
        .map(|a| a.rolls.as_ref().map(JsonText::as_str))
        .collect();
    sqlx::query(
        "insert into game_action (game_id, ply, machine, human, white_ms, black_ms, rolls) \
         select game_id, ply, machine, human, white_ms, black_ms, rolls::jsonb \
         from unnest($1::uuid[], $2::int4[], $3::text[], $4::text[], \
                     $5::int8[], $6::int8[], $7::text[]) \
              as a(game_id, ply, machine, human, white_ms, black_ms, rolls)",
    )
    .bind(&game_ids)
    .bind(&plies)
    .bind(&machines)
    .bind(&humans)
    .bind(&white_ms)
    .bind(&black_ms)
    .bind(&rolls)
    .execute(executor)
    .await?;
    Ok(())
}
