//! What each Davey Drehs piece may do from a position: moves, attacks and the special
//! abilities (pawn dyads, knight teleport, bishop return, rook cannon, king healing, castling),
//! and why a refused action is refused. One generator, narrowed by origin and destination,
//! serves both the full list and the legality check of a single action.

use super::{
    base_armor, king_home, max_life, weapon_of, Action, Drehs, Dyads, Unit, BISHOP_HOMES,
    BIT_SQUARES, CANNON_RANGE, CASTLES,
};
use crate::bitboard::{sliders, KING_ATTACKS, KNIGHT_ATTACKS};
use crate::geometry::{set_bits, Coord, Mailbox, KING_STEPS};
use crate::{Color, IllegalAction, Role, Rules};

/// Who stands where, as sets of squares seen by the side to move: worked out once per search
/// for the sliders' tables ([`sliders`]), the steps and the knights' teleports.
#[derive(Clone, Copy)]
pub(super) struct Occupancy {
    occupied: u64,
    enemies: u64,
}

impl Occupancy {
    pub(super) fn of(board: &Mailbox<Unit>, color: Color) -> Occupancy {
        let mut occupancy = Occupancy {
            occupied: 0,
            enemies: 0,
        };
        // An 8x8 mailbox's cells are in bit order (`rank * 8 + file`).
        for (index, unit) in board.cells().iter().enumerate().take(64) {
            if let Some(unit) = unit {
                let bit = 1u64 << index;
                occupancy.occupied |= bit;
                if unit.piece.color != color {
                    occupancy.enemies |= bit;
                }
            }
        }
        occupancy
    }
}

/// The moves to the empty squares of `reach` and the attacks on its enemies, from `from`,
/// limited to the `wanted` squares.
fn step_or_attack_all(
    from: Coord,
    reach: u64,
    occupancy: Occupancy,
    wanted: &dyn Fn(Coord) -> bool,
    out: &mut Vec<Action>,
) {
    for target in set_bits(reach & (!occupancy.occupied | occupancy.enemies)) {
        let to = BIT_SQUARES.square(target);
        if !wanted(to) {
            continue;
        }
        out.push(if occupancy.occupied & (1u64 << target) == 0 {
            Action::Move {
                from,
                to,
                promotion: None,
                dyads: Dyads::DEFAULT,
            }
        } else {
            Action::Attack {
                from,
                to,
                promotion: None,
                dyads: Dyads::DEFAULT,
            }
        });
    }
}

/// One attack a side could make now were it to move, with what its dice roll against: the
/// engine's evaluation weighs these (its own threats and the opponent's) without playing
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strike {
    pub from: Coord,
    pub to: Coord,
    /// The attacker's ears (added to its to-hit roll), armor, weapon and life points.
    pub attacker: Fighter,
    /// The same of the target, which strikes back if it survives.
    pub target: Fighter,
}

/// A piece as one attack's dice see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fighter {
    pub role: Role,
    pub ears: u32,
    pub armor: u32,
    /// Weapon dice as (how many, sides).
    pub weapon: (u32, u32),
    pub life: u32,
}

impl Drehs {
    /// Every ordinary attack `color` could make now, were it to move (orthodox capture
    /// geometry; not teleports' attacks nor cannon shots).
    pub fn strikes(&self, color: Color) -> Vec<Strike> {
        let occupancy = Occupancy::of(&self.board, color);
        let mut strikes = Vec::new();
        for (from, unit) in self.board.occupied() {
            if unit.piece.color != color {
                continue;
            }
            let Some(square) = BIT_SQUARES.of(from) else {
                continue;
            };
            let index = square as u8;
            let table = |t: &[u64; 64]| t.get(square).copied().unwrap_or(0);
            let reach = match unit.piece.role {
                Role::Pawn => {
                    let dir = if color == Color::White { 1 } else { -1 };
                    [-1, 1]
                        .iter()
                        .filter_map(|&df| self.board.shape().step(from, df, dir))
                        .filter_map(|c| BIT_SQUARES.of(c))
                        .fold(0u64, |set, target| set | 1u64 << target)
                }
                Role::Knight => table(&KNIGHT_ATTACKS),
                Role::Bishop => sliders().bishop(index, occupancy.occupied),
                Role::Rook => sliders().rook(index, occupancy.occupied),
                Role::Queen => sliders().queen(index, occupancy.occupied),
                Role::King => table(&KING_ATTACKS),
                Role::Dabbabah => 0,
            };
            for target in set_bits(reach & occupancy.enemies) {
                let to = BIT_SQUARES.square(target);
                strikes.push(Strike {
                    from,
                    to,
                    attacker: self.fighter(from),
                    target: self.fighter(to),
                });
            }
        }
        strikes
    }

