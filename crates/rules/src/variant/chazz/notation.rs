//! Do-Or-Die Chazz notation: the FEN-like position, the UCI-like machine form of actions and
//! the SAN-like human form.
//!
//! - Position: `4k3/pppppppp/8/PPPPPPPP/4K3 w - - 0 1` (5 ranks; castling and en passant
//!   fields always `-`; the last two fields may be left out).
//! - Machine: `e2e3`, `d4d5r` (promotion to r, b or n), `a1a0` / `a5a6` (a pawn leaving the
//!   board from its first rank: White to rank 0, Black to rank 6), `pass` (also read: `0000`).
//! - Human: `e3`, `Kd2`, `exd3`, `d5=R+`, `a1-off`, `pass`, with `+` for check and `#` for mate.

use super::board::{self, Board, FILES, RANKS};
use super::ChazzAction;
use crate::error::{ParseActionError, ParsePositionError};
use crate::geometry::{parse_square_prefix, Coord, Mailbox, PairTexts};
use crate::snapshot::Label;
use crate::types::{Color, Piece, Role};
use std::borrow::Cow;
use std::sync::LazyLock;

/// What the position text says, before the game state is built from it.
pub struct ParsedPosition {
    pub board: Board,
    pub turn: Color,
    pub halfmove_clock: u32,
    pub fullmove_number: u32,
}

/// Reads a position (6 FEN fields, or the first 4) and checks it is one the rules can reach.
///
/// # Errors
/// Wrong field count or content, a queen or unknown letter, a king count other than one per
/// side, a pawn on its promotion rank, or the side not to move in check.
pub fn parse_position(text: &str) -> Result<ParsedPosition, ParsePositionError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let (placement, side, castling, en_passant, counters) = match fields.as_slice() {
        [placement, side, castling, en_passant] => (placement, side, castling, en_passant, None),
        [placement, side, castling, en_passant, halfmove, fullmove] => (
            placement,
            side,
            castling,
            en_passant,
            Some((*halfmove, *fullmove)),
        ),
        _ => {
            return Err(ParsePositionError::new(format!(
                "expected 6 fields (placement, side to move, castling, en passant, halfmove \
                 clock, move number) or the first 4, found {}",
                fields.len()
            )))
        }
    };
    if placement.contains(['q', 'Q']) {
        return Err(ParsePositionError::new(
            "there are no queens in Do-Or-Die Chazz (pawns promote to R, B or N)",
        ));
    }
    let board = Mailbox::parse_placement(board::shape(), placement, |c| {
        Piece::from_fen_char(c).filter(|p| p.role != Role::Dabbabah)
    })?;
    let turn = Color::from_fen_field(side).ok_or_else(|| {
        ParsePositionError::new(format!("side to move must be `w` or `b`, not `{side}`"))
    })?;
    if *castling != "-" {
        return Err(ParsePositionError::new(format!(
            "there is no castling in Do-Or-Die Chazz: the castling field must be `-`, not \
             `{castling}`"
        )));
    }
    if *en_passant != "-" {
        return Err(ParsePositionError::new(format!(
            "there is no en passant in Do-Or-Die Chazz (pawns never double-step): the en \
             passant field must be `-`, not `{en_passant}`"
        )));
    }
    let (halfmove_clock, fullmove_number) = match counters {
        None => (0, 1),
        Some((halfmove, fullmove)) => {
            let halfmove_clock = halfmove
                .parse::<u32>()
                .map_err(|_| ParsePositionError::new(format!("bad halfmove clock `{halfmove}`")))?;
            let fullmove_number = fullmove
                .parse::<u32>()
                .ok()
                .filter(|n| *n >= 1 && *n <= MAX_FULLMOVE)
                .ok_or_else(|| {
                    ParsePositionError::new(format!(
                        "bad move number `{fullmove}` (1 to {MAX_FULLMOVE})"
                    ))
                })?;
            (halfmove_clock, fullmove_number)
        }
    };
    check_reachable(&board, turn)?;
    Ok(ParsedPosition {
        board,
        turn,
        halfmove_clock,
        fullmove_number,
    })
}

