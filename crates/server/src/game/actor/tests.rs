//! The game actor through its narrow context, its store an in-memory double that commits,
//! refuses or is away as each test says; time is tokio's paused clock, moved by the test.
//! The real PostgreSQL is the store's and the integration tests' (`tests/it/`).

use super::context::{GameContext, GameStore};
use super::spawn_new;
use crate::game::computer::ComputerPlayers;
use crate::game::{GameError, GameHandle, GameSettings, GameTerms, Games, PlayerRequest, Seat};
use crate::metrics::Metrics;
use crate::play::state::Founding;
use crate::rules::{EndReason, Variant};
use crate::store::{
    ChatRecord, ColorChoice, GameChange, GameRecord, GameStatus, GameWriter, NewChatLine, Store,
    StoreError, TimeControl,
};
use futures_util::future::BoxFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

/// How the double answers a commit.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Commits,
    /// A refusal of the change itself (the database would not take it).
    Refuses,
    /// PostgreSQL is away: nothing is committed, and the store's time stands still.
    Away,
    /// The commit goes through but its answer is lost with the connection: committed, and
    /// answered as if PostgreSQL were away.
    LosesAnswer,
    /// Another node took the game over: its epoch moved on, and nothing is committed.
    Fenced,
}

#[derive(Debug)]
struct Memory {
    mode: Mode,
    committed: Vec<GameChange>,
    /// The epoch each commit carried, committed or not.
    fences: Vec<Option<i64>>,
    /// When the store's time stopped, while it is away.
    away_since: Option<Instant>,
    /// How long the store has been away in all, which its time does not count.
    away_for: Duration,
}

/// The in-memory store: what it committed, in order, and its own time.
struct MemoryStore {
    origin: Instant,
    memory: Mutex<Memory>,
}

impl MemoryStore {
    fn new() -> Arc<MemoryStore> {
        Arc::new(MemoryStore {
            origin: Instant::now(),
            memory: Mutex::new(Memory {
                mode: Mode::Commits,
                committed: Vec::new(),
                fences: Vec::new(),
                away_since: None,
                away_for: Duration::ZERO,
            }),
        })
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn answer(&self, mode: Mode) {
        let mut memory = self.memory();
        if mode != Mode::Away {
            if let Some(since) = memory.away_since.take() {
                memory.away_for += since.elapsed();
            }
        }
        memory.mode = mode;
    }

    fn committed(&self) -> Vec<GameChange> {
        self.memory().committed.clone()
    }

    fn unavailable() -> StoreError {
        StoreError::Unavailable {
            cause: "the test's store is away".into(),
        }
    }
}

impl GameStore for MemoryStore {
    fn commit(
        &self,
        change: GameChange,
        fence: Option<i64>,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        let mut memory = self.memory();
        memory.fences.push(fence);
        // As PostgreSQL's unique key on (game, ply) does.
        if let GameChange::Act(action, _) = &change {
            let taken = memory.committed.iter().any(
                |stored| matches!(stored, GameChange::Act(stored, _) if stored.ply == action.ply),
            );
            if taken {
                let (game_id, ply) = (action.game_id, action.ply);
                return Box::pin(std::future::ready(Err(StoreError::DuplicatePly {
                    game_id,
                    ply,
                })));
            }
        }
        let answer = match memory.mode {
            Mode::Commits => {
                memory.committed.push(change);
                Ok(())
            }
            Mode::LosesAnswer => {
                memory.committed.push(change);
                Err(MemoryStore::unavailable())
            }
            Mode::Fenced => Err(StoreError::Fenced {
                game_id: change.game_id(),
            }),
            Mode::Refuses => Err(StoreError::InvalidValue {
                column: "game_action.machine",
                value: "refused by the test".into(),
            }),
            Mode::Away => {
                // As the writer does: the failed commit is what tells the store it is away.
                memory.away_since.get_or_insert_with(Instant::now);
                Err(MemoryStore::unavailable())
            }
        };
        Box::pin(std::future::ready(answer))
    }

    fn load_game(&self, _: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        Box::pin(std::future::ready(Ok(None)))
    }

    fn stored_action(
        &self,
        _: Uuid,
        ply: i32,
    ) -> BoxFuture<'_, Result<Option<String>, StoreError>> {
        let stored = self
            .memory()
            .committed
            .iter()
            .find_map(|change| match change {
                GameChange::Act(action, _) if action.ply == ply => Some(action.machine.clone()),
                _ => None,
            });
        Box::pin(std::future::ready(Ok(stored)))
    }

