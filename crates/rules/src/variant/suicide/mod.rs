//! Suicide Chess as played on FICS (`help suicide_chess`, rules brief section 5).
//!
//! Standard chess men and moves, except: no castling; capturing is compulsory (en passant
//! included) with free choice among captures; the king is an ordinary piece (no check, it can
//! be captured) and pawns may promote to a king. A side that has lost all its men wins; a side
//! to move with no legal move wins with fewer men than the opponent, draws with as many and
//! loses with more. Threefold repetition and 100 plies without capture or pawn move draw
//! automatically (our policy for what FICS grants on a claim).
//!
//! Speed matters here (the perft benchmark), so the position is a set of bitboards
//! (`position.rs`) with magic-bitboard slider tables (`rules/bitboard.rs`), and [`Rules::perft`] is
//! overridden with a bulk-counting search that does not allocate per node.
//!
//! ```text
//!   8  r n b q k b n r
//!   7  p p p p p p p p
//!   6  . . . . . . . .
//!   5  . . . . . . . .      start: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1
//!   4  . . . . . . . .      moves: e2e4, a7a8k (UCI); e4, Nf3, exd5, a8=K (SAN-like)
//!   3  . . . . . . . .
//!   2  P P P P P P P P
//!   1  R N B Q K B N R
//!      a b c d e f g h
//! ```

mod notation;
mod position;

use self::position::{
    role_index, role_of, square_coord, square_name, Move, MoveList, Position, PAWN,
};
pub use self::position::{BISHOP, KING, KNIGHT, QUEEN, ROOK};
/// The pawn's index in [`Men::by_role`].
pub const PAWN_INDEX: u8 = PAWN;
use crate::bitboard::{flip_diagonal, sliders, Squares};
use crate::error::{IllegalAction, ParseActionError, ParsePositionError};
use crate::outcome::{EndReason, Outcome};
use crate::snapshot::{
    shared_boards, sort_action_texts, BoardSpec, Label, LastAction, PlacedPiece, SquareRef,
};
use crate::types::{Color, Role};
use crate::{Rules, Snapshot, Variant};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

/// A Suicide move: from and to squares (0 = a1 … 63 = h8) and the promotion, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SuicideMove {
    pub from: u8,
    pub to: u8,
    pub promotion: Option<Role>,
}

impl SuicideMove {
    fn from_move(m: Move) -> SuicideMove {
        SuicideMove {
            from: m.from,
            to: m.to,
            promotion: (m.promotion != PAWN).then(|| role_of(m.promotion)),
        }
    }

    /// Whether the generator's move `m` is this one.
    fn matches(&self, m: &Move) -> bool {
        let promotion = self.promotion.and_then(role_index).unwrap_or(PAWN);
        m.from == self.from && m.to == self.to && m.promotion == promotion
    }
}

/// The last action of a move `m` played from `position`, as the snapshot shows it: built once
/// when the move is applied, then shared by the game's copies and its snapshots.
fn describe_move(position: &Position, m: Move, machine: String, human: String) -> LastAction {
    let mut squares = vec![m.from, m.to];
    let mut effects = Vec::new();
    if m.role == PAWN && position.ep == Some(m.to) {
        let taken = if position.turn == Color::White {
            m.to - 8
        } else {
            m.to + 8
        };
        squares.push(taken);
        effects.push(format!(
            "en passant: the pawn on {} is taken",
            square_name(taken)
        ));
    }
    if m.promotion != PAWN {
        effects.push(format!("promotion to {}", role_of(m.promotion).as_str()));
    }
    LastAction {
        machine,
        human,
        squares: squares
            .into_iter()
            .map(|square| SquareRef::main(square_coord(square).label()))
            .collect(),
        rolls: Vec::new(),
        effects,
    }
}

/// The men of a Suicide position as bitboards (bit 0 = a1, bit 7 = h1, bit 63 = h8), for an
/// evaluation that must not go through the position's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Men {
    /// White's men (index 0) and Black's (index 1).
    pub by_color: [u64; 2],
    /// Both colours' men of each role, indexed by [`PAWN_INDEX`], [`KNIGHT`] … [`KING`].
    pub by_role: [u64; 6],
}

/// How many legal moves a side has, and how many of them take something.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mobility {
    pub moves: u32,
    pub captures: u32,
}

/// A game of Suicide: the position plus the history the draw rules need.
#[derive(Clone, Debug)]
pub struct Suicide {
    position: Position,
    /// Zobrist keys of the positions since the last capture or pawn move (or since the
    /// position the game was set up from), the current one last: enough for threefold
    /// repetition, which can only look back that far.
    history: Vec<u64>,
    last: Option<Arc<LastAction>>,
}

