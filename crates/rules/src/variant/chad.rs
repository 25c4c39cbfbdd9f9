//! Chad (Christian Freeling, 1979): a 12x12 uncheckered board, one king and eight rooks a side,
//! each side's men starting in its 3x3 castle, which is ringed by a 12-square wall.
//!
//! ```text
//! 12  .  .  .  .  .  .  .  .  .  .  .  .
//! 11  .  .  .  .  .  .  .  w  w  w  .  .      w = Black's wall
//! 10  .  .  .  .  .  .  w  r  r  r  w  .
//!  9  .  .  .  .  .  .  w  r  k  r  w  .      h8-j10 = Black's castle
//!  8  .  .  .  .  .  .  w  r  r  r  w  .
//!  7  .  .  .  .  .  .  .  w  w  w  .  .
//!  6  .  .  W  W  W  .  .  .  .  .  .  .      W = White's wall
//!  5  .  W  R  R  R  W  .  .  .  .  .  .
//!  4  .  W  R  K  R  W  .  .  .  .  .  .      c3-e5 = White's castle
//!  3  .  W  R  R  R  W  .  .  .  .  .  .
//!  2  .  .  W  W  W  .  .  .  .  .  .  .
//!  1  .  .  .  .  .  .  .  .  .  .  .  .
//!     a  b  c  d  e  f  g  h  i  j  k  l
//! ```
//!
//! What makes Chad unusual, and where this module enforces it:
//! - the king moves and captures as a king or a knight but never leaves its castle
//!   ([`Chad::pseudo_moves_from`]);
//! - rooks and queens capture only between an attacker on the enemy's wall and a defender in
//!   its own castle, in both directions ([`line_capture_allowed`]); otherwise men block;
//! - a rook ending its move in the enemy castle becomes a queen ([`promotes`]);
//! - check is plain line of sight from an enemy rook or queen, whatever the capture rule says
//!   ([`is_line_attacked`]).
//!
//! Draws by stalemate, threefold repetition and fifty moves without capture or promotion are
//! house rules (the sources are silent); `docs/rules/chad.md` explains each decision.

use crate::error::{IllegalAction, ParseActionError, ParsePositionError};
use crate::geometry::{
    label_order, parse_square_prefix, push_number, write_placement, Coord, Mailbox, PairTexts,
    Shape, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL,
};
use crate::history::History;
use crate::snapshot::{shared_boards, BoardSpec, LastAction, PlacedPiece, SquareRef, Zone};
use crate::{Color, EndReason, Outcome, Piece, Role, Rules, Snapshot, Variant};
use std::borrow::Cow;
use std::sync::{Arc, LazyLock, OnceLock};

/// Files and ranks of the board.
const SIZE: u8 = 12;

/// The start position in Chad's position notation.
pub const START_POSITION: &str = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - - 0 1";

/// Plies without a capture or a promotion after which the game is drawn (50 full moves).
const FIFTY_MOVE_PLIES: u32 = 100;

/// How many times a position must occur for the automatic repetition draw.
const REPETITION_DRAW_COUNT: usize = 3;

/// A side never has more than the eight rooks it starts with (queens are promoted rooks).
const MAX_MEN_PER_SIDE: usize = 8;

/// The most moves one man can have: a queen's four lines of at most eleven squares each
/// bound it (no square sees that many).
const MOST_MOVES_OF_A_MAN: usize = 4 * (SIZE as usize - 1);

/// The lowest file and rank of `color`'s 3x3 castle; the two castles are point-symmetric.
fn castle_corner(color: Color) -> (u8, u8) {
    match color {
        Color::White => (2, 2),
        Color::Black => (7, 7),
    }
}

/// Whether `square` is one of the nine squares of `color`'s castle.
pub fn is_castle(color: Color, square: Coord) -> bool {
    let (file, rank) = castle_corner(color);
    (file..file + 3).contains(&square.file) && (rank..rank + 3).contains(&square.rank)
}

/// Whether `square` is on `color`'s wall: the twelve squares orthogonally next to its castle
/// (the four diagonal corners of the surrounding ring are not wall).
pub fn is_wall(color: Color, square: Coord) -> bool {
    let (file, rank) = castle_corner(color);
    let beside = |value: u8, low: u8| value + 1 == low || value == low + 3;
    let within = |value: u8, low: u8| (low..low + 3).contains(&value);
    (within(square.file, file) && beside(square.rank, rank))
        || (within(square.rank, rank) && beside(square.file, file))
}

/// The capture rule for rooks and queens of `mover`'s side going from `from` to `to`, where an
/// enemy man stands: either the mover stands on the enemy's wall and takes a man inside the
/// enemy castle, or the mover stands in its own castle and takes a man on its own wall.
pub fn line_capture_allowed(mover: Color, from: Coord, to: Coord) -> bool {
    let enemy = mover.other();
    (is_wall(enemy, from) && is_castle(enemy, to)) || (is_castle(mover, from) && is_wall(mover, to))
}

/// Whether `piece` arriving on `to` is a rook that becomes a queen (it ended its move in the
/// enemy castle, by a plain move or a capture).
pub fn promotes(piece: Piece, to: Coord) -> bool {
    piece.role == Role::Rook && is_castle(piece.color.other(), to)
}

