//! Nodes per second per variant, from the start position and from a middlegame (twenty
//! plies of seeded random play from the start), and the time levels 1–4 take for a move in
//! that middlegame. Run with `cargo bench -p oddboard-engine`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oddboard_engine::{choose, choose_within, Cancel, Engine, Level, Limits};
use oddboard_rules::{AnyGame, Variant};
use std::hint::black_box;
use std::time::Duration;

/// Nodes per measured search.
const NODES: u64 = 20_000;
/// Plies of random play that make the middlegame.
const MIDDLEGAME_PLIES: u64 = 20;

/// The start position of `variant`, or None if this build cannot play it.
fn start(variant: Variant) -> Option<AnyGame> {
    AnyGame::start(variant).ok()
}

/// A middlegame of `variant`: level 0 plays both sides from the start with fixed seeds.
fn middlegame(variant: Variant) -> Option<AnyGame> {
    let mut game = start(variant)?;
    for ply in 0..MIDDLEGAME_PLIES {
        let Some(action) = choose(Level::MIN, &game, ply) else {
            break;
        };
        game.play(&action).ok()?;
    }
    Some(game)
}

fn nodes_per_second(c: &mut Criterion) {
    let mut group = c.benchmark_group("nodes");
    group.throughput(Throughput::Elements(NODES));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for variant in Variant::ALL {
        let positions = [
            ("start", start(variant)),
            ("middlegame", middlegame(variant)),
        ];
        for (name, game) in positions {
            let Some(game) = game else { continue };
            group.bench_with_input(BenchmarkId::new(variant.key(), name), &game, |b, game| {
                b.iter(|| {
                    // A fresh engine each time: a warm table would count nodes it skipped.
                    let mut engine = Engine::new(variant);
                    black_box(engine.search(game, &Limits::nodes(NODES), &Cancel::new()))
                });
            });
        }
    }
    group.finish();
}

fn level_move_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("level");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for variant in Variant::ALL {
        let Some(game) = middlegame(variant) else {
            continue;
        };
        for n in 1..=4 {
            let level = Level::new(n);
            let id = BenchmarkId::new(variant.key(), n);
            group.bench_with_input(id, &game, |b, game| {
                b.iter(|| {
                    let limits = level.limits();
                    black_box(choose_within(level, game, 1, &limits, &Cancel::new()))
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, nodes_per_second, level_move_time);
criterion_main!(benches);
