//! Runs the data tables in `tests/data/<variant>/*.cases`.
//!
//! A file holds cases separated by blank lines; `#` starts a comment line. Each case is
//! `key: value` lines:
//!
//! | key | meaning |
//! | --- | --- |
//! | `name` | a label for failure messages (required) |
//! | `position` | the start position in the variant's notation (default: the start position) |
//! | `play` | actions (machine notation, space-separated) played first; each must be legal |
//! | `after` | the position expected after `play` |
//! | `turn` | `white` or `black`: the side to act |
//! | `legal` | the exact set of legal actions (any order; empty for none) |
//! | `includes` / `excludes` | actions that must / must not be legal |
//! | `count` | the number of legal actions |
//! | `result` | `*`, `1-0`, `0-1` or `1/2-1/2` |
//! | `reason` | the end reason id, or `ongoing` |
//! | `perft N` | the leaf count at depth N |
//! | `illegal` | `<action> <error code>`: refused with that code, position unchanged (repeatable) |
//! | `forced` | the action the rules force with no choice, or `none` |
//!
//! Everything after `play` is checked in the position reached by it.

use oddboard_rules::{ActionError, AnyGame, Variant};
use std::collections::BTreeSet;
use std::path::Path;

struct Case {
    file: String,
    line: usize,
    fields: Vec<(String, String)>,
}

impl Case {
    fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn label(&self) -> String {
        format!(
            "{}:{} ({})",
            self.file,
            self.line,
            self.get("name").unwrap_or("unnamed")
        )
    }
}

fn parse_cases(file: &str, text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            cases.extend(current.take());
            continue;
        }
        let case = current.get_or_insert_with(|| Case {
            file: file.to_string(),
            line: index + 1,
            fields: Vec::new(),
        });
        match line.split_once(':') {
            Some((key, value)) => case
                .fields
                .push((key.trim().to_string(), value.trim().to_string())),
            None => panic!("{file}:{}: expected `key: value`, got `{line}`", index + 1),
        }
    }
    cases.extend(current);
    cases
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// Checks one case, returning a description of every way it fails.
fn check_case(variant: Variant, case: &Case) -> Vec<String> {
    let label = case.label();
    let game = match play_setup(variant, case) {
        Ok(game) => game,
        Err(failure) => return vec![format!("{label}: {failure}")],
    };
    let legal: BTreeSet<String> = game.legal_actions().into_iter().collect();
    case.fields
        .iter()
        .flat_map(|(key, value)| check_field(&game, &legal, key, value))
        .map(|failure| format!("{label}: {failure}"))
        .collect()
}

/// The game of the case's `position` (or the start) after its `play` actions.
fn play_setup(variant: Variant, case: &Case) -> Result<AnyGame, String> {
    let setup = match case.get("position") {
        Some(position) => AnyGame::from_position(variant, position).map_err(|e| e.to_string()),
        None => AnyGame::start(variant).map_err(|e| e.to_string()),
    };
    let mut game = setup.map_err(|e| format!("position refused: {e}"))?;
    for action in words(case.get("play").unwrap_or("")) {
        game.play(&action)
            .map_err(|e| format!("play {action}: {e}"))?;
    }
    Ok(game)
}

