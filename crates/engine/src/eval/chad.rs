//! Chad: kings locked in their castles, rooks that capture only from the wall into the
//! castle (or from the castle onto the own wall), rooks promoting to queens in the enemy
//! castle. Material, rooks on the enemy wall (the only place attacks come from), queens,
//! and defenders at home.

use super::{mvv_lva, signed, squares_key, Evaluate, Grid};
use oddboard_rules::variant::chad::{is_castle, is_wall, Chad, ChadMove};
use oddboard_rules::{Role, Rules};

const SIZE: u8 = 12;

fn value(role: Role) -> i32 {
    match role {
        Role::Rook => 500,
        Role::Queen => 950,
        _ => 0,
    }
}

/// A man on the enemy wall threatens the castle behind it.
const ON_ENEMY_WALL: i32 = 40;
/// A defender inside its own castle.
const HOME_DEFENDER: i32 = 15;
const MOBILITY: i32 = 2;

impl Evaluate for Chad {
    fn evaluate(&self) -> i32 {
        let side = self.turn();
        let grid = Grid::of_position(&self.position(), SIZE, SIZE);
        let material: i32 = grid
            .pieces()
            .map(|(c, piece)| {
                let mut worth = value(piece.role);
                if piece.role != Role::King {
                    if is_wall(piece.color.other(), c) {
                        worth += ON_ENEMY_WALL;
                    }
                    if is_castle(piece.color, c) {
                        worth += HOME_DEFENDER;
                    }
                }
                signed(worth, piece.color, side)
            })
            .sum();
        let check = if self.is_check(side) { -30 } else { 0 };
        material + check + MOBILITY * self.legal_actions().len() as i32
    }

    fn tactical(&self, actions: &[ChadMove]) -> Vec<i32> {
        let grid = Grid::of_position(&self.position(), SIZE, SIZE);
        let side = self.turn();
        actions
            .iter()
            .map(|m| {
                let victim = grid.get(m.to).map_or(0, |p| value(p.role));
                let mover = grid.get(m.from);
                let promotes =
                    mover.is_some_and(|p| p.role == Role::Rook) && is_castle(side.other(), m.to);
                let gain = victim + if promotes { 450 } else { 0 };
                if gain == 0 {
                    return 0;
                }
                mvv_lva(gain, mover.map_or(0, |p| value(p.role)))
            })
            .collect()
    }

    fn action_key(&self, action: &ChadMove) -> u16 {
        squares_key(action.from, action.to)
    }
}
