//! Davey Drehs' position and action notation.
//!
//! Position: eight space-separated fields (the last six may be left off and then take their
//! defaults `- - - 0 1 0`):
//!
//! ```text
//! rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - - 0 1 0
//! placement turn castling stats returns halfmove fullmove next-roll
//! ```
//!
//! - `stats`: `-`, or comma-separated `<square>=<life>[e<ears>][n][p]` for every piece that
//!   is not fresh: `e4=3` (3 LP), `d5=6e2` (6 LP, 2 ears), `c1=3n` (black necklace: a
//!   returned bishop), `d8=12e1p` (promoted), `c4=4s` (a pawn a declared pairing leaves
//!   single). Pieces not listed have full LP and no ears.
//! - `returns`: `-`, or the home squares (`c1 f1 c8 f8`, written together as `c1f8`) whose
//!   original bishop is dead and may still return.
//! - `next-roll`: the index of the next die the game rolls (see [`crate::dice`]).
//!
//! Actions, machine form then human form:
//!
//! | action | machine | human |
//! | --- | --- | --- |
//! | move | `e2e4` | `e2-e4` |
//! | promotion | `e7e8q` | `e7-e8=Q` |
//! | castling | `e1g1` | `O-O` |
//! | attack | `d1xd7` | `Qd1xd7` |
//! | attack that promotes on a kill | `e7xd8n` | `e7xd8=N` |
//! | teleport | `g1@e5` | `Ng1@e5` |
//! | teleport and attack | `g1@e5xf7` | `Ng1@e5xf7` |
//! | cannon | `a1^a5` | `Ra1^a5` |
//! | bishop return | `return:c1` | `Bc1 returns` |
//! | king heal | `heal:e1` | `Ke1 heals` |
//! | pawn move declaring dyads | `e3e4/d4e4` | `e3-e4 dyad d4-e4` |

use super::dyads;
use super::{
    is_dark, king_home, max_life, Action, Drehs, Dyads, Unit, BISHOP_HOMES, CASTLES,
    FIFTY_MOVE_PLIES,
};
use crate::geometry::{
    parse_square_prefix, push_number, Coord, Mailbox, OrderedTexts, SquareIndex, TextTable,
    KNIGHT_LEAPS,
};
use crate::snapshot::Label;
use crate::{Color, ParseActionError, ParsePositionError, Piece, Role};
use std::sync::LazyLock;

/// The castling letters in the order of `Drehs::castling`.
const CASTLING_LETTERS: [char; 4] = ['K', 'Q', 'k', 'q'];
/// Ears above this are refused: no game has that many kills.
const MAX_EARS: u8 = 99;

fn bad(message: impl Into<String>) -> ParsePositionError {
    ParsePositionError::new(message)
}

/// Reads a position.
pub(super) fn parse_position(text: &str) -> Result<Drehs, ParsePositionError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(2..=8).contains(&fields.len()) {
        return Err(bad("expected 2 to 8 fields: placement turn castling stats returns halfmove fullmove next-roll"));
    }
    let field = |i: usize, default: &'static str| fields.get(i).copied().unwrap_or(default);
    let board = Mailbox::parse_placement(super::shape(), field(0, ""), |c| {
        Piece::from_fen_char(c)
            .filter(|p| p.role != Role::Dabbabah)
            .map(Unit::fresh)
    })?;
    let turn = Color::from_fen_field(field(1, "w")).ok_or_else(|| bad("turn must be w or b"))?;
    let mut game = Drehs::from_parts(board, turn);
    check_pieces(&game)?;
    parse_stats(&mut game, field(3, "-"))?;
    check_bishops(&game)?;
    game.castling = parse_castling(&game, field(2, "-"))?;
    game.returns = parse_returns(&game, field(4, "-"))?;
    game.halfmove = field(5, "0")
        .parse()
        .map_err(|_| bad("halfmove clock must be a whole number"))?;
    if game.halfmove > FIFTY_MOVE_PLIES {
        return Err(bad(format!("halfmove clock above {FIFTY_MOVE_PLIES}")));
    }
    game.fullmove = field(6, "1")
        .parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| bad("fullmove number must be a whole number from 1"))?;
    let next_roll: u64 = field(7, "0")
        .parse()
        .map_err(|_| bad("next-roll index must be a whole number"))?;
    game.dice.source.set_next_index(next_roll);
    game.history = vec![game.position_key()];
    Ok(game)
}

