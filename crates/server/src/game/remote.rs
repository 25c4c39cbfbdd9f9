//! A game another node runs, served here (docs/architecture.md, "Several nodes"): a task that
//! takes the same [`GameCmd`]s as a game actor, behind the same [`GameHandle`], and forwards
//! each to the running node over NATS ([`super::forwarding`]), answering once that node has.
//! Its subscribers get the game's relayed events, each from the version its catch-up ended
//! at, so none is missed or sent twice; one who would miss some (a relayed event lost) is
//! let go, and its client catches up afresh as after any dropped connection.
//!
//! The task ends when the running node says the game is not there (it moved, or ended and
//! stopped), or cannot be reached, or another node says it took the game over, or when
//! nobody has used it for [`IDLE`]: its sockets'
//! events end and their clients reconnect, to wherever the game runs then.

use super::forwarding::{events_subject, node_subject, GameRequest, Moved, Op, Relayed, Reply};
use super::{GameCmd, GameError, GameHandle, Games, Subscription};
use crate::play::{Audience, Outgoing};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

/// A proxy nobody has used for this long ends (a new request starts another).
const IDLE: Duration = Duration::from_secs(60);
/// How long a forwarded request may take: an action's answer waits for its commit.
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// How long the requests that commit nothing may take (relay, catch-up, presence): a running
/// node that does not answer these within it is gone or frozen, and the game is sought afresh.
const HANDSHAKE_WAIT: Duration = Duration::from_secs(3);
/// Relayed events a subscriber may fall behind by before it is let go.
const SUBSCRIBER_BUFFER: usize = 64;

/// One subscriber: its events, and the version it has.
struct Subscriber {
    sender: broadcast::Sender<Outgoing>,
    version: Option<u64>,
}

struct RemoteGame {
    game_id: Uuid,
    owner: String,
    client: async_nats::Client,
    subscribers: Vec<Subscriber>,
}

/// Starts serving game `game_id`, which node `owner` runs; None if NATS cannot be reached.
pub(super) async fn spawn(
    games: &Games,
    game_id: Uuid,
    owner: String,
    client: async_nats::Client,
) -> Option<GameHandle> {
    let events = client.subscribe(events_subject(game_id)).await.ok()?;
    // The subscription is known to NATS before the owner is asked to relay.
    client.flush().await.ok()?;
    let remote = RemoteGame {
        game_id,
        owner,
        client,
        subscribers: Vec::new(),
    };
    match remote.ask(Op::Relay).await {
        Ok(Reply::Done) => {}
        _ => return None,
    }
    let (tx, rx) = mpsc::channel(64);
    let handle = GameHandle { id: game_id, tx };
    tokio::spawn(remote.run(rx, events, games.clone()));
    Some(handle)
}

impl RemoteGame {
    /// Sends `op` to the running node and waits for its answer.
    async fn ask(&self, op: Op) -> Result<Reply, GameError> {
        let wait = match op {
            Op::Relay | Op::Subscribe { .. } | Op::Presence { .. } => HANDSHAKE_WAIT,
            _ => ANSWER_WAIT,
        };
        let request = GameRequest {
            game_id: self.game_id,
            op,
        };
        let body = serde_json::to_vec(&request).unwrap_or_default();
        let asked = self.client.request(node_subject(&self.owner), body.into());
        let answer = tokio::time::timeout(wait, asked)
            .await
            .map_err(|_| GameError::Unavailable)?
            .map_err(|_| GameError::Unavailable)?;
        serde_json::from_slice(&answer.payload).map_err(|_| GameError::Unavailable)
    }

    /// Forwards `op`; an error if refused, or the game is no longer there.
    async fn forward(&self, op: Op) -> Result<(), GameError> {
        match self.ask(op).await? {
            Reply::Done | Reply::Initial { .. } => Ok(()),
            Reply::Refused { code, message } => Err(GameError::remote(&code, message)),
            Reply::NotHere => Err(GameError::Unavailable),
        }
    }

