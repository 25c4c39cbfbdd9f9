//! What `oddboard admin` changes in the database, and how a running server hears of it.
//!
//! Each change commits together with a `NOTIFY` on [`ADMIN_CHANNEL`] carrying an
//! [`AdminNotice`], so the database stays the one source of truth (the change holds whether
//! or not a server runs, and through its restarts) and a server listening on the channel
//! (`web::admin_notices`) applies it to what it holds in memory the moment it is committed.
//! PostgreSQL delivers a notification only after its transaction commits, and only to
//! sessions listening at that moment: a server that was away when it was sent finds the
//! change in the database instead (deleted sessions, an aborted game's row).

use super::{Store, StoreError};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The PostgreSQL channel of [`AdminNotice`]s.
pub const ADMIN_CHANNEL: &str = "oddboard_admin";

/// Session token hashes per notification: a `NOTIFY` payload must stay under 8000 bytes, and
/// each hash is 64 hex digits.
const SESSIONS_PER_NOTICE: usize = 100;

/// A change `oddboard admin` made, as sent to running servers (JSON, tagged by `kind`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AdminNotice {
    /// The account was disabled and these sessions of it (hex SHA-256 token hashes) deleted:
    /// their sockets must close. A long list comes in several notices.
    AccountDisabled {
        user_id: Uuid,
        sessions: Vec<String>,
    },
    /// The game's row was marked aborted: its actor must end the game without storing it
    /// again.
    GameAborted { game_id: Uuid },
}

/// An account as the operator sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountState {
    pub user_id: Uuid,
    pub username: String,
    pub disabled_at: Option<DateTime<Utc>>,
}

/// A live session, for `oddboard admin sessions`. Never its token hash.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct SessionListing {
    pub session_id: Uuid,
    pub username: String,
    pub is_guest: bool,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