fn check_pieces(game: &Drehs) -> Result<(), ParsePositionError> {
    let mut kings = [0; 2];
    for (c, u) in game.board.occupied() {
        if u.piece.role == Role::Pawn && (c.rank == 0 || c.rank == 7) {
            return Err(bad(format!(
                "pawn on {}: pawns never stand on the first or last rank",
                c.name()
            )));
        }
        if u.piece.role == Role::King {
            if let Some(count) = kings.get_mut(u.piece.color.index()) {
                *count += 1;
            }
        }
    }
    if kings.iter().any(|&k| k > 1) {
        return Err(bad("at most one king per side"));
    }
    if kings == [0, 0] {
        return Err(bad("both kings are missing"));
    }
    Ok(())
}

/// At most one original bishop per colour and square colour, so a dead one's home is known.
fn check_bishops(game: &Drehs) -> Result<(), ParsePositionError> {
    for &(color, home) in &BISHOP_HOMES {
        let originals = game
            .board
            .occupied()
            .filter(|(c, u)| {
                u.is_original_bishop() && u.piece.color == color && is_dark(*c) == is_dark(home)
            })
            .count();
        if originals > 1 {
            return Err(bad(format!(
                "two original {color} bishops on {} squares: mark the promoted one with `p`",
                if is_dark(home) { "dark" } else { "light" }
            )));
        }
    }
    Ok(())
}

fn parse_castling(game: &Drehs, text: &str) -> Result<[bool; 4], ParsePositionError> {
    let mut rights = [false; 4];
    if text == "-" {
        return Ok(rights);
    }
    for letter in text.chars() {
        let index = CASTLING_LETTERS
            .iter()
            .position(|&l| l == letter)
            .ok_or_else(|| bad(format!("unknown castling letter `{letter}`")))?;
        let (color, corner, ..) = CASTLES[index % 4];
        let king_ok = game.board.get(king_home(color)).map(|u| u.piece)
            == Some(Piece::new(color, Role::King));
        let rook_ok =
            game.board.get(corner).map(|u| u.piece) == Some(Piece::new(color, Role::Rook));
        if !king_ok || !rook_ok {
            return Err(bad(format!(
                "castling right `{letter}` needs the king and the rook on their home squares"
            )));
        }
        if let Some(right) = rights.get_mut(index) {
            if *right {
                return Err(bad(format!("castling letter `{letter}` twice")));
            }
            *right = true;
        }
    }
    Ok(rights)
}

fn parse_returns(game: &Drehs, text: &str) -> Result<[bool; 4], ParsePositionError> {
    let mut returns = [false; 4];
    if text == "-" {
        return Ok(returns);
    }
    let mut rest = text;
    while !rest.is_empty() {
        let (square, after) =
            parse_square_prefix(rest).ok_or_else(|| bad("returns must list c1, f1, c8 or f8"))?;
        rest = after;
        let index = BISHOP_HOMES
            .iter()
            .position(|&(_, home)| home == square)
            .ok_or_else(|| bad(format!("{} is not a bishop's home square", square.name())))?;
        let (color, home) = BISHOP_HOMES[index % 4];
        let alive = game.board.occupied().any(|(c, u)| {
            u.is_original_bishop() && u.piece.color == color && is_dark(c) == is_dark(home)
        });
        if alive {
            return Err(bad(format!(
                "the original bishop of {} is still on the board",
                home.name()
            )));
        }
        if let Some(flag) = returns.get_mut(index) {
            if *flag {
                return Err(bad(format!("{} listed twice in returns", home.name())));
            }
            *flag = true;
        }
    }
    Ok(returns)
}

