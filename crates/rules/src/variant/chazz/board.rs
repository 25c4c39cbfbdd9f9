//! Move generation and attack detection for Do-Or-Die Chazz on the 8x5 mailbox board.
//!
//! Everything here works on a bare [`Board`] and a colour, so the same code answers "what can
//! the side to move do" and "could the opponent move if it were their turn" (the test for the
//! `no_moves` draw). Game history (repetition, move counters) lives in the parent module.

use super::ChazzAction;
use crate::geometry::{Coord, Mailbox, Shape, DIAGONAL, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL};
use crate::types::{Color, Piece, Role};

/// Files a–h.
pub const FILES: u8 = 8;
/// Ranks 1–5.
pub const RANKS: u8 = 5;
// [`KingSafety`] and the attack tables keep sets of squares as bits of a u64.
const _: () = assert!(FILES as u32 * RANKS as u32 <= 64);

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

/// Squares on the board: cell indexes run rank by rank, `rank * FILES + file`.
const SQUARES: usize = FILES as usize * RANKS as usize;

/// For every square, the set of squares (as bits by cell index) a knight's leap away.
const KNIGHT_NEIGHBOURS: [u64; SQUARES] = neighbour_sets(&KNIGHT_LEAPS);
/// For every square, the set of squares a king's step away.
const KING_NEIGHBOURS: [u64; SQUARES] = neighbour_sets(&KING_STEPS);

const fn neighbour_sets(offsets: &[(i8, i8)]) -> [u64; SQUARES] {
    let mut sets = [0u64; SQUARES];
    let mut square = 0;
    while square < SQUARES {
        let (file, rank) = (
            (square % FILES as usize) as i8,
            (square / FILES as usize) as i8,
        );
        let mut k = 0;
        while k < offsets.len() {
            let (f, r) = (file + offsets[k].0, rank + offsets[k].1);
            if f >= 0 && f < FILES as i8 && r >= 0 && r < RANKS as i8 {
                sets[square] |= 1 << (r as usize * FILES as usize + f as usize);
            }
            k += 1;
        }
        square += 1;
    }
    sets
}

/// Whether a piece of `by` attacks `target`. Pawns attack only diagonally forward: a backward
/// pawn move never captures, so it never attacks either.
///
/// This runs for every king move and every check test, so it reads the cells by index with
/// precomputed leap sets rather than stepping coordinates (a sixth of the instructions).
pub fn is_attacked(board: &Board, target: Coord, by: Color) -> bool {
    let cells = board.cells();
    let holds = |index: usize, role: Role| cells.get(index) == Some(&Some(Piece::new(by, role)));
    let any_in = |mut set: u64, role: Role| {
        while set != 0 {
            if holds(set.trailing_zeros() as usize, role) {
                return true;
            }
            set &= set - 1;
        }
        false
    };
    let (file, rank) = (target.file as i8, target.rank as i8);
    let Some(target_index) = cell_index(file, rank) else {
        return false;
    };
    let pawn_rank = rank - forward(by);
    for f in [file - 1, file + 1] {
        if cell_index(f, pawn_rank).is_some_and(|index| holds(index, Role::Pawn)) {
            return true;
        }
    }
    if any_in(KNIGHT_NEIGHBOURS[target_index], Role::Knight)
        || any_in(KING_NEIGHBOURS[target_index], Role::King)
    {
        return true;
    }
    SLIDES.iter().any(|&(directions, slider)| {
        directions.iter().any(|&(df, dr)| {
            pieces_along(board, target, df, dr)
                .next()
                .is_some_and(|(_, piece)| piece.color == by && slides_as(piece.role, slider))
        })
    })
}

/// The sliding lines: ranks and files for rooks, diagonals for bishops (queens slide both).
const SLIDES: [(&[(i8, i8)], Role); 2] = [(&ORTHOGONAL, Role::Rook), (&DIAGONAL, Role::Bishop)];

/// Whether a piece of `role` slides along the lines of `slider`.
fn slides_as(role: Role, slider: Role) -> bool {
    role == slider || role == Role::Queen
}

