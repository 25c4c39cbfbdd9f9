//! The lobby over several nodes (docs/architecture.md, "Several nodes"): one node at a time
//! runs the lobby's actor, the one holding the lease `lobby` ([`crate::cluster::leases`]), and
//! every other node reaches it over NATS. Any node takes the lease when nobody holds it (at
//! the start, within a second of its holder giving it up at SIGTERM, or once a dead holder's
//! lease lapses), so the lobby moves with no operator.
//!
//! - **Requests** go to the running node's subject `oddboard.node.<node>.lobby`, one
//!   [`LobbyRequest`] each (NATS request/reply), answered with a [`LobbyAnswer`] once the actor
//!   has done it: a seek posted on one node is answered from another by the same actor.
//! - **Connections**: a socket on another node gets a connection in the actor like any other;
//!   the running node publishes its events on a subject the socket's node chose, and an
//!   empty message when it ends it. The socket's node says every second which of its
//!   connections are open ([`LobbyRequest::Alive`]) and closes those the actor no longer has;
//!   the actor drops those not confirmed for a while (their node died).
//! - **Game notices**: every node publishes its games' starts and ends on
//!   `oddboard.lobby.notices`; the node that runs the lobby passes them to its actor.
//!
//! The lobby's state (seeks, challenges, presence) lives in the running node's memory, as
//! FICS's did: when the lobby moves, its sockets end, their clients reconnect to a fresh
//! lobby, and seeks are posted again. What it writes (settings, noplay lists) and the games it
//! starts are in PostgreSQL, the games fenced by their own leases.

use super::{
    ask, LobbyCmd, LobbyConnection, LobbyError, LobbyHandle, LobbyMsg, LobbyReply, LobbyStats,
    LobbyUser, Route, SeekView,
};
use crate::cluster::leases::wall_ms;
use crate::cluster::{Acquired, Cluster, Lease, Leases, LEASE_TTL, RENEW_EVERY};
use crate::game::GameNotice;
use bytes::Bytes;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::mpsc;
use uuid::Uuid;

/// How many times a request looks for the lobby's node (it may be moving) before it fails.
pub(super) const ROUTE_TRIES: usize = 4;
/// The pause before looking again.
const RETRY_PAUSE: Duration = Duration::from_millis(500);
/// How long a request may take: a command may start a game (a commit and a lease).
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// How long the bookkeeping requests may take (alive, disconnect, release).
const HANDSHAKE_WAIT: Duration = Duration::from_secs(3);
/// Events buffered for a socket here before it is let go (as on the running node).
const CONNECTION_BUFFER: usize = 256;
/// Where every node publishes its game notices.
const NOTICES_SUBJECT: &str = "oddboard.lobby.notices";

/// The subject a node answers lobby requests on.
fn node_subject(node_id: &str) -> String {
    format!("oddboard.node.{node_id}.lobby")
}

/// The subject a socket's events are published on, chosen by the socket's node.
fn connection_subject(node_id: &str, connection: u64) -> String {
    format!("oddboard.lobby.connection.{node_id}.{connection}")
}

/// One request for the lobby, from a node that does not run it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(super) enum LobbyRequest {
    /// Open a connection whose events go to `events_to`.
    Connect {
        user: LobbyUser,
        events_to: String,
    },
    Disconnect {
        user_id: Uuid,
        connection: u64,
    },
    Command {
        user: LobbyUser,
        command: LobbyCmd,
    },
    Stats,
    Seeks {
        viewer: Option<LobbyUser>,
        all: bool,
    },
    /// These connections of the asking node are still open.
    Alive {
        connections: Vec<u64>,
    },
}

/// The running node's answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub(super) enum LobbyAnswer {
    Connected {
        connection: u64,
    },
    Reply {
        reply: LobbyReply,
    },
    Stats {
        stats: LobbyStats,
    },
    Seeks {
        seeks: Vec<SeekView>,
    },
    /// Of the connections asked about, those the actor still has.
    Alive {
        known: Vec<u64>,
    },
    Done,
    Refused {
        code: String,
        message: String,
    },
    /// The lobby does not run here (any more): ask again where it runs.
    NotHere,
}

