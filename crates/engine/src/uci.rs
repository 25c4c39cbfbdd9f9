//! The Universal Chess Interface over any reader and writer, so GUIs, match runners and
//! referees can drive the engine (`oddboard uci` runs it on stdin and stdout): the options
//! (`UCI_Variant`, `Level`, `Hash`, `Threads`), positions and `moves`, `go` with its limits
//! and the clock shared out into a time budget, one `info` line per finished iteration and
//! the `bestmove`. The variant is `UCI_Variant` (one of our variant ids); positions and
//! actions are in the notations of `docs/rules/`, which for Suicide are FEN and UCI moves
//! exactly as python-chess and Fairy-Stockfish write them (`e7e8k` promotes to a king).
//! A search runs on its own thread, so `stop`, `isready` and `quit` are answered while it
//! thinks. Bad input is answered with an `info string` line and changes nothing. Davey
//! Drehs' rolls in `position … moves` follow the public all-zero dice seed: a GUI cannot tell
//! us a game's real rolls.

use crate::table::Entry;
use crate::{choose_within, Cancel, Engine, Level, Limits, SearchResult, TABLE_BITS};
use oddboard_rules::{AnyGame, Color, Variant};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The deepest iteration `go` asks for when nothing else limits it.
const MAX_DEPTH: u32 = 64;
/// Moves a clock is shared out over when `go` has no `movestogo`.
const MOVES_TO_GO: u64 = 25;
/// The largest `Hash` in MiB (the table holds at most 2^26 entries).
const MAX_HASH_MB: u64 = 2_048;
/// The largest `Threads` accepted (and ignored: one thread searches).
const MAX_THREADS: u64 = 1_024;

/// What `go` was asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    time_left: [Option<u64>; 2],
    increment: [Option<u64>; 2],
    moves_to_go: Option<u64>,
    /// Search until `stop`, and say `bestmove` only then.
    infinite: bool,
}

impl Go {
    /// The limits of `go …`, and what in it was not understood (and ignored).
    fn parse(words: &[&str]) -> (Go, Vec<String>) {
        let mut go = Go::default();
        let mut problems = Vec::new();
        let mut words = words.iter().peekable();
        while let Some(&word) = words.next() {
            if word == "infinite" {
                go.infinite = true;
                continue;
            }
            let slot = match word {
                "depth" => None,
                "nodes" => Some(&mut go.nodes),
                "movetime" => Some(&mut go.movetime),
                "wtime" => Some(&mut go.time_left[0]),
                "btime" => Some(&mut go.time_left[1]),
                "winc" => Some(&mut go.increment[0]),
                "binc" => Some(&mut go.increment[1]),
                "movestogo" => Some(&mut go.moves_to_go),
                other => {
                    problems.push(format!("go: {other} is not supported, ignored"));
                    // Its arguments (a number, or `searchmoves`' actions) go with it.
                    while words.next_if(|w| !is_go_keyword(w)).is_some() {}
                    continue;
                }
            };
            // A word that is no keyword is this one's argument, good or bad.
            let argument = words.next_if(|w| !is_go_keyword(w));
            let Some(number) = argument.and_then(|w| w.parse::<u64>().ok()) else {
                problems.push(format!("go: {word} needs a whole number, ignored"));
                continue;
            };
            match slot {
                Some(slot) => *slot = Some(number),
                None => go.depth = Some(number.clamp(1, u64::from(MAX_DEPTH)) as u32),
            }
        }
        (go, problems)
    }

    /// How long the side to act may think: `movetime`, or its share of its clock (the time
    /// left over the moves to go, plus most of the increment, never more than half of what
    /// is left, or three quarters on the last move before a time control).
    fn budget(&self, turn: Color) -> Option<Duration> {
        if let Some(ms) = self.movetime {
            return Some(Duration::from_millis(ms));
        }
        let side = turn.index();
        let left = self.time_left[side]?;
        let increment = self.increment[side].unwrap_or(0);
        let moves = self
            .moves_to_go
            .unwrap_or(MOVES_TO_GO)
            .clamp(1, 2 * MOVES_TO_GO);
        let cap = if moves == 1 { left / 4 * 3 } else { left / 2 };
        let share = (left / moves + increment * 3 / 4).min(cap).max(1);
        Some(Duration::from_millis(share))
    }

