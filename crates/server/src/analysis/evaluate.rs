//! One position's evaluation and what a game's evaluations add up to: the public positions
//! of a finished game, the engine's verdict on one of them turned to White's point of view
//! with its line in human notation, and the moves where the score dropped most.
//!
//! The engine only ever sees a position rebuilt from its text ([`AnyGame::from_position`]):
//! a Davey Drehs game is replayed with its revealed seed to reach its positions, but the seed
//! stays here, and the engine samples dice of its own as it does in play.

use crate::play::replay::{Replay, Seed};
use crate::rules::{AnyGame, Color, Outcome, Variant};
use crate::store::GameRecord;
use oddboard_engine::{Cancel, Engine, Limits, Score};
use serde::Serialize;
use utoipa::ToSchema;

/// Scores beyond this many centipawns count as this many, in the graph and in drops: a
/// mate is worth the clamp.
pub const CLAMP: i32 = 1000;
/// Actions of a best line kept at most.
const PV_MAX: usize = 10;
/// Iterations a search may go to at most, whatever its node budget allows.
const DEPTH_MAX: u32 = 32;

/// One public position of a game: its text, whose turn it is, and how the rules ended the
/// game there if they did.
#[derive(Clone, Debug)]
pub struct Position {
    pub text: String,
    pub turn: Color,
    /// Set on the last position of a game the rules ended (a killed king, a repetition…).
    pub outcome: Option<Outcome>,
    /// The action that led here, in machine and human notation; None at the start.
    pub played: Option<(String, String)>,
}

/// Why a game's positions could not be listed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionsError {
    #[error("the game is not over")]
    NotOver,
    #[error("the stored game does not replay: {0}")]
    Replay(String),
}

/// Every position of a game that is over: `positions[0]` the start, `positions[n]` the
/// one after ply n.
///
/// # Errors
/// The game is not over, or its stored actions do not replay.
pub fn positions(record: &GameRecord) -> Result<Vec<Position>, PositionsError> {
    if !record.status.is_over() {
        return Err(PositionsError::NotOver);
    }
    let mut positions = Vec::with_capacity(record.actions.len() + 1);
    Replay::new(record, Seed::Revealed)
        .play_through(|game, played| {
            positions.push(position_of(game, played.map(|p| (p.machine, p.human))));
        })
        .map_err(|e| PositionsError::Replay(e.to_string()))?;
    Ok(positions)
}

fn position_of(game: &AnyGame, played: Option<(String, String)>) -> Position {
    Position {
        text: game.position(),
        turn: game.turn(),
        outcome: game.outcome(),
        played,
    }
}

/// A score from White's point of view: positive is good for White.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WhiteScore {
    /// Centipawns of the variant.
    Cp(i32),
    /// A forced win in this many moves: positive for White, negative for Black.
    Mate(i32),
    /// The game is over in this position by the rules: `1-0`, `0-1` or `1/2-1/2`.
    Result(String),
}

impl WhiteScore {
    /// From a search's score, which is for the side to act.
    pub fn from_side(score: Score, turn: Color) -> WhiteScore {
        let sign = if turn == Color::White { 1 } else { -1 };
        match score {
            Score::Cp(cp) => WhiteScore::Cp(cp * sign),
            // Mate 0 is the side to act already lost.
            Score::Mate(0) => WhiteScore::Mate(-sign),
            Score::Mate(moves) => WhiteScore::Mate(moves * sign),
        }
    }

    /// The score as the graph draws it: centipawns within ±[`CLAMP`], a win at the clamp.
    pub fn clamped(&self) -> i32 {
        match self {
            WhiteScore::Cp(cp) => (*cp).clamp(-CLAMP, CLAMP),
            WhiteScore::Mate(moves) => CLAMP * moves.signum(),
            WhiteScore::Result(result) => match result.as_str() {
                "1-0" => CLAMP,
                "0-1" => -CLAMP,
                _ => 0,
            },
        }
    }
}