async fn notify(tx: &mut sqlx::PgConnection, notice: &AdminNotice) -> Result<(), StoreError> {
    let payload = serde_json::to_string(notice).map_err(|e| StoreError::InvalidValue {
        column: "notice",
        value: e.to_string(),
    })?;
    sqlx::query("select pg_notify($1, $2)")
        .bind(ADMIN_CHANNEL)
        .bind(payload)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

impl Store {
    /// Disables the account named `username` (any case) and deletes its sessions, telling
    /// running servers which. Disabling a disabled account deletes any session it still has
    /// and keeps the first time it was disabled.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if there is no such account; database failures.
    #[tracing::instrument(skip(self))]
    pub async fn disable_account(&self, username: &str) -> Result<(AccountState, u64), StoreError> {
        let mut tx = self.pool.begin().await?;
        let account = sqlx::query_as::<_, (Uuid, String, Option<DateTime<Utc>>)>(
            "update app_user set disabled_at = coalesce(disabled_at, now()) \
             where lower(username) = lower($1) returning user_id, username, disabled_at",
        )
        .bind(username)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        let hashes: Vec<Vec<u8>> =
            sqlx::query_scalar("delete from session where user_id = $1 returning token_hash")
                .bind(account.0)
                .fetch_all(&mut *tx)
                .await?;
        let hex_hashes: Vec<String> = hashes.iter().map(hex::encode).collect();
        // At least one notice, so a server also drops the account's sessions it may have
        // cached although the database no longer had them.
        let mut chunks: Vec<&[String]> = hex_hashes.chunks(SESSIONS_PER_NOTICE).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        for chunk in chunks {
            let notice = AdminNotice::AccountDisabled {
                user_id: account.0,
                sessions: chunk.to_vec(),
            };
            notify(&mut tx, &notice).await?;
        }
        tx.commit().await?;
        Ok((
            AccountState {
                user_id: account.0,
                username: account.1,
                disabled_at: account.2,
            },
            hashes.len() as u64,
        ))
    }

    /// Lets the account named `username` sign in again.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if there is no such account; database failures.
    #[tracing::instrument(skip(self))]
    pub async fn enable_account(&self, username: &str) -> Result<AccountState, StoreError> {
        let (user_id, username, disabled_at) =
            sqlx::query_as::<_, (Uuid, String, Option<DateTime<Utc>>)>(
                "update app_user set disabled_at = null \
                 where lower(username) = lower($1) returning user_id, username, disabled_at",
            )
            .bind(username)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok(AccountState {
            user_id,
            username,
            disabled_at,
        })
    }

    /// Whether the account is disabled (false for an unknown id).
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn is_disabled(&self, user_id: Uuid) -> Result<bool, StoreError> {
        let disabled: Option<bool> =
            sqlx::query_scalar("select disabled_at is not null from app_user where user_id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(disabled.unwrap_or(false))
    }

    /// Marks a waiting or active game aborted (result `*`, reason `aborted`), telling
    /// running servers.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if there is no such game or it is already over; database
    /// failures.
    #[tracing::instrument(skip(self))]
    pub async fn abort_game(&self, game_id: Uuid) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let updated = sqlx::query(
            "update game set status = 'aborted', result = '*', end_reason = 'aborted', \
             ended_at = now() where game_id = $1 and status in ('waiting', 'active')",
        )
        .bind(game_id)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        notify(&mut tx, &AdminNotice::GameAborted { game_id }).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Live sessions, newest first, at most `limit`; only `username`'s if given.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn live_sessions(
        &self,
        username: Option<&str>,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Vec<SessionListing>, StoreError> {
        let sessions = sqlx::query_as::<_, SessionListing>(
            "select s.session_id, u.username, u.is_guest, s.created_at, s.expires_at \
             from session s join app_user u using (user_id) \
             where s.expires_at > $1 and ($2::text is null or lower(u.username) = lower($2)) \
             order by s.created_at desc, s.session_id limit $3",
        )
        .bind(now)
        .bind(username)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(sessions)
    }

    /// The newest migration applied to the database.
    ///
    /// # Errors
    /// Database failures only.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let version: Option<i64> =
            sqlx::query_scalar("select max(version) from _sqlx_migrations where success")
                .fetch_one(&self.pool)
                .await?;
        Ok(version.unwrap_or(0))
    }
}

/// A running server's subscription to [`ADMIN_CHANNEL`] ([`Store::admin_notices`]).
pub struct AdminNotices {
    listener: sqlx::postgres::PgListener,
}

/// What [`AdminNotices::next`] found.
#[derive(Debug)]
pub enum Heard {
    Notice(AdminNotice),
    /// The connection was lost and is being made again; notices sent meanwhile are lost.
    Reconnecting,
}

impl AdminNotices {
    /// The next notice. Payloads that are not an [`AdminNotice`] (another program's, or a
    /// newer server's) are logged and skipped.
    ///
    /// # Errors
    /// PostgreSQL cannot be reached to listen again; calling again tries again.
    pub async fn next(&mut self) -> Result<Heard, StoreError> {
        loop {
            let Some(notification) = self.listener.try_recv().await? else {
                return Ok(Heard::Reconnecting);
            };
            match serde_json::from_str(notification.payload()) {
                Ok(notice) => return Ok(Heard::Notice(notice)),
                Err(e) => tracing::warn!(cause = %e, "ignoring an admin notice it cannot read"),
            }
        }
    }
}

impl Store {
    /// Starts listening for [`AdminNotice`]s, on a connection of its own (not one of the
    /// pool's, which it would hold for good).
    ///
    /// # Errors
    /// PostgreSQL cannot be reached.
    pub async fn admin_notices(&self) -> Result<AdminNotices, StoreError> {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .connect_lazy_with((*self.pool.connect_options()).clone());
        let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
        listener.listen(ADMIN_CHANNEL).await?;
        Ok(AdminNotices { listener })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_notice_fits_in_a_notify_payload() {
        let notice = AdminNotice::AccountDisabled {
            user_id: Uuid::max(),
            sessions: vec!["f".repeat(64); SESSIONS_PER_NOTICE],
        };
        let payload = serde_json::to_string(&notice).unwrap_or_default();
        assert!(payload.len() < 8000, "{}", payload.len());
        let read: AdminNotice = serde_json::from_str(&payload).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read, notice);
        let aborted = serde_json::to_string(&AdminNotice::GameAborted {
            game_id: Uuid::nil(),
        })
        .unwrap_or_default();
        assert_eq!(
            aborted,
            r#"{"kind":"game_aborted","game_id":"00000000-0000-0000-0000-000000000000"}"#
        );
    }
}
