//! Group commit for games: [`GameWriter`] owns the one task through which every game actor
//! commits its changes (the game created, started, each action, the game ended).
//!
//! A move is acknowledged to the players only once it is committed, and a commit costs an
//! fsync. Committing each move on its own would cap the server at roughly one move per fsync.
//! Instead the writer waits for one request, takes everything else already queued (up to
//! [`MAX_BATCH`]), writes the lot with [`Store::apply_changes`] (one statement, one commit),
//! and answers every caller. A game's creation, start and end share those commits with the
//! moves of other games. One statement cannot change a game's row twice, so when the queue
//! holds two changes to one game of which one writes its row (rare: a game actor waits for
//! each change before it sends the next), the batch is cut in two, in order
//! (`statements`). While a batch commits, new requests queue up, so batches grow
//! with load on their own: no timers, and no added latency when the server is idle.
//! [`WriterConfig::max_in_flight`] can let more than one batch be written at once, on
//! separate connections; the default is one, which measured fastest here.
//!
//! The writer stops once every [`GameWriter`] handle is dropped and the queue is drained,
//! so a shutdown that drops its handles loses nothing that was queued. Nothing else stops it:
//! while PostgreSQL is away each batch fails on its own (within the pool's acquire timeout)
//! and its callers are told so; the batch after it starts afresh on whatever connection the
//! pool has then, and every outcome is reported to the store's health
//! ([`super::StoreHealth`]), which pauses the game clocks.

use super::{GameChange, NewAction, Store, StoreError};
use crate::histogram::{DurationHistogram, HistogramSnapshot};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{JoinError, JoinSet};
use uuid::Uuid;

/// The most changes written in one batch by default. Large enough that batches never limit
/// throughput on this hardware, small enough that one statement stays well under a second.
pub const MAX_BATCH: usize = 1024;

/// Upper bounds of the batch-size histogram buckets: 1, 2, 4, …, 1024 (= [`MAX_BATCH`]).
pub const BATCH_SIZE_BUCKETS: [usize; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// Upper bounds, in microseconds, of the commit-time histogram buckets. Every move waits for
/// one commit, and often for the one before it as well, so a commit's time is most of a
/// move's latency; the buckets are finest where a fsync and a batch's statement take.
pub const COMMIT_TIME_BUCKETS_US: &[u64] = &[
    100, 250, 500, 1_000, 1_500, 2_000, 3_000, 5_000, 7_500, 10_000, 20_000, 50_000, 100_000,
    1_000_000,
];

/// The longest one statement may go unanswered. A batch commits in milliseconds; one that
/// hangs is on a connection to a server that vanished without closing it (a network
/// partition), and without this bound would hold up the writer, and every game, for good.
/// Its callers are told the store is unavailable: it may have been committed all the same,
/// which the game actors find out when they read the ply back.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

/// How a [`GameWriter`] batches. [`WriterConfig::default`] is what the server uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriterConfig {
    /// The most changes in one batch (one statement, one commit).
    pub max_batch: usize,
    /// Batches being written at the same time, each on its own connection, so that one can
    /// be built and sent while another waits for its fsync. The default is 1: on the 2-core
    /// development machine, 2 made batches smaller and throughput lower (release build,
    /// 1000 games: about 30,000 appends/s with 1 against 22,000 with 2; see the
    /// `writer_throughput` benchmark in `tests/it/store_writer.rs`). A machine with spare
    /// cores and a slow disk may gain from 2.
    pub max_in_flight: usize,
    /// Requests that may wait in the queue. When full, [`GameWriter::append`] waits:
    /// back-pressure on the game actors instead of unbounded memory.
    pub queue_capacity: usize,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            max_batch: MAX_BATCH,
            max_in_flight: 1,
            queue_capacity: 4 * MAX_BATCH,
        }
    }
}

