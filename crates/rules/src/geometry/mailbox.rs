//! A board of cells laid out by a [`Shape`], and the FEN-style placement text that reads and
//! writes it (also for boards kept in another form).

use super::{Coord, Shape};
use crate::error::ParsePositionError;

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