/// Whether an enemy (`by`) rook or queen sees `square` along a line, other men of either
/// colour blocking. Castles and walls never block, and the capture rule plays no part.
fn is_line_attacked(board: &Cells, square: Coord, by: Color) -> bool {
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

/// Cells of the board, for the hashing table.
const CELLS: usize = SIZE as usize * SIZE as usize;

/// One pseudo-random number per (colour, role, square), plus one for Black to move: the
/// Zobrist keys that let the repetition rule compare positions by a hash first. Built at
/// compile time with SplitMix64 so that it is the same in every build.
const ZOBRIST: [u64; 2 * 3 * CELLS + 1] = zobrist_table();

const fn zobrist_table() -> [u64; 2 * 3 * CELLS + 1] {
    let mut table = [0u64; 2 * 3 * CELLS + 1];
    let mut state: u64 = 0x0c4a_d197_9000_0012;
    let mut i = 0;
    while i < table.len() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        table[i] = z ^ (z >> 31);
        i += 1;
    }
    table
}

/// The Zobrist key of `piece` standing on `square`.
fn zobrist_piece(piece: Piece, square: Coord) -> u64 {
    let role = match piece.role {
        Role::Rook => 1,
        Role::Queen => 2,
        _ => 0,
    };
    let cell = usize::from(square.rank) * usize::from(SIZE) + usize::from(square.file);
    let index = (piece.color.index() * 3 + role) * CELLS + cell;
    ZOBRIST.get(index).copied().unwrap_or(0)
}

/// The Zobrist key of the side to move (only Black's changes the hash).
fn zobrist_turn(turn: Color) -> u64 {
    match turn {
        Color::White => 0,
        Color::Black => ZOBRIST.get(2 * 3 * CELLS).copied().unwrap_or(0),
    }
}

/// The men on the board, one cell per square, rank 1 first. A plain array rather than a
/// [`Mailbox`] (which is used to read and write the placement) because move generation and
/// game copies are the hot path: a copy is a `memcpy` and a look-up an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Cells([Option<Piece>; CELLS]);

impl Cells {
    fn index(square: Coord) -> Option<usize> {
        (square.file < SIZE && square.rank < SIZE)
            .then(|| usize::from(square.rank) * usize::from(SIZE) + usize::from(square.file))
    }

    /// The man on `square` (None off the board).
    fn get(&self, square: Coord) -> Option<Piece> {
        Cells::index(square).and_then(|i| self.0.get(i).copied().flatten())
    }

    /// Puts `value` on `square`, returning what stood there.
    fn set(&mut self, square: Coord, value: Option<Piece>) -> Option<Piece> {
        let cell = Cells::index(square).and_then(|i| self.0.get_mut(i))?;
        std::mem::replace(cell, value)
    }

    fn take(&mut self, square: Coord) -> Option<Piece> {
        self.set(square, None)
    }

    /// Every man with its square, in the byte order of the square labels (`a1`, `a10`, …):
    /// the order a snapshot lists its pieces in.
    fn occupied_in_label_order(&self) -> impl Iterator<Item = (Coord, Piece)> + '_ {
        label_order(SIZE, SIZE).filter_map(|square| self.get(square).map(|piece| (square, piece)))
    }

    /// Every man with its square, rank 1 first.
    fn occupied(&self) -> impl Iterator<Item = (Coord, Piece)> + '_ {
        let size = usize::from(SIZE);
        self.0.iter().enumerate().filter_map(move |(i, cell)| {
            cell.map(|piece| (Coord::new((i % size) as u8, (i / size) as u8), piece))
        })
    }

    fn from_mailbox(board: &Mailbox<Piece>) -> Cells {
        let mut cells = Cells([None; CELLS]);
        for (square, piece) in board.occupied() {
            cells.set(square, Some(*piece));
        }
        cells
    }
}

/// The squares met going from `from` in direction `(df, dr)`, up to the edge of the board.
fn ray(from: Coord, (df, dr): (i8, i8)) -> impl Iterator<Item = Coord> {
    let size = i16::from(SIZE);
    let (mut file, mut rank) = (i16::from(from.file), i16::from(from.rank));
    std::iter::from_fn(move || {
        file += i16::from(df);
        rank += i16::from(dr);
        let inside = file >= 0 && rank >= 0 && file < size && rank < size;
        inside.then(|| Coord::new(file as u8, rank as u8))
    })
}

/// A position as the repetition rule sees it: the men and the side to move. Its Zobrist hash
/// goes beside it into the [`History`], which compares records only when hashes match, so the
/// board settles the rare collision and repetition is exact.
#[derive(Clone, Debug, PartialEq)]
struct PositionRecord {
    turn: Color,
    board: Cells,
}

/// The nine castle squares of `color`, rank by rank.
fn castle_squares(color: Color) -> Vec<Coord> {
    Shape::rectangle(SIZE, SIZE)
        .squares()
        .filter(|&c| is_castle(color, c))
        .collect()
}

/// The twelve wall squares of `color`, in the order the snapshot lists them: the side facing
/// rank 1, the side facing file a, the side facing file l, the side facing rank 12.
fn wall_squares(color: Color) -> Vec<Coord> {
    let (file, rank) = castle_corner(color);
    let run = |fixed_file: Option<u8>, fixed_rank: Option<u8>| {
        (0..3u8).map(move |i| {
            Coord::new(
                fixed_file.unwrap_or(file + i),
                fixed_rank.unwrap_or(rank + i),
            )
        })
    };
    run(None, Some(rank - 1))
        .chain(run(Some(file - 1), None))
        .chain(run(Some(file + 3), None))
        .chain(run(None, Some(rank + 3)))
        .collect()
}

