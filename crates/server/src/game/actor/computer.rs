//! The computer's side of a game it plays: after every change the actor asks whether it is
//! the computer's turn, and if so starts one search on the engine pool; the action found
//! comes back to the actor's loop and is played through [`GameActor::act`], checked and
//! committed like a person's. A search whose turn has passed (the game ended, was aborted or
//! flagged meanwhile) is cancelled and its answer dropped. The computer declines draw offers
//! and accepts rematches and, in unrated games, takebacks, as lichess's computer does.

use super::GameActor;
use crate::engine_pool::PoolError;
use crate::game::Refusal;
use crate::game::{computer, GameError, PlayerRequest};
use crate::store::GameStatus;
use oddboard_engine::Cancel;
use rand::Rng;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use uuid::Uuid;

/// How long to wait before asking a full engine pool again.
const POOL_RETRY: Duration = Duration::from_millis(200);

/// A search under way for the computer's action at `ply`.
pub(super) struct Thinking {
    ply: u32,
    cancel: Cancel,
    task: JoinHandle<Result<Option<String>, PoolError>>,
}

impl Drop for Thinking {
    fn drop(&mut self) {
        // Whoever drops a search no longer wants its answer: free its thread at once.
        self.cancel.cancel();
    }
}

/// The computer's action for the ply the search was for, once it is found; never, if no
/// search is under way.
pub(super) async fn thought(
    thinking: &mut Option<Thinking>,
) -> (u32, Result<Option<String>, PoolError>) {
    match thinking {
        Some(t) => {
            let found = (&mut t.task).await.unwrap_or(Err(PoolError::Closed));
            (t.ply, found)
        }
        None => std::future::pending().await,
    }
}

impl GameActor {
    /// The computer's account in this game, if it plays in it. The state learns it the
    /// first time: from then on that seat is never away. Seats are settled once the game has
    /// started, so a game between people is looked at once, not on every action.
    fn computer_in_game(&mut self) -> Option<Uuid> {
        if let Some(id) = self.state.resident() {
            return Some(id);
        }
        if self.no_computer || self.state.status() == GameStatus::Waiting {
            return None;
        }
        let computers = self.ctx.computers();
        let found = (self.state.players().into_iter()).find(|id| computers.is_computer(*id));
        match found {
            Some(id) => self.state.set_resident(id),
            None => self.no_computer = true,
        }
        found
    }

    /// Starts or drops the computer's search as the game now stands, and answers offers
    /// made to it.
    pub(super) async fn let_the_computer_play(&mut self) {
        let Some(computer) = self.computer_in_game() else {
            return;
        };
        self.answer_offers(computer).await;
        let now = self.now_ms();
        if self.state.waiting_to_retry(now) {
            // A commit failed a moment ago: the deadline of the retry wakes the actor.
            self.thinking = None;
            return;
        }
        let seed: [u8; 32] = rand::thread_rng().gen();
        let Some(turn) = self.state.computer_turn(now, seed) else {
            self.thinking = None;
            return;
        };
        if self.thinking.as_ref().is_some_and(|t| t.ply == turn.ply) {
            return;
        }
        let Some(level) = self.ctx.computers().level_of(computer) else {
            return;
        };
        let pool = self.ctx.engine_pool().clone();
        let cancel = Cancel::new();
        let ply = turn.ply;
        let search_cancel = cancel.clone();
        let search_seed = rand::thread_rng().gen();
        let task = tokio::spawn(async move {
            loop {
                let found = computer::choose(
                    &pool,
                    level,
                    turn.clone(),
                    search_seed,
                    search_cancel.clone(),
                )
                .await;
                if found != Err(PoolError::Busy) || search_cancel.is_cancelled() {
                    return found;
                }
                tokio::time::sleep(POOL_RETRY).await;
            }
        });
        self.thinking = Some(Thinking { ply, cancel, task });
    }

    /// Plays the action the computer found for `ply`.
    pub(super) async fn computer_found(
        &mut self,
        ply: u32,
        found: Result<Option<String>, PoolError>,
    ) {
        self.thinking = None;
        let Some(computer) = self.state.resident() else {
            return;
        };
        let action = match found {
            Ok(Some(action)) => action,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(cause = %e, "the computer could not search");
                self.state.retry_later(self.now_ms());
                return;
            }
        };
        match self.act(computer, ply, &action, Instant::now()).await {
            Ok(()) => {}
            // The game moved on while it thought (an end, an abort): nothing to play.
            Err(GameError::Refused(
                Refusal::GameOver
                | Refusal::WrongPly { .. }
                | Refusal::NotYourTurn
                | Refusal::TimeOut,
            )) => {}
            Err(e) => {
                tracing::error!(cause = %e, action, "the computer's action failed");
                self.state.retry_later(self.now_ms());
            }
        }
    }

    /// Declines a draw offer and accepts a rematch or takeback offer made to the computer.
    async fn answer_offers(&mut self, computer: Uuid) {
        let Some(color) = self.state.seat_of(computer) else {
            return;
        };
        let opponent = Some(color.other());
        let answer = if self.state.draw_offer() == opponent && !self.state.is_over() {
            PlayerRequest::DeclineDraw
        } else if self.state.takeback_offer() == opponent && !self.state.rated() {
            // As lichess's computer does in unrated games (all of ours are): the search
            // under way, if any, is dropped with the position it was for.
            PlayerRequest::AcceptTakeback
        } else if self.state.rematch_offer() == opponent && self.state.is_over() {
            PlayerRequest::AcceptRematch
        } else {
            return;
        };
        if let Err(e) = self.request(computer, answer).await {
            tracing::warn!(cause = %e, ?answer, "the computer could not answer an offer");
        }
    }
}