/// A game notice and the node it happened on.
#[derive(Serialize, Deserialize)]
struct NoticeFrom {
    node: String,
    notice: GameNotice,
}

pub(super) fn encode<T: Serialize>(message: &T) -> Bytes {
    Bytes::from(serde_json::to_vec(message).unwrap_or_default())
}

/// A socket here whose connection is in another node's actor.
struct RemoteConnection {
    owner: String,
    owner_connection: u64,
    /// Passes the owner's events on to the socket; aborted to end the connection here.
    task: tokio::task::AbortHandle,
}

/// This node's part in sharing the lobby.
pub(super) struct LobbyNode {
    cluster: Cluster,
    /// The lobby's lease while this node holds it.
    lease: Mutex<Option<Lease>>,
    /// Until when (wall clock, ms) the lease surely lasts: its last renewal plus
    /// [`LEASE_TTL`]. Past it the actor here takes no request, since another node may run
    /// the lobby by then (this one froze, or lost NATS).
    held_until_ms: AtomicU64,
    /// Where game notices go to the actor while it runs here.
    actor_notices: Mutex<Option<mpsc::UnboundedSender<GameNotice>>>,
    /// This node's sockets on another node's lobby, by their connection id here.
    remotes: Mutex<HashMap<u64, RemoteConnection>>,
    /// The node last read as the lobby's holder, and until when (wall clock, ms) to send
    /// there without asking NATS again: otherwise every lobby call on a node that does not
    /// run the lobby read the lease first. A holder that is gone or has moved answers
    /// [`LobbyAnswer::NotHere`], which forgets it ([`LobbyNode::retry_later`]).
    known_holder: Mutex<Option<(String, u64)>>,
    /// One claim of the lease at a time.
    claiming: tokio::sync::Mutex<()>,
    /// The node is stopping: it takes the lobby no more.
    stopping: AtomicBool,
}