    async fn run(
        mut self,
        mut commands: mpsc::Receiver<GameCmd>,
        mut events: async_nats::Subscriber,
        games: Games,
    ) {
        loop {
            tokio::select! {
                command = tokio::time::timeout(IDLE, commands.recv()) => match command {
                    Ok(Some(command)) => {
                        if !self.handle(command).await {
                            break;
                        }
                    }
                    // Every handle gone: nobody can ask any more.
                    Ok(None) => break,
                    // Idle and nobody watching: done.
                    Err(_) if self.subscribers.iter().all(|s| s.sender.receiver_count() == 0) => break,
                    Err(_) => {}
                },
                event = events.next() => match event {
                    Some(message) => {
                        if !self.pass_on(&message.payload) {
                            break;
                        }
                    }
                    None => break,
                },
            }
        }
        games.remote_ended(self.game_id);
        // Dropping the subscribers' senders ends their sockets' events.
    }

    /// Carries out one command; false when the game is no longer served from there.
    async fn handle(&mut self, command: GameCmd) -> bool {
        match command {
            GameCmd::Subscribe {
                viewer,
                since,
                reply,
            } => match self.ask(Op::Subscribe { viewer, since }).await {
                Ok(Reply::Initial { messages, version }) => {
                    let (sender, events) = broadcast::channel(SUBSCRIBER_BUFFER);
                    self.subscribers.push(Subscriber { sender, version });
                    let initial = messages.into_iter().map(Arc::from).collect();
                    let _ = reply.send(Subscription { initial, events });
                    true
                }
                // The reply channel dropped unanswered: the subscriber sees the game gone.
                _ => false,
            },
            GameCmd::Join { seat, reply } => {
                let op = Op::Join {
                    user_id: seat.user_id,
                    name: seat.name,
                };
                self.answer(op, reply).await
            }
            GameCmd::Act {
                user_id,
                ply,
                action,
                reply,
                ..
            } => {
                self.answer(
                    Op::Act {
                        user_id,
                        ply,
                        action,
                    },
                    reply,
                )
                .await
            }
            GameCmd::Request {
                user_id,
                request,
                reply,
            } => self.answer(Op::Request { user_id, request }, reply).await,
            GameCmd::Chat {
                viewer,
                text,
                reply,
            } => self.answer(Op::Chat { viewer, text }, reply).await,
            GameCmd::Presence { viewer, open } => {
                self.forward(Op::Presence { viewer, open }).await.is_ok()
            }
            GameCmd::ExpectPlayers { within } => {
                let within_ms = u64::try_from(within.as_millis()).unwrap_or(u64::MAX);
                self.forward(Op::ExpectPlayers { within_ms }).await.is_ok()
            }
            // The running node hears of these itself.
            GameCmd::AbortedInStore | GameCmd::LeaseLost => true,
        }
    }

    /// Forwards `op` and answers `reply`; false if the game is no longer served from there.
    async fn answer(
        &self,
        op: Op,
        reply: tokio::sync::oneshot::Sender<Result<(), GameError>>,
    ) -> bool {
        let result = self.forward(op).await;
        let gone = matches!(result, Err(GameError::Unavailable));
        let _ = reply.send(result);
        !gone
    }

    /// Passes one relayed event on to every subscriber whose catch-up did not cover it;
    /// false when another node took the game over (nothing more comes from this one).
    fn pass_on(&mut self, payload: &[u8]) -> bool {
        let Ok(relayed) = serde_json::from_slice::<Relayed>(payload) else {
            return match serde_json::from_slice::<Moved>(payload) {
                Ok(moved) => moved.moved_to == self.owner,
                Err(_) => true,
            };
        };
        let message = Outgoing {
            audience: Audience::from(relayed.audience),
            text: Arc::from(relayed.text),
        };
        self.subscribers.retain_mut(|subscriber| {
            if subscriber.sender.receiver_count() == 0 {
                return false;
            }
            if let Some(v) = relayed.version {
                match subscriber.version {
                    Some(had) if v <= had => return true,
                    // A relayed event was lost: this subscriber catches up afresh.
                    Some(had) if v > had + 1 => return false,
                    _ => subscriber.version = Some(v),
                }
            }
            subscriber.sender.send(message.clone()).is_ok()
        });
        true
    }
}
