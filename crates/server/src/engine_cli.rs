//! The computer opponent on the command line: `oddboard rules analyse` (the best action, its
//! score and the principal variation of a position), `oddboard engine ladder` (each level
//! against the one below, alternating colours) and `oddboard engine match` (against another
//! UCI engine). Thin text front ends to `oddboard-engine`.

use crate::rules::{AnyGame, Variant};
use oddboard_engine::ladder::{play_match as play_levels, MatchRules};
use oddboard_engine::versus::{play_match, MatchSettings};
use oddboard_engine::{Cancel, Engine, Level, Limits};
use std::io::Write;
use std::time::Duration;

/// How long `analyse` searches when neither a depth nor a time is given.
const DEFAULT_MOVETIME_MS: u64 = 1_000;
/// Plies after which a ladder game that has not ended is scored a draw.
const LADDER_MAX_PLIES: u32 = 400;

/// `oddboard engine …`.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum EngineCommand {
    /// Plays each level against the one below, alternating colours, and prints the scores.
    Ladder {
        /// Variant id: suicide, chazz, duel, drehs or chad.
        #[arg(long)]
        variant: String,
        /// Games per pair of levels.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        games: u32,
        /// The lowest level to play against the one below.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=8))]
        min_level: u8,
        /// The highest level to play (the ladder runs `min-level` against the one below up to
        /// this against the one below).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=8))]
        max_level: u8,
        /// Games played at once, each on its own thread. The levels play on node caps, not
        /// clocks (level 8 on a fixed budget), so the scores do not depend on it.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        threads: u32,
        /// Random plies that open each pair of games (one with each colour): levels without
        /// noise (7 and 8) otherwise replay the same two games.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=8))]
        opening_plies: u32,
    },
    /// Plays our strongest engine against another UCI engine and prints the score with an Elo
    /// difference and its 95% error.
    Match {
        /// The other engine's command line, e.g. `/usr/games/fairy-stockfish`.
        #[arg(long)]
        engine: String,
        /// Variant id (the other engine is given it as `UCI_Variant`).
        #[arg(long)]
        variant: String,
        /// Games (each opening is played once with each colour).
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        games: u32,
        /// Milliseconds each side thinks per move.
        #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=600_000))]
        movetime: u64,
        /// Seed of the random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// The limits `analyse` searches with: a depth, or a time (the default).
#[derive(Clone, Copy, Debug, clap::Args)]
#[group(multiple = false)]
pub struct AnalyseLimits {
    /// Search this many milliseconds.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: Option<u64>,
    /// Search to this depth (plies).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: Option<u32>,
}

impl AnalyseLimits {
    fn limits(self) -> Limits {
        match (self.depth, self.movetime) {
            (Some(depth), _) => Limits::depth(depth),
            (None, Some(ms)) => Limits::time(Duration::from_millis(ms)),
            (None, None) => Limits::time(Duration::from_millis(DEFAULT_MOVETIME_MS)),
        }
    }
}

/// Searches `game` and prints `best`, `score`, `depth`, `nodes` and `pv`, a line each.
///
/// # Errors
/// Only a failure to write.
pub fn analyse(game: &AnyGame, limits: AnalyseLimits, out: &mut dyn Write) -> std::io::Result<()> {
    let mut engine = Engine::new(game.variant());
    let found = engine.search(game, &limits.limits(), &Cancel::new());
    match &found.best {
        Some(best) => writeln!(out, "best {best}")?,
        None => writeln!(out, "best (none: the game is over)")?,
    }
    writeln!(out, "score {}", found.score)?;
    writeln!(out, "depth {}", found.depth)?;
    writeln!(out, "nodes {}", found.nodes)?;
    writeln!(out, "pv {}", found.pv.join(" "))
}

/// Runs an `oddboard engine` command and returns the exit status.
pub fn run(command: &EngineCommand, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let word = match command {
        EngineCommand::Ladder { variant, .. } | EngineCommand::Match { variant, .. } => variant,
    };
    let variant: Variant = match word.parse() {
        Ok(variant) => variant,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 2;
        }
    };
    let result = match command {
        EngineCommand::Ladder {
            games,
            min_level,
            max_level,
            threads,
            opening_plies,
            ..
        } => {
            let rules = MatchRules {
                limits: None,
                max_plies: LADDER_MAX_PLIES,
                threads: *threads,
                opening_plies: *opening_plies,
            };
            ladder(variant, *games, *min_level..=*max_level, rules, out)
        }
        EngineCommand::Match {
            engine,
            games,
            movetime,
            seed,
            ..
        } => versus(
            &MatchSettings {
                command: engine.clone(),
                variant,
                games: *games,
                movetime: Duration::from_millis(*movetime),
                seed: *seed,
            },
            out,
        ),
    };
    match result {
        Ok(()) => 0,
        Err(message) => {
            let _ = writeln!(err, "{message}");
            1
        }
    }
}

/// The match, a line per game, then the score and the Elo difference.
fn versus(settings: &MatchSettings, out: &mut dyn Write) -> Result<(), String> {
    let score = play_match(settings, out).map_err(|e| format!("match: {e}"))?;
    let elo = match score.elo() {
        Some((elo, error)) => format!("Elo {elo:+.0} ± {error:.0}"),
        None => "Elo beyond measure (every game went one way)".to_string(),
    };
    writeln!(
        out,
        "oddboard vs {}: +{} ={} -{} ({:.1}%), {elo}",
        settings.command,
        score.wins,
        score.draws,
        score.losses,
        score.fraction() * 100.0
    )
    .map_err(|e| e.to_string())
}