    /// The search limits at `level`: this command's depth, nodes and time, within the
    /// level's own depth and node caps (level 8 has none: it searches for `go`'s time).
    fn limits(&self, level: Level, turn: Color) -> Limits {
        let caps = level.limits();
        let depth = match (self.depth, caps.depth) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(MAX_DEPTH),
        };
        let nodes = match (self.nodes, caps.nodes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Limits {
            depth: Some(depth),
            nodes,
            time: self.budget(turn),
        }
    }
}

/// The words `go` knows, where an unsupported one's arguments end.
fn is_go_keyword(word: &str) -> bool {
    matches!(
        word,
        "depth"
            | "nodes"
            | "movetime"
            | "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "infinite"
            | "searchmoves"
            | "ponder"
            | "mate"
    )
}

/// The table size (2^bits entries) that fits in `megabytes` MiB.
fn table_bits(megabytes: u64) -> u32 {
    let entries = megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Option<Entry>>() as u64;
    entries.max(1).ilog2().clamp(10, 26)
}

/// The `Hash` an engine's default table takes, in MiB (at least 1).
fn default_hash_mb() -> u64 {
    let bytes = (1u64 << TABLE_BITS) * std::mem::size_of::<Option<Entry>>() as u64;
    (bytes >> 20).max(1)
}

/// A search on its thread: how to stop it, the thread (which gives back the `bestmove` line
/// when it is to be said only on `stop`), and whether a limit ends it.
struct Running {
    cancel: Cancel,
    handle: JoinHandle<Option<String>>,
    bounded: bool,
}

/// One UCI session.
struct Session<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    variant: Variant,
    game: AnyGame,
    engine: Arc<Mutex<Engine>>,
    level: Level,
    hash_bits: u32,
    /// Games begun (`ucinewgame`), which seeds the levels' noise.
    games: u64,
    search: Option<Running>,
}

