//! Duel Chess (Erez Schatz, 2003): a 5x7 Main board without c4, plus a 3x3 Duel board where
//! captured men fight on.
//!
//! ```text
//!   7  d n k b r
//!   6  p p . p p                 3  . . .
//!   5  . . . . .                 2  . . .
//!   4  . . # . .    Duel board   1  . . .
//!   3  . . . . .                    X Y Z
//!   2  P P . P P
//!   1  D N K B R
//!      a b c d e
//! ```
//!
//! A Main-board capture sends the victim to a Duel square the capturer chooses (when the Duel
//! board is full, the capturer sacrifices one of its own Duel men and the victim takes that
//! square). Once both colours stand on the Duel board, a player may move a Duel man instead of
//! a Main-board man; a Duel capture kills the victim and returns the capturer to an empty Main
//! square of its owner's choice, never one from which it gives check. Each of these is one
//! [`Action`], so [`Rules::legal_actions`] lists every choice.
//!
//! The rules as implemented, both notations and every decision the sources leave open are in
//! `docs/rules/duel.md`.

mod bitboard;
mod moves;
mod notation;
mod refusal;

pub use notation::{duel_square_label, duel_square_name, parse_duel_square, parse_main_square};

use crate::geometry::{Coord, Mailbox, Shape, SquareIndex};
use crate::history::{position_hash, History};
use crate::snapshot::{
    shared_boards, BoardSpec, Label, LastAction, OffBoardPiece, PlacedPiece, SquareRef,
};
use crate::types::{Color, Piece, Role};
use crate::{
    EndReason, IllegalAction, Outcome, ParseActionError, ParsePositionError, Rules, Snapshot,
    Variant,
};
use bitboard::MainBits;
use moves::{Landing, PawnRights};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The Main board's hole.
pub const HOLE: Coord = Coord::new(2, 3);
/// The number of squares of the Duel board.
const DUEL_SQUARES: usize = 9;
/// The non-king army each side starts with, for counting the dead.
const ARMY: [(Role, usize); 5] = [
    (Role::Dabbabah, 1),
    (Role::Knight, 1),
    (Role::Bishop, 1),
    (Role::Rook, 1),
    (Role::Pawn, 4),
];
/// The start position in this module's notation (see `docs/rules/duel.md`).
pub const START: &str = "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 1";

/// The Main board: 5 files by 7 ranks without c4.
pub fn main_shape() -> Shape {
    Shape::with_holes(5, 7, &[HOLE])
}

/// The Duel board: 3 by 3, files X, Y, Z (written `x y z` in machine notation).
pub fn duel_shape() -> Shape {
    Shape::rectangle(3, 3)
}

/// A man on the Main board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Man {
    pub piece: Piece,
    /// A pawn that came back from the Duel board: it never double-steps again. Always false
    /// for other men, so equal positions compare equal.
    pub returned: bool,
}

impl Man {
    fn new(piece: Piece) -> Man {
        Man {
            piece,
            returned: false,
        }
    }
}

/// One complete Duel Chess action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A Main-board move. `place` is set exactly for captures: the Duel square the victim goes
    /// to (an empty one, or, when the Duel board is full, one holding a man of the capturer,
    /// who dies there).
    Main {
        from: Coord,
        to: Coord,
        place: Option<Coord>,
    },
    /// A Duel-board move. `back` is set exactly for captures: the empty Main square the
    /// capturer returns to.
    Duel {
        from: Coord,
        to: Coord,
        back: Option<Coord>,
    },
}

/// The squares of the Main board's rectangle (5x7, the hole included), numbered `rank * 5 +
/// file` as its mailbox's cells and its bitmaps' bits are.
const MAIN_SQUARES: SquareIndex = SquareIndex::new(5, 7);
/// The cells of the Main board's rectangle.
const MAIN_CELLS: usize = MAIN_SQUARES.count();

/// What makes two positions "the same" for threefold repetition: both boards' cells, fixed
/// arrays rather than copies of the mailboxes, since every move records one (a copy of a
/// mailbox was four allocations).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct PositionKey {
    main: [Option<Man>; MAIN_CELLS],
    duel: [Option<Piece>; DUEL_SQUARES],
    turn: Color,
    en_passant: Option<Coord>,
}

