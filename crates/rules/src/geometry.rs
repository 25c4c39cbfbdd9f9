//! Squares and board shapes for the mailbox variants (every variant but Suicide, which uses
//! bitboards for speed): rectangles of any size up to 16x16, with holes, plus the direction
//! tables and FEN-style placement parsing they all share.
//!
//! Squares are named file letter then rank number, both from White's bottom-left corner:
//! `a1`, `e5`, `l12`.

use super::error::ParsePositionError;
use super::snapshot::{sort_action_texts, Label};
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

/// Texts built once and numbered, one after another in one string: the action texts of a
/// variant's common actions, so that a snapshot, which lists every legal action on every move
/// of a live game, borrows each text instead of allocating it.
pub struct TextTable {
    text: String,
    /// Where text `i` starts in `text`, and one more entry for the end.
    starts: Vec<u32>,
}

impl TextTable {
    /// Texts `0..count`, each written by `write(i, out)`.
    pub fn new(count: usize, mut write: impl FnMut(usize, &mut String)) -> TextTable {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(count + 1);
        for i in 0..count {
            starts.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
            write(i, &mut text);
        }
        starts.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        TextTable { text, starts }
    }

    /// How many texts the table numbers.
    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Where text `index` starts and ends in the table's string, or `None` beyond the table.
    fn span(&self, index: usize) -> Option<(u32, u32)> {
        Some((*self.starts.get(index)?, *self.starts.get(index + 1)?))
    }

    /// Text `index`, or `None` beyond the table.
    pub fn get(&self, index: usize) -> Option<&str> {
        let (start, end) = self.span(index)?;
        self.text.get(start as usize..end as usize)
    }

    /// Text `index` as a label borrowed from the table, or `spelled` when there is none.
    pub fn label(&'static self, index: Option<usize>, spelled: impl FnOnce() -> String) -> Label {
        match index.and_then(|index| self.get(index)) {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(spelled()),
        }
    }
}

/// The squares of a `files` x `ranks` rectangle numbered rank by rank from `a1`, for indexing
/// [`TextTable`]s by square.
#[derive(Clone, Copy, Debug)]
pub struct SquareIndex {
    files: u8,
    ranks: u8,
}

impl SquareIndex {
    pub const fn new(files: u8, ranks: u8) -> SquareIndex {
        SquareIndex { files, ranks }
    }

    pub const fn count(self) -> usize {
        self.files as usize * self.ranks as usize
    }

    /// The number of `square`, or `None` off the rectangle.
    pub fn of(self, square: Coord) -> Option<usize> {
        (square.file < self.files && square.rank < self.ranks)
            .then(|| usize::from(square.rank) * usize::from(self.files) + usize::from(square.file))
    }

    /// The square numbered `index`.
    pub fn square(self, index: usize) -> Coord {
        let files = usize::from(self.files.max(1));
        Coord::new((index % files) as u8, (index / files) as u8)
    }

    /// The number of the pair `from`, `to` among all `count() * count()` pairs, or `None`
    /// if either square is off the rectangle.
    pub fn pair(self, from: Coord, to: Coord) -> Option<usize> {
        Some(self.of(from)? * self.count() + self.of(to)?)
    }

    /// The two squares of pair `index`: the inverse of [`SquareIndex::pair`].
    pub fn pair_squares(self, index: usize) -> (Coord, Coord) {
        let count = self.count().max(1);
        (self.square(index / count), self.square(index % count))
    }
}

/// A [`TextTable`] that also knows its texts' byte order, so that a list of its texts comes
/// out sorted without comparing texts ([`OrderedTexts::sorted_labels`]).
pub struct OrderedTexts {
    texts: TextTable,
    /// Each text's place when all the table's texts are in byte order, and where in the
    /// table's string the text at each place starts and ends.
    place_of: Vec<u32>,
    span_at_place: Vec<(u32, u32)>,
}

