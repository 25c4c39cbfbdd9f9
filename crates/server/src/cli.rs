//! `oddboard rules …`: the rules engine on the command line.
//!
//! - `legal <variant> [--fen <position>]`: the legal actions, their count and the outcome.
//! - `perft <variant> <depth> [--fen <position>] [--divide]`: leaf count of the action tree.
//! - `play <variant> [--fen <position>] [--seed <hex> [--game-id <id>]] [--record] <action>...`:
//!   plays the actions and prints the result; with dice (Davey Drehs) `--seed` and `--game-id`
//!   choose them (default: the public all-zero seed and the empty id) and `--record` prints the
//!   game record file instead, ready for `verify-dice`.
//! - `verify-dice <game record file>`: recomputes every roll of a recorded game from its revealed
//!   seed; exit status 0 when all match, 1 naming the first mismatch, 2 for an unreadable file.
//!
//! `perft` refuses variants with dice (status 2): their action tree depends on the rolls.
//!
//! The command line is parsed by clap ([`RulesCommand`], part of `crate::command`); output
//! goes to the writers passed in, so tests can run the command without a process. A
//! malformed command line, a bad variant, position or action prints its message on the error
//! writer and yields exit status 2.

use crate::rules::dice::{self, PUBLIC_GAME_ID, PUBLIC_SEED};
use crate::rules::variant::drehs::record::{self, DiceRecord, VerifyError};
use crate::rules::{AnyGame, Variant};
use std::io::Write;

/// `oddboard rules …`: the rules engine's commands (clap parses them; `--help` describes each).
#[derive(Clone, Debug, clap::Subcommand)]
pub enum RulesCommand {
    /// The legal actions, their count and the outcome.
    Legal {
        /// Variant id: suicide, chazz, duel, drehs or chad.
        variant: String,
        /// Start from this position instead of the variant's start.
        #[arg(long, visible_alias = "position", value_name = "POSITION")]
        fen: Option<String>,
    },
    /// Leaf count of the action tree to a depth (not for variants with dice).
    Perft {
        /// Variant id.
        variant: String,
        /// Depth, 0 to 32.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=32))]
        depth: u32,
        #[arg(long, visible_alias = "position", value_name = "POSITION")]
        fen: Option<String>,
        /// Also print the count under each first action.
        #[arg(long)]
        divide: bool,
    },
    /// Plays the actions and prints the position, snapshot and result.
    Play {
        /// Variant id.
        variant: String,
        #[arg(long, visible_alias = "position", value_name = "POSITION")]
        fen: Option<String>,
        /// The dice seed (64 hex digits; Davey Drehs only). Default: the public all-zero seed.
        #[arg(long, value_parser = parse_seed, value_name = "HEX")]
        seed: Option<[u8; 32]>,
        /// The game id mixed into the dice (Davey Drehs only). Default: the empty id.
        #[arg(long, value_name = "ID")]
        game_id: Option<String>,
        /// Print the game record file instead, ready for `verify-dice`.
        #[arg(long)]
        record: bool,
        /// Actions in the variant's machine notation.
        actions: Vec<String>,
    },
    /// The engine's best action, its score and the principal variation.
    Analyse {
        /// Variant id.
        variant: String,
        #[arg(long, visible_alias = "position", value_name = "POSITION")]
        fen: Option<String>,
        #[command(flatten)]
        limits: crate::engine_cli::AnalyseLimits,
    },
    /// Recomputes every roll of a recorded game from its revealed seed.
    VerifyDice {
        /// A game record file (`play --record`).
        file: String,
    },
}

fn parse_seed(text: &str) -> Result<[u8; 32], String> {
    dice::parse_seed(text).map_err(|e| e.to_string())
}

/// `rules` alone, for [`run_rules`].
#[derive(clap::Parser)]
#[command(name = "oddboard rules")]
struct RulesOnly {
    #[command(subcommand)]
    command: RulesCommand,
}

/// A failure that ends the command: its message and exit status.
#[derive(Debug)]
struct Failure {
    message: String,
    status: i32,
}

impl Failure {
    fn bad(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            status: 2,
        }
    }
}

