//! Why a Duel Chess action that is not legal cannot be played: the refusal names the rule it
//! breaks (an empty or enemy square, a frozen Duel board, a missing or wrong placement or
//! return square), falling back to "leaves the king in check".

use super::bitboard::MainBits;
use super::moves::Landing;
use super::{duel_square_name, Action, Duel};
use crate::geometry::Coord;
use crate::IllegalAction;

impl Duel {
    /// Why `action` (not in `legal`) cannot be played.
    pub(super) fn explain(&self, action: &Action, legal: &[Action]) -> IllegalAction {
        match *action {
            Action::Main { from, to, place } => self.explain_main(from, to, place, legal),
            Action::Duel { from, to, back } => self.explain_duel(from, to, back),
        }
    }

    /// Why the Main-board move `from`-`to` (placing the victim on `place`) cannot be played.
    fn explain_main(
        &self,
        from: Coord,
        to: Coord,
        place: Option<Coord>,
        legal: &[Action],
    ) -> IllegalAction {
        let us = self.turn;
        let mut targets = Vec::new();
        let action = Action::Main { from, to, place };
        let name = from.name();
        let Some(man) = self.main_at(from) else {
            return IllegalAction::EmptySquare(name);
        };
        if man.piece.color != us {
            return IllegalAction::NotYourPiece(name);
        }
        self.main_targets(from, man, &mut targets);
        let Some(&(_, landing)) = targets.iter().find(|(t, _)| *t == to) else {
            return IllegalAction::NotLegal(self.machine(&action));
        };
        let same_move = legal
            .iter()
            .any(|a| matches!(*a, Action::Main { from: f, to: t, .. } if f == from && t == to));
        if !same_move && landing != Landing::Quiet && self.placement_squares().is_empty() {
            return IllegalAction::rule(
                "no_placement",
                "the Duel board is full and holds none of your men to sacrifice",
            );
        }
        if !same_move {
            return IllegalAction::KingInCheck;
        }
        match (landing, place) {
            (Landing::Quiet, _) => IllegalAction::rule(
                "not_a_capture",
                "only a capture places a man on the Duel board",
            ),
            (_, None) => IllegalAction::rule(
                "placement_required",
                format!(
                    "a capture names the Duel square the captured man goes to, as in {}{}@x1",
                    from.name(),
                    to.name()
                ),
            ),
            (_, Some(place)) if self.duel_is_full() => IllegalAction::rule(
                "sacrifice_required",
                format!(
                    "the Duel board is full: {} must be a square holding one of your own Duel men, which dies",
                    duel_square_name(place)
                ),
            ),
            (_, Some(place)) => IllegalAction::rule(
                "duel_square_occupied",
                format!("{} is not empty", duel_square_name(place)),
            ),
        }
    }

    /// Why the Duel-board move `from`-`to` (returning the capturer to `back`) cannot be played.
    fn explain_duel(&self, from: Coord, to: Coord, back: Option<Coord>) -> IllegalAction {
        let us = self.turn;
        let mut targets = Vec::new();
        let action = Action::Duel { from, to, back };
        let name = duel_square_name(from);
        let Some(piece) = self.duel_at(from) else {
            return IllegalAction::EmptySquare(name);
        };
        if piece.color != us {
            return IllegalAction::NotYourPiece(name);
        }
        if !self.duel_is_active() {
            return IllegalAction::rule(
                "frozen",
                "Duel men cannot move until both colours stand on the Duel board",
            );
        }
        self.duel_targets(from, piece, &mut targets);
        let Some(&(_, landing)) = targets.iter().find(|(t, _)| *t == to) else {
            return IllegalAction::NotLegal(self.machine(&action));
        };
        match (landing, back) {
            (Landing::Quiet, Some(_)) => IllegalAction::rule(
                "not_a_capture",
                "only a Duel capture returns a man to the Main board",
            ),
            (Landing::Quiet, None) => IllegalAction::KingInCheck,
            (_, None) => IllegalAction::rule(
                "return_required",
                format!(
                    "a Duel capture names the Main square the capturer returns to, as in {}{}>a3",
                    duel_square_name(from),
                    duel_square_name(to)
                ),
            ),
            (_, Some(back)) if !self.main.is_empty_square(back) => IllegalAction::rule(
                "return_square_occupied",
                format!("{} is not an empty Main square", back.name()),
            ),
            (_, Some(back)) if MainBits::of(&self.main).drop_gives_check(back, piece) => {
                IllegalAction::rule(
                    "return_gives_check",
                    format!("a man returned to {} would give check", back.name()),
                )
            }
            _ => IllegalAction::KingInCheck,
        }
    }
}