/// Runs a UCI session until `quit` (which stops a search at once) or the end of `input`
/// (after which a search with a limit runs to it, so a piped script gets its answers).
///
/// # Errors
/// Reading the input or writing the output failed.
pub fn run<R: BufRead, W: Write + Send + 'static>(input: R, out: W) -> io::Result<()> {
    let variant = Variant::Suicide;
    let hash_bits = table_bits(default_hash_mb());
    let mut session = Session {
        out: Arc::new(Mutex::new(out)),
        variant,
        game: start(variant)?,
        engine: Arc::new(Mutex::new(Engine::with_table_bits(variant, hash_bits))),
        level: Level::MAX,
        hash_bits,
        games: 0,
        search: None,
    };
    for line in input.lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        if !session.command(&words)? {
            session.stop()?;
            return Ok(());
        }
    }
    session.finish()
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
                self.stop()?;
                self.lock_engine().clear();
                self.game = start(self.variant)?;
                self.games += 1;
            }
            Some("position") => self.position(&words[1..])?,
            Some("go") => self.go(&words[1..])?,
            Some("stop") => self.stop()?,
            Some("quit") => return Ok(false),
            // Accepted and without effect: nothing is printed in debug mode, and the engine
            // needs no registration.
            Some("debug" | "register") => {}
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
            .filter(|v| v.is_playable())
            .map(|v| format!("var {}", v.key()))
            .collect();
        let lines = [
            "id name Oddboard".to_string(),
            "id author the Oddboard developers".to_string(),
            format!(
                "option name UCI_Variant type combo default {} {}",
                self.variant.key(),
                variants.join(" ")
            ),
            format!(
                "option name Level type spin default {} min {} max {}",
                Level::MAX.number(),
                Level::MIN.number(),
                Level::MAX.number()
            ),
            format!(
                "option name Hash type spin default {} min 1 max {MAX_HASH_MB}",
                default_hash_mb()
            ),
            format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
            "uciok".to_string(),
        ];
        lines.iter().try_for_each(|line| say(&self.out, line))
    }

    /// `setoption name <option> [value <value>]`; a bad one changes nothing.
    fn set_option(&mut self, words: &[&str]) -> io::Result<()> {
        let value_at = words.iter().position(|w| *w == "value");
        let (name, value) = match (words.get(1), value_at) {
            (Some(&"name"), Some(at)) => (words.get(2..at), words.get(at + 1..)),
            (Some(&"name"), None) => (words.get(2..), None),
            _ => (None, None),
        };
        let Some(name) = name.filter(|n| !n.is_empty()).map(|n| n.join(" ")) else {
            return say(
                &self.out,
                "info string setoption needs: setoption name <option> value <value>",
            );
        };
        let value = value.map(|v| v.join(" ")).unwrap_or_default();
        let outcome = match name.to_ascii_lowercase().as_str() {
            "uci_variant" => self.set_variant(&value)?,
            "level" => number_in(&value, 0, u64::from(Level::MAX.number())).map(|n| {
                self.level = Level::new(u8::try_from(n).unwrap_or(Level::MAX.number()));
                None
            }),
            "hash" => match number_in(&value, 1, MAX_HASH_MB) {
                Ok(megabytes) => {
                    self.stop()?;
                    self.hash_bits = table_bits(megabytes);
                    *self.lock_engine() = Engine::with_table_bits(self.variant, self.hash_bits);
                    Ok(None)
                }
                Err(e) => Err(e),
            },
            "threads" => number_in(&value, 1, MAX_THREADS).map(|threads| {
                (threads > 1).then(|| "Threads is ignored: the search runs on one thread".into())
            }),
            _ => Err(format!("unknown option {name}")),
        };
        match outcome {
            Ok(None) => Ok(()),
            Ok(Some(note)) => say(&self.out, &format!("info string {note}")),
            Err(problem) => say(&self.out, &format!("info string {name}: {problem}")),
        }
    }

    /// `UCI_Variant`: a new game of that variant.
    fn set_variant(&mut self, value: &str) -> io::Result<Result<Option<String>, String>> {
        match value.parse::<Variant>() {
            Ok(variant) if variant.is_playable() => {
                self.stop()?;
                self.variant = variant;
                *self.lock_engine() = Engine::with_table_bits(variant, self.hash_bits);
                self.game = start(variant)?;
                Ok(Ok(None))
            }
            _ => Ok(Err(format!("unknown variant {value}"))),
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
            Some("startpos") if setup.len() == 1 => {
                AnyGame::start(self.variant).map_err(|e| e.to_string())
            }
            Some("fen") => AnyGame::from_position(self.variant, &setup[1..].join(" "))
                .map_err(|e| format!("fen: {e}")),
            _ => Err("position needs startpos or fen <position>, then moves".to_string()),
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

    /// Starts a search on its own thread; it says `info` per finished iteration, then
    /// `bestmove` (after `go infinite`, only when stopped).
    fn go(&mut self, words: &[&str]) -> io::Result<()> {
        self.stop()?;
        let (go, problems) = Go::parse(words);
        for problem in &problems {
            say(&self.out, &format!("info string {problem}"))?;
        }
        let turn = self.game.turn();
        let limits = go.limits(self.level, turn);
        let cancel = Cancel::new();
        let job = Job {
            game: self.game.clone(),
            level: self.level,
            seed: self.games,
            limits,
            cancel: cancel.clone(),
        };
        let (engine, out) = (self.engine.clone(), self.out.clone());
        let infinite = go.infinite;
        let handle = std::thread::spawn(move || {
            let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
            let line = match job.run(&mut engine, &out) {
                Some(action) => format!("bestmove {action}"),
                None => "bestmove 0000".to_string(),
            };
            if infinite {
                return Some(line);
            }
            // Nobody is left to tell if the output is gone.
            let _ = say(&out, &line);
            None
        });
        let bounded = !infinite
            && (limits.depth.is_some_and(|d| d < MAX_DEPTH)
                || limits.nodes.is_some()
                || limits.time.is_some());
        self.search = Some(Running {
            cancel,
            handle,
            bounded,
        });
        Ok(())
    }

    /// Stops a running search and waits for its `bestmove`.
    fn stop(&mut self) -> io::Result<()> {
        match self.search.take() {
            Some(running) => {
                running.cancel.cancel();
                self.conclude(running)
            }
            None => Ok(()),
        }
    }

    /// Lets a search with a limit run to it (one without is stopped) and waits for it.
    fn finish(&mut self) -> io::Result<()> {
        match self.search.take() {
            Some(running) => {
                if !running.bounded {
                    running.cancel.cancel();
                }
                self.conclude(running)
            }
            None => Ok(()),
        }
    }

    /// Waits for a search's thread and says the `bestmove` it kept back, if it did.
    fn conclude(&self, running: Running) -> io::Result<()> {
        match running.handle.join() {
            Ok(Some(line)) => say(&self.out, &line),
            // A panicked search has nothing more to say.
            Ok(None) | Err(_) => Ok(()),
        }
    }
}

/// One `go`'s search, as its thread runs it.
struct Job {
    game: AnyGame,
    level: Level,
    seed: u64,
    limits: Limits,
    cancel: Cancel,
}

impl Job {
    /// The action to play (None when the game is over), with an `info` line per finished
    /// iteration, and a last one when no iteration finished or an unfinished one found
    /// a better action.
    fn run<W: Write>(&self, engine: &mut Engine, out: &Mutex<W>) -> Option<String> {
        let started = Instant::now();
        if self.level.is_random() {
            return choose_within(
                self.level,
                &self.game,
                self.seed,
                &self.limits,
                &self.cancel,
            );
        }
        let mut said: Option<Option<String>> = None;
        let mut report = |found: &SearchResult| {
            let _ = say(out, &info(found, found.depth, started.elapsed()));
            said = Some(found.best.clone());
        };
        let style = self.level.style(self.game.variant(), self.seed);
        let found =
            engine.search_reporting(&self.game, &self.limits, &self.cancel, style, &mut report);
        let line = match said {
            None => Some(progress(&found, started.elapsed())),
            Some(best) if best != found.best => {
                Some(info(&found, found.depth + 1, started.elapsed()))
            }
            Some(_) => None,
        };
        if let (Some(line), Some(_)) = (line, &found.best) {
            let _ = say(out, &line);
        }
        found.best
    }
}

/// `info depth … score … nodes … time … nps … pv …` for a search's result at `depth`.
fn info(found: &SearchResult, depth: u32, elapsed: Duration) -> String {
    format!(
        "info depth {depth} score {} {} pv {}",
        found.score,
        speed(found.nodes, elapsed),
        found.pv.join(" ")
    )
    .trim_end()
    .to_string()
}

/// `info nodes … time … nps … pv <best>` for a search that finished no iteration.
fn progress(found: &SearchResult, elapsed: Duration) -> String {
    let best = found.best.as_deref().unwrap_or_default();
    format!("info {} pv {best}", speed(found.nodes, elapsed))
        .trim_end()
        .to_string()
}

fn speed(nodes: u64, elapsed: Duration) -> String {
    let millis = elapsed.as_millis().max(1);
    let nps = u128::from(nodes) * 1000 / millis;
    format!("nodes {nodes} time {millis} nps {nps}")
}

/// `text` as a whole number from `min` to `max`.
fn number_in(text: &str, min: u64, max: u64) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("the value must be a whole number from {min} to {max}"))
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

    /// Input that waits before each chunk of lines, as a GUI that thinks between commands.
    struct Paced(Vec<(Duration, String)>);

    impl io::Read for Paced {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            let Some((pause, text)) = self.0.first_mut() else {
                return Ok(0);
            };
            std::thread::sleep(std::mem::take(pause));
            let n = text.len().min(buffer.len());
            buffer[..n].copy_from_slice(&text.as_bytes()[..n]);
            text.drain(..n);
            if text.is_empty() {
                self.0.remove(0);
            }
            Ok(n)
        }
    }

    fn paced_session(chunks: &[(u64, &str)]) -> Vec<String> {
        let out = Shared::default();
        let chunks = chunks
            .iter()
            .map(|(ms, text)| (Duration::from_millis(*ms), text.to_string()))
            .collect();
        let input = io::BufReader::new(Paced(chunks));
        run(input, out.clone()).unwrap_or_else(|e| panic!("{e}"));
        let bytes = out.0.lock().unwrap_or_else(PoisonError::into_inner).clone();
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn bestmoves(lines: &[String]) -> Vec<&str> {
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("bestmove "))
            .collect()
    }

    #[test]
    fn a_session_names_the_variants_and_options_and_finds_a_win_with_info_lines() {
        let lines = session(
            "uci\nisready\nsetoption name UCI_Variant value suicide\nucinewgame\n\
             position fen 8/8/3n4/8/8/8/4P3/8 w - - 0 1\ngo depth 3\nisready\n",
        );
        assert_eq!(lines[0], "id name Oddboard");
        assert!(lines[2].contains("type combo default suicide var suicide var chazz"));
        assert_eq!(
            lines[3],
            "option name Level type spin default 8 min 0 max 8"
        );
        assert!(lines[4].starts_with("option name Hash type spin default "));
        assert!(lines[5].starts_with("option name Threads type spin default 1 min 1 "));
        assert_eq!(lines[6], "uciok");
        assert_eq!(lines[7], "readyok");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info depth 1 score mate ") && l.contains(" nps ")),
            "{lines:?}"
        );
        assert!(lines.iter().any(|l| l.contains(" pv e2e4")), "{lines:?}");
        assert_eq!(bestmoves(&lines), ["e2e4"], "{lines:?}");
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
            assert!(lines
                .iter()
                .any(|l| l == "info string UCI_Variant: unknown variant fly"));
            let best = bestmoves(&lines);
            let mut after = game.clone();
            after.play(&first).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                after.legal_actions().iter().any(|a| a == best[0]),
                "{variant:?} {best:?}"
            );
        }
    }

    #[test]
    fn garbage_is_answered_with_info_strings_and_changes_nothing() {
        let lines = session(
            "setoption value 3 name Hash\nsetoption\nsetoption name\nsetoption name Level value 9\n\
             setoption name Level value x\nsetoption name Fly value 1\nposition\n\
             position fen 9/9 w\nposition startpos e2e4\nxyzzy\ngo depth\n\
             go depth 1 searchmoves e2e4 e2e3 mate 3\nposition startpos moves e2e5\n\
             debug on\ngo depth 1\n",
        );
        let strings = lines
            .iter()
            .filter(|l| l.starts_with("info string "))
            .count();
        assert_eq!(strings, 14, "{lines:?}");
        assert!(lines.contains(&"info string unknown command xyzzy".to_string()));
        assert!(lines.contains(&"info string go: depth needs a whole number, ignored".into()));
        assert!(lines.contains(&"info string go: mate is not supported, ignored".into()));
        // Nothing bad reached the position: both searches start from the start.
        let start = AnyGame::start(Variant::Suicide).unwrap_or_else(|e| panic!("{e}"));
        for best in bestmoves(&lines) {
            assert!(start.legal_actions().iter().any(|a| a == best), "{best}");
        }
    }

    #[test]
    fn the_options_are_honoured_level_0_plays_at_random_and_threads_are_ignored() {
        let lines = session(
            "setoption name Hash value 1\nsetoption name threads value 1\n\
             setoption name Threads value 4\nsetoption name Level value 0\n\
             position startpos moves e2e3\ngo movetime 50\n",
        );
        assert_eq!(
            lines[0],
            "info string Threads is ignored: the search runs on one thread"
        );
        // Level 0 does not search: no `info depth` line, straight to a legal action.
        assert!(!lines.iter().any(|l| l.starts_with("info depth")));
        let mut game = AnyGame::start(Variant::Suicide).unwrap_or_else(|e| panic!("{e}"));
        game.play("e2e3").unwrap_or_else(|e| panic!("{e}"));
        let best = bestmoves(&lines);
        assert!(
            game.legal_actions().iter().any(|a| a == best[0]),
            "{lines:?}"
        );
        assert_eq!(table_bits(1), 15);
        assert_eq!(table_bits(default_hash_mb()), TABLE_BITS);
    }

    #[test]
    fn go_infinite_says_bestmove_only_when_stopped() {
        // A forced win at depth 1 ends the search at once, and still waits for `stop`.
        let lines = paced_session(&[
            (
                0,
                "position fen 8/8/3n4/8/8/8/4P3/8 w - - 0 1\ngo infinite\n",
            ),
            (300, "isready\n"),
            (0, "stop\ngo infinite\n"),
        ]);
        let mate = lines
            .iter()
            .position(|l| l.starts_with("info depth 1 score mate"));
        let ready = lines.iter().position(|l| l == "readyok");
        let best = lines.iter().position(|l| l == "bestmove e2e4");
        assert!(mate < ready && ready < best && mate.is_some(), "{lines:?}");
        // The second one is stopped by the end of the input.
        assert_eq!(bestmoves(&lines).len(), 2, "{lines:?}");
    }

    #[test]
    fn a_finished_game_answers_bestmove_0000_and_a_king_promotion_is_read() {
        let lines = session(
            "position fen 8/8/3n4/8/8/8/8/8 w - - 0 1\ngo depth 2\n\
             position fen 8/2P3r1/2k5/8/8/8/8/8 w - - 0 1 moves c7c8k\ngo depth 2\n",
        );
        assert!(
            !lines.iter().any(|l| l.starts_with("info string")),
            "{lines:?}"
        );
        let best = bestmoves(&lines);
        assert_eq!(best[0], "0000");
        let mut game = AnyGame::from_position(Variant::Suicide, "8/2P3r1/2k5/8/8/8/8/8 w - - 0 1")
            .unwrap_or_else(|e| panic!("{e}"));
        game.play("c7c8k").unwrap_or_else(|e| panic!("{e}"));
        assert!(
            game.legal_actions().iter().any(|a| a == best[1]),
            "{lines:?}"
        );
    }

    #[test]
    fn quit_stops_a_search_without_limits_which_still_answers() {
        let lines = session("setoption name UCI_Variant value chad\ngo infinite\nquit\n");
        assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
    }

    #[test]
    fn clock_time_is_shared_out_and_movetime_wins() {
        let parse = |words: &[&str]| Go::parse(words).0;
        let go = parse(&["wtime", "60000", "btime", "1000", "winc", "1000"]);
        assert_eq!(go.budget(Color::White), Some(Duration::from_millis(3150)));
        assert_eq!(go.budget(Color::Black), Some(Duration::from_millis(40)));
        let go = parse(&["wtime", "60000", "movestogo", "10"]);
        assert_eq!(go.budget(Color::White), Some(Duration::from_millis(6000)));
        let go = parse(&["wtime", "60000", "movestogo", "1"]);
        assert_eq!(go.budget(Color::White), Some(Duration::from_millis(45000)));
        let go = parse(&["movetime", "100", "wtime", "60000"]);
        assert_eq!(go.budget(Color::White), Some(Duration::from_millis(100)));
        let (go, problems) = Go::parse(&["depth", "x", "nodes", "-5", "ponder"]);
        assert_eq!(go.budget(Color::White), None);
        assert_eq!((go.depth, go.nodes, problems.len()), (None, None, 3));
    }

    #[test]
    fn a_level_caps_what_go_asks_for_and_the_top_level_searches_for_go_s_time() {
        let (go, _) = Go::parse(&["movetime", "100"]);
        let limits = go.limits(Level::new(3), Color::White);
        assert_eq!((limits.depth, limits.nodes), (Some(3), Some(10_000)));
        assert_eq!(limits.time, Some(Duration::from_millis(100)));
        let top = go.limits(Level::MAX, Color::White);
        assert_eq!((top.depth, top.nodes), (Some(MAX_DEPTH), None));
        assert_eq!(top.time, Some(Duration::from_millis(100)));
        let (go, _) = Go::parse(&["depth", "2", "nodes", "500"]);
        let limits = go.limits(Level::new(3), Color::White);
        assert_eq!(
            (limits.depth, limits.nodes, limits.time),
            (Some(2), Some(500), None)
        );
    }
}
