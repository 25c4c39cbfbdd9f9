//! One module per variant, each implementing [`super::Rules`] for its position type.
//!
//! Suicide keeps its own bitboards (its perft speed matters); the others build on the mailbox
//! boards of [`super::geometry`].

// One line per variant module, in `Variant::ALL` order.
pub mod chad;
pub mod chazz;
pub mod drehs;
pub mod duel;
pub mod suicide;
