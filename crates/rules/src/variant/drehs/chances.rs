//! The ways an action's dice can fall, grouped by what they leave behind, with each group's
//! exact chance: for an attack, the target killed, the attacker killed by the counterattack,
//! or both alive (each wounded by its expected damage); for a cannon shot, a miss or a hit.
//! Each group carries the die faces of one roll that leads to it, so playing the action with
//! those faces gives a position standing for the whole group.
//!
//! A search that weighs these few positions by their chances sees every kill, the game's
//! end above all, at its true odds; sampling seeded rolls instead sees a one-in-twenty king
//! kill in no sample, or in every one.

use super::{Action, Drehs, Fighter, Strike};
use crate::{IllegalAction, Rules};

/// The chance of a certain event: [`DiceOutcome::chance`] is in these parts.
pub const CERTAIN: u32 = 1_000_000;

/// One group of an action's dice rolls and how likely it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiceOutcome {
    /// Of [`CERTAIN`]; the groups of one action sum to it exactly.
    pub chance: u32,
    /// The faces of one roll leading to this group, in the order the rules roll them.
    pub faces: Vec<u32>,
}

/// A d20 face that hits whatever the armor (armor is at most 19).
const SURE_HIT: u32 = 20;
/// The d20's lowest face: a miss unless the roller's ears make every face hit.
const LOWEST: u32 = 1;

/// The chance that a d20 plus `ears` beats `armor`.
fn hit_chance(ears: u32, armor: u32) -> f64 {
    f64::from(20 - armor.saturating_sub(ears).min(20)) / 20.0
}

/// Every total of `weapon`'s dice with its chance.
fn totals(weapon: (u32, u32)) -> Vec<(u32, f64)> {
    let (count, sides) = (weapon.0.max(1), weapon.1.max(1));
    let mut chances = vec![1.0];
    for _ in 0..count {
        let mut next = vec![0.0; chances.len() + sides as usize];
        for (total, chance) in chances.iter().enumerate() {
            for face in 1..=sides as usize {
                next[total + face] += chance / f64::from(sides);
            }
        }
        chances = next;
    }
    chances
        .into_iter()
        .enumerate()
        .filter(|&(_, chance)| chance > 0.0)
        .map(|(total, chance)| (total as u32, chance))
        .collect()
}

/// Faces of `weapon`'s dice that add up to `total` (which they can roll).
fn faces_for(total: u32, weapon: (u32, u32)) -> Vec<u32> {
    let (count, sides) = (weapon.0.max(1), weapon.1.max(1));
    let mut left = total;
    (0..count)
        .map(|i| {
            let still = count - i - 1;
            let face = left.saturating_sub(still).clamp(1, sides);
            left = left.saturating_sub(face);
            face
        })
        .collect()
}

/// One blow of an attack (or of the counterattack): the chance it kills, and the faces of a
/// roll that leaves the struck piece alive with the damage it takes on average when it
/// survives (a miss when that rounds to nothing).
struct Blow {
    kill: f64,
    kill_faces: Vec<u32>,
    survive_faces: Vec<u32>,
}

fn blow(striker: &Fighter, struck: &Fighter) -> Blow {
    let hit = hit_chance(striker.ears, struck.armor);
    let totals = totals(striker.weapon);
    let kill: f64 = totals
        .iter()
        .filter(|&&(total, _)| total >= struck.life)
        .map(|&(_, chance)| hit * chance)
        .sum();
    let wounds: Vec<(u32, f64)> = totals
        .iter()
        .filter(|&&(total, _)| total < struck.life)
        .map(|&(total, chance)| (total, hit * chance))
        .collect();
    let survive = 1.0 - kill;
    let mean = if survive > 0.0 {
        wounds.iter().map(|&(t, c)| f64::from(t) * c).sum::<f64>() / survive
    } else {
        0.0
    };
    // The result nearest the mean that the dice can leave: a miss (no damage) or a wound.
    let miss = (hit < 1.0).then_some(0);
    let nearest = miss
        .into_iter()
        .chain(wounds.iter().map(|&(total, _)| total))
        .min_by(|a, b| {
            (f64::from(*a) - mean)
                .abs()
                .total_cmp(&(f64::from(*b) - mean).abs())
        });
    let survive_faces = match nearest {
        Some(total) if total > 0 => {
            let mut faces = vec![SURE_HIT];
            faces.extend(faces_for(total, striker.weapon));
            faces
        }
        _ => vec![LOWEST],
    };
    let max_total = totals.last().map_or(0, |&(total, _)| total);
    let mut kill_faces = vec![SURE_HIT];
    kill_faces.extend(faces_for(max_total, striker.weapon));
    Blow {
        kill,
        kill_faces,
        survive_faces,
    }
}

