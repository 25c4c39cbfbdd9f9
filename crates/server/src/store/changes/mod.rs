//! Batches of changes to many games, each batch committed with one statement: what the
//! group-commit [`super::GameWriter`] writes.
//!
//! A game's life is a row created, a row started, its actions, and a row ended. Each of those
//! must be committed before the players are told of it, and committing each on its own costs
//! an fsync and a round trip: at saturation, a game's creation, start and end were two thirds
//! of all commits (docs/performance.md). [`Store::apply_changes`] writes a whole batch of
//! [`GameChange`]s, of any kinds and for any games, as one statement: four data-modifying CTEs
//! (create, start, act, end), each fed by `unnest` over one array per column, so the statement
//! has a fixed number of parameters whatever the batch holds.
//!
//! The CTEs of one statement all see the same snapshot, and PostgreSQL does not support one
//! statement changing the same row twice, so a batch may hold at most one change that writes
//! a game's row ([`GameChange::writes_game_row`]) per game, and no action beside it (the
//! order of the two would be lost). The writer keeps to that ([`super::writer`]); here it is
//! checked, and a batch that breaks it is refused before anything is sent. Plain actions of
//! one game may come several to a batch.
//!
//! The end of a rated game carries its players ([`super::RatedSeats`]): their new ratings
//! are written in the same transaction as the end ([`rating`]), so a game is never over
//! without its ratings, nor rated without being over.
//!
//! Takebacks and gifts of more time ([`super::adjustments`]) are rare and checked as they
//! are written: a batch that holds one goes the one-by-one way below.
//!
//! If the statement fails (a ply already stored, a game that does not exist, a value the
//! schema refuses), the batch is retried one change at a time inside one transaction, each
//! change in its own savepoint, so that every change gets its own answer and one bad change
//! does not cost the others theirs.

mod fence;
pub mod rating;
pub(super) mod rows;
mod statement;

pub use statement::APPLY_CHANGES;

use super::adjustments::{record_more_time, record_takeback};
use super::{GameEnd, NewAction, Store, StoreError};
use crate::play::record::*;
use rows::{insert_actions, insert_game, record_end, seat_players};
use statement::{apply_in_one_statement, Applied};
use std::collections::HashSet;
use uuid::Uuid;

/// The first game of the batch that has a change writing its row beside any other change,
/// which one statement cannot apply in order.
fn game_changed_twice(changes: &[GameChange]) -> Option<Uuid> {
    let row_writes: HashSet<Uuid> = changes
        .iter()
        .filter(|c| c.writes_game_row())
        .map(GameChange::game_id)
        .collect();
    if row_writes.is_empty() {
        return None;
    }
    let mut seen = HashSet::new();
    changes
        .iter()
        .map(GameChange::game_id)
        .filter(|id| row_writes.contains(id))
        .find(|&id| !seen.insert(id))
}

impl Store {
    /// Commits a batch of changes with one statement; each change gets its own answer, in
    /// order. A change that writes a game's row must be the only change to its game.
    ///
    /// Answers: [`StoreError::DuplicatePly`] for an action whose ply is already stored;
    /// [`StoreError::NotFound`] for a change to a game that does not exist or is in no state
    /// for it (starting a game that is not waiting, ending one that is over), or a new game
    /// whose users do not exist; [`StoreError::Database`] for values the schema refuses. An
    /// action whose game end could not be stored (the game was already over) is still
    /// committed and answered `Ok`; the failure is logged.
    ///
    /// # Errors
    /// The outer `Err` means nothing was committed: the transaction itself failed (connection
    /// lost…), or [`StoreError::SameGameTwice`] if a change writing a game's row is not the
    /// only change to its game.
    #[tracing::instrument(skip(self, changes), fields(changes = changes.len()))]
    pub async fn apply_changes(
        &self,
        changes: &[GameChange],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(game_id) = game_changed_twice(changes) {
            return Err(StoreError::SameGameTwice { game_id });
        }
        let written = match WritePath::of(changes) {
            // A takeback or more time: rare, and checked as it is written
            // ([`super::adjustments`]), which the one statement does not do.
            WritePath::OneByOne => return self.apply_changes_one_by_one(changes).await,
            // Only actions: the plain multi-row insert, which PostgreSQL plans and runs for
            // less than the four-part statement. A single statement is a transaction of its own.
            WritePath::OnlyActions => insert_actions(&self.writer_pool, &only_actions(changes))
                .await
                .map(|()| Applied::default()),
            WritePath::StatementAndRatings => self.apply_and_rate(changes).await,
            WritePath::Statement => apply_in_one_statement(&self.writer_pool, changes).await,
        };
        match written {
            Ok(applied) => Ok(changes.iter().map(|c| applied.answer(c)).collect()),
            Err(err) if err.as_database_error().is_some() => {
                tracing::warn!(cause = %err, "batch of game changes failed; retrying one by one");
                self.apply_changes_one_by_one(changes).await
            }
            Err(err) => Err(err.into()),
        }
    }

    /// The one statement and the ratings of the rated games it ended, in one transaction.
    async fn apply_and_rate(&self, changes: &[GameChange]) -> Result<Applied, sqlx::Error> {
        let mut tx = self.writer_pool.begin().await?;
        let applied = apply_and_rate_in(&mut tx, changes).await?;
        tx.commit().await?;
        Ok(applied)
    }

    /// The slow path of [`Store::apply_changes`]: one transaction, one savepoint per change.
    async fn apply_changes_one_by_one(
        &self,
        changes: &[GameChange],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let mut tx = self.writer_pool.begin().await?;
        let answers = one_by_one_in(&mut tx, changes).await?;
        tx.commit().await?;
        Ok(answers)
    }
}