/// A Duel Chess game: the position plus the history the draw rules need.
#[derive(Clone, Debug)]
pub struct Duel {
    main: Mailbox<Man>,
    duel: Mailbox<Piece>,
    turn: Color,
    /// The square a pawn may take en passant on, kept only when an enemy pawn stands ready.
    en_passant: Option<Coord>,
    /// Plies since the last capture, pawn move or return (the fifty-move rule).
    halfmoves: u32,
    fullmoves: u32,
    ply: u32,
    /// Positions since the last irreversible action, the current one first. Copies of the
    /// game share them ([`History`]): a live move plays on a copy, which used to copy both
    /// boards of every position.
    history: History<PositionKey>,
    last: Option<Arc<LastAction>>,
    /// The legal actions of this position (ignoring whether the game has ended), worked out
    /// on first use: `legal_actions`, `outcome`, `apply` and the notation all need them.
    generated: OnceLock<Vec<Action>>,
}

impl Duel {
    fn key(&self) -> PositionKey {
        let mut main = [None; MAIN_CELLS];
        for (slot, cell) in main.iter_mut().zip(self.main.cells()) {
            *slot = *cell;
        }
        let mut duel = [None; DUEL_SQUARES];
        for (slot, cell) in duel.iter_mut().zip(self.duel.cells()) {
            *slot = *cell;
        }
        PositionKey {
            main,
            duel,
            turn: self.turn,
            en_passant: self.en_passant,
        }
    }

    /// The man on a Main square.
    pub fn main_at(&self, c: Coord) -> Option<Man> {
        self.main.get(c).copied()
    }

    /// The man on a Duel square.
    pub fn duel_at(&self, c: Coord) -> Option<Piece> {
        self.duel.get(c).copied()
    }

    /// Whether `color`'s king is attacked on `board`.
    fn king_attacked(board: &Mailbox<Man>, color: Color) -> bool {
        MainBits::of(board).king_attacked(color)
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        Self::king_attacked(&self.main, self.turn)
    }

    /// Whether Duel men may move: both colours stand on the Duel board.
    pub fn duel_is_active(&self) -> bool {
        Color::ALL
            .iter()
            .all(|&color| self.duel.occupied().any(|(_, p)| p.color == color))
    }

    fn duel_is_full(&self) -> bool {
        self.duel.occupied().count() >= DUEL_SQUARES
    }

    /// Non-king men of `color` on the Main board.
    fn main_army(&self, color: Color) -> usize {
        self.main
            .occupied()
            .filter(|(_, m)| m.piece.color == color && m.piece.role != Role::King)
            .count()
    }

    /// The Duel squares a man captured by the side to move may be put on.
    fn placement_squares(&self) -> Vec<Coord> {
        // The Duel board has no holes: every cell is a square.
        let full = self.duel_is_full();
        let shape = self.duel.shape();
        self.duel
            .cells()
            .iter()
            .enumerate()
            .filter(|(_, cell)| match cell {
                Some(piece) => full && piece.color == self.turn,
                None => !full,
            })
            .map(|(index, _)| shape.coord(index))
            .collect()
    }

    fn main_targets(&self, from: Coord, man: Man, out: &mut Vec<(Coord, Landing)>) {
        let start_rank = match man.piece.color {
            Color::White => 1,
            Color::Black => 5,
        };
        let rights = PawnRights {
            double_step: !man.returned && from.rank == start_rank,
            en_passant: self.en_passant,
        };
        let piece_at = |c: Coord| self.main.get(c).map(|m| m.piece);
        moves::targets(self.main.shape(), &piece_at, from, man.piece, rights, out);
    }

    fn duel_targets(&self, from: Coord, piece: Piece, out: &mut Vec<(Coord, Landing)>) {
        let piece_at = |c: Coord| self.duel.get(c).copied();
        let rights = PawnRights::default();
        moves::targets(self.duel.shape(), &piece_at, from, piece, rights, out);
    }

    /// Whether a move of a man other than the king from `from` may leave the king on `king`
    /// attacked, when it is not attacked now: only by uncovering a line through `from`, since
    /// sliders alone attack along lines and leapers' attacks do not depend on what stands
    /// between. An en-passant capture empties a second square, so it is always checked.
    fn may_uncover(king: Coord, from: Coord, landing: Landing) -> bool {
        let df = i16::from(from.file) - i16::from(king.file);
        let dr = i16::from(from.rank) - i16::from(king.rank);
        landing == Landing::EnPassant || df == 0 || dr == 0 || df.abs() == dr.abs()
    }

    /// Every legal action, ignoring whether the game has already ended.
    fn generate(&self) -> &[Action] {
        self.generated.get_or_init(|| self.generate_uncached())
    }

