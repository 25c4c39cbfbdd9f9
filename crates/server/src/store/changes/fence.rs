//! Fenced commits, for a node of a cluster: each change comes with the `owner_epoch` its
//! node holds for the game (migration 0015), and is committed only if that is still the
//! game's epoch. The batch's transaction first locks its games' rows `for share` and reads
//! their epochs; a takeover ([`Store::take_over_game`]) raises the epoch with an update,
//! which waits for those locks. So a batch either commits before the takeover (and the new
//! owner, which reads the game after raising the epoch, sees it) or finds the raised epoch
//! and commits nothing of that game: the node that lost the game is told
//! [`StoreError::Fenced`], and no acknowledged move is ever lost or applied twice.
//!
//! One node without NATS does not come here: its batches go [`Store::apply_changes`]'s
//! way, with no lock and no extra round trip.

use super::{
    apply_and_rate_in, apply_in_one_statement, game_changed_twice, insert_actions, into_sqlx,
    one_by_one_in, only_actions, Applied, WritePath,
};
use crate::store::{GameChange, Store, StoreError};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

impl Store {
    /// Takes game `game_id` over for this node: raises its `owner_epoch` and returns the new
    /// one, which this node's commits of the game then carry. Waits for any batch of the
    /// previous owner that holds the game's row; once it returns, the previous owner can
    /// commit nothing more to the game. None for a game that does not exist or is over.
    ///
    /// # Errors
    /// [`StoreError::Database`] (or unavailable) if PostgreSQL could not do it.
    pub async fn take_over_game(&self, game_id: Uuid) -> Result<Option<i64>, StoreError> {
        let epoch: Option<i64> = sqlx::query_scalar(
            "update game set owner_epoch = owner_epoch + 1 \
             where game_id = $1 and status in ('waiting', 'active') \
             returning owner_epoch",
        )
        .bind(game_id)
        .fetch_optional(&self.writer_pool)
        .await?;
        Ok(epoch)
    }

    /// The game's `owner_epoch`, if it exists.
    ///
    /// # Errors
    /// [`StoreError::Database`] (or unavailable) if PostgreSQL could not be read.
    pub async fn owner_epoch(&self, game_id: Uuid) -> Result<Option<i64>, StoreError> {
        let epoch: Option<i64> =
            sqlx::query_scalar("select owner_epoch from game where game_id = $1")
                .bind(game_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(epoch)
    }

    /// [`Store::apply_changes`] for a node of a cluster: `fences[i]` is the epoch the node
    /// holds for change `i`'s game (None for a game it creates, whose row does not exist
    /// yet). A change whose game's epoch has moved on is answered [`StoreError::Fenced`] and
    /// not written; the others are written as [`Store::apply_changes`] writes them, in the
    /// same transaction as the check.
    ///
    /// # Errors
    /// As [`Store::apply_changes`]; [`StoreError::SameGameTwice`] also if `fences` is not
    /// one per change.
    pub async fn apply_changes_fenced(
        &self,
        changes: &[GameChange],
        fences: &[Option<i64>],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(game_id) = game_changed_twice(changes) {
            return Err(StoreError::SameGameTwice { game_id });
        }
        if fences.len() != changes.len() {
            return Err(StoreError::SameGameTwice {
                game_id: changes[0].game_id(),
            });
        }
        match self.write_fenced(changes, fences, false).await {
            Ok(answers) => Ok(answers),
            Err(err) if err.as_database_error().is_some() => {
                tracing::warn!(cause = %err, "fenced batch failed; retrying one by one");
                self.write_fenced(changes, fences, true)
                    .await
                    .map_err(StoreError::from)
            }
            Err(err) => Err(err.into()),
        }
    }

    /// One try of [`Store::apply_changes_fenced`]: lock and check, then write what passed,
    /// in one transaction (each change in a savepoint of its own when `one_by_one`).
    async fn write_fenced(
        &self,
        changes: &[GameChange],
        fences: &[Option<i64>],
        one_by_one: bool,
    ) -> Result<Vec<Result<(), StoreError>>, sqlx::Error> {
        let mut tx = self.writer_pool.begin().await?;
        let stale = lock_and_check(&mut tx, changes, fences).await?;
        // Nearly always nothing is stale, and the batch is written as it came.
        let kept: std::borrow::Cow<'_, [GameChange]> = if stale.is_empty() {
            changes.into()
        } else {
            changes
                .iter()
                .filter(|c| !stale.contains(&c.game_id()))
                .cloned()
                .collect::<Vec<_>>()
                .into()
        };
        let path = WritePath::of(&kept);
        let answers = if kept.is_empty() {
            Vec::new()
        } else if one_by_one || path == WritePath::OneByOne {
            one_by_one_in(&mut tx, &kept).await.map_err(into_sqlx)?
        } else {
            let applied = match path {
                WritePath::OnlyActions => insert_actions(&mut *tx, &only_actions(&kept))
                    .await
                    .map(|()| Applied::default())?,
                WritePath::StatementAndRatings => apply_and_rate_in(&mut tx, &kept).await?,
                WritePath::Statement | WritePath::OneByOne => {
                    apply_in_one_statement(&mut *tx, &kept).await?
                }
            };
            kept.iter().map(|c| applied.answer(c)).collect()
        };
        tx.commit().await?;
        let mut answers = answers.into_iter();
        Ok(changes
            .iter()
            .map(|c| {
                let game_id = c.game_id();
                if stale.contains(&game_id) {
                    Err(StoreError::Fenced { game_id })
                } else {
                    answers.next().unwrap_or(Err(StoreError::NotFound))
                }
            })
            .collect())
    }
}

/// Locks the rows of the batch's fenced games `for share` and returns the games whose epoch
/// is no longer the one their changes carry. A game with no row is not stale: its change
/// fails as it would unfenced.
async fn lock_and_check(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    changes: &[GameChange],
    fences: &[Option<i64>],
) -> Result<HashSet<Uuid>, sqlx::Error> {
    let held: HashMap<Uuid, i64> = changes
        .iter()
        .zip(fences)
        .filter_map(|(c, f)| f.map(|epoch| (c.game_id(), epoch)))
        .collect();
    if held.is_empty() {
        return Ok(HashSet::new());
    }
    let mut ids: Vec<Uuid> = held.keys().copied().collect();
    // One order for every batch's locks.
    ids.sort_unstable();
    let rows: Vec<(Uuid, i64)> = sqlx::query_as(
        "select game_id, owner_epoch from game where game_id = any($1) \
         order by game_id for share",
    )
    .bind(&ids)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows
        .into_iter()
        .filter(|(id, epoch)| held.get(id).is_some_and(|h| h != epoch))
        .map(|(id, _)| id)
        .collect())
}
