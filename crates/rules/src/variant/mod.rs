//! One module per variant, each implementing [`super::Rules`] for its position type.
//!
//! Suicide's position is bitboards (its perft speed matters), on the 8x8 tables of
//! [`super::bitboard`], whose slider and leaper tables Davey Drehs' move search uses too. The
//! others build on the mailbox boards of [`super::geometry`]; Duel Chess also keeps its Main
//! board as bitmaps for its move search.

// One line per variant module, in `Variant::ALL` order.
pub mod chad;
pub mod chazz;
pub mod drehs;
pub mod duel;
pub mod suicide;
