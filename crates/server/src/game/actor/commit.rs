//! The actor's commands that change the record: joining, acting, requests, forced actions
//! and ends; and settling with the store after a commit whose answer was lost.

use super::GameActor;
use crate::game::Refusal;
use crate::game::{GameError, PlayerRequest, Seat};
use crate::play::state::{Adoption, Decision, PlayedAction, Proposal};
use crate::store::{GameChange, GameStatus, StoreError};
use rand::Rng;
use tokio::time::Instant;
use uuid::Uuid;

impl GameActor {
    pub(super) async fn join(&mut self, seat: Seat) -> Result<(), GameError> {
        self.catch_up_with_store().await?;
        let creator_color = self.state.creator_color(rand::thread_rng().gen());
        let proposal = self.state.propose_start(seat.clone(), creator_color)?;
        let game_id = self.state.id();
        // The creator's place was claimed with the challenge; the joiner's is claimed now.
        self.ctx.claim_places(game_id, &[&seat]).await?;
        if let Err(e) = self.commit(proposal, Instant::now()).await {
            self.ctx.release_places(game_id, &[seat.user_id]);
            return Err(e);
        }
        self.play_forced_actions().await;
        Ok(())
    }

    pub(super) async fn act(
        &mut self,
        user_id: Uuid,
        ply: u32,
        action: &str,
        received: Instant,
    ) -> Result<(), GameError> {
        let color = self.state.mover(user_id)?;
        // First the game takes in an action stored without its answer, so this one is
        // checked against the true next ply (its retry is then told it was played).
        self.catch_up_with_store().await?;
        let proposal = self
            .state
            .propose_action(color, ply, action, self.now_ms())?;
        let committed = self.commit(proposal, received).await;
        if matches!(
            committed,
            Err(GameError::Store(StoreError::DuplicatePly { .. }))
        ) {
            // The ply holds another action, stored by a try whose answer was lost: the game
            // takes that one in, and this one came too late for its ply.
            self.catch_up_with_store().await?;
            return Err(Refusal::WrongPly {
                expected: self.state.ply() + 1,
            }
            .into());
        }
        committed?;
        self.play_forced_actions().await;
        Ok(())
    }

    pub(super) async fn request(
        &mut self,
        user_id: Uuid,
        request: PlayerRequest,
    ) -> Result<(), GameError> {
        self.catch_up_with_store().await?;
        match self.state.request(user_id, request, self.now_ms())? {
            Decision::Done(effects) => self.carry_out(effects),
            Decision::Commit(proposal) => self.commit(proposal, Instant::now()).await?,
            Decision::Rematch {
                white,
                black,
                terms,
            } => {
                let game_id = self.ctx.create_started(white, black, terms).await?;
                let effects = self.state.rematch_started(game_id);
                self.carry_out(effects);
            }
        }
        Ok(())
    }

    /// Plays actions the rules force with no choice (a Chazz pass) for whoever must make
    /// them. One the store fails to commit is tried again after
    /// [`crate::play::state::STORE_RETRY_MS`].
    pub(super) async fn play_forced_actions(&mut self) {
        loop {
            let now = self.now_ms();
            let Some(proposal) = self.state.propose_forced(now) else {
                break;
            };
            let played = match proposal {
                Ok(proposal) => self.commit(proposal, Instant::now()).await,
                Err(refusal) => Err(refusal.into()),
            };
            match played {
                Ok(()) => {}
                // The side's time ran out before its forced action could be stored (an
                // earlier try failed): it lost on time, and the action came too late.
                Err(GameError::Refused(Refusal::TimeOut)) => break,
                Err(e) => {
                    tracing::error!(cause = %e, "forced action or flag failed; trying again");
                    self.state.retry_later(now);
                    break;
                }
            }
        }
    }

    /// Commits a proposal and adopts it; changes nothing on error. A mover whose time ran
    /// out is refused with [`Refusal::TimeOut`] once their loss on time is stored.
    async fn commit(&mut self, proposal: Proposal, received: Instant) -> Result<(), GameError> {
        let Proposal { change, adoption } = proposal;
        match adoption {
            Adoption::Action(played) => self.commit_action(change, played, received).await,
            Adoption::End { flagged_mover, .. } => {
                self.finish(Proposal { change, adoption }).await?;
                if flagged_mover {
                    return Err(Refusal::TimeOut.into());
                }
                Ok(())
            }
            Adoption::Start { .. } | Adoption::MoreTime { .. } => {
                self.commit_change(change).await?;
                let effects = self.state.adopt(adoption, self.now_ms());
                self.carry_out(effects);
                Ok(())
            }
            Adoption::Takeback(_) => {
                if let Err(e) = self.commit_change(change).await {
                    // If the commit went through but its answer was lost, the record is
                    // shorter than the game in memory: settled before the game goes on.
                    self.unsettled_takeback |= e.is_unavailable();
                    return Err(e.into());
                }
                let effects = self.state.adopt(adoption, self.now_ms());
                self.carry_out(effects);
                // A search under way was for a position that is gone.
                self.thinking = None;
                Ok(())
            }
        }
    }