/// Keeps the ply count (twice the move number) well inside `u32`.
const MAX_FULLMOVE: u32 = 1_000_000;

fn check_reachable(board: &Board, turn: Color) -> Result<(), ParsePositionError> {
    for color in Color::ALL {
        let kings = board
            .occupied()
            .filter(|(_, p)| **p == Piece::new(color, Role::King))
            .count();
        if kings != 1 {
            return Err(ParsePositionError::new(format!(
                "{color} must have exactly one king, found {kings}"
            )));
        }
        let stranded = board.occupied().find(|(square, p)| {
            **p == Piece::new(color, Role::Pawn) && square.rank == board::last_rank(color)
        });
        if let Some((square, _)) = stranded {
            return Err(ParsePositionError::new(format!(
                "the {color} pawn on {} stands on its promotion rank",
                square.name()
            )));
        }
    }
    if board::in_check(board, turn.other()) {
        return Err(ParsePositionError::new(format!(
            "{} is in check but it is {turn}'s turn",
            turn.other()
        )));
    }
    Ok(())
}

/// Writes the 6-field position.
pub fn write_position(board: &Board, turn: Color, halfmove_clock: u32, fullmove: u32) -> String {
    format!(
        "{} {} - - {halfmove_clock} {fullmove}",
        board.placement(|p| p.fen_char()),
        turn.fen_char()
    )
}

/// The machine form of every move between two squares, built once.
static MOVE_TEXTS: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(FILES, RANKS, ""));

/// The machine form as a snapshot label: borrowed from a table for plain moves, since a
/// snapshot lists every legal action on every move of a live game.
pub fn to_machine_label(action: &ChazzAction) -> Label {
    match *action {
        ChazzAction::Move {
            from,
            to,
            promotion: None,
        } => MOVE_TEXTS.label(from, to, || to_machine(action)),
        _ => Cow::Owned(to_machine(action)),
    }
}

/// The machine form: `e2e3`, `d4d5r`, `a1a0`, `a5a6`, `pass`.
pub fn to_machine(action: &ChazzAction) -> String {
    match *action {
        ChazzAction::Pass => "pass".to_string(),
        ChazzAction::SelfDestruct { from } => {
            // One rank beyond the pawn's own edge of the board.
            let off_rank = if from.rank == 0 { 0 } else { RANKS + 1 };
            format!("{}{}{off_rank}", from.name(), char::from(b'a' + from.file))
        }
        ChazzAction::Move {
            from,
            to,
            promotion,
        } => {
            // One string, no temporaries: a snapshot spells every legal action on every move.
            let mut text = String::with_capacity(5);
            from.push_name(&mut text);
            to.push_name(&mut text);
            if let Some(role) = promotion {
                text.push(role.char());
            }
            text
        }
    }
}

fn on_board(square: Coord) -> bool {
    square.file < FILES && square.rank < RANKS
}

