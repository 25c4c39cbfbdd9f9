//! Suicide move notation.
//!
//! - Machine form: UCI, `e2e4`, `e7e8q`, and `a7a8k` for a promotion to king.
//! - Human form: SAN without check marks (there is no check): `e4`, `Nf3`, `exd5`, `Kxe2`,
//!   `a8=K`, with file/rank disambiguation as in SAN.
//!
//! Parsing accepts both forms. The promotion letter may be of either case (FICS accepts
//! `e8=k`), and trailing `+`, `#`, `!`, `?` are ignored. SAN is resolved against every capture
//! and quiet move of the position, compulsory capture aside, so that a quiet move typed when
//! a capture is due reaches `apply` and is refused there with `must_capture`.

use super::position::{push_square_name, role_index, role_of, square_coord, Move, Position, PAWN};
use super::SuicideMove;
use crate::error::ParseActionError;
use crate::geometry::{Coord, MOVE_TEXTS_8X8};
use crate::snapshot::Label;
use crate::types::Role;
use std::borrow::Cow;

/// The UCI form as a snapshot label: borrowed from a table but for promotions, since a
/// snapshot lists every legal move on every move of a live game.
pub fn machine_label(action: &SuicideMove) -> Label {
    match action.promotion {
        None => MOVE_TEXTS_8X8.label(square_coord(action.from), square_coord(action.to), || {
            machine(action)
        }),
        Some(_) => Cow::Owned(machine(action)),
    }
}

/// The UCI form of a move.
pub fn machine(action: &SuicideMove) -> String {
    // Sized for the longest action (`e7e8q`): one allocation per action, and a snapshot
    // writes every legal action of the position on every move.
    let mut text = String::with_capacity(5);
    push_square_name(action.from, &mut text);
    push_square_name(action.to, &mut text);
    if let Some(role) = action.promotion {
        text.push(role.char());
    }
    text
}

/// The SAN-like form of `m`, disambiguated against `candidates` (the moves of the position).
pub fn human(position: &Position, m: Move, candidates: &[Move]) -> String {
    let capture = position.is_capture(m);
    let mut text = String::new();
    if m.role == PAWN {
        if capture {
            text.push(file_char(m.from));
            text.push('x');
        }
        push_square_name(m.to, &mut text);
        if m.promotion != PAWN {
            text.push('=');
            text.push(role_of(m.promotion).upper_char());
        }
        return text;
    }
    text.push(role_of(m.role).upper_char());
    let rivals: Vec<&Move> = candidates
        .iter()
        .filter(|c| c.role == m.role && c.to == m.to && c.from != m.from)
        .collect();
    if !rivals.is_empty() {
        let same_file = rivals.iter().any(|c| c.from % 8 == m.from % 8);
        let same_rank = rivals.iter().any(|c| c.from / 8 == m.from / 8);
        if !same_file {
            text.push(file_char(m.from));
        } else if !same_rank {
            text.push(rank_char(m.from));
        } else {
            push_square_name(m.from, &mut text);
        }
    }
    if capture {
        text.push('x');
    }
    push_square_name(m.to, &mut text);
    text
}

fn file_char(square: u8) -> char {
    char::from(b'a' + square % 8)
}

fn rank_char(square: u8) -> char {
    char::from(b'1' + square / 8)
}

fn square_index(coord: Coord) -> Option<u8> {
    (coord.file < 8 && coord.rank < 8).then_some(coord.rank * 8 + coord.file)
}

/// Reads a move in UCI or SAN-like form; SAN is resolved against `candidates`.
pub fn parse(
    text: &str,
    candidates: &[Move],
    position: &Position,
) -> Result<SuicideMove, ParseActionError> {
    let trimmed = text.trim().trim_end_matches(['+', '#', '!', '?']);
    if trimmed.is_empty() {
        return Err(ParseActionError::new("empty move"));
    }
    if let Some(action) = parse_uci(trimmed) {
        return Ok(action);
    }
    if matches!(trimmed, "O-O" | "O-O-O" | "0-0" | "0-0-0") {
        return Err(ParseActionError::new("there is no castling in Suicide"));
    }
    parse_san(trimmed, candidates, position)
}

