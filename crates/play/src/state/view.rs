//! What a client is shown of a game: the snapshot one viewer starts from (the types are the
//! wire's, `crate::wire::game::view`).

use super::GameState;
use crate::record::GameStatus;
use crate::rules::Color;
use crate::wire::game::{GameServerMsg, GameView, SeatTimes};
use std::sync::Arc;
use uuid::Uuid;

/// The snapshot message: `{"t":"snapshot","v":<version>,"game":…}`.
pub fn snapshot_message(version: u64, game: GameView<'_>) -> Arc<str> {
    GameServerMsg::snapshot(version, game).to_json().into()
}

impl GameState {
    /// The game as `viewer` sees it at `now`.
    pub fn view(&self, viewer: Option<Uuid>, now: u64) -> GameView<'_> {
        GameView {
            id: self.id,
            variant: self.game.variant(),
            status: self.status,
            white: self.seats[0].as_ref().map(|s| s.name.as_str()),
            black: self.seats[1].as_ref().map(|s| s.name.as_str()),
            creator: &self.creator.name,
            color_choice: self.color_choice,
            time_control: self.time_control,
            rated: self.rated,
            clock: self.clock.as_ref().map(|c| c.view(now)),
            moves: &self.moves,
            rules: self.game.snapshot(),
            draw_offer: self.draw_offer,
            rematch_offer: self.rematch_offer,
            takeback_offer: self.takeback_offer,
            rematch_game: self.rematch_game,
            outcome: self.outcome,
            you: viewer.and_then(|v| self.seat_of(v)),
            spectators: self.spectators(),
            dice_commitment: self.dice.as_ref().map(|d| d.commitment.as_str()),
            dice_seed: self
                .dice
                .as_ref()
                .filter(|_| self.is_over())
                .map(|d| hex::encode(d.seed)),
            first_move_deadline_ms: self.first_move_deadline.map(|t| t.saturating_sub(now)),
            absent: self.absent_seats().collect(),
            claim_after_ms: self.claim_waits(now),
            chat: self.chat_lines(viewer).collect(),
        }
    }

    /// Seats of an active game whose player has no open connection (never the computer's).
    fn absent_seats(&self) -> impl Iterator<Item = Color> + '_ {
        Color::ALL.into_iter().filter(|c| {
            self.status == GameStatus::Active && self.connections(*c) == 0 && !self.is_resident(*c)
        })
    }

    /// How long until a claim against each absent seat is allowed, at `now`.
    fn claim_waits(&self, now: u64) -> SeatTimes {
        let mut waits = SeatTimes::default();
        for color in self.absent_seats() {
            let wait = self
                .claim_allowed_at(color)
                .map(|at| at.saturating_sub(now));
            match color {
                Color::White => waits.white = wait,
                Color::Black => waits.black = wait,
            }
        }
        waits
    }
}
