//! Davey Drehs' dice-combat chess, "Execute! the Game" (Davey W. Drehs, 2009).
//!
//! Orthodox movement without check: pieces have life points, armor and weapon dice, and a
//! capture is an attack resolved with dice (d20 + ears > armor to hit, weapon dice for damage,
//! an automatic counterattack by a survivor). The game is won by killing the enemy king.
//! Special abilities: pawn dyads, knight teleport, bishop return, rook cannon, king armor and
//! healing. `docs/rules/drehs.md` has the rules as implemented and every decision.
//!
//! ```text
//!   a b c d e f g h        every piece: life / armor / weapon
//! 8 r n b q k b n r        P 4/4/d4 (dyad: 2d4, armor 8)   N 6/6/d6   B 6/6/d6
//! 7 p p p p p p p p        R 8/8/2d4 (+ cannon)            Q 12/12/2d6
//! 2 P P P P P P P P        K 1/(6 + adjacent friends' armor, max 19)/d4
//! 1 R N B Q K B N R
//! ```
//!
//! Dice are an input: the game carries a [`DiceSource`] (seed, game id, next roll index), so
//! a game replays exactly from its seed and its actions. Submodules: [`notation`] (position
//! and action text) and [`record`] (game record files and their verification).

pub mod notation;
pub mod record;

use crate::bitboard::{sliders, KING_ATTACKS, KNIGHT_ATTACKS};
use crate::dice::DiceSource;
use crate::geometry::{set_bits, Coord, Mailbox, Shape, SquareIndex, KING_STEPS};
use crate::snapshot::{
    shared_boards, BoardSpec, Label, LastAction, OffBoardPiece, PieceStats, PlacedPiece, Roll,
    SquareRef,
};
use crate::{
    Color, EndReason, IllegalAction, Outcome, ParseActionError, ParsePositionError, Piece, Role,
    Rules, Snapshot, Variant,
};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The highest armor any piece can have (the king's cap).
const MAX_ARMOR: u32 = 19;
/// The king's own armor before absorbing its neighbours'.
const KING_BASE_ARMOR: u32 = 6;
/// Life points a king heals on each adjacent friend.
const HEAL_AMOUNT: u8 = 4;
/// Life points of a bishop returning from the dead.
const RETURN_LIFE: u8 = 3;
/// The cannon's range in squares.
const CANNON_RANGE: std::ops::RangeInclusive<u8> = 2..=5;
/// Plies without a pawn move, a kill or a life-point change that draw the game.
const FIFTY_MOVE_PLIES: u32 = 100;
/// The home squares of the four original bishops, in the order of [`Drehs::returns`].
const BISHOP_HOMES: [(Color, Coord); 4] = [
    (Color::White, Coord::new(2, 0)),
    (Color::White, Coord::new(5, 0)),
    (Color::Black, Coord::new(2, 7)),
    (Color::Black, Coord::new(5, 7)),
];
/// Castling rights in the order of [`Drehs::castling`]: colour, rook corner, king target,
/// rook target, squares that must be empty.
const CASTLES: [(Color, Coord, Coord, Coord, &[Coord]); 4] = [
    (
        Color::White,
        Coord::new(7, 0),
        Coord::new(6, 0),
        Coord::new(5, 0),
        &[Coord::new(5, 0), Coord::new(6, 0)],
    ),
    (
        Color::White,
        Coord::new(0, 0),
        Coord::new(2, 0),
        Coord::new(3, 0),
        &[Coord::new(1, 0), Coord::new(2, 0), Coord::new(3, 0)],
    ),
    (
        Color::Black,
        Coord::new(7, 7),
        Coord::new(6, 7),
        Coord::new(5, 7),
        &[Coord::new(5, 7), Coord::new(6, 7)],
    ),
    (
        Color::Black,
        Coord::new(0, 7),
        Coord::new(2, 7),
        Coord::new(3, 7),
        &[Coord::new(1, 7), Coord::new(2, 7), Coord::new(3, 7)],
    ),
];

/// Life points a fresh piece of `role` has.
fn max_life(role: Role) -> u8 {
    match role {
        Role::Pawn => 4,
        Role::Knight | Role::Bishop => 6,
        Role::Rook => 8,
        Role::Queen => 12,
        Role::King => 1,
        Role::Dabbabah => 1,
    }
}

/// The board's side: Davey Drehs is played on 8x8, so a set of squares fits a `u64`, one bit
/// per square as [`BIT_SQUARES`] numbers them (`rank * 8 + file`).
const SIDE: u8 = 8;
const BIT_SQUARES: SquareIndex = SquareIndex::new(SIDE, SIDE);

/// Who stands where, as sets of squares seen by the side to move: worked out once per search
/// for the sliders' tables ([`sliders`]), the steps and the knights' teleports.
#[derive(Clone, Copy)]
struct Occupancy {
    occupied: u64,
    enemies: u64,
}

impl Occupancy {
    fn of(board: &Mailbox<Unit>, color: Color) -> Occupancy {
        let mut occupancy = Occupancy {
            occupied: 0,
            enemies: 0,
        };
        // An 8x8 mailbox's cells are in bit order (`rank * 8 + file`).
        for (index, unit) in board.cells().iter().enumerate().take(64) {
            if let Some(unit) = unit {
                let bit = 1u64 << index;
                occupancy.occupied |= bit;
                if unit.piece.color != color {
                    occupancy.enemies |= bit;
                }
            }
        }
        occupancy
    }
}

/// The moves to the empty squares of `reach` and the attacks on its enemies, from `from`,
/// limited to the `wanted` squares.
fn step_or_attack_all(
    from: Coord,
    reach: u64,
    occupancy: Occupancy,
    wanted: &dyn Fn(Coord) -> bool,
    out: &mut Vec<Action>,
) {
    for target in set_bits(reach & (!occupancy.occupied | occupancy.enemies)) {
        let to = BIT_SQUARES.square(target);
        if !wanted(to) {
            continue;
        }
        out.push(if occupancy.occupied & (1u64 << target) == 0 {
            Action::Move {
                from,
                to,
                promotion: None,
            }
        } else {
            Action::Attack {
                from,
                to,
                promotion: None,
            }
        });
    }
}

/// The weapon dice of a `role`, as (how many, sides): a pawn in a dyad wields two.
fn weapon_of(role: Role, in_dyad: bool) -> (u32, u32) {
    match role {
        Role::Pawn if in_dyad => (2, 4),
        Role::Pawn | Role::King => (1, 4),
        Role::Knight | Role::Bishop => (1, 6),
        Role::Rook => (2, 4),
        Role::Queen => (2, 6),
        Role::Dabbabah => (1, 1),
    }
}

/// The printed armor of `role` (what a king absorbs from it).
fn base_armor(role: Role) -> u32 {
    match role {
        Role::Pawn => 4,
        Role::Knight | Role::Bishop => 6,
        Role::Rook => 8,
        Role::Queen => 12,
        Role::King => KING_BASE_ARMOR,
        Role::Dabbabah => 0,
    }
}

/// The king's square at the start, from which castling is possible.
fn king_home(color: Color) -> Coord {
    Coord::new(4, home_rank(color))
}

fn home_rank(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 7,
    }
}

