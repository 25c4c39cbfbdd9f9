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
//!
//! [`moves`] generates and checks moves and finds checks; [`notation`] reads and writes
//! positions and actions; this module keeps the board, the game state and its history and
//! implements [`Rules`].

mod moves;
mod notation;
#[cfg(test)]
mod tests;

use crate::error::{IllegalAction, ParseActionError, ParsePositionError};
use crate::geometry::{label_order, Coord, Mailbox, Shape};
use crate::history::History;
use crate::snapshot::{shared_boards, BoardSpec, LastAction, PlacedPiece, SquareRef, Zone};
use crate::{Color, EndReason, Outcome, Piece, Role, Rules, Snapshot, Variant};
use moves::is_line_attacked;
use notation::MOVE_TEXTS;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

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
        Chad::parse_position(notation)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn position(&self) -> String {
        self.write_position()
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
        self.parse_action_text(text)
    }

    fn action_to_machine(&self, action: &ChadMove) -> String {
        action.machine()
    }

    fn action_to_human(&self, action: &ChadMove) -> String {
        self.human(action)
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