    /// The attack the knight on `from` would make on `target` after teleporting to `to`:
    /// it arrives with one life point.
    pub fn teleport_strike(&self, from: Coord, to: Coord, target: Coord) -> Strike {
        let knight = self.fighter(from);
        Strike {
            from: to,
            to: target,
            attacker: Fighter {
                armor: base_armor(Role::Knight),
                weapon: weapon_of(Role::Knight, false),
                life: 1,
                ..knight
            },
            target: self.fighter(target),
        }
    }

    pub(super) fn fighter(&self, c: Coord) -> Fighter {
        let unit = self.board.get(c);
        Fighter {
            role: unit.map_or(Role::Pawn, |u| u.piece.role),
            ears: unit.map_or(0, |u| u32::from(u.ears)),
            armor: self.armor_at(c),
            weapon: self.weapon_at(c),
            life: unit.map_or(0, |u| u32::from(u.life)),
        }
    }
}

impl Drehs {
    /// Generates the actions of the side to move, narrowed to the piece on `origin` (or to
    /// bishop returns for `Some(None)`) and to the destination `dest` when given. The full
    /// list ([`Rules::legal_actions`]) is the call without narrowing; legality checks use the
    /// narrowed call so that the same code decides both.
    pub(super) fn generate(
        &self,
        origin: Option<Option<Coord>>,
        dest: Option<Coord>,
        out: &mut Vec<Action>,
    ) {
        let color = self.turn;
        let wanted = |c: Coord| dest.is_none_or(|d| d == c);
        if origin.is_none() || origin == Some(None) {
            for (index, &(home_color, home)) in BISHOP_HOMES.iter().enumerate() {
                let available = self.returns.get(index).copied().unwrap_or(false);
                if home_color == color
                    && available
                    && self.board.is_empty_square(home)
                    && wanted(home)
                {
                    out.push(Action::Return { home });
                }
            }
        }
        let occupancy = Occupancy::of(&self.board, color);
        match origin {
            None => {
                for (from, unit) in self.board.occupied() {
                    if unit.piece.color == color {
                        self.piece_actions(from, *unit, occupancy, &wanted, out);
                    }
                }
            }
            Some(Some(from)) => {
                if let Some(unit) = self.board.get(from).filter(|u| u.piece.color == color) {
                    self.piece_actions(from, *unit, occupancy, &wanted, out);
                }
            }
            Some(None) => {}
        }
    }

    pub(super) fn piece_actions(
        &self,
        from: Coord,
        unit: Unit,
        occupancy: Occupancy,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        let color = unit.piece.color;
        let Some(square) = BIT_SQUARES.of(from) else {
            return;
        };
        let reach = |table: &[u64; 64]| table.get(square).copied().unwrap_or(0);
        let index = square as u8;
        let occupied = occupancy.occupied;
        match unit.piece.role {
            Role::Pawn => self.pawn_actions(from, color, wanted, out),
            Role::Knight => {
                step_or_attack_all(from, reach(&KNIGHT_ATTACKS), occupancy, wanted, out);
                self.teleport_actions(from, occupancy, wanted, out);
            }
            Role::Bishop => {
                let reach = sliders().bishop(index, occupied);
                step_or_attack_all(from, reach, occupancy, wanted, out);
            }
            Role::Rook => {
                let reach = sliders().rook(index, occupied);
                step_or_attack_all(from, reach, occupancy, wanted, out);
                // The cannon fires along the same lines, at the first man met: an enemy
                // within its range.
                for target in set_bits(reach & occupancy.enemies) {
                    let to = BIT_SQUARES.square(target);
                    let distance = from.file.abs_diff(to.file).max(from.rank.abs_diff(to.rank));
                    if CANNON_RANGE.contains(&distance) && wanted(to) {
                        out.push(Action::Cannon { from, to });
                    }
                }
            }
            Role::Queen => {
                let reach = sliders().queen(index, occupied);
                step_or_attack_all(from, reach, occupancy, wanted, out);
            }
            Role::King => {
                step_or_attack_all(from, reach(&KING_ATTACKS), occupancy, wanted, out);
                // The seed sets no condition: the king may spend its turn healing even
                // when no neighbour has lost life points.
                if wanted(from) {
                    out.push(Action::Heal { king: from });
                }
                self.castling_actions(from, color, wanted, out);
            }
            Role::Dabbabah => {}
        }
    }