    fn insert_chat_line<'a>(
        &'a self,
        _: NewChatLine<'a>,
        _: i64,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(std::future::ready(Ok(Some("alice".into()))))
    }

    fn recent_chat(&self, _: Uuid, _: i64) -> BoxFuture<'_, Result<Vec<ChatRecord>, StoreError>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    fn running_ms(&self) -> u64 {
        let memory = self.memory();
        let now = memory.away_since.unwrap_or_else(Instant::now);
        let ran = now
            .duration_since(self.origin)
            .saturating_sub(memory.away_for);
        u64::try_from(ran.as_millis()).unwrap_or(u64::MAX)
    }

    fn check_available(&self) -> Result<(), StoreError> {
        match self.memory().mode {
            Mode::Away => Err(MemoryStore::unavailable()),
            _ => Ok(()),
        }
    }

    fn observe_outcome(&self, failure: Option<&StoreError>) {
        let mut memory = self.memory();
        if failure.is_some_and(StoreError::is_unavailable) && memory.away_since.is_none() {
            memory.away_since = Some(Instant::now());
        }
    }
}

fn seat(name: &str) -> Seat {
    Seat {
        user_id: Uuid::new_v4(),
        name: name.into(),
    }
}

/// A registry for the actor's callbacks (places, notices, hibernation), all in memory. Its
/// own store is never reached by these tests: a pool that would connect nowhere, lazily.
fn registry(settings: &GameSettings) -> Games {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .connect_lazy("postgres://nobody@127.0.0.1:1/none")
        .unwrap_or_else(|e| panic!("{e}"));
    let store = Store::from_pool(pool);
    let writer = GameWriter::spawn(store.clone());
    let metrics = Arc::new(Metrics::default());
    let computers = ComputerPlayers::new(std::iter::empty());
    Games::new(store, writer, metrics, settings.clone(), computers)
}

/// A started game of Suicide between alice (White) and bob (Black), its actor on `store`.
async fn started_game(
    store: &Arc<MemoryStore>,
    time_control: Option<TimeControl>,
) -> (GameHandle, Seat, Seat) {
    started_game_with(store, time_control, None).await
}

/// [`started_game`] on a node of a cluster that holds the game with epoch `fence`.
async fn started_game_with(
    store: &Arc<MemoryStore>,
    time_control: Option<TimeControl>,
    fence: Option<i64>,
) -> (GameHandle, Seat, Seat) {
    let settings = GameSettings {
        // Nobody is connected in these tests; the game must not hibernate nor be claimed
        // while they move the clock.
        hibernate_after: Duration::from_secs(86_400),
        ..GameSettings::default()
    };
    let mut ctx = GameContext::new(
        store.clone(),
        Arc::new(settings.clone()),
        Arc::new(Metrics::default()),
        registry(&settings),
    );
    ctx.fence = fence;
    let (alice, bob) = (seat("alice"), seat("bob"));
    let founding = Founding {
        id: Uuid::new_v4(),
        creator: alice.clone(),
        color_choice: ColorChoice::White,
        seats: [Some(alice.clone()), None],
        status: GameStatus::Waiting,
        terms: GameTerms {
            variant: Variant::Suicide,
            time_control,
            rated: false,
        },
        dice: None,
    };
    let handle = spawn_new(ctx, founding).unwrap_or_else(|e| panic!("{e}"));
    handle
        .join(bob.clone())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (handle, alice, bob)
}

fn code(result: Result<(), GameError>) -> Result<(), &'static str> {
    result.map_err(|e| e.code())
}