/// The most texts an [`OrderedTexts`] sorts by marks: Davey Drehs' 45,056 action texts, the
/// largest table; the texts of a larger one are sorted the general way. The bitmap lives on
/// the stack, sized for the table (a zeroed heap block of Chad's 2.6 KiB cost more than the
/// marking).
const MARK_WORDS: usize = 45_056_usize.div_ceil(64);
/// The bitmap's sizes below [`MARK_WORDS`]: an 8x8 and a 12x12 board's pairs of squares.
const MARK_WORDS_8X8_PAIRS: usize = 64;
const MARK_WORDS_12X12_PAIRS: usize = 324;

impl OrderedTexts {
    pub fn new(texts: TextTable) -> OrderedTexts {
        let mut at_place: Vec<u32> = (0..texts.len())
            .map(|index| u32::try_from(index).unwrap_or(u32::MAX))
            .collect();
        at_place.sort_by_key(|&index| texts.get(index as usize).unwrap_or_default());
        let mut place_of = vec![0; at_place.len()];
        for (place, &index) in at_place.iter().enumerate() {
            if let Some(slot) = place_of.get_mut(index as usize) {
                *slot = u32::try_from(place).unwrap_or(u32::MAX);
            }
        }
        let span_at_place = at_place
            .iter()
            .map(|&index| texts.span(index as usize).unwrap_or_default())
            .collect();
        OrderedTexts {
            texts,
            place_of,
            span_at_place,
        }
    }

    /// Text `index`, or `None` beyond the table.
    pub fn get(&self, index: usize) -> Option<&str> {
        self.texts.get(index)
    }

    /// Text `index` as a label borrowed from the table, or `spelled` when there is none.
    pub fn label(&'static self, index: Option<usize>, spelled: impl FnOnce() -> String) -> Label {
        self.texts.label(index, spelled)
    }

    /// The labels of `items` in byte order, as [`super::snapshot::sort_action_texts`] puts
    /// them. An item with a text in the table (`index`) is borrowed from it and placed by
    /// marking its place in a bitmap of the whole table and reading the marks back, a
    /// fraction of a comparison sort's cost: every snapshot lists the position's legal actions
    /// (a hundred-odd on Chad's and Davey Drehs' boards), and sorting them was a sixth of the
    /// server's work. The other items are `spell`ed, sorted the general way and merged in.
    pub fn sorted_labels<T>(
        &'static self,
        items: impl IntoIterator<Item = T>,
        index: impl Fn(&T) -> Option<usize>,
        spell: impl Fn(&T) -> String,
    ) -> Vec<Label> {
        match self.texts.len().div_ceil(64) {
            words if words <= MARK_WORDS_8X8_PAIRS => {
                self.sorted_labels_in::<MARK_WORDS_8X8_PAIRS, T>(items, index, spell)
            }
            words if words <= MARK_WORDS_12X12_PAIRS => {
                self.sorted_labels_in::<MARK_WORDS_12X12_PAIRS, T>(items, index, spell)
            }
            _ => self.sorted_labels_in::<MARK_WORDS, T>(items, index, spell),
        }
    }

    /// [`OrderedTexts::sorted_labels`] with a bitmap of `WORDS` words: a text placed beyond it
    /// is sorted the general way.
    fn sorted_labels_in<const WORDS: usize, T>(
        &'static self,
        items: impl IntoIterator<Item = T>,
        index: impl Fn(&T) -> Option<usize>,
        spell: impl Fn(&T) -> String,
    ) -> Vec<Label> {
        let mut marks = [0u64; WORDS];
        // One bit per word of marks that has any: the read skips the empty words.
        let mut summary = [0u64; MARK_WORDS.div_ceil(64)];
        let mut marked = 0;
        // Spelled items, and any repeat of a marked text (a bit marks a text once; a legal
        // list has no repeats, but the answer stays the general sort's whatever the list).
        let mut others: Vec<Label> = Vec::new();
        for item in items {
            let place = index(&item)
                .and_then(|i| self.place_of.get(i))
                .map(|&place| place as usize);
            match place.and_then(|place| Some((place, marks.get_mut(place / 64)?))) {
                Some((place, word)) if *word & (1u64 << (place % 64)) == 0 => {
                    *word |= 1u64 << (place % 64);
                    if let Some(flags) = summary.get_mut(place / 4096) {
                        *flags |= 1u64 << ((place / 64) % 64);
                    }
                    marked += 1;
                }
                _ => others.push(Cow::Owned(spell(&item))),
            }
        }
        let mut labels: Vec<Label> = Vec::with_capacity(marked + others.len());
        for (summary_index, &flags) in summary.iter().enumerate() {
            for word_index in set_bits(flags).map(|bit| summary_index * 64 + bit) {
                let word = marks.get(word_index).copied().unwrap_or(0);
                for bit in set_bits(word) {
                    let (start, end) = self
                        .span_at_place
                        .get(word_index * 64 + bit)
                        .copied()
                        .unwrap_or_default();
                    let text = self
                        .texts
                        .text
                        .get(start as usize..end as usize)
                        .unwrap_or_default();
                    labels.push(Cow::Borrowed(text));
                }
            }
        }
        if others.is_empty() {
            return labels;
        }
        sort_action_texts(&mut others);
        // The others are few (promotions, a cannon shot or two): each goes in by a search.
        for other in others {
            let at = labels.partition_point(|label| *label <= other);
            labels.insert(at, other);
        }
        labels
    }
}

