//! `oddboard uci` through the real binary, a line at a time as a GUI or a referee drives it:
//! the handshake, a search after moves checked against our rules, a king promotion in
//! python-chess's notation, garbage answered with `info string`, `go infinite` ended by
//! `stop`, and `quit`. No database needed.

use oddboard::rules::{AnyGame, Variant};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one answer may take: a debug build on a busy 2-core machine.
const PATIENCE: Duration = Duration::from_secs(60);
/// Suicide: White's only man must promote, and only a king loses it in time (python-chess's
/// `SuicideBoard` finds no other move that wins within four plies).
const KING_PROMOTION_WINS: &str = "8/2P3r1/2k5/8/8/8/8/8 w - - 0 1";

/// The engine in a child process, its output lines read on a thread of their own.
struct Uci {
    child: Child,
    input: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Uci {
    fn start() -> Uci {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oddboard"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start oddboard uci: {e}"));
        let output = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let input = child.stdin.take();
        Uci {
            child,
            input,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let input = self
            .input
            .as_mut()
            .unwrap_or_else(|| panic!("stdin closed"));
        writeln!(input, "{line}").unwrap_or_else(|e| panic!("send {line}: {e}"));
        input.flush().unwrap_or_else(|e| panic!("send {line}: {e}"));
    }

    /// The lines up to the first that starts with `prefix`, that one last.
    fn until(&self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    lines.push(line);
                    if done {
                        return lines;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {prefix} in time: {lines:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("exited before {prefix}: {lines:?}"),
            }
        }
    }

    /// The action of the `bestmove` line that ends `lines`.
    fn best(lines: &[String]) -> String {
        lines
            .last()
            .and_then(|l| l.strip_prefix("bestmove "))
            .unwrap_or_else(|| panic!("no bestmove: {lines:?}"))
            .to_string()
    }

    /// Closes the engine's input, as at the end of a piped script.
    fn close(&mut self) {
        self.input = None;
    }

    /// Waits for the process to end on its own.
    fn exit_status(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Ok(None) => panic!("oddboard uci did not end"),
                Err(e) => panic!("{e}"),
            }
        }
    }
}

impl Drop for Uci {
    fn drop(&mut self) {
        // A failed test must not leave the engine running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(variant: Variant) -> AnyGame {
    AnyGame::start(variant).unwrap_or_else(|e| panic!("{e}"))
}

fn suicide(position: Option<&str>, moves: &[&str]) -> AnyGame {
    let mut game = match position {
        Some(fen) => AnyGame::from_position(Variant::Suicide, fen).map_err(|e| e.to_string()),
        None => AnyGame::start(Variant::Suicide).map_err(|e| e.to_string()),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    for action in moves {
        game.play(action)
            .unwrap_or_else(|e| panic!("{action}: {e}"));
    }
    game
}

/// How many of `lines` start with `prefix`.
fn starting(lines: &[String], prefix: &str) -> usize {
    lines.iter().filter(|l| l.starts_with(prefix)).count()
}

fn assert_legal(game: &AnyGame, best: &str, lines: &[String]) {
    assert!(
        game.legal_actions().iter().any(|a| a == best),
        "{best} is not legal: {lines:?}"
    );
}

#[test]
fn uci_a_whole_exchange_through_the_binary() {
    let mut uci = Uci::start();
    uci.send("uci");
    let intro = uci.until("uciok");
    assert_eq!(intro[0], "id name Oddboard", "{intro:?}");
    let options = [
        "UCI_Variant type combo",
        "Level type spin",
        "Hash",
        "Threads",
    ];
    for option in options {
        let line = format!("option name {option}");
        assert!(intro.iter().any(|l| l.starts_with(&line)), "{intro:?}");
    }
    uci.send("isready");
    assert_eq!(uci.until("readyok"), ["readyok"]);

    uci.send("setoption name UCI_Variant value suicide");
    uci.send("ucinewgame");
    uci.send("position startpos moves e2e3 e7e5");
    uci.send("go depth 3");
    let lines = uci.until("bestmove ");
    assert_eq!(
        starting(&lines, "info depth "),
        3,
        "an info line per iteration: {lines:?}"
    );
    assert!(
        lines.iter().all(|l| !l.starts_with("info depth")
            || (l.contains(" score ") && l.contains(" nodes ") && l.contains(" nps "))),
        "{lines:?}"
    );
    let best = Uci::best(&lines);
    assert_legal(&suicide(None, &["e2e3", "e7e5"]), &best, &lines);

    // Only a king promotion wins: the engine says it as python-chess does.
    uci.send(&format!("position fen {KING_PROMOTION_WINS}"));
    uci.send("go depth 5");
    let lines = uci.until("bestmove ");
    assert_eq!(Uci::best(&lines), "c7c8k", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains(" score mate ")),
        "{lines:?}"
    );

    // Garbage: an info string each, and the last good position stays.
    uci.send("position startpos moves e2e3");
    for garbage in [
        "flurb",
        "position fen not a position",
        "position startpos moves e7e5 e2e9",
        "setoption name Level value 99",
        "setoption name",
        "go movetime soon depth 1",
    ] {
        uci.send(garbage);
    }
    let lines = uci.until("bestmove ");
    assert_eq!(starting(&lines, "info string "), 6, "{lines:?}");
    assert!(lines.contains(&"info string unknown command flurb".to_string()));
    assert_legal(&suicide(None, &["e2e3"]), &Uci::best(&lines), &lines);

    // `go infinite` answers nothing until `stop`, even once its search has found the win,
    // and hears `isready` meanwhile.
    uci.send(&format!("position fen {KING_PROMOTION_WINS}"));
    uci.send("go infinite");
    std::thread::sleep(Duration::from_millis(500));
    uci.send("isready");
    let lines = uci.until("readyok");
    assert!(
        lines.iter().any(|l| l.contains(" score mate ")),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    uci.send("stop");
    assert_eq!(uci.until("bestmove "), ["bestmove c7c8k"]);

    uci.send("quit");
    assert!(uci.exit_status().success());
}

#[test]
fn uci_says_bestmove_0000_when_the_game_is_over_and_quits_mid_search() {
    let mut uci = Uci::start();
    // White has no men left: White has won, nothing is left to play.
    uci.send("position fen 8/8/3n4/8/8/8/8/8 w - - 0 1");
    uci.send("go movetime 100");
    assert_eq!(uci.until("bestmove "), ["bestmove 0000"]);
    uci.send("position startpos");
    uci.send("go infinite");
    uci.send("quit");
    let lines = uci.until("bestmove ");
    assert_legal(&suicide(None, &[]), &Uci::best(&lines), &lines);
    assert!(uci.exit_status().success());
}

/// A piped script: the end of the input lets a search with a limit run to its `bestmove`,
/// then the process ends with status 0.
#[test]
fn uci_answers_a_piped_script_to_its_end() {
    let mut uci = Uci::start();
    for line in [
        "uci",
        "setoption name UCI_Variant value chazz",
        "position startpos",
        "go depth 2",
    ] {
        uci.send(line);
    }
    uci.close();
    let lines = uci.until("bestmove ");
    assert!(lines.iter().any(|l| l == "uciok"), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 2 score ")),
        "{lines:?}"
    );
    assert_legal(&start(Variant::Chazz), &Uci::best(&lines), &lines);
    assert!(uci.exit_status().success());
}
