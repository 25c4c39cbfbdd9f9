//! The engine pool's worker processes (the server binary's `engine-worker`): a worker killed
//! with SIGKILL in mid-search costs that search and nothing else, nobody waits for a dead
//! worker, and the next search gets a new one; a frozen worker is killed at its search's
//! deadline; the queue's bound holds; a cancelled search answers at once; and in a game, the
//! computer keeps playing after its worker is killed while it thinks.

use crate::cluster_failover::signal_pid;
use crate::server::{fast_settings, Player, TestServer, WAIT};
use oddboard::engine_pool::{EnginePool, PoolError};
use oddboard::engine_worker::Search;
use oddboard::rules::{AnyGame, Variant};
use oddboard_engine::Cancel;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

fn start_position() -> String {
    AnyGame::start(Variant::Suicide)
        .map(|g| g.position())
        .unwrap_or_default()
}

/// A level-8 move given `think_ms`.
fn move_search(think_ms: u64) -> Search {
    Search::Move {
        variant: Variant::Suicide,
        position: start_position(),
        level: 8,
        seed: 7,
        think_ms,
    }
}

fn workers(count: usize, capacity: usize) -> EnginePool {
    EnginePool::new(
        PathBuf::from(env!("CARGO_BIN_EXE_oddboard")),
        count,
        capacity,
    )
}

/// Waits until `pool` has taken `count` searches and has a worker running; its pids.
/// Starts a Suicide move search of `think_ms` on the pool, answered on the task's end.
fn spawn_move_search(
    pool: &EnginePool,
    think_ms: u64,
    cancel: Cancel,
) -> tokio::task::JoinHandle<Result<Option<String>, PoolError>> {
    let pool = pool.clone();
    tokio::spawn(async move { pool.best_move(move_search(think_ms), cancel).await })
}

async fn searching(pool: &EnginePool, count: u64) -> Vec<u32> {
    let waited = tokio::time::timeout(WAIT, async {
        while pool.searches_started() < count || pool.worker_pids().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "the pool never took search {count}");
    pool.worker_pids()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_worker_costs_its_search_only_and_the_queue_bound_holds() {
    let pool = workers(1, 2);
    // A search of a minute holds the one worker.
    let held = spawn_move_search(&pool, 60_000, Cancel::new());
    let first = searching(&pool, 1).await;
    // Two may wait; the third is refused at once.
    let waiting: Vec<_> = (0..2)
        .map(|_| {
            let pool = pool.clone();
            tokio::spawn(async move {
                pool.evaluate(Variant::Suicide, start_position(), 2_000)
                    .await
            })
        })
        .collect();
    while pool.waiting() < 2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let refused = pool
        .evaluate(Variant::Suicide, start_position(), 2_000)
        .await;
    assert_eq!(refused, Err(PoolError::Busy));

    // SIGKILL in mid-search: that search is lost, and its caller hears so long before the
    // search's own deadline (80 s): nobody waits on a dead worker.
    signal_pid(first[0], "-KILL");
    let lost = tokio::time::timeout(Duration::from_secs(30), held).await;
    assert!(
        matches!(lost, Ok(Ok(Err(PoolError::Lost)))),
        "the held search: {lost:?}"
    );
    assert_eq!(pool.searches_lost(), 1);
    // The waiting searches run on a new worker.
    for job in waiting {
        let answer = job.await.unwrap_or_else(|e| panic!("{e}"));
        assert!(
            matches!(answer, Ok(Ok(ref e)) if e.best.is_some()),
            "{answer:?}"
        );
    }
    let second = pool.worker_pids();
    assert_eq!(second.len(), 1);
    assert_ne!(second, first, "the same worker after SIGKILL");

    // A cancelled search answers at once with the move it has.
    let cancel = Cancel::new();
    let cancelled = spawn_move_search(&pool, 60_000, cancel.clone());
    searching(&pool, 4).await;
    cancel.cancel();
    let answer = tokio::time::timeout(Duration::from_secs(30), cancelled).await;
    assert!(matches!(answer, Ok(Ok(Ok(Some(_))))), "{answer:?}");
    assert_eq!(pool.searches_lost(), 1);
    pool.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_worker_is_killed_at_its_search_deadline_and_replaced() {
    let pool = workers(1, 4);
    // A short search, whose deadline is its time twice over and 20 s.
    let frozen = spawn_move_search(&pool, 100, Cancel::new());
    let first = searching(&pool, 1).await;
    signal_pid(first[0], "-STOP");
    let lost = tokio::time::timeout(Duration::from_secs(120), frozen).await;
    assert!(
        matches!(lost, Ok(Ok(Err(PoolError::Lost)))),
        "the frozen search: {lost:?}"
    );
    // The frozen one was killed (SIGKILL ends a stopped process too); a new one answers.
    let next = pool.best_move(move_search(100), Cancel::new()).await;
    assert!(matches!(next, Ok(Some(_))), "{next:?}");
    assert_ne!(pool.worker_pids(), first);
    pool.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_keeps_playing_after_its_worker_is_killed_while_it_thinks() {
    let server = TestServer::start(fast_settings()).await;
    let Player { mut client, name } = server.guest().await;
    // The computer has White and thinks first, at the level that thinks longest.
    let response = client
        .post(
            "/api/games/computer",
            &json!({ "variant": "suicide", "level": 8, "color": "black" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 201, "{}", response.json());
    let game_id = response.json()["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut person = Player { name, client }.watch(&game_id).await;
    let pool = server
        .engine_pool()
        .unwrap_or_else(|| panic!("the server has no engine pool"));
    let pids = searching(&pool, 1).await;
    signal_pid(pids[0], "-KILL");

    // The search is lost, tried again on a new worker, and the computer plays; then it
    // answers the person's moves as before.
    person.read_until(|w| w.ply >= 1).await;
    assert_eq!(pool.searches_lost(), 1);
    for _ in 0..2 {
        let ply = person.ply;
        let action = crate::server::choose(&person.legal, ply);
        person.act(&action).await;
        person
            .read_until(|w| w.ply >= ply + 2 || w.outcome.is_some())
            .await;
    }
    assert!(person.errors.is_empty(), "{:?}", person.errors);
    server.stop().await;
}
