//! Squares: their names (`a1`, `l12`), shared labels and parsing, and the step and leap tables
//! every mailbox variant walks the board with.

use crate::snapshot::Label;
use std::borrow::Cow;
use std::sync::LazyLock;

/// Files and ranks that [`Coord::label`] names without allocating: every square of a board
/// up to 16x16, and the letters beyond `p` (Duel Chess names its Duel board `x`, `y`, `z`).
const LABELLED_FILES: u8 = 26;
const LABELLED_RANKS: u8 = 16;

/// Every square name, built once: snapshots name every piece's square on every move of every
/// live game, and shared text spares an allocation per piece.
static SQUARE_LABELS: LazyLock<Vec<String>> = LazyLock::new(|| {
    (0..LABELLED_RANKS)
        .flat_map(|rank| (0..LABELLED_FILES).map(move |file| Coord::new(file, rank).name()))
        .collect()
});

/// A square of a rectangular board: file and rank counted from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    pub file: u8,
    pub rank: u8,
}

impl Coord {
    pub const fn new(file: u8, rank: u8) -> Coord {
        Coord { file, rank }
    }

    /// The conventional name, such as `e4` or `l12`.
    pub fn name(self) -> String {
        let mut name = String::with_capacity(3);
        self.push_name(&mut name);
        name
    }

    /// The name as a snapshot [`Label`]: shared static text for any square of a board up to
    /// 16 ranks, a new string beyond.
    pub fn label(self) -> Label {
        let index = usize::from(self.rank) * usize::from(LABELLED_FILES) + usize::from(self.file);
        match SQUARE_LABELS.get(index) {
            Some(name) if self.file < LABELLED_FILES => Cow::Borrowed(name.as_str()),
            _ => Cow::Owned(self.name()),
        }
    }

    /// The name of file `file` (`a`, `b`, …) as a label: the letters of [`Coord::label`].
    pub fn file_label(file: u8) -> Label {
        match Coord::new(file, 0).label() {
            Cow::Borrowed(name) => {
                Cow::Borrowed(name.trim_end_matches(|c: char| c.is_ascii_digit()))
            }
            Cow::Owned(name) => {
                Cow::Owned(name.trim_end_matches(|c: char| c.is_ascii_digit()).into())
            }
        }
    }

    /// The name of rank `rank` (`1`, `2`, …) as a label: the digits of [`Coord::label`].
    pub fn rank_label(rank: u8) -> Label {
        match Coord::new(0, rank).label() {
            Cow::Borrowed(name) => Cow::Borrowed(&name[1..]),
            Cow::Owned(name) => Cow::Owned(name[1..].into()),
        }
    }

    /// Appends the name to `out`. Built by hand: snapshots name every piece and every legal
    /// action's squares on every move, and the formatting machinery costs several times more
    /// than these two or three bytes.
    pub fn push_name(self, out: &mut String) {
        out.push(char::from(b'a' + self.file));
        let rank = self.rank + 1;
        if rank >= 10 {
            out.push(char::from(b'0' + rank / 10));
        }
        out.push(char::from(b'0' + rank % 10));
    }

    /// Parses a whole square name (`e4`, `l12`). Ranks start at 1.
    pub fn parse(text: &str) -> Option<Coord> {
        match parse_square_prefix(text) {
            Some((coord, "")) => Some(coord),
            _ => None,
        }
    }

    /// The square `df` files and `dr` ranks away, if the numbers stay non-negative.
    pub fn offset(self, df: i8, dr: i8) -> Option<Coord> {
        let file = i16::from(self.file) + i16::from(df);
        let rank = i16::from(self.rank) + i16::from(dr);
        if (0..16).contains(&file) && (0..16).contains(&rank) {
            Some(Coord::new(file as u8, rank as u8))
        } else {
            None
        }
    }
}
/// Reads a square name (`a`–`p` then a rank 1–16) from the start of `text`, returning it and
/// the rest. Used by the UCI-like move parsers, where ranks may have two digits (`a10a12`).
pub fn parse_square_prefix(text: &str) -> Option<(Coord, &str)> {
    let bytes = text.as_bytes();
    let file_byte = *bytes.first()?;
    if !(b'a'..=b'p').contains(&file_byte) {
        return None;
    }
    let digits = bytes
        .iter()
        .skip(1)
        .take(2)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let rank_text = text.get(1..1 + digits)?;
    if rank_text.starts_with('0') {
        return None;
    }
    let rank: u8 = rank_text.parse().ok()?;
    if !(1..=16).contains(&rank) {
        return None;
    }
    Some((
        Coord::new(file_byte - b'a', rank - 1),
        text.get(1 + digits..)?,
    ))
}

/// The four orthogonal steps.
pub const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// The four diagonal steps.
pub const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
/// The eight king steps (also the queen's directions).
pub const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
/// The eight knight leaps.
pub const KNIGHT_LEAPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