/// Locks `mutex`; what these guard is written in one step, so a panic elsewhere cannot
/// leave it half-done.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl LobbyNode {
    pub(super) fn new(cluster: Cluster) -> LobbyNode {
        LobbyNode {
            cluster,
            lease: Mutex::default(),
            held_until_ms: AtomicU64::new(0),
            actor_notices: Mutex::default(),
            remotes: Mutex::default(),
            known_holder: Mutex::default(),
            claiming: tokio::sync::Mutex::new(()),
            stopping: AtomicBool::new(false),
        }
    }

    fn lease_live(&self) -> bool {
        wall_ms() < self.held_until_ms.load(Ordering::Acquire)
    }

    fn me(&self) -> &str {
        self.cluster.node_id()
    }

    /// Believes `node` holds the lobby for a lease's length from `now`.
    fn remember_holder(&self, node: &str, now: u64) {
        *lock(&self.known_holder) = Some((node.to_string(), now + LEASE_TTL.as_millis() as u64));
    }

    /// The remembered holder, while it is believed.
    fn believed_holder(&self, now: u64) -> Option<String> {
        lock(&self.known_holder)
            .as_ref()
            .filter(|(node, until)| now < *until && node != self.me())
            .map(|(node, _)| node.clone())
    }

    /// Where a request goes: the actor here while this node's lease lasts, else the node
    /// that holds the lease, else here after taking it.
    pub(super) async fn route(&self, lobby: &LobbyHandle) -> Result<Route, LobbyError> {
        if let Some(tx) = lobby.local_sender() {
            // A lease past its time is being found out by `keep`: refuse meanwhile.
            return if self.lease_live() {
                Ok(Route::Here(tx))
            } else {
                Err(LobbyError::Unavailable)
            };
        }
        let now = wall_ms();
        if let Some(node) = self.believed_holder(now) {
            return Ok(Route::There(node));
        }
        match self.cluster.leases().holder(Leases::LOBBY_KEY, now).await {
            Ok(Some(node)) if node != self.me() => {
                self.remember_holder(&node, now);
                Ok(Route::There(node))
            }
            Ok(_) => self.claim(lobby).await,
            Err(e) => {
                tracing::debug!(cause = %e, "cannot find the lobby: NATS is away");
                Err(LobbyError::Unavailable)
            }
        }
    }

    /// Takes the lobby's lease and starts the actor here, unless another node holds it.
    async fn claim(&self, lobby: &LobbyHandle) -> Result<Route, LobbyError> {
        let _one = self.claiming.lock().await;
        if self.stopping.load(Ordering::Acquire) {
            return Err(LobbyError::Unavailable);
        }
        if let Some(tx) = lobby.local_sender() {
            return Ok(Route::Here(tx));
        }
        let now = wall_ms();
        match self.cluster.leases().acquire(Leases::LOBBY_KEY, now).await {
            Ok(Acquired::Taken(lease)) => {
                self.held_until_ms
                    .store(now + LEASE_TTL.as_millis() as u64, Ordering::Release);
                *lock(&self.lease) = Some(lease);
                let (sender, notices) = mpsc::unbounded_channel();
                *lock(&self.actor_notices) = Some(sender);
                tracing::info!("this node runs the lobby");
                Ok(Route::Here(lobby.start_actor(notices)))
            }
            Ok(Acquired::HeldBy(node)) if !node.is_empty() => Ok(Route::There(node)),
            Ok(Acquired::HeldBy(_)) => Err(LobbyError::Unavailable),
            Err(e) => {
                tracing::warn!(cause = %e, "cannot take the lobby's lease: NATS is away");
                Err(LobbyError::Unavailable)
            }
        }
    }

    /// Stops running the lobby here: its connections end, and their clients reconnect.
    fn lose(&self, lobby: &LobbyHandle, why: &str) {
        let held = lock(&self.lease).take().is_some();
        self.held_until_ms.store(0, Ordering::Release);
        lock(&self.actor_notices).take();
        lobby.stop_actor();
        if held {
            tracing::warn!(why, "this node no longer runs the lobby");
        }
    }

    /// Gives the lobby up for good (the node is stopping): the lease goes back at once, so
    /// that another node takes it within a second.
    pub(super) async fn hand_over(&self, lobby: &LobbyHandle) {
        self.stopping.store(true, Ordering::Release);
        let _one = self.claiming.lock().await;
        let lease = lock(&self.lease).take();
        self.held_until_ms.store(0, Ordering::Release);
        lock(&self.actor_notices).take();
        lobby.stop_actor();
        if let Some(lease) = lease {
            let release = self.cluster.leases().release(lease);
            match tokio::time::timeout(HANDSHAKE_WAIT, release).await {
                Ok(Ok(())) => tracing::info!("handed the lobby over"),
                _ => tracing::warn!("could not give the lobby's lease back; it lapses"),
            }
        }
    }

    /// Renews the lease this node holds, or takes the lobby if nobody holds it.
    async fn keep_lease(&self, lobby: &LobbyHandle) {
        let held = lock(&self.lease).clone();
        let Some(mut lease) = held else {
            let now = wall_ms();
            match self.cluster.leases().holder(Leases::LOBBY_KEY, now).await {
                Ok(Some(node)) if node != self.me() => self.remember_holder(&node, now),
                Ok(None) => {
                    lock(&self.known_holder).take();
                    let _ = self.claim(lobby).await;
                }
                _ => {}
            }
            return;
        };
        let now = wall_ms();
        match self.cluster.leases().renew(&mut lease, now).await {
            Ok(true) => {
                let mut held = lock(&self.lease);
                // Not if it was given up meanwhile.
                if let Some(held) = held.as_mut() {
                    *held = lease;
                    self.held_until_ms
                        .store(now + LEASE_TTL.as_millis() as u64, Ordering::Release);
                }
            }
            Ok(false) => self.lose(lobby, "another node took the lobby over"),
            Err(e) => {
                if self.lease_live() {
                    tracing::warn!(cause = %e, "could not renew the lobby's lease");
                } else {
                    self.lose(lobby, "the lobby's lease lapsed: NATS is away");
                }
            }
        }
    }

    fn tell_actor(&self, notice: GameNotice) {
        if let Some(sender) = lock(&self.actor_notices).as_ref() {
            let _ = sender.send(notice);
        }
    }

    /// Sends a request to node `owner` and waits for its answer. A node that is gone
    /// answers [`LobbyAnswer::NotHere`], so that the caller looks again.
    pub(super) async fn request(
        &self,
        owner: &str,
        body: Bytes,
    ) -> Result<LobbyAnswer, LobbyError> {
        let asked = self.cluster.client().request(node_subject(owner), body);
        match tokio::time::timeout(ANSWER_WAIT, asked).await {
            Ok(Ok(message)) => {
                serde_json::from_slice(&message.payload).map_err(|_| LobbyError::Unavailable)
            }
            Ok(Err(e)) if e.kind() == async_nats::RequestErrorKind::NoResponders => {
                Ok(LobbyAnswer::NotHere)
            }
            Ok(Err(e)) => {
                tracing::debug!(cause = %e, "a lobby request failed");
                Err(LobbyError::Unavailable)
            }
            Err(_) => Err(LobbyError::Unavailable),
        }
    }

    /// After a [`LobbyAnswer::NotHere`]: forgets the holder it was sent to, and pauses
    /// before the caller looks again.
    pub(super) async fn retry_later(&self) {
        lock(&self.known_holder).take();
        tokio::time::sleep(RETRY_PAUSE).await;
    }

    /// Opens a connection for `user` in the lobby node `owner` runs, whose events reach the
    /// socket here. None: the lobby is not there (any more).
    pub(super) async fn connect(
        &self,
        lobby: &LobbyHandle,
        owner: &str,
        user: &LobbyUser,
    ) -> Result<Option<LobbyConnection>, LobbyError> {
        let client = self.cluster.client();
        let id = lobby.inner.connection_ids.fetch_add(1, Ordering::Relaxed) + 1;
        let subject = connection_subject(self.me(), id);
        let unavailable = |_| LobbyError::Unavailable;
        let mut events_in = client
            .subscribe(subject.clone())
            .await
            .map_err(unavailable)?;
        // Known to NATS before the owner sends the snapshot.
        client.flush().await.map_err(|_| LobbyError::Unavailable)?;
        let request = LobbyRequest::Connect {
            user: user.clone(),
            events_to: subject,
        };
        let owner_connection = match self.request(owner, encode(&request)).await? {
            LobbyAnswer::Connected { connection } => connection,
            LobbyAnswer::NotHere => return Ok(None),
            LobbyAnswer::Refused { code, message } => {
                return Err(LobbyError::remote(&code, message))
            }
            _ => return Err(LobbyError::Unavailable),
        };
        let (tx, events) = mpsc::channel(CONNECTION_BUFFER);
        let task = tokio::spawn(async move {
            while let Some(message) = events_in.next().await {
                // Empty: the owner ended the connection.
                let Ok(text) = std::str::from_utf8(&message.payload) else {
                    break;
                };
                // Full: too far behind, let go as on the owner; closed: the socket is gone.
                if text.is_empty() || tx.try_send(Arc::from(text)).is_err() {
                    break;
                }
            }
        });
        lock(&self.remotes).insert(
            id,
            RemoteConnection {
                owner: owner.to_string(),
                owner_connection,
                task: task.abort_handle(),
            },
        );
        Ok(Some(LobbyConnection { id, events }))
    }

    /// Closes connection `connection` if it is one of this node's on another node's lobby
    /// (and tells that node); false if it is not.
    pub(super) fn disconnect(&self, user_id: Uuid, connection: u64) -> bool {
        let Some(remote) = lock(&self.remotes).remove(&connection) else {
            return false;
        };
        remote.task.abort();
        let request = encode(&LobbyRequest::Disconnect {
            user_id,
            connection: remote.owner_connection,
        });
        let client = self.cluster.client().clone();
        let subject = node_subject(&remote.owner);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(HANDSHAKE_WAIT, client.request(subject, request)).await;
        });
        true
    }

    /// Tells each node whose lobby this node's sockets are on which are still open, and
    /// ends those it no longer has: all of them if it is gone or runs the lobby no more.
    async fn confirm_remotes(&self) {
        let mut by_owner: HashMap<String, Vec<u64>> = HashMap::new();
        for remote in lock(&self.remotes).values() {
            by_owner
                .entry(remote.owner.clone())
                .or_default()
                .push(remote.owner_connection);
        }
        for (owner, asked) in by_owner {
            let request = encode(&LobbyRequest::Alive {
                connections: asked.clone(),
            });
            let asked_at = self.cluster.client().request(node_subject(&owner), request);
            let known: HashSet<u64> = match tokio::time::timeout(HANDSHAKE_WAIT, asked_at).await {
                Ok(Ok(message)) => match serde_json::from_slice(&message.payload) {
                    Ok(LobbyAnswer::Alive { known }) => known.into_iter().collect(),
                    _ => HashSet::new(),
                },
                _ => HashSet::new(),
            };
            let asked: HashSet<u64> = asked.into_iter().collect();
            lock(&self.remotes).retain(|_, remote| {
                let ended = remote.owner == owner
                    && asked.contains(&remote.owner_connection)
                    && !known.contains(&remote.owner_connection);
                if ended {
                    remote.task.abort();
                }
                !ended
            });
        }
    }
}