/// `d6` for one die, `2d4` for two.
fn dice_name(count: u32, sides: u32) -> Label {
    // The weapons there are and the to-hit die, borrowed: a snapshot names every piece's
    // weapon on every move, and an attack's record names each die it rolls.
    match (count, sides) {
        (1, 20) => Cow::Borrowed("d20"),
        (1, 1) => Cow::Borrowed("d1"),
        (1, 4) => Cow::Borrowed("d4"),
        (2, 4) => Cow::Borrowed("2d4"),
        (1, 6) => Cow::Borrowed("d6"),
        (2, 6) => Cow::Borrowed("2d6"),
        (1, _) => Cow::Owned(format!("d{sides}")),
        _ => Cow::Owned(format!("{count}d{sides}")),
    }
}

/// Whether `c` is a dark square (a1 is dark), which fixes which original bishop a bishop is.
fn is_dark(c: Coord) -> bool {
    (c.file + c.rank).is_multiple_of(2)
}

/// One piece with its combat state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    pub piece: Piece,
    pub life: u8,
    /// Ear necklaces: one per kill made by the piece's own attack.
    pub ears: u8,
    /// A bishop returned from the dead: it wears the black necklace and cannot return again.
    pub black_necklace: bool,
    /// Came from a promotion: never an original bishop, so it cannot return from the dead.
    pub promoted: bool,
}

impl Unit {
    /// A fresh piece with full life points.
    pub fn fresh(piece: Piece) -> Unit {
        Unit {
            piece,
            life: max_life(piece.role),
            ears: 0,
            black_necklace: false,
            promoted: false,
        }
    }

    /// Whether this is one of the four bishops the game started with.
    fn is_original_bishop(&self) -> bool {
        self.piece.role == Role::Bishop && !self.black_necklace && !self.promoted
    }
}

/// One action of Davey Drehs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A move to an empty square (castling is the king's two-square move; a pawn reaching the
    /// last rank names its promotion).
    Move {
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
    },
    /// An attack on the enemy piece on `to` (orthodox capture geometry). A pawn attacking onto
    /// the last rank names the piece it promotes to if it kills.
    Attack {
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
    },
    /// A knight teleports to the empty square `to` (arriving with 1 LP), then optionally
    /// attacks `attack` from there.
    Teleport {
        from: Coord,
        to: Coord,
        attack: Option<Coord>,
    },
    /// A rook's cannon shot at the enemy piece on `to`, 2 to 5 squares along a clear line.
    Cannon { from: Coord, to: Coord },
    /// A dead original bishop returns to its empty home square.
    Return { home: Coord },
    /// The king on `king` heals its adjacent friends by 4 LP.
    Heal { king: Coord },
}

impl Action {
    /// The square whose piece acts (None for a bishop's return, whose piece is off the board).
    fn origin(&self) -> Option<Coord> {
        match *self {
            Action::Move { from, .. }
            | Action::Attack { from, .. }
            | Action::Teleport { from, .. }
            | Action::Cannon { from, .. } => Some(from),
            Action::Heal { king } => Some(king),
            Action::Return { .. } => None,
        }
    }

    /// The square the action lands on, used to narrow move generation when checking legality.
    fn destination(&self) -> Coord {
        match *self {
            Action::Move { to, .. }
            | Action::Attack { to, .. }
            | Action::Teleport { to, .. }
            | Action::Cannon { to, .. } => to,
            Action::Heal { king } => king,
            Action::Return { home } => home,
        }
    }
}

/// The dice of a game: verifiable by default; tests may script the faces.
#[derive(Clone, Debug)]
struct Dice {
    source: DiceSource,
    /// Faces to return instead of the seeded ones, in order (unit tests only).
    #[cfg(test)]
    script: std::collections::VecDeque<u32>,
}

impl Dice {
    fn new(source: DiceSource) -> Dice {
        Dice {
            source,
            #[cfg(test)]
            script: std::collections::VecDeque::new(),
        }
    }

    fn roll(&mut self, sides: u32) -> u32 {
        let value = self.source.roll(sides);
        #[cfg(test)]
        if let Some(scripted) = self.script.pop_front() {
            return scripted.clamp(1, sides);
        }
        value
    }
}

