//! Matches between our engine at full strength and any other UCI engine (`oddboard engine
//! match`): the other engine runs as a child process; every game starts from a varied opening
//! (two random plies, each opening played once with each colour), is refereed by our rules (an
//! action they refuse loses the game), and scored into wins, draws and losses with an Elo
//! difference and its 95% error.

use crate::rng::XorShift;
use crate::{Cancel, Engine, Limits};
use oddboard_rules::{AnyGame, Color, Variant};
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// Plies after which an unfinished game is scored a draw.
const MAX_PLIES: u32 = 600;
/// Random plies that open each pair of games.
const OPENING_PLIES: usize = 2;

/// What a match is played with.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// The other engine's command line (program and arguments, split on whitespace).
    pub command: String,
    pub variant: Variant,
    pub games: u32,
    pub movetime: Duration,
    pub seed: u64,
}

/// A match's result from our engine's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MatchScore {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl MatchScore {
    fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Our score as a fraction of the points played for.
    pub fn fraction(&self) -> f64 {
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(self.games().max(1))
    }

    /// The Elo difference the score implies and its 95% error (None when every game went
    /// one way, where the logistic has no finite answer).
    pub fn elo(&self) -> Option<(f64, f64)> {
        let n = f64::from(self.games());
        let score = self.fraction();
        if n == 0.0 || score <= 0.0 || score >= 1.0 {
            return None;
        }
        let per_game = [(1.0, self.wins), (0.5, self.draws), (0.0, self.losses)];
        let variance = per_game
            .iter()
            .map(|(points, count)| f64::from(*count) * (points - score).powi(2))
            .sum::<f64>()
            / n;
        let margin = 1.96 * (variance / n).sqrt();
        let elo = |s: f64| -400.0 * (1.0 / s.clamp(1e-6, 1.0 - 1e-6) - 1.0).log10();
        Some((
            elo(score) + 0.0,
            (elo(score + margin) - elo(score - margin)) / 2.0,
        ))
    }
}

