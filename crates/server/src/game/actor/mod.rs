//! The game actor: a tokio task around one [`GameState`], doing its I/O and nothing else.
//!
//! Each command is asked of the state, which answers with what to commit (a
//! [`crate::play::state::Proposal`]) or what to tell (an
//! [`crate::play::state::Effects`]); the actor commits through the group-commit writer,
//! waits for the commit, has the state adopt it, then broadcasts. A failed commit therefore
//! changes nothing and nobody was told anything. The state's next deadline is the timer the
//! actor sleeps on.
//!
//! Time: the actor's milliseconds count from its start on the store's time
//! ([`crate::store::StoreHealth::running_ms`]), which stands still while PostgreSQL is
//! away: clocks, deadlines and delays are all measured on it, so no flag falls and no limit
//! runs out during an outage, when nobody can act.

mod chat;
mod commit;
mod computer;
mod context;
mod spawn;
mod takeback;
#[cfg(test)]
mod tests;

pub use context::{GameContext, GameStore, PostgresGameStore};
pub(super) use spawn::{spawn_new, spawn_restored};

use super::{GameCmd, Outgoing, Subscription};
use crate::play::state::{Effects, GameState};
use crate::rules::{EndReason, Outcome};
use crate::store::{GameChange, GameStatus, StoreError};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

/// Commands a game's queue holds before senders wait.
const COMMAND_QUEUE: usize = 64;
/// Events buffered per subscriber before a slow one is told to resync (it then starts again
/// from a snapshot). A socket forwards each event as it comes, so a few suffice; the channel
/// also keeps its last messages until they are overwritten, which on a finished game is
/// memory held for nothing.
const BROADCAST_BUFFER: usize = 16;

struct GameActor {
    ctx: GameContext,
    state: GameState,
    /// Everything live goes out here, each message tagged with who it is for.
    sender: broadcast::Sender<Outgoing>,
    /// The zero of the actor's time scale, on the store's time.
    epoch: u64,
    /// A ply whose commit failed in a way that leaves it unknown whether it was stored: the
    /// store went away, or the ply turned out taken by another action. If the connection
    /// broke after PostgreSQL committed, the action is in the record but not in memory; so
    /// before the game goes on, the actor reads what the store holds for that ply and adopts
    /// it ([`GameActor::catch_up_with_store`]).
    unsettled_ply: Option<u32>,
    /// Whether the commit of an end (a resignation, a flag…) failed with the store away,
    /// so that the game may be over in the record but not in memory; settled the same way.
    unsettled_end: bool,
    /// Whether the commit of a takeback failed with the store away, so that the record may
    /// have lost actions that memory still holds; settled by [`GameActor::settle_takeback`].
    unsettled_takeback: bool,
    /// The computer's search for its next action, when it plays here and it is its turn.
    thinking: Option<computer::Thinking>,
    /// The game has started and the computer holds no seat in it.
    no_computer: bool,
    /// Another node took the game over (a commit was fenced, or the lease was lost): the
    /// actor stops at once and its sockets reconnect, to wherever the game runs now.
    moved: bool,
}

impl GameActor {
    fn new(ctx: GameContext, state: GameState) -> GameActor {
        let (sender, _) = broadcast::channel(BROADCAST_BUFFER);
        let epoch = ctx.store.running_ms();
        GameActor {
            ctx,
            state,
            sender,
            epoch,
            unsettled_ply: None,
            unsettled_end: false,
            unsettled_takeback: false,
            thinking: None,
            no_computer: false,
            moved: false,
        }
    }

    fn spawn(self) -> super::GameHandle {
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        let handle = super::GameHandle {
            id: self.state.id(),
            tx,
        };
        tokio::spawn(self.run(rx));
        handle
    }

    fn now_ms(&self) -> u64 {
        self.ctx.store.running_ms().saturating_sub(self.epoch)
    }

