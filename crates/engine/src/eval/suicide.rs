//! Suicide Chess: the side that loses all its men (or cannot move) wins, captures are
//! forced. The evaluation is a weighted sum of [`Term`]s read off the bitboards (men by role,
//! also as the board empties; either side's moves and captures; a side led by forced
//! captures or nearly out of moves; pawns' advance), never through the position's text: it
//! runs at every leaf. The weights are fitted to the results of the engine's own games
//! (`examples/tune_suicide.rs`, Texel's method), not set by hand: by hand, fewer men always
//! counted as better, and the engine lost to Fairy-Stockfish (43.8% over 120 games); fitted,
//! a pawn of one's own costs most as the board empties, a rook in a crowded board, and an
//! opponent nearly out of moves is worth about a pawn.

use super::{coord_byte, mvv_lva, Evaluate};
use oddboard_rules::geometry::Coord;
use oddboard_rules::variant::suicide::{Men, Suicide, SuicideMove};
use oddboard_rules::{Color, Role, Rules};

/// A man's weight when captures are ordered: the dearer victims are tried first.
fn burden(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 110,
        Role::Bishop => 120,
        Role::Rook => 140,
        Role::Queen => 160,
        Role::King | Role::Dabbabah => 80,
    }
}

fn square(index: u8) -> Coord {
    Coord::new(index % 8, index / 8)
}

/// The role on `square`, read from the bitboards.
fn role_on(men: &Men, square: u8) -> Option<Role> {
    let bit = 1u64 << square;
    // Suicide's roles are the first six of the shared list, in its bitboards' order.
    Role::ALL
        .iter()
        .zip(men.by_role)
        .find(|(_, board)| board & bit != 0)
        .map(|(&role, _)| role)
}

/// The terms of the evaluation, each counted for the side to act (a difference of its and
/// its opponent's where it has two sides). The evaluation is their sum weighted by
/// [`WEIGHTS`], in 1/[`WEIGHT_UNIT`] centipawns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Term {
    /// Men of each role, own less the opponent's: pawn, knight, bishop, rook, queen, king.
    Pawns,
    Knights,
    Bishops,
    Rooks,
    Queens,
    Kings,
    /// The same differences times the men on the board, so that a man's worth may change
    /// from the crowded opening to the bare ending.
    PawnsCrowded,
    KnightsCrowded,
    BishopsCrowded,
    RooksCrowded,
    QueensCrowded,
    KingsCrowded,
    /// Legal moves of the side to act: freedom to choose.
    Moves,
    /// Legal moves the opponent would have were it to move now.
    OpponentMoves,
    /// Captures the side to act must choose among (0 when it has none).
    Captures,
    /// Captures the opponent would have: own men it attacks, which the side to act may
    /// leave there to force them on it.
    OpponentCaptures,
    /// 1 when the side to act must capture and has at most two ways to: being led.
    Forced,
    /// 1 when the opponent would have at most two moves: nearly at the side's mercy.
    OpponentCornered,
    /// Ranks pawns have advanced, own less the opponent's: a promotion (to a king, say) is
    /// near.
    PawnAdvance,
    /// 1: having the move.
    Tempo,
}

/// How many [`Term`]s there are.
pub const TERMS: usize = Term::Tempo as usize + 1;

/// [`WEIGHTS`] are in this fraction of a centipawn, so tuning has room below one.
pub const WEIGHT_UNIT: i32 = 32;

/// The weight of each [`Term`], in 1/[`WEIGHT_UNIT`] centipawns.
pub const WEIGHTS: [i32; TERMS] = [
    -2725, -993, -149, 1413, -1118, -934, 83, 20, -80, -178, -4, 110, 225, -56, 0, -283, -960,
    2949, 276, -1445,
];

/// Ranks, bottom to top, as bitboards.
const RANKS: [u64; 8] = [
    0xff,
    0xff << 8,
    0xff << 16,
    0xff << 24,
    0xff << 32,
    0xff << 40,
    0xff << 48,
    0xff << 56,
];

/// How far `color`'s pawns have come, in ranks summed over pawns.
fn pawn_advance(pawns: u64, color: Color) -> i32 {
    (0u32..)
        .zip(RANKS)
        .map(|(rank, mask)| {
            let advance = match color {
                Color::White => rank.saturating_sub(1),
                Color::Black => 6u32.saturating_sub(rank),
            };
            (advance * (pawns & mask).count_ones()) as i32
        })
        .sum()
}

/// The evaluation's terms in `game`, with the side to act's legal actions and their
/// tactical weights at hand.
pub fn terms(game: &Suicide, actions: &[SuicideMove], tactical: &[i32]) -> [i32; TERMS] {
    let side = game.turn();
    let men = game.men();
    let own = men.by_color[side.index()];
    let theirs = men.by_color[side.other().index()];
    let on_board = (own | theirs).count_ones() as i32;
    let mut terms = [0; TERMS];
    for (role, board) in men.by_role.iter().enumerate() {
        let difference = (board & own).count_ones() as i32 - (board & theirs).count_ones() as i32;
        terms[Term::Pawns as usize + role] = difference;
        terms[Term::PawnsCrowded as usize + role] = difference * on_board;
    }
    let captures = tactical.iter().filter(|&&t| t > 0).count() as i32;
    let opponent = game.mobility(side.other());
    terms[Term::Moves as usize] = actions.len() as i32;
    terms[Term::OpponentMoves as usize] = opponent.moves as i32;
    terms[Term::Captures as usize] = captures;
    terms[Term::OpponentCaptures as usize] = opponent.captures as i32;
    terms[Term::Forced as usize] = i32::from(captures > 0 && actions.len() <= 2);
    terms[Term::OpponentCornered as usize] = i32::from(opponent.moves <= 2);
    let pawns = men.by_role[0];
    terms[Term::PawnAdvance as usize] =
        pawn_advance(pawns & own, side) - pawn_advance(pawns & theirs, side.other());
    terms[Term::Tempo as usize] = 1;
    terms
}

impl Evaluate for Suicide {
    fn evaluate(&self) -> i32 {
        let actions = self.legal_actions();
        let tactical = self.tactical(&actions);
        self.evaluate_with(&actions, &tactical)
    }

    fn evaluate_with(&self, actions: &[SuicideMove], tactical: &[i32]) -> i32 {
        let terms = terms(self, actions, tactical);
        let sum: i32 = terms.iter().zip(WEIGHTS).map(|(t, w)| t * w).sum();
        sum / WEIGHT_UNIT
    }

    fn tactical(&self, actions: &[SuicideMove]) -> Vec<i32> {
        let men = self.men();
        actions
            .iter()
            .map(|a| match role_on(&men, a.to) {
                // Giving the opponent a burden back is no gain here: cheap attackers first.
                Some(victim) => {
                    mvv_lva(burden(victim), 0) - role_on(&men, a.from).map_or(0, |r| burden(r) / 8)
                }
                None => 0,
            })
            .map(|weight| weight.max(0))
            .collect()
    }

    fn may_stand_pat(&self, tactical: &[i32]) -> bool {
        // Captures are compulsory: a side with one cannot decline it.
        !tactical.iter().any(|&t| t > 0)
    }

    fn action_key(&self, action: &SuicideMove) -> u16 {
        (coord_byte(square(action.from)) << 8) | coord_byte(square(action.to))
    }
}
