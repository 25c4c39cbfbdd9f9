//! A second, deliberately simple Duel Chess move generator, written only to check the
//! engine's. It shares no code with `crates/rules/src/variant/duel`: its own board (a map from
//! `(file, rank)` to a letter), its own geometry and its own reading of the position text.
//! It is slow and naive on purpose: every move is tried on a copy of the board and kept if the
//! mover's king is not attacked afterwards, and a return is refused if the enemy king is
//! attacked after the drop (the engine asks instead whether the dropped man attacks it).
//!
//! Random games (biased toward captures, so the Duel board fills up) compare the two legal
//! action sets, as machine-notation strings, position by position.

use oddboard_rules::{AnyGame, EndReason, Variant};
use std::collections::{BTreeMap, BTreeSet};

type Square = (i32, i32);

/// Whether a square exists on the Main board: 5 files, 7 ranks, no c4.
fn on_main(sq: Square) -> bool {
    (0..5).contains(&sq.0) && (0..7).contains(&sq.1) && sq != (2, 3)
}

fn on_duel(sq: Square) -> bool {
    (0..3).contains(&sq.0) && (0..3).contains(&sq.1)
}

fn main_name(sq: Square) -> String {
    format!("{}{}", (b'a' + sq.0 as u8) as char, sq.1 + 1)
}

fn duel_name(sq: Square) -> String {
    format!("{}{}", (b'x' + sq.0 as u8) as char, sq.1 + 1)
}

fn is_white(letter: char) -> bool {
    letter.is_ascii_uppercase()
}

/// The lower-case letter of a man: its role whatever its colour.
fn role(letter: char) -> char {
    letter.to_ascii_lowercase()
}

#[derive(Clone)]
struct Position {
    main: BTreeMap<Square, char>,
    duel: BTreeMap<Square, char>,
    white: bool,
    en_passant: Option<Square>,
    returned: BTreeSet<Square>,
    halfmoves: u32,
}

fn read_rows(text: &str, width: i32) -> BTreeMap<Square, char> {
    let rows: Vec<&str> = text.split('/').collect();
    let height = rows.len() as i32;
    let mut out = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = height - 1 - i as i32;
        let mut file = 0;
        for c in row.chars() {
            if let Some(n) = c.to_digit(10) {
                file += n as i32;
            } else {
                if c != '*' {
                    out.insert((file, rank), c);
                }
                file += 1;
            }
        }
        assert_eq!(file, width, "row {row}");
    }
    out
}

fn read_main_square(text: &str) -> Square {
    let b = text.as_bytes();
    (i32::from(b[0] - b'a'), i32::from(b[1] - b'1'))
}

impl Position {
    fn read(text: &str) -> Position {
        let f: Vec<&str> = text.split(' ').collect();
        Position {
            main: read_rows(f[0], 5),
            duel: read_rows(f[1], 3),
            white: f[2] == "w",
            en_passant: (f[3] != "-").then(|| read_main_square(f[3])),
            returned: if f[4] == "-" {
                BTreeSet::new()
            } else {
                f[4].split(',').map(read_main_square).collect()
            },
            halfmoves: f[5].parse().unwrap_or(0),
        }
    }
}

