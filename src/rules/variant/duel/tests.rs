//! Unit tests for Duel Chess: notation round trips and the rules the data tables cannot
//! reach easily.

use super::*;

#[test]
fn start_position_parses_and_prints() {
    let game = Duel::start();
    assert_eq!(game.position(), START);
    assert_eq!(game.turn(), Color::White);
}
