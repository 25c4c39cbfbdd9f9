//! A second, deliberately simple Chad move generator, written only to cross-check the engine.
//!
//! It shares no code with `crates/rules/src/variant/chad.rs`: its board is a 12x12 grid of FEN
//! characters read by its own parser, the castles and walls are the square lists of the rules
//! brief typed out by hand, and check is found the slow way round (walking out from every
//! enemy rook and queen until it meets a man, rather than out from the king). Random games,
//! biased towards captures and promotions so that the castle/wall rules are exercised, are
//! played through `AnyGame`; at every position the two legal-move sets (as machine-notation
//! strings) and the placements must agree.

use oddboard_rules::{AnyGame, EndReason, Variant};
use std::collections::BTreeSet;

/// `grid[rank][file]`, rank 0 = rank 1; `'.'` for an empty square.
type Grid = [[char; 12]; 12];
/// A move from one (file, rank) square to another, both from 0.
type Move = ((i32, i32), (i32, i32));

const WHITE_CASTLE: &str = "c3 d3 e3 c4 d4 e4 c5 d5 e5";
const WHITE_WALL: &str = "c2 d2 e2 b3 b4 b5 f3 f4 f5 c6 d6 e6";
const BLACK_CASTLE: &str = "h8 i8 j8 h9 i9 j9 h10 i10 j10";
const BLACK_WALL: &str = "h7 i7 j7 g8 g9 g10 k8 k9 k10 h11 i11 j11";

const ROOK_LINES: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const QUEEN_LINES: [(i32, i32); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
const KING_JUMPS: [(i32, i32); 16] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

fn name(file: i32, rank: i32) -> String {
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

fn in_list(list: &str, file: i32, rank: i32) -> bool {
    list.split(' ').any(|s| s == name(file, rank))
}

fn white(c: char) -> bool {
    c.is_ascii_uppercase()
}

/// Castle and wall of the side whose men are upper case (`white`) or lower case.
fn castle(is_white: bool) -> &'static str {
    if is_white {
        WHITE_CASTLE
    } else {
        BLACK_CASTLE
    }
}

fn wall(is_white: bool) -> &'static str {
    if is_white {
        WHITE_WALL
    } else {
        BLACK_WALL
    }
}

fn parse(fen: &str) -> (Grid, bool) {
    let mut grid = [['.'; 12]; 12];
    let mut fields = fen.split(' ');
    let placement = fields.next().unwrap_or_default();
    for (row, text) in placement.split('/').enumerate() {
        let rank = 11 - row;
        let mut file = 0;
        let mut digits = String::new();
        for c in text.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            file += digits.parse::<usize>().unwrap_or(0);
            digits.clear();
            if c != ' ' {
                grid[rank][file] = c;
                file += 1;
            }
        }
    }
    (grid, fields.next() == Some("w"))
}

fn placement(grid: &Grid) -> String {
    let rows: Vec<String> = grid
        .iter()
        .rev()
        .map(|cells| {
            let mut row = String::new();
            let mut empty = 0;
            for &c in cells {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        row += &empty.to_string();
                        empty = 0;
                    }
                    row.push(c);
                }
            }
            if empty > 0 {
                row += &empty.to_string();
            }
            row
        })
        .collect();
    rows.join("/")
}

fn at(grid: &Grid, file: i32, rank: i32) -> Option<char> {
    if (0..12).contains(&file) && (0..12).contains(&rank) {
        Some(grid[rank as usize][file as usize])
    } else {
        None
    }
}

/// Plays a move on the grid, promoting a rook that ends in the enemy castle.
fn play(grid: &Grid, from: (i32, i32), to: (i32, i32)) -> Grid {
    let mut next = *grid;
    let mut man = grid[from.1 as usize][from.0 as usize];
    next[from.1 as usize][from.0 as usize] = '.';
    if man.eq_ignore_ascii_case(&'r') && in_list(castle(!white(man)), to.0, to.1) {
        man = if white(man) { 'Q' } else { 'q' };
    }
    next[to.1 as usize][to.0 as usize] = man;
    next
}

