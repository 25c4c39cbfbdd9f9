//! Game analysis: the engine's score after every ply of a finished game, the best line at
//! each position and the moves where the score dropped most, for the replay page
//! (`GET /api/games/{id}/analysis`).
//!
//! - **Only finished games.** Analysing a game in progress would be a computer's help in
//!   it: [`positions`] refuses one.
//! - **Bounded.** Every search runs on the [`EnginePool`] at [`Priority::Analysis`](crate::engine_pool::Priority::Analysis), one
//!   position at a time per game, within a node budget (so its CPU is bounded and its answer
//!   deterministic). At most [`AnalysisSettings::games_at_once`] games are analysed at once
//!   server-wide; a request past that is answered [`Status::Busy`] at once, with what the
//!   cache already knows, and nothing waits in a queue. Each game has at most one analysis.
//! - **Progressive.** A game's analysis is a background task that fills its plies in order
//!   while anyone polls it; unpolled for [`AnalysisSettings::idle_stop`], it stops (and a
//!   later poll resumes it).
//! - **Cached per position** ([`cache`]): (variant, position text) → evaluation, within a byte
//!   budget, so a second request, or another game through the same position, costs nothing.
//!
//! The web layer rate-limits the start of the work (the `admit` check of
//! [`Analyses::start`]); polls, and requests the cache answers whole, are free.

pub mod cache;
pub mod evaluate;

pub use evaluate::{drops, evaluate, positions, Evaluation, Position, PositionsError, ScoreDrop};

use crate::engine_pool::{EnginePool, PoolError};
use crate::rules::Variant;
use cache::Cache;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most-dropped moves a report lists.
pub const DROPS_SHOWN: usize = 5;

/// How the analysis service is bounded.
#[derive(Clone, Copy, Debug)]
pub struct AnalysisSettings {
    /// The node budget of one position's search in the fastest variants (about 200 ms of
    /// one core in a release build); [`AnalysisSettings::budget`] scales it per variant.
    pub nodes: u64,
    /// Games analysed at once, server-wide.
    pub games_at_once: usize,
    /// Games whose analyses are remembered (finished or not) beyond those running.
    pub games_kept: usize,
    /// Positions of the longest game analysed (its plies and the start).
    pub max_positions: usize,
    /// The cache's byte budget.
    pub cache_bytes: usize,
    /// An analysis nobody polled for this long stops.
    pub idle_stop: Duration,
    /// How long an analysis waits when the engine pool is full before trying again, and how
    /// many times in a row it tries before it gives up (as [`Status::Busy`]).
    pub pool_wait: Duration,
    pub pool_tries: u32,
}

/// The default node budget of one position: about 200 ms of one core in a release build.
/// An unoptimised build searches some thirty times slower, so it gets a budget of the same
/// time rather than the same nodes (its answers are shallower, not wrong).
pub const NODES: u64 = if cfg!(debug_assertions) {
    5_000
} else {
    150_000
};

impl AnalysisSettings {
    /// The node budget of one position of `variant`: the same time, roughly, in each (a
    /// Davey Drehs search weighs dice outcomes and visits fewer nodes a second; Chad's boards are
    /// larger). Measured with `oddboard rules analyse <variant> --movetime 1000`: about
    /// 800k nodes a CPU second in Suicide, Chazz and Duel, 570k in Chad, 360k in Drehs.
    pub fn budget(&self, variant: Variant) -> u64 {
        let percent = match variant {
            Variant::Drehs => 40,
            Variant::Chad => 70,
            _ => 100,
        };
        (self.nodes * percent / 100).max(1)
    }
}

impl Default for AnalysisSettings {
    fn default() -> AnalysisSettings {
        AnalysisSettings {
            nodes: NODES,
            games_at_once: 2,
            games_kept: 64,
            max_positions: 1000,
            cache_bytes: 32 << 20,
            idle_stop: Duration::from_secs(30),
            pool_wait: Duration::from_millis(250),
            pool_tries: 40,
        }
    }
}

/// Where a game's analysis is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Being computed: more plies come.
    Running,
    /// Every ply is evaluated.
    Done,
    /// Not being computed now: the server was analysing as many games as it may, or its
    /// engines were full, or nobody polled for a while. Asking again resumes it.
    Busy,
}

/// One ply's evaluation: the position after ply `ply` (0 is the start).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PlyAnalysis {
    pub ply: u32,
    #[serde(flatten)]
    pub evaluation: Evaluation,
}

