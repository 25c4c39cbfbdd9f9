//! Move generation and attack detection for Do-Or-Die Chazz on the 8x5 mailbox board.
//!
//! Everything here works on a bare [`Board`] and a colour, so the same code answers "what can
//! the side to move do" and "could the opponent move if it were their turn" (the test for the
//! `no_moves` draw). Game history (repetition, move counters) lives in the parent module.

use super::ChazzAction;
use crate::rules::geometry::{
    Coord, Mailbox, Shape, DIAGONAL, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL,
};
use crate::rules::types::{Color, Piece, Role};

/// Files a–h.
pub const FILES: u8 = 8;
/// Ranks 1–5.
pub const RANKS: u8 = 5;

/// The pieces a pawn may promote to: never a queen.
pub const PROMOTION_ROLES: [Role; 3] = [Role::Rook, Role::Bishop, Role::Knight];

/// The 8x5 board with its pieces.
pub type Board = Mailbox<Piece>;

/// The shape of the Do-Or-Die Chazz board.
pub fn shape() -> Shape {
    Shape::rectangle(FILES, RANKS)
}

/// The rank step of a forward pawn move: White moves up the board, Black down.
pub fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// The rank (counted from 0) a colour's pawns self-destruct from: rank 1 for White, 5 for Black.
pub fn first_rank(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => RANKS - 1,
    }
}

/// The rank (counted from 0) on which a colour's pawns promote.
pub fn last_rank(color: Color) -> u8 {
    first_rank(color.other())
}

/// Where `color`'s king stands (a valid position has exactly one).
pub fn king_square(board: &Board, color: Color) -> Option<Coord> {
    board
        .occupied()
        .find(|(_, piece)| **piece == Piece::new(color, Role::King))
        .map(|(square, _)| square)
}

/// Whether a piece of `by` attacks `target`. Pawns attack only diagonally forward: a backward
/// pawn move never captures, so it never attacks either.
pub fn is_attacked(board: &Board, target: Coord, by: Color) -> bool {
    let shape = board.shape();
    let holds = |square: Option<Coord>, roles: &[Role]| {
        square
            .and_then(|s| board.get(s))
            .is_some_and(|p| p.color == by && roles.contains(&p.role))
    };
    let pawn_rank_step = -forward(by);
    if [-1, 1]
        .iter()
        .any(|&df| holds(shape.step(target, df, pawn_rank_step), &[Role::Pawn]))
    {
        return true;
    }
    if KNIGHT_LEAPS
        .iter()
        .any(|&(df, dr)| holds(shape.step(target, df, dr), &[Role::Knight]))
    {
        return true;
    }
    if KING_STEPS
        .iter()
        .any(|&(df, dr)| holds(shape.step(target, df, dr), &[Role::King]))
    {
        return true;
    }
    let slider_hits = |directions: &[(i8, i8)], roles: &[Role]| {
        directions.iter().any(|&(df, dr)| {
            let first_piece = shape.ray(target, df, dr).find(|&s| board.get(s).is_some());
            holds(first_piece, roles)
        })
    };
    slider_hits(&ORTHOGONAL, &[Role::Rook, Role::Queen])
        || slider_hits(&DIAGONAL, &[Role::Bishop, Role::Queen])
}

/// Whether `color`'s king is attacked. A board without that king is never in check.
pub fn in_check(board: &Board, color: Color) -> bool {
    king_square(board, color).is_some_and(|king| is_attacked(board, king, color.other()))
}

/// What an action did, for the move counters and the repetition history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effect {
    pub capture: bool,
    pub promotion: bool,
    pub forward_pawn_move: bool,
    pub self_destruct: bool,
}

impl Effect {
    /// Resets the fifty-move counter: captures, promotions, forward pawn moves and
    /// self-destructs. Backward pawn moves do not, or a pawn shuffle would reset it forever.
    pub fn resets_fifty_move_counter(self) -> bool {
        self.capture || self.promotion || self.forward_pawn_move || self.self_destruct
    }

    /// Changes the material for good, so no earlier position can come back. A forward pawn
    /// move is not irreversible here: the pawn may walk back.
    pub fn is_irreversible(self) -> bool {
        self.capture || self.promotion || self.self_destruct
    }
}

/// Plays `action` for `mover` on `board` without checking it. An action naming an empty
/// square changes nothing.
pub fn make(board: &mut Board, mover: Color, action: &ChazzAction) -> Effect {
    match *action {
        ChazzAction::Pass => Effect::default(),
        ChazzAction::SelfDestruct { from } => Effect {
            self_destruct: board.take(from).is_some(),
            ..Effect::default()
        },
        ChazzAction::Move {
            from,
            to,
            promotion,
        } => {
            let Some(piece) = board.take(from) else {
                return Effect::default();
            };
            let landing = match promotion {
                Some(role) => Piece::new(piece.color, role),
                None => piece,
            };
            let captured = board.set(to, Some(landing));
            let is_pawn = piece.role == Role::Pawn;
            Effect {
                capture: captured.is_some(),
                promotion: is_pawn && promotion.is_some(),
                forward_pawn_move: is_pawn
                    && i16::from(to.rank) - i16::from(from.rank) == i16::from(forward(mover)),
                self_destruct: false,
            }
        }
    }
}