/// Chances in [`CERTAIN`] parts, the groups that cannot happen left out, the last group
/// rounded so that they sum exactly.
fn in_parts(groups: Vec<(f64, Vec<u32>)>) -> Vec<DiceOutcome> {
    let possible: Vec<(f64, Vec<u32>)> = groups
        .into_iter()
        .filter(|&(chance, _)| chance * f64::from(CERTAIN) >= 0.5)
        .collect();
    let mut left = CERTAIN;
    let count = possible.len();
    possible
        .into_iter()
        .enumerate()
        .map(|(i, (chance, faces))| {
            let parts = if i + 1 == count {
                left
            } else {
                ((chance * f64::from(CERTAIN)).round() as u32).min(left)
            };
            left -= parts;
            DiceOutcome {
                chance: parts,
                faces,
            }
        })
        .collect()
}

/// The groups of an attack's rolls: the target dies; it survives and its counterattack
/// kills the attacker; both survive.
fn attack_outcomes(strike: &Strike) -> Vec<DiceOutcome> {
    let first = blow(&strike.attacker, &strike.target);
    let back = blow(&strike.target, &strike.attacker);
    let survive = 1.0 - first.kill;
    let counter_kill = [first.survive_faces.clone(), back.kill_faces].concat();
    let both_live = [first.survive_faces, back.survive_faces].concat();
    in_parts(vec![
        (first.kill, first.kill_faces),
        (survive * back.kill, counter_kill),
        (survive * (1.0 - back.kill), both_live),
    ])
}

/// The groups of a cannon shot's rolls: a hit (its 2d4 capped to leave the target a life
/// point, and the splash) or a miss.
fn cannon_outcomes(rook: &Fighter, target: &Fighter) -> Vec<DiceOutcome> {
    const CANNON: (u32, u32) = (2, 4);
    let hit = hit_chance(rook.ears, target.armor);
    let cap = target.life.saturating_sub(1);
    let mean: f64 = totals(CANNON)
        .iter()
        .map(|&(total, chance)| f64::from(total.min(cap)) * chance)
        .sum();
    // A roll whose capped damage is the mean's nearest: any roll when the cap is below 2.
    let roll = (mean.round() as u32).max(CANNON.0);
    let mut hit_faces = vec![SURE_HIT];
    hit_faces.extend(faces_for(roll, CANNON));
    in_parts(vec![(hit, hit_faces), (1.0 - hit, vec![LOWEST])])
}

impl Drehs {
    /// The groups of rolls `action`'s dice can fall into, with their chances; none for an
    /// action that rolls no dice.
    pub fn dice_outcomes(&self, action: &Action) -> Vec<DiceOutcome> {
        match *action {
            Action::Attack { from, to, .. } => attack_outcomes(&Strike {
                from,
                to,
                attacker: self.fighter(from),
                target: self.fighter(to),
            }),
            Action::Teleport {
                from,
                to,
                attack: Some(target),
            } => attack_outcomes(&self.teleport_strike(from, to, target)),
            Action::Cannon { from, to } => cannon_outcomes(&self.fighter(from), &self.fighter(to)),
            _ => Vec::new(),
        }
    }