fn setup(word: &str, fen: Option<&str>) -> Result<AnyGame, Failure> {
    let variant: Variant = word.parse().map_err(|e| Failure::bad(format!("{e}")))?;
    match fen {
        Some(text) => {
            AnyGame::from_position(variant, text).map_err(|e| Failure::bad(e.to_string()))
        }
        None => AnyGame::start(variant).map_err(|e| Failure::bad(e.to_string())),
    }
}

fn outcome_lines(game: &AnyGame) -> (String, String) {
    match game.outcome() {
        Some(outcome) => (
            outcome.result_str().to_string(),
            outcome.reason.as_str().to_string(),
        ),
        None => ("*".to_string(), "ongoing".to_string()),
    }
}

fn legal(variant: &str, fen: Option<&str>, out: &mut dyn Write) -> Result<(), Failure> {
    let game = setup(variant, fen)?;
    let moves = game.legal_actions();
    let (result, reason) = outcome_lines(&game);
    let text = format!(
        "{}\ncount: {}\nresult: {result}\nreason: {reason}\n",
        format!("moves: {}", moves.join(" ")).trim_end(),
        moves.len()
    );
    out.write_all(text.as_bytes())
        .map_err(|e| Failure::bad(e.to_string()))
}

fn perft(
    variant: &str,
    depth: u32,
    fen: Option<&str>,
    divide: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    if let Ok(variant) = variant.parse::<Variant>() {
        if variant.has_dice() {
            return Err(Failure::bad(format!(
                "{variant} is a dice game: there is no perft, since what an attack leads to depends on the rolls"
            )));
        }
    }
    let game = setup(variant, fen)?;
    let mut text = String::new();
    let total = if divide && depth > 0 {
        let divided = game.perft_divide(depth);
        for (action, count) in &divided {
            text.push_str(&format!("{action}: {count}\n"));
        }
        divided.iter().map(|(_, count)| count).sum()
    } else {
        game.perft(depth)
    };
    text.push_str(&format!("{total}\n"));
    out.write_all(text.as_bytes())
        .map_err(|e| Failure::bad(e.to_string()))
}

/// What `rules play` was given.
struct PlayArgs<'a> {
    variant: &'a str,
    fen: Option<&'a str>,
    seed: Option<[u8; 32]>,
    game_id: Option<&'a str>,
    record: bool,
    actions: &'a [String],
}

fn play(args: &PlayArgs<'_>, out: &mut dyn Write) -> Result<(), Failure> {
    let mut game = setup(args.variant, args.fen)?;
    let wants_dice = args.seed.is_some() || args.game_id.is_some() || args.record;
    if wants_dice && !game.variant().has_dice() {
        return Err(Failure::bad(format!(
            "{} rolls no dice: --seed, --game-id and --record do not apply",
            game.variant()
        )));
    }
    let seed = args.seed.unwrap_or(PUBLIC_SEED);
    let game_id = args.game_id.unwrap_or(PUBLIC_GAME_ID);
    if args.record {
        let record = record::record_game(seed, game_id, args.fen, args.actions)
            .map_err(|e| Failure::bad(e.to_string()))?;
        let json =
            serde_json::to_string_pretty(&record).map_err(|e| Failure::bad(e.to_string()))?;
        return writeln!(out, "{json}").map_err(|e| Failure::bad(e.to_string()));
    }
    if game.variant().has_dice() {
        game.set_dice(seed, game_id);
    }
    for (index, action) in args.actions.iter().enumerate() {
        game.play(action)
            .map_err(|e| Failure::bad(format!("action {} `{action}` refused: {e}", index + 1)))?;
    }
    let (result, reason) = outcome_lines(&game);
    let snapshot =
        serde_json::to_string(&game.snapshot()).map_err(|e| Failure::bad(e.to_string()))?;
    let text = format!(
        "position: {}\nsnapshot: {snapshot}\nresult: {result}\nreason: {reason}\n",
        game.position()
    );
    out.write_all(text.as_bytes())
        .map_err(|e| Failure::bad(e.to_string()))
}

