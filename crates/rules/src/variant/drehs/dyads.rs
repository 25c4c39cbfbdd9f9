//! Pawn dyads: which pawns pair up, and the pairing a mover declares.
//!
//! Same-colour pawns side by side on one rank, off their initial rank, stand in a *row*. A
//! row pairs up as far as it can: an even row entirely, an odd row all but one pawn, its
//! *single*, which stands at an odd place counting from the a-file side (1st, 3rd, …) so that
//! the pawns on each side of it pair up. Which one is the seed's declaration ("in the case of
//! 3 or more side-by-side pawns, the pawns in dyas must be immediately declared"): the action
//! that brings a pawn into a row of three or more may name the row's pairs (`e3e4/d4e4`);
//! without a declaration the row pairs from the a-file side and its last pawn is single.
//!
//! The state is one flag per pawn, [`Unit::declared_single`]: a single the mover chose that
//! is not the default. It holds while its pawn still stands where a single can stand (an odd
//! place of an odd row, not the last); when a pawn leaves or dies and the row no longer allows
//! it, the row goes back to the default. A game without declarations never has a flag, so
//! its pairing is the a-file default throughout.

use super::{Action, Drehs, BIT_SQUARES};
use crate::geometry::{parse_square_prefix, set_bits, Coord};
use crate::{Color, ParseActionError, ParsePositionError, Piece, Role};

/// The dyads an action declares, as the squares of each pair's a-file-side pawn (one bit per
/// square, `rank * 8 + file`). Empty: no declaration, the default pairing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dyads(u64);

impl Dyads {
    /// No declaration: the row pairs from the a-file side.
    pub const DEFAULT: Dyads = Dyads(0);

    pub fn is_default(self) -> bool {
        self.0 == 0
    }

    fn bit(c: Coord) -> u64 {
        BIT_SQUARES.of(c).map_or(0, |i| 1u64 << i)
    }

    fn contains(self, left: Coord) -> bool {
        self.0 & Dyads::bit(left) != 0
    }

    /// The a-file-side squares of the declared pairs, a-file first.
    pub fn lefts(self) -> impl Iterator<Item = Coord> {
        set_bits(self.0).map(|i| BIT_SQUARES.square(i))
    }
}

/// Side-by-side pawns of one colour on one rank: `len` pawns from file `first`.
#[derive(Clone, Copy)]
struct Row {
    rank: u8,
    first: u8,
    len: u8,
}

impl Row {
    fn square(self, offset: u8) -> Coord {
        Coord::new(self.first + offset, self.rank)
    }

    /// The pairs of the row when the pawn at `single` (an even offset) stays single.
    fn pairing(self, single: u8) -> Dyads {
        let lefts = (0..self.len.saturating_sub(1)).filter(|&k| {
            (k < single && k.is_multiple_of(2)) || (k > single && (k - single) % 2 == 1)
        });
        Dyads(lefts.fold(0, |bits, k| bits | Dyads::bit(self.square(k))))
    }

    /// The offset of the pawn `dyads` leaves single (the first not in a pair).
    fn single_under(self, dyads: Dyads) -> u8 {
        let mut k = 0;
        while k < self.len && dyads.contains(self.square(k)) {
            k += 2;
        }
        k
    }

    /// Whether a declaration can choose: an odd row of three or more.
    fn has_choice(self) -> bool {
        self.len >= 3 && !self.len.is_multiple_of(2)
    }
}

fn initial_rank(color: Color) -> u8 {
    match color {
        Color::White => 1,
        Color::Black => 6,
    }
}

impl Drehs {
    /// The row of `color`'s pawns through `at`, counting a pawn on `at` whether or not one
    /// stands there yet (a pawn arriving). None on the initial rank, where no dyads form.
    fn row_through(&self, at: Coord, color: Color) -> Option<Row> {
        if at.rank == initial_rank(color) {
            return None;
        }
        let is_pawn = |file: u8| {
            self.board.get(Coord::new(file, at.rank)).map(|u| u.piece)
                == Some(Piece::new(color, Role::Pawn))
        };
        let mut first = at.file;
        while first > 0 && is_pawn(first - 1) {
            first -= 1;
        }
        let mut last = at.file;
        while last < 7 && is_pawn(last + 1) {
            last += 1;
        }
        Some(Row {
            rank: at.rank,
            first,
            len: last - first + 1,
        })
    }

