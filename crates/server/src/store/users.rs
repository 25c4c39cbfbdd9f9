//! Accounts (`app_user`) and login sessions (`session`).
//!
//! Password hashing happens in the web layer; the store only keeps the argon2id PHC string.
//! Sessions are keyed by the SHA-256 of the cookie token, never the token itself, and expiry
//! is judged against a `now` the caller passes in, so tests need no clock.

use super::{Store, StoreError};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

/// An account, registered or guest. Never carries the password hash: that is read on its own
/// with [`Store::password_hash`] so it cannot leak through serialization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct User {
    pub user_id: Uuid,
    /// As the person typed it; lookups ignore case.
    pub username: String,
    pub is_guest: bool,
    pub created_at: DateTime<Utc>,
}

/// A live session: whose it is and until when it lasts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub user: User,
    pub expires_at: DateTime<Utc>,
}

impl Store {
    /// Creates an account. `password_hash` is the argon2id PHC string, `None` for guests.
    ///
    /// # Errors
    /// [`StoreError::UsernameTaken`] if another account has this name in any case.
    #[tracing::instrument(skip(self, password_hash))]
    pub async fn create_user(
        &self,
        username: &str,
        password_hash: Option<&str>,
        is_guest: bool,
    ) -> Result<User, StoreError> {
        sqlx::query_as::<_, User>(
            "insert into app_user (username, password_hash, is_guest) values ($1, $2, $3) \
             returning user_id, username, is_guest, created_at",
        )
        .bind(username)
        .bind(password_hash)
        .bind(is_guest)
        .fetch_one(&self.pool)
        .await
        .map_err(StoreError::from_sqlx)
    }

    /// The account with this id, if any.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn user_by_id(&self, user_id: Uuid) -> Result<Option<User>, StoreError> {
        let user = sqlx::query_as::<_, User>(
            "select user_id, username, is_guest, created_at from app_user where user_id = $1",
        )
        .bind(user_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(user)
    }

    /// The account with this name, ignoring case (uses the `lower(username)` unique index).
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn user_by_name(&self, username: &str) -> Result<Option<User>, StoreError> {
        let user = sqlx::query_as::<_, User>(
            "select user_id, username, is_guest, created_at from app_user \
             where lower(username) = lower($1)",
        )
        .bind(username)
        .fetch_optional(&self.pool)
        .await?;
        Ok(user)
    }

    /// The computer's accounts (one per level, created by migration 0011), as
    /// `(user id, name, level)`, by level.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn computer_players(&self) -> Result<Vec<(Uuid, String, u8)>, StoreError> {
        let rows: Vec<(Uuid, String, i16)> = sqlx::query_as(
            "select user_id, username, computer_level from app_user \
             where computer_level is not null order by computer_level",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, name, level)| Some((id, name, u8::try_from(level).ok()?)))
            .collect())
    }

    /// The stored argon2id PHC string; `None` for guests and for unknown ids.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn password_hash(&self, user_id: Uuid) -> Result<Option<String>, StoreError> {
        let hash: Option<Option<String>> =
            sqlx::query_scalar("select password_hash from app_user where user_id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(hash.flatten())
    }

    /// Records a login: `token_hash` is the SHA-256 (32 bytes) of the cookie token.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if the user does not exist; [`StoreError::Database`] if the
    /// hash is not 32 bytes or already exists.
    #[tracing::instrument(skip(self, token_hash))]
    pub async fn create_session(
        &self,
        user_id: Uuid,
        token_hash: &[u8],
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlx::query("insert into session (token_hash, user_id, expires_at) values ($1, $2, $3)")
            .bind(token_hash)
            .bind(user_id)
            .bind(expires_at)
            .execute(&self.pool)
            .await
            .map_err(StoreError::from_sqlx)?;
        Ok(())
    }

    /// The session with this token hash and its user, or `None` if there is no such session,
    /// it expired at or before `now`, or its account is disabled.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self, token_hash))]
    pub async fn session(
        &self,
        token_hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<Session>, StoreError> {
        let row = sqlx::query_as::<_, (Uuid, String, bool, DateTime<Utc>, DateTime<Utc>)>(
            "select u.user_id, u.username, u.is_guest, u.created_at, s.expires_at \
             from session s join app_user u using (user_id) \
             where s.token_hash = $1 and s.expires_at > $2 and u.disabled_at is null",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(
            |(user_id, username, is_guest, created_at, expires_at)| Session {
                user: User {
                    user_id,
                    username,
                    is_guest,
                    created_at,
                },
                expires_at,
            },
        ))
    }

    /// Logs out: forgets the session. Deleting a session that does not exist is not an error
    /// (a double logout is harmless).
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self, token_hash))]
    pub async fn delete_session(&self, token_hash: &[u8]) -> Result<(), StoreError> {
        sqlx::query("delete from session where token_hash = $1")
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Deletes every session that expired at or before `now`; returns how many. For a
    /// periodic clean-up task: expired rows are already ignored by [`Store::session`].
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let done = sqlx::query("delete from session where expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    /// Deletes up to `limit` guest accounts that are of no more use, oldest first, and
    /// returns how many: created within `created` (the range's start included, its end
    /// too), with no session still valid at
    /// `now` (a guest cannot sign in again), and in no game that was played to a result or
    /// is waiting or in progress. Their aborted games go with them (the only games left that
    /// name them), as do everything else of theirs (sessions, settings, noplay entries).
    ///
    /// The accounts are locked before anything is deleted, so a game created for one at the
    /// same moment (which locks its row too) waits, then fails rather than point nowhere.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn delete_stale_guests(
        &self,
        created: std::ops::RangeInclusive<DateTime<Utc>>,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        // A game that was played has both seats taken, its creator's among them: only open
        // challenges name a creator who has no seat.
        let doomed: Vec<Uuid> = sqlx::query_scalar(
            "select u.user_id from app_user u \
             where u.is_guest and u.created_at between $4 and $1 \
               and not exists (select 1 from session s \
                               where s.user_id = u.user_id and s.expires_at > $2) \
               and not exists (select 1 from game g where g.white_id = u.user_id \
                               and g.status <> 'aborted') \
               and not exists (select 1 from game g where g.black_id = u.user_id \
                               and g.status <> 'aborted') \
               and not exists (select 1 from game g where g.creator_id = u.user_id \
                               and g.status = 'waiting') \
             order by u.created_at \
             limit $3 \
             for update of u skip locked",
        )
        .bind(created.end())
        .bind(now)
        .bind(limit)
        .bind(created.start())
        .fetch_all(&mut *tx)
        .await?;
        if doomed.is_empty() {
            return Ok(0);
        }
        sqlx::query(
            "delete from game \
             where creator_id = any($1) or white_id = any($1) or black_id = any($1)",
        )
        .bind(&doomed)
        .execute(&mut *tx)
        .await?;
        let deleted = sqlx::query("delete from app_user where user_id = any($1)")
            .bind(&doomed)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(deleted.rows_affected())
    }
}