    fn generate_uncached(&self) -> Vec<Action> {
        let us = self.turn;
        let bits = MainBits::of(&self.main);
        // Room for most positions' lists: captures fan out over the Duel squares.
        let mut actions = Vec::with_capacity(64);
        let placements = self.placement_squares();
        let king = bits.king(us);
        let in_check = king.is_some_and(|king| bits.attacked(king, us.other()));
        bits.legal_moves(us, self.en_passant, king, in_check, |from, to, landing| {
            if landing == Landing::Quiet {
                actions.push(Action::Main {
                    from,
                    to,
                    place: None,
                });
            } else {
                actions.extend(placements.iter().map(|&place| Action::Main {
                    from,
                    to,
                    place: Some(place),
                }));
            }
        });
        if !self.duel_is_active() {
            return actions;
        }
        let mut targets = Vec::new();
        for (from, piece) in self.duel.occupied() {
            if piece.color != us {
                continue;
            }
            targets.clear();
            self.duel_targets(from, *piece, &mut targets);
            for &(to, landing) in &targets {
                if landing == Landing::Quiet {
                    if !in_check {
                        actions.push(Action::Duel {
                            from,
                            to,
                            back: None,
                        });
                    }
                    continue;
                }
                for back in bits.empty_squares() {
                    if Self::return_is_allowed(&bits, *piece, back, in_check) {
                        actions.push(Action::Duel {
                            from,
                            to,
                            back: Some(back),
                        });
                    }
                }
            }
        }
        actions
    }

    /// Whether the side to move may return `piece` to the empty Main square `back` of
    /// `main`: it must not give check, and when the own king is in check it must block it (a
    /// drop uncovers nothing, so only a check in progress matters).
    fn return_is_allowed(main: &MainBits, piece: Piece, back: Coord, in_check: bool) -> bool {
        if main.drop_gives_check(back, piece) {
            return false;
        }
        !in_check || !main.with(back, piece).king_attacked(piece.color)
    }

    /// Whether the side to move has at least one legal action.
    fn has_legal_action(&self) -> bool {
        !self.generate().is_empty()
    }

    /// The lone-king loss, the first end checked (see `outcome_with` for the order).
    fn lone_king(&self) -> Option<Outcome> {
        // The side to move first: it is the one the last move can have stripped.
        let order = [self.turn, self.turn.other()];
        order
            .into_iter()
            .find(|&color| self.main_army(color) == 0)
            .map(|loser| Outcome::win(loser.other(), EndReason::LoneKing))
    }

    /// The draws by threefold repetition and by the fifty-move rule, checked after mate and
    /// stalemate.
    fn draw_by_rule(&self) -> Option<Outcome> {
        if self.history.occurrences_of_latest() >= 3 {
            return Some(Outcome::draw(EndReason::Repetition));
        }
        if self.halfmoves >= 100 {
            return Some(Outcome::draw(EndReason::FiftyMoves));
        }
        None
    }

    /// Plays a legal action. The caller has checked legality.
    fn play_unchecked(&mut self, action: &Action) {
        let us = self.turn;
        let irreversible;
        let mut en_passant = None;
        match *action {
            Action::Main { from, to, place } => {
                let Some(man) = self.main.take(from) else {
                    return;
                };
                let is_pawn = man.piece.role == Role::Pawn;
                let mut victim = self.main.take(to);
                if is_pawn && victim.is_none() && from.file != to.file {
                    victim = self.main.take(Coord::new(to.file, from.rank));
                }
                self.main.set(to, Some(man));
                if let (Some(victim), Some(place)) = (victim, place) {
                    // On a full board this replaces (kills) the capturer's own man.
                    self.duel.set(place, Some(victim.piece));
                }
                irreversible = is_pawn || victim.is_some();
                if is_pawn && from.rank.abs_diff(to.rank) == 2 {
                    let ready = [-1, 1].into_iter().any(|side| {
                        self.main.shape().step(to, side, 0).is_some_and(|c| {
                            self.main
                                .get(c)
                                .is_some_and(|m| m.piece == Piece::new(us.other(), Role::Pawn))
                        })
                    });
                    if ready {
                        en_passant = Coord::new(to.file, (from.rank + to.rank) / 2).into();
                    }
                }
            }
            Action::Duel { from, to, back } => {
                let Some(piece) = self.duel.take(from) else {
                    return;
                };
                match back {
                    Some(back) => {
                        self.duel.take(to);
                        let mut man = Man::new(piece);
                        man.returned = piece.role == Role::Pawn;
                        self.main.set(back, Some(man));
                        irreversible = true;
                    }
                    None => {
                        self.duel.set(to, Some(piece));
                        irreversible = piece.role == Role::Pawn;
                    }
                }
            }
        }
        self.en_passant = en_passant;
        self.generated = OnceLock::new();
        self.turn = us.other();
        self.ply = self.ply.saturating_add(1);
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        if irreversible {
            self.halfmoves = 0;
            self.history.clear();
        } else {
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        self.record_position();
    }

    /// Adds the current position to the history.
    fn record_position(&mut self) {
        let key = self.key();
        self.history.push(position_hash(&key), key);
    }

    fn machine(&self, action: &Action) -> String {
        notation::action_machine(action)
    }

    /// The end of the game in the documented order: lone king, then mate or stalemate
    /// (`has_action` says whether the side to move has a legal action), then the draw rules.
    fn outcome_with(&self, has_action: impl FnOnce() -> bool) -> Option<Outcome> {
        if let Some(outcome) = self.lone_king() {
            return Some(outcome);
        }
        if !has_action() {
            return Some(if self.in_check() {
                Outcome::win(self.turn.other(), EndReason::Checkmate)
            } else {
                Outcome::draw(EndReason::Stalemate)
            });
        }
        self.draw_by_rule()
    }

    /// The `+` or `#` a human move gets when it leaves the opponent in check.
    fn check_suffix(&self) -> &'static str {
        if !self.in_check() {
            ""
        } else if self.lone_king().is_none() && !self.has_legal_action() {
            "#"
        } else {
            "+"
        }
    }

