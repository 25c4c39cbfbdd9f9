//! Do-Or-Die Chazz (David Moeser, 1999): chess on 8 files by 5 ranks with kings and pawns
//! only at the start.
//!
//! ```text
//!   5 | . . . . k . . . |
//!   4 | p p p p p p p p |     4k3/pppppppp/8/PPPPPPPP/4K3 w - - 0 1
//!   3 | . . . . . . . . |
//!   2 | P P P P P P P P |
//!   1 | . . . . K . . . |
//!       a b c d e f g h
//! ```
//!
//! Regular chess except for the pawns: they also step one square straight back (never
//! capturing), never double-step (so no en passant), promote only to R, B or N, and may leave
//! the board from their own first rank (the self-destruct). A side that is not in check and
//! cannot move passes; if neither side could move the game is drawn (`no_moves`). No castling.
//! Draws by repetition, the fifty-move rule (reset only by captures, promotions, forward pawn
//! moves and self-destructs) and insufficient material are automatic.
//!
//! [`board`] generates moves on a bare board; [`notation`] reads and writes positions and
//! actions; this module keeps the game state and history and implements [`Rules`].

mod board;
mod notation;
#[cfg(test)]
mod tests;

use crate::error::{IllegalAction, ParseActionError, ParsePositionError};
use crate::geometry::Coord;
use crate::outcome::{EndReason, Outcome};
use crate::snapshot::{
    shared_boards, sort_action_texts, BoardSpec, Label, LastAction, PlacedPiece, Snapshot,
    SquareRef,
};
use crate::types::{Color, Piece, Role};
use crate::{Rules, Variant};
use board::Board;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// One action of Do-Or-Die Chazz.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChazzAction {
    /// A piece moves (and perhaps captures); a pawn reaching its last rank names its promotion.
    Move {
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
    },
    /// A pawn on its own first rank steps backward off the board and leaves the game.
    SelfDestruct { from: Coord },
    /// The side to move is not in check and has no legal move: its turn is skipped.
    Pass,
}

/// The two "additional rules" of the inventor's page, which the brief makes switchable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChazzOptions {
    /// A side that cannot move (and is not in check) passes. Off: that is stalemate, a draw.
    pub passes: bool,
    /// Pawns may leave the board from their own first rank.
    pub self_destruct: bool,
}

impl Default for ChazzOptions {
    fn default() -> Self {
        ChazzOptions {
            passes: true,
            self_destruct: true,
        }
    }
}

/// The position as the repetition rule compares it: every cell and the side to move. (No
/// castling rights and no en passant square exist to tell positions apart.)
type PositionKey = [u8; KEY_LEN];

/// One byte per square and one for the side to move.
const KEY_LEN: usize = board::FILES as usize * board::RANKS as usize + 1;

/// A Do-Or-Die Chazz game: the position plus the history the draw rules need.
#[derive(Clone, Debug)]
pub struct Chazz {
    board: Board,
    turn: Color,
    /// Plies since the last capture, promotion, forward pawn move or self-destruct.
    halfmove_clock: u32,
    fullmove_number: u32,
    ply: u32,
    /// Positions since the last irreversible action (capture, promotion, self-destruct), the
    /// current one last.
    history: Vec<PositionKey>,
    last: Option<Arc<LastAction>>,
    options: ChazzOptions,
    /// The legal actions and outcome of this position, worked out once when first asked:
    /// the layers above ask several questions of one position, and most positions made while
    /// searching or validating are asked none.
    status: OnceLock<Status>,
}

/// The legal actions and the outcome, computed together because each decides the other.
#[derive(Clone, Debug)]
struct Status {
    actions: Vec<ChazzAction>,
    outcome: Option<Outcome>,
}

/// Fifty moves of each side, in plies.
const FIFTY_MOVE_PLIES: u32 = 100;

impl Chazz {
    /// The start position with other settings of the additional rules.
    pub fn start_with(options: ChazzOptions) -> Chazz {
        let mut board = Board::empty(board::shape());
        for file in 0..board::FILES {
            board.set(
                Coord::new(file, 1),
                Some(Piece::new(Color::White, Role::Pawn)),
            );
            board.set(
                Coord::new(file, 3),
                Some(Piece::new(Color::Black, Role::Pawn)),
            );
        }
        board.set(Coord::new(4, 0), Some(Piece::new(Color::White, Role::King)));
        board.set(Coord::new(4, 4), Some(Piece::new(Color::Black, Role::King)));
        Chazz::new(board, Color::White, 0, 1, options)
    }

