//! Settling a takeback whose commit's answer was lost: the record may have lost the actions
//! taken back while memory still holds them, and the next action would then leave a gap in
//! the record's plies. Before the game goes on, the actor reads the record and, if the
//! takeback is in it, adopts it as stored.

use super::GameActor;
use crate::game::GameError;

impl GameActor {
    /// Reads whether a takeback whose commit was cut off is in the record, and if it is,
    /// takes it back in memory too.
    pub(super) async fn settle_takeback(&mut self) -> Result<(), GameError> {
        self.ctx.store.check_available()?;
        let record = self.ctx.store.load_game(self.state.id()).await;
        self.ctx.store.observe(&record);
        let record = record?;
        self.unsettled_takeback = false;
        let now = self.now_ms();
        let stored = record.and_then(|record| self.state.stored_takeback(&record, now));
        if let Some(proposal) = stored {
            tracing::warn!("adopting a takeback stored by a commit whose answer was lost");
            let effects = self.state.adopt(proposal.adoption, now);
            self.carry_out(effects);
            self.thinking = None;
        }
        Ok(())
    }
}
