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
//! and action text), [`record`] (game record files and their verification), `moves` (what
//! each piece may do, special abilities included), `dyads` (which pawns pair up and the
//! pairing a mover declares), `combat` (resolving attacks with dice and carrying out an
//! action) and `chances` (the groups an action's rolls fall into, with their odds, for the
//! engine's look-ahead).

mod chances;
mod combat;
mod dyads;
mod moves;
pub mod notation;
pub mod record;

pub use chances::{DiceOutcome, CERTAIN};
pub use dyads::Dyads;
pub use moves::{Fighter, Strike};

use crate::dice::DiceSource;
use crate::geometry::{Coord, Mailbox, Shape, SquareIndex, KING_STEPS};
use crate::snapshot::{
    shared_boards, BoardSpec, Label, LastAction, OffBoardPiece, PieceStats, PlacedPiece, Roll,
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
    /// A pawn its row's declared pairing leaves single (see the `dyads` module).
    pub declared_single: bool,
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
            declared_single: false,
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
    /// last rank names its promotion; a pawn forming a row of three or more may declare its
    /// dyads).
    Move {
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
        dyads: Dyads,
    },
    /// An attack on the enemy piece on `to` (orthodox capture geometry). A pawn attacking onto
    /// the last rank names the piece it promotes to if it kills; a pawn whose kill would form
    /// a row of three or more may declare its dyads, which hold if it kills.
    Attack {
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
        dyads: Dyads,
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

/// The dice of a game: verifiable; the engine's look-ahead ([`chances`]) and unit tests
/// script the faces of a position's next rolls.
#[derive(Clone, Debug)]
struct Dice {
    source: DiceSource,
    /// Faces to return instead of the seeded ones, in order.
    script: std::collections::VecDeque<u32>,
}

impl Dice {
    fn new(source: DiceSource) -> Dice {
        Dice {
            source,
            script: std::collections::VecDeque::new(),
        }
    }

    fn roll(&mut self, sides: u32) -> u32 {
        let value = self.source.roll(sides);
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
                | u64::from(u.promoted) << 33
                | u64::from(u.declared_single) << 34;
            key = mix(key, unit);
        }
        for (i, &on) in self.castling.iter().chain(self.returns.iter()).enumerate() {
            key = mix(key, u64::from(on) << (40 + i));
        }
        key
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