const KNIGHT: [Square; 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING: [Square; 8] = [
    (1, 1),
    (1, 0),
    (1, -1),
    (0, 1),
    (0, -1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];
const ROOK: [Square; 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP: [Square; 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn add(a: Square, b: Square) -> Square {
    (a.0 + b.0, a.1 + b.1)
}

/// The squares a man on `from` attacks (for pawns: its two diagonals), on a board given by
/// `exists` and `board`.
fn attacked_by_man(
    board: &BTreeMap<Square, char>,
    exists: fn(Square) -> bool,
    from: Square,
    letter: char,
) -> Vec<Square> {
    let mut out = Vec::new();
    let forward = if is_white(letter) { 1 } else { -1 };
    match role(letter) {
        'p' => out.extend([
            (from.0 - 1, from.1 + forward),
            (from.0 + 1, from.1 + forward),
        ]),
        'n' => out.extend(KNIGHT.iter().map(|&d| add(from, d))),
        'k' => out.extend(KING.iter().map(|&d| add(from, d))),
        'd' => {
            for d in ROOK {
                let over = add(from, d);
                if exists(over) {
                    out.push(add(over, d));
                }
            }
        }
        role => {
            let dirs: &[Square] = if role == 'r' { &ROOK } else { &BISHOP };
            for &d in dirs {
                let mut sq = add(from, d);
                while exists(sq) {
                    out.push(sq);
                    if board.contains_key(&sq) {
                        break;
                    }
                    sq = add(sq, d);
                }
            }
        }
    }
    out.retain(|&sq| exists(sq));
    out
}

/// Whether the king of the given colour stands attacked on the Main board.
fn king_attacked(main: &BTreeMap<Square, char>, white_king: bool) -> bool {
    let king = if white_king { 'K' } else { 'k' };
    let Some((&at, _)) = main.iter().find(|(_, &c)| c == king) else {
        return false;
    };
    main.iter().any(|(&from, &c)| {
        is_white(c) != white_king && attacked_by_man(main, on_main, from, c).contains(&at)
    })
}

/// (from, to, captured square) for every pseudo-legal move of the men of the side to move on
/// one board; `main_rules` adds double steps and en passant.
fn pseudo_moves(
    board: &BTreeMap<Square, char>,
    exists: fn(Square) -> bool,
    white: bool,
    main_rules: Option<&Position>,
) -> Vec<(Square, Square, Option<Square>)> {
    let mut out = Vec::new();
    for (&from, &c) in board {
        if is_white(c) != white {
            continue;
        }
        let enemy_at = |sq: Square| {
            board
                .get(&sq)
                .is_some_and(|&o| is_white(o) != white && role(o) != 'k')
        };
        if role(c) == 'p' {
            let forward = if white { 1 } else { -1 };
            let one = (from.0, from.1 + forward);
            if exists(one) && !board.contains_key(&one) {
                out.push((from, one, None));
                if let Some(pos) = main_rules {
                    let start = if white { 1 } else { 5 };
                    let two = (from.0, from.1 + 2 * forward);
                    if from.1 == start
                        && !pos.returned.contains(&from)
                        && exists(two)
                        && !board.contains_key(&two)
                    {
                        out.push((from, two, None));
                    }
                }
            }
            for to in attacked_by_man(board, exists, from, c) {
                if enemy_at(to) {
                    out.push((from, to, Some(to)));
                } else if main_rules.is_some_and(|p| p.en_passant == Some(to)) {
                    out.push((from, to, Some((to.0, from.1))));
                }
            }
            continue;
        }
        for to in attacked_by_man(board, exists, from, c) {
            if !board.contains_key(&to) {
                out.push((from, to, None));
            } else if enemy_at(to) {
                out.push((from, to, Some(to)));
            }
        }
    }
    out
}

/// Every legal action in machine notation, or nothing when a lone king or the fifty-move
/// rule has ended the game.
fn reference_actions(pos: &Position) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let army = |white: bool| {
        pos.main
            .values()
            .filter(|&&c| is_white(c) == white && role(c) != 'k')
            .count()
    };
    if army(true) == 0 || army(false) == 0 || pos.halfmoves >= 100 {
        return out;
    }
    let us = pos.white;
    let duel_squares: Vec<Square> = (0..3).flat_map(|f| (0..3).map(move |r| (f, r))).collect();
    let placements: Vec<Square> = if pos.duel.len() == 9 {
        duel_squares
            .iter()
            .copied()
            .filter(|sq| pos.duel.get(sq).is_some_and(|&c| is_white(c) == us))
            .collect()
    } else {
        duel_squares
            .iter()
            .copied()
            .filter(|sq| !pos.duel.contains_key(sq))
            .collect()
    };
    for (from, to, captured) in pseudo_moves(&pos.main, on_main, us, Some(pos)) {
        let mut after = pos.main.clone();
        let Some(man) = after.remove(&from) else {
            continue;
        };
        if let Some(victim) = captured {
            after.remove(&victim);
        }
        after.insert(to, man);
        if king_attacked(&after, us) {
            continue;
        }
        let text = format!("{}{}", main_name(from), main_name(to));
        if captured.is_some() {
            for &place in &placements {
                out.insert(format!("{text}@{}", duel_name(place)));
            }
        } else {
            out.insert(text);
        }
    }
    let both_colours =
        pos.duel.values().any(|&c| is_white(c)) && pos.duel.values().any(|&c| !is_white(c));
    if !both_colours {
        return out;
    }
    let in_check = king_attacked(&pos.main, us);
    let empty_main: Vec<Square> = (0..5)
        .flat_map(|f| (0..7).map(move |r| (f, r)))
        .filter(|&sq| on_main(sq) && !pos.main.contains_key(&sq))
        .collect();
    for (from, to, captured) in pseudo_moves(&pos.duel, on_duel, us, None) {
        let text = format!("{}{}", duel_name(from), duel_name(to));
        if captured.is_none() {
            if !in_check {
                out.insert(text);
            }
            continue;
        }
        for &back in &empty_main {
            let mut after = pos.main.clone();
            after.insert(back, pos.duel[&from]);
            if !king_attacked(&after, us) && !king_attacked(&after, !us) {
                out.insert(format!("{text}>{}", main_name(back)));
            }
        }
    }
    out
}

/// Walks the action tree `depth` plies deep with the engine, checking every node's legal set
/// against the reference, and returns the reference's leaf count one ply further (perft at
/// `depth + 1`, counted by the reference).
fn reference_perft(game: &AnyGame, previous: Option<(&Position, &str)>, depth: u32) -> u64 {
    let text = game.position();
    let mut pos = Position::read(&text);
    pos.en_passant = previous.and_then(|(before, action)| en_passant_after(before, action));
    let reference = reference_actions(&pos);
    let engine: BTreeSet<String> = game.legal_actions().into_iter().collect();
    assert_eq!(engine, reference, "at {text}");
    if depth == 0 {
        return reference.len() as u64;
    }
    let mut total = 0;
    for action in &reference {
        let mut child = game.clone();
        if let Err(e) = child.play(action) {
            panic!("{action} at {text}: {e}");
        }
        total += reference_perft(&child, Some((&pos, action)), depth - 1);
    }
    total
}

/// The square a pawn skipped if `action` was a double step in `before`: worked out here from
/// the action, not read from the engine's position text.
fn en_passant_after(before: &Position, action: &str) -> Option<Square> {
    let from = read_main_square(action.get(0..2)?);
    let to = read_main_square(action.get(2..4)?);
    let pawn = role(*before.main.get(&from)?) == 'p';
    (on_main(from) && pawn && (from.1 - to.1).abs() == 2).then_some((from.0, (from.1 + to.1) / 2))
}

#[test]
fn reference_confirms_perft_from_the_start() {
    let Ok(game) = AnyGame::start(Variant::Duel) else {
        panic!("Duel Chess is not playable");
    };
    // Every node down to depth 3 has the same legal set in both generators, so this is the
    // engine's perft 4 as well (docs/rules/duel.md).
    assert_eq!(reference_perft(&game, None, 3), 77_280);
}

/// A tiny deterministic generator so a failing game can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

#[test]
fn engine_and_reference_agree_on_random_games() {
    let mut positions = 0;
    let mut duel_positions = 0;
    for seed in 1..=60u64 {
        let (compared, with_duel_men) = play_and_compare(seed);
        positions += compared;
        duel_positions += with_duel_men;
    }
    eprintln!("{positions} positions, {duel_positions} with Duel men");
    assert!(positions > 3000, "only {positions} positions compared");
    assert!(
        duel_positions > 1000,
        "only {duel_positions} with men on the Duel board"
    );
}

/// Plays up to 120 random plies from the start, checking at every position that the engine's
/// legal actions and ending are the reference's. Returns how many positions were compared and
/// how many of them had men on the Duel board.
fn play_and_compare(seed: u64) -> (usize, usize) {
    let mut positions = 0;
    let mut duel_positions = 0;
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let Ok(mut game) = AnyGame::start(Variant::Duel) else {
        panic!("Duel Chess is not playable");
    };
    let mut previous: Option<(Position, String)> = None;
    for ply in 0..120 {
        let text = game.position();
        let here = format!("seed {seed} ply {ply} at {text}");
        let mut pos = Position::read(&text);
        // The e.p. square, worked out here from the last action, not read from the text.
        pos.en_passant = previous
            .as_ref()
            .and_then(|(before, action)| en_passant_after(before, action));
        let engine: BTreeSet<String> = game.legal_actions().into_iter().collect();
        let outcome = game.outcome();
        if outcome.is_some_and(|o| o.reason == EndReason::Repetition) {
            break;
        }
        let reference = reference_actions(&pos);
        if engine != reference {
            let missing: Vec<_> = reference.difference(&engine).collect();
            let extra: Vec<_> = engine.difference(&reference).collect();
            panic!("{here}: engine lacks {missing:?}, has extra {extra:?}");
        }
        positions += 1;
        if !pos.duel.is_empty() {
            duel_positions += 1;
        }
        if engine.is_empty() {
            assert_eq!(
                outcome.map(|o| o.reason),
                Some(expected_end(&pos)),
                "{here}"
            );
            break;
        }
        let action = pick_action(&engine, &mut rng);
        if let Err(e) = game.play(&action) {
            panic!("{here}: {action}: {e}");
        }
        assert_returned_pawn_is_listed(&pos, &action, &game, &here);
        previous = Some((pos, action));
    }
    (positions, duel_positions)
}

/// Why a game with no legal action ended, by the reference's reading of `pos`.
fn expected_end(pos: &Position) -> EndReason {
    let lone = |white: bool| {
        !pos.main
            .values()
            .any(|&c| is_white(c) == white && role(c) != 'k')
    };
    if lone(true) || lone(false) {
        EndReason::LoneKing
    } else if pos.halfmoves >= 100 {
        EndReason::FiftyMoves
    } else if king_attacked(&pos.main, pos.white) {
        EndReason::Checkmate
    } else {
        EndReason::Stalemate
    }
}

/// A random action of `legal` (not empty). Half the time it prefers one that captures or
/// moves on the Duel board, so the games reach full Duel boards, sacrifices and returns.
fn pick_action(legal: &BTreeSet<String>, rng: &mut Rng) -> String {
    let all: Vec<&String> = legal.iter().collect();
    let lively: Vec<&String> = all
        .iter()
        .copied()
        .filter(|a| a.contains('@') || a.contains('>') || a.starts_with(['x', 'y', 'z']))
        .collect();
    let pool = if !lively.is_empty() && rng.below(2) == 0 {
        &lively
    } else {
        &all
    };
    pool[rng.below(pool.len())].clone()
}

/// A pawn coming back from the Duel board (by `action`, played in `before`) is listed as
/// returned in the position `game` reached.
fn assert_returned_pawn_is_listed(before: &Position, action: &str, game: &AnyGame, here: &str) {
    let Some(back) = action.split_once('>').map(|(_, b)| read_main_square(b)) else {
        return;
    };
    let from = (
        i32::from(action.as_bytes()[0] - b'x'),
        i32::from(action.as_bytes()[1] - b'1'),
    );
    if before.duel.get(&from).is_some_and(|&c| role(c) == 'p') {
        let after = Position::read(&game.position());
        assert!(after.returned.contains(&back), "{here}: {action}");
    }
}