    /// The squares a renderer highlights for `action`, and what it did beyond moving a man.
    fn describe(&self, action: &Action) -> (Vec<SquareRef>, Vec<String>) {
        let duel_ref = |c: Coord| SquareRef {
            board: Cow::Borrowed("duel"),
            square: duel_square_label(c),
        };
        let mut squares = Vec::new();
        let mut effects = Vec::new();
        match *action {
            Action::Main { from, to, place } => {
                squares.push(SquareRef::main(from.label()));
                squares.push(SquareRef::main(to.label()));
                if let Some(place) = place {
                    let mut victim_square = to;
                    if self.main.get(to).is_none() {
                        victim_square = Coord::new(to.file, from.rank);
                        squares.push(SquareRef::main(victim_square.label()));
                    }
                    squares.push(duel_ref(place));
                    effects.extend(self.duel_at(place).map(dies));
                    if let Some(victim) = self.main_at(victim_square) {
                        effects.push(format!(
                            "captured {} {} placed on {}",
                            victim.piece.color,
                            victim.piece.role.as_str(),
                            duel_square_name(place).to_uppercase()
                        ));
                    }
                }
            }
            Action::Duel { from, to, back } => {
                squares.push(duel_ref(from));
                squares.push(duel_ref(to));
                if let Some(back) = back {
                    squares.push(SquareRef::main(back.label()));
                    effects.extend(self.duel_at(to).map(dies));
                    if let Some(capturer) = self.duel_at(from) {
                        effects.push(format!(
                            "{} {} returns to {}",
                            capturer.color,
                            capturer.role.as_str(),
                            back.name()
                        ));
                    }
                }
            }
        }
        (squares, effects)
    }

    /// Men of the game that stand on neither board: the starting army minus the men present.
    fn dead(&self) -> Vec<OffBoardPiece> {
        let mut out = Vec::new();
        for color in Color::ALL {
            for (role, count) in ARMY {
                let piece = Piece::new(color, role);
                let present = self
                    .main
                    .occupied()
                    .filter(|(_, m)| m.piece == piece)
                    .count()
                    + self.duel.occupied().filter(|(_, p)| **p == piece).count();
                for _ in present..count {
                    out.push(OffBoardPiece {
                        color,
                        role,
                        state: "dead".to_string(),
                    });
                }
            }
        }
        out
    }

    /// The legal actions, borrowed from the cached list: none once a lone king or a draw by
    /// rule has ended the game, whatever moves the board still allows.
    fn playable(&self) -> &[Action] {
        if self.lone_king().is_some() || self.draw_by_rule().is_some() {
            return &[];
        }
        self.generate()
    }

    /// The legal actions in machine notation, sorted by byte order as clients receive them.
    fn sorted_machine(&self) -> Vec<Label> {
        notation::sorted_action_labels(self.playable())
    }
}

/// The effect line for a Duel man that dies.
fn dies(piece: Piece) -> String {
    format!(
        "{} {} on the Duel board dies",
        piece.color,
        piece.role.as_str()
    )
}

impl Rules for Duel {
    type Action = Action;

    const VARIANT: Variant = Variant::Duel;

