//! Process-wide counters for `/metrics`, rendered in the Prometheus text format.
//!
//! Plain atomics updated on the hot path (no locks per move); the move-latency histogram has
//! fixed buckets ([`crate::histogram`]). Commit batch sizes and commit times come from the
//! store's game writer and are rendered beside these.

use crate::histogram::{write_histogram, DurationHistogram};
use crate::store::CommitStatsSnapshot;
use std::fmt::{Display, Write};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

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
    /// Several nodes: the games whose lease this node holds.
    pub games_owned: AtomicI64,
    /// Games this node took over from another node (its lease had lapsed or was released).
    pub takeovers: AtomicU64,
    /// Games this node let go because another took them over (a fenced commit or a lost lease).
    pub games_moved: AtomicU64,
    /// Lease renewals that succeeded, and those that failed (NATS away, or the lease lost).
    pub lease_renewals: AtomicU64,
    pub lease_renewal_failures: AtomicU64,
    latency: DurationHistogram,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            connections: AtomicI64::new(0),
            games_in_progress: AtomicI64::new(0),
            actions_total: AtomicU64::new(0),
            games_owned: AtomicI64::new(0),
            takeovers: AtomicU64::new(0),
            games_moved: AtomicU64::new(0),
            lease_renewals: AtomicU64::new(0),
            lease_renewal_failures: AtomicU64::new(0),
            latency: DurationHistogram::new(LATENCY_BUCKETS_US),
        }
    }
}

/// Appends one single-value series (a gauge or a counter) with its `# HELP` and `# TYPE`.
fn write_series(out: &mut String, name: &str, kind: &str, help: &str, value: impl Display) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
    let _ = writeln!(out, "{name} {value}");
}

impl Metrics {
    /// Records one committed action and how long it took from receipt to broadcast.
    pub fn record_action(&self, latency: Duration) {
        self.actions_total.fetch_add(1, Ordering::Relaxed);
        self.latency.record(latency);
    }

    /// The series of a node of a cluster (all zero for one node alone).
    fn write_cluster_series(&self, out: &mut String) {
        write_series(
            out,
            "oddboard_games_owned",
            "gauge",
            "Several nodes: games whose lease this node holds.",
            self.games_owned.load(Ordering::Relaxed),
        );
        let counters = [
            (
                "oddboard_takeovers_total",
                "Games this node took over from another node.",
                &self.takeovers,
            ),
            (
                "oddboard_games_moved_total",
                "Games this node let go to another (a fenced commit or a lost lease).",
                &self.games_moved,
            ),
            (
                "oddboard_lease_renewals_total",
                "Lease renewals that succeeded.",
                &self.lease_renewals,
            ),
            (
                "oddboard_lease_renewal_failures_total",
                "Lease renewals that failed (NATS away or the lease lost).",
                &self.lease_renewal_failures,
            ),
        ];
        for (name, help, counter) in counters {
            write_series(out, name, "counter", help, counter.load(Ordering::Relaxed));
        }
    }