/// The machine notation of every pair of squares of a `files` x `ranks` board, from-square,
/// separator, to-square (`e2e4`, `e2xe4`, `d5@d9`): most actions of most variants are such a
/// pair.
pub struct PairTexts {
    squares: SquareIndex,
    texts: OrderedTexts,
}

impl PairTexts {
    pub fn new(files: u8, ranks: u8, separator: &str) -> PairTexts {
        let squares = SquareIndex::new(files, ranks);
        let count = squares.count();
        let texts = TextTable::new(count * count, |pair, out| {
            let (from, to) = squares.pair_squares(pair);
            from.push_name(out);
            out.push_str(separator);
            to.push_name(out);
        });
        PairTexts {
            squares,
            texts: OrderedTexts::new(texts),
        }
    }

    /// The text of `from` then `to`, or `None` for a square off the board.
    pub fn get(&self, from: Coord, to: Coord) -> Option<&str> {
        self.texts.get(self.squares.pair(from, to)?)
    }

    /// The labels of `items` in byte order ([`OrderedTexts::sorted_labels`]): `pair` gives an
    /// item's squares when its text is the pair's, `None` when it is `spell`ed.
    pub fn sorted_labels<T>(
        &'static self,
        items: impl IntoIterator<Item = T>,
        pair: impl Fn(&T) -> Option<(Coord, Coord)>,
        spell: impl Fn(&T) -> String,
    ) -> Vec<Label> {
        let squares = self.squares;
        self.texts.sorted_labels(
            items,
            |item| pair(item).and_then(|(from, to)| squares.pair(from, to)),
            spell,
        )
    }

    /// The pair's text as a label borrowed from the table, or `spelled` for a pair off it.
    pub fn label(&'static self, from: Coord, to: Coord, spelled: impl FnOnce() -> String) -> Label {
        self.texts.label(self.squares.pair(from, to), spelled)
    }
}

/// The indices of the set bits of `word`, lowest first.
pub fn set_bits(word: u64) -> impl Iterator<Item = usize> {
    let mut rest = word;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let bit = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(bit)
    })
}

/// The plain moves of an 8x8 board (`e2e4`), one table for every variant played on one
/// (Suicide and Davey Drehs).
pub static MOVE_TEXTS_8X8: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(8, 8, ""));

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

/// A rectangular board of `width` files and `height` ranks (each at most 16), minus holes.
/// The holes are a bitmap, one word per rank, rather than a list: a position holds its
/// shape, and a live game copies its position for every move it checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub width: u8,
    pub height: u8,
    /// Bit `file` of word `rank` is set for a hole.
    holes: [u16; 16],
}

impl Shape {
    /// A rectangle without holes.
    pub fn rectangle(width: u8, height: u8) -> Shape {
        Shape {
            width: width.min(16),
            height: height.min(16),
            holes: [0; 16],
        }
    }

    /// A rectangle with the given squares removed (squares outside it are ignored).
    pub fn with_holes(width: u8, height: u8, holes: &[Coord]) -> Shape {
        let mut shape = Shape::rectangle(width, height);
        for &hole in holes {
            if shape.in_rectangle(hole) {
                if let Some(rank) = shape.holes.get_mut(usize::from(hole.rank)) {
                    *rank |= 1 << hole.file;
                }
            }
        }
        shape
    }

