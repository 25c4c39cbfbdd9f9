//! The engine pool: a fixed number of OS threads, apart from the async runtime, on which every
//! engine search runs (the computer's moves, game analyses), so that a search never holds up
//! a runtime thread and the human games keep their speed.
//!
//! - **Bounded.** At most `threads` searches run at once and at most `capacity` wait; beyond
//!   that a job is refused at once ([`PoolError::Busy`]) rather than queued without end.
//! - **Polite.** The threads run under Linux's `SCHED_IDLE` policy: the kernel gives them a
//!   core only when nothing else (a runtime thread answering a move, PostgreSQL) wants it,
//!   and a waking thread preempts them at once, so a search costs the human games almost
//!   nothing. The searches stop on wall-clock time, so starved of CPU they simply search less
//!   deep: under pressure the computer thinks less. (Linux's autogroups defeat this across
//!   processes: see [`cpu_split_by_session`].)
//! - **Two queues.** A computer's move, whose clock is running, is taken before any waiting
//!   analysis.
//!
//! Each thread keeps one [`Engine`] and its transposition table from job to job; a table
//! entry is checked against the whole position hash, so positions of other games never
//! mislead a search, and a warm table serves the next move of the same game.

use oddboard_engine::Engine;
use oddboard_rules::Variant;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use tokio::sync::oneshot;

/// A job: what to do with the thread's engine.
type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// Which queue a job waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A computer's move: its clock is running.
    Play,
    /// An analysis of a finished game: it waits for every move.
    Analysis,
}

/// Why the pool did not run a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("the engine pool is full; try again shortly")]
    Busy,
    #[error("the engine pool has shut down")]
    Closed,
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
    ready: Condvar,
    capacity: usize,
    threads: usize,
}

impl Shared {
    fn queues(&self) -> MutexGuard<'_, Queues> {
        // Queues of boxed jobs: a panic elsewhere cannot leave them inconsistent.
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The pool's handle. Cheap to clone; the threads stop once every handle is dropped and the
/// queues are empty.
#[derive(Clone)]
pub struct EnginePool {
    shared: Arc<Shared>,
}

impl EnginePool {
    /// Starts `threads` search threads (at least one) with room for `capacity` waiting jobs.
    pub fn new(threads: usize, capacity: usize) -> EnginePool {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            queues: Mutex::new(Queues::default()),
            ready: Condvar::new(),
            capacity,
            threads,
        });
        for index in 0..threads {
            let worker = Arc::downgrade(&shared);
            let spawned = std::thread::Builder::new()
                .name(format!("engine-{index}"))
                .spawn(move || work(&worker));
            if let Err(e) = spawned {
                tracing::error!(cause = %e, "could not start an engine thread");
            }
        }
        EnginePool { shared }
    }

    /// How many searches may run at once.
    pub fn threads(&self) -> usize {
        self.shared.threads
    }

    /// How many jobs wait for a thread: above zero, every thread is busy.
    pub fn waiting(&self) -> usize {
        self.shared.queues().waiting()
    }

    /// Runs `job` on a search thread and returns its answer.
    ///
    /// # Errors
    /// [`PoolError::Busy`] when `capacity` jobs already wait, [`PoolError::Closed`] when the
    /// pool is gone or the job panicked.
    pub async fn run<T, F>(&self, priority: Priority, job: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Engine) -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.submit(
            priority,
            Box::new(move |engine| {
                let _ = tx.send(job(engine));
            }),
        )?;
        rx.await.map_err(|_| PoolError::Closed)
    }

    fn submit(&self, priority: Priority, job: Job) -> Result<(), PoolError> {
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
        drop(queues);
        self.shared.ready.notify_one();
        Ok(())
    }

    /// Refuses new jobs and lets the threads stop once the waiting ones are done.
    pub fn close(&self) {
        self.shared.queues().closed = true;
        self.shared.ready.notify_all();
    }
}