    /// The Prometheus text exposition of every counter. Reading it changes nothing: rates
    /// are the scraper's to work out (`rate(oddboard_actions_total[1m])`), since a rate
    /// kept here would be "since whoever scraped last", which two scrapers would share.
    pub fn render(&self, commits: &CommitStatsSnapshot) -> String {
        let mut out = String::new();
        write_series(
            &mut out,
            "oddboard_connections",
            "gauge",
            "Open WebSocket connections.",
            self.connections.load(Ordering::Relaxed),
        );
        write_series(
            &mut out,
            "oddboard_games_in_progress",
            "gauge",
            "Games started and not over.",
            self.games_in_progress.load(Ordering::Relaxed),
        );
        write_series(
            &mut out,
            "oddboard_actions_total",
            "counter",
            "Actions committed and broadcast.",
            self.actions_total.load(Ordering::Relaxed),
        );
        self.write_cluster_series(&mut out);
        self.latency.snapshot().write_prometheus(
            &mut out,
            "oddboard_move_latency_seconds",
            "From receiving an action to broadcasting it, commit included.",
        );
        // Failed batches are counted by size like committed ones, so that the buckets, `+Inf`
        // and `_count` all count every batch written.
        write_histogram(
            &mut out,
            "oddboard_commit_batch_size",
            "Game changes (actions, games created, started, ended) written per database transaction, committed or failed.",
            commits.batch_sizes.iter().copied(),
            commits.larger_batches,
            commits.rows(),
        );
        commits.commit_times.write_prometheus(
            &mut out,
            "oddboard_commit_seconds",
            "Time from sending a batch's statement to the database's answer, commit and fsync included.",
        );
        write_series(
            &mut out,
            "oddboard_commit_failures_total",
            "counter",
            "Batches of game changes that failed as a whole (their changes were not written).",
            commits.failed_batches,
        );
        if let Some(bytes) = resident_memory_bytes() {
            // The name every Prometheus client library uses for it, so dashboards find it.
            write_series(
                &mut out,
                "process_resident_memory_bytes",
                "gauge",
                "Resident memory size in bytes.",
                bytes,
            );
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CommitStats;
    use std::collections::BTreeSet;

    /// The value of the sample line `name` (labels included, e.g. `x_bucket{le="+Inf"}`).
    fn sample(text: &str, name: &str) -> Option<f64> {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
            .and_then(|value| value.parse().ok())
    }

    /// The metric family a sample line belongs to: its name without labels, and without the
    /// suffix of a histogram's series if `histograms` has the base name.
    fn family<'a>(line: &'a str, histograms: &BTreeSet<&str>) -> &'a str {
        let name = line.split([' ', '{']).next().unwrap_or_default();
        ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| {
                name.strip_suffix(suffix)
                    .filter(|base| histograms.contains(base))
            })
            .unwrap_or(name)
    }

    fn rendered_with_some_of_everything() -> String {
        let metrics = Metrics::default();
        metrics.connections.store(3, Ordering::Relaxed);
        metrics.record_action(Duration::from_millis(2));
        let commits = CommitStats::default();
        commits.record_batch(3, 3);
        commits.record_failed_batch(5);
        // Larger than the last bound (1024): counted in `+Inf` only.
        commits.record_batch(2000, 2000);
        metrics.render(&commits.snapshot())
    }

    #[test]
    fn every_series_has_help_and_type() {
        let text = rendered_with_some_of_everything();
        let declared = |kind: &str| -> BTreeSet<&str> {
            text.lines()
                .filter_map(|line| line.strip_prefix(kind))
                .filter_map(|rest| rest.split(' ').next())
                .collect()
        };
        let helped = declared("# HELP ");
        let typed = declared("# TYPE ");
        let histograms: BTreeSet<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("# TYPE ")?.strip_suffix(" histogram"))
            .collect();
        let families: BTreeSet<&str> = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .map(|line| family(line, &histograms))
            .collect();
        assert!(
            families.contains("oddboard_commit_failures_total"),
            "{text}"
        );
        assert!(families.contains("oddboard_commit_batch_size"), "{text}");
        assert_eq!(families, helped, "{text}");
        assert_eq!(families, typed, "{text}");
    }

    #[test]
    fn the_batch_size_histogram_counts_failed_batches_everywhere() {
        let text = rendered_with_some_of_everything();
        let name = "oddboard_commit_batch_size";
        // One batch of 3 committed, one of 5 failed: both are in the buckets, `+Inf`,
        // `_count` and `_sum`; the batch of 2000 is in `+Inf`, `_count` and `_sum` only.
        assert_eq!(
            sample(&text, &format!("{name}_bucket{{le=\"4\"}}")),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, &format!("{name}_bucket{{le=\"8\"}}")),
            Some(2.0)
        );
        assert_eq!(
            sample(&text, &format!("{name}_bucket{{le=\"1024\"}}")),
            Some(2.0)
        );
        assert_eq!(
            sample(&text, &format!("{name}_bucket{{le=\"+Inf\"}}")),
            Some(3.0)
        );
        assert_eq!(sample(&text, &format!("{name}_count")), Some(3.0));
        assert_eq!(sample(&text, &format!("{name}_sum")), Some(2008.0));
        assert_eq!(sample(&text, "oddboard_commit_failures_total"), Some(1.0));
    }

    #[test]
    fn a_scrape_changes_nothing_the_next_one_reads() {
        let metrics = Metrics::default();
        metrics.record_action(Duration::from_millis(1));
        let commits = CommitStats::default().snapshot();
        // Resident memory may move between two scrapes; everything else must not.
        let without_memory = |text: String| -> String {
            text.lines()
                .filter(|line| !line.contains("process_resident_memory_bytes"))
                .collect()
        };
        let first = without_memory(metrics.render(&commits));
        let second = without_memory(metrics.render(&commits));
        assert_eq!(first, second);
        assert!(!first.contains("per_second"), "{first}");
    }

    #[test]
    fn resident_memory_has_the_standard_name() {
        let text = Metrics::default().render(&CommitStats::default().snapshot());
        if resident_memory_bytes().is_some() {
            assert!(sample(&text, "process_resident_memory_bytes").is_some_and(|b| b > 0.0));
        }
        assert!(
            !text.contains("oddboard_process_resident_memory_bytes"),
            "{text}"
        );
    }
}