fn parse_stats(game: &mut Drehs, text: &str) -> Result<(), ParsePositionError> {
    if text == "-" {
        return Ok(());
    }
    let mut seen = Vec::new();
    for entry in text.split(',') {
        let (square, rest) = entry
            .split_once('=')
            .ok_or_else(|| bad(format!("stats entry `{entry}` is not <square>=<life>…")))?;
        let at = Coord::parse(square)
            .filter(|c| c.file < 8 && c.rank < 8)
            .ok_or_else(|| bad(format!("bad square `{square}` in stats")))?;
        if seen.contains(&at) {
            return Err(bad(format!("{square} listed twice in stats")));
        }
        seen.push(at);
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let (life_text, mut flags) = rest.split_at(digits);
        let life: u8 = life_text
            .parse()
            .map_err(|_| bad(format!("stats entry `{entry}` needs life points")))?;
        let mut ears = 0;
        if let Some(after) = flags.strip_prefix('e') {
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            let (ears_text, rest) = after.split_at(digits);
            ears = ears_text
                .parse()
                .ok()
                .filter(|e| *e <= MAX_EARS)
                .ok_or_else(|| {
                    bad(format!(
                        "stats entry `{entry}`: ears must be 0 to {MAX_EARS}"
                    ))
                })?;
            flags = rest;
        }
        let (black_necklace, promoted, declared_single) = parse_marks(entry, flags)?;
        let unit = game
            .board
            .get_mut(at)
            .ok_or_else(|| bad(format!("stats for the empty square {square}")))?;
        let role = unit.piece.role;
        if life == 0 || life > max_life(role) {
            return Err(bad(format!(
                "{square}: a {} has 1 to {} LP",
                role.as_str(),
                max_life(role)
            )));
        }
        if black_necklace && role != Role::Bishop {
            return Err(bad(format!(
                "{square}: only bishops wear the black necklace"
            )));
        }
        if promoted && matches!(role, Role::Pawn | Role::King) {
            return Err(bad(format!(
                "{square}: a {} is never promoted",
                role.as_str()
            )));
        }
        if promoted && black_necklace {
            return Err(bad(format!("{square}: a returned bishop is not promoted")));
        }
        unit.life = life;
        unit.ears = ears;
        unit.black_necklace = black_necklace;
        unit.promoted = promoted;
        unit.declared_single = declared_single;
    }
    game.check_declared_singles()
}

/// The marks ending a stats entry, in their order: `n` (black necklace), `p` (promoted), `s`
/// (declared single).
fn parse_marks(entry: &str, flags: &str) -> Result<(bool, bool, bool), ParsePositionError> {
    let (necklace, rest) = flags
        .strip_prefix('n')
        .map_or((false, flags), |r| (true, r));
    let (promoted, rest) = rest.strip_prefix('p').map_or((false, rest), |r| (true, r));
    let (single, rest) = rest.strip_prefix('s').map_or((false, rest), |r| (true, r));
    if !rest.is_empty() {
        return Err(bad(format!(
            "stats entry `{entry}`: unknown flags `{flags}`"
        )));
    }
    Ok((necklace, promoted, single))
}

/// Writes a position: the inverse of [`parse_position`].
pub(super) fn write_position(game: &Drehs) -> String {
    // Written into one string without temporaries: every snapshot of a live game carries it.
    let mut out = game.board.placement(|u| u.piece.fen_char());
    out.push(' ');
    out.push(game.turn.fen_char());
    out.push(' ');
    let field_start = out.len();
    out.extend(
        CASTLING_LETTERS
            .iter()
            .zip(game.castling)
            .filter(|(_, on)| *on)
            .map(|(l, _)| *l),
    );
    dash_if_empty(&mut out, field_start);
    out.push(' ');
    let field_start = out.len();
    let worn = game.board.occupied().filter(|(_, u)| {
        u.life != max_life(u.piece.role)
            || u.ears > 0
            || u.black_necklace
            || u.promoted
            || u.declared_single
    });
    for (c, u) in worn {
        if out.len() > field_start {
            out.push(',');
        }
        c.push_name(&mut out);
        out.push('=');
        push_number(&mut out, u.life);
        if u.ears > 0 {
            out.push('e');
            push_number(&mut out, u.ears);
        }
        if u.black_necklace {
            out.push('n');
        }
        if u.promoted {
            out.push('p');
        }
        if u.declared_single {
            out.push('s');
        }
    }
    dash_if_empty(&mut out, field_start);
    out.push(' ');
    let field_start = out.len();
    for ((_, home), _) in BISHOP_HOMES.iter().zip(game.returns).filter(|(_, on)| *on) {
        home.push_name(&mut out);
    }
    dash_if_empty(&mut out, field_start);
    for counter in [
        u64::from(game.halfmove),
        u64::from(game.fullmove),
        game.next_roll_index(),
    ] {
        out.push(' ');
        push_number(&mut out, counter);
    }
    out
}

