//! Unit tests for the geometry: square names and labels, placement text, holes, rays and
//! the action-text tables.

use super::*;
use crate::snapshot::Label;
use std::borrow::Cow;
use std::sync::LazyLock;

#[test]
fn label_order_is_the_byte_order_of_the_names() {
    for (files, ranks) in [
        (1, 1),
        (3, 3),
        (5, 7),
        (8, 5),
        (8, 8),
        (9, 10),
        (12, 12),
        (16, 16),
    ] {
        let ours: Vec<String> = label_order(files, ranks).map(Coord::name).collect();
        let mut sorted: Vec<String> = (0..files)
            .flat_map(|f| (0..ranks).map(move |r| Coord::new(f, r).name()))
            .collect();
        sorted.sort_unstable();
        assert_eq!(ours, sorted, "{files}x{ranks}");
    }
}

#[test]
fn pair_texts_join_the_square_names() {
    let moves = PairTexts::new(12, 12, "");
    let attacks = PairTexts::new(8, 8, "x");
    for (from, to) in [((0, 0), (11, 11)), ((3, 4), (3, 8)), ((11, 0), (0, 11))] {
        let (from, to) = (Coord::new(from.0, from.1), Coord::new(to.0, to.1));
        assert_eq!(
            moves.get(from, to),
            Some(format!("{}{}", from.name(), to.name()).as_str())
        );
    }
    assert_eq!(
        attacks.get(Coord::new(4, 1), Coord::new(4, 3)),
        Some("e2xe4")
    );
    assert_eq!(
        attacks.get(Coord::new(7, 7), Coord::new(0, 0)),
        Some("h8xa1")
    );
    // A list of pairs comes out in byte order, as the general sort puts it.
    static TABLE: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(12, 12, ""));
    let squares: Vec<Coord> = (0..12)
        .flat_map(|rank| (0..12).map(move |file| Coord::new(file, rank)))
        .collect();
    let pairs: Vec<(Coord, Coord)> = squares
        .iter()
        .enumerate()
        .flat_map(|(i, &from)| {
            squares
                .iter()
                .skip(i % 7)
                .step_by(5)
                .map(move |&to| (from, to))
        })
        .collect();
    let spell = |&(from, to): &(Coord, Coord)| format!("{}{}", from.name(), to.name());
    let by_table = |pairs: &[(Coord, Coord)], table: &'static PairTexts| {
        table.sorted_labels(pairs.iter().copied(), |&pair| Some(pair), spell)
    };
    let by_sort = |pairs: &[(Coord, Coord)]| {
        let mut expected: Vec<Label> = pairs.iter().map(|p| Cow::Owned(spell(p))).collect();
        expected.sort_unstable();
        expected
    };
    assert_eq!(by_table(&pairs, &TABLE), by_sort(&pairs));
    // Every label but the spelled ones is borrowed from the table.
    let owned = |labels: &[Label]| labels.iter().filter(|l| matches!(l, Cow::Owned(_))).count();
    assert_eq!(owned(&by_table(&pairs, &TABLE)), 0);
    // A pair twice, squares off the board (spelled, `m1a1`), and a board past the
    // bitmap's size (all spelled): still the general sort's order.
    let mut mixed = vec![(squares[0], squares[1]), (squares[0], squares[1])];
    mixed.extend([(Coord::new(12, 0), squares[0]), (squares[5], squares[3])]);
    mixed.extend(pairs.iter().step_by(3).copied());
    assert_eq!(by_table(&mixed, &TABLE), by_sort(&mixed));
    assert_eq!(owned(&by_table(&mixed, &TABLE)), 2);
    static LARGER: LazyLock<PairTexts> = LazyLock::new(|| PairTexts::new(16, 16, ""));
    assert_eq!(by_table(&pairs, &LARGER), by_sort(&pairs));
    // Items with no pair are spelled and merged in.
    let spelled_only = TABLE.sorted_labels(["b1", "a1", "a12"], |_| None, |s| s.to_string());
    assert_eq!(spelled_only, ["a1", "a12", "b1"]);
    // Off the table's board: no text, so the caller spells it.
    assert_eq!(attacks.get(Coord::new(8, 0), Coord::new(0, 0)), None);
    assert_eq!(moves.get(Coord::new(0, 12), Coord::new(0, 0)), None);
}