    /// The offset of `row`'s single pawn: the declared one, else the last; the row's length
    /// (no pawn) for an even row.
    fn single_of(&self, row: Row) -> u8 {
        if row.len.is_multiple_of(2) {
            return row.len;
        }
        (0..row.len - 1)
            .step_by(2)
            .find(|&k| {
                self.board
                    .get(row.square(k))
                    .is_some_and(|u| u.declared_single)
            })
            .unwrap_or(row.len - 1)
    }

    /// The other pawn of the dyad `c`'s pawn belongs to, if any.
    pub(super) fn dyad_partner(&self, c: Coord) -> Option<Coord> {
        let unit = self.board.get(c).filter(|u| u.piece.role == Role::Pawn)?;
        let row = self.row_through(c, unit.piece.color)?;
        let k = c.file - row.first;
        let single = self.single_of(row);
        let partner = if k == single {
            return None;
        } else if (k < single && k.is_multiple_of(2)) || (k > single && (k - single) % 2 == 1) {
            k + 1
        } else {
            k.checked_sub(1)?
        };
        (partner < row.len).then(|| row.square(partner))
    }

    /// The declarations open to a pawn of `color` arriving on `to`: every pairing of the row
    /// it forms but the default, the a-file-side single first.
    pub(super) fn declarable(&self, to: Coord, color: Color) -> impl Iterator<Item = Dyads> {
        let row = self.row_through(to, color).filter(|r| r.has_choice());
        row.into_iter()
            .flat_map(|row| (0..row.len - 1).step_by(2).map(move |s| row.pairing(s)))
    }

    /// `action` as the generator lists it: a declaration naming the default pairing of the
    /// row a pawn's move or attack forms is no declaration.
    pub(super) fn without_default_declaration(&self, action: Action) -> Action {
        let (Action::Move { from, to, .. } | Action::Attack { from, to, .. }) = action else {
            return action;
        };
        let mover_pawn =
            self.board.get(from).map(|u| u.piece) == Some(Piece::new(self.turn, Role::Pawn));
        let default = self
            .row_through(to, self.turn)
            .filter(|r| mover_pawn && r.has_choice())
            .map(|r| r.pairing(r.len - 1));
        match action {
            Action::Move { dyads, .. } | Action::Attack { dyads, .. } if Some(dyads) != default => {
                action
            }
            _ => action.with_dyads(Dyads::DEFAULT),
        }
    }

    /// After an action: the row a pawn arrived in (at `arrival`) takes the pairing it
    /// declared, the default when none; any declared single that can no longer be one goes.
    pub(super) fn settle_dyads(&mut self, arrival: Option<(Coord, Dyads)>) {
        let color = self.turn;
        let arrived = arrival.filter(|&(to, _)| {
            self.board.get(to).map(|u| u.piece) == Some(Piece::new(color, Role::Pawn))
        });
        if let Some((to, dyads)) = arrived {
            if let Some(row) = self.row_through(to, color) {
                let single = (!dyads.is_default()).then(|| row.single_under(dyads));
                for k in 0..row.len {
                    if let Some(unit) = self.board.get_mut(row.square(k)) {
                        unit.declared_single = Some(k) == single;
                    }
                }
            }
        }
        let flagged: Vec<Coord> = self
            .board
            .occupied()
            .filter(|(_, u)| u.declared_single)
            .map(|(c, _)| c)
            .collect();
        for c in flagged {
            if !self.may_be_declared_single(c) {
                if let Some(unit) = self.board.get_mut(c) {
                    unit.declared_single = false;
                }
            }
        }
    }

    /// Refuses a position whose `s` marks (declared singles) stand where no single can.
    pub(super) fn check_declared_singles(&self) -> Result<(), ParsePositionError> {
        let misplaced = self
            .board
            .occupied()
            .find(|&(c, u)| u.declared_single && !self.may_be_declared_single(c));
        match misplaced {
            Some((c, _)) => Err(ParsePositionError::new(format!(
                "{}: `s` marks the one pawn a declared pairing leaves single: the 1st, 3rd… \
                 (not the last) of an odd row of three or more pawns",
                c.name()
            ))),
            None => Ok(()),
        }
    }

    /// Whether the piece on `c` may carry a declared single's flag: a pawn at an odd place
    /// (1st, 3rd, …) of an odd row of three or more, not the last, and the row's only flag.
    pub(super) fn may_be_declared_single(&self, c: Coord) -> bool {
        let Some(unit) = self.board.get(c).filter(|u| u.piece.role == Role::Pawn) else {
            return false;
        };
        let Some(row) = self.row_through(c, unit.piece.color) else {
            return false;
        };
        let k = c.file - row.first;
        let flags = (0..row.len)
            .filter(|&j| {
                self.board
                    .get(row.square(j))
                    .is_some_and(|u| u.declared_single)
            })
            .count();
        row.has_choice() && k.is_multiple_of(2) && k + 1 < row.len && flags == 1
    }
}

