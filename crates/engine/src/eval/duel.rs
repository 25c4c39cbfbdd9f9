//! Duel Chess: a captured man goes to the 3 by 3 Duel board, where it may fight its way
//! back. Material in Duel Chess values, men on the Duel board at a fraction of their worth
//! (they are out of the Main game until one wins a duel), frozen pawns (on their last rank,
//! where they never move again) at little, and mobility.

use super::{coord_byte, mvv_lva, signed, squares_key, Evaluate};
use oddboard_rules::geometry::Coord;
use oddboard_rules::variant::duel::{Action, Duel};
use oddboard_rules::{Color, Piece, Role, Rules};

const MAIN_FILES: u8 = 5;
const MAIN_RANKS: u8 = 7;
const DUEL_SIZE: u8 = 3;

fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 300,
        Role::Dabbabah => 250,
        Role::Rook => 450,
        Role::Queen => 800,
        Role::King => 0,
    }
}

/// A pawn on its last rank can never move again.
const FROZEN_PAWN: i32 = 25;
/// A man on the Duel board keeps this share (per cent) of its worth: it may return.
const DUEL_SHARE: i32 = 35;
/// A man on the Duel board while both colours stand there (it may capture and return).
const ACTIVE_DUEL: i32 = 20;
const MOBILITY: i32 = 3;

fn main_worth(piece: Piece, rank: u8) -> i32 {
    let last = match piece.color {
        Color::White => MAIN_RANKS - 1,
        Color::Black => 0,
    };
    if piece.role == Role::Pawn && rank == last {
        FROZEN_PAWN
    } else {
        value(piece.role)
    }
}

impl Evaluate for Duel {
    fn evaluate(&self) -> i32 {
        let side = self.turn();
        let mut score = 0;
        for rank in 0..MAIN_RANKS {
            for file in 0..MAIN_FILES {
                if let Some(man) = self.main_at(Coord::new(file, rank)) {
                    score += signed(main_worth(man.piece, rank), man.piece.color, side);
                }
            }
        }
        let active = if self.duel_is_active() {
            ACTIVE_DUEL
        } else {
            0
        };
        for rank in 0..DUEL_SIZE {
            for file in 0..DUEL_SIZE {
                if let Some(piece) = self.duel_at(Coord::new(file, rank)) {
                    let worth = value(piece.role) * DUEL_SHARE / 100 + active;
                    score += signed(worth, piece.color, side);
                }
            }
        }
        let check = if self.in_check() { -25 } else { 0 };
        score + check + MOBILITY * self.legal_actions().len() as i32
    }

    fn tactical(&self, actions: &[Action]) -> Vec<i32> {
        actions
            .iter()
            .map(|action| match *action {
                Action::Main {
                    from,
                    to,
                    place: Some(_),
                } => {
                    let victim = self.main_at(to).map_or(100, |m| value(m.piece.role));
                    let attacker = self.main_at(from).map_or(0, |m| value(m.piece.role));
                    mvv_lva(victim, attacker)
                }
                Action::Duel {
                    from,
                    to,
                    back: Some(_),
                } => {
                    let victim = self.duel_at(to).map_or(100, |p| value(p.role));
                    let attacker = self.duel_at(from).map_or(0, |p| value(p.role));
                    mvv_lva(victim * DUEL_SHARE / 100 + 100, attacker)
                }
                _ => 0,
            })
            .collect()
    }

    fn action_key(&self, action: &Action) -> u16 {
        match *action {
            Action::Main { from, to, .. } => squares_key(from, to),
            // The Duel board's squares kept apart from the Main board's by the top bit.
            Action::Duel { from, to, .. } => 0x8000 | (coord_byte(from) << 7) | coord_byte(to),
        }
    }
}
