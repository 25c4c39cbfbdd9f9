//! The rules work of one move of a live game, per variant: what the game actor does between
//! receiving an action and handing the event to the sockets (play it on a copy of the game,
//! take the snapshot with its legal actions and outcome, turn it into the update from the
//! previous pieces, and write the update as JSON).
//!
//! Each benchmark replays one fixed game of pseudo-random legal moves from the start; the
//! throughput is in moves. Run with `cargo bench --bench live_move`; `docs/performance.md`
//! quotes it where it decided a design choice.
//!
//! The `action_event` group times the wire message of each of those moves alone: the action
//! event as the game actor writes it into its event log ([`EventLog::push`]), once per move,
//! for every player and spectator.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oddboard_play::clock::ClockView;
use oddboard_play::event::{EventLog, GameEvent};
use oddboard_play::rules::{AnyGame, Variant};
use std::hint::black_box;
use std::time::Duration;

// The server's allocator, so that the allocations per move cost what they cost there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Up to `plies` moves chosen by a fixed generator, so every run replays the same game.
fn fixed_game(variant: Variant, plies: usize) -> Option<(AnyGame, Vec<String>)> {
    let mut game = AnyGame::start(variant).ok()?;
    game.set_dice([7; 32], "live-move-bench");
    let start = game.clone();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let action = legal[((state >> 33) as usize) % legal.len()].clone();
        game.play(&action).ok()?;
        moves.push(action);
    }
    Some((start, moves))
}

/// Plays the moves as the game actor does; returns the bytes of JSON written.
fn replay_live(start: &AnyGame, moves: &[String]) -> usize {
    let mut game = start.clone();
    let (_, mut pieces) = game.snapshot().into_update(&[]);
    let mut written = 0;
    for action in moves {
        let mut next = game.clone();
        let Ok(played) = next.play(action) else {
            break;
        };
        let (update, placed) = next.snapshot().into_update(&pieces);
        written += serde_json::to_string(&update).map_or(0, |json| json.len());
        written += played.human.len();
        pieces = placed;
        game = next;
    }
    written
}

fn live_move(c: &mut Criterion) {
    let mut group = c.benchmark_group("live_move");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let Some((start, moves)) = fixed_game(variant, 120) else {
            continue;
        };
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function(variant.key(), |b| {
            b.iter(|| black_box(replay_live(&start, &moves)))
        });
    }
    group.finish();
}

/// The action events of the moves, as the game actor builds them (with a running clock).
fn action_events(start: &AnyGame, moves: &[String]) -> Vec<GameEvent> {
    let mut game = start.clone();
    let (_, mut pieces) = game.snapshot().into_update(&[]);
    let mut events = Vec::with_capacity(moves.len());
    for (ply, action) in (1..).zip(moves) {
        let by = game.turn();
        let Ok(played) = game.play(action) else {
            break;
        };
        let (update, placed) = game.snapshot().into_update(&pieces);
        pieces = placed;
        events.push(GameEvent::Action {
            ply,
            machine: played.machine,
            human: played.human,
            by,
            forced: false,
            clock: Some(ClockView {
                white_ms: 180_000 - u64::from(ply) * 997,
                black_ms: 180_000 - u64::from(ply) * 1009,
                running: Some(by.other()),
            }),
            update: Box::new(update),
        });
    }
    events
}

fn action_event(c: &mut Criterion) {
    let mut group = c.benchmark_group("action_event");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(3));
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let Some((start, moves)) = fixed_game(variant, 120) else {
            continue;
        };
        let events = action_events(&start, &moves);
        group.throughput(Throughput::Elements(events.len() as u64));
        group.bench_function(variant.key(), |b| {
            b.iter(|| {
                let mut log = EventLog::default();
                let bytes: usize = events.iter().map(|event| log.push(event).len()).sum();
                black_box(bytes)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, live_move, action_event);
criterion_main!(benches);
