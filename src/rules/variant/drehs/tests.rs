//! Unit tests: the combat paths with scripted dice, the abilities and the draw rules.

use super::*;

fn game(text: &str) -> Drehs {
    Drehs::from_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn start_position_parses() {
    assert_eq!(Drehs::start().position(), START_POSITION);
}
