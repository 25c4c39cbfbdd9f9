//! Chad notation: the FEN-like position (`<placement> <side> - - <halfmoves> <moves>`), the
//! machine form of a move (two square names, `d5d9`) and the SAN-like human form (`Rgxh8=Q+`).
//!
//! Reading a position also checks what the placement alone cannot (one king per side in its
//! castle, no rook that should be a queen), so every parsed game obeys the rules.

use super::moves::ray;
use super::{is_castle, promotes, Cells, Chad, ChadMove, MAX_MEN_PER_SIDE, SIZE};
use crate::error::{ParseActionError, ParsePositionError};
use crate::geometry::{
    parse_square_prefix, push_number, write_placement, Coord, Mailbox, PairTexts, Shape,
    KING_STEPS, ORTHOGONAL,
};
use crate::history::History;
use crate::{Color, Piece, Role, Rules};
use std::sync::LazyLock;

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
pub(super) static MOVE_TEXTS: LazyLock<PairTexts> =
    LazyLock::new(|| PairTexts::new(SIZE, SIZE, ""));
impl Chad {
    /// The check mark the last move earns in human notation: `+` when the side to move is in
    /// check, `#` when that check is mate, nothing otherwise.
    pub(super) fn check_mark(&self, has_legal_move: impl FnOnce() -> bool) -> &'static str {
        if !self.is_check(self.turn) {
            ""
        } else if has_legal_move() {
            "+"
        } else {
            "#"
        }
    }
    /// The human notation of a legal `action` up to its check mark, which only the position
    /// after it can tell: the man's letter, the disambiguation, `x` for a capture, the square
    /// and `=Q` for a promotion.
    pub(super) fn human_without_check_mark(&self, action: ChadMove, piece: Piece) -> String {
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

    /// Reads a position in Chad's notation (the body of [`Rules::from_position`]).
    pub(super) fn parse_position(notation: &str) -> Result<Chad, ParsePositionError> {
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

    /// Writes the position in Chad's notation (the body of [`Rules::position`]).
    pub(super) fn write_position(&self) -> String {
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

    /// Reads a move in the machine form, with the optional `q` suffix, or in the human form
    /// (the body of [`Rules::parse_action`]).
    pub(super) fn parse_action_text(&self, text: &str) -> Result<ChadMove, ParseActionError> {
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

    /// The human notation of `action`, check mark included (the body of
    /// [`Rules::action_to_human`]); the machine form when the move is not legal here.
    pub(super) fn human(&self, action: &ChadMove) -> String {
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