/// One queued change and where to send its result.
struct Request {
    change: GameChange,
    /// The `owner_epoch` the node holds for the game, on a node of a cluster.
    fence: Option<i64>,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// Handle on the group-commit task. Cheap to clone: give one to every game actor.
#[derive(Clone, Debug)]
pub struct GameWriter {
    sender: mpsc::Sender<Request>,
    stats: Arc<CommitStats>,
}

impl GameWriter {
    /// Spawns the writer task (on the current tokio runtime) that owns the batching loop,
    /// with the default [`WriterConfig`]. The task ends once every handle is dropped and the
    /// queue is drained.
    ///
    /// # Panics
    /// Outside a tokio runtime (like `tokio::spawn`).
    pub fn spawn(store: Store) -> GameWriter {
        GameWriter::spawn_with(store, WriterConfig::default())
    }

    /// [`GameWriter::spawn`] with explicit settings (zero values count as 1).
    ///
    /// # Panics
    /// Outside a tokio runtime (like `tokio::spawn`).
    pub fn spawn_with(store: Store, config: WriterConfig) -> GameWriter {
        let config = WriterConfig {
            max_batch: config.max_batch.max(1),
            max_in_flight: config.max_in_flight.max(1),
            queue_capacity: config.queue_capacity.max(1),
        };
        let (sender, receiver) = mpsc::channel(config.queue_capacity);
        let stats = Arc::new(CommitStats::default());
        tokio::spawn(run(store, receiver, Arc::clone(&stats), config));
        GameWriter { sender, stats }
    }

    /// Queues the change and resolves once it is committed (or failed). Dropping the future
    /// after the change was queued does not cancel the write: it commits (or fails) anyway.
    ///
    /// # Errors
    /// What [`Store::apply_changes`] answers for the change ([`StoreError::DuplicatePly`],
    /// [`StoreError::NotFound`]…; the other changes of the batch commit regardless);
    /// [`StoreError::Unavailable`] if the whole batch failed because PostgreSQL is away (the
    /// connection was lost, the server is restarting…), [`StoreError::BatchFailed`] if it
    /// failed for another reason;
    /// [`StoreError::WriterStopped`] if the writer task is gone.
    pub async fn commit(&self, change: GameChange) -> Result<(), StoreError> {
        self.commit_fenced(change, None).await
    }

    /// [`GameWriter::commit`] for a node of a cluster, with the `owner_epoch` it holds for
    /// the change's game (None: no fence, as one node commits). A batch that holds a fenced
    /// change is written the fenced way ([`Store::apply_changes_fenced`]).
    ///
    /// # Errors
    /// As [`GameWriter::commit`], and [`StoreError::Fenced`] if another node took the game
    /// over: nothing was written.
    pub async fn commit_fenced(
        &self,
        change: GameChange,
        fence: Option<i64>,
    ) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        self.sender
            .send(Request {
                change,
                fence,
                reply,
            })
            .await
            .map_err(|_| StoreError::WriterStopped)?;
        answer.await.map_err(|_| StoreError::WriterStopped)?
    }

    /// [`GameWriter::commit`] of an action that does not end its game.
    ///
    /// # Errors
    /// As [`GameWriter::commit`].
    pub async fn append(&self, action: NewAction) -> Result<(), StoreError> {
        self.commit(GameChange::Act(action, None)).await
    }

    /// The counters of this writer, for `/metrics`.
    pub fn stats(&self) -> Arc<CommitStats> {
        Arc::clone(&self.stats)
    }
}