/// Checks one `key: value` line against `game` (whose legal actions are `legal`).
fn check_field(game: &AnyGame, legal: &BTreeSet<String>, key: &str, value: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let mut fail = |what: String| failures.push(what);
    match key {
        "name" | "position" | "play" => {}
        "after" => {
            if game.position() != value {
                fail(format!("position {} != {value}", game.position()));
            }
        }
        "turn" => {
            if game.turn().as_str() != value {
                fail(format!("turn {} != {value}", game.turn()));
            }
        }
        "legal" => {
            let expected: BTreeSet<String> = words(value).into_iter().collect();
            if expected != *legal {
                let missing: Vec<_> = expected.difference(legal).collect();
                let extra: Vec<_> = legal.difference(&expected).collect();
                fail(format!(
                    "legal set differs: missing {missing:?}, extra {extra:?}"
                ));
            }
        }
        "includes" | "excludes" => {
            let must_be_legal = key == "includes";
            for action in words(value) {
                if legal.contains(&action) != must_be_legal {
                    let not = if must_be_legal { "" } else { " not" };
                    fail(format!("{action} should{not} be legal"));
                }
            }
        }
        "count" => {
            if legal.len().to_string() != value {
                fail(format!("count {} != {value}", legal.len()));
            }
        }
        "result" => {
            let result = game.outcome().map_or("*", |o| o.result_str());
            if result != value {
                fail(format!("result {result} != {value}"));
            }
        }
        "reason" => {
            let reason = game.outcome().map_or("ongoing", |o| o.reason.as_str());
            if reason != value {
                fail(format!("reason {reason} != {value}"));
            }
        }
        "forced" => {
            let forced = game.forced_action().unwrap_or_else(|| "none".to_string());
            if forced != value {
                fail(format!("forced action {forced} != {value}"));
            }
        }
        "illegal" => return check_refused(game, value),
        perft if perft.starts_with("perft ") => {
            match perft.trim_start_matches("perft ").parse::<u32>() {
                Ok(depth) => {
                    let nodes = game.perft(depth);
                    if nodes.to_string() != value {
                        fail(format!("perft {depth} = {nodes}, expected {value}"));
                    }
                }
                Err(_) => fail(format!("bad key `{perft}`")),
            }
        }
        other => fail(format!("unknown key `{other}`")),
    }
    failures
}

/// An `illegal` line, `<action> <error code>`: the action is refused with that code (when
/// one is given) and the position stays as it was.
fn check_refused(game: &AnyGame, value: &str) -> Vec<String> {
    let (action, code) = value.split_once(' ').unwrap_or((value, ""));
    let before = game.position();
    let mut probe = game.clone();
    let mut failures = Vec::new();
    match probe.play(action) {
        Ok(_) => failures.push(format!("{action} was accepted")),
        Err(e) => {
            let got = match &e {
                ActionError::Parse(p) => p.code(),
                ActionError::Illegal(i) => i.code(),
            };
            if !code.is_empty() && got != code.trim() {
                failures.push(format!(
                    "{action} refused with {got} ({e}), expected {code}"
                ));
            }
            if probe.position() != before {
                failures.push(format!("{action} was refused but changed the position"));
            }
        }
    }
    failures
}

/// Runs every case file of `variant`, returning (cases run, failures).
fn run_variant(variant: Variant) -> (usize, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(variant.key());
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cases"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut run = 0;
    let mut failures = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for case in parse_cases(&format!("{}/{name}", variant.key()), &text) {
            run += 1;
            failures.extend(check_case(variant, &case));
        }
    }
    (run, failures)
}

fn assert_variant_tables(variant: Variant) {
    if !variant.is_playable() {
        return;
    }
    let (run, failures) = run_variant(variant);
    assert!(
        run > 0,
        "no cases for {variant} under tests/data/{variant}/"
    );
    assert!(
        failures.is_empty(),
        "{} of the {variant} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn suicide_tables() {
    assert_variant_tables(Variant::Suicide);
}

#[test]
fn chazz_tables() {
    assert_variant_tables(Variant::Chazz);
}

#[test]
fn duel_tables() {
    assert_variant_tables(Variant::Duel);
}

#[test]
fn drehs_tables() {
    assert_variant_tables(Variant::Drehs);
}

#[test]
fn chad_tables() {
    assert_variant_tables(Variant::Chad);
}

#[test]
fn case_files_parse_into_blocks() {
    let cases = parse_cases(
        "inline",
        "# comment\nname: a\nlegal: e2e4\n\n\nname: b\nperft 1: 20\n",
    );
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[1].get("perft 1"), Some("20"));
    assert_eq!(cases[1].line, 6);
}
