//! Davey Drehs ("Execute! the Game"): no check, the king has one life point and wins or
//! loses the game; pieces fight with dice. A piece is worth its role's value scaled by the
//! life points it has left, plus its ear necklaces (each adds one to its to-hit rolls); the
//! king's armor (its friends beside it) is its life; pawns side by side form dyads (2d4,
//! armor 8). Attacks, cannon shots and teleport-attacks roll dice: they are the chance
//! actions the search averages over sampled rolls.
//!
//! The search samples few rolls and reaches few plies, so the evaluation also reckons the
//! dice itself: every attack either side could make now ([`Drehs::strikes`]) is worth its
//! exact expected gain (the chance to hit, times the target's worth if the damage kills it
//! or the life points it takes if not, less the counterattack's expected harm), and the side
//! to act is credited with a share of its best one and charged a smaller share of its
//! opponent's. Without it, a king left where a queen's d20 could end the game looked no
//! worse than a guarded one until the search happened to sample that roll.

use super::{mvv_lva, signed, squares_key, Evaluate};
use oddboard_rules::geometry::{Coord, KING_STEPS};
use oddboard_rules::variant::drehs::{Action, Drehs, Fighter, Strike, Unit};
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
/// What a king is worth to an attack's reckoning: killing it ends the game.
const KING_WORTH: i32 = 3000;
/// The share of its best attack's expected gain the side to act is credited with: it may
/// strike now, but the dice are only expected, and the search rolls them where it can.
const OWN_STRIKE_SHARE: i32 = 50;
/// The share of the opponent's best attack's expected gain counted against the side to act:
/// it moves first and may step away, strike first or shield the target.
const THREAT_SHARE: i32 = 30;

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

/// How many faces of a d20 hit: the roll plus the attacker's ears must beat the armor.
fn hit_faces(ears: u32, armor: u32) -> i32 {
    20 - armor.saturating_sub(ears).min(20) as i32
}

/// For `count` dice of `sides` against `need` life points, in thousandths: the chance that
/// they roll at least `need` in all (a kill), and the expected roll when they do not (the
/// life points a hit takes from a survivor).
fn damage(weapon: (u32, u32), need: u32) -> (i32, i32) {
    let (count, sides) = (weapon.0.clamp(1, 2), weapon.1.max(1));
    let (mut kills, mut wounds, mut outcomes) = (0u32, 0u32, 0u32);
    for first in 1..=sides {
        for second in 1..=if count == 2 { sides } else { 1 } {
            let roll = first + if count == 2 { second } else { 0 };
            if roll >= need {
                kills += 1;
            } else {
                wounds += roll;
            }
            outcomes += 1;
        }
    }
    (
        (kills * 1000 / outcomes) as i32,
        (wounds * 1000 / outcomes) as i32,
    )
}

/// What `fighter` is worth to an attack's reckoning, and what each life point of it is.
fn fighter_worth(fighter: &Fighter) -> (i32, i32) {
    if fighter.role == Role::King {
        return (KING_WORTH, KING_WORTH);
    }
    let full = value(fighter.role);
    let life = (fighter.life as i32).min(max_life(fighter.role));
    (
        full / 2 + full * life / (2 * max_life(fighter.role)),
        full / (2 * max_life(fighter.role)),
    )
}

/// The expected gain of one attack for its side, in centipawns: the chance of a hit times
/// the target's worth if it dies or the life it loses if not, less the counterattack's
/// expected harm to the attacker when the target survives.
fn strike_gain(strike: &Strike) -> i32 {
    let (attacker, target) = (&strike.attacker, &strike.target);
    let hit = hit_faces(attacker.ears, target.armor); // of 20
    let (kill, wound) = damage(attacker.weapon, target.life); // thousandths
    let (target_worth, target_point) = fighter_worth(target);
    // Twentieths times thousandths of a centipawn.
    let gain = hit * (kill * target_worth + wound * target_point);
    let survives = 20_000 - hit * kill; // of 20,000
    let back = hit_faces(target.ears, attacker.armor);
    let (counter_kill, counter_wound) = damage(target.weapon, attacker.life);
    let (attacker_worth, attacker_point) = fighter_worth(attacker);
    let harm = back * (counter_kill * attacker_worth + counter_wound * attacker_point);
    let gain = i64::from(gain) / 20_000;
    let harm = i64::from(harm) * i64::from(survives) / 20_000 / 20_000;
    (gain - harm) as i32
}

/// The best expected gain among `color`'s attacks, or nothing when none gains.
fn best_strike(game: &Drehs, color: Color) -> i32 {
    game.strikes(color)
        .iter()
        .map(strike_gain)
        .max()
        .unwrap_or(0)
        .max(0)
}

/// The evaluation before strikes: the men where they stand, and `moves` legal actions.
fn standing(game: &Drehs, moves: usize) -> i32 {
    let side = game.turn();
    let mut score = 0;
    for rank in 0..SIZE {
        for file in 0..SIZE {
            let c = Coord::new(file, rank);
            if let Some(unit) = game.unit(c) {
                score += signed(square_worth(game, c, unit), unit.piece.color, side);
            }
        }
    }
    score + MOBILITY * moves as i32
}

/// `standing` with the shares of the side's best strike and of its opponent's.
fn with_strikes(standing: i32, own: i32, threat: i32) -> i32 {
    standing + (OWN_STRIKE_SHARE * own - THREAT_SHARE * threat) / 100
}

