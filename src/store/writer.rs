//! Group commit for actions: [`ActionWriter`] owns the one task through which every game
//! actor appends its actions.
//!
//! A move is acknowledged to the players only once it is committed, and a commit costs an
//! fsync. Committing each move on its own would cap the server at roughly one move per fsync.
//! Instead the writer waits for one request, takes everything else already queued (up to
//! [`MAX_BATCH`]), writes the lot with [`Store::append_actions`] (one statement, one commit),
//! and answers every caller. While a batch commits, new requests queue up, so batches grow
//! with load on their own: no timers, and no added latency when the server is idle.
//!
//! The writer stops once every [`ActionWriter`] handle is dropped and the queue is drained,
//! so a shutdown that drops its handles loses nothing that was queued.

use super::{NewAction, Store, StoreError};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// The most actions written in one batch. Large enough that batches never limit throughput
/// on this hardware, small enough that one statement stays well under a second.
pub const MAX_BATCH: usize = 1024;

/// Requests that may wait while a batch commits. When full, [`ActionWriter::append`] waits:
/// back-pressure on the game actors instead of unbounded memory.
const QUEUE_CAPACITY: usize = 4 * MAX_BATCH;

/// Upper bounds of the batch-size histogram buckets: 1, 2, 4, …, 1024 (= [`MAX_BATCH`]).
pub const BATCH_SIZE_BUCKETS: [usize; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// One queued append and where to send its result.
struct Request {
    action: NewAction,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// Handle on the group-commit task. Cheap to clone: give one to every game actor.
#[derive(Clone, Debug)]
pub struct ActionWriter {
    sender: mpsc::Sender<Request>,
    stats: Arc<CommitStats>,
}

impl ActionWriter {
    /// Spawns the writer task (on the current tokio runtime) that owns the batching loop.
    pub fn spawn(store: Store) -> ActionWriter {
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        let stats = Arc::new(CommitStats::default());
        tokio::spawn(run(store, receiver, Arc::clone(&stats)));
        ActionWriter { sender, stats }
    }

    /// Queues the action and resolves once it is committed (or failed).
    ///
    /// # Errors
    /// [`StoreError::DuplicatePly`] if the game already has this ply (the other actions of
    /// the batch commit regardless); [`StoreError::NotFound`] for an unknown game;
    /// [`StoreError::BatchFailed`] if the whole batch failed (e.g. the connection was lost);
    /// [`StoreError::WriterStopped`] if the writer task is gone.
    pub async fn append(&self, action: NewAction) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.sender
            .send(Request { action, reply })
            .await
            .map_err(|_| StoreError::WriterStopped)?;
        answer.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// The counters of this writer, for `/metrics`.
    pub fn stats(&self) -> Arc<CommitStats> {
        Arc::clone(&self.stats)
    }
}

/// The batching loop: wait for one request, drain the rest, write, answer, repeat.
async fn run(store: Store, mut receiver: mpsc::Receiver<Request>, stats: Arc<CommitStats>) {
    let mut requests: Vec<Request> = Vec::with_capacity(MAX_BATCH);
    // `recv_many` waits for the first request, then takes whatever else is already queued
    // without waiting; 0 means every sender is gone and the queue is empty.
    while receiver.recv_many(&mut requests, MAX_BATCH).await > 0 {
        let batch: Vec<Request> = std::mem::take(&mut requests);
        let (actions, replies): (Vec<NewAction>, Vec<_>) =
            batch.into_iter().map(|r| (r.action, r.reply)).unzip();
        match store.append_actions(&actions).await {
            Ok(results) => {
                let committed = results.iter().filter(|r| r.is_ok()).count();
                stats.record_batch(actions.len(), committed);
                for (reply, result) in replies.into_iter().zip(results) {
                    // The caller may have given up waiting (its game ended): nothing to do.
                    let _ = reply.send(result);
                }
            }
            Err(err) => {
                tracing::error!(rows = actions.len(), cause = %err, "action batch failed");
                stats.record_failed_batch(actions.len());
                let cause = err.to_string();
                for reply in replies {
                    let _ = reply.send(Err(StoreError::BatchFailed {
                        rows: actions.len(),
                        cause: cause.clone(),
                    }));
                }
            }
        }
    }
    tracing::debug!("action writer stopped: every handle was dropped");
}

/// Counters of an [`ActionWriter`], all atomics so `/metrics` can read them without asking
/// the writer task.
#[derive(Debug, Default)]
pub struct CommitStats {
    batches_committed: AtomicU64,
    rows_committed: AtomicU64,
    /// Entries of committed batches that were refused (duplicate ply, unknown game).
    rows_rejected: AtomicU64,
    failed_batches: AtomicU64,
    /// Rows of failed batches.
    rows_failed: AtomicU64,
    /// Batches (committed or failed) by size: bucket `i` counts sizes in
    /// `(BATCH_SIZE_BUCKETS[i-1], BATCH_SIZE_BUCKETS[i]]`.
    batch_sizes: [AtomicU64; BATCH_SIZE_BUCKETS.len()],
}

impl CommitStats {
    fn record_batch(&self, size: usize, committed: usize) {
        self.batches_committed.fetch_add(1, Ordering::Relaxed);
        self.rows_committed
            .fetch_add(as_u64(committed), Ordering::Relaxed);
        self.rows_rejected
            .fetch_add(as_u64(size.saturating_sub(committed)), Ordering::Relaxed);
        self.record_size(size);
    }

    fn record_failed_batch(&self, size: usize) {
        self.failed_batches.fetch_add(1, Ordering::Relaxed);
        self.rows_failed.fetch_add(as_u64(size), Ordering::Relaxed);
        self.record_size(size);
    }

    fn record_size(&self, size: usize) {
        let bucket = BATCH_SIZE_BUCKETS
            .iter()
            .position(|&bound| size <= bound)
            .unwrap_or(BATCH_SIZE_BUCKETS.len() - 1);
        if let Some(counter) = self.batch_sizes.get(bucket) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A copy of every counter. Each is read atomically, the set is not (a batch may be half
    /// counted), which is fine for metrics.
    pub fn snapshot(&self) -> CommitStatsSnapshot {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        CommitStatsSnapshot {
            batches_committed: load(&self.batches_committed),
            rows_committed: load(&self.rows_committed),
            rows_rejected: load(&self.rows_rejected),
            failed_batches: load(&self.failed_batches),
            rows_failed: load(&self.rows_failed),
            batch_sizes: BATCH_SIZE_BUCKETS
                .iter()
                .zip(&self.batch_sizes)
                .map(|(&le, counter)| (le, load(counter)))
                .collect(),
        }
    }
}

/// `usize` → `u64` never loses anything on the platforms we build for.
fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A point-in-time copy of [`CommitStats`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CommitStatsSnapshot {
    /// Batches written with one commit each.
    pub batches_committed: u64,
    /// Actions committed.
    pub rows_committed: u64,
    /// Actions refused inside committed batches (duplicate ply, unknown game).
    pub rows_rejected: u64,
    /// Batches that failed as a whole.
    pub failed_batches: u64,
    /// Actions lost with those batches (their callers got [`StoreError::BatchFailed`]).
    pub rows_failed: u64,
    /// `(upper bound, batches)` per histogram bucket, in increasing order of bound; a
    /// Prometheus-style `le` label, but not cumulative.
    pub batch_sizes: Vec<(usize, u64)>,
}

impl CommitStatsSnapshot {
    /// Mean rows per batch (committed and failed batches alike); 0 before the first batch.
    pub fn mean_batch_size(&self) -> f64 {
        let batches = self.batches_committed + self.failed_batches;
        if batches == 0 {
            return 0.0;
        }
        // Counts stay far below 2^53, where f64 is exact.
        #[allow(clippy::cast_precision_loss)]
        let mean =
            (self.rows_committed + self.rows_rejected + self.rows_failed) as f64 / batches as f64;
        mean
    }

    /// Batches of more than one row: evidence that group commit is happening.
    pub fn multi_row_batches(&self) -> u64 {
        self.batch_sizes
            .iter()
            .filter(|(le, _)| *le > 1)
            .map(|(_, n)| n)
            .sum()
    }
}