/// The pieces on the line from `from` (not included) in the direction (`df`, `dr`), nearest
/// first, each with its cell index; walked by index arithmetic, as the attack test wants.
fn pieces_along(
    board: &Board,
    from: Coord,
    df: i8,
    dr: i8,
) -> impl Iterator<Item = (usize, Piece)> + '_ {
    let cells = board.cells();
    let (mut file, mut rank) = (from.file as i8, from.rank as i8);
    std::iter::from_fn(move || loop {
        file += df;
        rank += dr;
        let index = cell_index(file, rank)?;
        if let Some(Some(piece)) = cells.get(index) {
            return Some((index, *piece));
        }
    })
}

/// The cell index of the square on `file` and `rank` (counted from 0), or None off the board.
fn cell_index(file: i8, rank: i8) -> Option<usize> {
    let on_board = (0..FILES as i8).contains(&file) && (0..RANKS as i8).contains(&rank);
    on_board.then(|| rank as usize * FILES as usize + file as usize)
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
    let mut safety = KingSafety::new(board, color);
    moves.retain(|action| safety.leaves_king_safe(action));
    moves
}

/// Whether `color` has at least one legal move (stops at the first).
pub fn has_legal_move(board: &Board, color: Color, self_destruct: bool) -> bool {
    let mut safety = KingSafety::new(board, color);
    pseudo_moves(board, color, self_destruct)
        .iter()
        .any(|action| safety.leaves_king_safe(action))
}

/// Judges whether actions leave `color`'s king in check, for one position's whole move list.
///
/// Every action vacates at most one square and occupies at most one other. So when the king
/// is not in check, an action that neither moves the king nor moves a pinned piece cannot
/// expose it: pawn, knight and king attacks do not depend on other squares, occupying a
/// square only blocks or removes an attacker, and the only line a vacated square can open
/// onto the king is one where it was the king's last shield from an enemy slider. Those
/// actions are judged by that geometry, which is most of them; king moves, pinned pieces'
/// moves and every action while in check are played on a scratch copy of the board
/// (restored after each) and the king's square tested.
struct KingSafety {
    color: Color,
    king: Option<Coord>,
    in_check: bool,
    /// The own pieces that stand alone between the king and an enemy slider on its line,
    /// as a set of square indexes.
    pinned: u64,
    scratch: Board,
}

impl KingSafety {
    fn new(board: &Board, color: Color) -> KingSafety {
        let king = king_square(board, color);
        KingSafety {
            color,
            king,
            in_check: king.is_some_and(|k| is_attacked(board, k, color.other())),
            pinned: king.map_or(0, |k| pinned_pieces(board, k, color)),
            scratch: board.clone(),
        }
    }

    fn leaves_king_safe(&mut self, action: &ChazzAction) -> bool {
        let Some(king) = self.king else {
            return true;
        };
        if !self.in_check {
            let vacated = match *action {
                ChazzAction::Pass => return true,
                ChazzAction::SelfDestruct { from } | ChazzAction::Move { from, .. } => from,
            };
            let vacated_bit = 1u64 << self.scratch.shape().index(vacated);
            if vacated != king && self.pinned & vacated_bit == 0 {
                return true;
            }
        }
        self.played_leaves_king_safe(king, action)
    }

    /// The slow, always-right test: play the action on the scratch board and look.
    fn played_leaves_king_safe(&mut self, king: Coord, action: &ChazzAction) -> bool {
        let enemy = self.color.other();
        let scratch = &mut self.scratch;
        match *action {
            ChazzAction::Pass => !is_attacked(scratch, king, enemy),
            ChazzAction::SelfDestruct { from } => {
                let pawn = scratch.take(from);
                let safe = !is_attacked(scratch, king, enemy);
                scratch.set(from, pawn);
                safe
            }
            ChazzAction::Move { from, to, .. } => {
                // The promotion role does not matter to the mover's own king.
                let moving = scratch.take(from);
                let captured = scratch.set(to, moving);
                let king_after = if king == from { to } else { king };
                let safe = !is_attacked(scratch, king_after, enemy);
                scratch.set(to, captured);
                scratch.set(from, moving);
                safe
            }
        }
    }
}