/// Starts this node's part: passing game notices on, answering other nodes' requests while
/// it runs the lobby, and keeping the lease (or taking it when nobody holds it).
pub(super) fn start(lobby: &LobbyHandle) {
    // Taken now, before any game is restored, so that no start or end goes unheard.
    let notices = lobby.inner.games.notices();
    tokio::spawn(pass_notices(lobby.clone(), notices));
    tokio::spawn(serve(lobby.clone()));
    tokio::spawn(keep(lobby.clone()));
}

/// Publishes this node's game notices for the node that runs the lobby, and gives the
/// actor here, while it runs here, its own node's and the others'.
async fn pass_notices(lobby: LobbyHandle, mut local: mpsc::UnboundedReceiver<GameNotice>) {
    let Some(node) = lobby.inner.node.as_ref() else {
        return;
    };
    let client = node.cluster.client().clone();
    let mut others = match client.subscribe(NOTICES_SUBJECT).await {
        Ok(others) => others,
        Err(e) => {
            tracing::error!(cause = %e, "cannot hear other nodes' game notices");
            return;
        }
    };
    loop {
        tokio::select! {
            notice = local.recv() => {
                let Some(notice) = notice else { return };
                let from = NoticeFrom { node: node.me().to_string(), notice };
                if let Err(e) = client.publish(NOTICES_SUBJECT, encode(&from)).await {
                    tracing::debug!(cause = %e, "could not publish a game notice");
                }
                node.tell_actor(from.notice);
            }
            message = others.next() => {
                let Some(message) = message else { return };
                match serde_json::from_slice::<NoticeFrom>(&message.payload) {
                    Ok(from) if from.node != node.me() => node.tell_actor(from.notice),
                    Ok(_) => {}
                    Err(e) => tracing::debug!(cause = %e, "an unreadable game notice"),
                }
            }
        }
    }
}