    /// A position in Chazz notation with other settings of the additional rules.
    ///
    /// # Errors
    /// Text that is not a valid position.
    pub fn from_position_with(
        notation: &str,
        options: ChazzOptions,
    ) -> Result<Chazz, ParsePositionError> {
        let parsed = notation::parse_position(notation)?;
        Ok(Chazz::new(
            parsed.board,
            parsed.turn,
            parsed.halfmove_clock,
            parsed.fullmove_number,
            options,
        ))
    }

    /// A game starting from a checked position: no earlier history, so this position has
    /// occurred once.
    fn new(
        board: Board,
        turn: Color,
        halfmove_clock: u32,
        fullmove_number: u32,
        options: ChazzOptions,
    ) -> Chazz {
        let ply = fullmove_number
            .saturating_sub(1)
            .saturating_mul(2)
            .saturating_add(turn.index() as u32);
        let mut game = Chazz {
            board,
            turn,
            halfmove_clock,
            fullmove_number,
            ply,
            history: Vec::new(),
            last: None,
            options,
            status: OnceLock::new(),
        };
        game.history.push(game.key());
        game
    }

    /// The settings of the additional rules.
    pub fn options(&self) -> ChazzOptions {
        self.options
    }

    fn key(&self) -> PositionKey {
        let mut key: PositionKey = [0; KEY_LEN];
        for (square, piece) in self.board.occupied() {
            if let Some(cell) = key.get_mut(self.board.shape().index(square)) {
                *cell = piece.fen_char() as u8;
            }
        }
        if let Some(side) = key.last_mut() {
            *side = self.turn.fen_char() as u8;
        }
        key
    }

    fn status(&self) -> &Status {
        self.status.get_or_init(|| self.compute_status())
    }

    fn compute_status(&self) -> Status {
        let moves = board::legal_moves(&self.board, self.turn, self.options.self_destruct);
        let stuck = if moves.is_empty() {
            self.stuck_outcome()
        } else {
            None
        };
        match stuck.or_else(|| self.draw_by_rule()) {
            Some(outcome) => Status {
                actions: Vec::new(),
                outcome: Some(outcome),
            },
            None if moves.is_empty() => Status {
                actions: vec![ChazzAction::Pass],
                outcome: None,
            },
            None => Status {
                actions: moves,
                outcome: None,
            },
        }
    }

    /// The side to move has no move: mated in check, else it passes — unless the opponent
    /// could not move either (a draw), or passes are switched off (stalemate, a draw).
    fn stuck_outcome(&self) -> Option<Outcome> {
        if board::in_check(&self.board, self.turn) {
            return Some(Outcome::win(self.turn.other(), EndReason::Checkmate));
        }
        if !self.options.passes {
            return Some(Outcome::draw(EndReason::Stalemate));
        }
        let opponent_can_move =
            board::has_legal_move(&self.board, self.turn.other(), self.options.self_destruct);
        (!opponent_can_move).then(|| Outcome::draw(EndReason::NoMoves))
    }

    /// The automatic draws: insufficient material, threefold repetition, fifty moves.
    fn draw_by_rule(&self) -> Option<Outcome> {
        if board::insufficient_material(&self.board) {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        let current = self.history.last();
        let occurrences = self
            .history
            .iter()
            .filter(|key| Some(*key) == current)
            .count();
        if occurrences >= 3 {
            return Some(Outcome::draw(EndReason::Repetition));
        }
        (self.halfmove_clock >= FIFTY_MOVE_PLIES).then(|| Outcome::draw(EndReason::FiftyMoves))
    }

    /// Plays an action known to be legal, updating counters and history.
    fn play_unchecked(&mut self, action: &ChazzAction) {
        let mover = self.turn;
        let effect = board::make(&mut self.board, mover, action);
        self.halfmove_clock = if effect.resets_fifty_move_counter() {
            0
        } else {
            self.halfmove_clock.saturating_add(1)
        };
        if effect.is_irreversible() {
            self.history.clear();
        }
        if mover == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.ply = self.ply.saturating_add(1);
        self.turn = mover.other();
        self.last = None;
        self.status = OnceLock::new();
        self.history.push(self.key());
    }

    /// `+` if the side to move is in check, `#` if it is mated, else nothing.
    fn check_mark(&self) -> &'static str {
        check_mark(&self.board, self.turn, self.options)
    }