/// A game's analysis so far.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AnalysisReport {
    pub game_id: Uuid,
    pub variant: Variant,
    pub status: Status,
    /// Plies evaluated so far, of `plies.len()`.
    pub analysed: usize,
    /// The node budget of each position's search.
    pub nodes_per_position: u64,
    /// One entry per position, the start first: `plies[n]` is the position after ply n;
    /// null while not evaluated yet.
    pub plies: Vec<Option<PlyAnalysis>>,
    /// The moves after which the score fell most for the side that played them, largest
    /// fall first (at most 5), among the plies evaluated so far.
    pub drops: Vec<ScoreDrop>,
}

/// Why [`Analyses::start`] did not start.
#[derive(Debug)]
pub enum StartError<E> {
    /// The `admit` check refused.
    Refused(E),
    /// The game has more than [`AnalysisSettings::max_positions`] positions.
    TooLong,
}

struct JobState {
    evaluations: Vec<Option<Evaluation>>,
    status: Status,
    last_polled: Instant,
}

/// One game's analysis.
struct Job {
    game_id: Uuid,
    variant: Variant,
    positions: Vec<Position>,
    state: Mutex<JobState>,
}

impl Job {
    fn state(&self) -> MutexGuard<'_, JobState> {
        // Plain data, each field written whole: a panic elsewhere leaves nothing half-done.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn report(&self, nodes: u64) -> AnalysisReport {
        let state = self.state();
        let plies = state
            .evaluations
            .iter()
            .enumerate()
            .map(|(ply, e)| {
                e.clone().map(|evaluation| PlyAnalysis {
                    ply: u32::try_from(ply).unwrap_or(u32::MAX),
                    evaluation,
                })
            })
            .collect();
        AnalysisReport {
            game_id: self.game_id,
            variant: self.variant,
            status: state.status,
            analysed: state.evaluations.iter().flatten().count(),
            nodes_per_position: nodes,
            plies,
            drops: drops(&self.positions, &state.evaluations, DROPS_SHOWN),
        }
    }
}

struct Inner {
    settings: AnalysisSettings,
    cache: Mutex<Cache>,
    jobs: Mutex<HashMap<Uuid, Arc<Job>>>,
    slots: Arc<Semaphore>,
}

impl Inner {
    fn cache(&self) -> MutexGuard<'_, Cache> {
        // A map of whole entries: a panic elsewhere cannot leave one half-written.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn jobs(&self) -> MutexGuard<'_, HashMap<Uuid, Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The analysis service of one server. Cheap to clone.
#[derive(Clone)]
pub struct Analyses {
    inner: Arc<Inner>,
}

impl Analyses {
    pub fn new(settings: AnalysisSettings) -> Analyses {
        Analyses {
            inner: Arc::new(Inner {
                settings,
                cache: Mutex::new(Cache::new(settings.cache_bytes)),
                jobs: Mutex::new(HashMap::new()),
                slots: Arc::new(Semaphore::new(settings.games_at_once.max(1))),
            }),
        }
    }

    pub fn settings(&self) -> &AnalysisSettings {
        &self.inner.settings
    }

    /// Games being analysed now.
    pub fn running(&self) -> usize {
        self.inner.settings.games_at_once.max(1) - self.inner.slots.available_permits()
    }

    /// Entries in the cache, and its hits and misses so far.
    pub fn cache_stats(&self) -> (usize, u64, u64) {
        let cache = self.inner.cache();
        let (hits, misses) = cache.hits_and_misses();
        (cache.len(), hits, misses)
    }

    /// The report of a game whose analysis is running or done, counted as a poll; None
    /// when there is none (or it stopped), which [`Analyses::start`] (re)starts.
    pub fn existing(&self, game_id: Uuid) -> Option<AnalysisReport> {
        let job = self.inner.jobs().get(&game_id).cloned()?;
        {
            let mut state = job.state();
            if state.status == Status::Busy {
                return None;
            }
            state.last_polled = Instant::now();
        }
        Some(job.report(self.inner.settings.budget(job.variant)))
    }