/// Renews or takes the lobby's lease and confirms this node's remote connections, every
/// [`RENEW_EVERY`], until the node stops.
async fn keep(lobby: LobbyHandle) {
    let Some(node) = lobby.inner.node.as_ref() else {
        return;
    };
    let mut ticks = tokio::time::interval(RENEW_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if node.stopping.load(Ordering::Acquire) {
            return;
        }
        node.keep_lease(&lobby).await;
        node.confirm_remotes().await;
    }
}

/// Answers other nodes' lobby requests while the lobby runs here.
async fn serve(lobby: LobbyHandle) {
    let Some(node) = lobby.inner.node.as_ref() else {
        return;
    };
    let client = node.cluster.client().clone();
    let mut requests = match client.subscribe(node_subject(node.me())).await {
        Ok(requests) => requests,
        Err(e) => {
            tracing::error!(cause = %e, "cannot answer other nodes' lobby requests");
            return;
        }
    };
    while let Some(message) = requests.next().await {
        let Some(reply_to) = message.reply.clone() else {
            continue;
        };
        let (lobby, client) = (lobby.clone(), client.clone());
        tokio::spawn(async move {
            let answer = match serde_json::from_slice::<LobbyRequest>(&message.payload) {
                Ok(request) => answer(&lobby, &client, request).await,
                Err(e) => LobbyAnswer::Refused {
                    code: "bad_message".into(),
                    message: e.to_string(),
                },
            };
            if let Err(e) = client.publish(reply_to, encode(&answer)).await {
                tracing::debug!(cause = %e, "could not answer a lobby request");
            }
        });
    }
}

