//! The engine pool: where every engine search runs (the computer's moves, game analyses), out
//! of the way of the human games.
//!
//! - **Worker processes.** The server runs its searches in worker processes of its own binary
//!   (`oddboard engine-worker`, [`crate::engine_worker`]), one per core by default, each in a
//!   session of its own at the lowest autogroup priority: on a stock Linux kernel a thread's
//!   low priority holds only inside its process, and the searches took the CPU from
//!   PostgreSQL and the server's runtime. A worker searches one job at a time; a worker that
//!   dies or overstays its job's deadline ([`Search::deadline`]) is killed and costs that job
//!   only ([`PoolError::Lost`]): the next job starts a new one. Nobody waits on a dead worker:
//!   its pipe's end is its death notice.
//! - **Threads**, for the unit tests, which have no server binary to start: the same searches
//!   on `SCHED_IDLE` threads of this process ([`EnginePool::in_process`]).
//! - **Bounded.** At most one search per worker runs at once and at most `capacity` wait;
//!   beyond that a job is refused at once ([`PoolError::Busy`]) rather than queued without end.
//! - **Two queues.** A computer's move, whose clock is running, is taken before any waiting
//!   analysis.
//! - **Cancellable.** A cancelled move ([`Cancel`]) stops its search where it runs, which then
//!   answers with what it has.

use crate::engine_worker::{carry_out, Answer, FromWorker, Search, ToWorker};
use crate::evaluation::Evaluation;
use oddboard_engine::{Cancel, Engine};
use oddboard_rules::Variant;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{oneshot, Notify};

/// Which queue a job waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A computer's move: its clock is running.
    Play,
    /// An analysis of a finished game: it waits for every move.
    Analysis,
}

/// Why the pool did not answer a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("the engine pool is full; try again shortly")]
    Busy,
    #[error("the engine pool has shut down")]
    Closed,
    /// The worker searching it died or hung (and was killed), or could not be started.
    #[error("the search was lost with its worker; try again")]
    Lost,
}

/// A job waiting for a worker: its search, the flag that stops it, where its answer goes.
struct Job {
    search: Search,
    cancel: Cancel,
    reply: oneshot::Sender<Result<Answer, PoolError>>,
}

#[derive(Default)]
struct Queues {
    play: VecDeque<Job>,
    analysis: VecDeque<Job>,
    closed: bool,
}

impl Queues {
    fn waiting(&self) -> usize {
        self.play.len() + self.analysis.len()
    }

    fn next(&mut self) -> Option<Job> {
        self.play.pop_front().or_else(|| self.analysis.pop_front())
    }
}

struct Shared {
    queues: Mutex<Queues>,
    /// Wakes a worker's task (a job arrived, or the pool closed).
    arrived: Notify,
    /// Wakes a search thread ([`EnginePool::in_process`]).
    ready: Condvar,
    capacity: usize,
    workers: usize,
    /// Searches taken by a worker or thread so far.
    started: std::sync::atomic::AtomicU64,
    /// Searches lost with their worker so far.
    lost: std::sync::atomic::AtomicU64,
    /// Each worker's process id while it runs.
    pids: Mutex<Vec<Option<u32>>>,
}

impl Shared {
    fn queues(&self) -> MutexGuard<'_, Queues> {
        // Queues of jobs: a panic elsewhere cannot leave them inconsistent.
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_pid(&self, index: usize, pid: Option<u32>) {
        let mut pids = self.pids.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = pids.get_mut(index) {
            *slot = pid;
        }
    }

    /// The next job for a worker's task; None once the pool is closed and drained.
    async fn next_job(&self) -> Option<Job> {
        loop {
            // Asked for before the queue is looked at, so that no arrival goes unheard.
            let arrived = self.arrived.notified();
            {
                let mut queues = self.queues();
                if let Some(job) = queues.next() {
                    self.started
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return Some(job);
                }
                if queues.closed {
                    return None;
                }
            }
            arrived.await;
        }
    }
}

/// The pool's handle. Cheap to clone.
#[derive(Clone)]
pub struct EnginePool {
    shared: Arc<Shared>,
}

impl EnginePool {
    /// Starts `workers` worker processes (at least one) of `program` (this server's binary),
    /// each when its first job comes, with room for `capacity` waiting jobs. Needs a tokio
    /// runtime.
    pub fn new(program: PathBuf, workers: usize, capacity: usize) -> EnginePool {
        let pool = EnginePool::with(workers, capacity);
        for index in 0..pool.shared.workers {
            tokio::spawn(keep_worker(
                Arc::clone(&pool.shared),
                program.clone(),
                index,
            ));
        }
        pool
    }