/// A UCI engine in a child process.
struct UciProcess {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl UciProcess {
    fn start(command: &str, variant: Variant) -> io::Result<UciProcess> {
        let mut words = command.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| io::Error::other("the engine command is empty"))?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other("the engine's pipes did not open"));
        };
        let mut process = UciProcess {
            child,
            input,
            output: BufReader::new(output),
        };
        process.send("uci")?;
        process.wait_for("uciok")?;
        process.send(&format!(
            "setoption name UCI_Variant value {}",
            variant.key()
        ))?;
        process.send("isready")?;
        process.wait_for("readyok")?;
        Ok(process)
    }

    fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.input, "{line}")?;
        self.input.flush()
    }

    /// Reads lines until one starting with `prefix`; returns it.
    fn wait_for(&mut self, prefix: &str) -> io::Result<String> {
        let mut line = String::new();
        loop {
            line.clear();
            if self.output.read_line(&mut line)? == 0 {
                return Err(io::Error::other(format!("the engine quit before {prefix}")));
            }
            if line.trim_start().starts_with(prefix) {
                return Ok(line.trim().to_string());
            }
        }
    }

    fn new_game(&mut self) -> io::Result<()> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for("readyok").map(|_| ())
    }

    /// The engine's action after `moves` from the start.
    fn best(&mut self, moves: &[String], movetime: Duration) -> io::Result<String> {
        let position = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        self.send(&position)?;
        self.send(&format!("go movetime {}", movetime.as_millis()))?;
        let line = self.wait_for("bestmove")?;
        Ok(line.split_whitespace().nth(1).unwrap_or("0000").to_string())
    }
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        // Best effort: an engine that ignores `quit` is killed.
        let _ = self.send("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Plays the match, writing a line per game to `out`, and returns the score.
///
/// # Errors
/// The other engine could not be started or stopped answering, or `out` failed.
pub fn play_match(settings: &MatchSettings, out: &mut dyn Write) -> io::Result<MatchScore> {
    let mut other = UciProcess::start(&settings.command, settings.variant)?;
    let mut ours = Engine::new(settings.variant);
    let mut score = MatchScore::default();
    let mut rng = XorShift::new(settings.seed);
    let mut opening = Vec::new();
    for index in 0..settings.games {
        if index % 2 == 0 {
            opening = random_opening(settings.variant, &mut rng)?;
        }
        let our_color = if index % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        other.new_game()?;
        ours.clear();
        let (winner, plies, reason) =
            play_one(settings, &mut other, &mut ours, &opening, our_color)?;
        let result = match winner {
            Some(color) if color == our_color => {
                score.wins += 1;
                "win"
            }
            Some(_) => {
                score.losses += 1;
                "loss"
            }
            None => {
                score.draws += 1;
                "draw"
            }
        };
        writeln!(
            out,
            "game {} as {}: {result} in {plies} plies ({reason})",
            index + 1,
            our_color.as_str()
        )?;
    }
    Ok(score)
}

fn start(variant: Variant) -> io::Result<AnyGame> {
    AnyGame::start(variant).map_err(|e| io::Error::other(e.to_string()))
}

/// Random legal plies from the start that leave the game going.
fn random_opening(variant: Variant, rng: &mut XorShift) -> io::Result<Vec<String>> {
    let mut game = start(variant)?;
    let mut moves = Vec::new();
    for _ in 0..OPENING_PLIES {
        let actions = game.legal_actions();
        let Some(action) = actions.get(rng.below(actions.len())) else {
            break;
        };
        if game.play(action).is_err() || game.outcome().is_some() {
            break;
        }
        moves.push(action.clone());
    }
    Ok(moves)
}

/// One game from `opening`; the winner (None: a draw), its length in plies and why it ended.
fn play_one(
    settings: &MatchSettings,
    other: &mut UciProcess,
    ours: &mut Engine,
    opening: &[String],
    our_color: Color,
) -> io::Result<(Option<Color>, u32, String)> {
    let mut game = start(settings.variant)?;
    let mut moves = Vec::new();
    for action in opening {
        if game.play(action).is_ok() {
            moves.push(action.clone());
        }
    }
    let limits = Limits::time(settings.movetime);
    while game.outcome().is_none() && (moves.len() as u32) < MAX_PLIES {
        let mover = game.turn();
        let action = if mover == our_color {
            ours.search(&game, &limits, &Cancel::new()).best
        } else {
            Some(other.best(&moves, settings.movetime)?)
        };
        // An action our rules refuse (or none when one is due) loses the game.
        let refused = action.clone().unwrap_or_else(|| "none".to_string());
        let Some(action) = action.filter(|a| game.play(a).is_ok()) else {
            let who = if mover == our_color { "ours" } else { "theirs" };
            let reason = format!("{who} played {refused}, which the rules refuse");
            return Ok((Some(mover.other()), moves.len() as u32, reason));
        };
        moves.push(action);
    }
    let plies = moves.len() as u32;
    Ok(match game.outcome() {
        Some(outcome) => (outcome.winner, plies, outcome.reason.as_str().to_string()),
        None => (None, plies, "the ply limit".to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elo_difference_follows_the_score_and_narrows_with_games() {
        let even = MatchScore {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        let (elo, error) = even.elo().unwrap_or_else(|| panic!("finite"));
        assert!(elo.abs() < 1e-9 && error > 0.0);
        let ahead = MatchScore {
            wins: 30,
            draws: 10,
            losses: 10,
        };
        let (elo, wide) = ahead.elo().unwrap_or_else(|| panic!("finite"));
        // 70% is about +147 Elo.
        assert!((elo - 147.2).abs() < 1.0, "{elo}");
        let more = MatchScore {
            wins: 300,
            draws: 100,
            losses: 100,
        };
        let (_, narrow) = more.elo().unwrap_or_else(|| panic!("finite"));
        assert!(narrow < wide / 3.0, "{narrow} {wide}");
        let sweep = MatchScore {
            wins: 4,
            draws: 0,
            losses: 0,
        };
        assert_eq!(sweep.elo(), None);
        assert_eq!(sweep.fraction(), 1.0);
    }

    #[test]
    fn an_engine_that_cannot_start_is_an_error() {
        let settings = MatchSettings {
            command: "/nonexistent/engine".into(),
            variant: Variant::Suicide,
            games: 2,
            movetime: Duration::from_millis(10),
            seed: 1,
        };
        assert!(play_match(&settings, &mut Vec::new()).is_err());
        let empty = MatchSettings {
            command: " ".into(),
            ..settings
        };
        assert!(play_match(&empty, &mut Vec::new()).is_err());
    }
}