impl Action {
    /// The same action with `dyads` declared (only a move or an attack declares).
    pub(super) fn with_dyads(self, dyads: Dyads) -> Action {
        match self {
            Action::Move {
                from,
                to,
                promotion,
                ..
            } => Action::Move {
                from,
                to,
                promotion,
                dyads,
            },
            Action::Attack {
                from,
                to,
                promotion,
                ..
            } => Action::Attack {
                from,
                to,
                promotion,
                dyads,
            },
            other => other,
        }
    }

    /// What the action declares (the default for actions that declare nothing).
    pub(super) fn dyads(&self) -> Dyads {
        match *self {
            Action::Move { dyads, .. } | Action::Attack { dyads, .. } => dyads,
            _ => Dyads::DEFAULT,
        }
    }
}

/// Splits a declaration off an action's text: machine `e3e4/d4e4` (one `/` and two squares
/// per pair), human `e3-e4 dyad d4-e4` or `f5xe6 dyads a6-b6 d6-e6`.
pub(super) fn split_declaration(text: &str) -> Result<(&str, Dyads), ParseActionError> {
    let (body, pairs): (&str, Vec<&str>) = if let Some((body, rest)) = text.split_once(" dyad") {
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        (body, rest.split_whitespace().collect())
    } else if let Some((body, rest)) = text.split_once('/') {
        (body, rest.split('/').collect())
    } else {
        return Ok((text, Dyads::DEFAULT));
    };
    let mut dyads = Dyads::DEFAULT;
    for pair in &pairs {
        let left = parse_pair(pair).ok_or_else(|| {
            ParseActionError::new(format!(
                "`{pair}` is not a dyad: two side-by-side squares, a-file side first (`d4e4`)"
            ))
        })?;
        if dyads.contains(left) {
            return Err(ParseActionError::new(format!("dyad `{pair}` named twice")));
        }
        dyads.0 |= Dyads::bit(left);
    }
    if dyads.is_default() {
        return Err(ParseActionError::new(
            "a declaration names at least one dyad",
        ));
    }
    Ok((body.trim_end(), dyads))
}

/// The left square of a pair written `d4e4` or `d4-e4`.
fn parse_pair(text: &str) -> Option<Coord> {
    let (left, rest) = parse_square_prefix(text)?;
    let (right, rest) = parse_square_prefix(rest.strip_prefix('-').unwrap_or(rest))?;
    let side_by_side = right.rank == left.rank && right.file == left.file + 1 && right.file < 8;
    (rest.is_empty() && left.rank < 8 && side_by_side).then_some(left)
}

/// Appends the machine form of a declaration: `/d4e4` per pair.
pub(super) fn push_machine(dyads: Dyads, out: &mut String) {
    for left in dyads.lefts() {
        out.push('/');
        left.push_name(out);
        Coord::new(left.file + 1, left.rank).push_name(out);
    }
}