/// Writes `-` for a field that came out empty (it started at `field_start`).
fn dash_if_empty(out: &mut String, field_start: usize) {
    if out.len() == field_start {
        out.push('-');
    }
}

fn bad_action(message: impl Into<String>) -> ParseActionError {
    ParseActionError::new(message)
}

/// A square of the 8x8 board at the start of `text`.
fn square_prefix(text: &str) -> Result<(Coord, &str), ParseActionError> {
    parse_square_prefix(text)
        .filter(|(c, _)| c.file < 8 && c.rank < 8)
        .ok_or_else(|| bad_action(format!("expected a square at `{text}`")))
}

fn promotion_role(letter: &str) -> Result<Option<Role>, ParseActionError> {
    match letter {
        "" => Ok(None),
        "q" => Ok(Some(Role::Queen)),
        "r" => Ok(Some(Role::Rook)),
        "b" => Ok(Some(Role::Bishop)),
        "n" => Ok(Some(Role::Knight)),
        other => Err(bad_action(format!("unknown promotion `{other}`"))),
    }
}

/// Reads an action in machine form, or in the human form (piece letters, `-`, `=Q`, `O-O`,
/// `Bc1 returns`, `Ke1 heals`).
pub(super) fn parse_action(game: &Drehs, text: &str) -> Result<Action, ParseActionError> {
    let (body, declared) = dyads::split_declaration(text.trim())?;
    let action = parse_undeclared(game, body)?;
    if declared.is_default() {
        return Ok(action);
    }
    match action {
        Action::Move { .. } | Action::Attack { .. } => {
            Ok(game.without_default_declaration(action.with_dyads(declared)))
        }
        _ => Err(bad_action("only a move or an attack declares dyads")),
    }
}

/// [`parse_action`] of an action without a declaration of dyads.
fn parse_undeclared(game: &Drehs, text: &str) -> Result<Action, ParseActionError> {
    if let Some(square) = text.strip_prefix("heal:") {
        let (king, rest) = square_prefix(square)?;
        return trailing(rest, Action::Heal { king });
    }
    if let Some(square) = text.strip_prefix("return:") {
        let (home, rest) = square_prefix(square)?;
        return trailing(rest, Action::Return { home });
    }
    if let Some(action) = parse_human_special(game, text) {
        return Ok(action);
    }
    let machine = normalize_human(text);
    let (from, rest) = square_prefix(&machine)?;
    let (op, rest) = match rest.chars().next() {
        Some(c @ ('x' | '@' | '^')) => (Some(c), &rest[1..]),
        _ => (None, rest),
    };
    let (to, rest) = square_prefix(rest)?;
    match op {
        None => Ok(Action::Move {
            from,
            to,
            promotion: promotion_role(rest)?,
            dyads: Dyads::DEFAULT,
        }),
        Some('x') => Ok(Action::Attack {
            from,
            to,
            promotion: promotion_role(rest)?,
            dyads: Dyads::DEFAULT,
        }),
        Some('^') => trailing(rest, Action::Cannon { from, to }),
        _ => {
            let attack = match rest.strip_prefix('x') {
                Some(target) => {
                    let (target, rest) = square_prefix(target)?;
                    if !rest.is_empty() {
                        return Err(bad_action(format!("unexpected `{rest}`")));
                    }
                    Some(target)
                }
                None if rest.is_empty() => None,
                None => return Err(bad_action(format!("unexpected `{rest}`"))),
            };
            Ok(Action::Teleport { from, to, attack })
        }
    }
}

