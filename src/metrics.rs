//! Process-wide counters for `/metrics`, rendered in the Prometheus text format.
//!
//! Plain atomics updated on the hot path (no locks per move); the move-latency histogram has
//! fixed buckets ([`crate::histogram`]). Commit batch sizes and commit times come from the
//! store's game writer and are rendered beside these.

use crate::histogram::DurationHistogram;
use crate::store::CommitStatsSnapshot;
use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Upper bounds of the move-latency buckets, in microseconds. Finer between 1 and 10 ms,
/// where a loaded server's p99 falls and the bar (10 ms) lies, so that the load tool
/// can tell the server's share of a tail from the clients'.
const LATENCY_BUCKETS_US: &[u64] = &[
    250, 500, 1_000, 1_500, 2_000, 3_000, 4_000, 5_000, 7_500, 10_000, 20_000, 50_000, 100_000,
    250_000, 1_000_000, 5_000_000,
];

/// The server's counters.
#[derive(Debug)]
pub struct Metrics {
    /// Open WebSocket connections.
    pub connections: AtomicI64,
    /// Games started and not yet over.
    pub games_in_progress: AtomicI64,
    /// Actions committed and broadcast since start.
    pub actions_total: AtomicU64,
    latency: DurationHistogram,
    /// The previous scrape: when, and the action count then (for the per-second gauge).
    last_scrape: Mutex<Option<(Instant, u64)>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            connections: AtomicI64::new(0),
            games_in_progress: AtomicI64::new(0),
            actions_total: AtomicU64::new(0),
            latency: DurationHistogram::new(LATENCY_BUCKETS_US),
            last_scrape: Mutex::new(None),
        }
    }
}

impl Metrics {
    /// Records one committed action and how long it took from receipt to broadcast.
    pub fn record_action(&self, latency: Duration) {
        self.actions_total.fetch_add(1, Ordering::Relaxed);
        self.latency.record(latency);
    }

    /// The Prometheus text exposition of every counter.
    pub fn render(&self, commits: &CommitStatsSnapshot) -> String {
        let mut out = String::new();
        let actions = self.actions_total.load(Ordering::Relaxed);
        let per_second = {
            let mut last = self.last_scrape.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let rate = match *last {
                Some((at, count)) if now > at => {
                    (actions.saturating_sub(count)) as f64 / (now - at).as_secs_f64()
                }
                _ => 0.0,
            };
            *last = Some((now, actions));
            rate
        };
        let _ = writeln!(
            out,
            "# HELP oddboard_connections Open WebSocket connections."
        );
        let _ = writeln!(out, "# TYPE oddboard_connections gauge");
        let _ = writeln!(
            out,
            "oddboard_connections {}",
            self.connections.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP oddboard_games_in_progress Games started and not over."
        );
        let _ = writeln!(out, "# TYPE oddboard_games_in_progress gauge");
        let _ = writeln!(
            out,
            "oddboard_games_in_progress {}",
            self.games_in_progress.load(Ordering::Relaxed)
        );
        let _ = writeln!(
            out,
            "# HELP oddboard_actions_total Actions committed and broadcast."
        );
        let _ = writeln!(out, "# TYPE oddboard_actions_total counter");
        let _ = writeln!(out, "oddboard_actions_total {actions}");
        let _ = writeln!(
            out,
            "# HELP oddboard_actions_per_second Actions per second since the previous scrape."
        );
        let _ = writeln!(out, "# TYPE oddboard_actions_per_second gauge");
        let _ = writeln!(out, "oddboard_actions_per_second {per_second:.1}");
        self.latency.snapshot().write_prometheus(
            &mut out,
            "oddboard_move_latency_seconds",
            "From receiving an action to broadcasting it, commit included.",
        );
        let _ = writeln!(
            out,
            "# HELP oddboard_commit_batch_size Game changes (actions, games created, started, ended) written per database transaction."
        );
        let _ = writeln!(out, "# TYPE oddboard_commit_batch_size histogram");
        let mut cumulative = 0;
        for (bound, count) in &commits.batch_sizes {
            cumulative += count;
            let _ = writeln!(
                out,
                "oddboard_commit_batch_size_bucket{{le=\"{bound}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            out,
            "oddboard_commit_batch_size_bucket{{le=\"+Inf\"}} {}",
            commits.batches_committed
        );
        let _ = writeln!(
            out,
            "oddboard_commit_batch_size_sum {}",
            commits.rows_committed
        );
        let _ = writeln!(
            out,
            "oddboard_commit_batch_size_count {}",
            commits.batches_committed
        );
        commits.commit_times.write_prometheus(
            &mut out,
            "oddboard_commit_seconds",
            "Time from sending a batch's statement to the database's answer, commit and fsync included.",
        );
        if let Some(bytes) = resident_memory_bytes() {
            let _ = writeln!(out, "# TYPE oddboard_process_resident_memory_bytes gauge");
            let _ = writeln!(out, "oddboard_process_resident_memory_bytes {bytes}");
        }
        let _ = writeln!(out, "# TYPE oddboard_commit_failures_total counter");
        let _ = writeln!(
            out,
            "oddboard_commit_failures_total {}",
            commits.failed_batches
        );
        out
    }
}

/// The process's resident memory, from `/proc/self/status` (Linux only).
pub fn resident_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
