//! Davey Drehs ("Execute! the Game"): no check, the king has one life point and wins or
//! loses the game; pieces fight with dice. A piece is worth its role's value scaled by the
//! life points it has left, plus its ear necklaces (each adds one to its to-hit rolls); the
//! king's armor (its friends beside it) is its life; pawns side by side form dyads (2d4,
//! armor 8). Attacks, cannon shots and teleport-attacks roll dice: they are the chance
//! actions the search averages over sampled rolls.

use super::{mvv_lva, signed, squares_key, Evaluate};
use oddboard_rules::geometry::{Coord, KING_STEPS};
use oddboard_rules::variant::drehs::{Action, Drehs, Unit};
use oddboard_rules::{Color, Role, Rules};

const SIZE: u8 = 8;

fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 320,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King | Role::Dabbabah => 0,
    }
}

/// Full life points of a role (the rules' table, docs/rules/drehs.md).
fn max_life(role: Role) -> i32 {
    match role {
        Role::Pawn => 4,
        Role::Knight | Role::Bishop => 6,
        Role::Rook => 8,
        Role::Queen => 12,
        Role::King | Role::Dabbabah => 1,
    }
}

/// Each ear necklace: +1 on every d20 the piece rolls.
const EAR: i32 = 15;
/// Each point of the king's armor: one less face of the d20 that kills it.
const KING_ARMOR: i32 = 40;
/// A pawn with a pawn of its colour beside it on the rank (a dyad, roughly).
const DYAD: i32 = 15;
const MOBILITY: i32 = 1;

/// A piece's worth: half of its value always, the other half by the life it has left.
fn unit_worth(unit: &Unit) -> i32 {
    let full = value(unit.piece.role);
    let life = i32::from(unit.life).min(max_life(unit.piece.role));
    full / 2 + full * life / (2 * max_life(unit.piece.role)) + EAR * i32::from(unit.ears)
}

/// Armor a piece lends its king when beside it (its own armor, docs/rules/drehs.md).
fn armor(role: Role) -> i32 {
    match role {
        Role::Pawn => 4,
        Role::Knight | Role::Bishop | Role::King | Role::Dabbabah => 6,
        Role::Rook => 8,
        Role::Queen => 12,
    }
}

/// The king's armor: 6 plus its neighbours' of its colour, at most 19. With one life point,
/// a king is killed by any hit, so its armor is its life.
fn king_armor(game: &Drehs, c: Coord, color: Color) -> i32 {
    let lent: i32 = KING_STEPS
        .iter()
        .filter_map(|&(df, dr)| c.offset(df, dr))
        .filter(|&n| n.file < SIZE && n.rank < SIZE)
        .filter_map(|n| game.unit(n))
        .filter(|u| u.piece.color == color)
        .map(|u| armor(u.piece.role))
        .sum();
    (6 + lent).min(19)
}

fn pawn_beside(game: &Drehs, c: Coord, color: Color) -> bool {
    [-1, 1].iter().any(|&df| {
        c.offset(df, 0)
            .filter(|n| n.file < SIZE)
            .and_then(|n| game.unit(n))
            .is_some_and(|u| u.piece.color == color && u.piece.role == Role::Pawn)
    })
}

fn square_worth(game: &Drehs, c: Coord, unit: &Unit) -> i32 {
    let color = unit.piece.color;
    match unit.piece.role {
        Role::King => KING_ARMOR * king_armor(game, c, color),
        Role::Pawn if pawn_beside(game, c, color) => unit_worth(unit) + DYAD,
        _ => unit_worth(unit),
    }
}

impl Evaluate for Drehs {
    fn evaluate(&self) -> i32 {
        let side = self.turn();
        let mut score = 0;
        for rank in 0..SIZE {
            for file in 0..SIZE {
                let c = Coord::new(file, rank);
                if let Some(unit) = self.unit(c) {
                    score += signed(square_worth(self, c, unit), unit.piece.color, side);
                }
            }
        }
        score + MOBILITY * self.legal_actions().len() as i32
    }

    fn tactical(&self, actions: &[Action]) -> Vec<i32> {
        // Attacks are chance actions, searched in the main search only: quiescence would have
        // to average dice at every step. Ordering still tries the likely kills first.
        actions
            .iter()
            .map(|action| match *action {
                Action::Attack { from, to, .. } | Action::Cannon { from, to } => {
                    let victim = self.unit(to).map_or(0, |u| {
                        if u.piece.role == Role::King {
                            5000
                        } else {
                            value(u.piece.role) * 4 / (i32::from(u.life) + 3)
                        }
                    });
                    let attacker = self.unit(from).map_or(0, |u| value(u.piece.role));
                    mvv_lva(victim, attacker)
                }
                _ => 0,
            })
            .collect()
    }

    fn noise_scale() -> i32 {
        // An attack's dice swing hundreds of centipawns either way: the levels' noise is
        // tripled so that their gaps are not lost in the dice.
        3
    }

    fn is_chance(&self, action: &Action) -> bool {
        matches!(
            action,
            Action::Attack { .. }
                | Action::Cannon { .. }
                | Action::Teleport {
                    attack: Some(_),
                    ..
                }
        )
    }

    fn action_key(&self, action: &Action) -> u16 {
        match *action {
            Action::Move { from, to, .. }
            | Action::Attack { from, to, .. }
            | Action::Teleport { from, to, .. }
            | Action::Cannon { from, to } => squares_key(from, to),
            Action::Return { home } => squares_key(home, home),
            Action::Heal { king } => squares_key(king, king) ^ 0x8000,
        }
    }
}