/// The human form of a declaration: ` dyad d4-e4`, ` dyads a6-b6 d6-e6`; empty for none.
pub(super) fn human(dyads: Dyads) -> String {
    let pairs: Vec<String> = dyads
        .lefts()
        .map(|l| format!("{}-{}", l.name(), Coord::new(l.file + 1, l.rank).name()))
        .collect();
    match pairs.len() {
        0 => String::new(),
        1 => format!(" dyad {}", pairs.join(" ")),
        _ => format!(" dyads {}", pairs.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Drehs;
    use crate::geometry::Coord;
    use crate::{Color, Role, Rules};

    fn game(text: &str) -> Drehs {
        Drehs::from_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn at(name: &str) -> Coord {
        Coord::parse(name).unwrap_or_else(|| panic!("{name}"))
    }

    fn play(game: &mut Drehs, text: &str) {
        let action = game
            .parse_action(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        game.apply(&action)
            .unwrap_or_else(|e| panic!("{text} at {}: {e}", game.position()));
    }

    fn legal_from(game: &Drehs, from: &str) -> Vec<String> {
        let actions = game.legal_actions();
        let texts = actions.iter().map(|a| game.action_to_machine(a));
        texts.filter(|t| t.starts_with(from)).collect()
    }

    /// The partners of the pawns on `squares`, by name ("-" for none).
    fn partners(game: &Drehs, squares: &[&str]) -> Vec<String> {
        let partner = |s: &&str| {
            game.dyad_partner(at(s))
                .map_or("-".to_string(), |c| c.name())
        };
        squares.iter().map(partner).collect()
    }

    #[test]
    fn a_move_forming_a_row_of_three_offers_each_pairing_the_default_first() {
        let g = game("4k3/8/8/8/2PP4/4P3/8/4K3 w");
        assert_eq!(legal_from(&g, "e3"), ["e3e4", "e3e4/d4e4"]);
        // The snapshot the client picks from lists them in the same order.
        let labels = g.snapshot().legal_actions;
        let from_e3: Vec<&str> = labels
            .iter()
            .map(|l| l.as_ref())
            .filter(|l| l.starts_with("e3"))
            .collect();
        assert_eq!(from_e3, ["e3e4", "e3e4/d4e4"]);
        let mut declared = g.clone();
        play(&mut declared, "e3e4/d4e4");
        assert_eq!(partners(&declared, &["c4", "d4", "e4"]), ["-", "e4", "d4"]);
        assert_eq!(declared.armor_at(at("c4")), 4);
        assert_eq!(declared.weapon_at(at("e4")), (2, 4));
        assert!(
            declared.position().contains(" c4=4s "),
            "{}",
            declared.position()
        );
        assert_eq!(
            declared.last_action_human().as_deref(),
            Some("e3-e4 dyad d4-e4")
        );
        let mut plain = g.clone();
        play(&mut plain, "e3e4");
        assert_eq!(partners(&plain, &["c4", "d4", "e4"]), ["d4", "c4", "-"]);
        assert!(
            plain.position().contains(" - - 0 1 0"),
            "{}",
            plain.position()
        );
        // Naming the default pairing is the plain move.
        assert_eq!(g.parse_action("e3e4/c4d4"), g.parse_action("e3e4"));
        assert_eq!(
            g.parse_action("e3-e4 dyad d4-e4"),
            g.parse_action("e3e4/d4e4")
        );
    }

    #[test]
    fn a_row_of_five_has_three_pairings() {
        let mut g = game("4k3/8/8/8/1PPPP3/P7/8/4K3 w");
        assert_eq!(
            legal_from(&g, "a3"),
            ["a3a4", "a3a4/b4c4/d4e4", "a3a4/a4b4/d4e4"]
        );
        play(&mut g, "a3a4/a4b4/d4e4");
        let row = ["a4", "b4", "c4", "d4", "e4"];
        assert_eq!(partners(&g, &row), ["b4", "a4", "-", "e4", "d4"]);
        assert_eq!(
            g.last_action_human().as_deref(),
            Some("a3-a4 dyads a4-b4 d4-e4")
        );
    }

    #[test]
    fn bad_declarations_are_refused() {
        let g = game("4k3/8/8/8/2PP4/4P3/8/4KN2 w");
        for text in [
            "e3e4/c4e4",
            "e3e4/d4",
            "e3e4/",
            "e3e4/d4e4/d4e4",
            "heal:e1/d4e4",
        ] {
            assert!(g.parse_action(text).is_err(), "{text}");
        }
        // Overlapping pairs, a pair outside the row, a knight's move, a move forming no row.
        for text in ["e3e4/c4d4/d4e4", "e3e4/b4c4", "f1d2/d4e4", "d4d5/c5d5"] {
            let refused = g.parse_action(text).map(|a| g.clone().apply(&a));
            let code = refused.ok().and_then(Result::err).map(|e| e.code());
            assert_eq!(code, Some("bad_dyads"), "{text}");
        }
    }

    #[test]
    fn a_pawn_attack_declares_for_the_row_its_kill_forms() {
        let g = game("4k3/8/8/2PPp3/3P4/8/8/4K3 w - e5=1");
        assert_eq!(legal_from(&g, "d4"), ["d4xe5", "d4xe5/d5e5"]);
        // d20 20 hits, d4 4 kills the 1-LP pawn: the declaration holds.
        let mut kills = g.clone().with_scripted_dice(&[20, 4]);
        play(&mut kills, "d4xe5/d5e5");
        assert_eq!(partners(&kills, &["c5", "d5", "e5"]), ["-", "e5", "d5"]);
        // A miss, and the counter misses too: nothing moved, nothing declared.
        let mut misses = g.with_scripted_dice(&[1, 1]);
        play(&mut misses, "d4xe5/d5e5");
        assert_eq!(
            misses.position(),
            "4k3/8/8/2PPp3/3P4/8/8/4K3 b - e5=1 - 1 1 2"
        );
    }

    #[test]
    fn a_declared_single_stays_while_it_can_and_the_row_falls_back_to_the_default() {
        let g = game("4k3/8/8/8/PPPPP3/8/8/4K3 w - c4=4s");
        assert_eq!(
            partners(&g, &["a4", "b4", "c4", "d4", "e4"]),
            ["b4", "a4", "-", "e4", "d4"]
        );
        // b4 leaves: c4 is still the first of a row of three, so d4-e4 hold.
        let mut g1 = g.clone();
        play(&mut g1, "b4b5");
        assert_eq!(partners(&g1, &["c4", "d4", "e4"]), ["-", "e4", "d4"]);
        // a4 leaves: b4 c4 d4 e4 pair up two by two; the mark goes.
        let mut g2 = g.clone();
        play(&mut g2, "a4a5");
        assert_eq!(
            partners(&g2, &["b4", "c4", "d4", "e4"]),
            ["c4", "b4", "e4", "d4"]
        );
        assert!(g2.position().contains(" - - 0 1 0"), "{}", g2.position());
    }

    #[test]
    fn a_misplaced_single_mark_is_refused() {
        for text in [
            "4k3/8/8/8/2PPP3/8/8/4K3 w - e4=4s",
            "4k3/8/8/8/2PPP3/8/8/4K3 w - d4=4s",
            "4k3/8/8/8/2PPPP2/8/8/4K3 w - c4=4s",
            "4k3/8/8/8/PPPPP3/8/8/4K3 w - a4=4s,c4=4s",
            "4k3/8/8/8/8/8/8/4KN2 w - f1=6s",
        ] {
            assert!(Drehs::from_position(text).is_err(), "{text}");
        }
        assert!(Drehs::from_position("4k3/8/8/8/2PPP3/8/8/4K3 w - c4=3e1s").is_ok());
    }

    /// The pairing before declarations existed: each row pairs from its a-file end.
    fn a_file_partner(game: &Drehs, c: Coord) -> Option<Coord> {
        let unit = game.board.get(c).filter(|u| u.piece.role == Role::Pawn)?;
        let initial = if unit.piece.color == Color::White {
            1
        } else {
            6
        };
        let is_pawn = |file: u8| {
            game.board.get(Coord::new(file, c.rank)).map(|u| u.piece) == Some(unit.piece)
        };
        let mut start = c.file;
        while start > 0 && is_pawn(start - 1) {
            start -= 1;
        }
        let partner = if (c.file - start).is_multiple_of(2) {
            c.file + 1
        } else {
            c.file - 1
        };
        (c.rank != initial && partner < 8 && is_pawn(partner)).then(|| Coord::new(partner, c.rank))
    }

    /// Games that never declare pair exactly as before, so stored games replay identically.
    #[test]
    fn without_declarations_rows_pair_from_the_a_file_side_as_before() {
        let mut rows_of_three = 0;
        for seed in 0..6u8 {
            let mut g = Drehs::start();
            g.set_dice([seed; 32], "pairing");
            for step in 0..160usize {
                for (c, _) in g.board.occupied() {
                    assert_eq!(g.dyad_partner(c), a_file_partner(&g, c), "{}", g.position());
                }
                rows_of_three +=
                    usize::from(g.legal_actions().iter().any(|a| !a.dyads().is_default()));
                // Pawn moves first, so that rows form.
                let actions: Vec<_> = g
                    .legal_actions()
                    .into_iter()
                    .filter(|a| a.dyads().is_default())
                    .collect();
                let pawn_moves: Vec<_> = actions
                    .iter()
                    .filter(|a| matches!(a, super::Action::Move { from, .. } if g.board.get(*from).is_some_and(|u| u.piece.role == Role::Pawn)))
                    .copied()
                    .collect();
                let pool = if pawn_moves.is_empty() || step % 3 == 2 {
                    &actions
                } else {
                    &pawn_moves
                };
                let Some(action) = pool.get((step * 7907 + usize::from(seed)) % pool.len().max(1))
                else {
                    break;
                };
                g.apply(action).unwrap_or_else(|e| panic!("{e}"));
            }
        }
        assert!(
            rows_of_three >= 10,
            "only {rows_of_three} positions offered a declaration"
        );
    }
}