/// One Chad action: a man moves from one square to another. Captures and promotions follow
/// from the position, so they need no field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChadMove {
    pub from: Coord,
    pub to: Coord,
}

impl ChadMove {
    /// The machine notation: the two square names (`d5d9`, `a10a12`).
    pub fn machine(self) -> String {
        let mut text = String::with_capacity(6);
        self.from.push_name(&mut text);
        self.to.push_name(&mut text);
        text
    }
}

/// The machine notation of every pair of squares, built on first use.
static MOVE_TEXTS: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(SIZE, SIZE, ""));

/// What the last move did, for the snapshot's last action.
#[derive(Clone, Debug)]
struct LastMove {
    action: ChadMove,
    /// The man that moved, as it was before any promotion.
    moved: Piece,
    captured: Option<Piece>,
    /// The human notation, written by [`Rules::apply`] (empty after [`Chad::play_unchecked`],
    /// which searches and perft use and which no one reads the notation of).
    human: String,
}

/// A Chad game: the position plus the history the draw rules need.
#[derive(Clone, Debug)]
pub struct Chad {
    board: Cells,
    turn: Color,
    /// The squares of the White and the Black king (indexed by [`Color::index`]).
    kings: [Coord; 2],
    /// Plies since the last capture or promotion.
    halfmove_clock: u32,
    fullmove_number: u32,
    ply: u32,
    /// The positions since the last capture or promotion, the current one first. Nothing
    /// before an irreversible move can recur, so older ones are dropped. Clones share it
    /// ([`History`]), so copying a game (a live move, move search, perft) copies no boards.
    history: History<PositionRecord>,
    /// The Zobrist hash of the current position, kept up to date move by move.
    hash: u64,
    last: Option<LastMove>,
}

impl Chad {
    /// The man on `square`, if any.
    fn piece_at(&self, square: Coord) -> Option<Piece> {
        self.board.get(square)
    }

    fn king_square(&self, color: Color) -> Coord {
        self.kings[color.index()]
    }

    /// Whether `color`'s king is in check now.
    pub fn is_check(&self, color: Color) -> bool {
        is_line_attacked(&self.board, self.king_square(color), color.other())
    }

    /// The Zobrist hash of the current position, computed from scratch.
    fn full_hash(&self) -> u64 {
        self.board
            .occupied()
            .fold(zobrist_turn(self.turn), |hash, (c, p)| {
                hash ^ zobrist_piece(p, c)
            })
    }

    /// The current position as the repetition rule records it.
    fn record(&self) -> PositionRecord {
        PositionRecord {
            turn: self.turn,
            board: self.board,
        }
    }

    /// How many times the current position has occurred (counting now).
    fn occurrences(&self) -> usize {
        // The history always holds the current position; an empty one would be a bug, and
        // the position has still occurred once.
        self.history.occurrences_of_latest().max(1)
    }

    /// The draw that the house rules impose whatever the moves, if one applies.
    fn draw_by_rule(&self) -> Option<EndReason> {
        if self.occurrences() >= REPETITION_DRAW_COUNT {
            Some(EndReason::Repetition)
        } else if self.halfmove_clock >= FIFTY_MOVE_PLIES {
            Some(EndReason::FiftyMoves)
        } else {
            None
        }
    }

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
    fn generate_legal(&self) -> Vec<ChadMove> {
        let in_check = self.is_check(self.turn);
        let mut pseudo = Vec::with_capacity(32);
        let mut out = Vec::with_capacity(96);
        for from in self.own_squares() {
            self.legal_moves_from(in_check, from, &mut pseudo, &mut out);
        }
        out
    }

    /// Whether the side to move has any legal move (stops at the first one).
    fn has_legal_move(&self) -> bool {
        let in_check = self.is_check(self.turn);
        // Sized for a queen's moves, so that no man's list grows them.
        let mut pseudo = Vec::with_capacity(MOST_MOVES_OF_A_MAN);
        let mut out = Vec::with_capacity(MOST_MOVES_OF_A_MAN);
        self.own_squares().any(|from| {
            self.legal_moves_from(in_check, from, &mut pseudo, &mut out);
            !out.is_empty()
        })
    }

