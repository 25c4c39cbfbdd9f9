//! A histogram of durations with fixed buckets, updated with atomics on hot paths (no lock
//! per observation) and written out in Prometheus's text format. Shared by the server's
//! move latency (`metrics`) and the group-commit writer's commit times (`store::writer`);
//! it depends on nothing else in the crate.

use serde::Serialize;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Counts of durations by bucket, and their sum.
#[derive(Debug)]
pub struct DurationHistogram {
    /// Upper bounds of the buckets in microseconds, increasing.
    bounds_us: &'static [u64],
    /// `counts[i]` counts durations in `(bounds_us[i-1], bounds_us[i]]`; the extra last one,
    /// every duration longer than the last bound.
    counts: Box<[AtomicU64]>,
    sum_us: AtomicU64,
}

impl DurationHistogram {
    /// An empty histogram with these upper bounds (µs, increasing).
    pub fn new(bounds_us: &'static [u64]) -> DurationHistogram {
        DurationHistogram {
            bounds_us,
            counts: (0..=bounds_us.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_us: AtomicU64::new(0),
        }
    }

    /// Counts one duration.
    pub fn record(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let bucket = self
            .bounds_us
            .iter()
            .position(|&bound| micros <= bound)
            .unwrap_or(self.bounds_us.len());
        if let Some(count) = self.counts.get(bucket) {
            count.fetch_add(1, Ordering::Relaxed);
        }
        self.sum_us.fetch_add(micros, Ordering::Relaxed);
    }

    /// A copy of the counts. Each is read atomically, the set is not, which is fine for
    /// metrics.
    pub fn snapshot(&self) -> HistogramSnapshot {
        let load = |count: &AtomicU64| count.load(Ordering::Relaxed);
        HistogramSnapshot {
            buckets_us: self
                .bounds_us
                .iter()
                .zip(self.counts.iter())
                .map(|(&bound, count)| (bound, load(count)))
                .collect(),
            longer: self.counts.last().map_or(0, load),
            sum_us: load(&self.sum_us),
        }
    }
}

/// A point-in-time copy of a [`DurationHistogram`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HistogramSnapshot {
    /// `(upper bound in µs, count)` per bucket, in increasing order of bound; not cumulative.
    pub buckets_us: Vec<(u64, u64)>,
    /// Durations longer than the last bound.
    pub longer: u64,
    /// The sum of every duration counted, in µs.
    pub sum_us: u64,
}

impl HistogramSnapshot {
    /// Every duration counted.
    pub fn count(&self) -> u64 {
        self.buckets_us.iter().map(|&(_, n)| n).sum::<u64>() + self.longer
    }

    /// Appends the histogram as Prometheus's text format names it: `{name}_bucket` lines with
    /// cumulative counts and `le` in seconds, then `{name}_sum` (seconds) and `{name}_count`.
    pub fn write_prometheus(&self, out: &mut String, name: &str, help: &str) {
        write_histogram(
            out,
            name,
            help,
            self.buckets_us
                .iter()
                .map(|&(bound_us, count)| (bound_us as f64 / 1e6, count)),
            self.longer,
            self.sum_us as f64 / 1e6,
        );
    }
}

/// Appends a histogram in Prometheus's text format from its buckets' upper bounds (the `le`
/// labels, increasing) and their own counts (not cumulative), the count above the last
/// bound, and the sum of every observation. The `+Inf` bucket and `{name}_count` are both
/// the total of those counts, so the lines cannot disagree whatever the caller counts.
pub fn write_histogram<Bound: std::fmt::Display>(
    out: &mut String,
    name: &str,
    help: &str,
    buckets: impl IntoIterator<Item = (Bound, u64)>,
    above_last_bound: u64,
    sum: impl std::fmt::Display,
) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} histogram");
    let mut cumulative = 0;
    for (bound, count) in buckets {
        cumulative += count;
        let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
    }
    cumulative += above_last_bound;
    let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {cumulative}");
    let _ = writeln!(out, "{name}_sum {sum}");
    let _ = writeln!(out, "{name}_count {cumulative}");
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS_US: [u64; 3] = [100, 1_000, 5_000];

    #[test]
    fn durations_land_in_the_first_bucket_that_holds_them() {
        let histogram = DurationHistogram::new(&BOUNDS_US);
        for micros in [50, 100, 101, 1_000, 4_000, 4_000, 2_000_000] {
            histogram.record(Duration::from_micros(micros));
        }

        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.buckets_us, [(100, 2), (1_000, 2), (5_000, 2)]);
        assert_eq!(snapshot.longer, 1);
        assert_eq!(snapshot.sum_us, 2_009_251);
        assert_eq!(snapshot.count(), 7);
    }

    #[test]
    fn the_text_format_is_cumulative_with_bounds_in_seconds() {
        let histogram = DurationHistogram::new(&BOUNDS_US);
        for micros in [50, 2_500, 2_000_000] {
            histogram.record(Duration::from_micros(micros));
        }
        let mut out = String::new();
        histogram
            .snapshot()
            .write_prometheus(&mut out, "x_seconds", "Some durations.");

        assert_eq!(
            out,
            "# HELP x_seconds Some durations.\n\
             # TYPE x_seconds histogram\n\
             x_seconds_bucket{le=\"0.0001\"} 1\n\
             x_seconds_bucket{le=\"0.001\"} 1\n\
             x_seconds_bucket{le=\"0.005\"} 2\n\
             x_seconds_bucket{le=\"+Inf\"} 3\n\
             x_seconds_sum 2.00255\n\
             x_seconds_count 3\n"
        );
    }
}