/// A search thread: takes jobs until the pool is closed or gone.
fn work(shared: &std::sync::Weak<Shared>) {
    lower_priority();
    let mut engine = Engine::new(Variant::Suicide);
    loop {
        let Some(pool) = shared.upgrade() else {
            return;
        };
        let job = {
            let mut queues = pool.queues();
            loop {
                if let Some(job) = queues.next() {
                    break Some(job);
                }
                if queues.closed || Arc::strong_count(&pool) == 1 {
                    break None;
                }
                // Woken by a new job or by `close`; the timeout notices a pool whose last
                // handle was dropped.
                queues = pool
                    .ready
                    .wait_timeout(queues, std::time::Duration::from_secs(1))
                    .map(|(guard, _)| guard)
                    .unwrap_or_else(|e| e.into_inner().0);
            }
        };
        drop(pool);
        let Some(job) = job else {
            return;
        };
        // A job that panics loses its answer (its caller sees `Closed`), not the thread.
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&mut engine)));
        if ran.is_err() {
            tracing::error!("an engine job panicked");
            engine = Engine::new(Variant::Suicide);
        }
    }
}

/// Puts the calling thread under Linux's `SCHED_IDLE` policy: a waking normal thread (a
/// runtime thread with a move to answer, PostgreSQL) preempts it at once, and it gets a core
/// only when nothing else wants one. Measured with both engine threads searching, a paced
/// load's p99 stayed within the noise of its figure without them (`docs/performance.md`);
/// at nice 19 instead it was 2.5 times as high, the woken threads waiting for the searches'
/// time slices. On a machine saturated by other work the searches get almost no CPU and stop
/// at their wall-clock time having searched little. Elsewhere, or if refused, the thread
/// stays at normal priority, which is only less polite.
fn lower_priority() {
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
/// `kernel.sched_autogroup_enabled`). Then a thread's low priority counts only against the
/// threads of its own process: PostgreSQL and other processes share the CPU with a busy
/// engine thread as with any busy process, and the human games' latency suffers (ten times the
/// p99, `docs/performance.md`). The server warns at start; `docs/operations.md` says what to
/// set.
pub fn cpu_split_by_session() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/sched_autogroup_enabled")
        .is_ok_and(|text| text.trim() == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_jobs_and_answers() {
        let pool = EnginePool::new(2, 8);
        let answer = pool
            .run(Priority::Play, |engine| engine.variant())
            .await
            .map_err(|e| e.to_string());
        assert_eq!(answer, Ok(Variant::Suicide));
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let pool = EnginePool::new(1, 1);
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = oneshot::channel();
        // The one thread is held busy; one job may wait, the next is refused.
        let first = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(Priority::Play, move |_| {
                    let _ = started_tx.send(());
                    let _ = hold_rx.recv();
                })
                .await
            }
        });
        started_rx.await.ok();
        let second = tokio::spawn({
            let pool = pool.clone();
            async move { pool.run(Priority::Analysis, |_| 2).await }
        });
        while pool.waiting() == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(pool.run(Priority::Play, |_| 3).await, Err(PoolError::Busy));
        hold_tx.send(()).ok();
        assert!(matches!(first.await, Ok(Ok(()))));
        assert!(matches!(second.await, Ok(Ok(2))));
    }

    #[tokio::test]
    async fn play_goes_before_analysis() {
        let pool = EnginePool::new(1, 8);
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let (started_tx, started_rx) = oneshot::channel();
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(Priority::Play, move |_| {
                    let _ = started_tx.send(());
                    let _ = hold_rx.recv();
                })
                .await
            }
        });
        started_rx.await.ok();
        let mut waiting = Vec::new();
        for (priority, name) in [(Priority::Analysis, "analysis"), (Priority::Play, "play")] {
            let runner = pool.clone();
            let order = order.clone();
            waiting.push(tokio::spawn(async move {
                runner
                    .run(priority, move |_| {
                        order.lock().unwrap_or_else(|e| e.into_inner()).push(name);
                    })
                    .await
            }));
            while pool.waiting() < waiting.len() {
                tokio::task::yield_now().await;
            }
        }
        hold_tx.send(()).ok();
        assert!(held.await.is_ok());
        for job in waiting {
            assert!(matches!(job.await, Ok(Ok(()))));
        }
        assert_eq!(
            *order.lock().unwrap_or_else(|e| e.into_inner()),
            vec!["play", "analysis"]
        );
    }

    #[tokio::test]
    async fn a_panicking_job_loses_only_its_answer() {
        let pool = EnginePool::new(1, 4);
        let lost = pool
            .run(Priority::Analysis, |_| -> u8 { panic!("a bad job") })
            .await;
        assert_eq!(lost, Err(PoolError::Closed));
        assert_eq!(pool.run(Priority::Play, |_| 7).await, Ok(7));
    }
}