/// What an action did, gathered while it resolves: the dice and readable effect lines.
#[derive(Default)]
struct Report {
    rolls: Vec<Roll>,
    effects: Vec<String>,
    /// Whether any piece's life points changed or a piece died (resets the 50-move count).
    progress: bool,
}

impl Report {
    fn effect(&mut self, text: String) {
        self.effects.push(text);
    }
}

/// A game of Davey Drehs: the position, the dice and the history the draw rules need.
#[derive(Clone, Debug)]
pub struct Drehs {
    board: Mailbox<Unit>,
    turn: Color,
    /// White king side, White queen side, Black king side, Black queen side.
    castling: [bool; 4],
    /// Whether the original bishop of each of [`BISHOP_HOMES`] is dead and may still return.
    returns: [bool; 4],
    /// Plies since the last pawn move, kill or life-point change.
    halfmove: u32,
    fullmove: u32,
    dice: Dice,
    /// Keys of every position of the game so far, the current one last (threefold repetition).
    history: Vec<u64>,
    last: Option<Arc<LastAction>>,
    /// Where the knight that teleported in the last action stands now (a snapshot mark).
    teleported: Option<Coord>,
}

/// The initial position in [`notation`].
pub const START_POSITION: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - - 0 1 0";

fn shape() -> Shape {
    Shape::rectangle(SIDE, SIDE)
}

impl Drehs {
    /// The index of the next die this game will roll.
    pub fn next_roll_index(&self) -> u64 {
        self.dice.source.next_index()
    }

    /// The dice of the last action, each with its index in the game.
    pub fn last_roll_records(&self) -> Vec<crate::dice::RollRecord> {
        let rolls = self.last.as_ref().map_or(&[][..], |l| l.rolls.as_slice());
        let first = self.next_roll_index().saturating_sub(rolls.len() as u64);
        rolls
            .iter()
            .enumerate()
            .map(|(i, roll)| crate::dice::RollRecord::from_roll(first + i as u64, roll))
            .collect()
    }

    /// The effect lines of the last action (hit or miss, damage, kill, counterattack…).
    pub fn last_effects(&self) -> &[String] {
        self.last.as_ref().map_or(&[], |l| l.effects.as_slice())
    }

    /// The piece on `c`, with its life points and ears.
    pub fn unit(&self, c: Coord) -> Option<&Unit> {
        self.board.get(c)
    }

    /// Replaces the seeded dice by `faces`, in order (then the seeded dice again).
    #[cfg(test)]
    pub(crate) fn with_scripted_dice(mut self, faces: &[u32]) -> Drehs {
        self.dice.script = faces.iter().copied().collect();
        self
    }

    /// A 64-bit key of everything that makes two positions the same for repetition: pieces
    /// with their combat state, turn, castling rights and bishop returns. A hand-rolled mix
    /// (not SipHash) because it runs after every action, also in debug-built tests.
    fn position_key(&self) -> u64 {
        fn mix(key: u64, value: u64) -> u64 {
            let x = (key ^ value).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^ (x >> 29)
        }
        let mut key = mix(0, u64::from(self.turn == Color::Black));
        for (c, u) in self.board.occupied() {
            let unit = u64::from(c.file)
                | u64::from(c.rank) << 4
                | (u.piece.role as u64) << 8
                | (u.piece.color as u64) << 12
                | u64::from(u.life) << 16
                | u64::from(u.ears) << 24
                | u64::from(u.black_necklace) << 32
                | u64::from(u.promoted) << 33;
            key = mix(key, unit);
        }
        for (i, &on) in self.castling.iter().chain(self.returns.iter()).enumerate() {
            key = mix(key, u64::from(on) << (40 + i));
        }
        key
    }

    /// The other pawn of the dyad `c`'s pawn belongs to, if any. Pawns of one colour standing
    /// side by side off their initial rank pair up from the a-file side of each run.
    fn dyad_partner(&self, c: Coord) -> Option<Coord> {
        let unit = self.board.get(c)?;
        if unit.piece.role != Role::Pawn {
            return None;
        }
        let color = unit.piece.color;
        let initial = match color {
            Color::White => 1,
            Color::Black => 6,
        };
        if c.rank == initial {
            return None;
        }
        let is_pawn = |file: u8| {
            self.board.get(Coord::new(file, c.rank)).map(|u| u.piece)
                == Some(Piece::new(color, Role::Pawn))
        };
        // The run of side-by-side pawns containing `c` starts at `start`; pairs are
        // (start, start+1), (start+2, start+3)…
        let mut start = c.file;
        while start > 0 && is_pawn(start - 1) {
            start -= 1;
        }
        let partner = if (c.file - start).is_multiple_of(2) {
            c.file + 1
        } else {
            c.file - 1
        };
        (partner < 8 && is_pawn(partner)).then(|| Coord::new(partner, c.rank))
    }

    /// The armor of the piece on `c` as it stands now: doubled in a dyad, absorbed by a king.
    fn armor_at(&self, c: Coord) -> u32 {
        let Some(unit) = self.board.get(c) else {
            return 0;
        };
        self.armor_of(c, unit, self.in_dyad(c, unit))
    }

    /// [`Drehs::armor_at`] for `unit` on `c`, told whether it is in a dyad: a snapshot asks
    /// for every piece's marks, weapon and armor, and looks for each pawn's partner once.
    fn armor_of(&self, c: Coord, unit: &Unit, in_dyad: bool) -> u32 {
        match unit.piece.role {
            Role::Pawn if in_dyad => 2 * base_armor(Role::Pawn),
            Role::King => {
                let absorbed: u32 = KING_STEPS
                    .iter()
                    .filter_map(|&(df, dr)| self.board.shape().step(c, df, dr))
                    .filter_map(|n| self.board.get(n))
                    .filter(|u| u.piece.color == unit.piece.color)
                    .map(|u| base_armor(u.piece.role))
                    .sum();
                (KING_BASE_ARMOR + absorbed).min(MAX_ARMOR)
            }
            role => base_armor(role),
        }
    }

