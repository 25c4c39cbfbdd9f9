//! The figures of a run: percentiles of the tool's own latencies, and the server's gauges and
//! move-latency histogram read from its `/metrics` text.

/// The nearest-rank `p`th percentile of latencies sorted in µs, in ms (0 with none).
pub(super) fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // Nearest-rank percentile: the smallest value with at least p% of samples at or below it.
    let rank = ((p / 100.0) * sorted.len() as f64 - 1e-9).ceil() as usize;
    let index = rank.clamp(1, sorted.len()) - 1;
    f64::from(sorted[index]) / 1000.0
}

/// The value of an unlabelled metric in a Prometheus text (`name value`).
pub(super) fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// The server's move-latency histogram in a `/metrics` text: (upper bound in seconds,
/// cumulative count) per bucket, `+Inf` last. Empty if the text has none.
pub(super) fn latency_histogram(text: &str) -> Vec<(f64, u64)> {
    const BUCKET: &str = "oddboard_move_latency_seconds_bucket{le=\"";
    text.lines()
        .filter_map(|line| {
            let (bound, count) = line.strip_prefix(BUCKET)?.split_once("\"} ")?;
            let bound = match bound {
                "+Inf" => f64::INFINITY,
                finite => finite.parse().ok()?,
            };
            Some((bound, count.trim().parse().ok()?))
        })
        .collect()
}

/// The upper bound, in ms, of the bucket holding the `percent`th percentile of the moves the
/// server recorded between two readings of its histogram. None if either reading is missing,
/// their buckets differ, or no move was recorded in between.
pub(super) fn server_percentile_ms(
    before: &[(f64, u64)],
    after: &[(f64, u64)],
    percent: f64,
) -> Option<f64> {
    let same_buckets =
        before.len() == after.len() && before.iter().zip(after).all(|(b, a)| b.0 == a.0);
    if before.is_empty() || !same_buckets {
        return None;
    }
    let counts: Vec<(f64, u64)> = before
        .iter()
        .zip(after)
        .map(|(&(_, earlier), &(bound, later))| (bound, later.saturating_sub(earlier)))
        .collect();
    let total = counts.last()?.1;
    if total == 0 {
        return None;
    }
    // The tolerance keeps a rank that is whole on paper (99.9% of 1,000) from rounding up.
    let rank = ((percent / 100.0 * total as f64 - 1e-9).ceil() as u64).max(1);
    counts
        .iter()
        .find(|&&(_, cumulative)| cumulative >= rank)
        .map(|&(bound, _)| bound * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_metrics() {
        let sorted: Vec<u32> = (1..=1000).collect();
        assert_eq!(percentile(&sorted, 50.0), 0.5);
        assert_eq!(percentile(&sorted, 99.9), 0.999);
        let text = "oddboard_connections 12\noddboard_connections_extra 3\n";
        assert_eq!(metric(text, "oddboard_connections"), Some(12.0));
    }

    /// A `/metrics` text with the latency histogram's cumulative counts at 1 ms, 5 ms, 10 ms
    /// and beyond.
    fn histogram_text(counts: [u64; 4]) -> String {
        format!(
            "# TYPE oddboard_move_latency_seconds histogram\n\
             oddboard_move_latency_seconds_bucket{{le=\"0.001\"}} {}\n\
             oddboard_move_latency_seconds_bucket{{le=\"0.005\"}} {}\n\
             oddboard_move_latency_seconds_bucket{{le=\"0.01\"}} {}\n\
             oddboard_move_latency_seconds_bucket{{le=\"+Inf\"}} {}\n\
             oddboard_move_latency_seconds_sum 1.5\n\
             oddboard_move_latency_seconds_count {}\n",
            counts[0], counts[1], counts[2], counts[3], counts[3]
        )
    }

    #[test]
    fn server_percentiles_come_from_the_buckets_filled_during_the_run() {
        let before = latency_histogram(&histogram_text([500, 500, 500, 500]));
        assert_eq!(
            before,
            [
                (0.001, 500),
                (0.005, 500),
                (0.01, 500),
                (f64::INFINITY, 500)
            ]
        );
        // During the run: 900 moves within 1 ms, 95 more within 5 ms, 4 within 10 ms, 1 beyond.
        let after = latency_histogram(&histogram_text([1400, 1495, 1499, 1500]));
        let at = |percent| server_percentile_ms(&before, &after, percent);
        assert_eq!(at(50.0), Some(1.0));
        assert_eq!(at(90.0), Some(1.0));
        assert_eq!(at(99.0), Some(5.0));
        assert_eq!(at(99.5), Some(5.0));
        assert_eq!(at(99.6), Some(10.0));
        assert_eq!(at(99.9), Some(10.0));
        assert_eq!(at(100.0), Some(f64::INFINITY));
        // The moves before the run do not count: all 500 were within 1 ms.
        assert_eq!(at(95.0), Some(5.0));
        // Nothing to say without both readings, with different buckets, or without moves.
        assert_eq!(server_percentile_ms(&[], &after, 99.0), None);
        assert_eq!(server_percentile_ms(&before, &after[..3], 99.0), None);
        assert_eq!(server_percentile_ms(&before, &before, 99.0), None);
        assert!(latency_histogram("oddboard_connections 3\n").is_empty());
    }
}