/// How a batch is written, from what it holds (see [`Store::apply_changes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WritePath {
    /// A takeback or a gift of more time is among them: one savepoint per change.
    OneByOne,
    /// Plain actions only: one multi-row insert.
    OnlyActions,
    /// The one statement, then the ratings of the rated games it ended.
    StatementAndRatings,
    /// The one statement.
    Statement,
}

impl WritePath {
    fn of(changes: &[GameChange]) -> WritePath {
        if changes.iter().any(GameChange::is_adjustment) {
            WritePath::OneByOne
        } else if !changes.iter().any(GameChange::writes_game_row) {
            WritePath::OnlyActions
        } else if changes
            .iter()
            .filter_map(GameChange::end)
            .any(|e| e.rated.is_some())
        {
            WritePath::StatementAndRatings
        } else {
            WritePath::Statement
        }
    }
}

/// The actions of a batch of plain actions ([`WritePath::OnlyActions`]).
fn only_actions(changes: &[GameChange]) -> Vec<&NewAction> {
    changes
        .iter()
        .filter_map(|c| match c {
            GameChange::Act(action, None) => Some(action),
            _ => None,
        })
        .collect()
}

/// The one statement and the ratings of the rated games it ended, inside transaction `tx`.
async fn apply_and_rate_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    changes: &[GameChange],
) -> Result<Applied, sqlx::Error> {
    let applied = apply_in_one_statement(&mut **tx, changes).await?;
    let ended = changes
        .iter()
        .filter_map(GameChange::end)
        .filter(|end| applied.ended.contains(&end.game_id));
    for end in ended {
        rating::rate_end(tx, end).await.map_err(into_sqlx)?;
    }
    Ok(applied)
}

/// Each change in a savepoint of its own inside `tx`, each with its own answer.
///
/// # Errors
/// Only a lost connection, which ends the whole transaction anyway.
async fn one_by_one_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    changes: &[GameChange],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut answers = Vec::with_capacity(changes.len());
    for change in changes {
        let mut savepoint = sqlx::Acquire::begin(&mut **tx).await?;
        match apply_one(&mut savepoint, change).await {
            Ok(()) => {
                savepoint.commit().await?;
                answers.push(Ok(()));
            }
            Err(StoreError::Database(err)) if err.as_database_error().is_none() => {
                return Err(StoreError::Database(err));
            }
            Err(refused) => {
                savepoint.rollback().await?;
                answers.push(Err(refused));
            }
        }
    }
    Ok(answers)
}

/// One change on its own, inside the savepoint of the slow path.
async fn apply_one(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    change: &GameChange,
) -> Result<(), StoreError> {
    match change {
        GameChange::Create(game) => insert_game(&mut **tx, game)
            .await
            .map_err(StoreError::from_sqlx),
        GameChange::Start(start) => seat_players(&mut **tx, start).await,
        GameChange::Act(action, end) => {
            insert_actions(&mut **tx, &[action])
                .await
                .map_err(|err| action_error(err, action))?;
            if let Some(end) = end {
                match record_end(&mut **tx, end).await {
                    Ok(()) => rate_in_savepoint(tx, end).await?,
                    // No unfinished row to end: as in the one-statement path, the action
                    // stands and the oddity is logged.
                    Err(StoreError::NotFound) => {
                        log_unrecorded_end(end.game_id, &StoreError::NotFound);
                    }
                    // The database refused the end. The savepoint is now unusable, and the
                    // action goes with its end or not at all, as in the one-statement path:
                    // refused, rolled back to the savepoint, the rest of the batch unharmed.
                    Err(err) => return Err(err),
                }
            }
            Ok(())
        }
        GameChange::End(end) => {
            record_end(&mut **tx, end).await?;
            rate_in_savepoint(tx, end).await
        }
        GameChange::Takeback(takeback) => record_takeback(tx, takeback).await,
        GameChange::MoreTime(gift) => record_more_time(tx, gift).await,
    }
}

/// Rates the game `end` ended, in a savepoint of its own: a rating the database refuses is
/// logged and the end stands (the savepoint's rollback keeps the transaction usable).
///
/// # Errors
/// Only a lost connection, which ends the whole transaction anyway.
async fn rate_in_savepoint(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    end: &GameEnd,
) -> Result<(), StoreError> {
    if end.rated.is_none() {
        return Ok(());
    }
    let mut savepoint = sqlx::Acquire::begin(&mut **tx).await?;
    match rating::rate_end(&mut savepoint, end).await {
        Ok(()) => savepoint.commit().await?,
        Err(StoreError::Database(err)) if err.as_database_error().is_none() => {
            return Err(StoreError::Database(err));
        }
        Err(err) => {
            tracing::error!(game_id = %end.game_id, cause = %err, "could not rate the game");
            savepoint.rollback().await?;
        }
    }
    Ok(())
}

/// A rating error as the one-statement path reports errors: a database error sends the
/// batch to the slow path, where each change is tried on its own.
fn into_sqlx(err: StoreError) -> sqlx::Error {
    match err {
        StoreError::Database(err) => err,
        other => sqlx::Error::Protocol(other.to_string()),
    }
}

/// A failed insert of one action: its ply taken, or what [`StoreError::from_sqlx`] makes of it.
fn action_error(err: sqlx::Error, action: &NewAction) -> StoreError {
    let duplicate =
        err.as_database_error().and_then(|db| db.constraint()) == Some("game_action_pkey");
    if duplicate {
        StoreError::DuplicatePly {
            game_id: action.game_id,
            ply: action.ply,
        }
    } else {
        StoreError::from_sqlx(err)
    }
}

pub(super) fn log_unrecorded_end(game_id: Uuid, err: &StoreError) {
    tracing::error!(%game_id, cause = %err, "the last action was stored but not the game's end");
}