/// The batching loop: wait for a request, drain what else is queued, write it as one batch,
/// repeat; with up to `max_in_flight` batches being written at once.
async fn run(
    store: Store,
    mut receiver: mpsc::Receiver<Request>,
    stats: Arc<CommitStats>,
    config: WriterConfig,
) {
    let mut in_flight = JoinSet::new();
    loop {
        // Every slot busy: let requests pile up (the next batch grows) until one frees.
        if in_flight.len() >= config.max_in_flight {
            log_panic(in_flight.join_next().await);
            continue;
        }
        let mut requests = Vec::with_capacity(config.max_batch);
        tokio::select! {
            // `recv_many` waits for the first request, then takes whatever else is already
            // queued without waiting; 0 means every sender is gone and the queue is empty.
            // It is cancel-safe: if the other branch wins, nothing was taken off the queue.
            received = receiver.recv_many(&mut requests, config.max_batch) => {
                if received == 0 {
                    break;
                }
                in_flight.spawn(write_batch(store.clone(), requests, Arc::clone(&stats)));
            }
            done = in_flight.join_next(), if !in_flight.is_empty() => log_panic(done),
        }
    }
    while let Some(done) = in_flight.join_next().await {
        log_panic(Some(done));
    }
    tracing::debug!("game writer stopped: every handle was dropped");
}

/// Writes one batch, as one statement or, rarely, a few in order ([`statements`]), and
/// answers each of its callers.
async fn write_batch(store: Store, requests: Vec<Request>, stats: Arc<CommitStats>) {
    for statement in statements(requests) {
        write_statement(&store, statement, &stats).await;
    }
}

/// Cuts a batch into the statements that write it. In queue order, each request goes into
/// the statement of its game's previous change, or into the one after it when either of the
/// two writes the game's row. So each statement holds what [`Store::apply_changes`] accepts,
/// and a game's changes are applied in the order they were queued. A batch without such a
/// pair (nearly all) is one statement.
fn statements(requests: Vec<Request>) -> Vec<Vec<Request>> {
    let mut statements: Vec<Vec<Request>> = vec![Vec::with_capacity(requests.len())];
    // Per game: the statement of its latest change, and whether that change writes the row.
    let mut latest: HashMap<Uuid, (usize, bool)> = HashMap::new();
    for request in requests {
        let game_id = request.change.game_id();
        let writes_row = request.change.writes_game_row();
        let index = match latest.get(&game_id) {
            None => 0,
            Some(&(at, false)) if !writes_row => at,
            Some(&(at, _)) => at + 1,
        };
        latest.insert(game_id, (index, writes_row));
        if statements.len() <= index {
            statements.push(Vec::new());
        }
        if let Some(statement) = statements.get_mut(index) {
            statement.push(request);
        }
    }
    statements
}

/// Writes one statement's changes and answers their callers.
async fn write_statement(store: &Store, requests: Vec<Request>, stats: &CommitStats) {
    // One node alone fences nothing: no list of fences for its batches.
    let fences: Option<Vec<Option<i64>>> = requests
        .iter()
        .any(|r| r.fence.is_some())
        .then(|| requests.iter().map(|r| r.fence).collect());
    let (changes, replies): (Vec<GameChange>, Vec<_>) =
        requests.into_iter().map(|r| (r.change, r.reply)).unzip();
    // While PostgreSQL is known to be away, a batch is refused at once instead of waiting
    // out the pool's acquire timeout (sqlx retries a refused connection until then): the
    // players hear `store_unavailable` at once, and the queue does not pile up behind
    // batches that cannot succeed. The store's prober ends the outage.
    let applied = match store.check_available() {
        Ok(()) => {
            let sent = Instant::now();
            let applying = async {
                if let Some(fences) = &fences {
                    store.apply_changes_fenced(&changes, fences).await
                } else {
                    store.apply_changes(&changes).await
                }
            };
            let applied = tokio::time::timeout(STATEMENT_TIMEOUT, applying)
                .await
                .unwrap_or_else(|_| {
                    Err(StoreError::Unavailable {
                        cause: format!("no answer within {STATEMENT_TIMEOUT:?}"),
                    })
                });
            stats.commit_times.record(sent.elapsed());
            store.observe(&applied);
            applied
        }
        Err(away) => Err(away),
    };
    match applied {
        Ok(results) => {
            let committed = results.iter().filter(|r| r.is_ok()).count();
            stats.record_batch(changes.len(), committed);
            for (reply, result) in replies.into_iter().zip(results) {
                // The caller may have given up waiting (its game ended): nothing to do.
                let _ = reply.send(result);
            }
        }
        Err(err) => {
            let unavailable = err.is_unavailable();
            if unavailable {
                // The outage itself is logged once, where it begins (`Store::observe`).
                tracing::debug!(changes = changes.len(), cause = %err, "batch refused: PostgreSQL is away");
            } else {
                tracing::error!(changes = changes.len(), cause = %err, "batch of game changes failed");
            }
            stats.record_failed_batch(changes.len());
            let cause = err.to_string();
            for reply in replies {
                let failure = if unavailable {
                    StoreError::Unavailable {
                        cause: cause.clone(),
                    }
                } else {
                    StoreError::BatchFailed {
                        rows: changes.len(),
                        cause: cause.clone(),
                    }
                };
                let _ = reply.send(Err(failure));
            }
        }
    }
}