    /// The report of the game with these `positions`, starting its analysis if it is not
    /// running or done: what the cache knows is filled in at once, and the rest is computed
    /// in the background when a slot is free and `admit` agrees (the caller's rate limit).
    /// With no slot free the report says [`Status::Busy`], and nothing is queued.
    ///
    /// # Errors
    /// The game is too long, or `admit` refused.
    pub fn start<E>(
        &self,
        game_id: Uuid,
        variant: Variant,
        positions: Vec<Position>,
        pool: &EnginePool,
        admit: impl FnOnce() -> Result<(), E>,
    ) -> Result<AnalysisReport, StartError<E>> {
        if positions.len() > self.inner.settings.max_positions {
            return Err(StartError::TooLong);
        }
        let nodes = self.inner.settings.budget(variant);
        let mut jobs = self.inner.jobs();
        if let Some(job) = jobs.get(&game_id) {
            let mut state = job.state();
            if state.status != Status::Busy {
                state.last_polled = Instant::now();
                drop(state);
                return Ok(job.report(nodes));
            }
        }
        let evaluations = self.cached(variant, &positions);
        let complete = evaluations.iter().all(Option::is_some);
        let permit = if complete {
            None
        } else {
            match self.inner.slots.clone().try_acquire_owned() {
                Ok(permit) => {
                    admit().map_err(StartError::Refused)?;
                    Some(permit)
                }
                Err(_) => None,
            }
        };
        let status = match (complete, &permit) {
            (true, _) => Status::Done,
            (false, Some(_)) => Status::Running,
            (false, None) => Status::Busy,
        };
        let job = Arc::new(Job {
            game_id,
            variant,
            positions,
            state: Mutex::new(JobState {
                evaluations,
                status,
                last_polled: Instant::now(),
            }),
        });
        self.forget_old_jobs(&mut jobs);
        jobs.insert(game_id, job.clone());
        drop(jobs);
        if let Some(permit) = permit {
            tokio::spawn(run(self.inner.clone(), job.clone(), pool.clone(), permit));
        }
        Ok(job.report(nodes))
    }

    /// Each position's evaluation if the rules ended the game there or the cache has it.
    fn cached(&self, variant: Variant, positions: &[Position]) -> Vec<Option<Evaluation>> {
        let mut cache = self.inner.cache();
        positions
            .iter()
            .map(|p| match p.outcome {
                Some(outcome) => Some(Evaluation::over(outcome)),
                None => cache.get(variant, &p.text),
            })
            .collect()
    }

    /// Makes room for one more job: drops the least recently polled of those not running.
    fn forget_old_jobs(&self, jobs: &mut HashMap<Uuid, Arc<Job>>) {
        let keep = self.inner.settings.games_kept.max(1);
        while jobs.len() >= keep + self.inner.settings.games_at_once {
            let oldest = jobs
                .iter()
                .filter_map(|(id, job)| {
                    let state = job.state();
                    (state.status != Status::Running).then_some((state.last_polled, *id))
                })
                .min();
            let Some((_, id)) = oldest else {
                return;
            };
            jobs.remove(&id);
        }
    }
}

/// A game's analysis task: evaluates its positions in order, each from the cache or as one
/// engine pool job, until all are done, nobody polls, or the pool stays full.
async fn run(inner: Arc<Inner>, job: Arc<Job>, pool: EnginePool, _slot: OwnedSemaphorePermit) {
    let settings = inner.settings;
    for (ply, position) in job.positions.iter().enumerate() {
        {
            let state = job.state();
            if state.evaluations[ply].is_some() {
                continue;
            }
            if state.last_polled.elapsed() > settings.idle_stop {
                drop(state);
                job.state().status = Status::Busy;
                return;
            }
        }
        let cached = inner.cache().get(job.variant, &position.text);
        let evaluation = match cached {
            Some(evaluation) => evaluation,
            None => match search(&pool, &settings, job.variant, &position.text).await {
                Searched::Found(evaluation) => {
                    inner
                        .cache()
                        .insert(job.variant, &position.text, evaluation.clone());
                    evaluation
                }
                // The stored position does not parse: an analysis of the rest still helps.
                Searched::Unreadable => continue,
                Searched::Busy => {
                    job.state().status = Status::Busy;
                    return;
                }
            },
        };
        job.state().evaluations[ply] = Some(evaluation);
    }
    job.state().status = Status::Done;
}

enum Searched {
    Found(Evaluation),
    Unreadable,
    Busy,
}

/// One position's search on the pool, waiting out a full pool a bounded number of times.
async fn search(
    pool: &EnginePool,
    settings: &AnalysisSettings,
    variant: Variant,
    text: &str,
) -> Searched {
    let nodes = settings.budget(variant);
    for _ in 0..settings.pool_tries.max(1) {
        // With a fresh table (the worker's own serves the computer's games), so that the
        // answer depends on the position alone.
        let answer = pool.evaluate(variant, text.to_string(), nodes).await;
        match answer {
            Ok(Ok(evaluation)) => return Searched::Found(evaluation),
            Ok(Err(e)) => {
                tracing::error!(%variant, cause = %e, "a stored position does not parse");
                return Searched::Unreadable;
            }
            Err(PoolError::Closed) => return Searched::Busy,
            // Full, or lost with its worker: try again shortly.
            Err(PoolError::Busy | PoolError::Lost) => {
                tokio::time::sleep(settings.pool_wait).await;
            }
        }
    }
    Searched::Busy
}

#[cfg(test)]
mod tests;