/// Each level of `levels` against the one below, at the levels' clock-free limits; a line
/// per pair from the higher level's side.
fn ladder(
    variant: Variant,
    games: u32,
    levels: std::ops::RangeInclusive<u8>,
    rules: MatchRules,
    out: &mut dyn Write,
) -> Result<(), String> {
    if levels.is_empty() {
        return Err(format!(
            "--min-level {} is above --max-level {}",
            levels.start(),
            levels.end()
        ));
    }
    for level in levels {
        let (upper, lower) = (Level::new(level), Level::new(level - 1));
        let tally = play_levels(variant, upper, lower, games, rules).map_err(|e| e.to_string())?;
        let percent = f64::from(tally.half_points()) * 50.0 / f64::from(tally.games().max(1));
        writeln!(
            out,
            "{} level {level} vs {}: +{} ={} -{} ({percent:.1}%)",
            variant.key(),
            level - 1,
            tally.wins,
            tally.draws,
            tally.losses,
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run_rules;

    fn rules(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = run_rules(&args, &mut out, &mut err);
        (
            status,
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        )
    }

    #[test]
    fn analyse_prints_the_winning_action_its_score_and_line() {
        // White's last man must be taken: only e2-e4 offers it to the knight.
        let (status, out, err) = rules(&[
            "analyse",
            "suicide",
            "--fen",
            "8/8/3n4/8/8/8/4P3/8 w - - 0 1",
            "--depth",
            "4",
        ]);
        assert_eq!((status, err.as_str()), (0, ""));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "best e2e4");
        assert!(lines[1].starts_with("score mate "), "{out}");
        assert!(lines[2].starts_with("depth "), "{out}");
        assert!(lines[4].starts_with("pv e2e4"), "{out}");
    }

    #[test]
    fn analyse_refuses_bad_input_and_says_a_finished_game_has_no_action() {
        let (status, _, err) = rules(&["analyse", "suicide", "--depth", "3", "--movetime", "9"]);
        assert_eq!(status, 2, "{err}");
        let (status, _, err) = rules(&["analyse", "nonsense", "--depth", "1"]);
        assert_eq!(status, 2, "{err}");
        let (status, _, err) = rules(&["analyse", "suicide", "--depth", "0"]);
        assert_eq!(status, 2, "{err}");
        // White has no men left: White has won, nothing is left to play.
        let (status, out, _) =
            rules(&["analyse", "suicide", "--fen", "8/8/3n4/8/8/8/8/8 w - - 0 1"]);
        assert_eq!(status, 0);
        assert!(out.starts_with("best (none"), "{out}");
    }

    #[test]
    fn the_ladder_prints_a_line_per_pair_of_levels() {
        let command = EngineCommand::Ladder {
            variant: "chazz".into(),
            games: 2,
            min_level: 1,
            max_level: 1,
            threads: 2,
            opening_plies: 2,
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(&command, &mut out, &mut err), 0);
        let out = String::from_utf8_lossy(&out);
        let line = out.trim_end();
        assert!(line.starts_with("chazz level 1 vs 0: +"), "{line}");
        assert_eq!(out.lines().count(), 1);
        let bad = EngineCommand::Ladder {
            variant: "nonsense".into(),
            games: 2,
            min_level: 1,
            max_level: 1,
            threads: 1,
            opening_plies: 0,
        };
        assert_eq!(run(&bad, &mut Vec::new(), &mut err), 2);
        let upside_down = EngineCommand::Ladder {
            variant: "chazz".into(),
            games: 2,
            min_level: 3,
            max_level: 2,
            threads: 1,
            opening_plies: 0,
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(run(&upside_down, &mut out, &mut err), 1);
        assert!(out.is_empty());
        assert!(String::from_utf8_lossy(&err).contains("--min-level"));
    }

    #[test]
    fn ladder_options_parse_within_their_bounds() {
        use crate::command::{Cli, Command};
        use clap::Parser;
        let parse = |words: &[&str]| {
            let args = ["oddboard", "engine", "ladder", "--variant", "drehs"];
            Cli::try_parse_from(args.iter().chain(words).copied()).map(|cli| cli.command)
        };
        let parsed = parse(&[
            "--games",
            "20",
            "--threads",
            "2",
            "--min-level",
            "5",
            "--opening-plies",
            "2",
        ]);
        let Ok(Some(Command::Engine {
            command:
                EngineCommand::Ladder {
                    games,
                    min_level,
                    max_level,
                    threads,
                    opening_plies,
                    ..
                },
        })) = parsed
        else {
            panic!("{parsed:?}");
        };
        assert_eq!((games, min_level, max_level, threads), (20, 5, 8, 2));
        assert_eq!(opening_plies, 2);
        let defaults = parse(&[]);
        assert!(
            matches!(
                defaults,
                Ok(Some(Command::Engine {
                    command: EngineCommand::Ladder {
                        games: 10,
                        min_level: 1,
                        max_level: 8,
                        threads: 1,
                        opening_plies: 0,
                        ..
                    }
                }))
            ),
            "{defaults:?}"
        );
        for bad in [
            ["--threads", "0"],
            ["--threads", "65"],
            ["--min-level", "0"],
        ] {
            assert!(parse(&bad).is_err(), "{bad:?}");
        }
    }
}
