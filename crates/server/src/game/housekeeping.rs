//! The housekeeping task: what no request triggers. Every
//! [`GameSettings::housekeeping_interval`](super::GameSettings::housekeeping_interval) it
//!
//! - wakes the hibernated games a deadline of their own has caught up with (an open challenge
//!   nobody took within `open_challenge_limit`, a game without a clock left idle for
//!   `idle_limit`): out of memory, nothing else would end them, and their actors end them
//!   as they would have in memory (abort, loss by abandonment, with ratings and notices);
//! - deletes expired sessions (a lookup already ignores them; the rows only pile up);
//! - purges guest accounts older than `guest_purge_age` that can no longer sign in and
//!   never finished a game ([`Store::delete_stale_guests`]).
//!
//! Each pass is bounded ([`WAKE_BATCH`], [`GUEST_BATCH`]): a backlog (after a long downtime)
//! is worked off over several passes rather than in one burst.

use super::Games;
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use std::time::Duration;
use tokio::sync::watch;

/// Overdue hibernated games woken in one pass: each is loaded with its actions and ended
/// through the group-commit writer.
const WAKE_BATCH: i64 = 200;
/// Guest accounts deleted in one pass (one transaction).
const GUEST_BATCH: i64 = 1_000;
/// How long after a guest account becomes old enough to purge it is still checked. Kept that
/// long, it has finished a game or has played one for weeks (a game it then finishes keeps
/// it too), and is kept for good: checking every kept guest again at every pass would cost
/// PostgreSQL a few index probes per guest ever kept, every minute.
const GUEST_RECHECK_WINDOW: Duration = Duration::from_secs(60 * 24 * 60 * 60);

/// What one pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    pub sessions_deleted: u64,
    pub guests_deleted: u64,
    pub games_woken: usize,
}

/// Runs a pass every `housekeeping_interval` until `shutdown` turns true (or its sender is
/// gone). A failed pass is logged and the next one tries again.
pub async fn run(games: Games, mut shutdown: watch::Receiver<bool>) {
    let interval = games.inner.settings.housekeeping_interval;
    let mut ticks = tokio::time::interval(interval.max(Duration::from_millis(10)));
    // After a stall, one pass catches up with everything: no burst of passes.
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    return;
                }
                continue;
            }
        }
        match pass(&games, Utc::now()).await {
            Ok(done) if done != Pass::default() => tracing::info!(?done, "housekeeping"),
            Ok(_) => {}
            Err(e) => tracing::warn!(cause = %e, "housekeeping pass failed"),
        }
    }
}

/// One pass at `now`.
///
/// # Errors
/// The store failed; what was done before the failure stays done.
pub async fn pass(games: &Games, now: DateTime<Utc>) -> Result<Pass, StoreError> {
    let settings = &games.inner.settings;
    let store: &Store = games.store();
    let sessions_deleted = store.delete_expired_sessions(now).await?;
    let old_enough = before(now, settings.guest_purge_age);
    let guests_deleted = store
        .delete_stale_guests(
            before(old_enough, GUEST_RECHECK_WINDOW)..=old_enough,
            now,
            GUEST_BATCH,
        )
        .await?;
    let overdue = store
        .overdue_unfinished_games(
            before(now, settings.open_challenge_limit),
            before(now, settings.idle_limit),
            WAKE_BATCH,
        )
        .await?;
    let mut games_woken = 0;
    for game_id in overdue {
        // A game in memory keeps its own deadlines.
        if games.get(game_id).is_some() {
            continue;
        }
        match games.find(game_id).await {
            Ok(_) => games_woken += 1,
            Err(e) => tracing::warn!(%game_id, cause = %e, "could not wake an overdue game"),
        }
    }
    Ok(Pass {
        sessions_deleted,
        guests_deleted,
        games_woken,
    })
}

/// The moment `age` before `now` (the dawn of time for an age too large to subtract).
fn before(now: DateTime<Utc>, age: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(age)
        .ok()
        .and_then(|age| now.checked_sub_signed(age))
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_age_too_large_reaches_back_to_the_dawn_of_time() {
        let now = Utc::now();
        assert_eq!(
            before(now, Duration::from_secs(60)),
            now - chrono::Duration::seconds(60)
        );
        assert_eq!(before(now, Duration::MAX), DateTime::<Utc>::MIN_UTC);
    }
}
