//! Duel Chess text: the position notation, the machine action notation and the SAN-like human
//! form. `docs/rules/duel.md` documents all three with examples.
//!
//! Position: `<main> <duel> <side> <en passant> <returned pawns> <halfmoves> <fullmoves>`,
//! for instance the start `dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 1`.
//!
//! Actions: `a2a3` (Main move), `b2a3@x1` (Main capture, victim to X1, or on a full Duel board
//! the capturer's own man on X1 dies and the victim takes its place), `x1x2` (Duel move),
//! `x1y2>c3` (Duel capture, capturer returns to c3).

use super::{duel_shape, main_shape, Action, Duel, Man, HOLE, MAIN_SQUARES};
use crate::geometry::{push_number, Coord, Mailbox, OrderedTexts, SquareIndex, TextTable};
use crate::history::History;
use crate::snapshot::Label;
use crate::types::{Color, Piece, Role};
use crate::{ParseActionError, ParsePositionError};
use std::sync::LazyLock;

/// The machine name of a Duel square: `x1` … `z3`.
pub fn duel_square_name(c: Coord) -> String {
    lettered_from_x(c).name()
}

/// [`duel_square_name`] as a snapshot label.
pub fn duel_square_label(c: Coord) -> crate::snapshot::Label {
    lettered_from_x(c).label()
}

/// Appends [`duel_square_name`] to `out`.
fn push_duel_square_name(c: Coord, out: &mut String) {
    lettered_from_x(c).push_name(out);
}

/// The Duel square as a coordinate whose file letters start at `x` (the 24th letter), so the
/// main board's naming serves it.
fn lettered_from_x(c: Coord) -> Coord {
    Coord::new(c.file + (b'x' - b'a'), c.rank)
}

/// Reads a two-character square name whose file runs from `first_file` over `files` letters
/// and whose rank runs from 1 to `ranks`.
fn parse_square(text: &str, first_file: u8, files: u8, ranks: u8) -> Option<Coord> {
    match text.as_bytes() {
        [file, rank] => {
            let file = file.checked_sub(first_file).filter(|f| *f < files)?;
            let rank = rank.checked_sub(b'1').filter(|r| *r < ranks)?;
            Some(Coord::new(file, rank))
        }
        _ => None,
    }
}

/// Parses a Main square (`a1` … `e7`); c4 does not exist.
pub fn parse_main_square(text: &str) -> Option<Coord> {
    parse_square(text, b'a', 5, 7).filter(|&c| c != HOLE)
}

/// Parses a Duel square in machine form (`x1` … `z3`).
pub fn parse_duel_square(text: &str) -> Option<Coord> {
    parse_square(text, b'x', 3, 3)
}

/// The squares of the Duel board (3x3); the Main board's are [`MAIN_SQUARES`].
const DUEL_SQUARES: SquareIndex = SquareIndex::new(3, 3);

/// How many texts of each kind [`ACTION_TEXTS`] holds, in its order: Main moves, Main
/// captures with a Duel square, Duel moves, Duel captures with a Main square.
const MAIN_PAIRS: usize = MAIN_SQUARES.count() * MAIN_SQUARES.count();
const MAIN_PLACES: usize = MAIN_PAIRS * DUEL_SQUARES.count();
const DUEL_PAIRS: usize = DUEL_SQUARES.count() * DUEL_SQUARES.count();
const DUEL_BACKS: usize = DUEL_PAIRS * MAIN_SQUARES.count();

/// The machine form of every action's common shapes, built once and numbered by
/// [`table_index`]: Main moves (`b2b3`), Main captures with the Duel square the victim goes to
/// (`b2a3@x1`), Duel moves (`x1y2`) and Duel captures with the Main square the capturer
/// returns to (`x1y2>c3`). Captures fan out over every square the piece may go to, so they
/// make up much of a legal list; the table knows its texts' byte order, so a snapshot's list
/// comes out sorted without comparing texts.
static ACTION_TEXTS: LazyLock<OrderedTexts> = LazyLock::new(|| {
    let count = MAIN_PAIRS + MAIN_PLACES + DUEL_PAIRS + DUEL_BACKS;
    OrderedTexts::new(TextTable::new(count, |i, out| {
        write_action(&table_action(i), out);
    }))
});