    /// Why `action`, which is not among `legal`, cannot be played.
    fn why_illegal(&self, action: &ChazzAction) -> IllegalAction {
        let turn = self.turn;
        let from = match *action {
            ChazzAction::Pass => {
                let message = if board::in_check(&self.board, turn) {
                    "you are in check: a pass is only for a side with no legal move"
                } else {
                    "you have a legal move: a pass is only for a side with none"
                };
                return IllegalAction::rule("pass_not_allowed", message);
            }
            ChazzAction::SelfDestruct { from } | ChazzAction::Move { from, .. } => from,
        };
        let Some(piece) = self.board.get(from).copied() else {
            return IllegalAction::EmptySquare(from.name());
        };
        if piece.color != turn {
            return IllegalAction::NotYourPiece(from.name());
        }
        if let Some(reason) = self.movement_rule_broken(action, piece.role) {
            return reason;
        }
        let pseudo = board::pseudo_moves(&self.board, turn, self.options.self_destruct);
        if pseudo.contains(action) {
            IllegalAction::KingInCheck
        } else {
            IllegalAction::NotLegal(notation::to_machine(action))
        }
    }

    /// The Chazz-specific rule an action breaks, if it breaks one with its own code.
    fn movement_rule_broken(&self, action: &ChazzAction, role: Role) -> Option<IllegalAction> {
        let turn = self.turn;
        match *action {
            ChazzAction::Pass => None,
            ChazzAction::SelfDestruct { from } => {
                if !self.options.self_destruct {
                    Some(IllegalAction::rule(
                        "self_destruct_disabled",
                        "the self-destruct rule is switched off in this game",
                    ))
                } else if role != Role::Pawn {
                    Some(IllegalAction::rule(
                        "self_destruct_pawn_only",
                        "only a pawn can leave the board",
                    ))
                } else if from.rank != board::first_rank(turn) {
                    Some(IllegalAction::rule(
                        "self_destruct_first_rank",
                        "a pawn can leave the board only from its own first rank (rank 1 for \
                         White, rank 5 for Black)",
                    ))
                } else {
                    None
                }
            }
            ChazzAction::Move {
                from,
                to,
                promotion,
            } => {
                if promotion == Some(Role::Queen) {
                    return Some(IllegalAction::rule(
                        "no_queen_promotion",
                        "there are no queens in Do-Or-Die Chazz: promote to a rook, bishop or \
                         knight",
                    ));
                }
                let ahead = i16::from(board::forward(turn));
                let file_step = i16::from(to.file) - i16::from(from.file);
                let rank_step = i16::from(to.rank) - i16::from(from.rank);
                let reaches_last_rank = role == Role::Pawn
                    && rank_step == ahead
                    && file_step.abs() <= 1
                    && to.rank == board::last_rank(turn);
                if role == Role::Pawn && rank_step == -ahead {
                    let blocked = self.board.get(to).is_some();
                    if file_step != 0 || blocked {
                        return Some(IllegalAction::rule(
                            "no_backward_capture",
                            "a pawn moving backward goes straight back to an empty square: it \
                             never captures",
                        ));
                    }
                }
                if role == Role::Pawn && file_step == 0 && rank_step == 2 * ahead {
                    return Some(IllegalAction::rule(
                        "no_double_step",
                        "pawns move one square at a time: there are no double steps",
                    ));
                }
                if reaches_last_rank && promotion.is_none() {
                    return Some(IllegalAction::rule(
                        "promotion_required",
                        "a pawn reaching the last rank must promote to a rook, bishop or knight \
                         (add r, b or n)",
                    ));
                }
                if promotion.is_some() && !reaches_last_rank {
                    return Some(IllegalAction::rule(
                        "not_a_promotion",
                        "only a pawn stepping onto its last rank promotes",
                    ));
                }
                None
            }
        }
    }

    /// The last action as the snapshot shows it, for `action` just played (`human` its
    /// notation): built once when the action is applied, then shared by the game's copies and
    /// its snapshots.
    fn describe_last(&self, action: &ChazzAction, human: String) -> LastAction {
        let squares = match *action {
            ChazzAction::Move { from, to, .. } => vec![from, to],
            ChazzAction::SelfDestruct { from } => vec![from],
            ChazzAction::Pass => Vec::new(),
        };
        let mover = self.turn.other();
        let effects = match *action {
            ChazzAction::SelfDestruct { from } => vec![format!(
                "the {mover} pawn on {} left the board for good",
                from.name()
            )],
            ChazzAction::Pass => vec![format!("{mover} could not move and passed")],
            ChazzAction::Move { .. } => Vec::new(),
        };
        LastAction {
            machine: notation::to_machine(action),
            human,
            squares: squares
                .into_iter()
                .map(|s| SquareRef::main(s.label()))
                .collect(),
            rolls: Vec::new(),
            effects,
        }
    }
}

impl Rules for Chazz {
    type Action = ChazzAction;

    const VARIANT: Variant = Variant::Chazz;

    fn start() -> Self {
        Chazz::start_with(ChazzOptions::default())
    }

    fn from_position(notation: &str) -> Result<Self, ParsePositionError> {
        Chazz::from_position_with(notation, ChazzOptions::default())
    }

