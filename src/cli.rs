//! `oddboard rules …`: the rules engine on the command line.
//!
//! - `legal <variant> [--fen <position>]`: the legal actions, their count and the outcome.
//! - `perft <variant> <depth> [--fen <position>] [--divide]`: leaf count of the action tree.
//! - `play <variant> [--fen <position>] <action>...`: plays the actions and prints the result.
//!
//! Output goes to the writers passed in, so tests can run the command without a process.
//! A bad variant, position or action prints one line on the error writer and yields exit
//! status 2.

use crate::rules::{AnyGame, Variant};
use std::io::Write;

/// The usage text printed for a malformed command line.
pub const USAGE: &str = "usage: oddboard rules legal <variant> [--fen <position>]
       oddboard rules perft <variant> <depth> [--fen <position>] [--divide]
       oddboard rules play <variant> [--fen <position>] <action>...";

/// A failure that ends the command: its message and exit status.
#[derive(Debug)]
struct Failure {
    message: String,
    status: i32,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: format!("{}\n{USAGE}", message.into()),
            status: 2,
        }
    }

    fn bad(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            status: 2,
        }
    }
}

/// Options shared by the subcommands, with the positional words left in order.
struct Parsed {
    fen: Option<String>,
    divide: bool,
    words: Vec<String>,
}

fn parse_options(args: &[String]) -> Result<Parsed, Failure> {
    let mut parsed = Parsed {
        fen: None,
        divide: false,
        words: Vec::new(),
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--fen" | "--position" => {
                let value = iter
                    .next()
                    .ok_or_else(|| Failure::usage("--fen needs a position"))?;
                parsed.fen = Some(value.clone());
            }
            "--divide" => parsed.divide = true,
            _ => parsed.words.push(arg.clone()),
        }
    }
    Ok(parsed)
}

fn setup(variant_word: Option<&String>, fen: Option<&str>) -> Result<AnyGame, Failure> {
    let word = variant_word.ok_or_else(|| Failure::usage("missing variant"))?;
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

fn legal(args: &Parsed, out: &mut dyn Write) -> Result<(), Failure> {
    if args.words.len() != 1 {
        return Err(Failure::usage("legal takes one variant"));
    }
    let game = setup(args.words.first(), args.fen.as_deref())?;
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

fn perft(args: &Parsed, out: &mut dyn Write) -> Result<(), Failure> {
    if args.words.len() != 2 {
        return Err(Failure::usage("perft takes a variant and a depth"));
    }
    let depth: u32 = args
        .words
        .get(1)
        .and_then(|d| d.parse().ok())
        .filter(|d| *d <= 32)
        .ok_or_else(|| Failure::usage("the depth must be a whole number from 0 to 32"))?;
    let game = setup(args.words.first(), args.fen.as_deref())?;
    let mut text = String::new();
    let total = if args.divide && depth > 0 {
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

fn play(args: &Parsed, out: &mut dyn Write) -> Result<(), Failure> {
    let mut game = setup(args.words.first(), args.fen.as_deref())?;
    for (index, action) in args.words.iter().skip(1).enumerate() {
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

/// Runs `oddboard rules <args>` and returns the exit status.
pub fn run_rules(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = match args.split_first() {
        Some((command, rest)) => parse_options(rest).and_then(|parsed| match command.as_str() {
            "legal" => legal(&parsed, out),
            "perft" => perft(&parsed, out),
            "play" => play(&parsed, out),
            other => Err(Failure::usage(format!("unknown rules command `{other}`"))),
        }),
        None => Err(Failure::usage("missing rules command")),
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