fn parse_uci(text: &str) -> Option<SuicideMove> {
    if !text.is_ascii() || !(4..=5).contains(&text.len()) {
        return None;
    }
    let from = square_index(Coord::parse(text.get(0..2)?)?)?;
    let to = square_index(Coord::parse(text.get(2..4)?)?)?;
    let promotion = match text.get(4..) {
        Some("") | None => None,
        Some(letter) => Some(promotion_role(letter)?),
    };
    Some(SuicideMove {
        from,
        to,
        promotion,
    })
}

/// A promotion letter of either case: q, r, b, n or k.
fn promotion_role(letter: &str) -> Option<Role> {
    let mut chars = letter.chars();
    let role = Role::from_char(chars.next()?)?;
    let allowed = chars.next().is_none() && role != Role::Pawn && role_index(role).is_some();
    allowed.then_some(role)
}

/// What a SAN-like move says, before it is matched against the moves of the position.
struct San {
    role: u8,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: u8,
    promotion: Option<Role>,
}

fn parse_san(
    text: &str,
    candidates: &[Move],
    position: &Position,
) -> Result<SuicideMove, ParseActionError> {
    let san = read_san(text).ok_or_else(|| {
        ParseActionError::new(format!(
            "`{text}` is neither UCI (e2e4, a7a8k) nor SAN (e4, Nf3, exd5, a8=K)"
        ))
    })?;
    let promotion = san.promotion.and_then(role_index).unwrap_or(PAWN);
    let matching: Vec<&Move> = candidates
        .iter()
        .filter(|m| {
            m.role == san.role
                && m.to == san.to
                && m.promotion == promotion
                && san.from_file.is_none_or(|f| m.from % 8 == f)
                && san.from_rank.is_none_or(|r| m.from / 8 == r)
        })
        .collect();
    match matching.as_slice() {
        [m] => Ok(SuicideMove::from_move(**m)),
        [] => Err(ParseActionError::new(format!(
            "no {} of the side to move can play `{text}` ({})",
            role_of(san.role).as_str(),
            position.turn
        ))),
        several => Err(ParseActionError::new(format!(
            "`{text}` is ambiguous: {}",
            several
                .iter()
                .map(|m| machine(&SuicideMove::from_move(**m)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn read_san(text: &str) -> Option<San> {
    if !text.is_ascii() {
        return None;
    }
    let (body, promotion) = split_promotion(text)?;
    let (role, rest) = match body.chars().next()? {
        c @ ('N' | 'B' | 'R' | 'Q' | 'K' | 'P') => {
            (role_index(Role::from_char(c)?)?, body.get(1..)?)
        }
        _ => (PAWN, body),
    };
    let rest: String = rest.chars().filter(|&c| c != 'x' && c != '-').collect();
    if rest.len() < 2 {
        return None;
    }
    let (prefix, target) = rest.split_at(rest.len() - 2);
    let to = square_index(Coord::parse(target)?)?;
    let mut from_file = None;
    let mut from_rank = None;
    for c in prefix.chars() {
        match c {
            'a'..='h' if from_file.is_none() && from_rank.is_none() => {
                from_file = Some(c as u8 - b'a')
            }
            '1'..='8' if from_rank.is_none() => from_rank = Some(c as u8 - b'1'),
            _ => return None,
        }
    }
    if promotion.is_some() && role != PAWN {
        return None;
    }
    Some(San {
        role,
        from_file,
        from_rank,
        to,
        promotion,
    })
}

/// Splits off a promotion suffix: `=Q`, `=k`, or a bare letter after the target (`a8K`).
fn split_promotion(text: &str) -> Option<(&str, Option<Role>)> {
    if let Some((body, letter)) = text.split_once('=') {
        return Some((body, Some(promotion_role(letter)?)));
    }
    let last = text.chars().last()?;
    let before = text.chars().rev().nth(1)?;
    if last.is_ascii_alphabetic() && matches!(before, '1' | '8') {
        let body = text.get(..text.len() - 1)?;
        return Some((body, Some(promotion_role(&last.to_string())?)));
    }
    Some((text, None))
}