/// The `color` pieces pinned to the king on `king`: each the only piece between the king and
/// an enemy rook (on a rank or file) or bishop (on a diagonal), as a set of square indexes.
fn pinned_pieces(board: &Board, king: Coord, color: Color) -> u64 {
    let mut pinned = 0;
    for (directions, slider) in SLIDES {
        for &(df, dr) in directions {
            let mut pieces = pieces_along(board, king, df, dr);
            let (Some((shield, own)), Some((_, beyond))) = (pieces.next(), pieces.next()) else {
                continue;
            };
            if own.color == color && beyond.color != color && slides_as(beyond.role, slider) {
                pinned |= 1u64 << shield;
            }
        }
    }
    pinned
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::chazz::Chazz;
    use crate::Rules;

    /// Every pseudo-legal action played out on a copy and the king tested: the definition
    /// that [`KingSafety`]'s geometric shortcut must agree with.
    fn legal_by_playing_every_move(
        board: &Board,
        color: Color,
        self_destruct: bool,
    ) -> Vec<ChazzAction> {
        let mut safety = KingSafety::new(board, color);
        let mut moves = pseudo_moves(board, color, self_destruct);
        moves.retain(|action| {
            safety
                .king
                .is_none_or(|king| safety.played_leaves_king_safe(king, action))
        });
        moves
    }

    /// Attack detection written the plain way, stepping coordinates from the target: what
    /// the table-driven [`is_attacked`] must agree with.
    fn is_attacked_by_stepping(board: &Board, target: Coord, by: Color) -> bool {
        let shape = board.shape();
        let holds = |square: Option<Coord>, roles: &[Role]| {
            square
                .and_then(|s| board.get(s))
                .is_some_and(|p| p.color == by && roles.contains(&p.role))
        };
        let pawn_rank_step = -forward(by);
        let leaper = |offsets: &[(i8, i8)], role: Role| {
            offsets
                .iter()
                .any(|&(df, dr)| holds(shape.step(target, df, dr), &[role]))
        };
        let slider = |directions: &[(i8, i8)], roles: &[Role]| {
            directions.iter().any(|&(df, dr)| {
                holds(
                    shape.ray(target, df, dr).find(|&s| board.get(s).is_some()),
                    roles,
                )
            })
        };
        leaper(&[(-1, pawn_rank_step), (1, pawn_rank_step)], Role::Pawn)
            || leaper(&KNIGHT_LEAPS, Role::Knight)
            || leaper(&KING_STEPS, Role::King)
            || slider(&ORTHOGONAL, &[Role::Rook, Role::Queen])
            || slider(&DIAGONAL, &[Role::Bishop, Role::Queen])
    }

    #[test]
    fn the_shortcuts_agree_with_the_plain_way_in_random_games() {
        let starts = [
            "4k3/pppppppp/8/PPPPPPPP/4K3 w - - 0 1",
            "r2bk2r/1pp2pp1/8/1PP2PP1/R2BK2R w - - 0 1",
            "1b2k2r/2n5/8/2N5/1B2K2R b - - 0 1",
            "1r2k1b1/8/3K4/8/1R4B1 w - - 0 1",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut positions = 0;
        for start in starts {
            for self_destruct in [false, true] {
                for _ in 0..20 {
                    let game =
                        Chazz::from_position(start).unwrap_or_else(|e| panic!("{start}: {e}"));
                    let mut board = game.board.clone();
                    let mut color = game.turn;
                    for _ in 0..120 {
                        let expected = legal_by_playing_every_move(&board, color, self_destruct);
                        assert_eq!(
                            legal_moves(&board, color, self_destruct),
                            expected,
                            "{start}, {color:?} to move on {board:?}"
                        );
                        assert_eq!(
                            has_legal_move(&board, color, self_destruct),
                            !expected.is_empty()
                        );
                        for square in board.shape().squares_in_label_order() {
                            for by in [Color::White, Color::Black] {
                                assert_eq!(
                                    is_attacked(&board, square, by),
                                    is_attacked_by_stepping(&board, square, by),
                                    "{square:?} attacked by {by:?} on {board:?}"
                                );
                            }
                        }
                        positions += 1;
                        if expected.is_empty() {
                            break;
                        }
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        let pick = (seed % expected.len() as u64) as usize;
                        make(&mut board, color, &expected[pick]);
                        color = color.other();
                    }
                }
            }
        }
        assert!(positions > 5_000, "only {positions} positions reached");
    }
}
