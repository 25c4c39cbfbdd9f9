//! Unit tests for Do-Or-Die Chazz: mating material, both notations and their round trips,
//! refusals, the forced pass and the options that switch pass and self-destruct off, the
//! snapshot, and the fifty-move counter.

use super::*;

fn game(fen: &str) -> Chazz {
    Chazz::from_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

#[test]
fn mating_material_decides_who_can_still_win() {
    let lone_kings = game("4k3/8/8/8/4K3 w - - 0 1");
    assert!(!lone_kings.can_win(Color::White) && !lone_kings.can_win(Color::Black));
    let one_knight = game("4k3/8/8/8/3NK3 w - - 0 1");
    assert!(!one_knight.can_win(Color::White));
    let two_minors = game("4k3/8/8/8/2BNK3 w - - 0 1");
    assert!(two_minors.can_win(Color::White) && !two_minors.can_win(Color::Black));
    let pawn = game("4k3/p7/8/8/4K3 w - - 0 1");
    assert!(pawn.can_win(Color::Black) && !pawn.can_win(Color::White));
    let rook = game("4k3/8/8/8/R3K3 b - - 0 1");
    assert!(rook.can_win(Color::White));
}

fn play(game: &mut Chazz, moves: &[&str]) {
    for text in moves {
        let action = game
            .parse_action(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        game.apply(&action)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

fn action(game: &Chazz, text: &str) -> ChazzAction {
    game.parse_action(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn human(game: &Chazz, text: &str) -> String {
    game.action_to_human(&action(game, text))
}

fn machine_list(game: &Chazz) -> Vec<String> {
    let mut list: Vec<String> = game
        .legal_actions()
        .iter()
        .map(|a| game.action_to_machine(a))
        .collect();
    list.sort();
    list
}

#[test]
fn start_position_round_trips() {
    assert_eq!(Chazz::start().position(), START_POSITION);
    assert_eq!(game(START_POSITION).position(), START_POSITION);
    assert_eq!(Chazz::start().ply(), 0);
    assert_eq!(game("4k3/pppppppp/8/PPPPPPPP/4K3 b - - 3 12").ply(), 23);
    assert_eq!(
        game("4k3/pppppppp/8/PPPPPPPP/4K3 w - -").position(),
        START_POSITION
    );
}

#[test]
fn positions_the_rules_cannot_reach_are_refused_with_a_reason() {
    for (fen, expected) in [
        ("4k3/pppppppp/8/PPPPPPPP/4K3 w KQkq - 0 1", "castling"),
        ("4k3/pppppppp/8/PPPPPPPP/4K3 w - e3 0 1", "en passant"),
        ("4k3/pppppppp/8/PPPPPPPP/3QK3 w - - 0 1", "queens"),
        ("4k3/pppppppp/8/PPPPPPPP/4K3 w - - 0", "6 fields"),
        ("4k3/pppppppp/8/PPPPPPPP/4K3", "6 fields"),
        ("4k3/pppppppp/8/PPPPPPPP/8 w - - 0 1", "exactly one king"),
        ("4k3/pppppppp/8/PPPPPPPP/3KK3 w - - 0 1", "exactly one king"),
        ("P3k3/8/8/8/4K3 w - - 0 1", "promotion rank"),
        ("4k3/8/8/8/p3K3 w - - 0 1", "promotion rank"),
        ("4k3/8/8/8/r3K3 b - - 0 1", "in check"),
        ("4k3/pppppppp/8/PPPPPPPP/4K3 x - - 0 1", "side to move"),
        ("4k3/pppppppp/8/PPPPPPPP/4K3 w - - -1 1", "halfmove"),
        ("4k3/pppppppp/8/PPPPPPPP/4K3 w - - 0 0", "move number"),
        ("4k3/pppppppp/PPPPPPPP/4K3 w - - 0 1", "ranks"),
        ("4k3/pppppppp/9/PPPPPPPP/4K3 w - - 0 1", "8 files"),
        ("4k3/ppppxppp/8/PPPPPPPP/4K3 w - - 0 1", "piece letter"),
        ("4k3/ppppdppp/8/PPPPPPPP/4K3 w - - 0 1", "piece letter"),
    ] {
        match Chazz::from_position(fen) {
            Ok(_) => panic!("{fen} was accepted"),
            Err(e) => assert!(e.to_string().contains(expected), "{fen}: {e}"),
        }
    }
    // The side to move may be in check.
    assert!(Chazz::from_position("4k3/8/8/8/r3K3 w - - 0 1").is_ok());
}

#[test]
fn machine_notation_round_trips_for_every_legal_action() {
    for fen in [
        START_POSITION,
        "4r2k/3P4/8/8/K7 w - - 0 1",
        "p3k3/8/8/8/R3K3 b - - 0 1",
        "8/8/6k1/7p/7K w - - 0 1",
        "4k3/8/8/3p4/K7 b - - 0 1",
    ] {
        let game = game(fen);
        for legal in game.legal_actions() {
            let text = game.action_to_machine(&legal);
            assert_eq!(action(&game, &text), legal, "{fen}: {text}");
        }
    }
}

#[test]
fn machine_forms_of_pass_and_self_destruct() {
    let game = game(START_POSITION);
    assert_eq!(action(&game, "pass"), ChazzAction::Pass);
    assert_eq!(action(&game, "0000"), ChazzAction::Pass);
    assert_eq!(game.action_to_machine(&ChazzAction::Pass), "pass");
    let a1 = ChazzAction::SelfDestruct {
        from: Coord::new(0, 0),
    };
    let h5 = ChazzAction::SelfDestruct {
        from: Coord::new(7, 4),
    };
    assert_eq!(action(&game, "a1a0"), a1);
    assert_eq!(action(&game, "h5h6"), h5);
    assert_eq!(game.action_to_machine(&a1), "a1a0");
    assert_eq!(game.action_to_machine(&h5), "h5h6");
    for bad in [
        "", "a", "a2a0", "a4a6", "a5b6", "b1a0", "a1a6", "i1i2", "a1i1", "e2e3k", "e2e3p",
        "e4e5rr", "a5a6r", "xx", "0001", "PASS", "e2e9",
    ] {
        assert!(game.parse_action(bad).is_err(), "{bad}");
    }
}

#[test]
fn human_forms() {
    let start = game(START_POSITION);
    assert_eq!(human(&start, "e2e3"), "e3");
    assert_eq!(human(&start, "e1d1"), "Kd1");
    assert_eq!(human(&start, "d2d1"), "d1");
    let mut opened = start.clone();
    play(&mut opened, &["e2e3"]);
    assert_eq!(human(&opened, "d4e3"), "dxe3");
    let promote = game("7k/3P4/8/8/K7 w - - 0 1");
    assert_eq!(human(&promote, "d4d5r"), "d5=R+");
    assert_eq!(human(&promote, "d4d5n"), "d5=N");
    let mate = game("7k/P7/6PP/8/K7 w - - 0 1");
    assert_eq!(human(&mate, "a4a5r"), "a5=R#");
    let back_check = game("8/8/4Pk2/8/K7 w - - 0 1");
    assert_eq!(human(&back_check, "e3e2"), "e2+");
    let leave = game("4k3/8/8/8/P3K3 w - - 0 1");
    assert_eq!(human(&leave, "a1a0"), "a1-off");
    let stuck = game("8/8/6k1/7p/7K w - - 0 1");
    assert_eq!(human(&stuck, "pass"), "pass");
    // A pawn in front and one behind can both step onto e3.
    let two_ways = game("4k3/8/4P3/8/K3P3 w - - 0 1");
    assert_eq!(human(&two_ways, "e3e2"), "e3-e2");
    assert_eq!(human(&two_ways, "e1e2"), "e1-e2");
    assert_eq!(human(&two_ways, "e3e4"), "e4");
    // Two knights reach d3: the file tells them apart; two rooks on a file: the rank.
    let knights = game("4k3/8/8/8/1N3N1K w - - 0 1");
    assert_eq!(human(&knights, "b1d2"), "Nbd2");
    let rooks = game("4k3/R7/8/8/R6K w - - 0 1");
    assert_eq!(human(&rooks, "a1a3"), "R1a3");
}

#[test]
fn human_forms_are_read_back() {
    for (fen, moves) in [
        (START_POSITION, vec!["e2e3", "e1d1", "d2d1", "a2a3"]),
        ("7k/3P4/8/8/K7 w - - 0 1", vec!["d4d5r", "d4d5b", "d4d3"]),
        (
            "4k3/8/4P3/8/K3P3 w - - 0 1",
            vec!["e3e2", "e1e2", "e3e4", "a1b1"],
        ),
        ("4k3/8/8/8/1N3N1K w - - 0 1", vec!["b1d2", "f1d2", "h1g2"]),
        ("4k3/R7/8/8/R6K w - - 0 1", vec!["a1a3", "a4a3", "a4e4"]),
        ("4k3/8/8/8/P3K3 w - - 0 1", vec!["a1a0"]),
        ("8/8/6k1/7p/7K w - - 0 1", vec!["pass"]),
    ] {
        let game = game(fen);
        for text in moves {
            let wanted = action(&game, text);
            let written = game.action_to_human(&wanted);
            assert_eq!(action(&game, &written), wanted, "{fen}: {written}");
        }
    }
    let start = game(START_POSITION);
    assert_eq!(action(&start, "e2-e3"), action(&start, "e2e3"));
    assert_eq!(action(&start, "Ke1d1"), action(&start, "e1d1"));
    assert_eq!(action(&start, "e3!?"), action(&start, "e2e3"));
    for bad in [
        "Qd1", "Ke3", "Nf3", "e4", "d5=Q", "x", "K", "é3", "a9-off", "Pe5",
    ] {
        assert!(start.parse_action(bad).is_err(), "{bad}");
    }
    let two_ways = game("4k3/8/4P3/8/K3P3 w - - 0 1");
    let ambiguous = two_ways.parse_action("e2");
    assert!(
        ambiguous
            .as_ref()
            .is_err_and(|e| e.to_string().contains("ambiguous")),
        "{ambiguous:?}"
    );
}

#[test]
fn refused_actions_change_nothing_and_say_why() {
    let mut start = game(START_POSITION);
    let before = start.position();
    for (text, code) in [
        ("a2a4", "no_double_step"),
        ("e2e1", "no_backward_capture"),
        ("pass", "pass_not_allowed"),
        ("a3a4", "empty_square"),
        ("a4a3", "not_your_piece"),
        ("a2a1r", "not_a_promotion"),
        ("e1e3", "illegal_action"),
    ] {
        let refused = start.apply(&action(&start, text));
        assert_eq!(refused.map_err(|e| e.code()), Err(code), "{text}");
        assert_eq!(start.position(), before);
        assert!(start.last.is_none());
    }
}

#[test]
fn a_pass_is_forced_and_recorded() {
    let mut stuck = game("8/8/6k1/7p/7K w - - 0 1");
    assert_eq!(stuck.forced_action(), Some(ChazzAction::Pass));
    assert_eq!(stuck.legal_actions(), vec![ChazzAction::Pass]);
    play(&mut stuck, &["pass"]);
    assert_eq!(stuck.turn(), Color::Black);
    assert_eq!(stuck.ply(), 1);
    assert_eq!(stuck.forced_action(), None);
    let snapshot = stuck.snapshot();
    let last = snapshot
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!(
        (last.machine.as_str(), last.human.as_str()),
        ("pass", "pass")
    );
    assert!(last.squares.is_empty());
    assert_eq!(last.effects, vec!["white could not move and passed"]);
}

#[test]
fn switching_the_pass_rule_off_makes_stalemate_a_draw() {
    let options = ChazzOptions {
        passes: false,
        ..ChazzOptions::default()
    };
    let stuck = Chazz::from_position_with("8/8/6k1/7p/7K w - - 0 1", options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stuck.options(), options);
    assert!(stuck.legal_actions().is_empty());
    assert_eq!(stuck.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn switching_the_self_destruct_off_removes_it() {
    let options = ChazzOptions {
        self_destruct: false,
        ..ChazzOptions::default()
    };
    let fen = "8/8/6k1/p6p/P6K w - - 0 1";
    let mut game = Chazz::from_position_with(fen, options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(game.legal_actions(), vec![ChazzAction::Pass]);
    let refused = game.apply(&ChazzAction::SelfDestruct {
        from: Coord::new(0, 0),
    });
    assert_eq!(refused.map_err(|e| e.code()), Err("self_destruct_disabled"));
    // 5229 with it: 119 fewer, the 7 x 17 lines ending in a self-destruct on ply 3.
    assert_eq!(Chazz::start_with(options).perft(3), 5_110);
}

#[test]
fn snapshot_describes_the_board_the_move_and_the_check() {
    let mut game = game("7k/3P4/8/8/K7 w - - 0 1");
    play(&mut game, &["d5=R"]);
    let snapshot = game.snapshot();
    assert_eq!(snapshot.variant, Variant::Chazz);
    assert_eq!((snapshot.boards[0].files, snapshot.boards[0].ranks), (8, 5));
    assert_eq!(snapshot.pieces.len(), 3);
    assert_eq!(snapshot.turn, Color::Black);
    assert_eq!(snapshot.check, vec![SquareRef::main("h5")]);
    assert_eq!(snapshot.legal_actions, vec!["h5g4", "h5h4"]);
    let last = snapshot
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!(last.machine, "d4d5r");
    assert_eq!(last.human, "d5=R+");
    assert_eq!(
        last.squares,
        vec![SquareRef::main("d4"), SquareRef::main("d5")]
    );
    assert_eq!(machine_list(&game), snapshot.legal_actions);
}

#[test]
fn a_self_destruct_highlights_its_square() {
    let mut game = game("4k3/8/8/8/P3K3 w - - 0 1");
    play(&mut game, &["a1-off"]);
    let last = game
        .snapshot()
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!(
        (last.machine.as_str(), last.human.as_str()),
        ("a1a0", "a1-off")
    );
    assert_eq!(last.squares, vec![SquareRef::main("a1")]);
    assert_eq!(
        last.effects,
        vec!["the white pawn on a1 left the board for good"]
    );
}

#[test]
fn backward_moves_do_not_reset_the_fifty_move_counter() {
    let mut game = game("4k3/pppppppp/8/PPPPPPPP/4K3 w - - 10 6");
    play(&mut game, &["a2a1", "h4h5", "e1d1"]);
    assert_eq!(game.halfmove_clock, 13);
    play(&mut game, &["h5h4"]);
    assert_eq!(game.halfmove_clock, 0);
}
