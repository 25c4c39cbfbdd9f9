//! One position's evaluation and what a game's evaluations add up to: the public positions
//! of a finished game, the engine's verdict on one of them turned to White's point of view
//! with its line in human notation, and the moves where the score dropped most.
//!
//! The engine only ever sees a position rebuilt from its text ([`AnyGame::from_position`]):
//! a Davey Drehs game is replayed with its revealed seed to reach its positions, but the seed
//! stays here, and the engine weighs each attack's outcomes by their odds as it does in play.

use crate::play::replay::{Replay, Seed};
use crate::rules::{AnyGame, Color, Outcome};
use crate::store::GameRecord;
use serde::Serialize;
use utoipa::ToSchema;

pub use crate::evaluation::{evaluate, Evaluation, WhiteScore, CLAMP};

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