    /// Whether `c` is a hole.
    pub fn is_hole(&self, c: Coord) -> bool {
        c.file < 16
            && self
                .holes
                .get(usize::from(c.rank))
                .is_some_and(|rank| rank >> c.file & 1 == 1)
    }

    /// Whether `c` lies inside the rectangle (holes included).
    pub fn in_rectangle(&self, c: Coord) -> bool {
        c.file < self.width && c.rank < self.height
    }

    /// Whether `c` is a real square: inside the rectangle and not a hole.
    pub fn contains(&self, c: Coord) -> bool {
        self.in_rectangle(c) && !self.is_hole(c)
    }

    /// Number of cells in the rectangle (the length of a [`Mailbox`]).
    pub fn cells(&self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }

    /// The cell index of a square inside the rectangle.
    pub fn index(&self, c: Coord) -> usize {
        usize::from(c.rank) * usize::from(self.width) + usize::from(c.file)
    }

    /// The square at a cell index.
    pub fn coord(&self, index: usize) -> Coord {
        let width = usize::from(self.width.max(1));
        Coord::new((index % width) as u8, (index / width) as u8)
    }

    /// The real square one step of `(df, dr)` away, if any. Holes count as off the board.
    pub fn step(&self, c: Coord, df: i8, dr: i8) -> Option<Coord> {
        c.offset(df, dr).filter(|&n| self.contains(n))
    }

    /// Every real square in the byte order of its label (`a1`, `a10`, `a11`, `a12`, `a2`, …,
    /// `b1`, …): the order in which a live game's update diff wants a snapshot's pieces
    /// ([`crate::Snapshot::into_update`]), which it then need not sort.
    pub fn squares_in_label_order(&self) -> impl Iterator<Item = Coord> + '_ {
        label_order(self.width, self.height).filter(move |&c| self.contains(c))
    }

    /// Every real square, rank 1 first, file a first within a rank.
    pub fn squares(&self) -> impl Iterator<Item = Coord> + '_ {
        (0..self.height)
            .flat_map(move |rank| (0..self.width).map(move |file| Coord::new(file, rank)))
            .filter(move |&c| self.contains(c))
    }

    /// The squares a slider passes from `from` in direction `(df, dr)`, stopping at the edge
    /// or a hole (the caller stops at the first occupied square).
    pub fn ray(&self, from: Coord, df: i8, dr: i8) -> impl Iterator<Item = Coord> + '_ {
        let mut current = Some(from);
        std::iter::from_fn(move || {
            current = current.and_then(|c| self.step(c, df, dr));
            current
        })
    }
}

/// A board of cells, each empty or holding a `T`, laid out by a [`Shape`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mailbox<T> {
    shape: Shape,
    cells: Vec<Option<T>>,
}

impl<T: Clone> Mailbox<T> {
    /// An empty board of the given shape.
    pub fn empty(shape: Shape) -> Mailbox<T> {
        let cells = vec![None; shape.cells()];
        Mailbox { shape, cells }
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// What stands on `c` (None for an empty square, a hole or a square off the board).
    pub fn get(&self, c: Coord) -> Option<&T> {
        if !self.shape.contains(c) {
            return None;
        }
        self.cells.get(self.shape.index(c)).and_then(Option::as_ref)
    }

    /// Every cell, indexed by [`Shape::index`] (holes are always empty): for move generators
    /// that walk the board by precomputed indexes instead of by coordinates.
    pub fn cells(&self) -> &[Option<T>] {
        &self.cells
    }

    /// Mutable access to what stands on `c`.
    pub fn get_mut(&mut self, c: Coord) -> Option<&mut T> {
        if !self.shape.contains(c) {
            return None;
        }
        let index = self.shape.index(c);
        self.cells.get_mut(index).and_then(Option::as_mut)
    }

    /// Puts `value` on `c` (or empties it with None), returning what stood there. Writing to a
    /// hole or off the board does nothing and returns None.
    pub fn set(&mut self, c: Coord, value: Option<T>) -> Option<T> {
        if !self.shape.contains(c) {
            return None;
        }
        let index = self.shape.index(c);
        match self.cells.get_mut(index) {
            Some(cell) => std::mem::replace(cell, value),
            None => None,
        }
    }

    /// Removes and returns what stands on `c`.
    pub fn take(&mut self, c: Coord) -> Option<T> {
        self.set(c, None)
    }

    /// Whether `c` is a real, empty square.
    pub fn is_empty_square(&self, c: Coord) -> bool {
        self.shape.contains(c) && self.get(c).is_none()
    }

    /// Every occupied square with its content, in the byte order of the square labels
    /// ([`Shape::squares_in_label_order`]).
    pub fn occupied_in_label_order(&self) -> impl Iterator<Item = (Coord, &T)> + '_ {
        self.shape
            .squares_in_label_order()
            .filter_map(move |c| self.get(c).map(|t| (c, t)))
    }