/// The action numbered `index` in [`ACTION_TEXTS`]: the inverse of [`table_index`].
fn table_action(index: usize) -> Action {
    let third = |i: usize, pairs: SquareIndex, extra: SquareIndex| {
        let (from, to) = pairs.pair_squares(i / extra.count());
        (from, to, extra.square(i % extra.count()))
    };
    if index < MAIN_PAIRS {
        let (from, to) = MAIN_SQUARES.pair_squares(index);
        return Action::Main {
            from,
            to,
            place: None,
        };
    }
    let index = index - MAIN_PAIRS;
    if index < MAIN_PLACES {
        let (from, to, place) = third(index, MAIN_SQUARES, DUEL_SQUARES);
        return Action::Main {
            from,
            to,
            place: Some(place),
        };
    }
    let index = index - MAIN_PLACES;
    if index < DUEL_PAIRS {
        let (from, to) = DUEL_SQUARES.pair_squares(index);
        return Action::Duel {
            from,
            to,
            back: None,
        };
    }
    let (from, to, back) = third(index - DUEL_PAIRS, DUEL_SQUARES, MAIN_SQUARES);
    Action::Duel {
        from,
        to,
        back: Some(back),
    }
}

/// The number of `action`'s text in [`ACTION_TEXTS`], or `None` for a square off the boards.
fn table_index(action: &Action) -> Option<usize> {
    let triple = |pairs: SquareIndex, extra: SquareIndex, from, to, third| {
        Some(pairs.pair(from, to)? * extra.count() + extra.of(third)?)
    };
    match *action {
        Action::Main {
            from,
            to,
            place: None,
        } => MAIN_SQUARES.pair(from, to),
        Action::Main {
            from,
            to,
            place: Some(place),
        } => Some(MAIN_PAIRS + triple(MAIN_SQUARES, DUEL_SQUARES, from, to, place)?),
        Action::Duel {
            from,
            to,
            back: None,
        } => Some(MAIN_PAIRS + MAIN_PLACES + DUEL_SQUARES.pair(from, to)?),
        Action::Duel {
            from,
            to,
            back: Some(back),
        } => Some(
            MAIN_PAIRS
                + MAIN_PLACES
                + DUEL_PAIRS
                + triple(DUEL_SQUARES, MAIN_SQUARES, from, to, back)?,
        ),
    }
}

/// The labels of `actions` in byte order, as a snapshot lists them, borrowed from
/// [`ACTION_TEXTS`].
pub(super) fn sorted_action_labels(actions: &[Action]) -> Vec<Label> {
    ACTION_TEXTS.sorted_labels(actions, |a| table_index(a), |a| action_machine(a))
}

/// The machine notation of an action.
pub(super) fn action_machine(action: &Action) -> String {
    // One string, no temporaries: a snapshot spells every legal action on every move.
    let mut out = String::with_capacity(7);
    write_action(action, &mut out);
    out
}

/// Appends the machine form of `action` to `out`.
fn write_action(action: &Action, out: &mut String) {
    match *action {
        Action::Main { from, to, place } => {
            from.push_name(out);
            to.push_name(out);
            if let Some(place) = place {
                out.push('@');
                push_duel_square_name(place, out);
            }
        }
        Action::Duel { from, to, back } => {
            push_duel_square_name(from, out);
            push_duel_square_name(to, out);
            if let Some(back) = back {
                out.push('>');
                back.push_name(out);
            }
        }
    }
}

/// Reads the machine notation (syntax only).
pub(super) fn parse_action(text: &str) -> Result<Action, ParseActionError> {
    let bad = || {
        ParseActionError::new(format!(
            "`{text}` is not a Duel Chess action (examples: a2a3, b2a3@x1, x1x2, x1y2>c3)"
        ))
    };
    if !text.is_ascii() || !(text.len() == 4 || text.len() == 7) {
        return Err(bad());
    }
    let head = text.get(0..2).ok_or_else(bad)?;
    let target = text.get(2..4).ok_or_else(bad)?;
    let tail = text.get(4..).unwrap_or("");
    // The optional third square: `@` and a Duel square after a Main move, `>` and a Main
    // square after a Duel move. `None` when the tail is malformed.
    let third = |mark: char, parse: fn(&str) -> Option<Coord>| match tail.strip_prefix(mark) {
        Some(square) => parse(square).map(Some),
        None => tail.is_empty().then_some(None),
    };
    if let (Some(from), Some(to)) = (parse_main_square(head), parse_main_square(target)) {
        let place = third('@', parse_duel_square).ok_or_else(bad)?;
        return Ok(Action::Main { from, to, place });
    }
    if let (Some(from), Some(to)) = (parse_duel_square(head), parse_duel_square(target)) {
        let back = third('>', parse_main_square).ok_or_else(bad)?;
        return Ok(Action::Duel { from, to, back });
    }
    if head == HOLE.name() || target == HOLE.name() || tail.ends_with(&HOLE.name()) {
        return Err(ParseActionError::new("there is no square c4"));
    }
    Err(bad())
}

/// The SAN letter of a role, or nothing for pawns.
fn san_letter(role: Role) -> String {
    match role {
        Role::Pawn => String::new(),
        _ => role.upper_char().to_string(),
    }
}

