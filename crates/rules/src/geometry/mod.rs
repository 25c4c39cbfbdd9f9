//! Squares and board shapes for the mailbox variants (every variant but Suicide, which uses
//! bitboards for speed): rectangles of any size up to 16x16, with holes, plus the direction
//! tables and FEN-style placement parsing they all share.
//!
//! Squares are named file letter then rank number, both from White's bottom-left corner:
//! `a1`, `e5`, `l12`.
//!
//! [`coord`] names squares and holds the direction tables; [`shape`] is the board outline
//! (size and holes) and its label order; [`mailbox`] is a board of cells on a shape and its
//! placement text; [`texts`] numbers the action texts that snapshots borrow.

mod coord;
mod mailbox;
mod shape;
#[cfg(test)]
mod tests;
mod texts;

pub use coord::{parse_square_prefix, Coord, DIAGONAL, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL};
pub use mailbox::{push_number, write_placement, Mailbox};
pub use shape::{label_order, LabelOrder, Shape};
pub use texts::{set_bits, OrderedTexts, PairTexts, SquareIndex, TextTable, MOVE_TEXTS_8X8};
