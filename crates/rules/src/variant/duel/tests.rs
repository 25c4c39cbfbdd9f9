//! Unit tests for Duel Chess: notation round trips, the human form, the snapshot and the
//! refusals the data tables cannot see.

use super::*;

fn game(position: &str) -> Duel {
    Duel::from_position(position).unwrap_or_else(|e| panic!("{position}: {e}"))
}

fn play(game: &mut Duel, actions: &[&str]) {
    for text in actions {
        let action = game.parse_action(text).unwrap_or_else(|e| panic!("{e}"));
        game.apply(&action)
            .unwrap_or_else(|e| panic!("{text} at {}: {e}", game.position()));
    }
}

fn human(game: &Duel, text: &str) -> String {
    let action = game.parse_action(text).unwrap_or_else(|e| panic!("{e}"));
    game.action_to_human(&action)
}

#[test]
fn start_position_parses_and_prints() {
    let game = Duel::start();
    assert_eq!(game.position(), START);
    assert_eq!(game.turn(), Color::White);
    assert_eq!(game.ply(), 0);
    assert_eq!(game.outcome(), None);
}

#[test]
fn perft_from_the_start() {
    let game = Duel::start();
    assert_eq!(
        [1, 2, 3].map(|d| game.perft(d)),
        [15, 235, 4062],
        "depth 4 (77280) is in docs/rules/duel.md"
    );
}

#[test]
fn bad_positions_are_refused_with_a_reason() {
    for bad in [
        "",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 1 extra",
        "dnkbr/pp1pp/5/5/5/PP1PP/DNKBR 3/3/3 w - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DN1BR 3/3/3 w - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKKR 3/3/3 w - - 0 1",
        "dnqbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR k2/3/3 w - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3 w - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 4/3/3 w - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 x - - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w c4 - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w e3 - 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - a1 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - a2,a2 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - a2; 0 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - -1 1",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 0",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 4000000000",
        // Black, not to move, stands in check from the rook.
        "2k1R/p4/5/2*2/5/P4/4K 3/3/3 w - - 0 1",
        // A returned pawn cannot have just double-stepped.
        "2k2/p4/5/2*1P/5/5/4K 3/3/3 b e3 e4 0 1",
    ] {
        assert!(Duel::from_position(bad).is_err(), "accepted `{bad}`");
    }
}

#[test]
fn returned_pawns_print_in_square_order() {
    let text = "2k2/p4/5/2*2/5/P3P/4K 3/3/3 w - a2,e2 3 7";
    assert_eq!(game(text).position(), text);
    let shuffled = game("2k2/p4/5/2*2/5/P3P/4K 3/3/3 w - e2,a2 3 7");
    assert_eq!(shuffled.position(), text);
    assert_eq!(shuffled.ply(), 12);
}

#[test]
fn machine_notation_round_trips_over_every_short_string() {
    // Every 4-character string over the letters the notation uses, plus a 7-character tail
    // for each of the two kinds that take one: whatever parses prints back the same.
    let alphabet: Vec<char> = "abcdexyz012345678@>".chars().collect();
    let game = Duel::start();
    let mut parsed = 0;
    for a in &alphabet {
        for b in &alphabet {
            for c in &alphabet {
                for d in &alphabet {
                    let text: String = [a, b, c, d].into_iter().collect();
                    for candidate in [text.clone(), format!("{text}@y2"), format!("{text}>b3")] {
                        if let Ok(action) = game.parse_action(&candidate) {
                            parsed += 1;
                            assert_eq!(game.action_to_machine(&action), candidate);
                        }
                    }
                }
            }
        }
    }
    // 34 * 34 Main pairs (with and without @y2) and 9 * 9 Duel pairs (with and without >b3).
    assert_eq!(parsed, 34 * 34 * 2 + 9 * 9 * 2);
    for bad in [
        "",
        "a2",
        "a2a3@",
        "a2a3@x4",
        "a2a3>b3",
        "x1x2@y2",
        "x1x2>c4",
        "c4c5",
        "a0a1",
        "f1f2",
        "x1a2",
        "a1x2",
        "a2a3@x1@y1",
        "é2a3",
        "a2a3 ",
    ] {
        assert!(game.parse_action(bad).is_err(), "parsed `{bad}`");
    }
}

