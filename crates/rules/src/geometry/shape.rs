//! Board shapes: a rectangle of up to 16x16 with holes, its squares, steps and rays, and the
//! order in which square labels sort as text.

use super::Coord;

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

    /// Number of cells in the rectangle (the length of a [`Mailbox`](super::Mailbox)).
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