/// The engine's verdict on one position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Evaluation {
    pub score: WhiteScore,
    /// The best action in the variant's human notation; null when the game is over here.
    pub best: Option<String>,
    /// The best action in machine notation (`docs/rules/<variant>.md`).
    pub best_machine: Option<String>,
    /// The best line in human notation, `best` first (at most 10 actions).
    pub pv: Vec<String>,
    /// The deepest iteration the search finished.
    pub depth: u32,
    /// Positions the search visited.
    pub nodes: u64,
}

impl Evaluation {
    /// A position where the rules ended the game: no search, the result is the score.
    pub fn over(outcome: Outcome) -> Evaluation {
        Evaluation {
            score: WhiteScore::Result(outcome.result_str().to_string()),
            best: None,
            best_machine: None,
            pv: Vec::new(),
            depth: 0,
            nodes: 0,
        }
    }

    /// Roughly the bytes it holds, for the cache's budget.
    pub fn bytes(&self) -> usize {
        let strings = self.best.as_ref().map_or(0, String::len)
            + self.best_machine.as_ref().map_or(0, String::len)
            + self.pv.iter().map(|a| a.len() + 24).sum::<usize>();
        std::mem::size_of::<Evaluation>() + strings
    }
}

/// Searches the position `text` of `variant` within `nodes`, from a fresh table so that the
/// same position always gets the same answer (the cache relies on it). Runs on an engine
/// thread.
///
/// # Errors
/// The text is not a position of the variant.
pub fn evaluate(variant: Variant, text: &str, nodes: u64) -> Result<Evaluation, String> {
    let game = AnyGame::from_position(variant, text).map_err(|e| e.to_string())?;
    if let Some(outcome) = game.outcome() {
        return Ok(Evaluation::over(outcome));
    }
    let limits = Limits {
        depth: Some(DEPTH_MAX),
        nodes: Some(nodes),
        time: None,
    };
    let found = Engine::new(variant).search(&game, &limits, &Cancel::new());
    let mut line = game.clone();
    let mut pv = Vec::new();
    for action in found.pv.iter().take(PV_MAX) {
        match line.play(action) {
            Ok(played) => pv.push(played.human),
            Err(_) => break,
        }
    }
    let best = found
        .best
        .as_ref()
        .map(|a| game.human_notation(a).unwrap_or_else(|_| a.clone()));
    Ok(Evaluation {
        score: WhiteScore::from_side(found.score, game.turn()),
        best,
        best_machine: found.best,
        pv,
        depth: found.depth,
        nodes: found.nodes,
    })
}

/// A move after which the score fell for the side that played it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ScoreDrop {
    /// The action's ply: it was played from the position of ply `ply - 1`.
    pub ply: u32,
    /// The side that played it.
    pub side: Color,
    /// The action played, in human notation.
    pub played: String,
    /// What the engine preferred in its place, in human notation.
    pub best: Option<String>,
    /// The clamped score (centipawns, White's view) before and after the action.
    pub before: i32,
    pub after: i32,
    /// How much the mover lost, in centipawns (positive).
    pub loss: i32,
}

/// The `count` moves where the score fell most for the mover, largest first (the earlier
/// move first on a tie). A move the engine itself chose is never one, nor a move either of
/// whose positions is not yet evaluated.
pub fn drops(
    positions: &[Position],
    evaluations: &[Option<Evaluation>],
    count: usize,
) -> Vec<ScoreDrop> {
    let mut found: Vec<ScoreDrop> = (1..positions.len().min(evaluations.len()))
        .filter_map(|ply| {
            let before = evaluations[ply - 1].as_ref()?;
            let after = evaluations[ply].as_ref()?;
            let (machine, human) = positions[ply].played.as_ref()?;
            if before.best_machine.as_deref() == Some(machine.as_str()) {
                return None;
            }
            let side = positions[ply - 1].turn;
            let (from, to) = (before.score.clamped(), after.score.clamped());
            let loss = if side == Color::White {
                from - to
            } else {
                to - from
            };
            (loss > 0).then(|| ScoreDrop {
                ply: u32::try_from(ply).unwrap_or(u32::MAX),
                side,
                played: human.clone(),
                best: before.best.clone(),
                before: from,
                after: to,
                loss,
            })
        })
        .collect();
    found.sort_by(|a, b| b.loss.cmp(&a.loss).then(a.ply.cmp(&b.ply)));
    found.truncate(count);
    found
}