    /// The same searches on `threads` threads of this process at `SCHED_IDLE`, for the unit
    /// tests (module docs).
    pub fn in_process(threads: usize, capacity: usize) -> EnginePool {
        let pool = EnginePool::with(threads, capacity);
        for index in 0..pool.shared.workers {
            let shared = Arc::downgrade(&pool.shared);
            let spawned = std::thread::Builder::new()
                .name(format!("engine-{index}"))
                .spawn(move || search_here(&shared));
            if let Err(e) = spawned {
                tracing::error!(cause = %e, "could not start an engine thread");
            }
        }
        pool
    }

    fn with(workers: usize, capacity: usize) -> EnginePool {
        EnginePool {
            shared: Arc::new(Shared {
                queues: Mutex::new(Queues::default()),
                arrived: Notify::new(),
                ready: Condvar::new(),
                capacity,
                workers: workers.max(1),
                started: std::sync::atomic::AtomicU64::new(0),
                lost: std::sync::atomic::AtomicU64::new(0),
                pids: Mutex::new(vec![None; workers.max(1)]),
            }),
        }
    }

    /// How many searches may run at once.
    pub fn threads(&self) -> usize {
        self.shared.workers
    }

    /// How many searches a worker or thread has taken so far.
    pub fn searches_started(&self) -> u64 {
        self.shared
            .started
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How many searches were lost with their worker so far.
    pub fn searches_lost(&self) -> u64 {
        self.shared.lost.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The process ids of the workers running now (none for [`EnginePool::in_process`]).
    pub fn worker_pids(&self) -> Vec<u32> {
        let pids = self.shared.pids.lock().unwrap_or_else(|e| e.into_inner());
        pids.iter().flatten().copied().collect()
    }

    /// How many jobs wait for a worker: above zero, every worker is busy.
    pub fn waiting(&self) -> usize {
        self.shared.queues().waiting()
    }

    /// The computer's move: the action `search` (a [`Search::Move`]) finds, or None.
    ///
    /// # Errors
    /// [`PoolError`]: full, closed, or the search lost with its worker.
    pub async fn best_move(
        &self,
        search: Search,
        cancel: Cancel,
    ) -> Result<Option<String>, PoolError> {
        match self.run(Priority::Play, search, cancel).await? {
            Answer::Move { action } => Ok(action),
            Answer::Unreadable { message } => {
                tracing::error!(message, "the computer's position did not parse");
                Ok(None)
            }
            Answer::Evaluation { .. } => Err(PoolError::Lost),
        }
    }

    /// An analysis: `position` of `variant` searched to `nodes`. The inner error: the
    /// position does not parse.
    ///
    /// # Errors
    /// [`PoolError`]: full, closed, or the search lost with its worker.
    pub async fn evaluate(
        &self,
        variant: Variant,
        position: String,
        nodes: u64,
    ) -> Result<Result<Evaluation, String>, PoolError> {
        let search = Search::Evaluate {
            variant,
            position,
            nodes,
        };
        match self.run(Priority::Analysis, search, Cancel::new()).await? {
            Answer::Evaluation { evaluation } => Ok(Ok(evaluation)),
            Answer::Unreadable { message } => Ok(Err(message)),
            Answer::Move { .. } => Err(PoolError::Lost),
        }
    }

    async fn run(
        &self,
        priority: Priority,
        search: Search,
        cancel: Cancel,
    ) -> Result<Answer, PoolError> {
        let (reply, answer) = oneshot::channel();
        let job = Job {
            search,
            cancel,
            reply,
        };
        {
            let mut queues = self.shared.queues();
            if queues.closed {
                return Err(PoolError::Closed);
            }
            if queues.waiting() >= self.shared.capacity {
                return Err(PoolError::Busy);
            }
            match priority {
                Priority::Play => queues.play.push_back(job),
                Priority::Analysis => queues.analysis.push_back(job),
            }
        }
        self.shared.arrived.notify_one();
        self.shared.ready.notify_one();
        answer.await.map_err(|_| PoolError::Closed)?
    }

    /// Refuses new jobs; the workers stop once the waiting ones are done.
    pub fn close(&self) {
        self.shared.queues().closed = true;
        self.shared.arrived.notify_waiters();
        self.shared.ready.notify_all();
    }
}

/// A running worker process and its pipes.
struct Worker {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    /// The last job number sent: answers to earlier ones are stale.
    last_job: u64,
}

/// How often a running search's cancel flag is looked at.
const CANCEL_POLL: Duration = Duration::from_millis(20);
/// The pause before starting a worker again after one failed to start.
const RESTART_PAUSE: Duration = Duration::from_millis(500);

impl Worker {
    fn start(program: &PathBuf) -> std::io::Result<Worker> {
        let mut child = tokio::process::Command::new(program)
            .arg("engine-worker")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the worker has no pipes"));
        };
        Ok(Worker {
            child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
            last_job: 0,
        })
    }

    async fn send(&mut self, message: &ToWorker) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.stdin.write_all(&line).await?;
        self.stdin.flush().await
    }