/// What SAN writes between the piece letter and the target so the move is unambiguous among
/// `rivals` (the other origins of the same kind of man reaching the same target).
fn disambiguation(from: Coord, rivals: &[Coord], name: impl Fn(Coord) -> String) -> String {
    if rivals.is_empty() {
        return String::new();
    }
    let full = name(from);
    let (file, rank) = full.split_at(1);
    if rivals.iter().all(|r| r.file != from.file) {
        file.to_string()
    } else if rivals.iter().all(|r| r.rank != from.rank) {
        rank.to_string()
    } else {
        full
    }
}

/// The human form of `action` without its check suffix: SAN on the Main board, the same with
/// upper-case squares on the Duel board, `@X1` for the placement (plus `xN` naming the own man
/// sacrificed on a full Duel board) and `>c3` for a return.
pub(super) fn human_stem(game: &Duel, action: &Action, legal: &[Action]) -> String {
    let upper = |c: Coord| duel_square_name(c).to_uppercase();
    let (from, to, on_main, capture) = match *action {
        Action::Main { from, to, place } => (from, to, true, place.is_some()),
        Action::Duel { from, to, back } => (from, to, false, back.is_some()),
    };
    let role_at = |c: Coord| {
        if on_main {
            game.main_at(c).map(|m| m.piece.role)
        } else {
            game.duel_at(c).map(|p| p.role)
        }
    };
    let name = |c: Coord| if on_main { c.name() } else { upper(c) };
    let Some(role) = role_at(from) else {
        return action_machine(action);
    };
    let mut rivals: Vec<Coord> = legal
        .iter()
        .filter_map(|a| {
            let (f, t) = match *a {
                Action::Main { from, to, .. } if on_main => (from, to),
                Action::Duel { from, to, .. } if !on_main => (from, to),
                _ => return None,
            };
            (t == to && f != from && role_at(f) == Some(role)).then_some(f)
        })
        .collect();
    rivals.dedup();
    let mut out = san_letter(role);
    if role != Role::Pawn {
        out.push_str(&disambiguation(from, &rivals, name));
    } else if capture {
        out.extend(name(from).chars().take(1));
    }
    if capture {
        out.push('x');
    }
    out.push_str(&name(to));
    match *action {
        Action::Main {
            place: Some(place), ..
        } => {
            out.push('@');
            out.push_str(&upper(place));
            if let Some(sacrificed) = game.duel_at(place) {
                out.push('x');
                out.push(sacrificed.role.upper_char());
            }
        }
        Action::Duel {
            back: Some(back), ..
        } => {
            out.push('>');
            out.push_str(&back.name());
        }
        _ => {}
    }
    out
}

fn position_error(message: impl Into<String>) -> ParsePositionError {
    ParsePositionError::new(message)
}

/// Reads the position notation.
pub(super) fn parse_position(text: &str) -> Result<Duel, ParsePositionError> {
    let fields: Vec<&str> = text.split(' ').collect();
    let [main_text, duel_text, side, ep_text, returned_text, half_text, full_text] =
        fields.as_slice()
    else {
        return Err(position_error(
            "expected 7 space-separated fields: main duel side en-passant returned halfmoves fullmoves",
        ));
    };
    let mut main = Mailbox::parse_placement(main_shape(), main_text, |c| {
        Piece::from_fen_char(c)
            .filter(|p| p.role != Role::Queen)
            .map(Man::new)
    })?;
    let duel = Mailbox::parse_placement(duel_shape(), duel_text, |c| {
        Piece::from_fen_char(c).filter(|p| p.role != Role::Queen && p.role != Role::King)
    })
    .map_err(|e| position_error(format!("Duel board: {e} (kings never go there)")))?;
    let turn = Color::from_fen_field(side)
        .ok_or_else(|| position_error(format!("side to move `{side}` is not w or b")))?;
    check_one_king_each(&main)?;
    mark_returned_pawns(&mut main, returned_text)?;
    let en_passant = if *ep_text == "-" {
        None
    } else {
        let square = parse_main_square(ep_text)
            .ok_or_else(|| position_error(format!("`{ep_text}` is not a Main square")))?;
        check_en_passant(&main, turn, square)?;
        Some(square)
    };
    let (halfmoves, fullmoves, ply) = parse_move_counters(half_text, full_text, turn)?;
    let mut game = Duel {
        main,
        duel,
        turn,
        en_passant,
        halfmoves,
        fullmoves,
        ply,
        history: History::default(),
        last: None,
        generated: std::sync::OnceLock::new(),
    };
    if Duel::king_attacked(&game.main, turn.other()) {
        return Err(position_error(
            "the side not to move is in check".to_string(),
        ));
    }
    // Keep the e.p. square only when a pawn can use it, so equal positions print alike.
    if let Some(square) = game.en_passant {
        if !en_passant_is_usable(&game.main, turn, square) {
            game.en_passant = None;
        }
    }
    game.record_position();
    Ok(game)
}