    /// Whether `unit`, on `c`, is a pawn in a dyad.
    fn in_dyad(&self, c: Coord, unit: &Unit) -> bool {
        unit.piece.role == Role::Pawn && self.dyad_partner(c).is_some()
    }

    /// The weapon of the piece on `c`: how many dice of how many sides.
    fn weapon_at(&self, c: Coord) -> (u32, u32) {
        match self.board.get(c) {
            Some(unit) => weapon_of(unit.piece.role, self.in_dyad(c, unit)),
            None => (1, 1),
        }
    }

    fn is_enemy(&self, c: Coord, color: Color) -> bool {
        self.board.get(c).is_some_and(|u| u.piece.color != color)
    }

    /// The game is over by a rule that needs no move generation: a dead king, fifty moves or
    /// threefold repetition.
    fn static_outcome(&self) -> Option<Outcome> {
        let mut kings = [false; 2];
        for (_, unit) in self.board.occupied() {
            if unit.piece.role == Role::King {
                if let Some(alive) = kings.get_mut(unit.piece.color.index()) {
                    *alive = true;
                }
            }
        }
        for color in Color::ALL {
            if kings.get(color.index()) == Some(&false) {
                return Some(Outcome::win(color.other(), EndReason::KingKilled));
            }
        }
        if self.halfmove >= FIFTY_MOVE_PLIES {
            return Some(Outcome::draw(EndReason::FiftyMoves));
        }
        // The last key is the current position's: pushed by every action and at setup.
        let &current = self.history.last()?;
        if self.history.iter().filter(|&&k| k == current).count() >= 3 {
            return Some(Outcome::draw(EndReason::Repetition));
        }
        None
    }

    /// Generates the actions of the side to move, narrowed to the piece on `origin` (or to
    /// bishop returns for `Some(None)`) and to the destination `dest` when given. The full
    /// list ([`Rules::legal_actions`]) is the call without narrowing; legality checks use the
    /// narrowed call so that the same code decides both.
    fn generate(&self, origin: Option<Option<Coord>>, dest: Option<Coord>, out: &mut Vec<Action>) {
        let color = self.turn;
        let wanted = |c: Coord| dest.is_none_or(|d| d == c);
        if origin.is_none() || origin == Some(None) {
            for (index, &(home_color, home)) in BISHOP_HOMES.iter().enumerate() {
                let available = self.returns.get(index).copied().unwrap_or(false);
                if home_color == color
                    && available
                    && self.board.is_empty_square(home)
                    && wanted(home)
                {
                    out.push(Action::Return { home });
                }
            }
        }
        let occupancy = Occupancy::of(&self.board, color);
        match origin {
            None => {
                for (from, unit) in self.board.occupied() {
                    if unit.piece.color == color {
                        self.piece_actions(from, *unit, occupancy, &wanted, out);
                    }
                }
            }
            Some(Some(from)) => {
                if let Some(unit) = self.board.get(from).filter(|u| u.piece.color == color) {
                    self.piece_actions(from, *unit, occupancy, &wanted, out);
                }
            }
            Some(None) => {}
        }
    }

    fn piece_actions(
        &self,
        from: Coord,
        unit: Unit,
        occupancy: Occupancy,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        let color = unit.piece.color;
        let Some(square) = BIT_SQUARES.of(from) else {
            return;
        };
        let reach = |table: &[u64; 64]| table.get(square).copied().unwrap_or(0);
        let index = square as u8;
        let occupied = occupancy.occupied;
        match unit.piece.role {
            Role::Pawn => self.pawn_actions(from, color, wanted, out),
            Role::Knight => {
                step_or_attack_all(from, reach(&KNIGHT_ATTACKS), occupancy, wanted, out);
                self.teleport_actions(from, occupancy, wanted, out);
            }
            Role::Bishop => {
                let reach = sliders().bishop(index, occupied);
                step_or_attack_all(from, reach, occupancy, wanted, out);
            }
            Role::Rook => {
                let reach = sliders().rook(index, occupied);
                step_or_attack_all(from, reach, occupancy, wanted, out);
                // The cannon fires along the same lines, at the first man met: an enemy
                // within its range.
                for target in set_bits(reach & occupancy.enemies) {
                    let to = BIT_SQUARES.square(target);
                    let distance = from.file.abs_diff(to.file).max(from.rank.abs_diff(to.rank));
                    if CANNON_RANGE.contains(&distance) && wanted(to) {
                        out.push(Action::Cannon { from, to });
                    }
                }
            }
            Role::Queen => {
                let reach = sliders().queen(index, occupied);
                step_or_attack_all(from, reach, occupancy, wanted, out);
            }
            Role::King => {
                step_or_attack_all(from, reach(&KING_ATTACKS), occupancy, wanted, out);
                if wanted(from) && self.heal_targets(from, color).next().is_some() {
                    out.push(Action::Heal { king: from });
                }
                self.castling_actions(from, color, wanted, out);
            }
            Role::Dabbabah => {}
        }
    }

    /// A knight's teleports: to every empty square, alone or with an attack on each enemy a
    /// knight's leap from there. Found on bitmaps of the board: with two knights a side this is
    /// half of a position's legal actions, and walking every square and each of its leaps was
    /// the largest part of the search.
    fn teleport_actions(
        &self,
        from: Coord,
        occupancy: Occupancy,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        let Occupancy { occupied, enemies } = occupancy;
        for to_index in set_bits(!occupied) {
            let to = BIT_SQUARES.square(to_index);
            if !wanted(to) {
                continue;
            }
            out.push(Action::Teleport {
                from,
                to,
                attack: None,
            });
            let targets = KNIGHT_ATTACKS.get(to_index).copied().unwrap_or(0) & enemies;
            out.extend(set_bits(targets).map(|target| Action::Teleport {
                from,
                to,
                attack: Some(BIT_SQUARES.square(target)),
            }));
        }
    }