/// Reads the machine form (syntax only; legality is checked by `apply`).
///
/// # Errors
/// Anything but `pass`, `0000`, two squares of the board with an optional `r`/`b`/`n`/`q`, or
/// a self-destruct one rank off the board on the pawn's file.
pub fn parse_machine(text: &str) -> Result<ChazzAction, ParseActionError> {
    if text == "pass" || text == "0000" {
        return Ok(ChazzAction::Pass);
    }
    let (from, rest) = parse_square_prefix(text)
        .filter(|(square, _)| on_board(*square))
        .ok_or_else(|| ParseActionError::new(format!("`{text}` does not start with a square")))?;
    let file = char::from(b'a' + from.file);
    if rest == format!("{file}0") {
        return if from.rank == 0 {
            Ok(ChazzAction::SelfDestruct { from })
        } else {
            Err(ParseActionError::new(format!(
                "`{text}`: only a pawn on rank 1 leaves the board to rank 0"
            )))
        };
    }
    let (to, promotion_text) = parse_square_prefix(rest)
        .ok_or_else(|| ParseActionError::new(format!("`{text}` has no destination square")))?;
    if to.rank == RANKS && to.file == from.file && to.file < FILES {
        return match (from.rank == RANKS - 1, promotion_text.is_empty()) {
            (true, true) => Ok(ChazzAction::SelfDestruct { from }),
            (true, false) => Err(ParseActionError::new(format!(
                "`{text}`: a pawn leaving the board does not promote"
            ))),
            (false, _) => Err(ParseActionError::new(format!(
                "`{text}`: only a pawn on rank 5 leaves the board to rank 6"
            ))),
        };
    }
    if !on_board(to) {
        return Err(ParseActionError::new(format!(
            "`{text}`: {} is not on the 8x5 board",
            to.name()
        )));
    }
    let promotion = match promotion_text {
        "" => None,
        "r" => Some(Role::Rook),
        "b" => Some(Role::Bishop),
        "n" => Some(Role::Knight),
        // Well-formed but never legal: `apply` explains that queens do not exist.
        "q" => Some(Role::Queen),
        other => {
            return Err(ParseActionError::new(format!(
                "`{text}`: promotion letter must be r, b or n, not `{other}`"
            )))
        }
    };
    Ok(ChazzAction::Move {
        from,
        to,
        promotion,
    })
}

/// Whether `text` starts like the machine form (a square, then a file letter), so that a
/// failure to read it should be explained in machine terms rather than as SAN.
pub fn looks_like_machine(text: &str) -> bool {
    parse_square_prefix(text).is_some_and(|(_, rest)| rest.starts_with(|c| matches!(c, 'a'..='p')))
}

/// The human form without its check mark, read in the position before the action: `e3`,
/// `Kd2`, `exd3`, `d5=R`, `e4-e3` (a pawn step another pawn could also make), `a1-off`,
/// `pass`. `legal` is the mover's legal actions, for disambiguation.
pub fn san_body(board: &Board, action: &ChazzAction, legal: &[ChazzAction]) -> String {
    let ChazzAction::Move {
        from,
        to,
        promotion,
    } = *action
    else {
        return match *action {
            ChazzAction::SelfDestruct { from } => format!("{}-off", from.name()),
            _ => "pass".to_string(),
        };
    };
    let Some(piece) = board.get(from).copied() else {
        return to_machine(action);
    };
    let capture = board.get(to).is_some();
    // Other pieces of the same kind that can reach the same square.
    let rivals: Vec<Coord> = legal
        .iter()
        .filter_map(|other| match *other {
            ChazzAction::Move {
                from: other_from,
                to: other_to,
                ..
            } if other_to == to
                && other_from != from
                && board.get(other_from).is_some_and(|p| p.role == piece.role) =>
            {
                Some(other_from)
            }
            _ => None,
        })
        .collect();
    let mut text = String::new();
    if piece.role == Role::Pawn {
        if capture {
            text.push(char::from(b'a' + from.file));
            text.push('x');
        } else if !rivals.is_empty() {
            // A pawn in front and one behind can both step onto this square.
            text.push_str(&from.name());
            text.push('-');
        }
    } else {
        text.push(piece.role.upper_char());
        if !rivals.is_empty() {
            let file_unique = rivals.iter().all(|r| r.file != from.file);
            let rank_unique = rivals.iter().all(|r| r.rank != from.rank);
            if file_unique {
                text.push(char::from(b'a' + from.file));
            } else if rank_unique {
                text.push_str(&(u32::from(from.rank) + 1).to_string());
            } else {
                text.push_str(&from.name());
            }
        }
        if capture {
            text.push('x');
        }
    }
    text.push_str(&to.name());
    if let Some(role) = promotion {
        text.push('=');
        text.push(role.upper_char());
    }
    text
}

/// What a SAN-like move says, before it is matched against the legal moves.
struct SanPattern {
    role: Role,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Coord,
    promotion: Option<Role>,
}