fn trailing(rest: &str, action: Action) -> Result<Action, ParseActionError> {
    if rest.is_empty() {
        Ok(action)
    } else {
        Err(bad_action(format!("unexpected `{rest}`")))
    }
}

/// Castling and the two word forms of the human notation.
fn parse_human_special(game: &Drehs, text: &str) -> Option<Action> {
    let king = king_home(game.turn);
    let castle = |file: u8| Action::Move {
        from: king,
        to: Coord::new(file, king.rank),
        promotion: None,
        dyads: Dyads::DEFAULT,
    };
    match text {
        "O-O" | "0-0" => return Some(castle(6)),
        "O-O-O" | "0-0-0" => return Some(castle(2)),
        _ => {}
    }
    let (piece, word) = text.split_once(' ')?;
    let square = Coord::parse(piece.get(1..)?)?;
    match (piece.get(..1)?, word) {
        ("B", "returns") => Some(Action::Return { home: square }),
        ("K", "heals") => Some(Action::Heal { king: square }),
        _ => None,
    }
}

/// Human form to machine form: drops a leading piece letter and `-`, turns `=Q` into `q`.
fn normalize_human(text: &str) -> String {
    let body = match text.chars().next() {
        Some('N' | 'B' | 'R' | 'Q' | 'K' | 'P') => &text[1..],
        _ => text,
    };
    let mut out = body.replace('-', "");
    if let Some(at) = out.find('=') {
        let promotion = out[at + 1..].to_ascii_lowercase();
        out.truncate(at);
        out.push_str(&promotion);
    }
    out
}

/// The squares of the board, numbered for [`ACTION_TEXTS`].
const SQUARES: SquareIndex = SquareIndex::new(8, 8);

/// How many pairs of squares there are: each of the plain moves, attacks and teleports of
/// [`ACTION_TEXTS`] is one.
const PAIRS: usize = 64 * 64;

/// The machine notation of the actions that make up nearly every legal list, built once and
/// numbered by [`table_index`]: plain moves, attacks and teleports by their pair of squares
/// (`e2e4`, `d1xd7`, `g1@e5`), then the teleports that attack on landing (`b1@e5xd7`) by the
/// pair of from and landing squares and then by the knight leap from the landing square to
/// the target ([`KNIGHT_LEAPS`]). Those are about half of a position's legal actions, since
/// every empty square a knight can land on is one action per enemy a leap away. 45,056 texts
/// in all, whose byte order the table knows, so that a snapshot's list comes out sorted
/// without comparing texts.
static ACTION_TEXTS: LazyLock<OrderedTexts> = LazyLock::new(|| {
    let texts = TextTable::new(3 * PAIRS + PAIRS * KNIGHT_LEAPS.len(), |i, out| {
        if i < 3 * PAIRS {
            let (from, to) = SQUARES.pair_squares(i % PAIRS);
            from.push_name(out);
            out.push_str(["", "x", "@"][i / PAIRS]);
            to.push_name(out);
            return;
        }
        let i = i - 3 * PAIRS;
        let (from, to) = SQUARES.pair_squares(i / KNIGHT_LEAPS.len());
        let target = KNIGHT_LEAPS
            .get(i % KNIGHT_LEAPS.len())
            .and_then(|&(df, dr)| super::shape().step(to, df, dr));
        // A leap off the board has no action, and no text.
        if let Some(target) = target {
            from.push_name(out);
            out.push('@');
            to.push_name(out);
            out.push('x');
            target.push_name(out);
        }
    });
    OrderedTexts::new(texts)
});