    fn pawn_actions(
        &self,
        from: Coord,
        color: Color,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        let (dir, start_rank, last_rank): (i8, u8, u8) = match color {
            Color::White => (1, 1, 7),
            Color::Black => (-1, 6, 0),
        };
        let shape = self.board.shape();
        let with_promotions = |to: Coord, attack: bool, out: &mut Vec<Action>| {
            let promotions: &[Option<Role>] = if to.rank == last_rank {
                &[
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                ]
            } else {
                &[None]
            };
            for &promotion in promotions {
                out.push(if attack {
                    Action::Attack {
                        from,
                        to,
                        promotion,
                    }
                } else {
                    Action::Move {
                        from,
                        to,
                        promotion,
                    }
                });
            }
        };
        if let Some(one) = shape
            .step(from, 0, dir)
            .filter(|&c| self.board.is_empty_square(c))
        {
            if wanted(one) {
                with_promotions(one, false, out);
            }
            if from.rank == start_rank {
                if let Some(two) = shape
                    .step(one, 0, dir)
                    .filter(|&c| self.board.is_empty_square(c) && wanted(c))
                {
                    out.push(Action::Move {
                        from,
                        to: two,
                        promotion: None,
                    });
                }
            }
        }
        for df in [-1, 1] {
            if let Some(to) = shape.step(from, df, dir) {
                if self.is_enemy(to, color) && wanted(to) {
                    with_promotions(to, true, out);
                }
            }
        }
    }

    fn castling_actions(
        &self,
        from: Coord,
        color: Color,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        if from != king_home(color) {
            return;
        }
        for (index, &(side, _, king_to, _, between)) in CASTLES.iter().enumerate() {
            let allowed = self.castling.get(index).copied().unwrap_or(false);
            if side == color
                && allowed
                && wanted(king_to)
                && between.iter().all(|&c| self.board.is_empty_square(c))
            {
                out.push(Action::Move {
                    from,
                    to: king_to,
                    promotion: None,
                });
            }
        }
    }

