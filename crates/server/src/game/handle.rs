//! A game actor's address ([`GameHandle`]) and the commands it takes ([`GameCmd`]).

use super::{GameError, Outgoing, PlayerRequest, Seat};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

/// The stream a connection receives: the messages that bring it up to date, then every
/// later message, each of which the connection passes on only if it [`Outgoing::reaches`]
/// its viewer (a chat line is for one room).
pub struct Subscription {
    pub initial: Vec<Arc<str>>,
    pub events: broadcast::Receiver<Outgoing>,
}

/// Messages to a game actor. Each request carries its reply channel.
pub enum GameCmd {
    Join {
        seat: Seat,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    Subscribe {
        viewer: Option<Uuid>,
        since: Option<u64>,
        reply: oneshot::Sender<Subscription>,
    },
    Act {
        user_id: Uuid,
        ply: u32,
        action: String,
        received: tokio::time::Instant,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    Request {
        user_id: Uuid,
        request: PlayerRequest,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    /// A line of chat from this viewer (None: not signed in).
    Chat {
        viewer: Option<Uuid>,
        text: String,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    /// A connection of this viewer opened (true) or closed (false).
    Presence { viewer: Option<Uuid>, open: bool },
    /// The lobby paired the players: abort the game if one of them has not opened it
    /// within this long ([`crate::play::state::GameState::expect_players`]).
    ExpectPlayers { within: std::time::Duration },
    /// An operator aborted the game in the database (`oddboard admin abort-game`): end it
    /// as aborted without storing the end again.
    AbortedInStore,
    /// This node's lease on the game was taken by another node: stop at once.
    LeaseLost,
}

/// A cheap, cloneable address of one game's actor.
#[derive(Clone, Debug)]
pub struct GameHandle {
    pub(super) id: Uuid,
    pub(super) tx: mpsc::Sender<GameCmd>,
}

impl GameHandle {
    pub fn id(&self) -> Uuid {
        self.id
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> GameCmd,
    ) -> Result<T, GameError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(make(reply))
            .await
            .map_err(|_| GameError::Unavailable)?;
        answer.await.map_err(|_| GameError::Unavailable)
    }

    /// Takes the free seat of an open challenge.
    pub async fn join(&self, seat: Seat) -> Result<(), GameError> {
        self.ask(|reply| GameCmd::Join { seat, reply }).await?
    }

    /// Subscribes to the game's events, catching up from version `since` when possible.
    pub async fn subscribe(
        &self,
        viewer: Option<Uuid>,
        since: Option<u64>,
    ) -> Result<Subscription, GameError> {
        self.ask(|reply| GameCmd::Subscribe {
            viewer,
            since,
            reply,
        })
        .await
    }

    /// Plays an action for the player; resolves once it is committed and broadcast.
    pub async fn act(&self, user_id: Uuid, ply: u32, action: String) -> Result<(), GameError> {
        let received = tokio::time::Instant::now();
        self.ask(|reply| GameCmd::Act {
            user_id,
            ply,
            action,
            received,
            reply,
        })
        .await?
    }

    /// Resign, offers, abort and claims.
    pub async fn request(&self, user_id: Uuid, request: PlayerRequest) -> Result<(), GameError> {
        self.ask(|reply| GameCmd::Request {
            user_id,
            request,
            reply,
        })
        .await?
    }

    /// Writes a line in the viewer's chat room; resolves once it is stored and sent.
    pub async fn chat(&self, viewer: Option<Uuid>, text: String) -> Result<(), GameError> {
        self.ask(|reply| GameCmd::Chat {
            viewer,
            text,
            reply,
        })
        .await?
    }

    /// Asks the actor to abort the game unless both players have opened it within `within`.
    pub async fn expect_players(&self, within: std::time::Duration) {
        let _ = self.tx.send(GameCmd::ExpectPlayers { within }).await;
    }

    /// Tells the actor that the game was marked aborted in the store behind its back (by an
    /// operator), so it ends the game for its players too.
    pub async fn aborted_in_store(&self) {
        let _ = self.tx.send(GameCmd::AbortedInStore).await;
    }

    /// Tells the actor a connection opened or closed (never blocks the caller for long: a
    /// full queue means the game is busy and the message waits its turn).
    pub async fn presence(&self, viewer: Option<Uuid>, open: bool) {
        let _ = self.tx.send(GameCmd::Presence { viewer, open }).await;
    }
}
