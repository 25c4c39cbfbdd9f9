//! How a game ended: the winner (or a draw) and a reason with a stable string id.
//!
//! The ids are stored in the database and sent on the wire, so they never change meaning.
//! Reasons that the rules decide (checkmate, piece counts, repetition…) sit beside the ones
//! the server decides (resignation, timeout, agreement…) so that one enum describes every end.

use super::types::Color;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Why a game ended. Serialized as its snake_case id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move (a draw where the rules say so).
    Stalemate,
    /// Suicide: the winner has no pieces left.
    NoPieces,
    /// Suicide: the side to move cannot move and the winner has fewer pieces.
    FewerPieces,
    /// Suicide: the side to move cannot move and both sides have as many pieces: a draw.
    EqualPieces,
    /// The same position occurred for the third time.
    Repetition,
    /// Fifty full moves without progress (each variant says what counts as progress).
    FiftyMoves,
    /// Neither side can ever mate.
    InsufficientMaterial,
    /// Do-Or-Die Chazz: neither side has a legal move.
    NoMoves,
    /// Duel Chess: the loser has only its king left on the Main board.
    LoneKing,
    /// Davey Drehs: the loser's king was killed.
    KingKilled,
    /// Duel Chess (larger boards): the winner filled the Duel board with enemy pieces.
    DuelBoardFull,
    /// The loser resigned.
    Resignation,
    /// The loser ran out of time.
    Timeout,
    /// A player ran out of time but the opponent could not possibly win: a draw.
    TimeoutVsInsufficient,
    /// Both players agreed to a draw.
    Agreement,
    /// The loser left the game and the opponent claimed the win.
    Abandoned,
    /// The game was called off before it really began; it counts for nobody.
    Aborted,
}

impl EndReason {
    /// Every reason, for tests and documentation.
    pub const ALL: [EndReason; 18] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::NoPieces,
        EndReason::FewerPieces,
        EndReason::EqualPieces,
        EndReason::Repetition,
        EndReason::FiftyMoves,
        EndReason::InsufficientMaterial,
        EndReason::NoMoves,
        EndReason::LoneKing,
        EndReason::KingKilled,
        EndReason::DuelBoardFull,
        EndReason::Resignation,
        EndReason::Timeout,
        EndReason::TimeoutVsInsufficient,
        EndReason::Agreement,
        EndReason::Abandoned,
        EndReason::Aborted,
    ];

    /// The stable snake_case id.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::NoPieces => "no_pieces",
            EndReason::FewerPieces => "fewer_pieces",
            EndReason::EqualPieces => "equal_pieces",
            EndReason::Repetition => "repetition",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::InsufficientMaterial => "insufficient_material",
            EndReason::NoMoves => "no_moves",
            EndReason::LoneKing => "lone_king",
            EndReason::KingKilled => "king_killed",
            EndReason::DuelBoardFull => "duel_board_full",
            EndReason::Resignation => "resignation",
            EndReason::Timeout => "timeout",
            EndReason::TimeoutVsInsufficient => "timeout_vs_insufficient",
            EndReason::Agreement => "agreement",
            EndReason::Abandoned => "abandoned",
            EndReason::Aborted => "aborted",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EndReason {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EndReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown end reason `{s}`"))
    }
}

/// The end of a game: who won (None for a draw, and for an aborted game) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    pub winner: Option<Color>,
    pub reason: EndReason,
}

impl Outcome {
    /// A win for `winner`.
    pub fn win(winner: Color, reason: EndReason) -> Outcome {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw (or, with [`EndReason::Aborted`], no result at all).
    pub fn draw(reason: EndReason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// The result in PGN form: `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
    pub fn result_str(&self) -> &'static str {
        match (self.winner, self.reason) {
            (_, EndReason::Aborted) => "*",
            (Some(Color::White), _) => "1-0",
            (Some(Color::Black), _) => "0-1",
            (None, _) => "1/2-1/2",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_ids_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for reason in EndReason::ALL {
            assert!(seen.insert(reason.as_str()));
            assert_eq!(reason.as_str().parse::<EndReason>(), Ok(reason));
            let json = serde_json::to_string(&reason).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", reason.as_str()));
        }
    }

    #[test]
    fn result_strings() {
        assert_eq!(
            Outcome::win(Color::White, EndReason::Checkmate).result_str(),
            "1-0"
        );
        assert_eq!(
            Outcome::win(Color::Black, EndReason::Timeout).result_str(),
            "0-1"
        );
        assert_eq!(Outcome::draw(EndReason::Repetition).result_str(), "1/2-1/2");
        assert_eq!(Outcome::draw(EndReason::Aborted).result_str(), "*");
    }
}
