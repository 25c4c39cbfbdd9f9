//! A search worker: the process `oddboard engine-worker`, which the [`crate::engine_pool`]
//! starts one of per core and feeds one search at a time over its stdin, one JSON line each
//! ([`ToWorker`]), reading each answer from its stdout ([`FromWorker`]).
//!
//! Searches run here rather than in the server because of Linux's autogroups
//! (`kernel.sched_autogroup_enabled`, on by default): the kernel shares the CPU between
//! sessions before threads, so a thread's low priority counts only against the threads of
//! its own process, and a server whose engine threads search at `SCHED_IDLE` still took half
//! the CPU from PostgreSQL and its own runtime (human games' p99 12-43 times as high,
//! `docs/performance.md`). A worker starts a session of its own and sets that session's
//! autogroup to nice 19, the lowest an unprivileged process may choose, so the whole worker
//! weighs 15 against a normal session's 1024. Its threads also run at `SCHED_IDLE`: a normal
//! thread waking on a core where one of them runs preempts it at once (without autogroups
//! that alone holds against every other process).
//!
//! Positions cross the pipe in each variant's notation: the state is exact (dice of Davey
//! Drehs included as the notation has them), but the game's earlier positions are not
//! carried, so a repetition with a position before the search's root is not seen.

use crate::evaluation::{evaluate, Evaluation};
use oddboard_engine::{Cancel, Engine, Level, Limits};
use oddboard_rules::{AnyGame, Variant};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// A search to make.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "search", rename_all = "snake_case")]
pub enum Search {
    /// The computer's move: the best action in `position` at `level`, within `think_ms` of
    /// wall-clock time (and the level's own limits).
    Move {
        variant: Variant,
        position: String,
        level: u8,
        seed: u64,
        think_ms: u64,
    },
    /// An analysis: `position` searched to `nodes` with a fresh table, so that the answer
    /// depends on the position alone.
    Evaluate {
        variant: Variant,
        position: String,
        nodes: u64,
    },
}

impl Search {
    /// How long the search may take before its worker is taken for hung: its own time,
    /// twice over, and a margin for a machine busy with human games (the worker runs only
    /// when nothing else wants the CPU, and a node-bound analysis stops on nodes alone).
    pub fn deadline(&self) -> Duration {
        match self {
            Search::Move { think_ms, .. } => {
                Duration::from_millis(think_ms.saturating_mul(2)) + Duration::from_secs(20)
            }
            Search::Evaluate { .. } => Duration::from_secs(120),
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// The computer's action in machine notation; None when it has none (the game is over)
    /// or the search was cancelled before it found one.
    Move {
        action: Option<String>,
    },
    Evaluation {
        evaluation: Evaluation,
    },
    /// The position did not parse.
    Unreadable {
        message: String,
    },
}

/// One line to a worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ToWorker {
    Search {
        job: u64,
        search: Search,
    },
    /// Stop job `job` if it is still searching: it answers at once with what it has.
    Cancel {
        job: u64,
    },
}

/// One line from a worker: the answer to job `job`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FromWorker {
    pub job: u64,
    pub answer: Answer,
}

/// Carries out `search` with `engine` (kept from search to search: its warm table serves the
/// next move of the same game, and an entry is checked against the whole position hash).
pub fn carry_out(engine: &mut Engine, search: Search, cancel: &Cancel) -> Answer {
    match search {
        Search::Move {
            variant,
            position,
            level,
            seed,
            think_ms,
        } => {
            let game = match AnyGame::from_position(variant, &position) {
                Ok(game) => game,
                Err(e) => {
                    return Answer::Unreadable {
                        message: e.to_string(),
                    }
                }
            };
            let level = Level::new(level);
            let limits = Limits {
                time: Some(Duration::from_millis(think_ms)),
                ..level.limits()
            };
            let found =
                engine.search_styled(&game, &limits, cancel, level.style(game.variant(), seed));
            Answer::Move { action: found.best }
        }
        Search::Evaluate {
            variant,
            position,
            nodes,
        } => match evaluate(variant, &position, nodes) {
            Ok(evaluation) => Answer::Evaluation { evaluation },
            Err(message) => Answer::Unreadable { message },
        },
    }
}

/// The job being searched and how to stop it.
type Current = Arc<Mutex<Option<(u64, Cancel)>>>;

/// The worker's life: lowers its priority, then searches each job `input` brings, one at a
/// time, writing each answer to `output`, until `input` ends (the server closed the pipe or
/// died). A line that does not parse is said on stderr and skipped.
///
/// # Errors
/// Reading `input` fails.
pub fn run(input: impl BufRead, output: impl Write + Send + 'static) -> std::io::Result<()> {
    lower_priority();
    let current: Current = Arc::default();
    let (jobs, searches) = mpsc::channel::<(u64, Search, Cancel)>();
    let searcher = {
        let current = Arc::clone(&current);
        std::thread::Builder::new()
            .name("search".into())
            .spawn(move || search_each(&searches, &current, output))?
    };
    for line in input.lines() {
        let line = line?;
        match serde_json::from_str::<ToWorker>(&line) {
            Ok(ToWorker::Search { job, search }) => {
                let cancel = Cancel::new();
                *lock(&current) = Some((job, cancel.clone()));
                if jobs.send((job, search, cancel)).is_err() {
                    break;
                }
            }
            Ok(ToWorker::Cancel { job }) => {
                if let Some((searching, cancel)) = lock(&current).as_ref() {
                    if *searching == job {
                        cancel.cancel();
                    }
                }
            }
            Err(e) => eprintln!("engine-worker: an unreadable line ({e})"),
        }
    }
    // The server closed the pipe or died: the search under way stops now, not at its time.
    if let Some((_, cancel)) = lock(&current).as_ref() {
        cancel.cancel();
    }
    drop(jobs);
    let _ = searcher.join();
    Ok(())
}

fn lock(current: &Current) -> std::sync::MutexGuard<'_, Option<(u64, Cancel)>> {
    // One slot, written whole: a panic elsewhere cannot leave it half-done.
    current.lock().unwrap_or_else(|e| e.into_inner())
}

/// The search thread: each job in turn, its answer written as one line.
fn search_each(
    searches: &mpsc::Receiver<(u64, Search, Cancel)>,
    current: &Current,
    mut output: impl Write,
) {
    let mut engine = Engine::new(Variant::Suicide);
    for (job, search, cancel) in searches {
        let answer = carry_out(&mut engine, search, &cancel);
        {
            let mut slot = lock(current);
            if slot
                .as_ref()
                .is_some_and(|(searching, _)| *searching == job)
            {
                *slot = None;
            }
        }
        let line = serde_json::to_string(&FromWorker { job, answer }).unwrap_or_default();
        if writeln!(output, "{line}")
            .and_then(|()| output.flush())
            .is_err()
        {
            // The server is gone.
            return;
        }
    }
}

/// A session of its own at the lowest autogroup priority, else `SCHED_IDLE` (module docs).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // A new session is a new autogroup; a process that leads no group may always start one.
        // Its nice sets the worker's share of the CPU against other sessions.
        if nix::unistd::setsid().is_ok() && crate::engine_pool::cpu_split_by_session() {
            let _ = std::fs::write("/proc/self/autogroup", "19");
        }
        // And SCHED_IDLE (the search thread inherits it), for the wake-ups: a normal thread
        // that wakes on a core where a SCHED_IDLE one runs takes the core at once, whatever
        // their groups, where the autogroup's weight alone may let the search end its slice
        // first. On this project's VM the two measure alike, at the floor that any busy
        // process sets there (docs/performance.md).
        crate::engine_pool::idle_scheduling();
    }
}