    /// The check mark the last move earns in human notation: `+` when the side to move is in
    /// check, `#` when that check is mate, nothing otherwise.
    fn check_mark(&self, has_legal_move: impl FnOnce() -> bool) -> &'static str {
        if !self.is_check(self.turn) {
            ""
        } else if has_legal_move() {
            "+"
        } else {
            "#"
        }
    }

    /// How the game stands, given whether the side to move has a legal move and which draw
    /// rule, if any, applies: the one judgement behind [`Rules::outcome`] and the snapshot.
    fn outcome_with(&self, has_legal_move: bool, draw: Option<EndReason>) -> Option<Outcome> {
        // A mate delivered on the hundredth quiet ply still wins, so mate is looked at first.
        if !has_legal_move {
            return Some(if self.is_check(self.turn) {
                Outcome::win(self.turn.other(), EndReason::Checkmate)
            } else {
                Outcome::draw(EndReason::Stalemate)
            });
        }
        draw.map(Outcome::draw)
    }

    /// The human notation of a legal `action` up to its check mark, which only the position
    /// after it can tell: the man's letter, the disambiguation, `x` for a capture, the square
    /// and `=Q` for a promotion.
    fn human_without_check_mark(&self, action: ChadMove, piece: Piece) -> String {
        let mut text = String::with_capacity(10);
        text.push(piece.role.upper_char());
        text.push_str(&self.disambiguation(action, piece.role));
        if self.piece_at(action.to).is_some() {
            text.push('x');
        }
        action.to.push_name(&mut text);
        if promotes(piece, action.to) {
            text.push_str("=Q");
        }
        text
    }

    /// Plays a move known to be legal: moves the man (promoting a rook that ends in the enemy
    /// castle), advances the counters and records the position for the repetition rule.
    fn play_unchecked(&mut self, action: ChadMove) {
        let Some(moved) = self.board.take(action.from) else {
            return;
        };
        let promoted = promotes(moved, action.to);
        let placed = if promoted {
            Piece::new(moved.color, Role::Queen)
        } else {
            moved
        };
        let captured = self.board.set(action.to, Some(placed));
        self.hash ^= zobrist_piece(moved, action.from)
            ^ zobrist_piece(placed, action.to)
            ^ captured.map_or(0, |c| zobrist_piece(c, action.to))
            ^ zobrist_turn(Color::Black);
        if moved.role == Role::King {
            self.kings[moved.color.index()] = action.to;
        }
        let irreversible = captured.is_some() || promoted;
        self.halfmove_clock = if irreversible {
            0
        } else {
            self.halfmove_clock.saturating_add(1)
        };
        if self.turn == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.turn = self.turn.other();
        self.ply = self.ply.saturating_add(1);
        if irreversible {
            self.history.clear();
        }
        self.history.push(self.hash, self.record());
        self.last = Some(LastMove {
            action,
            moved,
            captured,
            human: String::new(),
        });
    }

    /// Explains why `action`, which is not among the legal moves of its man, is refused.
    fn refusal(&self, action: ChadMove) -> IllegalAction {
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
    fn is_legal_move(&self, action: ChadMove) -> bool {
        // A rook's or queen's line toward the square: up to the board's width, in one block.
        let mut pseudo = Vec::with_capacity(usize::from(SIZE));
        self.pseudo_moves_from(action.from, Some(action.to), &mut pseudo);
        pseudo.contains(&action) && self.is_safe(self.is_check(self.turn), action)
    }

    /// SAN-style disambiguation: nothing, the file, the rank or the whole square of `from`,
    /// whichever first tells it apart from other men of its kind that can reach the same
    /// square.
    fn disambiguation(&self, action: ChadMove, role: Role) -> String {
        let to = action.to;
        let directions: &[(i8, i8)] = match role {
            Role::Rook => &ORTHOGONAL,
            Role::Queen => &KING_STEPS,
            // There is one king a side.
            _ => &[],
        };
        // A rival reaching `to` is the first man met looking out from `to` along a line.
        let rivals: Vec<Coord> = directions
            .iter()
            .filter_map(|&(df, dr)| ray(to, (df, dr)).find(|&c| self.piece_at(c).is_some()))
            .filter(|&c| c != action.from)
            .filter(|&c| self.piece_at(c) == Some(Piece::new(self.turn, role)))
            .filter(|&from| self.is_legal_move(ChadMove { from, to }))
            .collect();
        // Named only when needed: most moves have no rival, and this runs on every move.
        if rivals.is_empty() {
            String::new()
        } else if rivals.iter().all(|c| c.file != action.from.file) {
            action.from.name().chars().take(1).collect()
        } else if rivals.iter().all(|c| c.rank != action.from.rank) {
            action.from.name().chars().skip(1).collect()
        } else {
            action.from.name()
        }
    }

    /// The action named by a human-notation text (`Rd9`, `Rgxh8=Q+`), checks marks optional.
    fn parse_human(&self, text: &str) -> Option<ChadMove> {
        let wanted = text.trim_end_matches(['+', '#']);
        self.generate_legal().into_iter().find(|&action| {
            self.action_to_human(&action)
                .trim_end_matches(['+', '#'])
                .eq(wanted)
        })
    }
}

/// Reads one of the optional counters of the position notation.
fn parse_counter(text: &str, what: &str) -> Result<u32, ParsePositionError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParsePositionError::new(format!(
            "the {what} must be a whole number, found `{text}`"
        )));
    }
    text.parse()
        .map_err(|_| ParsePositionError::new(format!("the {what} `{text}` is too large")))
}

