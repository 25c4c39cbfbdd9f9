//! How Duel Chess men move and attack, on either board.
//!
//! The Duel board is played "in the same manner as on the Main board", so one set of movement
//! functions serves both: each takes the board's [`Shape`] and a way to read its squares.
//! The hole c4 of the Main board is a square that does not exist ([`Shape::contains`] is false),
//! which gives every hole rule at once: sliders stop before it, steps and leaps cannot land on
//! it, and the Dabbabah checks the square it jumps over (the knight does not, so it alone may
//! leap past the hole).

use crate::geometry::{Coord, Shape, DIAGONAL, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL};
use crate::types::{Color, Piece, Role};

/// What a move does to the square it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Landing {
    /// The square is empty.
    Quiet,
    /// An enemy man stands there.
    Capture,
    /// A pawn takes en passant: the victim stands beside the start square.
    EnPassant,
}

/// Pawn privileges that depend on the board and the pawn's history.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PawnRights {
    /// The pawn may advance two squares (a Main-board pawn on its second rank that never went
    /// to the Duel board and back).
    pub double_step: bool,
    /// The square a pawn may take en passant on (Main board only).
    pub en_passant: Option<Coord>,
}

/// The direction pawns of `color` advance in, as a rank step.
pub(super) fn pawn_forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// The Dabbabah's four leaps.
pub(super) const DABBABAH_LEAPS: [(i8, i8); 4] = [(2, 0), (-2, 0), (0, 2), (0, -2)];

/// The square a Dabbabah lands on leaping `(df, dr)` (one of [`DABBABAH_LEAPS`]) from `from`,
/// if the square it jumps over and the landing square both exist.
pub(super) fn dabbabah_landing(shape: &Shape, from: Coord, df: i8, dr: i8) -> Option<Coord> {
    let over = shape.step(from, df / 2, dr / 2)?;
    shape.step(over, df / 2, dr / 2)
}

/// Every square `piece` on `from` can move to, with what it lands on. Enemy kings are never
/// listed as captures (a legal position never leaves one en prise); own men block.
pub(super) fn targets(
    shape: &Shape,
    piece_at: &dyn Fn(Coord) -> Option<Piece>,
    from: Coord,
    piece: Piece,
    rights: PawnRights,
    out: &mut Vec<(Coord, Landing)>,
) {
    let land = |to: Coord, out: &mut Vec<(Coord, Landing)>| -> bool {
        match piece_at(to) {
            None => {
                out.push((to, Landing::Quiet));
                true
            }
            Some(other) => {
                if other.color != piece.color && other.role != Role::King {
                    out.push((to, Landing::Capture));
                }
                false
            }
        }
    };
    match piece.role {
        Role::Pawn => pawn_targets(shape, piece_at, from, piece.color, rights, out),
        Role::Knight => {
            for (df, dr) in KNIGHT_LEAPS {
                if let Some(to) = shape.step(from, df, dr) {
                    land(to, out);
                }
            }
        }
        Role::King => {
            for (df, dr) in KING_STEPS {
                if let Some(to) = shape.step(from, df, dr) {
                    land(to, out);
                }
            }
        }
        Role::Dabbabah => {
            for (df, dr) in DABBABAH_LEAPS {
                if let Some(to) = dabbabah_landing(shape, from, df, dr) {
                    land(to, out);
                }
            }
        }
        Role::Bishop | Role::Rook | Role::Queen => {
            for (df, dr) in slider_directions(piece.role) {
                for to in shape.ray(from, *df, *dr) {
                    if !land(to, out) {
                        break;
                    }
                }
            }
        }
    }
}

/// Every square a pawn of `color` on `from` can move to: one step (two with the right), the
/// diagonal captures and the en-passant capture.
fn pawn_targets(
    shape: &Shape,
    piece_at: &dyn Fn(Coord) -> Option<Piece>,
    from: Coord,
    color: Color,
    rights: PawnRights,
    out: &mut Vec<(Coord, Landing)>,
) {
    let forward = pawn_forward(color);
    if let Some(one) = shape.step(from, 0, forward) {
        if piece_at(one).is_none() {
            out.push((one, Landing::Quiet));
            if rights.double_step {
                if let Some(two) = shape.step(one, 0, forward) {
                    if piece_at(two).is_none() {
                        out.push((two, Landing::Quiet));
                    }
                }
            }
        }
    }
    for side in [-1, 1] {
        let Some(to) = shape.step(from, side, forward) else {
            continue;
        };
        match piece_at(to) {
            Some(other) if other.color != color && other.role != Role::King => {
                out.push((to, Landing::Capture));
            }
            None if rights.en_passant == Some(to) => out.push((to, Landing::EnPassant)),
            _ => {}
        }
    }
}

/// The directions a slider moves in.
fn slider_directions(role: Role) -> &'static [(i8, i8)] {
    match role {
        Role::Bishop => &DIAGONAL,
        Role::Rook => &ORTHOGONAL,
        _ => &KING_STEPS,
    }
}
