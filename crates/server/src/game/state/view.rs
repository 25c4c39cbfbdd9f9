//! What a client is shown of a game: the snapshot one viewer starts from.

use super::GameState;
use crate::game::clock::{ClockView, TimeControl};
use crate::rules::{Color, Outcome, Snapshot, Variant};
use crate::store::{ColorChoice, GameStatus};
use serde::Serialize;
use std::sync::Arc;
use uuid::Uuid;

/// One played action as kept in memory and shown in snapshots.
#[derive(Clone, Debug, Serialize)]
pub struct MoveView {
    pub ply: u32,
    pub machine: String,
    pub human: String,
}

/// Everything a client needs to show a game, for one viewer.
#[derive(Serialize)]
pub struct GameView<'a> {
    pub id: Uuid,
    pub variant: Variant,
    pub status: GameStatus,
    pub white: Option<&'a str>,
    pub black: Option<&'a str>,
    pub creator: &'a str,
    pub color_choice: ColorChoice,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
    pub clock: Option<ClockView>,
    pub moves: &'a [MoveView],
    pub rules: Snapshot,
    pub draw_offer: Option<Color>,
    pub rematch_offer: Option<Color>,
    pub rematch_game: Option<Uuid>,
    pub outcome: Option<Outcome>,
    /// The viewer's colour, if they play in this game.
    pub you: Option<Color>,
    pub spectators: u32,
    pub dice_commitment: Option<&'a str>,
    /// Revealed once the game is over.
    pub dice_seed: Option<String>,
    /// Milliseconds left for the pending first move before the game is aborted.
    pub first_move_deadline_ms: Option<u64>,
    /// Seats whose player has no open connection right now.
    pub absent: Vec<Color>,
    /// For each absent seat, milliseconds until its opponent may claim against it (0 once
    /// they may), as `player_gone` says when the player leaves.
    pub claim_after_ms: SeatTimes,
}

/// A number of milliseconds per seat, where it applies (`{"black":1200}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeatTimes {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black: Option<u64>,
}

/// The snapshot message: `{"t":"snapshot","v":<version>,"game":…}`.
pub fn snapshot_message(version: u64, game: GameView<'_>) -> Arc<str> {
    #[derive(Serialize)]
    struct SnapshotMessage<'a> {
        t: &'static str,
        v: u64,
        game: GameView<'a>,
    }
    let message = SnapshotMessage {
        t: "snapshot",
        v: version,
        game,
    };
    serde_json::to_string(&message)
        .unwrap_or_else(|_| "{\"t\":\"error\",\"code\":\"internal\"}".to_string())
        .into()
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
        }
    }

    /// Seats of an active game whose player has no open connection.
    fn absent_seats(&self) -> impl Iterator<Item = Color> + '_ {
        Color::ALL
            .into_iter()
            .filter(|c| self.status == GameStatus::Active && self.connections(*c) == 0)
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
