//! A seat the computer holds. The computer is never away (no claim against it, no "gone"
//! notice) and is no viewer, so a game a person has left still hibernates as theirs would;
//! [`GameState::computer_turn`] is what it needs to choose its next action.

use super::GameState;
use crate::record::GameStatus;
use crate::rules::{AnyGame, Color};
use uuid::Uuid;

/// What the computer must answer: its colour, the ply its action will be, the game as a
/// player sees it, and its time left.
#[derive(Clone, Debug)]
pub struct ComputerTurn {
    pub color: Color,
    pub ply: u32,
    /// The game with its dice, if any, replaced by dice of no consequence: the computer
    /// never learns the game's seed, so it cannot foresee a roll.
    pub game: AnyGame,
    /// Milliseconds left on its clock and its increment, if the game has a clock.
    pub clock: Option<(u64, u64)>,
}

impl GameState {
    /// `user_id` is the computer: always present from now on.
    pub fn set_resident(&mut self, user_id: Uuid) {
        self.resident = Some(user_id);
        for color in Color::ALL {
            if self.is_resident(color) {
                self.gone_since[color.index()] = None;
            }
        }
    }

    /// The computer's account, once [`GameState::set_resident`] named it.
    pub fn resident(&self) -> Option<Uuid> {
        self.resident
    }

    /// Whether `color`'s seat is the computer's.
    pub(super) fn is_resident(&self, color: Color) -> bool {
        self.resident.is_some()
            && self.seats[color.index()].as_ref().map(|seat| seat.user_id) == self.resident
    }

    /// The computer's turn at `now`, if the game is on and its next action is the
    /// computer's to choose (a forced one is played by the game itself). `dice_seed` stands
    /// in for the game's own.
    pub fn computer_turn(&self, now: u64, dice_seed: [u8; 32]) -> Option<ComputerTurn> {
        if self.status != GameStatus::Active || self.game.forced_action().is_some() {
            return None;
        }
        let color = self.game.turn();
        if !self.is_resident(color) {
            return None;
        }
        let mut game = self.game.clone();
        game.set_dice(dice_seed, "computer");
        Some(ComputerTurn {
            color,
            ply: self.ply() + 1,
            game,
            clock: self
                .clock
                .as_ref()
                .map(|clock| (clock.remaining(color, now), clock.control().increment_ms)),
        })
    }
}