    /// Has the worker search `search`, passing a cancellation on; the answer, or why the
    /// worker is to be let go (it died, or overstayed the deadline).
    async fn search(&mut self, search: Search, cancel: &Cancel) -> Result<Answer, String> {
        self.last_job += 1;
        let job = self.last_job;
        let deadline = tokio::time::Instant::now() + search.deadline();
        self.send(&ToWorker::Search { job, search })
            .await
            .map_err(|e| format!("cannot write to the worker: {e}"))?;
        let mut cancel_sent = false;
        let mut polls = tokio::time::interval(CANCEL_POLL);
        loop {
            tokio::select! {
                line = self.stdout.next_line() => match line {
                    Ok(Some(line)) => match serde_json::from_str::<FromWorker>(&line) {
                        Ok(answer) if answer.job == job => return Ok(answer.answer),
                        Ok(_) => {}
                        Err(e) => return Err(format!("an unreadable answer ({e})")),
                    },
                    Ok(None) => return Err("the worker exited".into()),
                    Err(e) => return Err(format!("cannot read the worker: {e}")),
                },
                _ = polls.tick(), if !cancel_sent => {
                    if cancel.is_cancelled() {
                        cancel_sent = true;
                        self.send(&ToWorker::Cancel { job })
                            .await
                            .map_err(|e| format!("cannot write to the worker: {e}"))?;
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err("the worker overstayed its search's deadline".into())
                }
            }
        }
    }
}

/// One worker's task: takes jobs, has its worker search them, and starts the worker again
/// after one is lost; until the pool closes.
async fn keep_worker(shared: Arc<Shared>, program: PathBuf, index: usize) {
    let mut worker: Option<Worker> = None;
    while let Some(job) = shared.next_job().await {
        if job.reply.is_closed() {
            // Nobody waits for it any more (the game moved on).
            continue;
        }
        let mut running = match worker.take() {
            Some(running) => running,
            None => match Worker::start(&program) {
                Ok(started) => {
                    shared.set_pid(index, started.child.id());
                    started
                }
                Err(e) => {
                    tracing::error!(index, cause = %e, program = %program.display(),
                        "cannot start an engine worker");
                    let _ = job.reply.send(Err(PoolError::Lost));
                    tokio::time::sleep(RESTART_PAUSE).await;
                    continue;
                }
            },
        };
        match running.search(job.search, &job.cancel).await {
            Ok(answer) => {
                let _ = job.reply.send(Ok(answer));
                worker = Some(running);
            }
            Err(why) => {
                tracing::warn!(index, why, "an engine worker was lost with its search");
                shared
                    .lost
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                shared.set_pid(index, None);
                let _ = job.reply.send(Err(PoolError::Lost));
                // Killed at once (kill_on_drop), not waited for.
                let _ = running.child.start_kill();
            }
        }
    }
}

/// A search thread of [`EnginePool::in_process`]: takes jobs until the pool is closed or gone.
fn search_here(shared: &std::sync::Weak<Shared>) {
    idle_scheduling();
    let mut engine = Engine::new(Variant::Suicide);
    loop {
        let Some(pool) = shared.upgrade() else {
            return;
        };
        let job = {
            let mut queues = pool.queues();
            loop {
                if let Some(job) = queues.next() {
                    pool.started
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    break Some(job);
                }
                if queues.closed || Arc::strong_count(&pool) == 1 {
                    break None;
                }
                // Woken by a new job or by `close`; the timeout notices a pool whose last
                // handle was dropped.
                queues = pool
                    .ready
                    .wait_timeout(queues, Duration::from_secs(1))
                    .map(|(guard, _)| guard)
                    .unwrap_or_else(|e| e.into_inner().0);
            }
        };
        drop(pool);
        let Some(job) = job else {
            return;
        };
        let Job {
            search,
            cancel,
            reply,
        } = job;
        // A search that panics loses its answer (its caller sees `Lost`), not the thread.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            carry_out(&mut engine, search, &cancel)
        }));
        match ran {
            Ok(answer) => {
                let _ = reply.send(Ok(answer));
            }
            Err(_) => {
                tracing::error!("an engine search panicked");
                pool_lost(shared);
                let _ = reply.send(Err(PoolError::Lost));
                engine = Engine::new(Variant::Suicide);
            }
        }
    }
}