    /// A knight's teleports: to every empty square, alone or with an attack on each enemy a
    /// knight's leap from there. Found on bitmaps of the board: with two knights a side this is
    /// half of a position's legal actions, and walking every square and each of its leaps was
    /// the largest part of the search.
    pub(super) fn teleport_actions(
        &self,
        from: Coord,
        occupancy: Occupancy,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        let Occupancy { occupied, enemies } = occupancy;
        for to_index in set_bits(!occupied) {
            let to = BIT_SQUARES.square(to_index);
            if !wanted(to) {
                continue;
            }
            out.push(Action::Teleport {
                from,
                to,
                attack: None,
            });
            let targets = KNIGHT_ATTACKS.get(to_index).copied().unwrap_or(0) & enemies;
            out.extend(set_bits(targets).map(|target| Action::Teleport {
                from,
                to,
                attack: Some(BIT_SQUARES.square(target)),
            }));
        }
    }

    fn pawn_actions(
        &self,
        from: Coord,
        color: Color,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        let (dir, start_rank, last_rank): (i8, u8, u8) = match color {
            Color::White => (1, 1, 7),
            Color::Black => (-1, 6, 0),
        };
        let shape = self.board.shape();
        let with_promotions = |to: Coord, attack: bool, out: &mut Vec<Action>| {
            let promotions: &[Option<Role>] = if to.rank == last_rank {
                &[
                    Some(Role::Queen),
                    Some(Role::Rook),
                    Some(Role::Bishop),
                    Some(Role::Knight),
                ]
            } else {
                &[None]
            };
            for &promotion in promotions {
                let plain = if attack {
                    Action::Attack {
                        from,
                        to,
                        promotion,
                        dyads: Dyads::DEFAULT,
                    }
                } else {
                    Action::Move {
                        from,
                        to,
                        promotion,
                        dyads: Dyads::DEFAULT,
                    }
                };
                out.push(plain);
                // The default pairing first, then every other pairing of the row it forms.
                out.extend(self.declarable(to, color).map(|d| plain.with_dyads(d)));
            }
        };
        if let Some(one) = shape
            .step(from, 0, dir)
            .filter(|&c| self.board.is_empty_square(c))
        {
            if wanted(one) {
                with_promotions(one, false, out);
            }
            if from.rank == start_rank {
                if let Some(two) = shape
                    .step(one, 0, dir)
                    .filter(|&c| self.board.is_empty_square(c) && wanted(c))
                {
                    let plain = Action::Move {
                        from,
                        to: two,
                        promotion: None,
                        dyads: Dyads::DEFAULT,
                    };
                    out.push(plain);
                    out.extend(self.declarable(two, color).map(|d| plain.with_dyads(d)));
                }
            }
        }
        for df in [-1, 1] {
            if let Some(to) = shape.step(from, df, dir) {
                if self.is_enemy(to, color) && wanted(to) {
                    with_promotions(to, true, out);
                }
            }
        }
    }

