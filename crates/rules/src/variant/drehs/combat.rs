//! Carrying out a Davey Drehs action: attacks resolved with dice (to hit, damage, the
//! counterattack), the rook's cannon, deaths, promotion and the castling rights they end.
//! Every roll goes through the game's dice, so a game replays exactly from its seed.

use super::{
    dice_name, is_dark, king_home, max_life, Action, Drehs, Report, Unit, BISHOP_HOMES, CASTLES,
    HEAL_AMOUNT, RETURN_LIFE,
};
use crate::geometry::{Coord, KING_STEPS};
use crate::snapshot::{LastAction, Roll, SquareRef};
use crate::{Color, Piece, Role, Rules};
use std::borrow::Cow;
use std::sync::Arc;

impl Drehs {
    /// A piece has died: free its bishop return if it was an original bishop.
    fn on_death(&mut self, dead: Unit, at: Coord) {
        if dead.is_original_bishop() {
            let slot = BISHOP_HOMES.iter().position(|&(color, home)| {
                color == dead.piece.color && is_dark(home) == is_dark(at)
            });
            if let Some(flag) = slot.and_then(|i| self.returns.get_mut(i)) {
                *flag = true;
            }
        }
    }

    /// Takes `damage` life points off the piece on `c`; returns (before, after).
    fn wound(&mut self, c: Coord, damage: u32) -> (u8, u8) {
        match self.board.get_mut(c) {
            Some(unit) => {
                let before = unit.life;
                let damage = u8::try_from(damage).unwrap_or(u8::MAX);
                unit.life = unit.life.saturating_sub(damage);
                (before, unit.life)
            }
            None => (0, 0),
        }
    }

    fn roll_dice(
        &mut self,
        count: u32,
        sides: u32,
        purpose: &'static str,
        report: &mut Report,
    ) -> u32 {
        let mut total = 0;
        for _ in 0..count {
            let value = self.dice.roll(sides);
            report.rolls.push(Roll {
                purpose: Cow::Borrowed(purpose),
                dice: dice_name(1, sides),
                value,
            });
            total += value;
        }
        total
    }

    fn describe(&self, c: Coord) -> String {
        match self.board.get(c) {
            Some(u) => format!("{} {} {}", u.piece.color, u.piece.role.as_str(), c.name()),
            None => c.name(),
        }
    }

    /// The to-hit roll of the piece on `from` against the piece on `to`.
    fn roll_to_hit(
        &mut self,
        from: Coord,
        to: Coord,
        purpose: &'static str,
        report: &mut Report,
    ) -> bool {
        let ears = self.board.get(from).map_or(0, |u| u32::from(u.ears));
        let armor = self.armor_at(to);
        let face = self.roll_dice(1, 20, purpose, report);
        let hit = face + ears > armor;
        let verdict = if hit { "hit" } else { "miss" };
        let sign = if hit { ">" } else { "<=" };
        let keyword = if purpose.starts_with("counter") {
            format!("counter_{verdict}")
        } else {
            verdict.to_string()
        };
        report.effect(format!(
            "{keyword}: {} rolls d20 {face} + {ears} ears = {} {sign} armor {armor} of {}",
            self.describe(from),
            face + ears,
            self.describe(to)
        ));
        hit
    }

    /// A normal attack (also the one after a teleport): to-hit, damage, kill and move in, or
    /// the survivor's counterattack.
    fn resolve_attack(
        &mut self,
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
        report: &mut Report,
    ) {
        let victim_name = self.describe(to);
        if self.roll_to_hit(from, to, "to_hit", report) {
            let (count, sides) = self.weapon_at(from);
            let damage = self.roll_dice(count, sides, "damage", report);
            let (before, after) = self.wound(to, damage);
            report.progress = true;
            report.effect(format!(
                "damage: {} = {damage}: {victim_name} {before} -> {after} LP",
                dice_name(count, sides)
            ));
            if after == 0 {
                let attacker_name = self.describe(from);
                if let Some(dead) = self.board.take(to) {
                    self.on_death(dead, to);
                }
                if let Some(mut attacker) = self.board.take(from) {
                    attacker.ears = attacker.ears.saturating_add(1);
                    self.board.set(to, Some(attacker));
                }
                report.effect(format!(
                    "kill: {victim_name} dies; {attacker_name} moves to {} and dons ear necklace {}",
                    to.name(),
                    self.board.get(to).map_or(0, |u| u.ears)
                ));
                self.promote_if_due(to, promotion, report);
                return;
            }
        }
        // The survivor strikes back, whether it was hit or missed.
        let attacker_name = self.describe(from);
        if self.roll_to_hit(to, from, "counter_to_hit", report) {
            let (count, sides) = self.weapon_at(to);
            let damage = self.roll_dice(count, sides, "counter_damage", report);
            let (before, after) = self.wound(from, damage);
            report.progress = true;
            report.effect(format!(
                "counter_damage: {} = {damage}: {attacker_name} {before} -> {after} LP",
                dice_name(count, sides)
            ));
            if after == 0 {
                if let Some(dead) = self.board.take(from) {
                    self.on_death(dead, from);
                }
                report.effect(format!("counter_kill: {attacker_name} dies"));
            }
        }
    }

