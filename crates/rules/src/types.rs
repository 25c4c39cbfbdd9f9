//! Colours, piece roles and pieces shared by every variant.
//!
//! A variant may use only some roles (Chad has kings, rooks and queens; Duel Chess adds the
//! Dabbabah). Letters follow FEN: upper case for White, lower case for Black.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The side a piece or a turn belongs to. White moves first in every variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    White,
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The opponent.
    #[must_use]
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `w` or `b`, as in the side-to-move field of FEN.
    pub fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Parses the side-to-move field of a FEN-like position.
    pub fn from_fen_field(field: &str) -> Option<Color> {
        match field {
            "w" => Some(Color::White),
            "b" => Some(Color::Black),
            _ => None,
        }
    }

    /// 0 for White, 1 for Black: an index into per-colour arrays.
    pub fn index(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    /// The lower-case name (`white`, `black`).
    pub fn as_str(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a piece is, independent of its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
    /// Duel Chess: leaps exactly two squares orthogonally.
    Dabbabah,
}

impl Role {
    /// Every role, in a fixed order.
    pub const ALL: [Role; 7] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
        Role::Dabbabah,
    ];

    /// The lower-case FEN letter (`p n b r q k d`).
    pub fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
            Role::Dabbabah => 'd',
        }
    }

    /// The upper-case letter used in SAN-like human notation (`N`, `B`, `R`, `Q`, `K`, `D`;
    /// `P` for pawns, which SAN normally omits).
    pub fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// Parses a FEN letter of either case.
    pub fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            'd' => Some(Role::Dabbabah),
            _ => None,
        }
    }

    /// The lower-case name (`pawn`, `knight`, …), as used in snapshots.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
            Role::Dabbabah => "dabbabah",
        }
    }
}

/// A coloured piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// The FEN letter: upper case for White, lower case for Black.
    pub fn fen_char(self) -> char {
        match self.color {
            Color::White => self.role.char().to_ascii_uppercase(),
            Color::Black => self.role.char(),
        }
    }

    /// Parses a FEN letter; the case gives the colour.
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_letters_round_trip_for_every_piece() {
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                assert_eq!(Piece::from_fen_char(piece.fen_char()), Some(piece));
            }
        }
        assert_eq!(Piece::from_fen_char('x'), None);
    }

    #[test]
    fn colours_alternate() {
        assert_eq!(Color::White.other(), Color::Black);
        assert_eq!(Color::Black.other().other(), Color::Black);
        assert_eq!(Color::from_fen_field("b"), Some(Color::Black));
        assert_eq!(Color::from_fen_field("x"), None);
    }
}