fn verify_dice(path: &str, out: &mut dyn Write) -> Result<(), Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::bad(format!("cannot read {path}: {e}")))?;
    let game: DiceRecord = serde_json::from_str(&text)
        .map_err(|e| Failure::bad(format!("{path} is not a game record: {e}")))?;
    let verified = record::verify(&game).map_err(|e| match e {
        VerifyError::Malformed(_) => Failure::bad(format!("{path}: {e}")),
        VerifyError::Mismatch(_) => Failure {
            message: format!("{path}: {e}"),
            status: 1,
        },
    })?;
    let mut text = format!(
        "ok: the seed matches the commitment and all {} rolls of {} actions match it\n",
        verified.rolls, verified.actions
    );
    for line in &verified.lines {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!(
        "result: {}\nreason: {}\n",
        verified.result, verified.reason
    ));
    out.write_all(text.as_bytes())
        .map_err(|e| Failure::bad(e.to_string()))
}

/// Runs one rules command and returns the exit status.
pub fn run(command: &RulesCommand, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = match command {
        RulesCommand::Legal { variant, fen } => legal(variant, fen.as_deref(), out),
        RulesCommand::Perft {
            variant,
            depth,
            fen,
            divide,
        } => perft(variant, *depth, fen.as_deref(), *divide, out),
        RulesCommand::Play {
            variant,
            fen,
            seed,
            game_id,
            record,
            actions,
        } => play(
            &PlayArgs {
                variant,
                fen: fen.as_deref(),
                seed: *seed,
                game_id: game_id.as_deref(),
                record: *record,
                actions,
            },
            out,
        ),
        RulesCommand::Analyse {
            variant,
            fen,
            limits,
        } => setup(variant, fen.as_deref()).and_then(|game| {
            crate::engine_cli::analyse(&game, *limits, out).map_err(|e| Failure::bad(e.to_string()))
        }),
        RulesCommand::VerifyDice { file } => verify_dice(file, out),
    };
    match result {
        Ok(()) => 0,
        Err(failure) => {
            // Nothing useful can be done if stderr itself is gone.
            let _ = writeln!(err, "{}", failure.message);
            failure.status
        }
    }
}

/// Parses and runs `oddboard rules <args>` (the words after `rules`) and returns the exit
/// status: 2 with clap's message for a malformed command line, 0 with the text for `--help`.
pub fn run_rules(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    use clap::Parser;
    let words = std::iter::once("rules").chain(args.iter().map(String::as_str));
    match RulesOnly::try_parse_from(words) {
        Ok(parsed) => run(&parsed.command, out, err),
        // Help goes to `out` (status 0), a malformed command line to `err` (status 2).
        Err(e) if e.use_stderr() => {
            let _ = write!(err, "{}", e.render());
            2
        }
        Err(e) => {
            let _ = write!(out, "{}", e.render());
            0
        }
    }
}

#[cfg(test)]
mod tests {
    //! The dice commands end to end: a complete game of Davey Drehs played with a secret seed,
    //! recorded by `play --record`, checked by `verify-dice`, and tampered with.

    use super::*;

    fn run(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut out = Vec::new();
        let mut err = Vec::new();
        let status = run_rules(&args, &mut out, &mut err);
        (
            status,
            String::from_utf8_lossy(&out).into_owned(),
            String::from_utf8_lossy(&err).into_owned(),
        )
    }

    const SEED: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// Plays Davey Drehs with the seed until the game ends, preferring attacks so that it ends
    /// soon, and returns the actions.
    fn complete_game() -> Vec<String> {
        let mut game = AnyGame::start(Variant::Drehs).unwrap_or_else(|e| panic!("{e}"));
        let seed = dice::parse_seed(SEED).unwrap_or_else(|e| panic!("{e}"));
        game.set_dice(seed, "cli-game");
        let mut actions = Vec::new();
        for ply in 0..600 {
            let legal = game.legal_actions();
            let attacks: Vec<&String> = legal.iter().filter(|a| a.contains('x')).collect();
            let pool: Vec<&String> = if attacks.is_empty() {
                legal.iter().collect()
            } else {
                attacks
            };
            let Some(action) = pool.get(ply * 7 % pool.len().max(1)).map(|a| a.to_string()) else {
                break;
            };
            game.play(&action)
                .unwrap_or_else(|e| panic!("{action}: {e}"));
            actions.push(action);
        }
        assert!(game.outcome().is_some(), "the game did not end");
        actions
    }

    fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("oddboard-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    #[test]
    fn a_complete_game_plays_records_and_verifies() {
        let actions = complete_game();
        let mut args = vec!["play", "drehs", "--seed", SEED, "--game-id", "cli-game"];
        args.extend(actions.iter().map(String::as_str));
        let (status, out, err) = run(&args);
        assert_eq!(status, 0, "{err}");
        assert!(!out.contains("result: *"), "{out}");

        args.push("--record");
        let (status, json, err) = run(&args);
        assert_eq!(status, 0, "{err}");
        let path = temp_file("record.json", &json);
        let path_text = path.to_string_lossy().into_owned();
        let (status, out, err) = run(&["verify-dice", &path_text]);
        assert_eq!(status, 0, "{err}");
        assert!(out.starts_with("ok: "), "{out}");
        assert!(out.contains(&format!("\n{}. ", actions.len())), "{out}");

        // One face changed: status 1, naming the action and the roll.
        let mut record: DiceRecord = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        let (number, action) = record
            .actions
            .iter_mut()
            .enumerate()
            .find(|(_, a)| !a.rolls.is_empty())
            .unwrap_or_else(|| panic!("no rolls"));
        action.rolls[0].value = action.rolls[0].value % 20 + 1;
        let tampered = serde_json::to_string(&record).unwrap_or_default();
        let path = temp_file("tampered.json", &tampered);
        let (status, _, err) = run(&["verify-dice", &path.to_string_lossy()]);
        assert_eq!(status, 1);
        assert!(err.contains(&format!("action {}", number + 1)), "{err}");

        // Another seed: the commitment no longer matches.
        let mut record: DiceRecord = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        record.seed = "ff".repeat(32);
        let path = temp_file(
            "reseeded.json",
            &serde_json::to_string(&record).unwrap_or_default(),
        );
        let (status, _, err) = run(&["verify-dice", &path.to_string_lossy()]);
        assert_eq!(status, 1);
        assert!(err.contains("commitment"), "{err}");

        let path = temp_file("garbage.json", "{ not json");
        assert_eq!(run(&["verify-dice", &path.to_string_lossy()]).0, 2);
        assert_eq!(run(&["verify-dice", "/nonexistent/oddboard.json"]).0, 2);
    }

    #[test]
    fn the_example_record_of_the_docs_verifies() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../rules/tests/data/drehs/example-record.json"
        );
        let (status, out, err) = run(&["verify-dice", path]);
        assert_eq!(status, 0, "{err}");
        assert!(out.contains("16 rolls of 4 actions"), "{out}");
        assert!(out.ends_with("result: 1-0\nreason: king_killed\n"), "{out}");
    }

    #[test]
    fn the_same_seed_and_actions_replay_the_same_game() {
        let args = ["play", "drehs", "--seed", SEED, "g1@c6xd8", "b8@c3xd1"];
        let first = run(&args);
        assert_eq!(first.0, 0, "{}", first.2);
        assert_eq!(first, run(&args));
        let other = run(&[
            "play",
            "drehs",
            "--seed",
            &"11".repeat(32),
            "g1@c6xd8",
            "b8@c3xd1",
        ]);
        assert_ne!(first.1, other.1, "another seed, other dice");
    }

    #[test]
    fn perft_is_refused_for_dice_and_seeds_for_other_variants() {
        let (status, out, err) = run(&["perft", "drehs", "2"]);
        assert_eq!(status, 2);
        assert!(out.is_empty() && err.contains("dice"), "{err}");
        assert_eq!(run(&["perft", "drehs"]).0, 2);
        assert_eq!(run(&["play", "drehs", "--seed", "abc"]).0, 2);
        let (status, out, _) = run(&["legal", "drehs"]);
        assert_eq!(status, 0);
        assert!(out.contains("count: 165"), "{out}");
    }
}
