//! Unit tests of the Suicide rules through the [`Rules`] trait: position notation, action
//! notation, refusals, the snapshot, and the fast perft against a plain one.

use super::*;

fn game(fen: &str) -> Suicide {
    Suicide::from_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn play_all(game: &mut Suicide, moves: &[&str]) {
    for text in moves {
        let action = game
            .parse_action(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        game.apply(&action)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

/// Perft through `legal_actions` and `apply` only: slow, but it shares nothing with the
/// bulk-counting search except move generation, and judges draws through `outcome`.
fn plain_perft(game: &Suicide, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    game.legal_actions()
        .iter()
        .map(|action| {
            let mut child = game.clone();
            match child.apply(action) {
                Ok(()) => plain_perft(&child, depth - 1),
                Err(e) => panic!("listed action refused: {e}"),
            }
        })
        .sum()
}

#[test]
fn start_position_perft_to_depth_five() {
    let start = Suicide::start();
    let counts: Vec<u64> = (1..=5).map(|d| start.perft(d)).collect();
    assert_eq!(counts, [20, 400, 8067, 153_299, 2_732_672]);
}

#[test]
fn fast_perft_agrees_with_the_plain_one_across_draw_rules() {
    let mut repeated = Suicide::start();
    play_all(
        &mut repeated,
        &["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"],
    );
    let cases = [
        (repeated, 3),
        (game("8/8/8/8/8/8/P7/K6k w - - 97 60"), 4),
        (
            game("r3k2r/p1pp1pb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
            2,
        ),
        (game("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1"), 4),
        (game("8/P1p5/8/8/8/8/1p5P/8 w - - 0 1"), 4),
    ];
    for (position, depth) in cases {
        assert_eq!(
            position.perft(depth),
            plain_perft(&position, depth),
            "{}",
            position.position()
        );
    }
}

#[test]
fn threefold_repetition_prunes_the_perft_tree() {
    let mut game = Suicide::start();
    play_all(&mut game, &["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"]);
    // Below f3g1 f6g8 the start position stands for the third time: no children there.
    let mut after = game.clone();
    play_all(&mut after, &["f3g1", "f6g8"]);
    assert_eq!(after.outcome(), Some(Outcome::draw(EndReason::Repetition)));
    assert_eq!(after.perft(1), 0);
    assert!(game.perft(3) < Suicide::from_position(&game.position()).map_or(0, |g| g.perft(3)));
}

#[test]
fn fen_with_four_fields_is_accepted_and_printed_with_six() {
    let g = game("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(
        g.position(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
    );
    assert_eq!(g.ply(), 0);
    assert_eq!(game("8/8/8/8/8/8/8/K6k b - - 3 12").ply(), 23);
}

#[test]
fn impossible_or_malformed_positions_are_refused_with_a_reason() {
    let refused = [
        ("", "expected a FEN"),
        ("8/8/8/8/8/8/8/8 w", "expected a FEN"),
        ("8/8/8/8/8/8/8 w - - 0 1", "ranks"),
        ("9/8/8/8/8/8/8/8 w - - 0 1", "files"),
        ("P7/8/8/8/8/8/8/k7 w - - 0 1", "pawn stands on rank 1 or 8"),
        ("k7/8/8/8/8/8/8/p7 w - - 0 1", "pawn stands on rank 1 or 8"),
        ("8/8/8/8/8/8/8/7D w - - 0 1", "unknown piece letter"),
        ("8/8/8/8/8/8/8/K6k x - - 0 1", "side to move"),
        ("8/8/8/8/8/8/8/K6k w KQx - 0 1", "castling"),
        ("8/8/8/8/8/8/8/K6k w - - x 1", "move counter"),
        ("8/8/8/8/8/8/8/K6k w - - 0 0", "starts at 1"),
        ("8/8/8/8/8/8/8/K6k w - - 0 1 extra", "too many fields"),
        ("8/8/8/8/8/8/8/K6k w - e9 0 1", "en passant"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d3 0 1", "rank 6"),
        ("4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1", "no enemy pawn"),
        ("4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 1", "occupied"),
        (
            "QQQQQQQQ/QQQQQQQQ/Q7/8/8/8/8/7k w - - 0 1",
            "more than 16 men",
        ),
        ("7k/8/8/8/8/8/PPPPPPPP/7P w - - 0 1", "rank 1 or 8"),
        ("7k/8/8/8/8/P7/PPPPPPPP/8 w - - 0 1", "more than 8 pawns"),
    ];
    for (fen, why) in refused {
        match Suicide::from_position(fen) {
            Ok(_) => panic!("{fen} was accepted"),
            Err(e) => assert!(e.to_string().contains(why), "{fen}: {e}"),
        }
    }
}

#[test]
fn a_valid_en_passant_square_no_pawn_can_use_is_dropped() {
    let g = game("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1");
    assert_eq!(g.position(), "4k3/8/8/3p4/8/8/8/4K3 w - - 0 1");
}

#[test]
fn human_notation_is_san_without_check_marks() {
    let mut g = Suicide::start();
    let human = |g: &Suicide, text: &str| {
        let action = g.parse_action(text).unwrap_or_else(|e| panic!("{e}"));
        g.action_to_human(&action)
    };
    assert_eq!(human(&g, "e2e4"), "e4");
    assert_eq!(human(&g, "g1f3"), "Nf3");
    play_all(&mut g, &["e2e4", "d7d5"]);
    assert_eq!(human(&g, "e4d5"), "exd5");
    let kings = game("8/8/8/8/8/8/4r3/4K2k w - - 0 1");
    assert_eq!(human(&kings, "e1e2"), "Kxe2");
    let promotion = game("8/P7/8/8/8/8/8/K6k w - - 0 1");
    assert_eq!(human(&promotion, "a7a8k"), "a8=K");
    assert_eq!(human(&promotion, "a8=k"), "a8=K");
    let ep = game("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    assert_eq!(human(&ep, "e5d6"), "exd6");
    let rooks = game("R6R/8/8/8/8/8/8/R3K2k w - - 0 1");
    assert_eq!(human(&rooks, "a8d8"), "Rad8");
    assert_eq!(human(&rooks, "a1a4"), "R1a4");
}

#[test]
fn machine_notation_round_trips_for_every_legal_move() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "1n6/P7/8/8/8/8/8/K6k w - - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    ] {
        let g = game(fen);
        for action in g.legal_actions() {
            let text = g.action_to_machine(&action);
            assert_eq!(g.parse_action(&text), Ok(action), "{text}");
            let human = g.action_to_human(&action);
            assert_eq!(g.parse_action(&human), Ok(action), "{human}");
        }
    }
}

#[test]
fn parsing_accepts_upper_case_promotions_and_refuses_nonsense() {
    let g = game("8/P7/8/8/8/8/8/K6k w - - 0 1");
    let expected = SuicideMove {
        from: 48,
        to: 56,
        promotion: Some(Role::King),
    };
    for text in ["a7a8k", "a7a8K", "a8=K", "a8=k", "a8K", "a8=K+", " a7a8k "] {
        assert_eq!(g.parse_action(text), Ok(expected), "{text}");
    }
    for text in [
        "", "a7a8x", "a7a8=P", "a9", "Ka9", "O-O", "é4", "a7a8qq", "=K", "x",
    ] {
        assert!(g.parse_action(text).is_err(), "{text}");
    }
}

#[test]
fn refused_moves_leave_the_game_unchanged() {
    let mut g = Suicide::start();
    play_all(&mut g, &["e2e4", "d7d5"]);
    let before = g.position();
    let quiet = g.parse_action("g1f3").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.apply(&quiet), Err(IllegalAction::MustCapture));
    assert_eq!(g.position(), before);
}

#[test]
fn snapshot_describes_the_board_and_the_last_move() {
    let mut g = Suicide::start();
    play_all(&mut g, &["e2e4"]);
    let snapshot = g.snapshot();
    assert_eq!(snapshot.pieces.len(), 32);
    // File by file, as the square labels sort.
    let squares: Vec<&str> = snapshot.pieces.iter().map(|p| &*p.square).collect();
    assert_eq!(squares[..6], ["a1", "a2", "a7", "a8", "b1", "b2"]);
    assert!(squares.is_sorted(), "{squares:?}");
    assert_eq!(snapshot.boards.len(), 1);
    assert_eq!((snapshot.boards[0].files, snapshot.boards[0].ranks), (8, 8));
    assert_eq!(snapshot.turn, Color::Black);
    assert_eq!(snapshot.ply, 1);
    assert!(snapshot.check.is_empty());
    assert_eq!(snapshot.legal_actions.len(), 20);
    let last = snapshot
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!((last.machine.as_str(), last.human.as_str()), ("e2e4", "e4"));
    let squares: Vec<&str> = last.squares.iter().map(|s| &*s.square).collect();
    assert_eq!(squares, ["e2", "e4"]);
    assert_eq!(snapshot.outcome, None);
}

#[test]
fn snapshot_highlights_the_pawn_taken_en_passant_and_names_promotions() {
    let mut g = game("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1");
    play_all(&mut g, &["d7d5", "e5d6"]);
    let last = g
        .snapshot()
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    let squares: Vec<&str> = last.squares.iter().map(|s| &*s.square).collect();
    assert_eq!(squares, ["e5", "d6", "d5"]);
    assert_eq!(last.effects, ["en passant: the pawn on d5 is taken"]);
    let mut g = game("8/P7/8/8/8/8/8/K6k w - - 0 1");
    play_all(&mut g, &["a8=K"]);
    let last = g
        .snapshot()
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!(
        (last.human.as_str(), last.effects.as_slice()),
        ("a8=K", &["promotion to king".to_string()][..])
    );
}

#[test]
fn snapshot_lists_legal_actions_in_byte_order() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        // Promotions with and without capture, beside plain moves of the same pawns' files.
        "1n1n4/P1P5/8/8/8/8/5p1p/6N1 w - - 0 1",
        "1n1n4/P1P5/8/8/8/8/5p1p/6N1 b - - 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w - d6 0 2",
    ] {
        let snapshot = game(fen).snapshot();
        let mut sorted = snapshot.legal_actions.clone();
        sorted.sort_unstable();
        assert_eq!(snapshot.legal_actions, sorted, "{fen}");
        assert!(!sorted.is_empty(), "{fen}");
    }
}

/// Plays `plies` pseudo-random legal moves (a fixed linear congruential walk) through both
/// `apply` and `play_unchecked`, checking after each that the two games agree.
fn walk_both_ways(start: &Suicide, plies: u32, mut state: u64) {
    let (mut checked, mut fast) = (start.clone(), start.clone());
    for _ in 0..plies {
        let actions = checked.legal_actions();
        if actions.is_empty() {
            break;
        }
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let action = actions[(state >> 33) as usize % actions.len()];
        checked
            .apply(&action)
            .unwrap_or_else(|e| panic!("listed action refused: {e}"));
        fast.play_unchecked(&action);
        assert_eq!(fast.position(), checked.position());
        assert_eq!(fast.hash(), checked.hash());
        assert_eq!(fast.outcome(), checked.outcome());
        assert_eq!(fast.legal_actions(), checked.legal_actions());
    }
}

#[test]
fn the_search_move_agrees_with_apply_through_whole_games() {
    for seed in 1..=20 {
        walk_both_ways(&Suicide::start(), 300, seed);
    }
    // Promotions (to a king too) and en passant.
    walk_both_ways(&game("8/1P4k1/8/8/3p4/8/4P3/K7 w - - 0 1"), 60, 7);
}

#[test]
fn mobility_counts_either_sides_moves() {
    // White's knight must take the bishop or the pawn; Black would have no capture: the
    // bishop's 13 moves and the pawn's 5 promotions.
    let white_to_move = game("8/8/8/4b3/8/5N2/3p4/8 w - - 0 1");
    let black_to_move = game("8/8/8/4b3/8/5N2/3p4/8 b - - 0 1");
    for g in [&white_to_move, &black_to_move] {
        assert_eq!(
            g.mobility(Color::White),
            Mobility {
                moves: 2,
                captures: 2
            }
        );
        assert_eq!(
            g.mobility(Color::Black),
            Mobility {
                moves: 18,
                captures: 0
            }
        );
    }
    assert_eq!(black_to_move.legal_actions().len(), 18);
    let men = white_to_move.men();
    assert_eq!(men.by_color, [1 << 21, (1 << 36) | (1 << 11)]);
    assert_eq!(men.by_role[usize::from(KNIGHT)], 1 << 21);
    assert_eq!(men.by_role[usize::from(PAWN_INDEX)], 1 << 11);
}