/// The number of `action`'s text in [`ACTION_TEXTS`], or `None` for an action spelled out
/// (promotions, declared dyads, cannon shots, returns, heals).
fn table_index(action: &Action) -> Option<usize> {
    match *action {
        Action::Move {
            from,
            to,
            promotion: None,
            dyads: Dyads::DEFAULT,
        } => SQUARES.pair(from, to),
        Action::Attack {
            from,
            to,
            promotion: None,
            dyads: Dyads::DEFAULT,
        } => Some(PAIRS + SQUARES.pair(from, to)?),
        Action::Teleport {
            from,
            to,
            attack: None,
        } => Some(2 * PAIRS + SQUARES.pair(from, to)?),
        Action::Teleport {
            from,
            to,
            attack: Some(target),
        } => {
            let leap = (
                i8::try_from(target.file).ok()? - i8::try_from(to.file).ok()?,
                i8::try_from(target.rank).ok()? - i8::try_from(to.rank).ok()?,
            );
            let leap_index = KNIGHT_LEAPS.iter().position(|&l| l == leap)?;
            Some(3 * PAIRS + SQUARES.pair(from, to)? * KNIGHT_LEAPS.len() + leap_index)
        }
        _ => None,
    }
}

/// The labels of `actions` in byte order, as a snapshot lists them: borrowed from
/// [`ACTION_TEXTS`] for the plain moves, attacks and teleports that make up nearly every
/// legal list, spelled for the rest.
pub(super) fn sorted_action_labels(actions: &[Action]) -> Vec<Label> {
    ACTION_TEXTS.sorted_labels(actions, |a| table_index(a), |a| action_machine(a))
}

/// The machine form, written into one string: a snapshot spells every legal action of the
/// position on every move of a live game.
pub(super) fn action_machine(action: &Action) -> String {
    let mut text = String::with_capacity(12);
    match *action {
        Action::Move {
            from,
            to,
            promotion,
            dyads,
        } => {
            from.push_name(&mut text);
            to.push_name(&mut text);
            text.extend(promotion.map(Role::char));
            dyads::push_machine(dyads, &mut text);
        }
        Action::Attack {
            from,
            to,
            promotion,
            dyads,
        } => {
            from.push_name(&mut text);
            text.push('x');
            to.push_name(&mut text);
            text.extend(promotion.map(Role::char));
            dyads::push_machine(dyads, &mut text);
        }
        Action::Teleport { from, to, attack } => {
            from.push_name(&mut text);
            text.push('@');
            to.push_name(&mut text);
            if let Some(target) = attack {
                text.push('x');
                target.push_name(&mut text);
            }
        }
        Action::Cannon { from, to } => {
            from.push_name(&mut text);
            text.push('^');
            to.push_name(&mut text);
        }
        Action::Return { home } => {
            text.push_str("return:");
            home.push_name(&mut text);
        }
        Action::Heal { king } => {
            text.push_str("heal:");
            king.push_name(&mut text);
        }
    }
    text
}

