//! The Suicide position as bitboards, with copy-make move application, a non-allocating move
//! generator and the bulk-counting perft the engine's speed rests on.
//!
//! Suicide has no check, so every pseudo-legal move is legal and generation needs no pin or
//! check logic: the only twist is compulsory capture, i.e. if any capture (en passant included)
//! exists, only captures are legal.

use crate::bitboard::{
    bit, sliders, SliderTables, Squares, FILE_A, FILE_H, KING_ATTACKS, KNIGHT_ATTACKS,
    PAWN_ATTACKS, RANK_1, RANK_3, RANK_6, RANK_8,
};
use crate::error::ParsePositionError;
use crate::geometry::{push_number, Coord, Mailbox, Shape};
use crate::types::{Color, Piece, Role};

/// Role indices into [`Position::by_role`]. Index 0 (the pawn) doubles as "no promotion" in
/// [`Move::promotion`], since nothing promotes to a pawn.
pub const PAWN: u8 = 0;
pub const KNIGHT: u8 = 1;
pub const BISHOP: u8 = 2;
pub const ROOK: u8 = 3;
pub const QUEEN: u8 = 4;
pub const KING: u8 = 5;

/// The role with index `index` ([`PAWN`]…[`KING`]): Suicide's roles are the first six of
/// [`Role::ALL`], in the same order.
#[inline]
pub fn role_of(index: u8) -> Role {
    Role::ALL[usize::from(index)]
}

/// What a pawn may promote to: every piece but the pawn, the king included.
const PROMOTIONS: [u8; 5] = [QUEEN, ROOK, BISHOP, KNIGHT, KING];

/// The role index of a shared [`Role`], if Suicide has that role.
pub fn role_index(role: Role) -> Option<u8> {
    Role::ALL
        .iter()
        .take(6)
        .position(|&r| r == role)
        .map(|i| i as u8)
}

/// A side never has more than the 16 men it started with, and never more than 8 pawns.
pub const MAX_PIECES_PER_SIDE: u32 = 16;
pub const MAX_PAWNS_PER_SIDE: u32 = 8;

/// Enough room for every move of any accepted position: at most 16 men per side, each with at
/// most 27 moves (a queen's best; a pawn has at most 3 targets x 5 promotions = 15).
pub const MAX_MOVES: usize = 432;

/// A move as the generator produces it: squares, the moving role and the promotion (or
/// [`PAWN`] for none). Whether it captures is read from the position it is played in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    pub role: u8,
    pub promotion: u8,
}

/// A fixed-size move buffer, so generation never allocates.
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList {
            moves: [Move::default(); MAX_MOVES],
            len: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, m: Move) {
        // The capacity bound holds for every position `from_fen` accepts, so nothing is ever
        // dropped here; the check only keeps a broken invariant from panicking.
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = m;
            self.len += 1;
        }
    }

    pub fn as_slice(&self) -> &[Move] {
        self.moves.get(..self.len).unwrap_or(&[])
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Random keys for Zobrist hashing, computed at compile time from a fixed seed.
struct Zobrist {
    pieces: [[[u64; 64]; 6]; 2],
    black_to_move: u64,
    ep_file: [u64; 8],
}

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const fn build_zobrist() -> Zobrist {
    let mut keys = Zobrist {
        pieces: [[[0; 64]; 6]; 2],
        black_to_move: 0,
        ep_file: [0; 8],
    };
    let mut state: u64 = 0x5_1c1d_e0dd_ba11;
    let mut color = 0;
    while color < 2 {
        let mut role = 0;
        while role < 6 {
            let mut square = 0;
            while square < 64 {
                let (next, value) = splitmix(state);
                state = next;
                keys.pieces[color][role][square] = value;
                square += 1;
            }
            role += 1;
        }
        color += 1;
    }
    let (next, value) = splitmix(state);
    state = next;
    keys.black_to_move = value;
    let mut file = 0;
    while file < 8 {
        let (next, value) = splitmix(state);
        state = next;
        keys.ep_file[file] = value;
        file += 1;
    }
    keys
}

static ZOBRIST: Zobrist = build_zobrist();

#[inline(always)]
fn piece_key(color: usize, role: u8, square: u8) -> u64 {
    ZOBRIST.pieces[color][usize::from(role)][usize::from(square)]
}

#[inline(always)]
fn ep_key(square: u8) -> u64 {
    ZOBRIST.ep_file[usize::from(square % 8)]
}

/// A Suicide position: placement, side to move, en passant square and move counters, plus
/// its Zobrist key. `Copy`, so moves are applied by copy-make.
///
/// ```text
///   8  r n b q k b n r
///   7  p p p p p p p p      rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1
///   …
///   1  R N B Q K B N R      bit 0 = a1, bit 7 = h1, bit 63 = h8
///      a b c d e f g h
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// White's men (index 0) and Black's (index 1).
    pub by_color: [u64; 2],
    /// Men of each role, both colours, indexed by [`PAWN`]…[`KING`].
    pub by_role: [u64; 6],
    pub turn: Color,
    /// The square a pawn may capture onto en passant. Set only when an enemy pawn can
    /// actually make that capture, so that positions compare (and repeat) as FIDE defines it.
    pub ep: Option<u8>,
    /// Plies since the last capture or pawn move.
    pub halfmove: u32,
    pub fullmove: u32,
    pub key: u64,
}

