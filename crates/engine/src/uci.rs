//! The Universal Chess Interface over any reader and writer, so GUIs and match runners can
//! drive the engine (`oddboard uci` runs it on stdin and stdout). The variant is the option
//! `UCI_Variant` (one of our variant ids); positions and actions are in the notations of
//! `docs/rules/`. A search runs on its own thread, so `stop`, `isready` and `quit` are
//! answered while it thinks. Davey Drehs' rolls in `position … moves` follow the public
//! all-zero dice seed: a GUI cannot tell us a game's real rolls.

use crate::{Cancel, Engine, Limits, SearchResult};
use oddboard_rules::{AnyGame, Color, Variant};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The deepest iteration `go` asks for when nothing else limits it.
const MAX_DEPTH: u32 = 64;

/// What `go` was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    time_left: [Option<u64>; 2],
    increment: [Option<u64>; 2],
}

impl Go {
    fn parse(words: &[&str]) -> Go {
        let mut go = Go::default();
        let mut words = words.iter();
        while let Some(word) = words.next() {
            let mut number = || words.next().and_then(|w| w.parse::<u64>().ok());
            match *word {
                "depth" => go.depth = number().map(|d| d.clamp(1, u64::from(MAX_DEPTH)) as u32),
                "nodes" => go.nodes = number(),
                "movetime" => go.movetime = number(),
                "wtime" => go.time_left[0] = number(),
                "btime" => go.time_left[1] = number(),
                "winc" => go.increment[0] = number(),
                "binc" => go.increment[1] = number(),
                _ => {}
            }
        }
        go
    }

    /// How long the side to act may think: `movetime`, or a share of its clock.
    fn budget(&self, turn: Color) -> Option<Duration> {
        if let Some(ms) = self.movetime {
            return Some(Duration::from_millis(ms));
        }
        let side = turn.index();
        let left = self.time_left[side]?;
        let increment = self.increment[side].unwrap_or(0);
        let share = (left / 25 + increment * 3 / 4).min(left / 2).max(10);
        Some(Duration::from_millis(share))
    }
}

/// One UCI session.
struct Session<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    variant: Variant,
    game: AnyGame,
    engine: Arc<Mutex<Engine>>,
    /// The running search: how to stop it, its thread, and whether a limit ends it.
    search: Option<(Cancel, JoinHandle<()>, bool)>,
}

/// Runs a UCI session until `quit` (which stops a search at once) or the end of `input`
/// (after which a search with a limit runs to it, so a piped script gets its answers).
///
/// # Errors
/// Reading the input or writing the output failed.
pub fn run<R: BufRead, W: Write + Send + 'static>(input: R, out: W) -> io::Result<()> {
    let variant = Variant::Suicide;
    let mut session = Session {
        out: Arc::new(Mutex::new(out)),
        variant,
        game: start(variant)?,
        engine: Arc::new(Mutex::new(Engine::new(variant))),
        search: None,
    };
    for line in input.lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        if !session.command(&words)? {
            session.stop();
            return Ok(());
        }
    }
    session.finish();
    Ok(())
}

fn start(variant: Variant) -> io::Result<AnyGame> {
    AnyGame::start(variant).map_err(|e| io::Error::other(e.to_string()))
}

fn say<W: Write>(out: &Mutex<W>, line: &str) -> io::Result<()> {
    let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
    writeln!(out, "{line}")?;
    out.flush()
}