/// Every move of `color` that obeys piece movement, ignoring whether it leaves the own king
/// in check. Never includes a pass.
pub fn pseudo_moves(board: &Board, color: Color, self_destruct: bool) -> Vec<ChazzAction> {
    let shape = board.shape();
    let mut out = Vec::new();
    let is_target = |square: Coord| board.get(square).is_none_or(|p| p.color != color);
    for (from, piece) in board.occupied() {
        if piece.color != color {
            continue;
        }
        let mut plain = |to: Coord| {
            out.push(ChazzAction::Move {
                from,
                to,
                promotion: None,
            })
        };
        match piece.role {
            Role::Pawn => pawn_moves(board, from, color, self_destruct, &mut out),
            Role::Knight | Role::King => {
                let steps: &[(i8, i8)] = if piece.role == Role::Knight {
                    &KNIGHT_LEAPS
                } else {
                    &KING_STEPS
                };
                for &(df, dr) in steps {
                    if let Some(to) = shape.step(from, df, dr).filter(|&to| is_target(to)) {
                        plain(to);
                    }
                }
            }
            Role::Bishop | Role::Rook | Role::Queen | Role::Dabbabah => {
                let directions: &[(i8, i8)] = match piece.role {
                    Role::Bishop => &DIAGONAL,
                    Role::Rook => &ORTHOGONAL,
                    Role::Queen => &KING_STEPS,
                    // Refused by the position parser; kept inert rather than guessed at.
                    _ => &[],
                };
                for &(df, dr) in directions {
                    for to in shape.ray(from, df, dr) {
                        match board.get(to) {
                            None => plain(to),
                            Some(other) => {
                                if other.color != color {
                                    plain(to);
                                }
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// A pawn's moves: one step forward (promoting on the last rank), diagonal captures forward,
/// one step back onto an empty square, and the self-destruct from its own first rank.
fn pawn_moves(
    board: &Board,
    from: Coord,
    color: Color,
    self_destruct: bool,
    out: &mut Vec<ChazzAction>,
) {
    let shape = board.shape();
    let ahead = forward(color);
    let mut push_forward = |to: Coord| {
        if to.rank == last_rank(color) {
            for role in PROMOTION_ROLES {
                out.push(ChazzAction::Move {
                    from,
                    to,
                    promotion: Some(role),
                });
            }
        } else {
            out.push(ChazzAction::Move {
                from,
                to,
                promotion: None,
            });
        }
    };
    if let Some(to) = shape
        .step(from, 0, ahead)
        .filter(|&s| board.get(s).is_none())
    {
        push_forward(to);
    }
    for df in [-1, 1] {
        let capture = shape
            .step(from, df, ahead)
            .filter(|&s| board.get(s).is_some_and(|p| p.color != color));
        if let Some(to) = capture {
            push_forward(to);
        }
    }
    if let Some(to) = shape
        .step(from, 0, -ahead)
        .filter(|&s| board.get(s).is_none())
    {
        out.push(ChazzAction::Move {
            from,
            to,
            promotion: None,
        });
    }
    if self_destruct && from.rank == first_rank(color) {
        out.push(ChazzAction::SelfDestruct { from });
    }
}

/// Every legal move of `color` (never a pass): the pseudo-legal moves that do not leave the
/// own king in check.
pub fn legal_moves(board: &Board, color: Color, self_destruct: bool) -> Vec<ChazzAction> {
    let mut moves = pseudo_moves(board, color, self_destruct);
    let mut scratch = board.clone();
    let king = king_square(board, color);
    moves.retain(|action| leaves_king_safe(&mut scratch, color, king, action));
    moves
}

/// Whether `color` has at least one legal move (stops at the first).
pub fn has_legal_move(board: &Board, color: Color, self_destruct: bool) -> bool {
    let mut scratch = board.clone();
    let king = king_square(board, color);
    pseudo_moves(board, color, self_destruct)
        .iter()
        .any(|action| leaves_king_safe(&mut scratch, color, king, action))
}

/// Whether playing `action` keeps `color`'s king (on `king` before the action) out of check.
/// `scratch` is played on and restored, so one copy of the board serves a whole move list.
fn leaves_king_safe(
    scratch: &mut Board,
    color: Color,
    king: Option<Coord>,
    action: &ChazzAction,
) -> bool {
    let safe_on = |board: &Board, square: Option<Coord>| {
        square.is_none_or(|s| !is_attacked(board, s, color.other()))
    };
    match *action {
        ChazzAction::Pass => safe_on(scratch, king),
        ChazzAction::SelfDestruct { from } => {
            let pawn = scratch.take(from);
            let safe = safe_on(scratch, king);
            scratch.set(from, pawn);
            safe
        }
        ChazzAction::Move { from, to, .. } => {
            // The promotion role does not matter to the mover's own king.
            let moving = scratch.take(from);
            let captured = scratch.set(to, moving);
            let king_after = if king == Some(from) { Some(to) } else { king };
            let safe = safe_on(scratch, king_after);
            scratch.set(to, captured);
            scratch.set(from, moving);
            safe
        }
    }
}

/// No side can ever mate: no pawns, no rooks, and either at most one minor piece or only
/// bishops that all stand on squares of one colour.
pub fn insufficient_material(board: &Board) -> bool {
    let mut minors = 0;
    let mut knights = 0;
    let mut bishop_square_colours = [false; 2];
    for (square, piece) in board.occupied() {
        match piece.role {
            Role::King => {}
            Role::Knight => {
                minors += 1;
                knights += 1;
            }
            Role::Bishop => {
                minors += 1;
                if let Some(seen) =
                    bishop_square_colours.get_mut(usize::from((square.file + square.rank) % 2))
                {
                    *seen = true;
                }
            }
            _ => return false,
        }
    }
    minors <= 1 || (knights == 0 && !(bishop_square_colours[0] && bishop_square_colours[1]))
}