impl Position {
    /// The standard start position.
    pub fn start() -> Position {
        let mut position = Position::empty(Color::White);
        let back = [ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK];
        for (file, role) in (0u8..).zip(back) {
            position.put(0, role, file);
            position.put(0, PAWN, 8 + file);
            position.put(1, PAWN, 48 + file);
            position.put(1, role, 56 + file);
        }
        position
    }

    fn empty(turn: Color) -> Position {
        Position {
            by_color: [0; 2],
            by_role: [0; 6],
            turn,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            key: if turn == Color::Black {
                ZOBRIST.black_to_move
            } else {
                0
            },
        }
    }

    fn put(&mut self, color: usize, role: u8, square: u8) {
        self.by_color[color] |= bit(square);
        self.by_role[usize::from(role)] |= bit(square);
        self.key ^= piece_key(color, role, square);
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> u64 {
        self.by_color[0] | self.by_color[1]
    }

    /// The colour and role index on `square`, if any.
    pub fn piece_at(&self, square: u8) -> Option<(Color, u8)> {
        let b = bit(square);
        let color = if self.by_color[0] & b != 0 {
            Color::White
        } else if self.by_color[1] & b != 0 {
            Color::Black
        } else {
            return None;
        };
        self.role_at(square).map(|role| (color, role))
    }

    #[inline(always)]
    pub fn role_at(&self, square: u8) -> Option<u8> {
        let b = bit(square);
        (0u8..6).find(|&role| self.by_role[usize::from(role)] & b != 0)
    }

    /// How many men `color` has.
    pub fn count(&self, color: Color) -> u32 {
        self.by_color[color.index()].count_ones()
    }

    /// Reads a FEN. The castling field is checked for shape and ignored; the move counters
    /// may be left out.
    ///
    /// # Errors
    /// Malformed text, or a position that cannot arise in Suicide (a pawn on rank 1 or 8, more
    /// than 16 men or 8 pawns a side, an en passant square no double step could have made).
    pub fn from_fen(text: &str) -> Result<Position, ParsePositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [placement, turn, castling, ep, counters @ ..] = fields.as_slice() else {
            return Err(ParsePositionError::new(
                "expected a FEN: placement, side to move, castling, en passant and optionally the two move counters",
            ));
        };
        if counters.len() > 2 {
            return Err(ParsePositionError::new("too many fields for a FEN"));
        }
        let turn = Color::from_fen_field(turn).ok_or_else(|| {
            ParsePositionError::new(format!("side to move must be `w` or `b`, not `{turn}`"))
        })?;
        let board = Mailbox::parse_placement(Shape::rectangle(8, 8), placement, |c| {
            Piece::from_fen_char(c).filter(|p| role_index(p.role).is_some())
        })?;
        let mut position = Position::empty(turn);
        for (coord, piece) in board.occupied() {
            let role = role_index(piece.role).unwrap_or(PAWN);
            position.put(piece.color.index(), role, coord.rank * 8 + coord.file);
        }
        position.check_material()?;
        check_castling_field(castling)?;
        position.set_ep_from_fen(ep)?;
        let mut numbers = counters.iter().map(|field| {
            field
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= 1_000_000)
                .ok_or_else(|| ParsePositionError::new(format!("bad move counter `{field}`")))
        });
        position.halfmove = numbers.next().transpose()?.unwrap_or(0);
        position.fullmove = numbers.next().transpose()?.unwrap_or(1);
        if position.fullmove == 0 {
            return Err(ParsePositionError::new("the move number starts at 1"));
        }
        Ok(position)
    }

    fn check_material(&self) -> Result<(), ParsePositionError> {
        if self.by_role[usize::from(PAWN)] & (RANK_1 | RANK_8) != 0 {
            return Err(ParsePositionError::new("a pawn stands on rank 1 or 8"));
        }
        for color in Color::ALL {
            let men = self.by_color[color.index()];
            if men.count_ones() > MAX_PIECES_PER_SIDE {
                return Err(ParsePositionError::new(format!(
                    "{color} has more than {MAX_PIECES_PER_SIDE} men"
                )));
            }
            if (men & self.by_role[usize::from(PAWN)]).count_ones() > MAX_PAWNS_PER_SIDE {
                return Err(ParsePositionError::new(format!(
                    "{color} has more than {MAX_PAWNS_PER_SIDE} pawns"
                )));
            }
        }
        Ok(())
    }

    /// Checks the en passant field against the board: it must lie behind an enemy pawn that
    /// could just have made a double step. A valid square that no pawn can capture on is
    /// dropped (so the position prints `-` there).
    fn set_ep_from_fen(&mut self, field: &str) -> Result<(), ParsePositionError> {
        if field == "-" {
            return Ok(());
        }
        let bad =
            |why: &str| ParsePositionError::new(format!("bad en passant square `{field}`: {why}"));
        let coord = Coord::parse(field)
            .filter(|c| c.file < 8 && c.rank < 8)
            .ok_or_else(|| bad("not a square"))?;
        let square = coord.rank * 8 + coord.file;
        let (ep_rank, pushed, origin) = match self.turn {
            Color::White => (5, square.wrapping_sub(8), square.wrapping_add(8)),
            Color::Black => (2, square.wrapping_add(8), square.wrapping_sub(8)),
        };
        if coord.rank != ep_rank {
            return Err(bad(
                "must be on rank 6 with White to move, rank 3 with Black to move",
            ));
        }
        let them = self.turn.other().index();
        if self.by_color[them] & self.by_role[usize::from(PAWN)] & bit(pushed) == 0 {
            return Err(bad("no enemy pawn stands in front of it"));
        }
        if self.occupied() & (bit(square) | bit(origin)) != 0 {
            return Err(bad("the double step it implies crossed an occupied square"));
        }
        self.set_ep_if_capturable(square);
        Ok(())
    }

    /// Records `square` as the en passant square if a pawn of the side to move can take there.
    fn set_ep_if_capturable(&mut self, square: u8) {
        let us = self.turn.index();
        let capturers = PAWN_ATTACKS[1 - us][usize::from(square)]
            & self.by_role[usize::from(PAWN)]
            & self.by_color[us];
        if capturers != 0 {
            self.ep = Some(square);
            self.key ^= ep_key(square);
        }
    }

    /// Writes the FEN. Castling is always `-`. Written straight from the bitboards into one
    /// string: a live game sends the position with every move.
    pub fn fen(&self) -> String {
        let mut fen = String::with_capacity(96);
        for rank in (0..8u8).rev() {
            let mut empty = 0u8;
            for file in 0..8u8 {
                match self.piece_at(rank * 8 + file) {
                    Some((color, role)) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        fen.push(Piece::new(color, role_of(role)).fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push(' ');
        fen.push(self.turn.fen_char());
        fen.push_str(" - ");
        match self.ep {
            Some(square) => push_square_name(square, &mut fen),
            None => fen.push('-'),
        }
        fen.push(' ');
        push_number(&mut fen, self.halfmove);
        fen.push(' ');
        push_number(&mut fen, self.fullmove);
        fen
    }

    /// Calls `visit(role, from, attacks)` for every non-pawn man of the side to move.
    #[inline(always)]
    fn for_each_piece(&self, tables: &SliderTables, mut visit: impl FnMut(u8, u8, u64)) {
        let ours = self.by_color[self.turn.index()];
        let occupied = self.occupied();
        let roles = &self.by_role;
        for from in Squares(ours & roles[usize::from(KNIGHT)]) {
            visit(KNIGHT, from, KNIGHT_ATTACKS[usize::from(from)]);
        }
        for from in Squares(ours & roles[usize::from(BISHOP)]) {
            visit(BISHOP, from, tables.bishop(from, occupied));
        }
        for from in Squares(ours & roles[usize::from(ROOK)]) {
            visit(ROOK, from, tables.rook(from, occupied));
        }
        for from in Squares(ours & roles[usize::from(QUEEN)]) {
            visit(QUEEN, from, tables.queen(from, occupied));
        }
        for from in Squares(ours & roles[usize::from(KING)]) {
            visit(KING, from, KING_ATTACKS[usize::from(from)]);
        }
    }

    /// The targets of the side to move's pawns, set-wise, as "to" squares together with the
    /// step back to the "from" square: (left captures, right captures, single pushes, double
    /// pushes), and the pawns that can take en passant.
    #[inline(always)]
    fn pawn_targets(&self) -> PawnTargets {
        let us = self.turn.index();
        let pawns = self.by_color[us] & self.by_role[usize::from(PAWN)];
        let theirs = self.by_color[1 - us];
        let empty = !self.occupied();
        let ep_capturers = match self.ep {
            Some(square) => PAWN_ATTACKS[1 - us][usize::from(square)] & pawns,
            None => 0,
        };
        if self.turn == Color::White {
            let single = (pawns << 8) & empty;
            PawnTargets {
                west: ((pawns & !FILE_A) << 7) & theirs,
                east: ((pawns & !FILE_H) << 9) & theirs,
                single,
                double: ((single & RANK_3) << 8) & empty,
                ep_capturers,
                west_back: -7,
                east_back: -9,
                forward: 8,
                promotion_rank: RANK_8,
            }
        } else {
            let single = (pawns >> 8) & empty;
            PawnTargets {
                west: ((pawns & !FILE_A) >> 9) & theirs,
                east: ((pawns & !FILE_H) >> 7) & theirs,
                single,
                double: ((single & RANK_6) >> 8) & empty,
                ep_capturers,
                west_back: 9,
                east_back: 7,
                forward: -8,
                promotion_rank: RANK_1,
            }
        }
    }

    /// The number of legal moves, without generating them: perft's last ply.
    #[inline]
    pub fn count_moves(&self, tables: &SliderTables) -> u64 {
        u64::from(self.count_moves_and_captures(tables).0)
    }

    /// The number of legal moves and how many of them capture (all of them or none, under
    /// compulsory capture), without generating them.
    #[inline]
    pub fn count_moves_and_captures(&self, tables: &SliderTables) -> (u32, u32) {
        let theirs = self.by_color[1 - self.turn.index()];
        let empty = !self.occupied();
        let mut captures = 0u32;
        let mut quiets = 0u32;
        self.for_each_piece(tables, |_, _, attacks| {
            captures += (attacks & theirs).count_ones();
            quiets += (attacks & empty).count_ones();
        });
        let pawns = self.pawn_targets();
        let with_promotions = |targets: u64| {
            (targets & !pawns.promotion_rank).count_ones()
                + 5 * (targets & pawns.promotion_rank).count_ones()
        };
        captures += with_promotions(pawns.west) + with_promotions(pawns.east);
        captures += pawns.ep_capturers.count_ones();
        if captures > 0 {
            return (captures, captures);
        }
        (
            quiets + with_promotions(pawns.single) + pawns.double.count_ones(),
            0,
        )
    }

    /// Every capture of the side to move (en passant included).
    pub fn generate_captures(&self, tables: &SliderTables, list: &mut MoveList) {
        let theirs = self.by_color[1 - self.turn.index()];
        self.for_each_piece(tables, |role, from, attacks| {
            push_all(list, role, from, attacks & theirs);
        });
        let pawns = self.pawn_targets();
        push_pawns(list, pawns.west, pawns.west_back, pawns.promotion_rank);
        push_pawns(list, pawns.east, pawns.east_back, pawns.promotion_rank);
        if let Some(to) = self.ep {
            for from in Squares(pawns.ep_capturers) {
                list.push(Move {
                    from,
                    to,
                    role: PAWN,
                    promotion: PAWN,
                });
            }
        }
    }

    /// Every non-capturing move of the side to move, legal or not under compulsory capture.
    pub fn generate_quiets(&self, tables: &SliderTables, list: &mut MoveList) {
        let empty = !self.occupied();
        self.for_each_piece(tables, |role, from, attacks| {
            push_all(list, role, from, attacks & empty);
        });
        let pawns = self.pawn_targets();
        push_pawns(list, pawns.single, -pawns.forward, pawns.promotion_rank);
        push_pawns(list, pawns.double, -2 * pawns.forward, pawns.promotion_rank);
    }

    /// The legal moves: the captures if there are any, else the quiet moves.
    pub fn generate_legal(&self, tables: &SliderTables, list: &mut MoveList) {
        self.generate_captures(tables, list);
        if list.is_empty() {
            self.generate_quiets(tables, list);
        }
    }

    /// Whether the side to move has any legal move.
    pub fn has_moves(&self) -> bool {
        self.count_moves(sliders()) > 0
    }

    /// Whether `m` (a move of the side to move) takes something.
    pub fn is_capture(&self, m: Move) -> bool {
        self.by_color[1 - self.turn.index()] & bit(m.to) != 0
            || (m.role == PAWN && self.ep == Some(m.to))
    }

    /// The position after `m`, which must come from this position's generator.
    #[inline]
    pub fn play(&self, m: Move) -> Position {
        let us = self.turn.index();
        let them = 1 - us;
        let mut next = *self;
        if let Some(square) = self.ep {
            next.ep = None;
            next.key ^= ep_key(square);
        }
        let mut irreversible = m.role == PAWN;
        let to_bit = bit(m.to);
        if self.by_color[them] & to_bit != 0 {
            if let Some(taken) = self.role_at(m.to) {
                next.by_role[usize::from(taken)] ^= to_bit;
                next.by_color[them] ^= to_bit;
                next.key ^= piece_key(them, taken, m.to);
            }
            irreversible = true;
        } else if m.role == PAWN && self.ep == Some(m.to) {
            let taken = if us == 0 { m.to - 8 } else { m.to + 8 };
            next.by_role[usize::from(PAWN)] ^= bit(taken);
            next.by_color[them] ^= bit(taken);
            next.key ^= piece_key(them, PAWN, taken);
        }
        let placed = if m.promotion == PAWN {
            m.role
        } else {
            m.promotion
        };
        next.by_role[usize::from(m.role)] ^= bit(m.from);
        next.by_role[usize::from(placed)] ^= to_bit;
        next.by_color[us] ^= bit(m.from) | to_bit;
        next.key ^= piece_key(us, m.role, m.from) ^ piece_key(us, placed, m.to);
        next.turn = self.turn.other();
        next.key ^= ZOBRIST.black_to_move;
        if m.role == PAWN && m.from.abs_diff(m.to) == 16 {
            next.set_ep_if_capturable((m.from + m.to) / 2);
        }
        next.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
        if self.turn == Color::Black {
            next.fullmove += 1;
        }
        next
    }

    /// Whether the game is drawn by the 50-move rule or by threefold repetition. `history`
    /// holds the keys of the game so far, this position's last.
    pub fn is_drawn_by_rule(&self, history: &[u64]) -> bool {
        self.halfmove >= 100 || is_threefold(history, self.halfmove)
    }

    /// Leaf count `depth` plies deep. `history` holds the keys of the path so far with this
    /// position's key last; it is restored before returning.
    pub fn perft(&self, depth: u32, history: &mut Vec<u64>, tables: &SliderTables) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_drawn_by_rule(history) {
            return 0;
        }
        if depth == 1 {
            return self.count_moves(tables);
        }
        let mut list = MoveList::new();
        self.generate_legal(tables, &mut list);
        let mut total = 0;
        for &m in list.as_slice() {
            let child = self.play(m);
            history.push(child.key);
            total += child.perft(depth - 1, history, tables);
            history.pop();
        }
        total
    }
}

/// Whether the last key of `history` occurs twice more among the earlier positions with the
/// same side to move, looking back no further than the last irreversible move.
pub fn is_threefold(history: &[u64], halfmove: u32) -> bool {
    // A position needs at least four plies to recur, so a threefold needs eight.
    if halfmove < 8 {
        return false;
    }
    let Some((&current, earlier)) = history.split_last() else {
        return false;
    };
    let reach = earlier.len().min(halfmove as usize);
    let seen = earlier
        .iter()
        .rev()
        .take(reach)
        .skip(3)
        .step_by(2)
        .filter(|&&key| key == current)
        .count();
    seen >= 2
}

struct PawnTargets {
    west: u64,
    east: u64,
    single: u64,
    double: u64,
    ep_capturers: u64,
    /// What to add to a target square to get back to the pawn, per kind of step.
    west_back: i8,
    east_back: i8,
    forward: i8,
    promotion_rank: u64,
}

#[inline(always)]
fn push_all(list: &mut MoveList, role: u8, from: u8, targets: u64) {
    for to in Squares(targets) {
        list.push(Move {
            from,
            to,
            role,
            promotion: PAWN,
        });
    }
}

#[inline(always)]
fn push_pawns(list: &mut MoveList, targets: u64, back: i8, promotion_rank: u64) {
    for to in Squares(targets) {
        let from = to.wrapping_add_signed(back);
        if bit(to) & promotion_rank != 0 {
            for promotion in PROMOTIONS {
                list.push(Move {
                    from,
                    to,
                    role: PAWN,
                    promotion,
                });
            }
        } else {
            list.push(Move {
                from,
                to,
                role: PAWN,
                promotion: PAWN,
            });
        }
    }
}

/// Accepts `-` or castling letters (`KQkq`, or Shredder-FEN files), which Suicide ignores.
fn check_castling_field(field: &str) -> Result<(), ParsePositionError> {
    let valid = field == "-"
        || (field.len() <= 4
            && field
                .chars()
                .all(|c| matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h')));
    if valid {
        Ok(())
    } else {
        Err(ParsePositionError::new(format!(
            "bad castling field `{field}` (it is ignored, but must look like `-` or `KQkq`)"
        )))
    }
}

/// The name of a square index (`e4`).
pub fn square_name(square: u8) -> String {
    square_coord(square).name()
}

/// Appends the square's name to `out` (the notations build each action's text in one string).
pub fn push_square_name(square: u8, out: &mut String) {
    square_coord(square).push_name(out);
}

/// The square index (0 = a1, 63 = h8) as file and rank.
pub fn square_coord(square: u8) -> Coord {
    Coord::new(square % 8, square / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perft_of(fen: &str, depth: u32) -> u64 {
        let position = Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
        position.perft(depth, &mut vec![position.key], sliders())
    }

    #[test]
    fn start_position_perft_to_depth_four() {
        let start = Position::start();
        let counts: Vec<u64> = (1..=4)
            .map(|d| start.perft(d, &mut vec![start.key], sliders()))
            .collect();
        assert_eq!(counts, [20, 400, 8067, 153_299]);
    }

    #[test]
    fn fen_round_trips_and_matches_the_built_start() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        let parsed = Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed, Position::start());
        assert_eq!(parsed.fen(), fen);
        for fen in [
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
            "r6k/1P4p1/8/2b1N3/p7/7q/5PP1/R3K2R b - - 17 143",
            "8/8/8/8/4Pp2/8/8/8 b - e3 0 1",
            "8/8/8/8/8/8/8/8 w - - 0 1",
        ] {
            let parsed = Position::from_fen(fen).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed.fen(), fen);
        }
    }

    #[test]
    fn keys_after_moves_equal_keys_of_the_same_position_read_from_fen() {
        let start = Position::start();
        let mut list = MoveList::new();
        start.generate_legal(sliders(), &mut list);
        for &m in list.as_slice() {
            let child = start.play(m);
            let reread = Position::from_fen(&child.fen()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(reread, child, "{m:?}");
        }
    }

    #[test]
    fn promotions_count_five_ways() {
        assert_eq!(perft_of("8/P7/8/8/8/8/8/k7 w - - 0 1", 1), 5);
    }

    #[test]
    fn threefold_needs_two_earlier_equal_keys_with_the_same_side_to_move() {
        let keys = [1, 2, 3, 4, 1, 2, 3, 4, 1];
        assert!(is_threefold(&keys, 8));
        assert!(!is_threefold(&keys[1..], 8));
        assert!(!is_threefold(&keys, 7));
    }
}
