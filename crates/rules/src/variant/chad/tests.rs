//! Unit tests for Chad: the board's zones, the capture and promotion rules, notation round
//! trips, refusals and the human form.

use super::*;
use crate::snapshot::Label;

fn sq(name: &str) -> Coord {
    Coord::parse(name).unwrap_or_else(|| panic!("bad square {name}"))
}

fn game(fen: &str) -> Chad {
    Chad::from_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn mv(text: &str) -> ChadMove {
    Chad::start()
        .parse_action(text)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The snapshot's labels of `moves`.
fn labels<const N: usize>(moves: [ChadMove; N]) -> Vec<Label> {
    MOVE_TEXTS.sorted_labels(moves, |m| Some((m.from, m.to)), |m| m.machine())
}

#[test]
fn borrowed_move_texts_are_the_machine_notation() {
    for from in Shape::rectangle(SIZE, SIZE).squares() {
        for to in Shape::rectangle(SIZE, SIZE).squares() {
            let action = ChadMove { from, to };
            let labels = labels([action]);
            assert!(matches!(labels[..], [Cow::Borrowed(_)]), "{from:?} {to:?}");
            assert_eq!(labels, [action.machine()]);
        }
    }
    // Off the board, the text is written as it comes.
    let outside = ChadMove {
        from: Coord::new(12, 0),
        to: Coord::new(0, 0),
    };
    assert_eq!(labels([outside]), [outside.machine()]);
}

#[test]
fn a_cloned_history_shares_its_past_and_keeps_its_own_future() {
    // Two rooks stepping out and back: the start position comes back every four plies.
    let shuffle = ["e3e2", "h10h11", "e2e3", "h11h10"];
    let mut game = Chad::start();
    for text in shuffle {
        game.play_unchecked(mv(text));
    }
    assert_eq!(game.occurrences(), 2);
    let branch = game.clone();
    for text in shuffle {
        game.play_unchecked(mv(text));
    }
    assert_eq!(game.occurrences(), 3);
    assert_eq!(game.draw_by_rule(), Some(EndReason::Repetition));
    // The clone saw none of that.
    assert_eq!(branch.occurrences(), 2);
    assert_eq!(branch.history.iter().count(), 5);
    assert_eq!(game.history.iter().count(), 9);
    // A capture forgets the past in one game only.
    let mut cleared = branch.clone();
    cleared.history.clear();
    assert_eq!(cleared.history.iter().count(), 0);
    assert_eq!(branch.history.iter().count(), 5);
}

#[test]
fn positions_that_share_a_hash_but_not_a_board_are_not_a_repetition() {
    let start = Chad::start();
    let mut other = Chad::start();
    other.play_unchecked(mv("e3e2"));
    // A forged collision: another board under the start position's hash.
    let mut history = History::default();
    history.push(start.hash, start.record());
    history.push(start.hash, other.record());
    assert_eq!(history.occurrences_of_latest(), 1);
    history.push(start.hash, start.record());
    assert_eq!(history.occurrences_of_latest(), 2);
}

fn names(squares: Vec<Coord>) -> Vec<String> {
    squares.into_iter().map(Coord::name).collect()
}

#[test]
fn castles_and_walls_are_the_briefs_squares() {
    assert_eq!(
        names(castle_squares(Color::White)),
        ["c3", "d3", "e3", "c4", "d4", "e4", "c5", "d5", "e5"]
    );
    assert_eq!(
        names(wall_squares(Color::White)),
        ["c2", "d2", "e2", "b3", "b4", "b5", "f3", "f4", "f5", "c6", "d6", "e6"]
    );
    assert_eq!(
        names(wall_squares(Color::Black)),
        ["h7", "i7", "j7", "g8", "g9", "g10", "k8", "k9", "k10", "h11", "i11", "j11"]
    );
    let board = Shape::rectangle(SIZE, SIZE);
    for color in Color::ALL {
        let walls: Vec<Coord> = board.squares().filter(|&c| is_wall(color, c)).collect();
        assert_eq!(walls.len(), 12);
        assert!(walls.iter().all(|c| wall_squares(color).contains(c)));
    }
    // The ring's corners are not wall.
    for corner in ["b2", "f2", "b6", "f6", "g7", "k7", "g11", "k11"] {
        assert!(
            Color::ALL.iter().all(|&c| !is_wall(c, sq(corner))),
            "{corner}"
        );
    }
}

#[test]
fn capture_rule_has_exactly_two_clauses() {
    // White on Black's wall takes into Black's castle, from any distance.
    assert!(line_capture_allowed(Color::White, sq("g9"), sq("h9")));
    assert!(line_capture_allowed(Color::White, sq("g9"), sq("j9")));
    // Black in its castle takes a White man on Black's wall.
    assert!(line_capture_allowed(Color::Black, sq("h9"), sq("g9")));
    assert!(line_capture_allowed(Color::Black, sq("h10"), sq("h11")));
    // Wall to wall across the castle, castle to castle, the queen in the enemy castle.
    assert!(!line_capture_allowed(Color::White, sq("g9"), sq("k9")));
    assert!(!line_capture_allowed(Color::White, sq("h9"), sq("j9")));
    assert!(!line_capture_allowed(Color::Black, sq("h9"), sq("j9")));
    // Own wall, open board, enemy castle from outside the wall.
    assert!(!line_capture_allowed(Color::White, sq("c6"), sq("c9")));
    assert!(!line_capture_allowed(Color::White, sq("a1"), sq("a5")));
    assert!(!line_capture_allowed(Color::White, sq("h12"), sq("h10")));
}

#[test]
fn start_position_round_trips_and_has_fifty_four_moves() {
    let start = Chad::start();
    assert_eq!(start.position(), START_POSITION);
    assert_eq!(start.legal_actions().len(), 54);
    assert_eq!(start.outcome(), None);
    assert_eq!(start.ply(), 0);
}

#[test]
fn refused_positions_say_why() {
    for bad in [
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w KQkq - 0 1",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - e3 0 1",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - - 0",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - - 0 0",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 x - -",
        "12/12/7rrr2/7rrr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - -",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKK7/2RRR7/12/12 w - -",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2R1R7/2RRR6K/12/12 w - -",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRN7/12/12 w - -",
        "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/R11 w - -",
        "12/12/7rRr2/7rkr2/7r1r2/12/12/2RRR7/2RKR7/2R1R7/12/12 b - -",
        "12/12/12/8k3/12/12/12/12/3K8/3r8/12/12 b - -",
    ] {
        assert!(Chad::from_position(bad).is_err(), "{bad}");
    }
    let short = game("12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - -");
    assert_eq!(short.position(), START_POSITION);
}

#[test]
fn promotion_happens_on_plain_moves_and_captures() {
    let mut plain = game("12/12/12/8k3/12/12/12/12/3K8/12/12/7R4 w - - 0 1");
    assert!(plain.apply(&mv("h1h8")).is_ok());
    assert_eq!(
        plain.piece_at(sq("h8")),
        Some(Piece::new(Color::White, Role::Queen))
    );
    assert_eq!(plain.halfmove_clock, 0);

    let mut capture = game("12/12/7r4/6Rrk3/12/12/12/12/3K8/12/12/12 w - - 7 1");
    let before = capture.clone();
    assert_eq!(before.action_to_human(&mv("g9h9")), "Rxh9=Q+");
    assert!(capture.apply(&mv("g9h9")).is_ok());
    assert_eq!(
        capture.piece_at(sq("h9")),
        Some(Piece::new(Color::White, Role::Queen))
    );
    let snapshot = capture.snapshot();
    let last = snapshot
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!(last.human, "Rxh9=Q+");
    assert_eq!(last.effects.len(), 2);
}

#[test]
fn refusals_explain_the_chad_rules_and_change_nothing() {
    let mut start = Chad::start();
    let code = |game: &mut Chad, text: &str| {
        let before = game.position();
        let action = game.parse_action(text).unwrap_or_else(|e| panic!("{e}"));
        let code = game
            .apply(&action)
            .map(|_| "ok")
            .unwrap_or_else(|e| e.code());
        assert_eq!(game.position(), before);
        code
    };
    assert_eq!(code(&mut start, "d4b3"), "king_leaves_castle");
    assert_eq!(code(&mut start, "d4d3"), "illegal_action");
    assert_eq!(code(&mut start, "a1a2"), "empty_square");
    assert_eq!(code(&mut start, "h8h7"), "not_your_piece");
    // A White rook on e9 cannot take the rook on h9: e9 is not Black's wall.
    let mut blocked = game("12/12/7rrr2/4R2rkr2/7rrr2/12/12/2R1R7/2RKR7/2RRR7/12/12 w - - 0 1");
    assert_eq!(code(&mut blocked, "e9h9"), "capture_not_allowed");
    assert_eq!(code(&mut blocked, "e9i9"), "illegal_action");
}

#[test]
fn q_suffix_only_on_promoting_moves() {
    let game = game("12/12/12/8k3/12/12/12/12/3K8/12/12/7R4 w - - 0 1");
    assert_eq!(game.parse_action("h1h8q"), Ok(mv("h1h8")));
    assert!(game.parse_action("h1h7q").is_err());
    assert!(game.parse_action("h1m1").is_err());
    assert!(game.parse_action("h1h8Q").is_err());
    assert_eq!(game.parse_action("Rh8=Q"), Ok(mv("h1h8")));
    assert_eq!(game.parse_action("Rh7"), Ok(mv("h1h7")));
    assert!(game.parse_action("Rh13").is_err());
}

#[test]
fn human_notation_disambiguates_and_marks_mate() {
    let start = Chad::start();
    assert_eq!(start.action_to_human(&mv("e5e9")), "Re9");
    assert_eq!(start.action_to_human(&mv("c3a3")), "Ra3");
    // Two rooks on rank 1 can both reach f1.
    let pair = game("12/12/12/8k3/12/12/12/12/3K8/12/12/R10R w - - 0 1");
    assert_eq!(pair.action_to_human(&mv("a1f1")), "Raf1");
    let check = game("12/12/12/8k3/12/12/12/12/3K8/12/R11/1R10 w - - 0 1");
    assert_eq!(check.action_to_human(&mv("b1i1")), "Ri1+");
}