/// Carries out one request on the actor here.
async fn answer(
    lobby: &LobbyHandle,
    client: &async_nats::Client,
    request: LobbyRequest,
) -> LobbyAnswer {
    let live = lobby.inner.node.as_ref().is_some_and(LobbyNode::lease_live);
    let Some(tx) = lobby.local_sender().filter(|_| live) else {
        return LobbyAnswer::NotHere;
    };
    let answered = match request {
        LobbyRequest::Connect { user, events_to } => {
            let connect = |reply| LobbyMsg::Connect {
                user,
                remote: true,
                reply,
            };
            ask(&tx, connect).await.map(|connection| {
                tokio::spawn(relay(connection.events, client.clone(), events_to));
                LobbyAnswer::Connected {
                    connection: connection.id,
                }
            })
        }
        LobbyRequest::Disconnect {
            user_id,
            connection,
        } => {
            let disconnect = LobbyMsg::Disconnect {
                user_id,
                connection,
            };
            let _ = tx.send(disconnect).await;
            Ok(LobbyAnswer::Done)
        }
        LobbyRequest::Command { user, command } => {
            let command = |reply| LobbyMsg::Command {
                user,
                command,
                reply,
            };
            ask(&tx, command)
                .await
                .map(|reply| LobbyAnswer::Reply { reply })
        }
        LobbyRequest::Stats => ask(&tx, |reply| LobbyMsg::Stats { reply })
            .await
            .map(|stats| LobbyAnswer::Stats { stats }),
        LobbyRequest::Seeks { viewer, all } => {
            ask(&tx, |reply| LobbyMsg::Seeks { viewer, all, reply })
                .await
                .map(|seeks| LobbyAnswer::Seeks { seeks })
        }
        LobbyRequest::Alive { connections } => {
            ask(&tx, |reply| LobbyMsg::Alive { connections, reply })
                .await
                .map(|known| LobbyAnswer::Alive { known })
        }
    };
    answered.unwrap_or_else(|e| match e {
        // The actor stopped meanwhile: the lobby moved.
        LobbyError::Unavailable => LobbyAnswer::NotHere,
        e => LobbyAnswer::Refused {
            code: e.code().to_string(),
            message: e.to_string(),
        },
    })
}

/// Publishes a remote connection's events on its subject until the actor ends the
/// connection, then says so with an empty message.
async fn relay(mut events: mpsc::Receiver<Arc<str>>, client: async_nats::Client, subject: String) {
    while let Some(event) = events.recv().await {
        let body = Bytes::copy_from_slice(event.as_bytes());
        if client.publish(subject.clone(), body).await.is_err() {
            break;
        }
    }
    let _ = client.publish(subject, Bytes::new()).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::lobby::{ReplyData, SeekRequest};

    /// Every request and answer crosses NATS as JSON: each must come back as it went.
    #[test]
    fn requests_and_answers_survive_the_wire() {
        let user = LobbyUser {
            user_id: Uuid::from_u128(7),
            name: "alice".into(),
            registered: true,
        };
        let seek = SeekRequest {
            time: Some(5),
            inc: Some(3),
            rated: Some(true),
            manual: true,
            ..SeekRequest::default()
        };
        let request = LobbyRequest::Command {
            user: user.clone(),
            command: LobbyCmd::Seek(seek.clone()),
        };
        let back: LobbyRequest = serde_json::from_slice(&encode(&request)).unwrap_or_else(|e| {
            panic!("{e}");
        });
        match back {
            LobbyRequest::Command { user: u, command } => {
                assert_eq!(u, user);
                assert_eq!(command, LobbyCmd::Seek(seek));
            }
            other => panic!("came back as {other:?}"),
        }
        let answer = LobbyAnswer::Reply {
            reply: LobbyReply {
                text: "Your seeks have been removed.".into(),
                data: ReplyData::Unseeked { ids: vec![1, 3] },
            },
        };
        let back: LobbyAnswer = serde_json::from_slice(&encode(&answer)).unwrap_or_else(|e| {
            panic!("{e}");
        });
        match back {
            LobbyAnswer::Reply { reply } => {
                assert_eq!(reply.data, ReplyData::Unseeked { ids: vec![1, 3] });
            }
            other => panic!("came back as {other:?}"),
        }
    }
}
