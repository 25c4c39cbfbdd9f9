//! Any node serves any game (docs/architecture.md, "Several nodes"): a node that does not run
//! a game forwards what its players ask to the node that does, over NATS, and passes on the
//! game's events. This module is the wire and the running node's side; the other side is
//! [`super::remote`].
//!
//! - Requests go to the running node's subject `oddboard.node.<node>.game` (NATS
//!   request/reply), one [`GameRequest`] each; the answer is a [`Reply`], sent once the game
//!   has done it (an action once committed, as on one node).
//! - Events: on a [`Op::Relay`] request the running node publishes every message its game
//!   broadcasts, with its audience and version, on `oddboard.game.<id>.events`, until the
//!   game stops there. A node that takes a game over says so there ([`Moved`]).
//!
//! NATS carries no authority here: an action is acknowledged by the node that committed it.

use super::{GameError, Games, PlayerRequest, Seat};
use crate::play::{Audience, Outgoing};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

/// The subject a node answers game requests on.
pub fn node_subject(node_id: &str) -> String {
    format!("oddboard.node.{node_id}.game")
}

/// The subject a game's events are relayed on.
pub fn events_subject(game_id: Uuid) -> String {
    format!("oddboard.game.{}.events", game_id.simple())
}

/// One request for a game, from a node that does not run it.
#[derive(Debug, Serialize, Deserialize)]
pub struct GameRequest {
    pub game_id: Uuid,
    pub op: Op,
}

/// What is asked: the game handle's calls.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    Join {
        user_id: Uuid,
        name: String,
    },
    Subscribe {
        viewer: Option<Uuid>,
        since: Option<u64>,
    },
    Act {
        user_id: Uuid,
        ply: u32,
        action: String,
    },
    Request {
        user_id: Uuid,
        request: PlayerRequest,
    },
    Chat {
        viewer: Option<Uuid>,
        text: String,
    },
    Presence {
        viewer: Option<Uuid>,
        open: bool,
    },
    ExpectPlayers {
        within_ms: u64,
    },
    /// Start relaying the game's events (once; later asks change nothing).
    Relay,
}

/// The running node's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    Done,
    /// What brings a subscriber up to date, and the version of the last event it covers
    /// (events relayed up to it are not passed on again).
    Initial {
        messages: Vec<String>,
        version: Option<u64>,
    },
    Refused {
        code: String,
        message: String,
    },
    /// The game does not run here (any more): ask again where it runs.
    NotHere,
}

impl Reply {
    fn of(result: Result<(), GameError>) -> Reply {
        match result {
            Ok(()) => Reply::Done,
            Err(e) => Reply::Refused {
                code: e.code().to_string(),
                message: e.to_string(),
            },
        }
    }
}

/// One relayed event: the broadcast message, who it is for, and its version if it has one.
#[derive(Debug, Serialize, Deserialize)]
pub struct Relayed {
    pub audience: WireAudience,
    pub version: Option<u64>,
    pub text: String,
}

/// Published on a game's events subject by the node that took the game over: a proxy still
/// waiting for events from the node it came from ends, and its clients reconnect to wherever
/// the game runs now (no one else would tell it: the new node relays only when asked).
#[derive(Debug, Serialize, Deserialize)]
pub struct Moved {
    pub moved_to: String,
}

/// [`Audience`] on the wire.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "to", content = "ids", rename_all = "snake_case")]
pub enum WireAudience {
    Everyone,
    Only(Vec<Uuid>),
    AllBut(Vec<Uuid>),
}

impl From<&Audience> for WireAudience {
    fn from(audience: &Audience) -> WireAudience {
        match audience {
            Audience::Everyone => WireAudience::Everyone,
            Audience::Only(ids) => WireAudience::Only(ids.to_vec()),
            Audience::AllBut(ids) => WireAudience::AllBut(ids.to_vec()),
        }
    }
}

impl From<WireAudience> for Audience {
    fn from(audience: WireAudience) -> Audience {
        match audience {
            WireAudience::Everyone => Audience::Everyone,
            WireAudience::Only(ids) => Audience::Only(ids.into()),
            WireAudience::AllBut(ids) => Audience::AllBut(ids.into()),
        }
    }
}

