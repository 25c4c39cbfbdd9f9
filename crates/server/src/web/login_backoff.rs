//! The login back-off per username held in PostgreSQL, for the nodes of a cluster (issue 49):
//! [`SharedBackoff`]. Alone, a node keeps each name's wrong passwords in memory
//! ([`super::limits::LoginBackoff`]), which is the whole truth there and costs no round trip.
//! Behind a load balancer that spreads logins over N nodes, memory would give a password
//! guesser N times the attempts, so a node of a cluster counts them in the table
//! `login_failure` (`store::login_failures`), which every node reads.
//!
//! The policy is the memory one's, to the same numbers: `RATE_LIMIT_LOGIN_FAILURES` wrong
//! passwords are free, then each further attempt waits 2 s doubling up to 15 min after the
//! last failure; the right password, or an hour without a wrong one, starts over. The same
//! calls are made whether or not the name exists (one read per attempt, one upsert per wrong
//! password), so the time a login takes still says nothing about which names do. At most
//! [`LOGIN_BACKOFF_CAPACITY`] names are kept, the newest, as in memory; the sweep that cuts
//! them runs every minute, so between two sweeps a flood of new names may pass it.
//!
//! Two attempts at once on two nodes may both pass the check before either failure is
//! counted, as two at once on one node do in memory: the back-off slows guessing, it does not
//! serialise it.

use super::error::ApiError;
use super::limits::{
    backoff_wait, LoginBackoff, RateLimited, LOGIN_BACKOFF_CAPACITY, LOGIN_FAILURES_FORGOTTEN,
};
use crate::store::Store;

/// The login back-off in PostgreSQL (the module header).
#[derive(Debug)]
pub struct SharedBackoff {
    store: Store,
    /// Wrong passwords that cost no wait (`RATE_LIMIT_LOGIN_FAILURES`).
    free_failures: u32,
}

impl SharedBackoff {
    pub fn new(store: Store, free_failures: u32) -> SharedBackoff {
        SharedBackoff {
            store,
            free_failures,
        }
    }

    /// # Errors
    /// [`ApiError::RateLimited`] while `username` waits out its back-off;
    /// [`ApiError::Store`] if it cannot be read.
    pub async fn check(&self, username: &str) -> Result<(), ApiError> {
        let key = LoginBackoff::key(username);
        let Some(run) = self
            .store
            .login_failures(&key, LOGIN_FAILURES_FORGOTTEN)
            .await?
        else {
            return Ok(());
        };
        let left = backoff_wait(self.free_failures, run.failures).saturating_sub(run.since_last);
        if left.is_zero() {
            return Ok(());
        }
        Err(RateLimited { retry_after: left }.into())
    }

    /// # Errors
    /// [`ApiError::Store`]: the failure could not be counted.
    pub async fn failed(&self, username: &str) -> Result<(), ApiError> {
        let key = LoginBackoff::key(username);
        self.store
            .record_login_failure(&key, LOGIN_FAILURES_FORGOTTEN)
            .await?;
        Ok(())
    }

    /// # Errors
    /// [`ApiError::Store`]: the run could not be cleared.
    pub async fn succeeded(&self, username: &str) -> Result<(), ApiError> {
        let key = LoginBackoff::key(username);
        self.store.forget_login_failures(&key).await?;
        Ok(())
    }

    /// Deletes the runs an hour old and those past the capacity. A failure is only logged:
    /// the rows it leaves are ignored by [`SharedBackoff::check`], and the next sweep tries
    /// again.
    pub async fn sweep(&self) {
        let keep = i64::try_from(LOGIN_BACKOFF_CAPACITY).unwrap_or(i64::MAX);
        match self
            .store
            .delete_old_login_failures(LOGIN_FAILURES_FORGOTTEN, keep)
            .await
        {
            Ok(0) => {}
            Ok(deleted) => tracing::debug!(deleted, "old login failures deleted"),
            Err(e) => tracing::warn!(cause = %e, "could not delete old login failures"),
        }
    }
}