/// The human form, read in `game` before the action is played.
pub(super) fn action_human(game: &Drehs, action: &Action) -> String {
    let letter = |c: Coord| match game.board.get(c).map(|u| u.piece.role) {
        Some(Role::Pawn) | None => String::new(),
        Some(role) => role.upper_char().to_string(),
    };
    let promotion = |p: Option<Role>| {
        p.map(|r| format!("={}", r.upper_char()))
            .unwrap_or_default()
    };
    match *action {
        Action::Move {
            from,
            to,
            promotion: p,
            dyads,
        } => {
            let is_king = game
                .board
                .get(from)
                .is_some_and(|u| u.piece.role == Role::King);
            if is_king && from.file.abs_diff(to.file) == 2 {
                return if to.file > from.file { "O-O" } else { "O-O-O" }.to_string();
            }
            format!(
                "{}{}-{}{}{}",
                letter(from),
                from.name(),
                to.name(),
                promotion(p),
                dyads::human(dyads)
            )
        }
        Action::Attack {
            from,
            to,
            promotion: p,
            dyads,
        } => format!(
            "{}{}x{}{}{}",
            letter(from),
            from.name(),
            to.name(),
            promotion(p),
            dyads::human(dyads)
        ),
        Action::Teleport { from, to, attack } => match attack {
            Some(target) => format!("N{}@{}x{}", from.name(), to.name(), target.name()),
            None => format!("N{}@{}", from.name(), to.name()),
        },
        Action::Cannon { from, to } => format!("R{}^{}", from.name(), to.name()),
        Action::Return { home } => format!("B{} returns", home.name()),
        Action::Heal { king } => format!("K{} heals", king.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    #[test]
    fn positions_round_trip() {
        for text in [
            super::super::START_POSITION,
            "4k3/8/8/3p4/4P3/8/8/4K3 b - e4=3,d5=2e1 - 7 20 42",
            "r3kb1r/8/8/8/8/8/8/R1B1K2R w KQkq c1=3n,f8=6p - 0 1 0",
            "4k3/8/8/8/8/8/8/4K3 w - - c1f1c8f8 99 3 5",
            "8/8/8/8/8/8/8/4K3 b - - - 0 9 12",
        ] {
            let game = parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(write_position(&game), text);
        }
        let short = parse_position("4k3/8/8/8/8/8/8/4K3 w").map(|g| g.position());
        assert_eq!(short, Ok("4k3/8/8/8/8/8/8/4K3 w - - - 0 1 0".to_string()));
    }

    #[test]
    fn bad_positions_are_refused() {
        for text in [
            "",
            "8/8/8/8/8/8/8/8 w",
            "4k3/8/8/8/8/8/8/4K3 x",
            "4k3/8/8/8/8/8/8/4K3 w K",
            "4k3/8/8/8/8/8/8/4K3 w - e1=2",
            "4k3/8/8/8/8/8/8/4K3 w - e1=1n",
            "4k3/8/8/8/8/8/8/4K3 w - e2=1",
            "4k3/8/8/8/8/8/8/4K3 w - e1=1,e1=1",
            "4k3/8/8/8/8/8/8/4K3 w - e1=1e100",
            "4k3/8/8/8/8/8/8/4K3 w - e1=1x",
            "4k3/8/8/8/8/8/8/4K3 w - - c2",
            "4k3/8/8/8/8/8/8/2B1K3 w - - c1",
            "4k3/8/8/8/8/8/8/B1B1K3 w - -",
            "4k3/8/8/8/8/8/8/4K3 w - - - 101",
            "4k3/8/8/8/8/8/8/4K3 w - - - 0 0",
            "4k3/8/8/8/8/8/8/4K3 w - - - 0 1 x",
            "4k3/8/8/8/8/8/8/4K3 w - - - 0 1 0 extra",
            "4kk2/8/8/8/8/8/8/4K3 w",
            "P3k3/8/8/8/8/8/8/4K3 w",
        ] {
            assert!(parse_position(text).is_err(), "{text}");
        }
        // A promoted second bishop is fine once marked.
        assert!(parse_position("4k3/8/8/8/8/8/8/B1B1K3 w - a1=6p").is_ok());
    }

    #[test]
    fn actions_round_trip_in_both_forms() {
        let game = Drehs::start();
        for text in [
            "e2e4",
            "e7e8q",
            "e1g1",
            "d1xd7",
            "e7xd8n",
            "g1@e5",
            "g1@e5xf7",
            "a1^a5",
            "return:c1",
            "heal:e1",
        ] {
            let action = parse_action(&game, text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(action_machine(&action), text);
            // The snapshot's label, borrowed from a table or spelled, is the same text.
            assert_eq!(sorted_action_labels(&[action]), [text]);
        }
        for (human, machine) in [
            ("Ng1-f3", "g1f3"),
            ("e2-e4", "e2e4"),
            ("O-O", "e1g1"),
            ("O-O-O", "e1c1"),
            ("e7-e8=Q", "e7e8q"),
            ("Bc1 returns", "return:c1"),
            ("Ke1 heals", "heal:e1"),
            ("Ra1^a5", "a1^a5"),
            ("Ng1@e5xf7", "g1@e5xf7"),
        ] {
            let action = parse_action(&game, human).map(|a| action_machine(&a));
            assert_eq!(action, Ok(machine.to_string()), "{human}");
        }
        for bad in [
            "",
            "e2",
            "e2e9",
            "e2xe4k",
            "a1^a5q",
            "g1@e5x",
            "heal:",
            "return:z9",
            "e2e4e5",
        ] {
            assert!(parse_action(&game, bad).is_err(), "{bad}");
        }
    }
}