    /// How many squares are occupied: the size of a snapshot's piece list, reserved before
    /// it is filled from a filter, which would otherwise grow it several times per snapshot.
    pub fn occupied_count(&self) -> usize {
        self.cells.iter().filter(|cell| cell.is_some()).count()
    }

    /// Every occupied square with its content, rank 1 first.
    pub fn occupied(&self) -> impl Iterator<Item = (Coord, &T)> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter_map(move |(i, cell)| cell.as_ref().map(|t| (self.shape.coord(i), t)))
    }

    /// Parses the placement field of a FEN-like string: ranks from the top separated by `/`,
    /// digits (possibly several, as in `12`) for runs of empty squares, `*` for a hole, and
    /// one character per piece read by `piece`. Holes must be written exactly where the shape
    /// has them.
    ///
    /// # Errors
    /// A wrong number of ranks or files, an unknown character, or a hole in the wrong place.
    pub fn parse_placement(
        shape: Shape,
        text: &str,
        mut piece: impl FnMut(char) -> Option<T>,
    ) -> Result<Mailbox<T>, ParsePositionError> {
        let mut board = Mailbox::empty(shape);
        let rows: Vec<&str> = text.split('/').collect();
        if rows.len() != usize::from(board.shape.height) {
            return Err(ParsePositionError::new(format!(
                "expected {} ranks, found {}",
                board.shape.height,
                rows.len()
            )));
        }
        for (row_index, row) in rows.iter().enumerate() {
            let rank = board.shape.height - 1 - row_index as u8;
            let mut file: u32 = 0;
            let mut chars = row.chars().peekable();
            while let Some(c) = chars.next() {
                if let Some(d) = c.to_digit(10) {
                    let mut run = d;
                    while let Some(next) = chars.peek().and_then(|n| n.to_digit(10)) {
                        run = run * 10 + next;
                        chars.next();
                        if run > 16 {
                            break;
                        }
                    }
                    if run == 0 {
                        return Err(ParsePositionError::new("empty-square run of 0"));
                    }
                    for _ in 0..run {
                        if file >= u32::from(board.shape.width) {
                            return Err(too_wide(rank, board.shape.width));
                        }
                        let c = Coord::new(file as u8, rank);
                        if !board.shape.contains(c) {
                            return Err(ParsePositionError::new(format!(
                                "{} is a hole and must be written `*`",
                                c.name()
                            )));
                        }
                        file += 1;
                    }
                    continue;
                }
                if file >= u32::from(board.shape.width) {
                    return Err(too_wide(rank, board.shape.width));
                }
                let at = Coord::new(file as u8, rank);
                if c == '*' {
                    if board.shape.contains(at) {
                        return Err(ParsePositionError::new(format!(
                            "{} is not a hole on this board",
                            at.name()
                        )));
                    }
                } else {
                    if !board.shape.contains(at) {
                        return Err(ParsePositionError::new(format!(
                            "{} is a hole and must be written `*`",
                            at.name()
                        )));
                    }
                    let value = piece(c).ok_or_else(|| {
                        ParsePositionError::new(format!("unknown piece letter `{c}`"))
                    })?;
                    board.set(at, Some(value));
                }
                file += 1;
            }
            if file != u32::from(board.shape.width) {
                return Err(too_wide(rank, board.shape.width));
            }
        }
        Ok(board)
    }

    /// Writes the placement field: the inverse of [`Mailbox::parse_placement`].
    pub fn placement(&self, mut piece: impl FnMut(&T) -> char) -> String {
        write_placement(&self.shape, |c| self.get(c).map(&mut piece))
    }
}