/// Checks what the placement alone cannot: one king per side inside its castle, no more men
/// than a side starts with, no rook that should have been promoted.
fn validate_men(board: &Cells) -> Result<[Coord; 2], ParsePositionError> {
    let mut kings = [None, None];
    for color in Color::ALL {
        let own: Vec<(Coord, Piece)> = board.occupied().filter(|(_, p)| p.color == color).collect();
        let king_squares: Vec<Coord> = own
            .iter()
            .filter(|(_, p)| p.role == Role::King)
            .map(|(c, _)| *c)
            .collect();
        let [king] = king_squares[..] else {
            return Err(ParsePositionError::new(format!(
                "{color} must have exactly one king, found {}",
                king_squares.len()
            )));
        };
        if !is_castle(color, king) {
            return Err(ParsePositionError::new(format!(
                "the {color} king on {} is outside its castle",
                king.name()
            )));
        }
        if own.len() - 1 > MAX_MEN_PER_SIDE {
            return Err(ParsePositionError::new(format!(
                "{color} has {} rooks and queens; a side has at most {MAX_MEN_PER_SIDE}",
                own.len() - 1
            )));
        }
        if let Some((square, _)) = own.iter().find(|(c, p)| promotes(*p, *c)) {
            return Err(ParsePositionError::new(format!(
                "the {color} rook on {} stands in the enemy castle and would be a queen",
                square.name()
            )));
        }
        kings[color.index()] = Some(king);
    }
    match kings {
        [Some(white), Some(black)] => Ok([white, black]),
        _ => Err(ParsePositionError::new("each side needs a king")),
    }
}

/// Chad's board: uncheckered, with each side's castle and wall marked as zones.
fn chad_board() -> Vec<BoardSpec> {
    let mut board = BoardSpec::rectangle("main", SIZE, SIZE);
    board.checkered = false;
    let names = |squares: Vec<Coord>| squares.into_iter().map(Coord::name).collect();
    for color in Color::ALL {
        board.zones.push(Zone {
            kind: "castle".to_string(),
            color: Some(color),
            squares: names(castle_squares(color)),
        });
        board.zones.push(Zone {
            kind: "wall".to_string(),
            color: Some(color),
            squares: names(wall_squares(color)),
        });
    }
    vec![board]
}

impl Rules for Chad {
    type Action = ChadMove;

    const VARIANT: Variant = Variant::Chad;

    fn start() -> Self {
        match Chad::from_position(START_POSITION) {
            Ok(game) => game,
            // The constant is covered by the unit tests; an empty board is never reached.
            Err(_) => unreachable!("the start position constant parses"),
        }
    }

    fn from_position(notation: &str) -> Result<Self, ParsePositionError> {
        let fields: Vec<&str> = notation.split_whitespace().collect();
        let (placement, turn, castling, en_passant, counters) = match fields[..] {
            [placement, turn, castling, en_passant] => {
                (placement, turn, castling, en_passant, None)
            }
            [placement, turn, castling, en_passant, halfmove, fullmove] => (
                placement,
                turn,
                castling,
                en_passant,
                Some((halfmove, fullmove)),
            ),
            _ => {
                return Err(ParsePositionError::new(format!(
                    "expected 4 or 6 space-separated fields (placement, side to move, `-`, `-`, \
                     halfmove clock, move number), found {}",
                    fields.len()
                )))
            }
        };
        let board = Cells::from_mailbox(&Mailbox::parse_placement(
            Shape::rectangle(SIZE, SIZE),
            placement,
            |c| {
                Piece::from_fen_char(c)
                    .filter(|p| matches!(p.role, Role::King | Role::Rook | Role::Queen))
            },
        )?);
        let turn = Color::from_fen_field(turn).ok_or_else(|| {
            ParsePositionError::new(format!(
                "the side to move must be `w` or `b`, found `{turn}`"
            ))
        })?;
        if castling != "-" {
            return Err(ParsePositionError::new(format!(
                "Chad has no castling: the castling field must be `-`, found `{castling}`"
            )));
        }
        if en_passant != "-" {
            return Err(ParsePositionError::new(format!(
                "Chad has no en passant: the en-passant field must be `-`, found `{en_passant}`"
            )));
        }
        let (halfmove_clock, fullmove_number) = match counters {
            None => (0, 1),
            Some((halfmove, fullmove)) => (
                parse_counter(halfmove, "halfmove clock")?,
                parse_counter(fullmove, "move number")?,
            ),
        };
        if fullmove_number == 0 {
            return Err(ParsePositionError::new("the move number starts at 1"));
        }
        let kings = validate_men(&board)?;
        let ply = (fullmove_number - 1)
            .saturating_mul(2)
            .saturating_add(u32::from(turn == Color::Black));
        let mut game = Chad {
            board,
            turn,
            kings,
            halfmove_clock,
            fullmove_number,
            ply,
            history: History::default(),
            hash: 0,
            last: None,
        };
        if game.is_check(turn.other()) {
            return Err(ParsePositionError::new(format!(
                "the {} king is in check but it is {turn}'s move",
                turn.other()
            )));
        }
        game.hash = game.full_hash();
        game.history.push(game.hash, game.record());
        Ok(game)
    }

