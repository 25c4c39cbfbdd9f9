//! [`StoreHealth`]: whether PostgreSQL answers, and the server's *store time*, the clock that
//! stops while it does not.
//!
//! A change is acknowledged only once PostgreSQL has committed it, so while the database is
//! away (restarting, unreachable) nobody can move, and charging the players' clocks for that
//! time would lose games to an outage. Game actors therefore measure every clock and deadline
//! on store time ([`StoreHealth::running_ms`]): milliseconds of real time during which the
//! store was not known to be away. An outage begins when a query first fails because the
//! database cannot be reached ([`StoreHealth::mark_away`]; the group-commit writer and the
//! health check report theirs) and ends at the first query that succeeds again
//! ([`StoreHealth::mark_back`]). Meanwhile one prober task pings both pools every
//! [`PROBE_INTERVAL`], so that the outage ends by itself although nobody acts, and so that
//! the connections the restart left dead are found and replaced before players need them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
// Tokio's, like the game actors' own timers, so a test that pauses tokio's time moves both.
use tokio::time::Instant;

/// How often the prober pings PostgreSQL while it is away: short enough that play resumes
/// soon after it is back, long enough to cost nothing.
pub const PROBE_INTERVAL: Duration = Duration::from_millis(250);

/// Set in [`StoreHealth`]'s state while an outage is under way.
const AWAY: u64 = 1 << 63;

/// The store's availability and its time scale. Shared by every clone of a
/// [`super::Store`].
#[derive(Debug)]
pub struct StoreHealth {
    /// The zero of both the real and the store time scale.
    origin: Instant,
    /// One word, so that every game actor reads store time without a lock: while the store
    /// answers, the real milliseconds lost to outages so far (store time is real time minus
    /// them); during an outage, [`AWAY`] plus the store time it stands still at.
    state: AtomicU64,
    /// Whether a prober task is running (at most one at a time).
    probing: AtomicBool,
    /// Outages seen so far.
    outages_begun: AtomicU64,
}

impl Default for StoreHealth {
    fn default() -> Self {
        StoreHealth::starting_at(Instant::now())
    }
}

impl StoreHealth {
    /// A healthy store whose time scales start at `origin`.
    pub fn starting_at(origin: Instant) -> StoreHealth {
        StoreHealth {
            origin,
            state: AtomicU64::new(0),
            probing: AtomicBool::new(false),
            outages_begun: AtomicU64::new(0),
        }
    }

    /// Whether the store is thought to answer (no outage under way).
    pub fn is_available(&self) -> bool {
        self.state.load(Ordering::Acquire) & AWAY == 0
    }

    /// How many outages have begun since the start.
    pub fn outages_begun(&self) -> u64 {
        self.outages_begun.load(Ordering::Relaxed)
    }

    /// Store time now: see [`StoreHealth::running_ms_at`].
    pub fn running_ms(&self) -> u64 {
        self.running_ms_at(Instant::now())
    }

    /// Milliseconds from the origin to `now` during which the store was not away. Never
    /// decreases as `now` grows, and stands still during an outage.
    pub fn running_ms_at(&self, now: Instant) -> u64 {
        let state = self.state.load(Ordering::Acquire);
        if state & AWAY == 0 {
            self.real_ms(now).saturating_sub(state)
        } else {
            state & !AWAY
        }
    }

    /// A query failed because PostgreSQL could not be reached: an outage begins at `now`,
    /// unless one is already under way. Returns true if this began one.
    pub fn mark_away_at(&self, now: Instant) -> bool {
        let real = self.real_ms(now);
        let began = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                (state & AWAY == 0).then(|| AWAY | (real.saturating_sub(state) & !AWAY))
            })
            .is_ok();
        if began {
            self.outages_begun.fetch_add(1, Ordering::Relaxed);
        }
        began
    }

    /// A query succeeded: any outage under way ends at `now`.
    pub fn mark_back_at(&self, now: Instant) {
        let real = self.real_ms(now);
        // No outage under way leaves the state as it is, which is all an `Err` here means.
        let _ = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                (state & AWAY != 0).then(|| real.saturating_sub(state & !AWAY))
            });
    }

    /// [`StoreHealth::mark_away_at`] now.
    pub fn mark_away(&self) -> bool {
        self.mark_away_at(Instant::now())
    }

    /// [`StoreHealth::mark_back_at`] now.
    pub fn mark_back(&self) {
        self.mark_back_at(Instant::now());
    }

    /// Claims the one prober slot; false if a prober is already running.
    pub(super) fn start_probing(&self) -> bool {
        !self.probing.swap(true, Ordering::AcqRel)
    }

    /// Gives the prober slot back.
    pub(super) fn stop_probing(&self) {
        self.probing.store(false, Ordering::Release);
    }

    fn real_ms(&self, now: Instant) -> u64 {
        let elapsed = now.saturating_duration_since(self.origin);
        u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(origin: Instant, ms: u64) -> Instant {
        origin + Duration::from_millis(ms)
    }

    #[test]
    fn store_time_follows_real_time_while_the_store_answers() {
        let origin = Instant::now();
        let health = StoreHealth::starting_at(origin);
        assert!(health.is_available());
        assert_eq!(health.running_ms_at(at(origin, 0)), 0);
        assert_eq!(health.running_ms_at(at(origin, 1_500)), 1_500);
    }

    #[test]
    fn store_time_stands_still_during_an_outage_and_resumes_after() {
        let origin = Instant::now();
        let health = StoreHealth::starting_at(origin);
        assert!(health.mark_away_at(at(origin, 1_000)));
        assert!(!health.is_available());
        assert_eq!(health.running_ms_at(at(origin, 1_000)), 1_000);
        assert_eq!(health.running_ms_at(at(origin, 9_000)), 1_000);
        health.mark_back_at(at(origin, 10_000));
        assert!(health.is_available());
        assert_eq!(health.running_ms_at(at(origin, 10_000)), 1_000);
        assert_eq!(health.running_ms_at(at(origin, 10_250)), 1_250);
    }

    #[test]
    fn a_second_failure_during_an_outage_does_not_restart_it() {
        let origin = Instant::now();
        let health = StoreHealth::starting_at(origin);
        assert!(health.mark_away_at(at(origin, 100)));
        assert!(!health.mark_away_at(at(origin, 5_000)));
        health.mark_back_at(at(origin, 6_000));
        // Only [100, 6000) was away; a success with no outage under way changes nothing.
        health.mark_back_at(at(origin, 7_000));
        assert_eq!(health.running_ms_at(at(origin, 8_000)), 2_100);
        assert_eq!(health.outages_begun(), 1);
    }

    #[test]
    fn outages_add_up() {
        let origin = Instant::now();
        let health = StoreHealth::starting_at(origin);
        health.mark_away_at(at(origin, 1_000));
        health.mark_back_at(at(origin, 2_000));
        health.mark_away_at(at(origin, 3_000));
        health.mark_back_at(at(origin, 3_500));
        assert_eq!(health.running_ms_at(at(origin, 4_000)), 2_500);
        assert_eq!(health.outages_begun(), 2);
    }
}