fn too_wide(rank: u8, width: u8) -> ParsePositionError {
    ParsePositionError::new(format!(
        "rank {} does not have exactly {width} files",
        u32::from(rank) + 1
    ))
}

/// Appends `value` in decimal: the counters at the end of every position text, which each
/// snapshot of a live game writes (`write!` costs several times as much per number).
pub fn push_number(out: &mut String, value: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Writes a placement field (ranks from the top, `/` between them, runs of empty squares as
/// numbers, holes as `*`) for a board of `shape` whose square `c` holds `piece(c)`. Boards
/// kept in another form than a [`Mailbox`] write their positions with it directly: a live
/// game writes its position on every move.
pub fn write_placement(shape: &Shape, mut piece: impl FnMut(Coord) -> Option<char>) -> String {
    fn flush(out: &mut String, empty: &mut u32) {
        if *empty > 0 {
            // Digits pushed by hand: the formatting machinery cost more than the rest of
            // the placement, which every snapshot of a live game writes.
            let mut digits = [0u8; 10];
            let mut start = digits.len();
            let mut rest = *empty;
            while rest > 0 {
                start -= 1;
                digits[start] = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            out.extend(digits[start..].iter().map(|&d| char::from(d)));
            *empty = 0;
        }
    }
    let mut out =
        String::with_capacity(usize::from(shape.width) * usize::from(shape.height) / 2 + 16);
    for rank in (0..shape.height).rev() {
        let mut empty = 0;
        for file in 0..shape.width {
            let c = Coord::new(file, rank);
            if !shape.contains(c) {
                flush(&mut out, &mut empty);
                out.push('*');
            } else if let Some(ch) = piece(c) {
                flush(&mut out, &mut empty);
                out.push(ch);
            } else {
                empty += 1;
            }
        }
        flush(&mut out, &mut empty);
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

/// Rank indices in the byte order of their labels (`1`, `10`…`16`, `2`…`9`), for boards of up
/// to 16 ranks.
const RANKS_BY_LABEL: [u8; 16] = [0, 9, 10, 11, 12, 13, 14, 15, 1, 2, 3, 4, 5, 6, 7, 8];

/// The squares of a `files` x `ranks` rectangle (each at most 16, as a [`Shape`]'s) in the
/// byte order of their labels: file by file, and within a file the ranks as their numbers
/// sort as text.
pub fn label_order(files: u8, ranks: u8) -> LabelOrder {
    LabelOrder {
        files: files.min(16),
        ranks,
        file: 0,
        slot: 0,
    }
}

/// The iterator of [`label_order`]. Written out by hand: a snapshot walks a whole board with
/// it on every move of a live game, and nested adapters cost several times as much per square.
#[derive(Clone, Debug)]
pub struct LabelOrder {
    files: u8,
    ranks: u8,
    file: u8,
    /// The next index into [`RANKS_BY_LABEL`] on the current file.
    slot: usize,
}

impl Iterator for LabelOrder {
    type Item = Coord;

    fn next(&mut self) -> Option<Coord> {
        while self.file < self.files {
            while let Some(&rank) = RANKS_BY_LABEL.get(self.slot) {
                self.slot += 1;
                if rank < self.ranks {
                    return Some(Coord::new(self.file, rank));
                }
            }
            self.slot = 0;
            self.file += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_order_is_the_byte_order_of_the_names() {
        for (files, ranks) in [
            (1, 1),
            (3, 3),
            (5, 7),
            (8, 5),
            (8, 8),
            (9, 10),
            (12, 12),
            (16, 16),
        ] {
            let ours: Vec<String> = label_order(files, ranks).map(Coord::name).collect();
            let mut sorted: Vec<String> = (0..files)
                .flat_map(|f| (0..ranks).map(move |r| Coord::new(f, r).name()))
                .collect();
            sorted.sort_unstable();
            assert_eq!(ours, sorted, "{files}x{ranks}");
        }
    }

    #[test]
    fn pair_texts_join_the_square_names() {
        let moves = PairTexts::new(12, 12, "");
        let attacks = PairTexts::new(8, 8, "x");
        for (from, to) in [((0, 0), (11, 11)), ((3, 4), (3, 8)), ((11, 0), (0, 11))] {
            let (from, to) = (Coord::new(from.0, from.1), Coord::new(to.0, to.1));
            assert_eq!(
                moves.get(from, to),
                Some(format!("{}{}", from.name(), to.name()).as_str())
            );
        }
        assert_eq!(
            attacks.get(Coord::new(4, 1), Coord::new(4, 3)),
            Some("e2xe4")
        );
        assert_eq!(
            attacks.get(Coord::new(7, 7), Coord::new(0, 0)),
            Some("h8xa1")
        );
        // A list of pairs comes out in byte order, as the general sort puts it.
        static TABLE: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(12, 12, ""));
        let squares: Vec<Coord> = (0..12)
            .flat_map(|rank| (0..12).map(move |file| Coord::new(file, rank)))
            .collect();
        let pairs: Vec<(Coord, Coord)> = squares
            .iter()
            .enumerate()
            .flat_map(|(i, &from)| {
                squares
                    .iter()
                    .skip(i % 7)
                    .step_by(5)
                    .map(move |&to| (from, to))
            })
            .collect();
        let spell = |&(from, to): &(Coord, Coord)| format!("{}{}", from.name(), to.name());
        let by_table = |pairs: &[(Coord, Coord)], table: &'static PairTexts| {
            table.sorted_labels(pairs.iter().copied(), |&pair| Some(pair), spell)
        };
        let by_sort = |pairs: &[(Coord, Coord)]| {
            let mut expected: Vec<Label> = pairs.iter().map(|p| Cow::Owned(spell(p))).collect();
            expected.sort_unstable();
            expected
        };
        assert_eq!(by_table(&pairs, &TABLE), by_sort(&pairs));
        // Every label but the spelled ones is borrowed from the table.
        let owned = |labels: &[Label]| labels.iter().filter(|l| matches!(l, Cow::Owned(_))).count();
        assert_eq!(owned(&by_table(&pairs, &TABLE)), 0);
        // A pair twice, squares off the board (spelled, `m1a1`), and a board past the
        // bitmap's size (all spelled): still the general sort's order.
        let mut mixed = vec![(squares[0], squares[1]), (squares[0], squares[1])];
        mixed.extend([(Coord::new(12, 0), squares[0]), (squares[5], squares[3])]);
        mixed.extend(pairs.iter().step_by(3).copied());
        assert_eq!(by_table(&mixed, &TABLE), by_sort(&mixed));
        assert_eq!(owned(&by_table(&mixed, &TABLE)), 2);
        static LARGER: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(16, 16, ""));
        assert_eq!(by_table(&pairs, &LARGER), by_sort(&pairs));
        // Items with no pair are spelled and merged in.
        let spelled_only = TABLE.sorted_labels(["b1", "a1", "a12"], |_| None, |s| s.to_string());
        assert_eq!(spelled_only, ["a1", "a12", "b1"]);
        // Off the table's board: no text, so the caller spells it.
        assert_eq!(attacks.get(Coord::new(8, 0), Coord::new(0, 0)), None);
        assert_eq!(moves.get(Coord::new(0, 12), Coord::new(0, 0)), None);
    }

    #[test]
    fn labels_are_the_names() {
        for file in 0..30 {
            for rank in 0..20 {
                let square = Coord::new(file, rank);
                assert_eq!(square.label(), square.name(), "{square:?}");
            }
        }
        assert!(matches!(Coord::new(4, 3).label(), Cow::Borrowed("e4")));
        for file in 0..30 {
            let name = Coord::new(file, 0).name();
            assert_eq!(
                Coord::file_label(file),
                name[..name.len() - 1],
                "file {file}"
            );
        }
        for rank in 0..20 {
            assert_eq!(Coord::rank_label(rank), (u32::from(rank) + 1).to_string());
        }
        assert!(matches!(Coord::file_label(11), Cow::Borrowed("l")));
        assert!(matches!(Coord::rank_label(11), Cow::Borrowed("12")));
    }

    #[test]
    fn square_names_parse_and_print() {
        for (name, file, rank) in [("a1", 0, 0), ("e4", 4, 3), ("l12", 11, 11), ("h10", 7, 9)] {
            assert_eq!(Coord::parse(name), Some(Coord::new(file, rank)));
            assert_eq!(Coord::new(file, rank).name(), name);
        }
        for bad in ["", "a", "a0", "z1", "a17", "a01", "1a", "e4x", "A1"] {
            assert_eq!(Coord::parse(bad), None, "{bad}");
        }
        assert_eq!(
            parse_square_prefix("a10a12"),
            Some((Coord::new(0, 9), "a12"))
        );
    }

    #[test]
    fn placement_with_holes_and_wide_runs_round_trips() {
        let shape = Shape::with_holes(5, 7, &[Coord::new(2, 3)]);
        let fen = "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR";
        let board = Mailbox::parse_placement(shape, fen, Some);
        let board = board.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(board.placement(|c| *c), fen);
        assert_eq!(board.get(Coord::new(2, 0)), Some(&'K'));
        assert!(Mailbox::parse_placement(shape, "dnkbr/pp1pp/5/5/5/PP1PP/DNKBR", Some).is_err());
        assert!(Mailbox::parse_placement(shape, "dnkbr/pp1pp/5/2*2/5/PP1PP", Some).is_err());
        for bad in [
            "dnkbr/pp1pp/6/2*2/5/PP1PP/DNKBR",
            "dnkbrr/pp1pp/5/2*2/5/PP1PP/DNKBR",
            "dnkbr/pp1pp/4/2*2/5/PP1PP/DNKBR",
            "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBX",
            "dnkbr/pp1pp/0/2*2/5/PP1PP/DNKBR",
        ] {
            assert!(
                Mailbox::parse_placement(shape, bad, |c| (c != 'X').then_some(c)).is_err(),
                "{bad}"
            );
        }

        let wide = Shape::rectangle(12, 12);
        let fen = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12";
        let board = Mailbox::parse_placement(wide, fen, Some);
        let board = board.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(board.placement(|c| *c), fen);
        assert_eq!(board.get(Coord::new(3, 3)), Some(&'K'));
    }

    #[test]
    fn holes_are_marked_and_are_not_squares() {
        let holes = [
            Coord::new(2, 3),
            Coord::new(0, 0),
            Coord::new(4, 6),
            Coord::new(5, 0),
        ];
        let shape = Shape::with_holes(5, 7, &holes);
        // The square off the rectangle is no hole; the others are holes and nothing else is.
        let marked: Vec<Coord> = (0..16)
            .flat_map(|rank| (0..16).map(move |file| Coord::new(file, rank)))
            .filter(|&c| shape.is_hole(c))
            .collect();
        assert_eq!(
            marked,
            [Coord::new(0, 0), Coord::new(2, 3), Coord::new(4, 6)]
        );
        for c in marked {
            assert!(shape.in_rectangle(c) && !shape.contains(c));
        }
        assert_eq!(shape.squares().count(), 5 * 7 - 3);
        assert!(shape.contains(Coord::new(1, 3)) && !shape.contains(Coord::new(5, 0)));
        let whole = Shape::rectangle(16, 16);
        assert_eq!(whole.squares().count(), 256);
        assert!(!whole.is_hole(Coord::new(16, 3)));
    }

    #[test]
    fn rays_stop_at_edges_and_holes() {
        let shape = Shape::with_holes(5, 7, &[Coord::new(2, 3)]);
        let up: Vec<String> = shape.ray(Coord::new(2, 0), 0, 1).map(Coord::name).collect();
        assert_eq!(up, ["c2", "c3"]);
        let diag: Vec<String> = shape.ray(Coord::new(0, 0), 1, 1).map(Coord::name).collect();
        assert_eq!(diag, ["b2", "c3", "d4", "e5"]);
    }
}