/// Whether the king of the given side is seen by an enemy rook or queen: walk out from every
/// enemy line piece and look at the first man it meets.
fn in_check(grid: &Grid, is_white: bool) -> bool {
    let king = if is_white { 'K' } else { 'k' };
    for rank in 0..12 {
        for file in 0..12 {
            let c = grid[rank as usize][file as usize];
            if c == '.' || white(c) == is_white {
                continue;
            }
            let lines: &[(i32, i32)] = match c.to_ascii_lowercase() {
                'r' => &ROOK_LINES,
                'q' => &QUEEN_LINES,
                _ => &[],
            };
            for &(df, dr) in lines {
                let (mut f, mut r) = (file + df, rank + dr);
                while let Some(seen) = at(grid, f, r) {
                    if seen != '.' {
                        if seen == king {
                            return true;
                        }
                        break;
                    }
                    f += df;
                    r += dr;
                }
            }
        }
    }
    false
}

/// Every legal move of the side to move, as (from, to) pairs.
fn legal(grid: &Grid, is_white: bool) -> Vec<Move> {
    let mut moves = Vec::new();
    for rank in 0..12 {
        for file in 0..12 {
            let c = grid[rank as usize][file as usize];
            if c == '.' || white(c) != is_white {
                continue;
            }
            let enemy_man =
                |t: char| t != '.' && white(t) != is_white && !t.eq_ignore_ascii_case(&'k');
            let mut targets = Vec::new();
            match c.to_ascii_lowercase() {
                'k' => {
                    for (df, dr) in KING_JUMPS {
                        let (f, r) = (file + df, rank + dr);
                        if let Some(t) = at(grid, f, r) {
                            if in_list(castle(is_white), f, r) && (t == '.' || enemy_man(t)) {
                                targets.push((f, r));
                            }
                        }
                    }
                }
                kind => {
                    let lines: &[(i32, i32)] = if kind == 'r' {
                        &ROOK_LINES
                    } else {
                        &QUEEN_LINES
                    };
                    for &(df, dr) in lines {
                        let (mut f, mut r) = (file + df, rank + dr);
                        while let Some(t) = at(grid, f, r) {
                            if t == '.' {
                                targets.push((f, r));
                            } else {
                                let attacker_on_enemy_wall = in_list(wall(!is_white), file, rank)
                                    && in_list(castle(!is_white), f, r);
                                let defender_in_own_castle = in_list(castle(is_white), file, rank)
                                    && in_list(wall(is_white), f, r);
                                if enemy_man(t)
                                    && (attacker_on_enemy_wall || defender_in_own_castle)
                                {
                                    targets.push((f, r));
                                }
                                break;
                            }
                            f += df;
                            r += dr;
                        }
                    }
                }
            }
            for to in targets {
                if !in_check(&play(grid, (file, rank), to), is_white) {
                    moves.push(((file, rank), to));
                }
            }
        }
    }
    moves
}

const STARTS: [&str; 3] = [
    "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w - - 0 1",
    "12/12/7rrr2/7rkr2/6Rrrr2/12/12/12/3K8/12/12/12 w - - 0 1",
    "12/12/7rrr2/7rkr2/7r1r2/6Q3Q1/12/12/3K8/1r10/12/R11 w - - 0 1",
];

/// What the random games exercised, so the test can insist they exercised enough.
#[derive(Default)]
struct Tally {
    positions: usize,
    captures: usize,
    promotions: usize,
    endings: usize,
}