#[test]
fn borrowed_action_labels_are_the_machine_notation() {
    // Every square of both boards (the hole too), with and without a placement or a return:
    // the label a snapshot borrows from a table is what the notation writes.
    let main: Vec<Coord> = (0..7)
        .flat_map(|rank| (0..5).map(move |file| Coord::new(file, rank)))
        .collect();
    let duel: Vec<Coord> = (0..3)
        .flat_map(|rank| (0..3).map(move |file| Coord::new(file, rank)))
        .collect();
    let pairs = |squares: &[Coord]| -> Vec<(Coord, Coord)> {
        squares
            .iter()
            .flat_map(|&from| squares.iter().map(move |&to| (from, to)))
            .collect()
    };
    let mut actions = Vec::new();
    for (from, to) in pairs(&main) {
        for place in std::iter::once(None).chain(duel.iter().copied().map(Some)) {
            actions.push(Action::Main { from, to, place });
        }
    }
    for (from, to) in pairs(&duel) {
        for back in std::iter::once(None).chain(main.iter().copied().map(Some)) {
            actions.push(Action::Duel { from, to, back });
        }
    }
    // Every one of them borrowed, and the list in the byte order of the texts.
    let labels = notation::sorted_action_labels(&actions);
    assert!(labels.iter().all(|label| matches!(label, Cow::Borrowed(_))));
    let mut machine: Vec<String> = actions.iter().map(notation::action_machine).collect();
    machine.sort();
    assert_eq!(labels, machine);
    // Off both boards: spelled, and still right and in order among the others.
    let off = Action::Main {
        from: Coord::new(7, 0),
        to: Coord::new(0, 0),
        place: None,
    };
    let some: Vec<Action> = actions.iter().step_by(97).copied().chain([off]).collect();
    let mut machine: Vec<String> = some.iter().map(notation::action_machine).collect();
    machine.sort();
    assert_eq!(notation::sorted_action_labels(&some), machine);
}

#[test]
fn human_notation_reads_like_san() {
    let start = Duel::start();
    assert_eq!(human(&start, "b1c3"), "Nc3");
    assert_eq!(human(&start, "a1a3"), "Da3");
    assert_eq!(human(&start, "e2e4"), "e4");

    let capture = game("2k2/p2b1/5/2*2/5/3R1/4K 3/3/3 w - - 0 1");
    assert_eq!(human(&capture, "d2d6@x1"), "Rxd6@X1");

    let full = game("2k2/p4/1n3/1P*2/1D3/5/4K NPB/pbp/rdP w - - 0 1");
    assert_eq!(human(&full, "b3b5@z1"), "Dxb5@Z1xP");

    let duel = game("2k2/p4/5/2*2/5/P4/4K n2/3/R2 w - - 0 1");
    assert_eq!(human(&duel, "x1x3>b6"), "RxX3>b6");
    assert_eq!(human(&duel, "x1z1"), "RZ1");

    let pawn = game("2k2/p4/5/2*2/5/P4/4K 3/p2/1P1 w - - 0 1");
    assert_eq!(human(&pawn, "y1x2>e3"), "YxX2>e3");
    assert_eq!(human(&pawn, "y1y2"), "Y2");

    // Two rooks could not happen from the start, but the notation still disambiguates.
    let rooks = game("2k2/p4/5/2*2/5/R3R/4K 3/3/3 w - - 0 1");
    assert_eq!(human(&rooks, "a2c2"), "Rac2");

    let mate = game("1rk2/5/5/2*2/1d1n1/4P/K4 3/3/3 b - - 99 80");
    assert_eq!(human(&mate, "b7a7"), "Ra7#");
    let check = game("2k2/p4/5/2*2/5/P3R/4K 3/3/3 w - - 0 1");
    assert_eq!(human(&check, "e2e7"), "Re7+");
    // The hole shields the king: no check along the c-file.
    assert_eq!(human(&check, "e2c2"), "Rc2");
}