/// Reads the human form and finds the one legal action it names.
///
/// # Errors
/// Text that is not SAN-like, names no legal action, or names several.
pub fn parse_san(
    board: &Board,
    text: &str,
    legal: &[ChazzAction],
) -> Result<ChazzAction, ParseActionError> {
    let body = text.trim_end_matches(['+', '#', '!', '?']);
    if let Some(square) = body.strip_suffix("-off") {
        return Coord::parse(square)
            .filter(|s| on_board(*s))
            .map(|from| ChazzAction::SelfDestruct { from })
            .ok_or_else(|| ParseActionError::new(format!("`{text}`: bad square before -off")));
    }
    let pattern = san_pattern(body)
        .ok_or_else(|| ParseActionError::new(format!("`{text}` is not a SAN-like move")))?;
    if pattern.promotion == Some(Role::Queen) || pattern.role == Role::Queen {
        return Err(ParseActionError::new(
            "there are no queens in Do-Or-Die Chazz (promote to R, B or N)",
        ));
    }
    let matches: Vec<&ChazzAction> = legal
        .iter()
        .filter(|action| match **action {
            ChazzAction::Move {
                from,
                to,
                promotion,
            } => {
                to == pattern.to
                    && promotion == pattern.promotion
                    && pattern.from_file.is_none_or(|f| f == from.file)
                    && pattern.from_rank.is_none_or(|r| r == from.rank)
                    && board.get(from).is_some_and(|p| p.role == pattern.role)
            }
            _ => false,
        })
        .collect();
    match matches.as_slice() {
        [only] => Ok(**only),
        [] => Err(ParseActionError::new(format!(
            "no legal move matches `{text}`"
        ))),
        several => Err(ParseActionError::new(format!(
            "`{text}` is ambiguous: {}",
            several
                .iter()
                .map(|a| to_machine(a))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn san_pattern(body: &str) -> Option<SanPattern> {
    if !body.is_ascii() || body.is_empty() {
        return None;
    }
    let (body, promotion) = match body.split_once('=') {
        Some((head, letter)) => (head, Some(promotion_role(letter)?)),
        None => match body.char_indices().last() {
            Some((at, c)) if at >= 2 && c.is_ascii_uppercase() => {
                (body.get(..at)?, Some(promotion_role(&c.to_string())?))
            }
            _ => (body, None),
        },
    };
    let (role, rest) = match body.chars().next() {
        Some(c) if c.is_ascii_uppercase() => (Role::from_char(c)?, body.get(1..)?),
        _ => (Role::Pawn, body),
    };
    let cleaned: String = rest
        .chars()
        .filter(|c| !matches!(c, 'x' | '-' | ':'))
        .collect();
    // The destination is the last file letter and the digits after it.
    let digits = cleaned.bytes().rev().take_while(u8::is_ascii_digit).count();
    let split = cleaned.len().checked_sub(digits + 1)?;
    let to = Coord::parse(cleaned.get(split..)?).filter(|s| on_board(*s))?;
    let mut from_file = None;
    let mut from_rank = None;
    let hint = cleaned.get(..split)?;
    let mut hint_chars = hint.chars().peekable();
    if let Some(c) = hint_chars.next_if(|c| c.is_ascii_lowercase()) {
        from_file = Some((c as u8).checked_sub(b'a')?);
    }
    let rank_text: String = hint_chars.collect();
    if !rank_text.is_empty() {
        let rank: u8 = rank_text.parse().ok()?;
        from_rank = Some(rank.checked_sub(1)?);
    }
    Some(SanPattern {
        role,
        from_file,
        from_rank,
        to,
        promotion,
    })
}

fn promotion_role(letter: &str) -> Option<Role> {
    match letter {
        "R" | "r" => Some(Role::Rook),
        "B" | "b" => Some(Role::Bishop),
        "N" | "n" => Some(Role::Knight),
        "Q" | "q" => Some(Role::Queen),
        _ => None,
    }
}
