//! Chad move generation: how the king and the line men move and capture, which moves leave the
//! own king in check, and why a refused move is refused.
//!
//! Check is plain line of sight from an enemy rook or queen, whatever the capture rule says, so
//! the attack tests here ignore castles and walls. Everything reads the parent's board; the
//! game state and history stay in the parent module.

use super::{is_castle, line_capture_allowed, Cells, Chad, ChadMove, MOST_MOVES_OF_A_MAN, SIZE};
use crate::error::IllegalAction;
use crate::geometry::{Coord, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL};
use crate::{Color, Piece, Role};

/// Whether an enemy (`by`) rook or queen sees `square` along a line, other men of either
/// colour blocking. Castles and walls never block, and the capture rule plays no part.
pub(super) fn is_line_attacked(board: &Cells, square: Coord, by: Color) -> bool {
    is_line_attacked_in(square, by, |i| board.0[i])
}

/// [`is_line_attacked`] on the board as `cell` (by index) tells it: a board after a move
/// can be looked at without copying it.
fn is_line_attacked_in(square: Coord, by: Color, cell: impl Fn(usize) -> Option<Piece>) -> bool {
    KING_STEPS
        .iter()
        .any(|&direction| is_ray_attacked_in(square, direction, by, &cell))
}

/// Whether the first man met from `square` going in `direction` is a `by` rook or queen that
/// moves along that line.
fn is_ray_attacked(board: &Cells, square: Coord, direction: (i8, i8), by: Color) -> bool {
    is_ray_attacked_in(square, direction, by, |i| board.0[i])
}

/// [`is_ray_attacked`] on the board as `cell` (by index) tells it. A plain loop over the
/// cells: this is the hot spot of move generation, and the test suite runs it unoptimised.
fn is_ray_attacked_in(
    square: Coord,
    (df, dr): (i8, i8),
    by: Color,
    cell: impl Fn(usize) -> Option<Piece>,
) -> bool {
    let size = i16::from(SIZE);
    let (df, dr) = (i16::from(df), i16::from(dr));
    let (mut file, mut rank) = (i16::from(square.file) + df, i16::from(square.rank) + dr);
    while file >= 0 && rank >= 0 && file < size && rank < size {
        // In range by the loop condition.
        if let Some(piece) = cell((rank * size + file) as usize) {
            return piece.color == by
                && (piece.role == Role::Queen
                    || (piece.role == Role::Rook && (df == 0 || dr == 0)));
        }
        file += df;
        rank += dr;
    }
    false
}

/// The step from `from` towards `to` if they share a rank, a file or a diagonal.
fn direction_towards(from: Coord, to: Coord) -> Option<(i8, i8)> {
    let df = i16::from(to.file) - i16::from(from.file);
    let dr = i16::from(to.rank) - i16::from(from.rank);
    let on_line = (df != 0 || dr != 0) && (df == 0 || dr == 0 || df.abs() == dr.abs());
    on_line.then(|| (df.signum() as i8, dr.signum() as i8))
}
/// The squares met going from `from` in direction `(df, dr)`, up to the edge of the board.
pub(super) fn ray(from: Coord, (df, dr): (i8, i8)) -> impl Iterator<Item = Coord> {
    let size = i16::from(SIZE);
    let (mut file, mut rank) = (i16::from(from.file), i16::from(from.rank));
    std::iter::from_fn(move || {
        file += i16::from(df);
        rank += i16::from(dr);
        let inside = file >= 0 && rank >= 0 && file < size && rank < size;
        inside.then(|| Coord::new(file as u8, rank as u8))
    })
}
impl Chad {
    /// Every move of the man on `from` that obeys the movement and capture rules, before the
    /// question of leaving the own king in check. Empty unless a man of the side to move
    /// stands there. With `toward`, only the moves that may end on that square are produced
    /// (a shortcut for checking one move, with the same rules).
    fn pseudo_moves_from(&self, from: Coord, toward: Option<Coord>, out: &mut Vec<ChadMove>) {
        let Some(piece) = self.piece_at(from) else {
            return;
        };
        if piece.color != self.turn {
            return;
        }
        let capturable = |target: Piece| target.color != piece.color && target.role != Role::King;
        match piece.role {
            Role::King => {
                for &(df, dr) in KING_STEPS.iter().chain(KNIGHT_LEAPS.iter()) {
                    let Some(to) = from.offset(df, dr) else {
                        continue;
                    };
                    if toward.is_some_and(|target| target != to) {
                        continue;
                    }
                    // The king never leaves its castle, so it captures only inside it.
                    if is_castle(piece.color, to) && self.piece_at(to).is_none_or(capturable) {
                        out.push(ChadMove { from, to });
                    }
                }
            }
            Role::Rook | Role::Queen => {
                let directions: &[(i8, i8)] = if piece.role == Role::Rook {
                    &ORTHOGONAL
                } else {
                    &KING_STEPS
                };
                let wanted = toward.map(|target| direction_towards(from, target));
                for &(df, dr) in directions {
                    if wanted.is_some_and(|direction| direction != Some((df, dr))) {
                        continue;
                    }
                    for to in ray(from, (df, dr)) {
                        match self.piece_at(to) {
                            None => out.push(ChadMove { from, to }),
                            Some(target) => {
                                if capturable(target) && line_capture_allowed(piece.color, from, to)
                                {
                                    out.push(ChadMove { from, to });
                                }
                                break;
                            }
                        }
                    }
                }
            }
            // Chad has no other men; the position parser refuses them.
            _ => {}
        }
    }

