//! Scores: centipawns of the variant, or a forced win or loss in so many moves. Inside the
//! search a score is one `i32`, where a win found `n` plies from the root is `MATE - n`.

use std::fmt;

/// A win this many plies away scores `MATE - plies`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are forced wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Above any score.
pub const INFINITY: i32 = MATE + 1;

/// A search's verdict on a position, for the side to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns; positive is good for the side to act.
    Cp(i32),
    /// A forced win in this many moves (negative: a forced loss), as UCI counts them.
    Mate(i32),
}

impl Score {
    /// Reads a search's internal score (`plies` are counted from the position scored).
    pub fn from_internal(value: i32) -> Score {
        if value > MATE_BOUND {
            Score::Mate((MATE - value + 1) / 2)
        } else if value < -MATE_BOUND {
            Score::Mate(-(MATE + value + 1) / 2)
        } else {
            Score::Cp(value)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

/// A score as the table stores it: mates counted from the stored position, not the root.
pub fn to_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score + ply
    } else if score < -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`to_table`] at `ply`.
pub fn from_table(score: i32, ply: i32) -> i32 {
    if score > MATE_BOUND {
        score - ply
    } else if score < -MATE_BOUND {
        score + ply
    } else {
        score
    }
}