#[test]
fn engine_agrees_with_the_reference_generator_on_random_games() {
    let mut tally = Tally::default();
    for seed in 0..30u64 {
        play_and_compare(seed, &mut tally);
    }
    let Tally {
        positions,
        captures,
        promotions,
        endings,
    } = tally;
    eprintln!(
        "chad reference: {positions} positions, {captures} captures, {promotions} promotions, \
         {endings} finished games"
    );
    // The games must really have exercised the rules being cross-checked.
    assert!(positions >= 2000, "only {positions} positions compared");
    assert!(captures >= 50, "only {captures} captures played");
    assert!(promotions >= 50, "only {promotions} promotions played");
    assert!(endings >= 1, "no game reached an end");
}

/// Plays up to 100 random plies from one of [`STARTS`], checking at every position that the
/// engine's legal moves and ending are the reference's.
fn play_and_compare(seed: u64, tally: &mut Tally) {
    let start = STARTS[seed as usize % STARTS.len()];
    let mut game =
        AnyGame::from_position(Variant::Chad, start).unwrap_or_else(|e| panic!("{start}: {e}"));
    let mut rng = crate::properties::SplitMix(seed);
    for ply in 0..100 {
        let (grid, is_white) = parse(&game.position());
        let here = format!("seed {seed} ply {ply} at {}", game.position());
        assert_eq!(
            game.position().split(' ').next(),
            Some(placement(&grid).as_str()),
            "{here}"
        );
        let drawn_by_rule = matches!(
            game.outcome().map(|o| o.reason),
            Some(EndReason::Repetition | EndReason::FiftyMoves)
        );
        if drawn_by_rule {
            assert!(game.legal_actions().is_empty(), "{here}");
            tally.endings += 1;
            return;
        }
        let reference = legal(&grid, is_white);
        assert_same_moves(&game, &reference, &here);
        tally.positions += 1;
        if reference.is_empty() {
            let reason = game.outcome().map(|o| o.reason);
            let wanted = if in_check(&grid, is_white) {
                EndReason::Checkmate
            } else {
                EndReason::Stalemate
            };
            assert_eq!(reason, Some(wanted), "{here}");
            tally.endings += 1;
            return;
        }
        let (from, to) = pick_move(&grid, &reference, &mut rng);
        if grid[to.1 as usize][to.0 as usize] != '.' {
            tally.captures += 1;
        }
        if promotes(&grid, from, to) {
            tally.promotions += 1;
        }
        let text = format!("{}{}", name(from.0, from.1), name(to.0, to.1));
        if let Err(e) = game.play(&text) {
            panic!("{here}: {text} refused: {e}");
        }
    }
}

/// The engine's legal actions are exactly the reference's moves.
fn assert_same_moves(game: &AnyGame, reference: &[Move], here: &str) {
    let expected: BTreeSet<String> = reference
        .iter()
        .map(|(from, to)| format!("{}{}", name(from.0, from.1), name(to.0, to.1)))
        .collect();
    let actual: BTreeSet<String> = game.legal_actions().into_iter().collect();
    let missing: Vec<_> = expected.difference(&actual).collect();
    let extra: Vec<_> = actual.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{here}: engine misses {missing:?}, has extra {extra:?}"
    );
}

/// Whether the man on `from` is a rook that promotes by ending on `to`, in the enemy castle.
fn promotes(grid: &Grid, from: (i32, i32), to: (i32, i32)) -> bool {
    let man = grid[from.1 as usize][from.0 as usize];
    man.eq_ignore_ascii_case(&'r') && in_list(castle(!white(man)), to.0, to.1)
}

/// A random move of `reference` (not empty); half the time a capture or a promotion if there
/// is one, so the games reach the rules being cross-checked.
fn pick_move(grid: &Grid, reference: &[Move], rng: &mut crate::properties::SplitMix) -> Move {
    let eventful: Vec<_> = reference
        .iter()
        .filter(|(from, to)| {
            grid[to.1 as usize][to.0 as usize] != '.' || promotes(grid, *from, *to)
        })
        .collect();
    if !eventful.is_empty() && rng.below(2) == 0 {
        *eventful[rng.below(eventful.len())]
    } else {
        reference[rng.below(reference.len())]
    }
}
