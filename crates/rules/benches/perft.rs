//! Perft benchmarks: move generation speed per variant.
//!
//! The headline is Suicide perft(6) from the start position (46,264,162 leaves), compared in
//! `docs/performance.md` with Fairy-Stockfish and shakmaty. Run with `cargo bench --bench perft`.

use criterion::{criterion_group, criterion_main, Criterion};
use oddboard_rules::{AnyGame, Variant};
use std::hint::black_box;
use std::time::Duration;

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    if let Ok(game) = AnyGame::start(Variant::Suicide) {
        group.bench_function("suicide_start_depth_6", |b| {
            b.iter(|| black_box(game.perft(6)))
        });
    }
    for variant in [Variant::Chazz, Variant::Duel, Variant::Chad] {
        if let Ok(game) = AnyGame::start(variant) {
            group.bench_function(format!("{variant}_start_depth_3"), |b| {
                b.iter(|| black_box(game.perft(3)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