    fn promote_if_due(&mut self, at: Coord, promotion: Option<Role>, report: &mut Report) {
        let last_rank = |c: Color| match c {
            Color::White => 7,
            Color::Black => 0,
        };
        let Some(unit) = self.board.get_mut(at) else {
            return;
        };
        if unit.piece.role != Role::Pawn || at.rank != last_rank(unit.piece.color) {
            return;
        }
        let role = promotion.unwrap_or(Role::Queen);
        unit.piece.role = role;
        unit.life = max_life(role);
        unit.promoted = true;
        report.progress = true;
        report.effect(format!(
            "promote: pawn on {} becomes a {} with {} LP",
            at.name(),
            role.as_str(),
            max_life(role)
        ));
    }

    fn resolve_cannon(&mut self, from: Coord, to: Coord, report: &mut Report) {
        if !self.roll_to_hit(from, to, "cannon_to_hit", report) {
            return;
        }
        let rolled = self.roll_dice(2, 4, "cannon_damage", report);
        let target_name = self.describe(to);
        let life = self.board.get(to).map_or(0, |u| u32::from(u.life));
        // Projectile damage never kills: it may take all but one life point.
        let damage = rolled.min(life.saturating_sub(1));
        let (before, after) = self.wound(to, damage);
        if before != after {
            report.progress = true;
        }
        report.effect(format!(
            "damage: 2d4 = {rolled}, {damage} after the cannon's cap: {target_name} {before} -> {after} LP"
        ));
        for &(df, dr) in &KING_STEPS {
            let Some(near) = self.board.shape().step(to, df, dr) else {
                continue;
            };
            let name = self.describe(near);
            if self.board.get(near).is_some_and(|u| u.life > 1) {
                let (before, after) = self.wound(near, 1);
                report.progress = true;
                report.effect(format!("splash: {name} {before} -> {after} LP"));
            }
        }
    }

    /// Castling rights hold while the king and the rook stand unmoved on their squares: a
    /// right is lost as soon as either square no longer holds that piece (moved away, killed).
    /// A king or rook that attacks without killing, or a rook firing its cannon, stays put and
    /// keeps the right.
    fn update_castling(&mut self) {
        for (index, &(color, corner, _, _, _)) in CASTLES.iter().enumerate() {
            let holds = |c: Coord, role: Role| {
                self.board.get(c).map(|u| u.piece) == Some(Piece::new(color, role))
            };
            let intact = holds(king_home(color), Role::King) && holds(corner, Role::Rook);
            if let Some(right) = self.castling.get_mut(index) {
                *right &= intact;
            }
        }
    }

    /// Carries out a legal action.
    pub(super) fn execute(&mut self, action: &Action) {
        let mut report = Report::default();
        let pieces_before = self.board.occupied().count();
        let pawn_moved = match *action {
            Action::Move { from, .. } => self
                .board
                .get(from)
                .is_some_and(|u| u.piece.role == Role::Pawn),
            _ => false,
        };
        self.teleported = None;
        let squares = match *action {
            Action::Move {
                from,
                to,
                promotion,
                ..
            } => self.execute_move(from, to, promotion, &mut report),
            Action::Attack {
                from,
                to,
                promotion,
                ..
            } => {
                self.resolve_attack(from, to, promotion, &mut report);
                vec![from, to]
            }
            Action::Teleport { from, to, attack } => {
                self.execute_teleport(from, to, attack, &mut report)
            }
            Action::Cannon { from, to } => {
                self.resolve_cannon(from, to, &mut report);
                vec![from, to]
            }
            Action::Return { home } => {
                self.execute_return(home, &mut report);
                vec![home]
            }
            Action::Heal { king } => {
                self.execute_heal(king, &mut report);
                vec![king]
            }
        };
        self.update_castling();
        let arrival = match *action {
            Action::Move { to, dyads, .. } | Action::Attack { to, dyads, .. } => Some((to, dyads)),
            _ => None,
        };
        self.settle_dyads(arrival);
        let killed = self.board.occupied().count() < pieces_before;
        if pawn_moved || killed || report.progress {
            self.halfmove = 0;
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
        }
        if self.turn == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.last = Some(Arc::new(LastAction {
            machine: self.action_to_machine(action),
            human: String::new(),
            squares: squares
                .into_iter()
                .map(|c| SquareRef::main(c.label()))
                .collect(),
            rolls: report.rolls,
            effects: report.effects,
        }));
        self.turn = self.turn.other();
        self.history.push(self.position_key());
    }