/// The version of a broadcast message (its `"v"`), if it has one.
pub fn version_of(text: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct Versioned {
        v: Option<u64>,
    }
    serde_json::from_str::<Versioned>(text)
        .ok()
        .and_then(|m| m.v)
}

/// Answers other nodes' requests for the games this node runs, until the connection ends.
pub async fn serve(games: Games, client: async_nats::Client, node_id: String) {
    let mut requests = match client.subscribe(node_subject(&node_id)).await {
        Ok(requests) => requests,
        Err(e) => {
            tracing::error!(cause = %e, "cannot answer other nodes' game requests");
            return;
        }
    };
    let relayed: Arc<Mutex<HashSet<Uuid>>> = Arc::default();
    while let Some(message) = requests.next().await {
        let Some(reply_to) = message.reply.clone() else {
            continue;
        };
        let (games, client, relayed) = (games.clone(), client.clone(), Arc::clone(&relayed));
        tokio::spawn(async move {
            let reply = match serde_json::from_slice::<GameRequest>(&message.payload) {
                Ok(request) => answer(&games, &client, &relayed, request).await,
                Err(e) => Reply::Refused {
                    code: "bad_message".into(),
                    message: e.to_string(),
                },
            };
            let body = serde_json::to_vec(&reply).unwrap_or_default();
            if let Err(e) = client.publish(reply_to, body.into()).await {
                tracing::debug!(cause = %e, "could not answer a game request");
            }
        });
    }
}

/// Carries out one request on the game's local actor.
async fn answer(
    games: &Games,
    client: &async_nats::Client,
    relayed: &Arc<Mutex<HashSet<Uuid>>>,
    request: GameRequest,
) -> Reply {
    // Only a game this node runs itself: never another node's (that would loop).
    let Some(handle) = games.get(request.game_id) else {
        return Reply::NotHere;
    };
    match request.op {
        Op::Join { user_id, name } => Reply::of(handle.join(Seat { user_id, name }).await),
        Op::Subscribe { viewer, since } => match handle.subscribe(viewer, since).await {
            Ok(subscription) => {
                let version = subscription
                    .initial
                    .iter()
                    .rev()
                    .find_map(|m| version_of(m));
                Reply::Initial {
                    messages: subscription.initial.iter().map(|m| m.to_string()).collect(),
                    version,
                }
            }
            Err(e) => Reply::of(Err(e)),
        },
        Op::Act {
            user_id,
            ply,
            action,
        } => Reply::of(handle.act(user_id, ply, action).await),
        Op::Request { user_id, request } => Reply::of(handle.request(user_id, request).await),
        Op::Chat { viewer, text } => Reply::of(handle.chat(viewer, text).await),
        Op::Presence { viewer, open } => {
            handle.presence(viewer, open).await;
            Reply::Done
        }
        Op::ExpectPlayers { within_ms } => {
            handle
                .expect_players(std::time::Duration::from_millis(within_ms))
                .await;
            Reply::Done
        }
        Op::Relay => {
            let fresh = relayed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(request.game_id);
            if fresh {
                match handle.subscribe(None, None).await {
                    Ok(subscription) => {
                        // The relay holds the events only, not the game's address, so the
                        // game still hibernates when nobody asks for it.
                        drop(handle);
                        tokio::spawn(relay(
                            request.game_id,
                            subscription.events,
                            client.clone(),
                            Arc::clone(relayed),
                        ));
                    }
                    Err(e) => {
                        relayed
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .remove(&request.game_id);
                        return Reply::of(Err(e));
                    }
                }
            }
            Reply::Done
        }
    }
}

/// Publishes every message the game broadcasts until the game stops here.
async fn relay(
    game_id: Uuid,
    mut events: tokio::sync::broadcast::Receiver<Outgoing>,
    client: async_nats::Client,
    relayed: Arc<Mutex<HashSet<Uuid>>>,
) {
    let subject = events_subject(game_id);
    loop {
        match events.recv().await {
            Ok(message) => {
                let relayed = Relayed {
                    audience: (&message.audience).into(),
                    version: version_of(&message.text),
                    text: message.text.to_string(),
                };
                let body = serde_json::to_vec(&relayed).unwrap_or_default();
                if client.publish(subject.clone(), body.into()).await.is_err() {
                    break;
                }
            }
            // Too far behind: the other nodes' subscribers see a gap and catch up afresh.
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
        }
    }
    relayed
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&game_id);
}