#[test]
fn refused_actions_leave_the_game_unchanged() {
    let mut duel = game("2k2/p4/1n3/1P*2/1D3/5/4K N1p/1b1/r2 w - - 0 1");
    let before = duel.position();
    for text in [
        "b3b5", "b3b5@x3", "b3b2", "x3y1@a1", "x1x2", "a6a5", "e1e2@x1",
    ] {
        if let Ok(action) = duel.parse_action(text) {
            assert!(duel.apply(&action).is_err(), "{text} accepted");
        }
        assert_eq!(duel.position(), before);
    }
}

#[test]
fn snapshot_describes_both_boards_marks_and_the_last_action() {
    let mut duel = game("2k2/p4/1n3/1P*2/1D3/5/4K N2/3/3 w - b4 0 1");
    let snapshot = duel.snapshot();
    assert_eq!(snapshot.boards.len(), 2);
    assert_eq!(snapshot.boards[0].holes, ["c4"]);
    assert_eq!(snapshot.boards[1].file_labels, ["X", "Y", "Z"]);
    let knight = snapshot.pieces.iter().find(|p| p.board == "duel");
    assert_eq!(
        knight.map(|p| p.marks.clone()),
        Some(vec![Cow::Borrowed("frozen")])
    );
    let pawn = snapshot.pieces.iter().find(|p| p.square == "b4");
    assert_eq!(
        pawn.map(|p| p.marks.clone()),
        Some(vec![Cow::Borrowed("returned")])
    );
    // White lacks R, B and three pawns; Black lacks D, B, R and three pawns.
    assert_eq!(snapshot.off_board.len(), 11);

    play(&mut duel, &["b3b5@z1"]);
    let snapshot = duel.snapshot();
    assert!(snapshot.pieces.iter().all(|p| p.marks != ["frozen"]));
    let last = snapshot
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert_eq!(last.machine, "b3b5@z1");
    assert_eq!(last.human, "Dxb5@Z1");
    let squares: Vec<(String, String)> = last
        .squares
        .iter()
        .map(|s| (s.board.to_string(), s.square.to_string()))
        .collect();
    assert_eq!(
        squares,
        [("main", "b3"), ("main", "b5"), ("duel", "z1")]
            .map(|(b, s)| (b.to_string(), s.to_string()))
    );
    assert_eq!(snapshot.legal_actions.len(), duel.legal_actions().len());
}

#[test]
fn snapshot_lists_kings_in_check_and_en_passant_highlights_the_victim() {
    let check = game("2k2/p4/5/2*2/5/P4/2r1K 3/3/3 w - - 0 1");
    let snapshot = check.snapshot();
    assert_eq!(snapshot.check, [SquareRef::main("e1")]);

    let mut ep = game("2k2/p3p/5/1P*2/5/5/4K 3/3/3 b - - 0 1");
    play(&mut ep, &["a6a4", "b4a5@x1"]);
    let last = ep
        .snapshot()
        .last_action
        .unwrap_or_else(|| panic!("no last action"));
    assert!(last.squares.contains(&SquareRef::main("a4")));
    assert_eq!(last.human, "bxa5@X1");
}

#[test]
fn positions_differing_only_in_a_returned_flag_are_not_repetitions() {
    let returned = game("2k2/p4/5/2*2/5/P4/4K 3/3/3 w - a2 0 1");
    let plain = game("2k2/p4/5/2*2/5/P4/4K 3/3/3 w - - 0 1");
    assert_ne!(returned.key(), plain.key());
}