fn plies(store: &MemoryStore) -> Vec<(i32, String)> {
    (store.committed().iter())
        .filter_map(|change| match change {
            GameChange::Act(action, _) => Some((action.ply, action.machine.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn an_action_is_acknowledged_once_committed() {
    let store = MemoryStore::new();
    let (game, alice, bob) = started_game(&store, None).await;
    assert!(matches!(
        store.committed().first(),
        Some(GameChange::Start(_))
    ));
    assert_eq!(
        code(game.act(alice.user_id, 1, "e2e3".into()).await),
        Ok(())
    );
    assert_eq!(code(game.act(bob.user_id, 2, "e7e6".into()).await), Ok(()));
    assert_eq!(
        plies(&store),
        [(1, "e2e3".to_string()), (2, "e7e6".to_string())]
    );
    // A retry of a committed action is known, and commits nothing more.
    assert_eq!(
        code(game.act(bob.user_id, 2, "e7e6".into()).await),
        Err("duplicate_action")
    );
    assert_eq!(plies(&store).len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_refused_commit_changes_nothing() {
    let store = MemoryStore::new();
    let (game, alice, bob) = started_game(&store, None).await;
    store.answer(Mode::Refuses);
    assert_eq!(
        code(game.act(alice.user_id, 1, "e2e3".into()).await),
        Err("storage_failed")
    );
    assert_eq!(
        code(game.request(alice.user_id, PlayerRequest::Resign).await),
        Err("storage_failed")
    );
    store.answer(Mode::Commits);
    // Still White's first move: the refused action was never adopted, nor the resignation.
    assert_eq!(
        code(game.act(bob.user_id, 1, "e7e6".into()).await),
        Err("not_your_turn")
    );
    assert_eq!(
        code(game.act(alice.user_id, 1, "d2d3".into()).await),
        Ok(())
    );
    assert_eq!(plies(&store), [(1, "d2d3".to_string())]);
}

#[tokio::test(start_paused = true)]
async fn with_the_store_away_nothing_is_done_and_no_clock_runs() {
    let store = MemoryStore::new();
    let minute = TimeControl {
        initial_ms: 60_000,
        increment_ms: 0,
    };
    let (game, alice, bob) = started_game(&store, Some(minute)).await;
    assert_eq!(
        code(game.act(alice.user_id, 1, "e2e3".into()).await),
        Ok(())
    );
    assert_eq!(code(game.act(bob.user_id, 2, "e7e6".into()).await), Ok(()));
    store.answer(Mode::Away);
    assert_eq!(
        code(game.act(alice.user_id, 3, "d2d3".into()).await),
        Err("store_unavailable")
    );
    // Ten minutes of outage: White's minute does not run out, nothing ends the game.
    tokio::time::sleep(Duration::from_secs(600)).await;
    store.answer(Mode::Commits);
    assert_eq!(
        code(game.act(alice.user_id, 3, "d2d3".into()).await),
        Ok(())
    );
    let ends = |store: &MemoryStore| {
        (store.committed().into_iter())
            .filter_map(|change| match change {
                GameChange::End(end) | GameChange::Act(_, Some(end)) => Some(end),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert!(ends(&store).is_empty(), "{:?}", ends(&store));
    // Black's minute, on the store's time, does run out now: the flag falls by itself.
    tokio::time::sleep(Duration::from_secs(61)).await;
    let ends = ends(&store);
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0].outcome.reason, EndReason::Timeout);
    assert_eq!(ends[0].outcome.winner, Some(crate::rules::Color::White));
}

#[tokio::test(start_paused = true)]
async fn an_action_whose_commit_answer_was_lost_is_adopted_from_the_store() {
    let store = MemoryStore::new();
    let (game, alice, bob) = started_game(&store, None).await;
    store.answer(Mode::LosesAnswer);
    assert_eq!(
        code(game.act(alice.user_id, 1, "e2e3".into()).await),
        Err("store_unavailable")
    );
    store.answer(Mode::Commits);
    // The record holds White's move: before Black's, the actor reads and adopts it, so the
    // game goes on from the record rather than refusing every move after it.
    assert_eq!(code(game.act(bob.user_id, 2, "e7e6".into()).await), Ok(()));
    assert_eq!(
        plies(&store),
        [(1, "e2e3".to_string()), (2, "e7e6".to_string())]
    );
    // And White's retry of the lost one is the duplicate it is.
    assert_eq!(
        code(game.act(alice.user_id, 1, "e2e3".into()).await),
        Err("duplicate_action")
    );
}

#[tokio::test(start_paused = true)]
async fn a_fenced_commit_lets_the_game_go_to_the_node_that_took_it() {
    let store = MemoryStore::new();
    let (game, alice, bob) = started_game_with(&store, None, Some(7)).await;
    assert_eq!(
        code(game.act(alice.user_id, 1, "e2e3".into()).await),
        Ok(())
    );
    // Another node took the game over: the move is refused as moved, nothing is adopted,
    // and the actor stops (its sockets reconnect to wherever the game runs now).
    store.answer(Mode::Fenced);
    assert_eq!(
        code(game.act(bob.user_id, 2, "e7e6".into()).await),
        Err("game_moved")
    );
    store.answer(Mode::Commits);
    assert_eq!(
        code(game.act(bob.user_id, 2, "e7e6".into()).await),
        Err("game_unavailable")
    );
    assert_eq!(plies(&store), [(1, "e2e3".to_string())]);
    // Every commit carried the epoch the node took the game with.
    let fences = store.memory().fences.clone();
    assert!(
        fences.len() >= 3 && fences.iter().all(|f| *f == Some(7)),
        "{fences:?}"
    );
}