    /// Friendly pieces around `king` that are below their full life points.
    fn heal_targets(&self, king: Coord, color: Color) -> impl Iterator<Item = Coord> + '_ {
        KING_STEPS
            .iter()
            .filter_map(move |&(df, dr)| self.board.shape().step(king, df, dr))
            .filter(move |&c| {
                self.board
                    .get(c)
                    .is_some_and(|u| u.piece.color == color && u.life < max_life(u.piece.role))
            })
    }

    /// Whether the move generator lists `action`, narrowed to its piece and destination (the
    /// game being known not to be over).
    fn is_generated(&self, action: &Action) -> bool {
        let mut out = Vec::new();
        self.generate(Some(action.origin()), Some(action.destination()), &mut out);
        out.contains(action)
    }

    /// Why `action` (not among the legal actions) is refused.
    fn refusal(&self, action: &Action) -> IllegalAction {
        let machine = self.action_to_machine(action);
        if let Some(from) = action.origin() {
            match self.board.get(from) {
                None => return IllegalAction::EmptySquare(from.name()),
                Some(u) if u.piece.color != self.turn => {
                    return IllegalAction::NotYourPiece(from.name())
                }
                Some(u) => {
                    let role = u.piece.role;
                    match action {
                        Action::Teleport { .. } if role != Role::Knight => {
                            return IllegalAction::rule("not_a_knight", "only knights teleport")
                        }
                        Action::Cannon { .. } if role != Role::Rook => {
                            return IllegalAction::rule("not_a_rook", "only rooks have a cannon")
                        }
                        Action::Cannon { from, to } => {
                            let distance =
                                from.file.abs_diff(to.file) + from.rank.abs_diff(to.rank);
                            if !CANNON_RANGE.contains(&distance) {
                                return IllegalAction::rule(
                                    "cannon_range",
                                    "the cannon shoots 2 to 5 squares along a clear rank or file",
                                );
                            }
                        }
                        Action::Heal { .. } if role != Role::King => {
                            return IllegalAction::rule("not_a_king", "only the king heals")
                        }
                        Action::Heal { .. } => {
                            return IllegalAction::rule(
                                "nothing_to_heal",
                                "no friendly piece next to the king has lost life points",
                            )
                        }
                        Action::Move { to, .. } if !self.board.is_empty_square(*to) => {
                            return IllegalAction::rule(
                                "square_occupied",
                                "a move needs an empty square; attack an enemy piece instead",
                            )
                        }
                        Action::Attack { to, .. } if !self.is_enemy(*to, self.turn) => {
                            return IllegalAction::rule(
                                "no_enemy_there",
                                format!("there is no enemy piece on {} to attack", to.name()),
                            )
                        }
                        _ => {}
                    }
                }
            }
        } else if let Action::Return { home } = action {
            let slot = BISHOP_HOMES
                .iter()
                .position(|&(c, h)| c == self.turn && h == *home);
            let available = slot.and_then(|i| self.returns.get(i).copied()) == Some(true);
            if !available {
                return IllegalAction::rule(
                    "no_bishop_to_return",
                    format!(
                        "no dead original bishop of yours may return to {}",
                        home.name()
                    ),
                );
            }
            return IllegalAction::rule(
                "return_square_occupied",
                format!("{} is occupied", home.name()),
            );
        }
        IllegalAction::NotLegal(machine)
    }

    /// A piece has died: free its bishop return if it was an original bishop.
    fn on_death(&mut self, dead: Unit, at: Coord) {
        if dead.is_original_bishop() {
            let slot = BISHOP_HOMES.iter().position(|&(color, home)| {
                color == dead.piece.color && is_dark(home) == is_dark(at)
            });
            if let Some(flag) = slot.and_then(|i| self.returns.get_mut(i)) {
                *flag = true;
            }
        }
    }

    /// Takes `damage` life points off the piece on `c`; returns (before, after).
    fn wound(&mut self, c: Coord, damage: u32) -> (u8, u8) {
        match self.board.get_mut(c) {
            Some(unit) => {
                let before = unit.life;
                let damage = u8::try_from(damage).unwrap_or(u8::MAX);
                unit.life = unit.life.saturating_sub(damage);
                (before, unit.life)
            }
            None => (0, 0),
        }
    }

    fn roll_dice(
        &mut self,
        count: u32,
        sides: u32,
        purpose: &'static str,
        report: &mut Report,
    ) -> u32 {
        let mut total = 0;
        for _ in 0..count {
            let value = self.dice.roll(sides);
            report.rolls.push(Roll {
                purpose: Cow::Borrowed(purpose),
                dice: dice_name(1, sides),
                value,
            });
            total += value;
        }
        total
    }

    fn describe(&self, c: Coord) -> String {
        match self.board.get(c) {
            Some(u) => format!("{} {} {}", u.piece.color, u.piece.role.as_str(), c.name()),
            None => c.name(),
        }
    }

    /// The to-hit roll of the piece on `from` against the piece on `to`.
    fn roll_to_hit(
        &mut self,
        from: Coord,
        to: Coord,
        purpose: &'static str,
        report: &mut Report,
    ) -> bool {
        let ears = self.board.get(from).map_or(0, |u| u32::from(u.ears));
        let armor = self.armor_at(to);
        let face = self.roll_dice(1, 20, purpose, report);
        let hit = face + ears > armor;
        let verdict = if hit { "hit" } else { "miss" };
        let sign = if hit { ">" } else { "<=" };
        let keyword = if purpose.starts_with("counter") {
            format!("counter_{verdict}")
        } else {
            verdict.to_string()
        };
        report.effect(format!(
            "{keyword}: {} rolls d20 {face} + {ears} ears = {} {sign} armor {armor} of {}",
            self.describe(from),
            face + ears,
            self.describe(to)
        ));
        hit
    }

    /// A normal attack (also the one after a teleport): to-hit, damage, kill and move in, or
    /// the survivor's counterattack.
    fn resolve_attack(
        &mut self,
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
        report: &mut Report,
    ) {
        let victim_name = self.describe(to);
        if self.roll_to_hit(from, to, "to_hit", report) {
            let (count, sides) = self.weapon_at(from);
            let damage = self.roll_dice(count, sides, "damage", report);
            let (before, after) = self.wound(to, damage);
            report.progress = true;
            report.effect(format!(
                "damage: {} = {damage}: {victim_name} {before} -> {after} LP",
                dice_name(count, sides)
            ));
            if after == 0 {
                let attacker_name = self.describe(from);
                if let Some(dead) = self.board.take(to) {
                    self.on_death(dead, to);
                }
                if let Some(mut attacker) = self.board.take(from) {
                    attacker.ears = attacker.ears.saturating_add(1);
                    self.board.set(to, Some(attacker));
                }
                report.effect(format!(
                    "kill: {victim_name} dies; {attacker_name} moves to {} and dons ear necklace {}",
                    to.name(),
                    self.board.get(to).map_or(0, |u| u.ears)
                ));
                self.promote_if_due(to, promotion, report);
                return;
            }
        }
        // The survivor strikes back, whether it was hit or missed.
        let attacker_name = self.describe(from);
        if self.roll_to_hit(to, from, "counter_to_hit", report) {
            let (count, sides) = self.weapon_at(to);
            let damage = self.roll_dice(count, sides, "counter_damage", report);
            let (before, after) = self.wound(from, damage);
            report.progress = true;
            report.effect(format!(
                "counter_damage: {} = {damage}: {attacker_name} {before} -> {after} LP",
                dice_name(count, sides)
            ));
            if after == 0 {
                if let Some(dead) = self.board.take(from) {
                    self.on_death(dead, from);
                }
                report.effect(format!("counter_kill: {attacker_name} dies"));
            }
        }
    }

    fn promote_if_due(&mut self, at: Coord, promotion: Option<Role>, report: &mut Report) {
        let last_rank = |c: Color| match c {
            Color::White => 7,
            Color::Black => 0,
        };
        let Some(unit) = self.board.get_mut(at) else {
            return;
        };
        if unit.piece.role != Role::Pawn || at.rank != last_rank(unit.piece.color) {
            return;
        }
        let role = promotion.unwrap_or(Role::Queen);
        unit.piece.role = role;
        unit.life = max_life(role);
        unit.promoted = true;
        report.progress = true;
        report.effect(format!(
            "promote: pawn on {} becomes a {} with {} LP",
            at.name(),
            role.as_str(),
            max_life(role)
        ));
    }

    fn resolve_cannon(&mut self, from: Coord, to: Coord, report: &mut Report) {
        if !self.roll_to_hit(from, to, "cannon_to_hit", report) {
            return;
        }
        let rolled = self.roll_dice(2, 4, "cannon_damage", report);
        let target_name = self.describe(to);
        let life = self.board.get(to).map_or(0, |u| u32::from(u.life));
        // Projectile damage never kills: it may take all but one life point.
        let damage = rolled.min(life.saturating_sub(1));
        let (before, after) = self.wound(to, damage);
        if before != after {
            report.progress = true;
        }
        report.effect(format!(
            "damage: 2d4 = {rolled}, {damage} after the cannon's cap: {target_name} {before} -> {after} LP"
        ));
        for &(df, dr) in &KING_STEPS {
            let Some(near) = self.board.shape().step(to, df, dr) else {
                continue;
            };
            let name = self.describe(near);
            if self.board.get(near).is_some_and(|u| u.life > 1) {
                let (before, after) = self.wound(near, 1);
                report.progress = true;
                report.effect(format!("splash: {name} {before} -> {after} LP"));
            }
        }
    }

    /// Castling rights hold while the king and the rook stand unmoved on their squares: a
    /// right is lost as soon as either square no longer holds that piece (moved away, killed).
    /// A king or rook that attacks without killing, or a rook firing its cannon, stays put and
    /// keeps the right.
    fn update_castling(&mut self) {
        for (index, &(color, corner, _, _, _)) in CASTLES.iter().enumerate() {
            let holds = |c: Coord, role: Role| {
                self.board.get(c).map(|u| u.piece) == Some(Piece::new(color, role))
            };
            let intact = holds(king_home(color), Role::King) && holds(corner, Role::Rook);
            if let Some(right) = self.castling.get_mut(index) {
                *right &= intact;
            }
        }
    }

    /// Carries out a legal action.
    fn execute(&mut self, action: &Action) {
        let mut report = Report::default();
        let mut squares: Vec<Coord>;
        let mut pawn_moved = false;
        let pieces_before = self.board.occupied().count();
        self.teleported = None;
        match *action {
            Action::Move {
                from,
                to,
                promotion,
            } => {
                squares = vec![from, to];
                pawn_moved = self
                    .board
                    .get(from)
                    .is_some_and(|u| u.piece.role == Role::Pawn);
                let is_king = self
                    .board
                    .get(from)
                    .is_some_and(|u| u.piece.role == Role::King);
                if let Some(unit) = self.board.take(from) {
                    self.board.set(to, Some(unit));
                }
                if is_king && from.file.abs_diff(to.file) == 2 {
                    if let Some(&(_, corner, _, rook_to, _)) = CASTLES
                        .iter()
                        .find(|(c, _, king_to, _, _)| *c == self.turn && *king_to == to)
                    {
                        if let Some(rook) = self.board.take(corner) {
                            self.board.set(rook_to, Some(rook));
                        }
                        squares.extend([corner, rook_to]);
                        report.effect(format!(
                            "castle: king {} -> {}, rook {} -> {}",
                            from.name(),
                            to.name(),
                            corner.name(),
                            rook_to.name()
                        ));
                    }
                }
                self.promote_if_due(to, promotion, &mut report);
            }
            Action::Attack {
                from,
                to,
                promotion,
            } => {
                squares = vec![from, to];
                self.resolve_attack(from, to, promotion, &mut report);
            }
            Action::Teleport { from, to, attack } => {
                squares = vec![from, to];
                if let Some(mut knight) = self.board.take(from) {
                    if knight.life != 1 {
                        report.progress = true;
                    }
                    report.effect(format!(
                        "teleport: {} knight {} -> {}, {} -> 1 LP",
                        knight.piece.color,
                        from.name(),
                        to.name(),
                        knight.life
                    ));
                    knight.life = 1;
                    self.board.set(to, Some(knight));
                }
                self.teleported = Some(to);
                if let Some(target) = attack {
                    squares.push(target);
                    self.resolve_attack(to, target, None, &mut report);
                    if self.board.get(to).is_none() {
                        // Either it died or it killed and moved on.
                        self.teleported = self
                            .board
                            .get(target)
                            .filter(|u| u.piece == Piece::new(self.turn, Role::Knight))
                            .map(|_| target);
                    }
                }
            }
            Action::Cannon { from, to } => {
                squares = vec![from, to];
                self.resolve_cannon(from, to, &mut report);
            }
            Action::Return { home } => {
                squares = vec![home];
                if let Some(slot) = BISHOP_HOMES
                    .iter()
                    .position(|&(c, h)| c == self.turn && h == home)
                {
                    if let Some(flag) = self.returns.get_mut(slot) {
                        *flag = false;
                    }
                }
                let mut bishop = Unit::fresh(Piece::new(self.turn, Role::Bishop));
                bishop.life = RETURN_LIFE;
                bishop.black_necklace = true;
                self.board.set(home, Some(bishop));
                report.progress = true;
                report.effect(format!(
                    "return: {} bishop returns to {} with {RETURN_LIFE} LP and a black necklace",
                    self.turn,
                    home.name()
                ));
            }
            Action::Heal { king } => {
                squares = vec![king];
                let targets: Vec<Coord> = self.heal_targets(king, self.turn).collect();
                for c in targets {
                    let name = self.describe(c);
                    if let Some(unit) = self.board.get_mut(c) {
                        let before = unit.life;
                        unit.life = (unit.life + HEAL_AMOUNT).min(max_life(unit.piece.role));
                        report.effect(format!("heal: {name} {before} -> {} LP", unit.life));
                    }
                }
                report.progress = true;
            }
        }
        self.update_castling();
        let killed = self.board.occupied().count() < pieces_before;
        if pawn_moved || killed || report.progress {
            self.halfmove = 0;
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
        }
        if self.turn == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.last = Some(Arc::new(LastAction {
            machine: self.action_to_machine(action),
            human: String::new(),
            squares: squares
                .into_iter()
                .map(|c| SquareRef::main(c.label()))
                .collect(),
            rolls: report.rolls,
            effects: report.effects,
        }));
        self.turn = self.turn.other();
        self.history.push(self.position_key());
    }
}