impl<W: Write + Send + 'static> Session<W> {
    /// Carries out one command; false on `quit`.
    fn command(&mut self, words: &[&str]) -> io::Result<bool> {
        match words.first().copied() {
            Some("uci") => self.identify()?,
            Some("isready") => say(&self.out, "readyok")?,
            Some("setoption") => self.set_option(words)?,
            Some("ucinewgame") => {
                self.stop();
                self.lock_engine().clear();
                self.game = start(self.variant)?;
            }
            Some("position") => self.position(&words[1..])?,
            Some("go") => self.go(Go::parse(&words[1..])),
            Some("stop") => self.stop(),
            Some("quit") => return Ok(false),
            Some(other) => say(&self.out, &format!("info string unknown command {other}"))?,
            None => {}
        }
        Ok(true)
    }

    fn lock_engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn identify(&self) -> io::Result<()> {
        let variants: Vec<String> = Variant::ALL
            .iter()
            .map(|v| format!("var {}", v.key()))
            .collect();
        say(&self.out, "id name Oddboard")?;
        say(&self.out, "id author the Oddboard developers")?;
        say(
            &self.out,
            &format!(
                "option name UCI_Variant type combo default {} {}",
                self.variant.key(),
                variants.join(" ")
            ),
        )?;
        say(&self.out, "uciok")
    }

    /// `setoption name UCI_Variant value <id>`: a new game of that variant.
    fn set_option(&mut self, words: &[&str]) -> io::Result<()> {
        let name = words.iter().position(|w| *w == "name");
        let value = words.iter().position(|w| *w == "value");
        let (Some(name), Some(value)) = (name, value) else {
            return say(&self.out, "info string setoption needs a name and a value");
        };
        let option = words[name + 1..value].join(" ");
        let text = words[value + 1..].join(" ");
        if !option.eq_ignore_ascii_case("UCI_Variant") {
            return say(&self.out, &format!("info string unknown option {option}"));
        }
        match text.parse::<Variant>() {
            Ok(variant) if variant.is_playable() => {
                self.stop();
                self.variant = variant;
                *self.lock_engine() = Engine::new(variant);
                self.game = start(variant)?;
                Ok(())
            }
            _ => say(&self.out, &format!("info string unknown variant {text}")),
        }
    }

    /// `position startpos|fen <position> [moves <action>…]`; a bad one changes nothing.
    fn position(&mut self, words: &[&str]) -> io::Result<()> {
        let moves_at = words.iter().position(|w| *w == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &words[..0]),
        };
        let game = match setup.first().copied() {
            Some("startpos") => AnyGame::start(self.variant).map_err(|e| e.to_string()),
            Some("fen") => AnyGame::from_position(self.variant, &setup[1..].join(" "))
                .map_err(|e| e.to_string()),
            _ => Err("position needs startpos or fen".to_string()),
        };
        let played = game.and_then(|mut game| {
            for action in moves {
                game.play(action)
                    .map_err(|e| format!("action {action}: {e}"))?;
            }
            Ok(game)
        });
        match played {
            Ok(game) => {
                self.game = game;
                Ok(())
            }
            Err(message) => say(&self.out, &format!("info string {message}")),
        }
    }

    /// Starts a search on its own thread; it says `info` per finished depth and `bestmove`.
    fn go(&mut self, go: Go) {
        self.stop();
        let cancel = Cancel::new();
        let (game, engine, out) = (self.game.clone(), self.engine.clone(), self.out.clone());
        let searching = cancel.clone();
        let handle = std::thread::spawn(move || {
            let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
            let best = deepen(&mut engine, &game, go, &searching, &out);
            let line = match best.and_then(|b| b.best) {
                Some(action) => format!("bestmove {action}"),
                None => "bestmove 0000".to_string(),
            };
            // Nobody is left to tell if the output is gone.
            let _ = say(&out, &line);
        });
        let bounded =
            go.depth.is_some() || go.nodes.is_some() || go.budget(self.game.turn()).is_some();
        self.search = Some((cancel, handle, bounded));
    }

    /// Stops a running search and waits for its `bestmove`.
    fn stop(&mut self) {
        if let Some((cancel, handle, _)) = self.search.take() {
            cancel.cancel();
            // A panicked search has nothing more to say.
            let _ = handle.join();
        }
    }

    /// Lets a search with a limit run to it (one without is stopped) and waits for it.
    fn finish(&mut self) {
        if let Some((cancel, handle, bounded)) = self.search.take() {
            if !bounded {
                cancel.cancel();
            }
            let _ = handle.join();
        }
    }
}

