//! Action texts built once and numbered, so that a snapshot, which lists every legal action on
//! every move of a live game, borrows each text and gets the list sorted without comparing
//! texts.

use super::Coord;
use crate::snapshot::{sort_action_texts, Label};
use std::borrow::Cow;
use std::sync::LazyLock;

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

    /// The labels of `items` in byte order, as [`crate::snapshot::sort_action_texts`] puts
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