    fn position(&self) -> String {
        // The counters go after the placement in its own string, which has room for them:
        // every snapshot of a live game writes the position.
        let mut text = write_placement(&Shape::rectangle(SIZE, SIZE), |c| {
            self.piece_at(c).map(|p| p.fen_char())
        });
        text.push(' ');
        text.push(self.turn.fen_char());
        text.push_str(" - - ");
        push_number(&mut text, self.halfmove_clock);
        text.push(' ');
        push_number(&mut text, self.fullmove_number);
        text
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn legal_actions(&self) -> Vec<ChadMove> {
        if self.draw_by_rule().is_some() {
            return Vec::new();
        }
        self.generate_legal()
    }

    fn apply(&mut self, action: &ChadMove) -> Result<(), IllegalAction> {
        if self.draw_by_rule().is_some() {
            return Err(IllegalAction::GameOver);
        }
        // A legal move means the game is not over by mate or stalemate either, so the full
        // move list is only needed to explain a refusal.
        if !self.is_legal_move(*action) {
            return Err(if self.has_legal_move() {
                self.refusal(*action)
            } else {
                IllegalAction::GameOver
            });
        }
        let mut human = self
            .piece_at(action.from)
            .map(|piece| self.human_without_check_mark(*action, piece))
            .unwrap_or_default();
        self.play_unchecked(*action);
        human.push_str(self.check_mark(|| self.has_legal_move()));
        if let Some(last) = self.last.as_mut() {
            last.human = human;
        }
        Ok(())
    }

    fn last_action_human(&self) -> Option<String> {
        // Empty after `play_unchecked`, which writes no notation.
        let last = self.last.as_ref().filter(|last| !last.human.is_empty())?;
        Some(last.human.clone())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome_with(self.has_legal_move(), self.draw_by_rule())
    }

    fn parse_action(&self, text: &str) -> Result<ChadMove, ParseActionError> {
        let on_board = |c: Coord| c.file < SIZE && c.rank < SIZE;
        let machine = parse_square_prefix(text).and_then(|(from, rest)| {
            parse_square_prefix(rest)
                .filter(|(to, _)| on_board(from) && on_board(*to))
                .map(|(to, suffix)| (ChadMove { from, to }, suffix))
        });
        match machine {
            Some((action, "")) => Ok(action),
            Some((action, "q")) => {
                let promoting = self
                    .piece_at(action.from)
                    .is_some_and(|p| promotes(p, action.to));
                if promoting {
                    Ok(action)
                } else {
                    Err(ParseActionError::new(format!(
                        "`{text}`: only a rook ending in the enemy castle promotes, so only \
                         such a move may carry the `q` suffix"
                    )))
                }
            }
            _ => {
                // The human form (`Rd9`, `Kxe5`) is accepted too when it names a legal move.
                let looks_human = text.starts_with(['K', 'R', 'Q']) && text.len() <= 16;
                looks_human
                    .then(|| self.parse_human(text))
                    .flatten()
                    .ok_or_else(|| {
                        ParseActionError::new(format!(
                            "`{text}` is not a Chad move: write two squares such as `d5d9` or \
                             `a10a12` (or a legal move in the human form, such as `Rd9`)"
                        ))
                    })
            }
        }
    }

    fn action_to_machine(&self, action: &ChadMove) -> String {
        action.machine()
    }

    fn action_to_human(&self, action: &ChadMove) -> String {
        let Some(piece) = self
            .piece_at(action.from)
            .filter(|_| self.is_legal_move(*action))
        else {
            // Not a legal move here: there is nothing sensible to say beyond its squares.
            return action.machine();
        };
        let mut text = self.human_without_check_mark(*action, piece);
        let mut after = self.clone();
        after.play_unchecked(*action);
        text.push_str(after.check_mark(|| after.has_legal_move()));
        text
    }

    fn snapshot(&self) -> Snapshot {
        static BOARDS: OnceLock<Arc<[BoardSpec]>> = OnceLock::new();
        // Room for every man (two kings and their rooks and queens) at once: collected from a
        // filter, the list would grow three times.
        let mut pieces = Vec::with_capacity(2 * (MAX_MEN_PER_SIDE + 1));
        pieces.extend(
            self.board
                .occupied_in_label_order()
                .map(|(c, p)| PlacedPiece {
                    board: Cow::Borrowed("main"),
                    square: c.label(),
                    color: p.color,
                    role: p.role,
                    stats: None,
                    marks: Vec::new(),
                }),
        );
        let last_action = self.last.as_ref().map(|last| {
            let action = last.action;
            let mut effects = Vec::new();
            if let Some(captured) = last.captured {
                effects.push(format!(
                    "captured the {} {} on {}",
                    captured.color,
                    captured.role.as_str(),
                    action.to.name()
                ));
            }
            if promotes(last.moved, action.to) {
                effects.push(format!(
                    "the rook promoted to a queen on {}",
                    action.to.name()
                ));
            }
            Arc::new(LastAction {
                machine: action.machine(),
                human: last.human.clone(),
                squares: vec![
                    SquareRef::main(action.from.label()),
                    SquareRef::main(action.to.label()),
                ],
                rolls: Vec::new(),
                effects,
            })
        });
        let check = Color::ALL
            .into_iter()
            .filter(|&color| self.is_check(color))
            .map(|color| SquareRef::main(self.king_square(color).label()))
            .collect();
        // One search for the moves answers both the legal actions and the outcome.
        let moves = self.generate_legal();
        let draw = self.draw_by_rule();
        let outcome = self.outcome_with(!moves.is_empty(), draw);
        let legal_actions = if draw.is_some() {
            Vec::new()
        } else {
            // Every move is a pair of squares of the table, so the table sorts them.
            MOVE_TEXTS.sorted_labels(moves, |m| Some((m.from, m.to)), |m| m.machine())
        };
        Snapshot {
            variant: Variant::Chad,
            position: self.position(),
            boards: shared_boards(&BOARDS, chad_board),
            pieces,
            turn: self.turn,
            ply: self.ply,
            last_action,
            off_board: Vec::new(),
            check,
            legal_actions,
            outcome,
        }
    }

    fn play_unchecked(&mut self, action: &ChadMove) {
        Chad::play_unchecked(self, *action);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Label;

    fn sq(name: &str) -> Coord {
        Coord::parse(name).unwrap_or_else(|| panic!("bad square {name}"))
    }

    fn game(fen: &str) -> Chad {
        Chad::from_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn mv(text: &str) -> ChadMove {
        Chad::start()
            .parse_action(text)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The snapshot's labels of `moves`.
    fn labels<const N: usize>(moves: [ChadMove; N]) -> Vec<Label> {
        MOVE_TEXTS.sorted_labels(moves, |m| Some((m.from, m.to)), |m| m.machine())
    }

    #[test]
    fn borrowed_move_texts_are_the_machine_notation() {
        for from in Shape::rectangle(SIZE, SIZE).squares() {
            for to in Shape::rectangle(SIZE, SIZE).squares() {
                let action = ChadMove { from, to };
                let labels = labels([action]);
                assert!(matches!(labels[..], [Cow::Borrowed(_)]), "{from:?} {to:?}");
                assert_eq!(labels, [action.machine()]);
            }
        }
        // Off the board, the text is written as it comes.
        let outside = ChadMove {
            from: Coord::new(12, 0),
            to: Coord::new(0, 0),
        };
        assert_eq!(labels([outside]), [outside.machine()]);
    }

    #[test]
    fn a_cloned_history_shares_its_past_and_keeps_its_own_future() {
        // Two rooks stepping out and back: the start position comes back every four plies.
        let shuffle = ["e3e2", "h10h11", "e2e3", "h11h10"];
        let mut game = Chad::start();
        for text in shuffle {
            game.play_unchecked(mv(text));
        }
        assert_eq!(game.occurrences(), 2);
        let branch = game.clone();
        for text in shuffle {
            game.play_unchecked(mv(text));
        }
        assert_eq!(game.occurrences(), 3);
        assert_eq!(game.draw_by_rule(), Some(EndReason::Repetition));
        // The clone saw none of that.
        assert_eq!(branch.occurrences(), 2);
        assert_eq!(branch.history.iter().count(), 5);
        assert_eq!(game.history.iter().count(), 9);
        // A capture forgets the past in one game only.
        let mut cleared = branch.clone();
        cleared.history.clear();
        assert_eq!(cleared.history.iter().count(), 0);
        assert_eq!(branch.history.iter().count(), 5);
    }

    #[test]
    fn positions_that_share_a_hash_but_not_a_board_are_not_a_repetition() {
        let start = Chad::start();
        let mut other = Chad::start();
        other.play_unchecked(mv("e3e2"));
        // A forged collision: another board under the start position's hash.
        let mut history = History::default();
        history.push(start.hash, start.record());
        history.push(start.hash, other.record());
        assert_eq!(history.occurrences_of_latest(), 1);
        history.push(start.hash, start.record());
        assert_eq!(history.occurrences_of_latest(), 2);
    }

    fn names(squares: Vec<Coord>) -> Vec<String> {
        squares.into_iter().map(Coord::name).collect()
    }

    #[test]
    fn castles_and_walls_are_the_briefs_squares() {
        assert_eq!(
            names(castle_squares(Color::White)),
            ["c3", "d3", "e3", "c4", "d4", "e4", "c5", "d5", "e5"]
        );
        assert_eq!(
            names(wall_squares(Color::White)),
            ["c2", "d2", "e2", "b3", "b4", "b5", "f3", "f4", "f5", "c6", "d6", "e6"]
        );
        assert_eq!(
            names(wall_squares(Color::Black)),
            ["h7", "i7", "j7", "g8", "g9", "g10", "k8", "k9", "k10", "h11", "i11", "j11"]
        );
        let board = Shape::rectangle(SIZE, SIZE);
        for color in Color::ALL {
            let walls: Vec<Coord> = board.squares().filter(|&c| is_wall(color, c)).collect();
            assert_eq!(walls.len(), 12);
            assert!(walls.iter().all(|c| wall_squares(color).contains(c)));
        }
        // The ring's corners are not wall.
        for corner in ["b2", "f2", "b6", "f6", "g7", "k7", "g11", "k11"] {
            assert!(
                Color::ALL.iter().all(|&c| !is_wall(c, sq(corner))),
                "{corner}"
            );
        }
    }

    #[test]
    fn capture_rule_has_exactly_two_clauses() {
        // White on Black's wall takes into Black's castle, from any distance.
        assert!(line_capture_allowed(Color::White, sq("g9"), sq("h9")));
        assert!(line_capture_allowed(Color::White, sq("g9"), sq("j9")));
        // Black in its castle takes a White man on Black's wall.
        assert!(line_capture_allowed(Color::Black, sq("h9"), sq("g9")));
        assert!(line_capture_allowed(Color::Black, sq("h10"), sq("h11")));
        // Wall to wall across the castle, castle to castle, the queen in the enemy castle.
        assert!(!line_capture_allowed(Color::White, sq("g9"), sq("k9")));
        assert!(!line_capture_allowed(Color::White, sq("h9"), sq("j9")));
        assert!(!line_capture_allowed(Color::Black, sq("h9"), sq("j9")));
        // Own wall, open board, enemy castle from outside the wall.
        assert!(!line_capture_allowed(Color::White, sq("c6"), sq("c9")));
        assert!(!line_capture_allowed(Color::White, sq("a1"), sq("a5")));
        assert!(!line_capture_allowed(Color::White, sq("h12"), sq("h10")));
    }

    #[test]
    fn start_position_round_trips_and_has_fifty_four_moves() {
        let start = Chad::start();
        assert_eq!(start.position(), START_POSITION);
        assert_eq!(start.legal_actions().len(), 54);
        assert_eq!(start.outcome(), None);
        assert_eq!(start.ply(), 0);
    }

    #[test]
    fn refused_positions_say_why() {
        for bad in [
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w KQkq - 0 1",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - e3 0 1",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - - 0",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - - 0 0",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 x - -",
            "12/12/7rrr2/7rrr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - -",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKK7/2RRR7/12/12 w - -",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2R1R7/2RRR6K/12/12 w - -",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRN7/12/12 w - -",
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/R11 w - -",
            "12/12/7rRr2/7rkr2/7r1r2/12/12/2RRR7/2RKR7/2R1R7/12/12 b - -",
            "12/12/12/8k3/12/12/12/12/3K8/3r8/12/12 b - -",
        ] {
            assert!(Chad::from_position(bad).is_err(), "{bad}");
        }
        let short = game("12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - -");
        assert_eq!(short.position(), START_POSITION);
    }

    #[test]
    fn promotion_happens_on_plain_moves_and_captures() {
        let mut plain = game("12/12/12/8k3/12/12/12/12/3K8/12/12/7R4 w - - 0 1");
        assert!(plain.apply(&mv("h1h8")).is_ok());
        assert_eq!(
            plain.piece_at(sq("h8")),
            Some(Piece::new(Color::White, Role::Queen))
        );
        assert_eq!(plain.halfmove_clock, 0);

        let mut capture = game("12/12/7r4/6Rrk3/12/12/12/12/3K8/12/12/12 w - - 7 1");
        let before = capture.clone();
        assert_eq!(before.action_to_human(&mv("g9h9")), "Rxh9=Q+");
        assert!(capture.apply(&mv("g9h9")).is_ok());
        assert_eq!(
            capture.piece_at(sq("h9")),
            Some(Piece::new(Color::White, Role::Queen))
        );
        let snapshot = capture.snapshot();
        let last = snapshot
            .last_action
            .unwrap_or_else(|| panic!("no last action"));
        assert_eq!(last.human, "Rxh9=Q+");
        assert_eq!(last.effects.len(), 2);
    }

    #[test]
    fn refusals_explain_the_chad_rules_and_change_nothing() {
        let mut start = Chad::start();
        let code = |game: &mut Chad, text: &str| {
            let before = game.position();
            let action = game.parse_action(text).unwrap_or_else(|e| panic!("{e}"));
            let code = game
                .apply(&action)
                .map(|_| "ok")
                .unwrap_or_else(|e| e.code());
            assert_eq!(game.position(), before);
            code
        };
        assert_eq!(code(&mut start, "d4b3"), "king_leaves_castle");
        assert_eq!(code(&mut start, "d4d3"), "illegal_action");
        assert_eq!(code(&mut start, "a1a2"), "empty_square");
        assert_eq!(code(&mut start, "h8h7"), "not_your_piece");
        // A White rook on e9 cannot take the rook on h9: e9 is not Black's wall.
        let mut blocked = game("12/12/7rrr2/4R2rkr2/7rrr2/12/12/2R1R7/2RKR7/2RRR7/12/12 w - - 0 1");
        assert_eq!(code(&mut blocked, "e9h9"), "capture_not_allowed");
        assert_eq!(code(&mut blocked, "e9i9"), "illegal_action");
    }

    #[test]
    fn q_suffix_only_on_promoting_moves() {
        let game = game("12/12/12/8k3/12/12/12/12/3K8/12/12/7R4 w - - 0 1");
        assert_eq!(game.parse_action("h1h8q"), Ok(mv("h1h8")));
        assert!(game.parse_action("h1h7q").is_err());
        assert!(game.parse_action("h1m1").is_err());
        assert!(game.parse_action("h1h8Q").is_err());
        assert_eq!(game.parse_action("Rh8=Q"), Ok(mv("h1h8")));
        assert_eq!(game.parse_action("Rh7"), Ok(mv("h1h7")));
        assert!(game.parse_action("Rh13").is_err());
    }

    #[test]
    fn human_notation_disambiguates_and_marks_mate() {
        let start = Chad::start();
        assert_eq!(start.action_to_human(&mv("e5e9")), "Re9");
        assert_eq!(start.action_to_human(&mv("c3a3")), "Ra3");
        // Two rooks on rank 1 can both reach f1.
        let pair = game("12/12/12/8k3/12/12/12/12/3K8/12/12/R10R w - - 0 1");
        assert_eq!(pair.action_to_human(&mv("a1f1")), "Raf1");
        let check = game("12/12/12/8k3/12/12/12/12/3K8/12/R11/1R10 w - - 0 1");
        assert_eq!(check.action_to_human(&mv("b1i1")), "Ri1+");
    }
}