    /// Whether playing `action` (already obeying the movement rules) would leave the mover's
    /// king in line of sight of an enemy rook or queen. The board is only looked at.
    fn leaves_king_in_check(&self, action: ChadMove) -> bool {
        let Some(moved) = self.piece_at(action.from) else {
            return false;
        };
        let king = if moved.role == Role::King {
            action.to
        } else {
            self.king_square(self.turn)
        };
        let (Some(vacated), Some(filled)) = (Cells::index(action.from), Cells::index(action.to))
        else {
            return false;
        };
        // The board after the move, seen through the one square emptied and the one filled.
        is_line_attacked_in(king, self.turn.other(), |i| {
            if i == filled {
                Some(moved)
            } else if i == vacated {
                None
            } else {
                self.board.0[i]
            }
        })
    }

    /// Whether the man on `from` is all that stands between its king and an enemy line (only
    /// meaningful when the king is not in check): the first man met from the king towards
    /// `from` is that man, and beyond it the line is the enemy's.
    fn is_pinned(&self, from: Coord) -> bool {
        let king = self.king_square(self.turn);
        direction_towards(king, from).is_some_and(|direction| {
            ray(king, direction).find(|&c| self.piece_at(c).is_some()) == Some(from)
                && is_ray_attacked(&self.board, from, direction, self.turn.other())
        })
    }

    /// The legal moves of the man on `from`: the one generator behind [`Rules::legal_actions`]
    /// and [`Rules::apply`]. It ignores whether the game is already over. `pseudo` is scratch
    /// space, so that a whole position's moves are generated without an allocation per man.
    fn legal_moves_from(
        &self,
        in_check: bool,
        from: Coord,
        pseudo: &mut Vec<ChadMove>,
        out: &mut Vec<ChadMove>,
    ) {
        pseudo.clear();
        self.pseudo_moves_from(from, None, pseudo);
        if pseudo.is_empty() {
            return;
        }
        // Whether the man is pinned depends on its square alone: asked once, not per move.
        let pinned = !in_check && from != self.king_square(self.turn) && self.is_pinned(from);
        out.extend(
            pseudo
                .iter()
                .copied()
                .filter(|&action| self.is_safe_given(in_check, pinned, action)),
        );
    }

    /// Whether `action`, which obeys the movement rules, keeps the mover's king out of check.
    fn is_safe(&self, in_check: bool, action: ChadMove) -> bool {
        let pinned = !in_check && self.is_pinned(action.from);
        self.is_safe_given(in_check, pinned, action)
    }