/// Iterative deepening with an `info` line per finished depth; the last useful result.
fn deepen<W: Write>(
    engine: &mut Engine,
    game: &AnyGame,
    go: Go,
    cancel: &Cancel,
    out: &Mutex<W>,
) -> Option<SearchResult> {
    let started = Instant::now();
    let budget = go.budget(game.turn());
    let mut nodes_used = 0u64;
    let mut best: Option<SearchResult> = None;
    for depth in 1..=go.depth.unwrap_or(MAX_DEPTH) {
        let limits = Limits {
            depth: Some(depth),
            nodes: go.nodes.map(|n| n.saturating_sub(nodes_used).max(1)),
            time: budget.map(|b| b.saturating_sub(started.elapsed())),
        };
        let found = engine.search(game, &limits, cancel);
        nodes_used += found.nodes;
        let finished = found.depth >= depth;
        if finished || best.is_none() || found.best.is_some() && found.depth > 0 {
            let _ = say(out, &info(&found, started.elapsed(), nodes_used));
            best = Some(found.clone());
        }
        let out_of_nodes = go.nodes.is_some_and(|n| nodes_used >= n);
        let out_of_time = budget.is_some_and(|b| started.elapsed() >= b);
        if !finished || cancel.is_cancelled() || out_of_nodes || out_of_time || found.best.is_none()
        {
            break;
        }
    }
    best
}

fn info(found: &SearchResult, elapsed: Duration, nodes: u64) -> String {
    let millis = elapsed.as_millis().max(1);
    let nps = u128::from(nodes) * 1000 / millis;
    format!(
        "info depth {} score {} nodes {nodes} time {millis} nps {nps} pv {}",
        found.depth.max(1),
        found.score,
        found.pv.join(" ")
    )
    .trim_end()
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test can read back after the session has it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn session(script: &str) -> Vec<String> {
        let out = Shared::default();
        run(io::Cursor::new(script.to_string()), out.clone()).unwrap_or_else(|e| panic!("{e}"));
        let bytes = out.0.lock().unwrap_or_else(PoisonError::into_inner).clone();
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_session_names_the_variants_and_finds_a_win_with_info_lines() {
        let lines = session(
            "uci\nisready\nsetoption name UCI_Variant value suicide\nucinewgame\n\
             position fen 8/8/3n4/8/8/8/4P3/8 w - - 0 1\ngo depth 3\nisready\n",
        );
        assert_eq!(lines[0], "id name Oddboard");
        assert!(lines[2].contains("type combo default suicide var suicide var chazz"));
        assert_eq!(lines[3], "uciok");
        assert_eq!(lines[4], "readyok");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info depth 1 score mate ")),
            "{lines:?}"
        );
        assert!(lines.iter().any(|l| l.contains(" pv e2e4")), "{lines:?}");
        assert!(lines.contains(&"bestmove e2e4".to_string()), "{lines:?}");
    }

    #[test]
    fn every_variant_plays_a_legal_move_after_moves_and_bad_input_changes_nothing() {
        for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
            let game = AnyGame::start(variant).unwrap_or_else(|e| panic!("{e}"));
            let first = game.legal_actions()[0].clone();
            let lines = session(&format!(
                "setoption name UCI_Variant value {}\nposition startpos moves {first}\n\
                 position startpos moves nonsense\nsetoption name UCI_Variant value fly\n\
                 go nodes 2000\n",
                variant.key()
            ));
            assert!(lines
                .iter()
                .any(|l| l.starts_with("info string action nonsense")));
            assert!(lines.iter().any(|l| l == "info string unknown variant fly"));
            let best = lines
                .iter()
                .find_map(|l| l.strip_prefix("bestmove "))
                .unwrap_or_else(|| panic!("no bestmove: {lines:?}"));
            let mut after = game.clone();
            after.play(&first).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                after.legal_actions().iter().any(|a| a == best),
                "{variant:?} {best}"
            );
        }
    }

    #[test]
    fn quit_stops_a_search_without_limits_which_still_answers() {
        let lines = session("setoption name UCI_Variant value chad\ngo infinite\nquit\n");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove ")).count(),
            1,
            "{lines:?}"
        );
    }

    #[test]
    fn clock_time_is_shared_out_and_movetime_wins() {
        let go = Go::parse(&["wtime", "60000", "btime", "1000", "winc", "1000"]);
        assert_eq!(go.budget(Color::White), Some(Duration::from_millis(3150)));
        assert_eq!(go.budget(Color::Black), Some(Duration::from_millis(40)));
        let go = Go::parse(&["movetime", "100", "wtime", "60000"]);
        assert_eq!(go.budget(Color::White), Some(Duration::from_millis(100)));
        assert_eq!(Go::parse(&["depth", "x"]).budget(Color::White), None);
    }
}
