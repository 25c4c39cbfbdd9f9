//! `oddboard rules`: output shape and exit statuses, run in-process (no database needed).

use oddboard::cli::run_rules;
use oddboard::rules::Variant;

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

#[test]
fn legal_prints_exactly_four_lines_for_every_playable_variant() {
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let (status, out, err) = run(&["legal", variant.key()]);
        assert_eq!(status, 0, "{variant}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].starts_with("moves:"));
        let moves: Vec<&str> = lines[0]
            .trim_start_matches("moves:")
            .split_whitespace()
            .collect();
        let mut sorted = moves.clone();
        sorted.sort_unstable();
        assert_eq!(moves, sorted, "moves are sorted by byte order");
        assert_eq!(lines[1], format!("count: {}", moves.len()));
        assert_eq!(lines[2], "result: *");
        assert_eq!(lines[3], "reason: ongoing");
    }
}

#[test]
fn perft_divide_lines_add_up_to_the_last_line() {
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let (status, plain, _) = run(&["perft", variant.key(), "2"]);
        if status != 0 {
            // Dice variants refuse perft; they say so themselves.
            continue;
        }
        let (_, divided, _) = run(&["perft", variant.key(), "2", "--divide"]);
        let lines: Vec<&str> = divided.lines().collect();
        let total: u64 = lines
            .last()
            .and_then(|l| l.parse().ok())
            .unwrap_or(u64::MAX);
        let sum: u64 = lines[..lines.len() - 1]
            .iter()
            .filter_map(|l| l.rsplit_once(": ").and_then(|(_, n)| n.parse::<u64>().ok()))
            .sum();
        assert_eq!(sum, total, "{variant}");
        assert_eq!(plain.trim(), total.to_string(), "{variant}");
    }
}

#[test]
fn bad_input_is_one_line_on_stderr_with_status_2() {
    let mut probes = vec![
        vec!["legal", "nosuchvariant"],
        vec!["perft", "suicide", "x"],
        vec!["frobnicate"],
    ];
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        probes.push(vec!["legal", variant.key(), "--fen", "not a position"]);
        probes.push(vec!["play", variant.key(), "zz9zz9"]);
    }
    for probe in probes {
        let (status, out, err) = run(&probe);
        assert_eq!(status, 2, "{probe:?}");
        assert!(out.is_empty(), "{probe:?}: {out}");
        assert!(!err.trim().is_empty(), "{probe:?}");
        if probe.len() > 2 && probe[0] != "perft" {
            assert_eq!(err.lines().count(), 1, "{probe:?}: {err}");
        }
    }
}

#[test]
fn play_prints_position_snapshot_and_outcome() {
    for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
        let (_, legal, _) = run(&["legal", variant.key()]);
        let first = legal
            .lines()
            .next()
            .and_then(|l| l.trim_start_matches("moves:").split_whitespace().next())
            .map(str::to_string);
        let Some(first) = first else { continue };
        let (status, out, err) = run(&["play", variant.key(), &first]);
        assert_eq!(status, 0, "{variant} {first}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].starts_with("position: "));
        let json = lines[1].trim_start_matches("snapshot: ");
        let value: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
        assert_eq!(value["variant"], variant.key());
        assert_eq!(value["last_action"]["machine"], first.as_str());
        assert!(lines[2].starts_with("result: "));
        assert!(lines[3].starts_with("reason: "));
    }
}

/// `oddboard engine match` against the engine itself through `oddboard uci`: every game is
/// played to a result and the score adds up.
#[test]
fn a_match_against_a_uci_engine_scores_every_game() {
    let binary = env!("CARGO_BIN_EXE_oddboard");
    let output = std::process::Command::new(binary)
        .args(["engine", "match", "--variant", "chazz", "--games", "2"])
        .args(["--movetime", "10", "--engine", &format!("{binary} uci")])
        .output()
        .unwrap_or_else(|e| panic!("run the match: {e}"));
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("game 1 as white: "), "{out}");
    assert!(lines[1].starts_with("game 2 as black: "), "{out}");
    assert!(lines[2].starts_with("oddboard vs "), "{out}");
    let refused = out.contains("which the rules refuse");
    assert!(!refused, "our own engine plays only legal actions: {out}");
}