    /// [`Chad::is_safe`] with whether the moving man is pinned already known (it is not asked
    /// of the king, nor when the king is in check).
    fn is_safe_given(&self, in_check: bool, pinned: bool, action: ChadMove) -> bool {
        let king = self.king_square(self.turn);
        if action.from == king {
            return !self.leaves_king_in_check(action);
        }
        if in_check {
            // Checks come along lines, so another man can only help by blocking or taking
            // on a line through the king.
            return direction_towards(king, action.to).is_some()
                && !self.leaves_king_in_check(action);
        }
        // Out of check, only a man pinned to the king can expose it.
        !pinned || !self.leaves_king_in_check(action)
    }

    /// The squares of the side to move's men.
    fn own_squares(&self) -> impl Iterator<Item = Coord> + '_ {
        self.board
            .occupied()
            .filter(|(_, p)| p.color == self.turn)
            .map(|(c, _)| c)
    }

    /// Every legal move, ignoring whether a draw rule has already ended the game.
    pub(super) fn generate_legal(&self) -> Vec<ChadMove> {
        let in_check = self.is_check(self.turn);
        let mut pseudo = Vec::with_capacity(32);
        let mut out = Vec::with_capacity(96);
        for from in self.own_squares() {
            self.legal_moves_from(in_check, from, &mut pseudo, &mut out);
        }
        out
    }

    /// Whether the side to move has any legal move (stops at the first one).
    pub(super) fn has_legal_move(&self) -> bool {
        let in_check = self.is_check(self.turn);
        // Sized for a queen's moves, so that no man's list grows them.
        let mut pseudo = Vec::with_capacity(MOST_MOVES_OF_A_MAN);
        let mut out = Vec::with_capacity(MOST_MOVES_OF_A_MAN);
        self.own_squares().any(|from| {
            self.legal_moves_from(in_check, from, &mut pseudo, &mut out);
            !out.is_empty()
        })
    }
    /// Explains why `action`, which is not among the legal moves of its man, is refused.
    pub(super) fn refusal(&self, action: ChadMove) -> IllegalAction {
        let from = action.from.name();
        let Some(piece) = self.piece_at(action.from) else {
            return IllegalAction::EmptySquare(from);
        };
        if piece.color != self.turn {
            return IllegalAction::NotYourPiece(from);
        }
        let mut pseudo = Vec::new();
        self.pseudo_moves_from(action.from, Some(action.to), &mut pseudo);
        if pseudo.contains(&action) {
            return IllegalAction::KingInCheck;
        }
        let target = self.piece_at(action.to);
        if piece.role == Role::King {
            let df = i16::from(action.to.file) - i16::from(action.from.file);
            let dr = i16::from(action.to.rank) - i16::from(action.from.rank);
            let reachable = (df, dr) != (0, 0) && df.abs().max(dr.abs()) <= 2 && {
                let (a, b) = (df.abs(), dr.abs());
                a.max(b) == 1 || (a.min(b), a.max(b)) == (1, 2)
            };
            if reachable && !is_castle(piece.color, action.to) {
                return IllegalAction::rule(
                    "king_leaves_castle",
                    "the king may never leave its castle",
                );
            }
        } else if let Some(target) = target {
            // The line is clear up to the target exactly when the same move onto an empty
            // square would be generated; try it with the target lifted off a copy.
            let mut lifted = self.clone();
            lifted.board.take(action.to);
            let mut reachable = Vec::new();
            lifted.pseudo_moves_from(action.from, Some(action.to), &mut reachable);
            if reachable.contains(&action)
                && target.color != piece.color
                && target.role != Role::King
            {
                return IllegalAction::rule(
                    "capture_not_allowed",
                    "rooks and queens capture only from the enemy's wall into its castle, \
                     or from their own castle onto their own wall",
                );
            }
        }
        IllegalAction::NotLegal(action.machine())
    }

    /// Whether `action` is legal now, looking only at the man it moves.
    pub(super) fn is_legal_move(&self, action: ChadMove) -> bool {
        // A rook's or queen's line toward the square: up to the board's width, in one block.
        let mut pseudo = Vec::with_capacity(usize::from(SIZE));
        self.pseudo_moves_from(action.from, Some(action.to), &mut pseudo);
        pseudo.contains(&action) && self.is_safe(self.is_check(self.turn), action)
    }
}