impl Evaluate for Drehs {
    fn evaluate(&self) -> i32 {
        self.evaluate_with(&self.legal_actions(), &[])
    }

    fn evaluate_with(&self, actions: &[Action], _tactical: &[i32]) -> i32 {
        let side = self.turn();
        with_strikes(
            standing(self, actions.len()),
            best_strike(self, side),
            best_strike(self, side.other()),
        )
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

    fn outcomes(&self, action: &Action) -> Vec<(u32, Drehs)> {
        self.dice_outcomes(action)
            .iter()
            .filter_map(|outcome| {
                let next = self.after_outcome(action, outcome).ok()?;
                Some((outcome.chance, next))
            })
            .collect()
    }

    fn expected_after(&self, action: &Action) -> Option<i32> {
        let strikes = self.strikes(self.turn());
        let best = strikes.iter().map(strike_gain).max().unwrap_or(0).max(0);
        let gain = match *action {
            Action::Attack { from, to, .. } => strikes
                .iter()
                .find(|s| s.from == from && s.to == to)
                .map(strike_gain)?,
            Action::Teleport {
                from,
                to,
                attack: Some(target),
            } => strike_gain(&self.teleport_strike(from, to, target)),
            _ => return None,
        };
        // The position as it stands with the opponent to act next: the side's credit for
        // striking is spent on this strike, and the opponent's best strike weighs as the
        // striker's would. Each side's strikes are listed once.
        let threat = best_strike(self, self.turn().other());
        let now = with_strikes(standing(self, self.legal_actions().len()), best, threat);
        Some(
            now - OWN_STRIKE_SHARE * best / 100 - (OWN_STRIKE_SHARE - THREAT_SHARE) * threat / 100
                + gain,
        )
    }

    fn is_skippable(&self, action: &Action) -> bool {
        match *action {
            // A knight teleports in with one life point: a move to make for its attack, not
            // for the square; and an attack from there is mostly a lost knight (the survivor
            // strikes back at armor 6 and any hit kills it). Some 150 such actions a side,
            // they were most of every node's actions.
            Action::Teleport { attack: None, .. } => true,
            Action::Teleport {
                from,
                to,
                attack: Some(target),
            } => strike_gain(&self.teleport_strike(from, to, target)) <= 0,
            _ => false,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_odds_are_counted_exactly() {
        // d20 + ears must beat the armor: armor 19 leaves one face, ears can make it certain.
        let table = [(0, 19, 1), (0, 6, 14), (3, 6, 17), (10, 8, 20), (0, 25, 0)];
        for (ears, armor, faces) in table {
            assert_eq!(hit_faces(ears, armor), faces, "ears {ears} armor {armor}");
        }
        // (dice, life points) -> (kill, wound) in thousandths.
        let table = [
            ((1, 4), 1, (1000, 0)),
            ((1, 4), 4, (250, 1500)), // 1, 2, 3 wound: (1+2+3)/4
            ((2, 6), 12, (27, 6666)), // one roll of 36 kills; 240 / 36 otherwise
            ((2, 4), 8, (62, 4500)),  // 4+4 kills; 72 / 16 otherwise
            ((1, 6), 7, (0, 3500)),   // never kills
        ];
        for (weapon, life, expected) in table {
            assert_eq!(damage(weapon, life), expected, "{weapon:?} vs {life} LP");
        }
    }

    #[test]
    fn teleports_are_skipped_unless_their_attack_gains() {
        let game = Drehs::from_position("4k3/p7/8/8/8/8/8/N3K3 w - - - 0 1 0")
            .unwrap_or_else(|e| panic!("{e}"));
        let find = |text: &str| {
            let action = game
                .parse_action(text)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            (game.is_skippable(&action), game.expected_after(&action))
        };
        // Teleporting to c7 to strike the bare king (armor 6: 14 faces of 20 end the game)
        // is kept and reckoned; teleporting to b5 to strike the pawn mostly loses the knight.
        let (skipped, on_king) = find("a1@c7xe8");
        assert!(!skipped);
        assert!(on_king.is_some_and(|worth| worth > 1500), "{on_king:?}");
        assert!(find("a1@b5xa7").0);
        assert_eq!(find("a1@d4"), (true, None));
        assert_eq!(find("a1b3"), (false, None));
    }

    #[test]
    fn an_exposed_king_weighs_on_its_side() {
        let of = |text: &str| Drehs::from_position(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        // White's queen on e7 beside Black's bare king: White to act may strike a d20 at
        // the king; with Black to act, the queen's threat counts against Black.
        let exposed = of("4k3/4Q3/8/8/8/8/8/4K3 w - - - 0 1 0");
        let guarded_gain = best_strike(&exposed, Color::White);
        assert!(guarded_gain > 1000, "{guarded_gain}");
        assert_eq!(
            best_strike(&of("4k3/8/8/8/8/8/Q7/4K3 w - - - 0 1 0"), Color::White),
            0
        );
        let black_to_act = of("4k3/4Q3/8/8/8/8/8/4K3 b - - - 0 1 0");
        let far = of("4k3/8/8/8/8/8/Q7/4K3 b - - - 0 1 0");
        assert!(black_to_act.evaluate() < far.evaluate() - 300);
    }
}
