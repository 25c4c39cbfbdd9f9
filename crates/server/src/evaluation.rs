//! One position's evaluation by the engine, from White's point of view, with its best line in
//! human notation: what an analysis shows for each position of a game (`analysis`), searched
//! in an engine worker (`engine_worker`), so below both.

use crate::rules::{AnyGame, Color, Outcome, Variant};
use oddboard_engine::{Cancel, Engine, Limits, Score};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Scores beyond this many centipawns count as this many, in the graph and in drops: a
/// mate is worth the clamp.
pub const CLAMP: i32 = 1000;
/// Actions of a best line kept at most.
const PV_MAX: usize = 10;
/// Iterations a search may go to at most, whatever its node budget allows.
const DEPTH_MAX: u32 = 32;

/// A score from White's point of view: positive is good for White.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
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
/// same position always gets the same answer (the analyses' cache relies on it). Runs in an
/// engine worker.
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
