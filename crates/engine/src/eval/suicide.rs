//! Suicide Chess: the side that loses all its men (or cannot move) wins, captures are
//! forced. Fewer men is better, but a side with many moves is free to choose, and one whose
//! only moves are captures is at its opponent's mercy; a king is a handy man, a queen a
//! dangerous one (it must take whatever it sees).

use super::{coord_byte, mvv_lva, signed, Evaluate, Grid};
use oddboard_rules::geometry::Coord;
use oddboard_rules::variant::suicide::{Suicide, SuicideMove};
use oddboard_rules::{Role, Rules};

/// What a man costs its owner: each one must be lost before the game is won; a queen or a
/// rook is easily forced into captures, a king and pawns block and wait.
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

/// Each legal move of the side to act, worth this: freedom to choose.
const MOBILITY: i32 = 4;
/// Having the move is worth a little (tempo).
const TEMPO: i32 = 10;
/// A side forced to capture with only one or two ways to do it is being led.
const FORCED: i32 = 30;

fn square(index: u8) -> Coord {
    Coord::new(index % 8, index / 8)
}

impl Evaluate for Suicide {
    fn evaluate(&self) -> i32 {
        let actions = self.legal_actions();
        let tactical = self.tactical(&actions);
        self.evaluate_with(&actions, &tactical)
    }

    fn evaluate_with(&self, actions: &[SuicideMove], tactical: &[i32]) -> i32 {
        let side = self.turn();
        let grid = Grid::of_position(&self.position(), 8, 8);
        let men: i32 = grid
            .pieces()
            .map(|(_, piece)| signed(burden(piece.role), piece.color, side))
            .sum();
        let forced =
            if !tactical.is_empty() && tactical.iter().all(|&t| t > 0) && actions.len() <= 2 {
                FORCED
            } else {
                0
            };
        // Fewer men of one's own is better: the burden counts against its owner.
        -men + MOBILITY * actions.len() as i32 + TEMPO - forced
    }

    fn tactical(&self, actions: &[SuicideMove]) -> Vec<i32> {
        let grid = Grid::of_position(&self.position(), 8, 8);
        actions
            .iter()
            .map(|a| match grid.get(square(a.to)) {
                // Giving the opponent a burden back is no gain here: cheap attackers first.
                Some(victim) => {
                    mvv_lva(burden(victim.role), 0)
                        - grid.get(square(a.from)).map_or(0, |p| burden(p.role) / 8)
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