    fn castling_actions(
        &self,
        from: Coord,
        color: Color,
        wanted: &dyn Fn(Coord) -> bool,
        out: &mut Vec<Action>,
    ) {
        if from != king_home(color) {
            return;
        }
        for (index, &(side, _, king_to, _, between)) in CASTLES.iter().enumerate() {
            let allowed = self.castling.get(index).copied().unwrap_or(false);
            if side == color
                && allowed
                && wanted(king_to)
                && between.iter().all(|&c| self.board.is_empty_square(c))
            {
                out.push(Action::Move {
                    from,
                    to: king_to,
                    promotion: None,
                    dyads: Dyads::DEFAULT,
                });
            }
        }
    }

    /// Friendly pieces around `king` that are below their full life points.
    pub(super) fn heal_targets(
        &self,
        king: Coord,
        color: Color,
    ) -> impl Iterator<Item = Coord> + '_ {
        KING_STEPS
            .iter()
            .filter_map(move |&(df, dr)| self.board.shape().step(king, df, dr))
            .filter(move |&c| {
                self.board
                    .get(c)
                    .is_some_and(|u| u.piece.color == color && u.life < max_life(u.piece.role))
            })
    }

    /// Whether the move generator lists `action`, narrowed to its piece and destination (the
    /// game being known not to be over).
    pub(super) fn is_generated(&self, action: &Action) -> bool {
        let mut out = Vec::new();
        self.generate(Some(action.origin()), Some(action.destination()), &mut out);
        out.contains(action)
    }

    /// Why `action` (not among the legal actions) is refused.
    pub(super) fn refusal(&self, action: &Action) -> IllegalAction {
        let machine = self.action_to_machine(action);
        if !action.dyads().is_default() && self.is_generated(&action.with_dyads(Dyads::DEFAULT)) {
            return IllegalAction::rule(
                "bad_dyads",
                "a declaration pairs all but one pawn of the row of three or more pawns that a \
                 pawn's move or kill forms (its single at the 1st, 3rd… place from the a-file side)",
            );
        }
        if let Some(from) = action.origin() {
            match self.board.get(from) {
                None => return IllegalAction::EmptySquare(from.name()),
                Some(u) if u.piece.color != self.turn => {
                    return IllegalAction::NotYourPiece(from.name())
                }
                Some(u) => {
                    let role = u.piece.role;
                    match action {
                        Action::Teleport { .. } if role != Role::Knight => {
                            return IllegalAction::rule("not_a_knight", "only knights teleport")
                        }
                        Action::Cannon { .. } if role != Role::Rook => {
                            return IllegalAction::rule("not_a_rook", "only rooks have a cannon")
                        }
                        Action::Cannon { from, to } => {
                            let distance =
                                from.file.abs_diff(to.file) + from.rank.abs_diff(to.rank);
                            if !CANNON_RANGE.contains(&distance) {
                                return IllegalAction::rule(
                                    "cannon_range",
                                    "the cannon shoots 2 to 5 squares along a clear rank or file",
                                );
                            }
                        }
                        Action::Heal { .. } if role != Role::King => {
                            return IllegalAction::rule("not_a_king", "only the king heals")
                        }
                        Action::Move { to, .. } if !self.board.is_empty_square(*to) => {
                            return IllegalAction::rule(
                                "square_occupied",
                                "a move needs an empty square; attack an enemy piece instead",
                            )
                        }
                        Action::Attack { to, .. } if !self.is_enemy(*to, self.turn) => {
                            return IllegalAction::rule(
                                "no_enemy_there",
                                format!("there is no enemy piece on {} to attack", to.name()),
                            )
                        }
                        _ => {}
                    }
                }
            }
        } else if let Action::Return { home } = action {
            let slot = BISHOP_HOMES
                .iter()
                .position(|&(c, h)| c == self.turn && h == *home);
            let available = slot.and_then(|i| self.returns.get(i).copied()) == Some(true);
            if !available {
                return IllegalAction::rule(
                    "no_bishop_to_return",
                    format!(
                        "no dead original bishop of yours may return to {}",
                        home.name()
                    ),
                );
            }
            return IllegalAction::rule(
                "return_square_occupied",
                format!("{} is occupied", home.name()),
            );
        }
        IllegalAction::NotLegal(machine)
    }
}
