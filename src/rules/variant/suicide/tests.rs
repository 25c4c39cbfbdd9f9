//! Unit tests of the Suicide rules through the [`Rules`] trait.

use super::*;

#[allow(dead_code)]
fn game(fen: &str) -> Suicide {
    Suicide::from_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn start_position_has_twenty_moves() {
    assert_eq!(Suicide::start().legal_actions().len(), 20);
}