/// Positions met in a few random games (a tiny xorshift picks the actions).
fn random_positions() -> Vec<String> {
    let mut out = Vec::new();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3 {
        let mut game = Duel::start();
        for _ in 0..30 {
            out.push(game.position());
            let legal = game.legal_actions();
            if legal.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let action = legal[(state % legal.len() as u64) as usize];
            if game.apply(&action).is_err() {
                break;
            }
        }
    }
    out
}

#[test]
fn mutated_positions_never_panic_and_whatever_parses_reprints_stably() {
    let inserts = ['1', '3', '/', ' ', '-', ',', 'P', 'k', 'x', '*', '9'];
    // Every fifth position: enough variety, and quick in debug builds.
    for position in random_positions().into_iter().step_by(5) {
        let chars: Vec<char> = position.chars().collect();
        for at in 0..=chars.len() {
            let mut variants = Vec::new();
            if at < chars.len() {
                let mut cut = chars.clone();
                cut.remove(at);
                variants.push(cut);
            }
            for c in inserts {
                let mut grown = chars.clone();
                grown.insert(at, c);
                variants.push(grown);
            }
            for text in variants {
                let text: String = text.into_iter().collect();
                if let Ok(parsed) = Duel::from_position(&text) {
                    let printed = parsed.position();
                    let again = Duel::from_position(&printed)
                        .unwrap_or_else(|e| panic!("{text} printed as {printed}: {e}"));
                    assert_eq!(again.position(), printed);
                    let _ = parsed.legal_actions();
                    let _ = parsed.outcome();
                }
            }
        }
    }
}

#[test]
fn a_full_duel_board_without_own_men_allows_no_main_capture() {
    // Only a position given as text can do this: nine black men on the Duel board.
    let duel = game("2k2/p4/1n3/1P*2/1D3/5/4K pbp/rdp/nbr w - - 0 1");
    let capture = duel
        .parse_action("b3b5@x1")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!duel
        .legal_actions()
        .iter()
        .any(|a| matches!(a, Action::Main { place: Some(_), .. })));
    let mut probe = duel.clone();
    assert_eq!(
        probe.apply(&capture).map_err(|e| e.code()),
        Err("no_placement")
    );
}

/// Whether a man of `by` attacks `target`, found by walking the board with
/// [`moves::targets`]: with an enemy knight put on the target, does any man of `by` list it
/// as a capture?
fn attacked_by_walking(board: &Mailbox<Man>, target: Coord, by: Color) -> bool {
    let mut board = board.clone();
    board.set(target, Some(Man::new(Piece::new(by.other(), Role::Knight))));
    let piece_at = |c: Coord| board.get(c).map(|m| m.piece);
    let mut targets = Vec::new();
    let attacked = board.occupied().any(|(from, man)| {
        targets.clear();
        let rights = moves::PawnRights::default();
        if man.piece.color != by {
            return false;
        }
        moves::targets(
            board.shape(),
            &piece_at,
            from,
            man.piece,
            rights,
            &mut targets,
        );
        targets.contains(&(target, Landing::Capture))
    });
    attacked
}

#[test]
fn bitmap_attacks_agree_with_walking_the_board() {
    let mut checked = 0;
    let mut attacked = 0;
    for position in random_positions() {
        let game = game(&position);
        let bits = MainBits::of(&game.main);
        for target in main_shape().squares() {
            for by in Color::ALL {
                let cell = main_shape().index(target);
                let expected = attacked_by_walking(&game.main, target, by);
                assert_eq!(
                    bits.attacked(cell, by),
                    expected,
                    "{target:?} attacked by {by:?} at {position}"
                );
                checked += 1;
                attacked += usize::from(expected);
            }
        }
    }
    // Enough of both answers that the agreement means something.
    assert!(
        checked > 3_000 && attacked > 500,
        "{checked} tests, {attacked} attacked"
    );
}
