//! Do-Or-Die Chazz: kings and pawns on 8 by 5, pawns promote to rook, bishop or knight and
//! may step back (even off the board). Material in Chazz values, pawns closer to promotion,
//! and mobility.

use super::{mvv_lva, signed, squares_key, Evaluate, Grid};
use oddboard_rules::variant::chazz::{Chazz, ChazzAction};
use oddboard_rules::{Color, Role, Rules};

const FILES: u8 = 8;
const RANKS: u8 = 5;

fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King | Role::Dabbabah => 0,
    }
}

/// A pawn's bonus by the ranks it has left before promoting (one step from it is a threat).
fn pawn_advance(color: Color, rank: u8) -> i32 {
    let steps_left = match color {
        Color::White => RANKS - 1 - rank,
        Color::Black => rank,
    };
    match steps_left {
        1 => 60,
        2 => 20,
        3 => 5,
        _ => 0,
    }
}

const MOBILITY: i32 = 3;

impl Evaluate for Chazz {
    fn evaluate(&self) -> i32 {
        let side = self.turn();
        let grid = Grid::of_position(&self.position(), FILES, RANKS);
        let material: i32 = grid
            .pieces()
            .map(|(c, piece)| {
                let advance = if piece.role == Role::Pawn {
                    pawn_advance(piece.color, c.rank)
                } else {
                    0
                };
                signed(value(piece.role) + advance, piece.color, side)
            })
            .sum();
        material + MOBILITY * self.legal_actions().len() as i32
    }

    fn tactical(&self, actions: &[ChazzAction]) -> Vec<i32> {
        let grid = Grid::of_position(&self.position(), FILES, RANKS);
        actions
            .iter()
            .map(|action| match *action {
                ChazzAction::Move {
                    from,
                    to,
                    promotion,
                } => {
                    let gain = grid.get(to).map_or(0, |victim| value(victim.role))
                        + promotion.map_or(0, value);
                    if gain == 0 {
                        return 0;
                    }
                    let attacker = grid.get(from).map_or(0, |p| value(p.role));
                    mvv_lva(gain, attacker)
                }
                _ => 0,
            })
            .collect()
    }

    fn action_key(&self, action: &ChazzAction) -> u16 {
        match *action {
            ChazzAction::Move { from, to, .. } => squares_key(from, to),
            ChazzAction::SelfDestruct { from } => squares_key(from, from),
            _ => 0,
        }
    }
}