    /// When the actor's time reaches `ms`, if PostgreSQL stays available meanwhile. If it
    /// goes away, the actor wakes early by the length of the outage, finds the deadline not
    /// yet due, and sleeps again.
    fn instant_at(&self, ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms.saturating_sub(self.now_ms()))
    }

    /// Carries out a state change's effects: the registry's part, then the broadcast.
    fn carry_out(&self, mut effects: Effects) {
        self.ctx.carry_out(self.state.id(), &mut effects);
        for message in effects.broadcast {
            // No receivers is fine: nobody is watching right now.
            let _ = self.sender.send(Outgoing::everyone(message));
        }
    }

    #[tracing::instrument(name = "game", skip_all, fields(game_id = %self.state.id()))]
    async fn run(mut self, mut rx: mpsc::Receiver<GameCmd>) {
        // A resumed game may stop where the rules force an action that was not stored
        // before the server went down (a Chazz pass).
        self.play_forced_actions().await;
        if let Err(e) = self.read_stored_chat().await {
            tracing::warn!(cause = %e, "could not read the game's chat; trying again later");
        }
        let mut hibernated = false;
        while !self.moved {
            self.let_the_computer_play().await;
            let deadline = self.state.next_deadline();
            let sleep_until = self.instant_at(deadline.unwrap_or(0));
            let spectators_due = self.state.spectators_due();
            let spectators_at = self.instant_at(spectators_due.unwrap_or(0));
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => {
                        self.state.command_received(self.now_ms());
                        self.handle(command).await;
                        // Connections, or a spectator taking a seat, may change the count.
                        self.state.note_spectators(self.now_ms());
                    }
                    None => break,
                },
                () = tokio::time::sleep_until(spectators_at), if spectators_due.is_some() => {
                    self.spectators_due();
                }
                (ply, found) = computer::thought(&mut self.thinking) => {
                    self.computer_found(ply, found).await;
                }
                () = tokio::time::sleep_until(sleep_until), if deadline.is_some() => {
                    // The game's own deadlines first: one that ends it also keeps it awake.
                    if self.on_deadline().await {
                        break;
                    }
                    let now = self.now_ms();
                    if self.state.hibernation_due_at().is_some_and(|at| now >= at) {
                        if self.thinking.is_none() && self.ctx.hibernate(self.state.id(), &rx) {
                            hibernated = true;
                            break;
                        }
                        // Someone holds the game's address, a request on its way, or the
                        // computer's action is on its way: another try once that has settled.
                        self.state.command_received(now);
                    }
                }
            }
        }
        if self.moved {
            // Not the game's end: it goes on on the node that took it. Its sockets see the
            // events end and reconnect.
            tracing::info!("another node runs the game now; letting it go");
            self.ctx
                .metrics
                .games_moved
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.ctx
                .let_go(self.state.id(), self.state.status() == GameStatus::Active);
            return;
        }
        if hibernated {
            // Out of the registry already, and still in progress (and counted so) in the
            // store, from which the next request for it brings it back.
            tracing::debug!("hibernated");
            return;
        }
        if self.state.status() == GameStatus::Active {
            // Shutting down mid-game: the game stays unfinished in the database and is
            // restored at the next start.
            self.carry_out(Effects {
                in_progress_delta: -1,
                ..Effects::default()
            });
        }
        self.ctx.deregister(self.state.id());
    }

    /// Handles a passed deadline; returns true when the actor should stop.
    async fn on_deadline(&mut self) -> bool {
        let now = self.now_ms();
        if self.state.is_over() {
            return self.state.lingered(now);
        }
        if self.state.waiting_to_retry(now) {
            return false;
        }
        if let Err(e) = self.catch_up_with_store().await {
            // Nothing is decided against a record the actor cannot read: a flag may not fall
            // before the action that would have stopped the clock.
            tracing::error!(cause = %e, "could not read the game's record; trying again");
            self.state.retry_later(now);
            return false;
        }
        self.play_forced_actions().await;
        if let Some(end) = self.state.deadline_end(now) {
            if let Err(e) = self.finish(end).await {
                tracing::error!(cause = %e, "could not store the game's end; trying again");
                self.state.retry_later(now);
            }
        }
        false
    }

    /// Commits one change with the epoch this node holds (if any); a change refused because
    /// another node took the game over marks the actor to stop.
    async fn commit_change(&mut self, change: GameChange) -> Result<(), StoreError> {
        let result = self.ctx.store.commit(change, self.ctx.fence).await;
        if matches!(result, Err(StoreError::Fenced { .. })) {
            self.moved = true;
        }
        result
    }

    async fn handle(&mut self, command: GameCmd) {
        match command {
            GameCmd::Join { seat, reply } => {
                let _ = reply.send(self.join(seat).await);
            }
            GameCmd::Subscribe {
                viewer,
                since,
                reply,
            } => {
                // A resumed game whose chat could not be read at its start tries again, unless
                // the store is known to be away (a connection does not wait for it).
                let _ = self.read_stored_chat().await;
                let events = self.sender.subscribe();
                let initial = self.state.catch_up(viewer, since, self.now_ms());
                let _ = reply.send(Subscription { initial, events });
            }
            GameCmd::Act {
                user_id,
                ply,
                action,
                received,
                reply,
            } => {
                let _ = reply.send(self.act(user_id, ply, &action, received).await);
            }
            GameCmd::Request {
                user_id,
                request,
                reply,
            } => {
                let _ = reply.send(self.request(user_id, request).await);
            }
            GameCmd::Chat {
                viewer,
                text,
                reply,
            } => {
                let _ = reply.send(self.chat(viewer, &text).await);
            }
            GameCmd::Presence { viewer, open } => {
                let effects = self.state.presence(viewer, open, self.now_ms());
                self.carry_out(effects);
            }
            GameCmd::ExpectPlayers { within } => {
                self.state.expect_players(self.now_ms(), within);
            }
            GameCmd::LeaseLost => self.moved = true,
            GameCmd::AbortedInStore => {
                let effects = self
                    .state
                    .conclude(Outcome::draw(EndReason::Aborted), self.now_ms());
                self.carry_out(effects);
            }
        }
    }
}
