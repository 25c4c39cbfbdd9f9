//! Nodes per second per variant, from the start position and from a middlegame, and the time
//! each level (1–8) takes for a move in three middlegames per variant. Run with
//! `cargo bench -p oddboard-engine`; `cargo bench -p oddboard-engine -- level/` for the levels
//! alone.
//!
//! The levels play on their clock-free limits ([`Level::fixed_limits`]): levels 1–7 are the
//! same in real play (their time is only a guard), level 8 is measured on its fixed node
//! budget, since in real play it simply thinks for its whole time.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oddboard_engine::{choose, choose_within, Cancel, Engine, Level, Limits};
use oddboard_rules::{AnyGame, Variant};
use std::hint::black_box;
use std::time::Duration;

/// Nodes per measured search, at most.
const NODES: u64 = 20_000;
/// Plies of play that make a middlegame.
const MIDDLEGAME_PLIES: u64 = 20;
/// Middlegames per variant the levels are timed in.
const MIDDLEGAMES: u64 = 3;

/// The start position of `variant`, or None if this build cannot play it.
fn start(variant: Variant) -> Option<AnyGame> {
    AnyGame::start(variant).ok()
}

/// A middlegame of `variant`: level 1 (a ply deep, with heavy noise) plays both sides from
/// the start, varied by `seed`, so the men have met but the game is not decided.
fn middlegame(variant: Variant, seed: u64) -> Option<AnyGame> {
    let mut game = start(variant)?;
    for ply in 0..MIDDLEGAME_PLIES {
        if game.outcome().is_some() {
            break;
        }
        let action = choose(Level::new(1), &game, seed * 1_000 + ply)?;
        game.play(&action).ok()?;
    }
    game.outcome().is_none().then_some(game)
}

fn nodes_per_second(c: &mut Criterion) {
    let mut group = c.benchmark_group("nodes");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for variant in Variant::ALL {
        let positions = [
            ("start", start(variant)),
            ("middlegame", middlegame(variant, 1)),
        ];
        for (name, game) in positions {
            let Some(game) = game else { continue };
            // The nodes a search really visits: one that proves a forced result stops early.
            let searched = Engine::new(variant)
                .search(&game, &Limits::nodes(NODES), &Cancel::new())
                .nodes;
            group.throughput(Throughput::Elements(searched.max(1)));
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

/// One move's time per level and variant; each iteration plays the next of the variant's
/// middlegames, so the median is over all of them.
fn level_move_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("level");
    // Criterion's minimum: level 8 takes about a second a move.
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for variant in Variant::ALL {
        let games: Vec<AnyGame> = (1..=MIDDLEGAMES)
            .filter_map(|seed| middlegame(variant, seed))
            .collect();
        if games.is_empty() {
            continue;
        }
        for n in 1..=Level::MAX.number() {
            let level = Level::new(n);
            let id = BenchmarkId::new(variant.key(), n);
            group.bench_with_input(id, &games, |b, games| {
                let mut next = 0;
                b.iter(|| {
                    let game = &games[next % games.len()];
                    next += 1;
                    let limits = level.fixed_limits();
                    black_box(choose_within(level, game, 1, &limits, &Cancel::new()))
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, nodes_per_second, level_move_time);
criterion_main!(benches);
