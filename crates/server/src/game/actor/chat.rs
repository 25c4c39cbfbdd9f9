//! The actor's part of the chat and of the live spectator count: storing a line before it
//! is sent, reading a resumed game's stored lines, and sending the coalesced count when its
//! timer passes.
//!
//! A line is broadcast only after PostgreSQL committed it, as an action is: a client that
//! saw a line can rely on it being in the replay. While PostgreSQL is away a line is refused
//! at once with `store_unavailable` and nobody sees it. The actor waits for the line's
//! commit as it waits for an action's; a line is one small insert, and a writer sends at
//! most five in ten seconds.

use super::GameActor;
use crate::game::Refusal;
use crate::game::{GameError, Outgoing};
use crate::play::state::{ChatRefusal, CHAT_LINES_STORED};
use crate::play::wire::game::ChatLine;
use crate::store::NewChatLine;
use uuid::Uuid;

/// Lines of each room a resumed game reads back: what its snapshots show.
const LINES_READ_BACK: i64 = 50;

impl GameActor {
    /// Stores `viewer`'s line and sends it to its room.
    pub(super) async fn chat(&mut self, viewer: Option<Uuid>, text: &str) -> Result<(), GameError> {
        let draft = self
            .state
            .propose_chat(viewer, text, self.now_ms())
            .map_err(Refusal::Chat)?;
        self.ctx.store.check_available()?;
        // The rooms' last lines first, so that the new one follows them.
        self.read_stored_chat().await?;
        let line = NewChatLine {
            game_id: self.state.id(),
            user_id: draft.user_id,
            room: draft.room,
            text: &draft.text,
            at: draft.at,
        };
        let stored = self
            .ctx
            .store
            .insert_chat_line(line, CHAT_LINES_STORED)
            .await;
        self.ctx.store.observe(&stored);
        let from = stored?.ok_or(Refusal::Chat(ChatRefusal::Full))?;
        let message = self.state.adopt_chat(draft, from, self.now_ms());
        // No receivers is fine: nobody is watching right now.
        let _ = self.sender.send(message);
        Ok(())
    }

    /// Reads a resumed game's stored chat into memory, once: at the actor's start, or, if the
    /// store could not be read then, before the next line or connection.
    pub(super) async fn read_stored_chat(&mut self) -> Result<(), GameError> {
        if self.state.chat_loaded() {
            return Ok(());
        }
        self.ctx.store.check_available()?;
        let records = self
            .ctx
            .store
            .recent_chat(self.state.id(), LINES_READ_BACK)
            .await;
        self.ctx.store.observe(&records);
        let lines = records?.into_iter().map(ChatLine::from).collect();
        self.state.load_chat(lines);
        Ok(())
    }

    /// The spectator count's timer has passed: send it if it changed.
    pub(super) fn spectators_due(&mut self) {
        if let Some(message) = self.state.announce_spectators(self.now_ms()) {
            let _ = self.sender.send(Outgoing::everyone(message));
        }
    }
}