    /// Stores an action (with the end it brings), then adopts and broadcasts it.
    async fn commit_action(
        &mut self,
        change: GameChange,
        played: Box<PlayedAction>,
        received: Instant,
    ) -> Result<(), GameError> {
        match self.commit_change(change).await {
            Ok(()) => {}
            // The ply is stored already. If with this very action, an earlier commit of it
            // went through but its answer was lost (the connection dropped after COMMIT),
            // and the game was left one ply behind its own record, refusing every move
            // after: the action is committed, so it is adopted now.
            Err(StoreError::DuplicatePly { .. })
                if self.stored_action(played.ply).await.as_deref()
                    == Some(played.machine.as_str()) => {}
            Err(e) => {
                if e.is_unavailable() || matches!(e, StoreError::DuplicatePly { .. }) {
                    self.unsettled_ply = Some(played.ply);
                }
                return Err(e.into());
            }
        }
        let effects = self.state.adopt(Adoption::Action(played), self.now_ms());
        self.carry_out(effects);
        self.ctx.metrics.record_action(received.elapsed());
        Ok(())
    }

    /// Stores an end without an action (resignation, flag, agreement, abort…), then
    /// adopts it. Nothing is announced or revealed unless the end is stored: on error the
    /// game goes on as it was.
    pub(super) async fn finish(&mut self, proposal: Proposal) -> Result<(), GameError> {
        let Proposal { change, adoption } = proposal;
        if let Err(e) = self.commit_change(change).await {
            let over_in_the_record = matches!(e, StoreError::NotFound);
            self.unsettled_end |= e.is_unavailable() || over_in_the_record;
            if over_in_the_record {
                // An earlier end was stored but its answer lost: the game takes it in.
                self.settle_end().await?;
                if let (Some(stored), Adoption::End { outcome, .. }) =
                    (self.state.outcome(), &adoption)
                {
                    return if stored == *outcome {
                        Ok(())
                    } else {
                        Err(Refusal::GameOver.into())
                    };
                }
            }
            return Err(e.into());
        }
        let effects = self.state.adopt(adoption, self.now_ms());
        self.carry_out(effects);
        Ok(())
    }

    /// If a commit left the next ply unsettled (see [`GameActor::unsettled_ply`]), reads
    /// what the store holds for it and adopts that action if there is one, as if it had
    /// just been played (time charged as now, which the outage's standstill keeps fair).
    ///
    /// # Errors
    /// The store cannot be read (the ply stays unsettled and nothing changes), or adopting
    /// the stored action failed.
    pub(super) async fn catch_up_with_store(&mut self) -> Result<(), GameError> {
        if self.unsettled_end {
            self.settle_end().await?;
        }
        if self.unsettled_takeback {
            self.settle_takeback().await?;
        }
        let ply = self.state.ply() + 1;
        if self.state.status() != GameStatus::Active || self.unsettled_ply != Some(ply) {
            return Ok(());
        }
        self.ctx.store.check_available()?;
        let stored_ply = i32::try_from(ply).unwrap_or(i32::MAX);
        let stored = self
            .ctx
            .store
            .stored_action(self.state.id(), stored_ply)
            .await;
        self.ctx.store.observe(&stored);
        let stored = stored?;
        self.unsettled_ply = None;
        if let Some(machine) = stored {
            tracing::warn!(
                ply,
                "adopting an action stored by a commit whose answer was lost"
            );
            // Committing it again finds the ply taken by this very action, and adopts it.
            let proposal = self.state.propose_stored(&machine, self.now_ms())?;
            self.commit(proposal, Instant::now()).await?;
        }
        Ok(())
    }

    /// Reads whether an end whose commit was cut off is in the record, and if it is, ends
    /// the game as stored.
    async fn settle_end(&mut self) -> Result<(), GameError> {
        self.ctx.store.check_available()?;
        let record = self.ctx.store.load_game(self.state.id()).await;
        self.ctx.store.observe(&record);
        let record = record?;
        self.unsettled_end = false;
        let stored_end = record
            .filter(|r| matches!(r.status, GameStatus::Finished | GameStatus::Aborted))
            .and_then(|r| r.outcome);
        if let Some(outcome) = stored_end {
            tracing::warn!("concluding with an end stored by a commit whose answer was lost");
            let effects = self.state.conclude(outcome, self.now_ms());
            self.carry_out(effects);
        }
        Ok(())
    }

    /// The machine notation stored for this game's `ply`, if any (None if the store cannot
    /// tell).
    async fn stored_action(&self, ply: u32) -> Option<String> {
        let ply = i32::try_from(ply).unwrap_or(i32::MAX);
        match self.ctx.store.stored_action(self.state.id(), ply).await {
            Ok(machine) => machine,
            Err(e) => {
                tracing::error!(cause = %e, "could not read a stored action");
                None
            }
        }
    }
}