    fn position(&self) -> String {
        notation::write_position(
            &self.board,
            self.turn,
            self.halfmove_clock,
            self.fullmove_number,
        )
    }

    fn turn(&self) -> Color {
        self.turn
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn legal_actions(&self) -> Vec<ChazzAction> {
        self.status().actions.clone()
    }

    fn apply(&mut self, action: &ChazzAction) -> Result<(), IllegalAction> {
        let status = self.status();
        if status.outcome.is_some() {
            return Err(IllegalAction::GameOver);
        }
        if !status.actions.contains(action) {
            return Err(self.why_illegal(action));
        }
        let san_body = notation::san_body(&self.board, action, &status.actions);
        self.play_unchecked(action);
        let human = format!("{san_body}{}", self.check_mark());
        self.last = Some(Arc::new(self.describe_last(action, human)));
        Ok(())
    }

    fn last_action_human(&self) -> Option<String> {
        self.last.as_ref().map(|last| last.human.clone())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.status().outcome
    }

    fn play_unchecked(&mut self, action: &ChazzAction) {
        Chazz::play_unchecked(self, action);
    }

    /// A side can still mate with a pawn (it may promote), a rook, or two minor pieces; a
    /// bare king or a king and one minor cannot (FICS's rule when the opponent's flag falls).
    fn can_win(&self, color: Color) -> bool {
        let mut minors = 0;
        for (_, piece) in self.board.occupied() {
            if piece.color != color {
                continue;
            }
            match piece.role {
                Role::Knight | Role::Bishop => minors += 1,
                Role::King => {}
                _ => return true,
            }
        }
        minors >= 2
    }

    fn parse_action(&self, text: &str) -> Result<ChazzAction, ParseActionError> {
        match notation::parse_machine(text) {
            Ok(action) => Ok(action),
            // Two squares in a row: the machine form was meant, so its complaint is the useful one.
            Err(machine_error) if notation::looks_like_machine(text) => Err(machine_error),
            Err(_) => notation::parse_san(&self.board, text, &self.status().actions),
        }
    }

    fn action_to_machine(&self, action: &ChazzAction) -> String {
        notation::to_machine(action)
    }

    fn action_to_human(&self, action: &ChazzAction) -> String {
        let body = notation::san_body(&self.board, action, &self.status().actions);
        let mut after = self.board.clone();
        board::make(&mut after, self.turn, action);
        format!(
            "{body}{}",
            check_mark(&after, self.turn.other(), self.options)
        )
    }

    fn snapshot(&self) -> Snapshot {
        static BOARDS: OnceLock<Arc<[BoardSpec]>> = OnceLock::new();
        let status = self.status();
        let mut legal_actions: Vec<Label> = status
            .actions
            .iter()
            .map(notation::to_machine_label)
            .collect();
        sort_action_texts(&mut legal_actions);
        let check = if board::in_check(&self.board, self.turn) {
            board::king_square(&self.board, self.turn)
                .map(|s| vec![SquareRef::main(s.label())])
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut pieces = Vec::with_capacity(self.board.occupied_count());
        pieces.extend(
            self.board
                .occupied_in_label_order()
                .map(|(square, piece)| PlacedPiece {
                    board: Cow::Borrowed("main"),
                    square: square.label(),
                    color: piece.color,
                    role: piece.role,
                    stats: None,
                    marks: Vec::new(),
                }),
        );
        Snapshot {
            variant: Variant::Chazz,
            position: self.position(),
            boards: shared_boards(&BOARDS, || {
                vec![BoardSpec::rectangle("main", board::FILES, board::RANKS)]
            }),
            pieces,
            turn: self.turn,
            ply: self.ply,
            last_action: self.last.clone(),
            // Captured and self-destructed pieces are gone for good; nothing waits off-board.
            off_board: Vec::new(),
            check,
            legal_actions,
            outcome: status.outcome,
        }
    }

    fn forced_action(&self) -> Option<ChazzAction> {
        let status = self.status();
        (status.actions == [ChazzAction::Pass]).then_some(ChazzAction::Pass)
    }
}

/// `+` if `turn` is in check on `board`, `#` if it is mated, else nothing.
fn check_mark(board: &Board, turn: Color, options: ChazzOptions) -> &'static str {
    if !board::in_check(board, turn) {
        ""
    } else if board::has_legal_move(board, turn, options.self_destruct) {
        "+"
    } else {
        "#"
    }
}

/// The start position: kings on e1 and e5, pawns on ranks 2 and 4.
pub const START_POSITION: &str = "4k3/pppppppp/8/PPPPPPPP/4K3 w - - 0 1";
