//! The live spectator count: `{"t":"spectators","n":N}` to every connection when the number
//! of spectators changed, at most one every [`SPECTATORS_EVERY_MS`] per game.
//!
//! A crowd arriving or leaving (a game linked from the lobby, a page reloaded) changes the
//! count many times a second; sending each change would be a message per connection per
//! change. So a change arms a deadline instead ([`GameState::spectators_due`], a timer of the
//! actor's), and when it passes the count is sent if it still differs from the last one sent.
//! Not a versioned event: a reconnecting client reads the count from its snapshot.

use super::GameState;
use crate::wire::game::spectators_message;
use std::sync::Arc;

/// The shortest time between two spectator counts of one game, in milliseconds.
pub const SPECTATORS_EVERY_MS: u64 = 1_000;

/// What the connections were last told of the spectators.
#[derive(Debug, Default)]
pub struct SpectatorNotice {
    /// The count last sent (a new or resumed game starts with nobody watching).
    shown: u32,
    /// When it was sent (the actor's milliseconds).
    sent_at: Option<u64>,
    /// When the next count is due, if the count changed since.
    due: Option<u64>,
}

impl GameState {
    /// Looks at the count at `now` (after connections opened or closed, or a spectator took
    /// a seat) and arms the announcement if it changed.
    pub fn note_spectators(&mut self, now: u64) {
        let notice = &self.spectator_notice;
        if notice.due.is_some() || self.spectators() == notice.shown {
            return;
        }
        let earliest = notice.sent_at.map_or(now, |t| t + SPECTATORS_EVERY_MS);
        self.spectator_notice.due = Some(earliest.max(now));
    }

    /// When the spectator count is to be sent, if it changed.
    pub fn spectators_due(&self) -> Option<u64> {
        self.spectator_notice.due
    }

    /// The announcement's deadline has passed at `now`: the message to send to everyone,
    /// unless the count came back to what was last sent meanwhile.
    pub fn announce_spectators(&mut self, now: u64) -> Option<Arc<str>> {
        self.spectator_notice.due = None;
        let n = self.spectators();
        if n == self.spectator_notice.shown {
            return None;
        }
        self.spectator_notice.shown = n;
        self.spectator_notice.sent_at = Some(now);
        Some(spectators_message(n))
    }
}