impl Suicide {
    fn from_setup(position: Position) -> Suicide {
        Suicide {
            position,
            history: vec![position.key],
            last: None,
        }
    }

    /// The men on the board.
    pub fn men(&self) -> Men {
        Men {
            by_color: self.position.by_color,
            by_role: self.position.by_role,
        }
    }

    /// The legal moves `color` would have were it to move now (en passant aside, which only
    /// the side to move can have), counted without generating them.
    pub fn mobility(&self, color: Color) -> Mobility {
        let mut seen = self.position;
        if seen.turn != color {
            seen.turn = color;
            seen.ep = None;
        }
        let (moves, captures) = seen.count_moves_and_captures(sliders());
        Mobility { moves, captures }
    }

    /// The end decided without looking at the moves: a side without men, or a draw rule.
    fn outcome_without_moves(&self) -> Option<Outcome> {
        let turn = self.position.turn;
        let ours = self.position.count(turn);
        let theirs = self.position.count(turn.other());
        match (ours, theirs) {
            // Only a set-up position can have the side that just moved without men.
            (0, 0) => return Some(Outcome::draw(EndReason::EqualPieces)),
            (0, _) => return Some(Outcome::win(turn, EndReason::NoPieces)),
            (_, 0) => return Some(Outcome::win(turn.other(), EndReason::NoPieces)),
            _ => {}
        }
        None
    }

    /// The automatic draws: 100 plies without capture or pawn move, threefold repetition.
    fn draw_by_rule(&self) -> Option<Outcome> {
        if self.position.halfmove >= 100 {
            Some(Outcome::draw(EndReason::FiftyMoves))
        } else if position::is_threefold(&self.history, self.position.halfmove) {
            Some(Outcome::draw(EndReason::Repetition))
        } else {
            None
        }
    }

    fn is_over_before_moves(&self) -> bool {
        self.outcome_without_moves().is_some() || self.draw_by_rule().is_some()
    }

    /// Captures and quiet moves of the side to move, ignoring compulsory capture: what
    /// human notation is resolved against, so that a quiet move typed when a capture is due
    /// is refused as `must_capture` rather than not understood.
    fn pseudo_legal(&self) -> Vec<Move> {
        let mut list = MoveList::new();
        self.position.generate_captures(sliders(), &mut list);
        self.position.generate_quiets(sliders(), &mut list);
        list.as_slice().to_vec()
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.is_over_before_moves() {
            return Vec::new();
        }
        let mut list = MoveList::new();
        self.position.generate_legal(sliders(), &mut list);
        list.as_slice().to_vec()
    }

    /// Explains why `action`, which is not among the legal moves, is refused.
    fn refusal(&self, action: &SuicideMove) -> IllegalAction {
        let from = square_name(action.from);
        match self.position.piece_at(action.from) {
            None => return IllegalAction::EmptySquare(from),
            Some((color, _)) if color != self.position.turn => {
                return IllegalAction::NotYourPiece(from)
            }
            Some(_) => {}
        }
        let candidates = self.pseudo_legal();
        if candidates.iter().any(|m| action.matches(m)) {
            return IllegalAction::MustCapture;
        }
        let text = notation::machine(action);
        let lacks_promotion = action.promotion.is_none()
            && candidates
                .iter()
                .any(|m| m.from == action.from && m.to == action.to && m.promotion != PAWN);
        if lacks_promotion {
            return IllegalAction::rule(
                "promotion_required",
                format!("{text}: a pawn reaching the last rank must promote (q, r, b, n or k)"),
            );
        }
        IllegalAction::NotLegal(text)
    }
}

impl Rules for Suicide {
    type Action = SuicideMove;

    const VARIANT: Variant = Variant::Suicide;

    fn start() -> Self {
        Suicide::from_setup(Position::start())
    }

    fn from_position(notation: &str) -> Result<Self, ParsePositionError> {
        Position::from_fen(notation).map(Suicide::from_setup)
    }

    fn position(&self) -> String {
        self.position.fen()
    }

    fn hash(&self) -> u64 {
        self.position.key
    }

    fn turn(&self) -> Color {
        self.position.turn
    }

    fn ply(&self) -> u32 {
        let black = u32::from(self.position.turn == Color::Black);
        (self.position.fullmove - 1) * 2 + black
    }

    fn legal_actions(&self) -> Vec<SuicideMove> {
        self.legal_moves()
            .into_iter()
            .map(SuicideMove::from_move)
            .collect()
    }