/// Counts a search lost on a thread of [`EnginePool::in_process`].
fn pool_lost(shared: &std::sync::Weak<Shared>) {
    if let Some(pool) = shared.upgrade() {
        pool.lost.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Puts the calling thread (and the threads it starts later) under Linux's `SCHED_IDLE`
/// policy: a waking normal thread preempts it at once, and it gets a core only when nothing
/// else wants one, within its autogroup (every process, without autogroups). Elsewhere, or if
/// refused, the thread stays at normal priority, which is only less polite.
pub fn idle_scheduling() {
    #[cfg(target_os = "linux")]
    {
        use thread_priority::unix::{
            set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
            ThreadSchedulePolicy,
        };
        let policy = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        if let Err(e) = set_thread_priority_and_policy(
            thread_native_id(),
            thread_priority::ThreadPriority::Min,
            policy,
        ) {
            tracing::warn!(cause = ?e, "engine thread keeps normal priority");
        }
    }
}

/// Whether Linux splits the CPU between sessions before threads ("autogroups",
/// `kernel.sched_autogroup_enabled`): then a worker lowers its session's priority
/// ([`crate::engine_worker`]).
pub fn cpu_split_by_session() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled")
        .is_ok_and(|text| text.trim() == "1")
}

/// What the unit tests of the pool's users need: a search that holds a worker until
/// cancelled, and a wait for the searches taken.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A level-8 move given a minute: it holds its worker until cancelled.
    pub fn long_move() -> Search {
        Search::Move {
            variant: Variant::Suicide,
            position: oddboard_rules::AnyGame::start(Variant::Suicide)
                .map(|g| g.position())
                .unwrap_or_default(),
            level: 8,
            seed: 1,
            think_ms: 60_000,
        }
    }

    /// Waits until `pool` has taken `count` searches.
    pub async fn taken(pool: &EnginePool, count: u64) {
        while pool.searches_started() < count {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{long_move, taken};
    use super::*;

    fn evaluate_start(nodes: u64) -> Search {
        Search::Evaluate {
            variant: Variant::Suicide,
            position: oddboard_rules::AnyGame::start(Variant::Suicide)
                .map(|g| g.position())
                .unwrap_or_default(),
            nodes,
        }
    }

    #[tokio::test]
    async fn runs_searches_and_answers() {
        let pool = EnginePool::in_process(2, 8);
        let answer = pool
            .run(Priority::Analysis, evaluate_start(2_000), Cancel::new())
            .await;
        assert!(
            matches!(answer, Ok(Answer::Evaluation { ref evaluation }) if evaluation.best.is_some()),
            "{answer:?}"
        );
        let unreadable = pool
            .evaluate(Variant::Suicide, "not a position".into(), 100)
            .await;
        assert!(matches!(unreadable, Ok(Err(_))), "{unreadable:?}");
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once_and_play_goes_first() {
        let pool = EnginePool::in_process(1, 2);
        // The one thread is held by a long search, cancelled below.
        let hold = Cancel::new();
        let held = tokio::spawn({
            let (pool, hold) = (pool.clone(), hold.clone());
            async move { pool.best_move(long_move(), hold).await }
        });
        taken(&pool, 1).await;
        // An analysis long enough to outlast the play job, queued first.
        let analysis = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(Priority::Analysis, evaluate_start(300_000), Cancel::new())
                    .await
            }
        });
        while pool.waiting() < 1 {
            tokio::task::yield_now().await;
        }
        let play = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(Priority::Play, evaluate_start(100), Cancel::new())
                    .await
            }
        });
        while pool.waiting() < 2 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            pool.run(Priority::Play, evaluate_start(1), Cancel::new())
                .await,
            Err(PoolError::Busy)
        );
        // Cancelled, the long search answers at once with what it found.
        hold.cancel();
        assert!(matches!(held.await, Ok(Ok(Some(_)))));
        // Play, queued second, ran first: the analysis is still searching when it is done.
        assert!(matches!(play.await, Ok(Ok(Answer::Evaluation { .. }))));
        assert!(!analysis.is_finished());
        analysis.abort();
    }
}