/// A batch task that panicked dropped its callers' reply channels, so they already see
/// [`StoreError::WriterStopped`]; the writer itself carries on.
fn log_panic(done: Option<Result<(), JoinError>>) {
    if let Some(Err(err)) = done {
        tracing::error!(cause = %err, "action batch task failed");
    }
}

/// Counters of a [`GameWriter`], all atomics so `/metrics` can read them without asking
/// the writer task.
#[derive(Debug)]
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
    /// Batches larger than the last bound ([`MAX_BATCH`]): only a writer configured with a
    /// larger [`WriterConfig::max_batch`] writes them.
    larger_batches: AtomicU64,
    /// Statements (committed or failed) by the time from sending to the answer, commit
    /// included, in [`COMMIT_TIME_BUCKETS_US`].
    commit_times: DurationHistogram,
}

impl Default for CommitStats {
    fn default() -> Self {
        CommitStats {
            batches_committed: AtomicU64::new(0),
            rows_committed: AtomicU64::new(0),
            rows_rejected: AtomicU64::new(0),
            failed_batches: AtomicU64::new(0),
            rows_failed: AtomicU64::new(0),
            batch_sizes: std::array::from_fn(|_| AtomicU64::new(0)),
            larger_batches: AtomicU64::new(0),
            commit_times: DurationHistogram::new(COMMIT_TIME_BUCKETS_US),
        }
    }
}

impl CommitStats {
    /// Counts a committed batch of `size` changes, of which `committed` were written (the
    /// others refused inside it).
    pub(crate) fn record_batch(&self, size: usize, committed: usize) {
        self.batches_committed.fetch_add(1, Ordering::Relaxed);
        self.rows_committed
            .fetch_add(as_u64(committed), Ordering::Relaxed);
        self.rows_rejected
            .fetch_add(as_u64(size.saturating_sub(committed)), Ordering::Relaxed);
        self.record_size(size);
    }

    /// Counts a batch of `size` changes that failed as a whole.
    pub(crate) fn record_failed_batch(&self, size: usize) {
        self.failed_batches.fetch_add(1, Ordering::Relaxed);
        self.rows_failed.fetch_add(as_u64(size), Ordering::Relaxed);
        self.record_size(size);
    }

