//! The login back-off per username on the nodes of a cluster (`login_failure`, migration
//! 0016): each name's run of wrong passwords, so that the wait it earns on one node holds on
//! every other. A node alone keeps the same runs in memory (`web::limits::LoginBackoff`) and
//! never calls this.
//!
//! Every time here is the database's (`now()`): the nodes' clocks may differ, PostgreSQL's is
//! the one they share. The policy (how many failures are free, how long each wait is) stays
//! in the web layer; this module only counts and says how long ago the last failure was.

use super::{Store, StoreError};
use std::time::Duration;

/// A name's run of wrong passwords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoginFailures {
    /// Wrong passwords in the run, at least 1.
    pub failures: u32,
    /// How long ago the last one was, by the database's clock.
    pub since_last: Duration,
}

/// The most failures a run counts: far past the longest wait, and far from `integer`'s end.
const MAX_COUNTED: i32 = 1_000_000;

/// A duration as whole milliseconds for SQL (`$n * interval '1 millisecond'`).
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

impl Store {
    /// `key`'s run of wrong passwords, unless its last one is `forgotten_after` old or more
    /// (the run is over, whether or not the sweep has deleted it yet).
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn login_failures(
        &self,
        key: &str,
        forgotten_after: Duration,
    ) -> Result<Option<LoginFailures>, StoreError> {
        let row = sqlx::query_as::<_, (i32, i64)>(
            "select failures, \
                    greatest(0, (extract(epoch from now() - last_failure_at) * 1000)::bigint) \
             from login_failure \
             where username_key = $1 \
               and last_failure_at > now() - $2 * interval '1 millisecond'",
        )
        .bind(key)
        .bind(millis(forgotten_after))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(failures, since_last_ms)| LoginFailures {
            failures: u32::try_from(failures).unwrap_or(1),
            since_last: Duration::from_millis(u64::try_from(since_last_ms).unwrap_or(0)),
        }))
    }

    /// Counts one more wrong password for `key`, now: the first of a new run if there was
    /// none, or if its last failure is `forgotten_after` old or more.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn record_login_failure(
        &self,
        key: &str,
        forgotten_after: Duration,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "insert into login_failure as f (username_key, failures, last_failure_at) \
             values ($1, 1, now()) \
             on conflict (username_key) do update set \
                 failures = case \
                     when f.last_failure_at <= now() - $2 * interval '1 millisecond' then 1 \
                     else least(f.failures, $3) + 1 end, \
                 last_failure_at = now()",
        )
        .bind(key)
        .bind(millis(forgotten_after))
        .bind(MAX_COUNTED)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The right password for `key`: its run is over.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn forget_login_failures(&self, key: &str) -> Result<(), StoreError> {
        sqlx::query("delete from login_failure where username_key = $1")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Deletes the runs whose last failure is `forgotten_after` old or more (already
    /// ignored), and all but the `keep` newest of the others, as memory forgets the oldest
    /// names past its capacity; returns how many. For the housekeeping task.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn delete_old_login_failures(
        &self,
        forgotten_after: Duration,
        keep: i64,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "delete from login_failure \
             where last_failure_at <= now() - $1 * interval '1 millisecond' \
                or username_key in (select username_key from login_failure \
                                    order by last_failure_at desc offset $2)",
        )
        .bind(millis(forgotten_after))
        .bind(keep)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }
}