    fn start() -> Self {
        match notation::parse_position(START) {
            Ok(game) => game,
            // START is a constant checked by the unit tests; an empty board is the fallback
            // that keeps this infallible.
            Err(_) => Duel {
                main: Mailbox::empty(main_shape()),
                duel: Mailbox::empty(duel_shape()),
                turn: Color::White,
                en_passant: None,
                halfmoves: 0,
                fullmoves: 1,
                ply: 0,
                history: History::default(),
                last: None,
                generated: OnceLock::new(),
            },
        }
    }

    fn from_position(text: &str) -> Result<Self, ParsePositionError> {
        notation::parse_position(text)
    }

    fn position(&self) -> String {
        notation::print_position(self)
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn legal_actions(&self) -> Vec<Action> {
        self.playable().to_vec()
    }

    fn apply(&mut self, action: &Action) -> Result<(), IllegalAction> {
        let legal = self.playable();
        if legal.is_empty() {
            return Err(IllegalAction::GameOver);
        }
        if !legal.contains(action) {
            return Err(self.explain(action, legal));
        }
        let stem = notation::human_stem(self, action, legal);
        let (squares, effects) = self.describe(action);
        let machine = self.machine(action);
        self.play_unchecked(action);
        let human = format!("{stem}{}", self.check_suffix());
        self.last = Some(Arc::new(LastAction {
            machine,
            human,
            squares,
            rolls: Vec::new(),
            effects,
        }));
        Ok(())
    }

    fn last_action_human(&self) -> Option<String> {
        self.last.as_ref().map(|last| last.human.clone())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome_with(|| self.has_legal_action())
    }

    fn parse_action(&self, text: &str) -> Result<Action, ParseActionError> {
        notation::parse_action(text)
    }

    fn action_to_machine(&self, action: &Action) -> String {
        self.machine(action)
    }

    fn action_to_human(&self, action: &Action) -> String {
        let legal = self.legal_actions();
        let stem = notation::human_stem(self, action, &legal);
        if !legal.contains(action) {
            return stem;
        }
        let mut after = self.clone();
        after.play_unchecked(action);
        format!("{stem}{}", after.check_suffix())
    }

    fn snapshot(&self) -> Snapshot {
        static BOARDS: OnceLock<Arc<[BoardSpec]>> = OnceLock::new();
        let frozen = !self.duel_is_active();
        // The Duel board first and each board's squares in label order: the order of the
        // snapshot's (board, square) labels, which the live game's update diff relies on.
        let mut pieces: Vec<PlacedPiece> =
            Vec::with_capacity(self.duel.occupied_count() + self.main.occupied_count());
        pieces.extend(
            self.duel
                .occupied_in_label_order()
                .map(|(c, piece)| PlacedPiece {
                    board: Cow::Borrowed("duel"),
                    square: duel_square_label(c),
                    color: piece.color,
                    role: piece.role,
                    stats: None,
                    marks: if frozen {
                        vec![Cow::Borrowed("frozen")]
                    } else {
                        Vec::new()
                    },
                }),
        );
        pieces.extend(
            self.main
                .occupied_in_label_order()
                .map(|(c, man)| PlacedPiece {
                    board: Cow::Borrowed("main"),
                    square: c.label(),
                    color: man.piece.color,
                    role: man.piece.role,
                    stats: None,
                    marks: if man.returned {
                        vec![Cow::Borrowed("returned")]
                    } else {
                        Vec::new()
                    },
                }),
        );
        let bits = MainBits::of(&self.main);
        let check = Color::ALL
            .into_iter()
            .filter(|&color| bits.king_attacked(color))
            .filter_map(|color| bits.king(color))
            .map(|cell| SquareRef::main(MAIN_SQUARES.square(cell).label()))
            .collect();
        let legal_actions = self.sorted_machine();
        let has_action = !legal_actions.is_empty();
        Snapshot {
            variant: Variant::Duel,
            position: self.position(),
            boards: shared_boards(&BOARDS, || {
                let mut main_spec = BoardSpec::rectangle("main", 5, 7);
                main_spec.holes = vec![HOLE.name()];
                let mut duel_spec = BoardSpec::rectangle("duel", 3, 3);
                duel_spec.file_labels = ["X", "Y", "Z"].map(Cow::Borrowed).to_vec();
                vec![main_spec, duel_spec]
            }),
            pieces,
            turn: self.turn,
            ply: self.ply,
            last_action: self.last.clone(),
            off_board: self.dead(),
            check,
            legal_actions,
            // Without actions, the game is over by one of the rules; with them, only a draw
            // rule or the lone king can have ended it, and those leave no actions.
            outcome: self.outcome_with(|| has_action || self.has_legal_action()),
        }
    }

    fn play_unchecked(&mut self, action: &Action) {
        Duel::play_unchecked(self, action);
    }
}

#[cfg(test)]
mod tests;