    /// A plain move (a castling king takes its rook along); returns the squares it touched.
    fn execute_move(
        &mut self,
        from: Coord,
        to: Coord,
        promotion: Option<Role>,
        report: &mut Report,
    ) -> Vec<Coord> {
        let mut squares = vec![from, to];
        let is_king = self
            .board
            .get(from)
            .is_some_and(|u| u.piece.role == Role::King);
        if let Some(unit) = self.board.take(from) {
            self.board.set(to, Some(unit));
        }
        if is_king && from.file.abs_diff(to.file) == 2 {
            if let Some(&(_, corner, _, rook_to, _)) = CASTLES
                .iter()
                .find(|(c, _, king_to, _, _)| *c == self.turn && *king_to == to)
            {
                if let Some(rook) = self.board.take(corner) {
                    self.board.set(rook_to, Some(rook));
                }
                squares.extend([corner, rook_to]);
                report.effect(format!(
                    "castle: king {} -> {}, rook {} -> {}",
                    from.name(),
                    to.name(),
                    corner.name(),
                    rook_to.name()
                ));
            }
        }
        self.promote_if_due(to, promotion, report);
        squares
    }

    /// A knight's teleport to `to` (1 LP left), then its attack on `attack` if any; returns
    /// the squares it touched. Remembers where the knight ends up, if it lives.
    fn execute_teleport(
        &mut self,
        from: Coord,
        to: Coord,
        attack: Option<Coord>,
        report: &mut Report,
    ) -> Vec<Coord> {
        let mut squares = vec![from, to];
        if let Some(mut knight) = self.board.take(from) {
            if knight.life != 1 {
                report.progress = true;
            }
            report.effect(format!(
                "teleport: {} knight {} -> {}, {} -> 1 LP",
                knight.piece.color,
                from.name(),
                to.name(),
                knight.life
            ));
            knight.life = 1;
            self.board.set(to, Some(knight));
        }
        self.teleported = Some(to);
        if let Some(target) = attack {
            squares.push(target);
            self.resolve_attack(to, target, None, report);
            if self.board.get(to).is_none() {
                // Either it died or it killed and moved on.
                self.teleported = self
                    .board
                    .get(target)
                    .filter(|u| u.piece == Piece::new(self.turn, Role::Knight))
                    .map(|_| target);
            }
        }
        squares
    }

    /// An original bishop's return to `home`, using up that home's return.
    fn execute_return(&mut self, home: Coord, report: &mut Report) {
        if let Some(slot) = BISHOP_HOMES
            .iter()
            .position(|&(c, h)| c == self.turn && h == home)
        {
            if let Some(flag) = self.returns.get_mut(slot) {
                *flag = false;
            }
        }
        let mut bishop = Unit::fresh(Piece::new(self.turn, Role::Bishop));
        bishop.life = RETURN_LIFE;
        bishop.black_necklace = true;
        self.board.set(home, Some(bishop));
        report.progress = true;
        report.effect(format!(
            "return: {} bishop returns to {} with {RETURN_LIFE} LP and a black necklace",
            self.turn,
            home.name()
        ));
    }

    /// The king on `king` heals the pieces around it, each up to its maximum life. With no
    /// wounded friend around it the turn passes and nothing changes.
    fn execute_heal(&mut self, king: Coord, report: &mut Report) {
        let targets: Vec<Coord> = self.heal_targets(king, self.turn).collect();
        if targets.is_empty() {
            report.effect(format!(
                "heal: nothing to heal around {}",
                self.describe(king)
            ));
            return;
        }
        for c in targets {
            let name = self.describe(c);
            if let Some(unit) = self.board.get_mut(c) {
                let before = unit.life;
                unit.life = (unit.life + HEAL_AMOUNT).min(max_life(unit.piece.role));
                report.effect(format!("heal: {name} {before} -> {} LP", unit.life));
            }
        }
        report.progress = true;
    }
}