    fn apply(&mut self, action: &SuicideMove) -> Result<(), IllegalAction> {
        if self.outcome().is_some() {
            return Err(IllegalAction::GameOver);
        }
        let legal = self.legal_moves();
        let Some(&m) = legal.iter().find(|m| action.matches(m)) else {
            return Err(self.refusal(action));
        };
        let human = notation::human(&self.position, m, &legal);
        let last = describe_move(&self.position, m, notation::machine(action), human);
        self.position = self.position.play(m);
        if self.position.halfmove == 0 {
            self.history.clear();
        }
        self.history.push(self.position.key);
        self.last = Some(Arc::new(last));
        Ok(())
    }

    /// The search's move: no legality check, notation or last action (which stays that of
    /// the last [`Rules::apply`]); the draw rules' history is kept.
    fn play_unchecked(&mut self, action: &SuicideMove) {
        let Some(role) = self.position.role_at(action.from) else {
            return;
        };
        let promotion = action.promotion.and_then(role_index).unwrap_or(PAWN);
        self.position = self.position.play(Move {
            from: action.from,
            to: action.to,
            role,
            promotion,
        });
        if self.position.halfmove == 0 {
            self.history.clear();
        }
        self.history.push(self.position.key);
    }

    fn last_action_human(&self) -> Option<String> {
        self.last.as_ref().map(|last| last.human.clone())
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(outcome) = self.outcome_without_moves() {
            return Some(outcome);
        }
        if !self.position.has_moves() {
            let turn = self.position.turn;
            let ours = self.position.count(turn);
            let theirs = self.position.count(turn.other());
            return Some(match ours.cmp(&theirs) {
                Ordering::Less => Outcome::win(turn, EndReason::FewerPieces),
                Ordering::Equal => Outcome::draw(EndReason::EqualPieces),
                Ordering::Greater => Outcome::win(turn.other(), EndReason::FewerPieces),
            });
        }
        self.draw_by_rule()
    }

    fn parse_action(&self, text: &str) -> Result<SuicideMove, ParseActionError> {
        notation::parse(text, &self.pseudo_legal(), &self.position)
    }

    fn action_to_machine(&self, action: &SuicideMove) -> String {
        notation::machine(action)
    }

    fn action_to_human(&self, action: &SuicideMove) -> String {
        let candidates = self.pseudo_legal();
        match candidates.iter().find(|m| action.matches(m)) {
            Some(&m) => notation::human(&self.position, m, &candidates),
            // Not a move of this position: the machine form is the best description.
            None => notation::machine(action),
        }
    }

    fn snapshot(&self) -> Snapshot {
        static BOARDS: OnceLock<Arc<[BoardSpec]>> = OnceLock::new();
        // File by file (a1, a2, …, h8): the order of the square labels, so the live game's
        // update diff finds the pieces already sorted.
        let occupied = self.position.occupied();
        // Sized first: collected from a filter, the list would grow four times.
        let mut pieces = Vec::with_capacity(occupied.count_ones() as usize);
        pieces.extend(
            Squares(flip_diagonal(occupied))
                .map(|transposed| (transposed & 7) * 8 + (transposed >> 3))
                .filter_map(|square| {
                    self.position
                        .piece_at(square)
                        .map(|(color, role)| PlacedPiece {
                            board: Cow::Borrowed("main"),
                            square: square_coord(square).label(),
                            color,
                            role: role_of(role),
                            stats: None,
                            marks: Vec::new(),
                        })
                }),
        );
        let mut legal_actions: Vec<Label> = self
            .legal_actions()
            .iter()
            .map(notation::machine_label)
            .collect();
        sort_action_texts(&mut legal_actions);
        Snapshot {
            variant: Variant::Suicide,
            position: self.position(),
            boards: shared_boards(&BOARDS, || vec![BoardSpec::rectangle("main", 8, 8)]),
            pieces,
            turn: self.position.turn,
            ply: self.ply(),
            last_action: self.last.clone(),
            off_board: Vec::new(),
            // There is no check in Suicide.
            check: Vec::new(),
            legal_actions,
            outcome: self.outcome(),
        }
    }

    /// Bulk-counting perft over copied bitboard positions; a node drawn by repetition (along
    /// the game's history and the search path) or by the 50-move rule has no children, like
    /// any finished position.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.is_over_before_moves() {
            return 0;
        }
        let mut history = Vec::with_capacity(self.history.len() + depth as usize + 1);
        history.extend_from_slice(&self.history);
        self.position.perft(depth, &mut history, sliders())
    }
}

#[cfg(test)]
mod tests;