/// Each side has exactly one king on the Main board.
fn check_one_king_each(main: &Mailbox<Man>) -> Result<(), ParsePositionError> {
    for color in Color::ALL {
        let kings = main
            .occupied()
            .filter(|(_, m)| m.piece == Piece::new(color, Role::King))
            .count();
        if kings != 1 {
            return Err(position_error(format!(
                "{color} must have exactly one king on the Main board, found {kings}"
            )));
        }
    }
    Ok(())
}

/// Marks the pawns on the squares of the `returned` field (`-` or a comma list) as back from
/// the Duel board.
fn mark_returned_pawns(
    main: &mut Mailbox<Man>,
    returned_text: &str,
) -> Result<(), ParsePositionError> {
    if returned_text == "-" {
        return Ok(());
    }
    let mut seen = Vec::new();
    for name in returned_text.split(',') {
        let square = parse_main_square(name)
            .ok_or_else(|| position_error(format!("`{name}` is not a Main square")))?;
        if seen.contains(&square) {
            return Err(position_error(format!("{name} is listed twice")));
        }
        seen.push(square);
        match main.get_mut(square) {
            Some(man) if man.piece.role == Role::Pawn => man.returned = true,
            _ => {
                return Err(position_error(format!(
                    "returned square {name} holds no pawn"
                )))
            }
        }
    }
    Ok(())
}

/// The halfmove clock, the move number and the ply they give with `turn` to move.
fn parse_move_counters(
    half_text: &str,
    full_text: &str,
    turn: Color,
) -> Result<(u32, u32, u32), ParsePositionError> {
    let halfmoves: u32 = half_text
        .parse()
        .map_err(|_| position_error(format!("halfmove clock `{half_text}` is not a number")))?;
    let fullmoves: u32 = full_text
        .parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| position_error(format!("move number `{full_text}` is not 1 or more")))?;
    let ply = (fullmoves - 1)
        .checked_mul(2)
        .and_then(|p| p.checked_add(u32::from(turn == Color::Black)))
        .ok_or_else(|| position_error("move number too large"))?;
    Ok((halfmoves, fullmoves, ply))
}

/// Whether a pawn of `turn` stands ready to take en passant on `square`.
fn en_passant_is_usable(main: &Mailbox<Man>, turn: Color, square: Coord) -> bool {
    // Both sides' pawns land on rank 4 after a double step on this 7-rank board.
    let pawn_rank = Coord::new(square.file, 3);
    [-1, 1].into_iter().any(|side| {
        pawn_rank.offset(side, 0).is_some_and(|c| {
            main.get(c)
                .is_some_and(|m| m.piece == Piece::new(turn, Role::Pawn))
        })
    })
}

/// An en-passant square must sit behind a pawn of the side that just moved, which cannot have
/// double-stepped if it is a returned pawn, with the square and the pawn's start square empty.
fn check_en_passant(
    main: &Mailbox<Man>,
    turn: Color,
    square: Coord,
) -> Result<(), ParsePositionError> {
    let (skipped_rank, pawn_rank, start_rank) = match turn {
        Color::White => (4, 3, 5),
        Color::Black => (2, 3, 1),
    };
    let pawn = main.get(Coord::new(square.file, pawn_rank));
    let consistent = square.rank == skipped_rank
        && main.get(square).is_none()
        && main.get(Coord::new(square.file, start_rank)).is_none()
        && pawn.is_some_and(|m| m.piece == Piece::new(turn.other(), Role::Pawn) && !m.returned);
    if consistent {
        Ok(())
    } else {
        Err(position_error(format!(
            "{} is not a square a pawn just skipped",
            square.name()
        )))
    }
}

/// Writes the position notation.
pub(super) fn print_position(game: &Duel) -> String {
    // Written into one string without temporaries: every snapshot of a live game carries it.
    let mut out = game.main.placement(|m| m.piece.fen_char());
    out.push(' ');
    out.push_str(&game.duel.placement(|p| p.fen_char()));
    out.push(' ');
    out.push(game.turn.fen_char());
    out.push(' ');
    match game.en_passant {
        Some(square) => square.push_name(&mut out),
        None => out.push('-'),
    }
    out.push(' ');
    let returned_start = out.len();
    for (square, _) in game.main.occupied().filter(|(_, m)| m.returned) {
        if out.len() > returned_start {
            out.push(',');
        }
        square.push_name(&mut out);
    }
    if out.len() == returned_start {
        out.push('-');
    }
    out.push(' ');
    push_number(&mut out, game.halfmoves);
    out.push(' ');
    push_number(&mut out, game.fullmoves);
    out
}