impl Rules for Drehs {
    type Action = Action;

    const VARIANT: Variant = Variant::Drehs;

    fn start() -> Self {
        match Drehs::from_position(START_POSITION) {
            Ok(game) => game,
            // The constant is covered by a unit test; an empty board keeps this panic-free.
            Err(_) => Drehs::from_parts(Mailbox::empty(shape()), Color::White),
        }
    }

    fn from_position(text: &str) -> Result<Self, ParsePositionError> {
        notation::parse_position(text)
    }

    fn position(&self) -> String {
        notation::write_position(self)
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn ply(&self) -> u32 {
        self.fullmove
            .saturating_sub(1)
            .saturating_mul(2)
            .saturating_add(u32::from(self.turn == Color::Black))
    }

    fn legal_actions(&self) -> Vec<Action> {
        self.actions_and_outcome().0
    }

    fn is_legal(&self, action: &Action) -> bool {
        self.static_outcome().is_none() && self.is_generated(action)
    }

    fn apply(&mut self, action: &Action) -> Result<(), IllegalAction> {
        if self.static_outcome().is_some() {
            return Err(IllegalAction::GameOver);
        }
        if !self.is_generated(action) {
            return Err(self.refusal(action));
        }
        let human = self.action_to_human(action);
        self.execute(action);
        if let Some(last) = self.last.as_mut() {
            // Not shared yet: the action was just executed.
            Arc::make_mut(last).human = human;
        }
        Ok(())
    }

    fn last_action_human(&self) -> Option<String> {
        self.last.as_ref().map(|last| last.human.clone())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.actions_and_outcome().1
    }

    fn parse_action(&self, text: &str) -> Result<Action, ParseActionError> {
        notation::parse_action(self, text)
    }

    fn action_to_machine(&self, action: &Action) -> String {
        notation::action_machine(action)
    }

    fn action_to_human(&self, action: &Action) -> String {
        notation::action_human(self, action)
    }

    fn snapshot(&self) -> Snapshot {
        static BOARDS: OnceLock<Arc<[BoardSpec]>> = OnceLock::new();
        let mut pieces = Vec::with_capacity(self.board.occupied_count());
        pieces.extend(self.board.occupied_in_label_order().map(|(c, u)| {
            let in_dyad = self.in_dyad(c, u);
            let mut marks = Vec::new();
            if in_dyad {
                marks.push(Cow::Borrowed("dyad"));
            }
            if u.black_necklace {
                marks.push(Cow::Borrowed("black_necklace"));
            }
            if u.promoted {
                marks.push(Cow::Borrowed("promoted"));
            }
            if self.teleported == Some(c) {
                marks.push(Cow::Borrowed("teleported"));
            }
            let (count, sides) = weapon_of(u.piece.role, in_dyad);
            let weapon = dice_name(count, sides);
            PlacedPiece {
                board: Cow::Borrowed("main"),
                square: c.label(),
                color: u.piece.color,
                role: u.piece.role,
                stats: Some(PieceStats {
                    life: u32::from(u.life),
                    max_life: u32::from(max_life(u.piece.role)),
                    armor: self.armor_of(c, u, in_dyad),
                    ears: u32::from(u.ears),
                    weapon,
                }),
                marks,
            }
        }));
        let off_board = BISHOP_HOMES
            .iter()
            .zip(self.returns)
            .filter(|(_, available)| *available)
            .map(|(&(color, _), _)| OffBoardPiece {
                color,
                role: Role::Bishop,
                state: "dead_may_return".to_string(),
            })
            .collect();
        // One search for the actions answers both the list and the outcome.
        let (actions, outcome) = self.actions_and_outcome();
        let legal_actions = notation::sorted_action_labels(&actions);
        Snapshot {
            variant: Variant::Drehs,
            position: self.position(),
            boards: shared_boards(&BOARDS, || vec![BoardSpec::rectangle("main", 8, 8)]),
            pieces,
            turn: self.turn,
            ply: self.ply(),
            last_action: self.last.clone(),
            off_board,
            check: Vec::new(),
            legal_actions,
            outcome,
        }
    }

    fn set_dice(&mut self, seed: [u8; 32], game_id: &str) {
        let mut source = DiceSource::new(seed, game_id);
        source.set_next_index(self.dice.source.next_index());
        self.dice.source = source;
    }
}

/// A size that holds the legal actions of most positions (a hundred-odd in a middlegame,
/// more with several teleporting knights): the search's list starts at it.
const MOST_ACTIONS_USUALLY: usize = 160;

impl Drehs {
    /// The legal actions and the outcome, from one search: none and the outcome when a rule
    /// has ended the game, otherwise every action, and stalemate when there is none.
    fn actions_and_outcome(&self) -> (Vec<Action>, Option<Outcome>) {
        if let Some(outcome) = self.static_outcome() {
            return (Vec::new(), Some(outcome));
        }
        // Room for a middlegame's actions from the start: growing one by doubling copied
        // the list five or six times on every move's search.
        let mut out = Vec::with_capacity(MOST_ACTIONS_USUALLY);
        self.generate(None, None, &mut out);
        let outcome = out.is_empty().then(|| Outcome::draw(EndReason::Stalemate));
        (out, outcome)
    }

    /// A game with `board` and `turn`, no rights, the public dice and fresh counters.
    fn from_parts(board: Mailbox<Unit>, turn: Color) -> Drehs {
        let mut game = Drehs {
            board,
            turn,
            castling: [false; 4],
            returns: [false; 4],
            halfmove: 0,
            fullmove: 1,
            dice: Dice::new(DiceSource::public()),
            history: Vec::new(),
            last: None,
            teleported: None,
        };
        game.history.push(game.position_key());
        game
    }
}

#[cfg(test)]
mod tests;
