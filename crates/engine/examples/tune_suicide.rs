//! Tunes the weights of Suicide's evaluation from self-play, by Texel's method: the engine
//! plays itself from random openings, every position where the side to move has no capture
//! is kept with the game's result, and the weights are fitted so that a logistic curve of the
//! evaluation predicts those results (least squares, Adam). It prints the weights as
//! `crates/engine/src/eval/suicide.rs` holds them.
//!
//! ```text
//! cargo run --release -p oddboard-engine --example tune_suicide -- \
//!     --games 2000 --nodes 20000 --seed 1 --threads 2
//! ```
//!
//! The games are the engine's own, searched with the weights compiled in, so tuning may be
//! repeated: build with the printed weights and run again.

use oddboard_engine::eval::suicide::{terms, TERMS, WEIGHTS, WEIGHT_UNIT};
use oddboard_engine::eval::Evaluate;
use oddboard_engine::rng::XorShift;
use oddboard_engine::{Cancel, Engine, Limits, Style};
use oddboard_rules::variant::suicide::Suicide;
use oddboard_rules::{AnyGame, Rules};
use std::process::ExitCode;

/// Plies of the game past which it is called a draw: the 50-move rule ends most before.
const MAX_PLIES: u32 = 400;
/// Noise of the self-play searches, in centipawns: enough that games differ.
const NOISE: i32 = 8;

#[derive(Clone, Copy, Debug)]
struct Options {
    games: u32,
    nodes: u64,
    seed: u64,
    threads: u32,
    epochs: u32,
}

/// One kept position: its terms, and the result for the side to move (1, ½ or 0).
struct Sample {
    terms: [i32; TERMS],
    result: f64,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        games: 1000,
        nodes: 20_000,
        seed: 1,
        threads: 1,
        epochs: 3000,
    };
    let mut words = args.iter();
    while let Some(flag) = words.next() {
        let value = words
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?;
        let number: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: not a number: {value}"))?;
        let small = || u32::try_from(number).map_err(|_| format!("{flag}: too large"));
        match flag.as_str() {
            "--games" => options.games = small()?,
            "--nodes" => options.nodes = number,
            "--seed" => options.seed = number,
            "--threads" => options.threads = small()?.max(1),
            "--epochs" => options.epochs = small()?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

/// Plays one self-play game and returns its quiet positions with the result.
fn play_game(options: &Options, index: u32) -> Vec<Sample> {
    let seed = options.seed.wrapping_mul(1_000_003) ^ u64::from(index);
    let mut rng = XorShift::new(seed | 1);
    let mut game = Suicide::start();
    for _ in 0..4 + rng.below(5) {
        let actions = game.legal_actions();
        if actions.is_empty() || game.outcome().is_some() {
            break;
        }
        game.play_unchecked(&actions[rng.below(actions.len())]);
    }
    let mut engine = Engine::new(Suicide::VARIANT);
    let limits = Limits::nodes(options.nodes);
    let cancel = Cancel::new();
    let mut kept: Vec<([i32; TERMS], bool)> = Vec::new();
    let mut plies = 0;
    let outcome = loop {
        if let Some(outcome) = game.outcome() {
            break Some(outcome);
        }
        if plies >= MAX_PLIES {
            break None;
        }
        let actions = game.legal_actions();
        let tactical = game.tactical(&actions);
        if tactical.iter().all(|&t| t == 0) {
            let white = game.turn() == oddboard_rules::Color::White;
            kept.push((terms(&game, &actions, &tactical), white));
        }
        let style = Style {
            noise: NOISE,
            seed: seed ^ u64::from(plies),
            ..Style::default()
        };
        let found = engine.search_styled(&AnyGame::Suicide(game.clone()), &limits, &cancel, style);
        let Some(action) = found.best.and_then(|text| game.parse_action(&text).ok()) else {
            break None;
        };
        game.play_unchecked(&action);
        plies += 1;
    };
    let white_score = match outcome.and_then(|o| o.winner) {
        Some(oddboard_rules::Color::White) => 1.0,
        Some(oddboard_rules::Color::Black) => 0.0,
        None => 0.5,
    };
    kept.into_iter()
        .map(|(terms, white)| Sample {
            terms,
            result: if white {
                white_score
            } else {
                1.0 - white_score
            },
        })
        .collect()
}

/// The expected score of an evaluation in centipawns (400 centipawns: 10 to 1).
fn expected(centipawns: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-centipawns / 400.0))
}

fn centipawns(weights: &[f64; TERMS], terms: &[i32; TERMS]) -> f64 {
    weights
        .iter()
        .zip(terms)
        .map(|(w, &t)| w * f64::from(t))
        .sum::<f64>()
        / f64::from(WEIGHT_UNIT)
}

fn loss(weights: &[f64; TERMS], samples: &[Sample]) -> f64 {
    samples
        .iter()
        .map(|s| (expected(centipawns(weights, &s.terms)) - s.result).powi(2))
        .sum::<f64>()
        / samples.len().max(1) as f64
}

/// Fits the weights by Adam on the mean squared error, from the compiled-in weights.
fn fit(samples: &[Sample], epochs: u32) -> [f64; TERMS] {
    let mut weights = WEIGHTS.map(f64::from);
    let (mut m, mut v) = ([0.0; TERMS], [0.0; TERMS]);
    let (rate, beta1, beta2) = (8.0, 0.9, 0.999);
    let scale = 10f64.ln() / 400.0 / f64::from(WEIGHT_UNIT);
    for epoch in 1..=epochs {
        let mut gradient = [0.0; TERMS];
        for sample in samples {
            let p = expected(centipawns(&weights, &sample.terms));
            let common = 2.0 * (p - sample.result) * p * (1.0 - p) * scale;
            for (g, &t) in gradient.iter_mut().zip(&sample.terms) {
                *g += common * f64::from(t);
            }
        }
        for i in 0..TERMS {
            let g = gradient[i] / samples.len().max(1) as f64;
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(epoch as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(epoch as i32));
            weights[i] -= rate * m_hat / (v_hat.sqrt() + 1e-12);
        }
        if epoch % 500 == 0 {
            eprintln!("epoch {epoch}: loss {:.6}", loss(&weights, samples));
        }
    }
    weights
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("tune_suicide: {message}");
            return ExitCode::from(2);
        }
    };
    let samples: Vec<Sample> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..options.threads)
            .map(|thread| {
                scope.spawn(move || {
                    (thread..options.games)
                        .step_by(options.threads as usize)
                        .flat_map(|index| play_game(&options, index))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    let start = WEIGHTS.map(f64::from);
    eprintln!(
        "{} games, {} positions; loss with the compiled-in weights {:.6}",
        options.games,
        samples.len(),
        loss(&start, &samples)
    );
    let weights = fit(&samples, options.epochs);
    eprintln!(
        "loss with the fitted weights {:.6}",
        loss(&weights, &samples)
    );
    let rounded: Vec<String> = weights.iter().map(|w| format!("{}", w.round())).collect();
    println!(
        "pub const WEIGHTS: [i32; TERMS] = [{}];",
        rounded.join(", ")
    );
    ExitCode::SUCCESS
}