    fn record_size(&self, size: usize) {
        let counter = BATCH_SIZE_BUCKETS
            .iter()
            .position(|&bound| size <= bound)
            .and_then(|bucket| self.batch_sizes.get(bucket))
            .unwrap_or(&self.larger_batches);
        counter.fetch_add(1, Ordering::Relaxed);
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
            larger_batches: load(&self.larger_batches),
            commit_times: self.commit_times.snapshot(),
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
    /// Changes committed.
    pub rows_committed: u64,
    /// Changes refused inside committed batches (duplicate ply, unknown game…).
    pub rows_rejected: u64,
    /// Batches that failed as a whole.
    pub failed_batches: u64,
    /// Changes lost with those batches (their callers got [`StoreError::BatchFailed`]).
    pub rows_failed: u64,
    /// `(upper bound, batches)` per histogram bucket, in increasing order of bound; a
    /// Prometheus-style `le` label, but not cumulative.
    pub batch_sizes: Vec<(usize, u64)>,
    /// Batches larger than the last bound.
    pub larger_batches: u64,
    /// Statements (committed or failed) by the time from sending to the answer, commit
    /// included.
    pub commit_times: HistogramSnapshot,
}

impl CommitStatsSnapshot {
    /// Every batch written, committed or failed: the batches [`Self::batch_sizes`] counts.
    pub fn batches(&self) -> u64 {
        self.batches_committed + self.failed_batches
    }

    /// The changes of every batch, committed, refused or failed.
    pub fn rows(&self) -> u64 {
        self.rows_committed + self.rows_rejected + self.rows_failed
    }

    /// Mean rows per batch (committed and failed batches alike); 0 before the first batch.
    pub fn mean_batch_size(&self) -> f64 {
        let batches = self.batches();
        if batches == 0 {
            return 0.0;
        }
        // Counts stay far below 2^53, where f64 is exact.
        #[allow(clippy::cast_precision_loss)]
        let mean = self.rows() as f64 / batches as f64;
        mean
    }

    /// Batches of more than one row: evidence that group commit is happening.
    pub fn multi_row_batches(&self) -> u64 {
        self.batch_sizes
            .iter()
            .filter(|(le, _)| *le > 1)
            .map(|(_, n)| n)
            .sum::<u64>()
            + self.larger_batches
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket_counts(stats: &CommitStats) -> Vec<u64> {
        stats
            .snapshot()
            .batch_sizes
            .iter()
            .map(|&(_, n)| n)
            .collect()
    }

    #[test]
    fn batch_sizes_land_in_power_of_two_buckets() {
        let stats = CommitStats::default();
        for size in [1, 2, 3, 4, 5, 1000, 1024, 5000] {
            stats.record_batch(size, size);
        }

        // Buckets: <=1, <=2, <=4, <=8, …, <=1024, and the larger ones apart.
        assert_eq!(bucket_counts(&stats), [1, 1, 2, 1, 0, 0, 0, 0, 0, 0, 2]);
        let snapshot = stats.snapshot();
        assert_eq!(snapshot.larger_batches, 1);
        assert_eq!(snapshot.batches_committed, 8);
        assert_eq!(snapshot.multi_row_batches(), 7);
    }

    #[test]
    fn commit_times_use_the_commit_buckets() {
        let stats = CommitStats::default();
        stats
            .commit_times
            .record(std::time::Duration::from_micros(1_200));

        let times = stats.snapshot().commit_times;
        let bounds: Vec<u64> = times.buckets_us.iter().map(|&(le, _)| le).collect();
        assert_eq!(bounds, COMMIT_TIME_BUCKETS_US);
        // 1.2 ms lands in the (1 ms, 1.5 ms] bucket.
        assert_eq!(times.buckets_us[4], (1_500, 1));
        assert_eq!(times.count(), 1);
    }

    #[test]
    fn committed_rejected_and_failed_rows_are_counted_apart() {
        let stats = CommitStats::default();
        stats.record_batch(10, 8);
        stats.record_failed_batch(6);

        let snapshot = stats.snapshot();
        assert_eq!(
            (
                snapshot.batches_committed,
                snapshot.rows_committed,
                snapshot.rows_rejected,
                snapshot.failed_batches,
                snapshot.rows_failed
            ),
            (1, 8, 2, 1, 6)
        );
        assert!((snapshot.mean_batch_size() - 8.0).abs() < f64::EPSILON);
        assert!(CommitStatsSnapshot::default().mean_batch_size().abs() < f64::EPSILON);
    }
}