    /// The game after `action` with its dice showing `outcome`'s faces (then the game's own
    /// dice, should the action roll more).
    pub fn after_outcome(
        &self,
        action: &Action,
        outcome: &DiceOutcome,
    ) -> Result<Drehs, IllegalAction> {
        let mut next = self.clone();
        next.dice.script = outcome.faces.iter().copied().collect();
        let applied = next.apply(action);
        next.dice.script.clear();
        applied.map(|_| next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Coord;

    /// What an attack from `from` on `to` left: the target dead, the attacker dead, or both
    /// alive with their life points.
    #[derive(Debug, PartialEq, Eq)]
    enum Result {
        TargetDied,
        AttackerDied,
        BothLive(u8, u8),
    }

    fn result(game: &Drehs, from: Coord, to: Coord, attacker_color: crate::Color) -> Result {
        let at = |c: Coord| game.unit(c).filter(|u| u.piece.color == attacker_color);
        let enemy = |c: Coord| game.unit(c).filter(|u| u.piece.color != attacker_color);
        match (at(from), enemy(to)) {
            (Some(a), Some(t)) => Result::BothLive(a.life, t.life),
            (None, Some(_)) => Result::AttackerDied,
            _ => Result::TargetDied,
        }
    }

    fn game(position: &str) -> Drehs {
        Drehs::from_position(position).unwrap_or_else(|e| panic!("{position}: {e}"))
    }

    /// The action `text` in `position`: its outcomes' chances, and the game after each.
    fn outcomes_of(position: &str, text: &str) -> (Vec<u32>, Vec<Drehs>) {
        let game = game(position);
        let action = game
            .parse_action(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        game.dice_outcomes(&action)
            .iter()
            .map(|outcome| {
                let after = game
                    .after_outcome(&action, outcome)
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                (outcome.chance, after)
            })
            .unzip()
    }

    #[test]
    fn dice_totals_and_faces() {
        assert_eq!(
            totals((1, 4)),
            vec![(1, 0.25), (2, 0.25), (3, 0.25), (4, 0.25)]
        );
        let two_d6 = totals((2, 6));
        assert_eq!(two_d6.len(), 11);
        assert!((two_d6[5].1 - 6.0 / 36.0).abs() < 1e-12, "{two_d6:?}");
        // (total, weapon) -> faces that roll it.
        let table = [
            (7, (2, 6), vec![6, 1]),
            (2, (2, 4), vec![1, 1]),
            (3, (1, 4), vec![3]),
        ];
        for (total, weapon, faces) in table {
            assert_eq!(faces_for(total, weapon), faces, "{total} on {weapon:?}");
        }
    }

    #[test]
    fn a_queen_on_a_bare_king_wins_on_fourteen_faces_of_twenty() {
        let (chances, after) = outcomes_of("4k3/4Q3/8/8/8/8/8/4K3 w - - - 0 1 0", "e7xe8");
        // The king (armor 6, 1 LP) dies on 7..20; otherwise its d4 cannot kill a 12-LP queen.
        assert_eq!(chances, vec![700_000, 300_000]);
        assert_eq!(
            after[0].outcome().and_then(|o| o.winner),
            Some(crate::Color::White)
        );
        assert!(after[1].outcome().is_none());
    }

    #[test]
    fn a_cannon_shot_hits_or_misses() {
        // A rook (no ears) at a queen's armor 12: eight faces of twenty hit. The queen's 12 LP
        // lose 5 on average (2d4), and the bishop beside it 1 to the splash.
        let (chances, after) = outcomes_of("4k3/8/8/3qb3/8/8/8/3RK3 w - - - 0 1 0", "d1^d5");
        assert_eq!(chances, vec![400_000, 600_000]);
        let life = |g: &Drehs, square: &str| {
            let c = Coord::parse(square).unwrap_or_else(|| panic!("{square}"));
            g.unit(c).map(|u| u.life)
        };
        let (hit, miss) = (&after[0], &after[1]);
        assert_eq!((life(hit, "d5"), life(hit, "e5")), (Some(7), Some(5)));
        assert_eq!((life(miss, "d5"), life(miss, "e5")), (Some(12), Some(6)));
    }

    /// Each group's chance against the share of 4,000 seeded rolls that end in it, and the
    /// group's own faces leading to a result of its kind.
    #[test]
    fn group_chances_match_the_seeded_dice() {
        let cases = [
            // A rook on a queen; a pawn on a knight; a queen on a dyad pawn; a king on a
            // wounded rook; a knight teleporting onto the king's flank.
            ("4k3/8/8/3q4/8/8/3R4/4K3 w - - - 0 1 0", "d2xd5"),
            ("4k3/8/8/8/3n4/4P3/8/4K3 w - - - 0 1 0", "e3xd4"),
            ("4k3/8/8/8/3pp3/8/8/3QK3 w - - - 0 1 0", "d1xd4"),
            ("4k3/8/8/8/8/8/4r3/4K3 w - - - 0 1 0", "e1xe2"),
            ("4k3/8/8/8/8/8/8/N3K3 w - - - 0 1 0", "a1@d6xe8"),
        ];
        const TRIALS: u32 = 4_000;
        for (position, text) in cases {
            let game = game(position);
            let action = game
                .parse_action(text)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            let (from, to) = match action {
                Action::Attack { from, to, .. } => (from, to),
                Action::Teleport {
                    to,
                    attack: Some(target),
                    ..
                } => (to, target),
                _ => panic!("{text} is not an attack"),
            };
            let (chances, after) = outcomes_of(position, text);
            assert_eq!(chances.iter().sum::<u32>(), CERTAIN, "{text}");
            let kind = |r: &Result| match r {
                Result::TargetDied => 0,
                Result::AttackerDied => 1,
                Result::BothLive(..) => 2,
            };
            let mut seen = [0u32; 3];
            for trial in 0..TRIALS {
                let mut rolled = game.clone();
                let mut seed = [0u8; 32];
                seed[..4].copy_from_slice(&trial.to_le_bytes());
                rolled.set_dice(seed, "chances");
                rolled
                    .apply(&action)
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                seen[kind(&result(&rolled, from, to, game.turn()))] += 1;
            }
            for (&chance, after) in chances.iter().zip(&after) {
                let group = kind(&result(after, from, to, game.turn()));
                let share = f64::from(seen[group]) / f64::from(TRIALS);
                let chance = f64::from(chance) / f64::from(CERTAIN);
                assert!(
                    (share - chance).abs() < 0.03,
                    "{text}: group {group} has chance {chance:.3}, the dice gave {share:.3}"
                );
            }
        }
    }
}