#[test]
fn labels_are_the_names() {
    for file in 0..30 {
        for rank in 0..20 {
            let square = Coord::new(file, rank);
            assert_eq!(square.label(), square.name(), "{square:?}");
        }
    }
    assert!(matches!(Coord::new(4, 3).label(), Cow::Borrowed("e4")));
    for file in 0..30 {
        let name = Coord::new(file, 0).name();
        assert_eq!(
            Coord::file_label(file),
            name[..name.len() - 1],
            "file {file}"
        );
    }
    for rank in 0..20 {
        assert_eq!(Coord::rank_label(rank), (u32::from(rank) + 1).to_string());
    }
    assert!(matches!(Coord::file_label(11), Cow::Borrowed("l")));
    assert!(matches!(Coord::rank_label(11), Cow::Borrowed("12")));
}

#[test]
fn square_names_parse_and_print() {
    for (name, file, rank) in [("a1", 0, 0), ("e4", 4, 3), ("l12", 11, 11), ("h10", 7, 9)] {
        assert_eq!(Coord::parse(name), Some(Coord::new(file, rank)));
        assert_eq!(Coord::new(file, rank).name(), name);
    }
    for bad in ["", "a", "a0", "z1", "a17", "a01", "1a", "e4x", "A1"] {
        assert_eq!(Coord::parse(bad), None, "{bad}");
    }
    assert_eq!(
        parse_square_prefix("a10a12"),
        Some((Coord::new(0, 9), "a12"))
    );
}

#[test]
fn placement_with_holes_and_wide_runs_round_trips() {
    let shape = Shape::with_holes(5, 7, &[Coord::new(2, 3)]);
    let fen = "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR";
    let board = Mailbox::parse_placement(shape, fen, Some);
    let board = board.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(board.placement(|c| *c), fen);
    assert_eq!(board.get(Coord::new(2, 0)), Some(&'K'));
    assert!(Mailbox::parse_placement(shape, "dnkbr/pp1pp/5/5/5/PP1PP/DNKBR", Some).is_err());
    assert!(Mailbox::parse_placement(shape, "dnkbr/pp1pp/5/2*2/5/PP1PP", Some).is_err());
    for bad in [
        "dnkbr/pp1pp/6/2*2/5/PP1PP/DNKBR",
        "dnkbrr/pp1pp/5/2*2/5/PP1PP/DNKBR",
        "dnkbr/pp1pp/4/2*2/5/PP1PP/DNKBR",
        "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBX",
        "dnkbr/pp1pp/0/2*2/5/PP1PP/DNKBR",
    ] {
        assert!(
            Mailbox::parse_placement(shape, bad, |c| (c != 'X').then_some(c)).is_err(),
            "{bad}"
        );
    }

    let wide = Shape::rectangle(12, 12);
    let fen = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12";
    let board = Mailbox::parse_placement(wide, fen, Some);
    let board = board.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(board.placement(|c| *c), fen);
    assert_eq!(board.get(Coord::new(3, 3)), Some(&'K'));
}

#[test]
fn holes_are_marked_and_are_not_squares() {
    let holes = [
        Coord::new(2, 3),
        Coord::new(0, 0),
        Coord::new(4, 6),
        Coord::new(5, 0),
    ];
    let shape = Shape::with_holes(5, 7, &holes);
    // The square off the rectangle is no hole; the others are holes and nothing else is.
    let marked: Vec<Coord> = (0..16)
        .flat_map(|rank| (0..16).map(move |file| Coord::new(file, rank)))
        .filter(|&c| shape.is_hole(c))
        .collect();
    assert_eq!(
        marked,
        [Coord::new(0, 0), Coord::new(2, 3), Coord::new(4, 6)]
    );
    for c in marked {
        assert!(shape.in_rectangle(c) && !shape.contains(c));
    }
    assert_eq!(shape.squares().count(), 5 * 7 - 3);
    assert!(shape.contains(Coord::new(1, 3)) && !shape.contains(Coord::new(5, 0)));
    let whole = Shape::rectangle(16, 16);
    assert_eq!(whole.squares().count(), 256);
    assert!(!whole.is_hole(Coord::new(16, 3)));
}

#[test]
fn rays_stop_at_edges_and_holes() {
    let shape = Shape::with_holes(5, 7, &[Coord::new(2, 3)]);
    let up: Vec<String> = shape.ray(Coord::new(2, 0), 0, 1).map(Coord::name).collect();
    assert_eq!(up, ["c2", "c3"]);
    let diag: Vec<String> = shape.ray(Coord::new(0, 0), 1, 1).map(Coord::name).collect();
    assert_eq!(diag, ["b2", "c3", "d4", "e5"]);
}
