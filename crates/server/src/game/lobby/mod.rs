//! The lobby: seeks, challenges, pairing, formulas and presence, owned by one actor
//! ([`LobbyHandle`] → `actor::LobbyActor`) so that every race (two `play`s of one seek, a
//! user's seeks pairing at once, an accept against a pairing) is decided by the order in
//! which the actor takes its messages.
//!
//! The pure lobby is `oddboard_play::lobby` ([`LobbyState`](state::LobbyState), the FICS
//! commands in [`command`], [`LobbyRefusal`]): seeks, challenges, users, formulas, presence
//! and the FICS matching rules (see `docs/protocol.md`, "Lobby"). Here is the task around it,
//! doing its I/O (store, game creation, sending): `actor`, reached through [`LobbyHandle`].
//!
//! Games are started through [`Games::create_started`]; the lobby learns about every other
//! game start (rematches, open challenges) and end from [`Games::notices`], removes the
//! players' seeks and challenges when a game starts for them, and reloads ratings when a game
//! ends. Read-only commands (`games`, `history`, `finger`) go straight to the store.
//!
//! On a node of a cluster one node at a time runs the actor, the one holding the lobby's
//! lease, and every other node forwards to it ([`cluster`]).

mod actor;
mod cluster;

pub use crate::play::lobby::{
    command, state, ChallengeView, FingerView, GameStartedView, LobbyCmd, LobbyRefusal, LobbyReply,
    LobbySettings, LobbyUser, MatchRequest, PlayTarget, RatingView, ReplyData, SeekRequest,
    SeekView, SettingName, Which, HISTORY_LINES, MAX_INC, MAX_RATING, MAX_SEEKS, MAX_TIME,
};

use super::{GameError, GameNotice, Games};
use crate::play::Refusal;
use crate::rules::Variant;
use crate::store::{RatingHistoryEntry, Store, StoreError};
use std::fmt;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// Why the lobby did not carry out a command: its rules refused it ([`LobbyRefusal`]), or the
/// game it would start, the store or the lobby's actor failed.
#[derive(Debug)]
pub enum LobbyError {
    Refused(LobbyRefusal),
    Game(GameError),
    Store(StoreError),
    /// The lobby actor is gone (shutting down), or, on a node of a cluster, no node holds
    /// the lobby that can be reached.
    Unavailable,
    /// The node that runs the lobby refused: its code and message.
    Remote {
        code: &'static str,
        message: String,
    },
}

impl LobbyError {
    /// The stable code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            LobbyError::Refused(refusal) => refusal.code(),
            LobbyError::Game(e) => e.code(),
            LobbyError::Store(e) if e.is_unavailable() => "store_unavailable",
            LobbyError::Store(_) => "internal",
            LobbyError::Unavailable => "lobby_unavailable",
            LobbyError::Remote { code, .. } => code,
        }
    }
}

impl fmt::Display for LobbyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LobbyError::Refused(refusal) => refusal.fmt(f),
            LobbyError::Game(e) => write!(f, "The game could not be created: {e}."),
            LobbyError::Store(e) if e.is_unavailable() => {
                f.write_str("The database is unavailable; try again shortly.")
            }
            LobbyError::Store(_) => f.write_str("Something went wrong on our side; try again."),
            LobbyError::Unavailable => f.write_str("The lobby is not available right now."),
            LobbyError::Remote { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for LobbyError {}

impl LobbyError {
    /// A refusal the node that runs the lobby sent back.
    fn remote(code: &str, message: String) -> LobbyError {
        LobbyError::Remote {
            code: crate::game::error::intern_code(code, "lobby_unavailable"),
            message,
        }
    }
}

/// Sends the actor at `tx` the message `make` builds and waits for its answer.
async fn ask<T>(
    tx: &mpsc::Sender<LobbyMsg>,
    make: impl FnOnce(Reply<T>) -> LobbyMsg,
) -> Result<T, LobbyError> {
    let (reply, answer) = oneshot::channel();
    tx.send(make(reply))
        .await
        .map_err(|_| LobbyError::Unavailable)?;
    answer.await.map_err(|_| LobbyError::Unavailable)?
}

impl From<LobbyRefusal> for LobbyError {
    fn from(refusal: LobbyRefusal) -> Self {
        LobbyError::Refused(refusal)
    }
}

impl From<StoreError> for LobbyError {
    fn from(e: StoreError) -> Self {
        LobbyError::Store(e)
    }
}

impl From<GameError> for LobbyError {
    fn from(e: GameError) -> Self {
        LobbyError::Game(e)
    }
}

impl From<Refusal> for LobbyError {
    fn from(refusal: Refusal) -> Self {
        LobbyError::Game(GameError::Refused(refusal))
    }
}

/// A user by name, any case.
///
/// # Errors
/// [`LobbyRefusal::UnknownUser`] (also for a name no account can have, such as one with a NUL,
/// which the database would refuse), store failures.
async fn find_user(store: &Store, name: &str) -> Result<crate::store::User, LobbyError> {
    if name.contains('\0') {
        return Err(LobbyRefusal::UnknownUser(name.replace('\0', "")).into());
    }
    store
        .user_by_name(name)
        .await?
        .ok_or_else(|| LobbyRefusal::UnknownUser(name.to_string()).into())
}

/// One lobby connection's stream: the snapshot first, then live events (serialized JSON).
pub struct LobbyConnection {
    pub id: u64,
    pub events: mpsc::Receiver<Arc<str>>,
}

enum LobbyMsg {
    Connect {
        user: LobbyUser,
        /// Made for another node's socket, which must say it is alive ([`LobbyMsg::Alive`]).
        remote: bool,
        reply: oneshot::Sender<Result<LobbyConnection, LobbyError>>,
    },
    Disconnect {
        user_id: Uuid,
        connection: u64,
    },
    Command {
        user: LobbyUser,
        command: LobbyCmd,
        reply: oneshot::Sender<Result<LobbyReply, LobbyError>>,
    },
    /// How many players are online and games in play.
    Stats {
        reply: oneshot::Sender<Result<LobbyStats, LobbyError>>,
    },
    /// The seeks a viewer (or an anonymous one) sees.
    Seeks {
        viewer: Option<LobbyUser>,
        all: bool,
        reply: oneshot::Sender<Result<Vec<SeekView>, LobbyError>>,
    },
    /// Another node's connections still open there: answered with those the actor still
    /// has. A remote connection not confirmed for a while is dropped (its node died).
    Alive {
        connections: Vec<u64>,
        reply: oneshot::Sender<Result<Vec<u64>, LobbyError>>,
    },
}

/// The lobby's counts (`GET /api/lobby/stats`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
pub struct LobbyStats {
    /// Distinct players with a lobby connection open or seated in a game in progress.
    pub players_online: usize,
    /// Games in progress (open challenges nobody has taken are not).
    pub games_in_play: usize,
}

/// Commands queued for the lobby actor before senders wait.
const QUEUE: usize = 256;

/// A cheap, cloneable address of the lobby: its actor on this node, or, on a node of a
/// cluster that does not hold the lobby's lease, the node that does.
#[derive(Clone)]
pub struct LobbyHandle {
    inner: Arc<LobbyInner>,
}

struct LobbyInner {
    store: Store,
    games: Games,
    settings: LobbySettings,
    /// The actor's queue while it runs here: always on one node; on a node of a cluster,
    /// while this node holds the lobby's lease.
    local: Mutex<Option<mpsc::Sender<LobbyMsg>>>,
    /// The last connection id given out here, by any actor or proxy this node ran: ids are
    /// never reused, so a late `disconnect` never closes someone else's connection.
    connection_ids: Arc<AtomicU64>,
    /// On a node of a cluster, its part in sharing the lobby.
    node: Option<cluster::LobbyNode>,
}

/// Where a lobby request goes.
enum Route {
    Here(mpsc::Sender<LobbyMsg>),
    /// The node that runs the lobby.
    There(String),
}

/// A reply slot of the actor.
type Reply<T> = oneshot::Sender<Result<T, LobbyError>>;

impl LobbyHandle {
    /// Starts the lobby: its actor, or on a node of a cluster (`games` joined one) the tasks
    /// by which the node runs or reaches the lobby. Runs until the process ends.
    pub fn spawn(games: Games, settings: LobbySettings) -> LobbyHandle {
        let node = games
            .ownership()
            .map(|ownership| cluster::LobbyNode::new(ownership.cluster().clone()));
        let clustered = node.is_some();
        let handle = LobbyHandle {
            inner: Arc::new(LobbyInner {
                store: games.store().clone(),
                games: games.clone(),
                settings,
                local: Mutex::default(),
                connection_ids: Arc::default(),
                node,
            }),
        };
        if clustered {
            cluster::start(&handle);
        } else {
            handle.start_actor(games.notices());
        }
        handle
    }

    fn local(&self) -> std::sync::MutexGuard<'_, Option<mpsc::Sender<LobbyMsg>>> {
        // One sender: a panic elsewhere cannot leave it half-written.
        self.inner.local.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn local_sender(&self) -> Option<mpsc::Sender<LobbyMsg>> {
        self.local().clone()
    }

    /// Starts the actor on this node, hearing of game starts and ends from `notices`; it
    /// stops when `notices` ends or its queue's last sender goes.
    fn start_actor(&self, notices: mpsc::UnboundedReceiver<GameNotice>) -> mpsc::Sender<LobbyMsg> {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(actor::run(actor::Setup {
            games: self.inner.games.clone(),
            settings: self.inner.settings.clone(),
            rx,
            notices,
            connection_ids: Arc::clone(&self.inner.connection_ids),
            count_every_node: self.inner.node.is_some(),
        }));
        *self.local() = Some(tx.clone());
        tx
    }

    /// Stops the actor on this node, if it runs here: its connections end, and their
    /// clients reconnect to wherever the lobby runs next.
    fn stop_actor(&self) {
        self.local().take();
    }

    /// Gives the lobby up as this node stops, so that another node runs it within about a
    /// second (on one node: nothing to do).
    pub async fn hand_over(&self) {
        if let Some(node) = &self.inner.node {
            node.hand_over(self).await;
        }
    }

    /// Where a request goes now.
    async fn route(&self) -> Result<Route, LobbyError> {
        match &self.inner.node {
            None => self
                .local_sender()
                .map(Route::Here)
                .ok_or(LobbyError::Unavailable),
            Some(node) => node.route(self).await,
        }
    }

    /// Asks the actor, wherever it runs: `make` builds the message for an actor here,
    /// `request` the request for another node, whose answer `take` reads.
    async fn call<T>(
        &self,
        make: impl FnOnce(Reply<T>) -> LobbyMsg,
        request: impl FnOnce() -> cluster::LobbyRequest,
        take: fn(cluster::LobbyAnswer) -> Option<T>,
    ) -> Result<T, LobbyError> {
        let mut request = Some(request);
        let mut body = None;
        for _ in 0..cluster::ROUTE_TRIES {
            match self.route().await? {
                Route::Here(tx) => return ask(&tx, make).await,
                Route::There(owner) => {
                    let Some(node) = &self.inner.node else {
                        return Err(LobbyError::Unavailable);
                    };
                    if body.is_none() {
                        body = request.take().map(|request| cluster::encode(&request()));
                    }
                    let Some(body) = body.clone() else {
                        return Err(LobbyError::Unavailable);
                    };
                    match node.request(&owner, body).await? {
                        cluster::LobbyAnswer::NotHere => node.retry_later().await,
                        cluster::LobbyAnswer::Refused { code, message } => {
                            return Err(LobbyError::remote(&code, message))
                        }
                        answer => return take(answer).ok_or(LobbyError::Unavailable),
                    }
                }
            }
        }
        Err(LobbyError::Unavailable)
    }

    /// Opens a lobby connection for `user`: the first event is the `lobby` snapshot.
    ///
    /// # Errors
    /// The lobby is gone, or the user's data cannot be loaded.
    pub async fn connect(&self, user: LobbyUser) -> Result<LobbyConnection, LobbyError> {
        for _ in 0..cluster::ROUTE_TRIES {
            match self.route().await? {
                Route::Here(tx) => {
                    return ask(&tx, |reply| LobbyMsg::Connect {
                        user,
                        remote: false,
                        reply,
                    })
                    .await
                }
                Route::There(owner) => {
                    let Some(node) = &self.inner.node else {
                        break;
                    };
                    match node.connect(self, &owner, &user).await? {
                        Some(connection) => return Ok(connection),
                        None => node.retry_later().await,
                    }
                }
            }
        }
        Err(LobbyError::Unavailable)
    }

    /// Closes a connection; the user's seeks and challenges go when the last one closes.
    pub async fn disconnect(&self, user_id: Uuid, connection: u64) {
        if let Some(node) = &self.inner.node {
            if node.disconnect(user_id, connection) {
                return;
            }
        }
        if let Some(tx) = self.local_sender() {
            let _ = tx
                .send(LobbyMsg::Disconnect {
                    user_id,
                    connection,
                })
                .await;
        }
    }

    /// Runs one command for `user`.
    ///
    /// # Errors
    /// The command is refused: see [`LobbyError`].
    pub async fn command(
        &self,
        user: LobbyUser,
        command: LobbyCmd,
    ) -> Result<LobbyReply, LobbyError> {
        match command {
            LobbyCmd::Games => self.games().await,
            LobbyCmd::History(name) => self.history(name.as_deref().unwrap_or(&user.name)).await,
            LobbyCmd::Finger(name) => {
                let finger = self.finger(name.as_deref().unwrap_or(&user.name)).await?;
                Ok(LobbyReply {
                    text: command::finger_text(&finger),
                    data: ReplyData::Finger { finger },
                })
            }
            LobbyCmd::Help => Ok(LobbyReply {
                text: command::HELP.to_string(),
                data: ReplyData::Help,
            }),
            command => {
                let request = {
                    let (user, command) = (user.clone(), command.clone());
                    || cluster::LobbyRequest::Command { user, command }
                };
                self.call(
                    |reply| LobbyMsg::Command {
                        user,
                        command,
                        reply,
                    },
                    request,
                    |answer| match answer {
                        cluster::LobbyAnswer::Reply { reply } => Some(reply),
                        _ => None,
                    },
                )
                .await
            }
        }
    }

    /// Runs one text command line for `user`.
    ///
    /// # Errors
    /// The line does not parse, or the command is refused.
    pub async fn command_line(
        &self,
        user: LobbyUser,
        line: &str,
    ) -> Result<LobbyReply, LobbyError> {
        let command = command::parse_line(line)?;
        self.command(user, command).await
    }

    /// The open seeks `viewer` is eligible for (`all`: every seek).
    ///
    /// # Errors
    /// The lobby is gone.
    pub async fn seeks(
        &self,
        viewer: Option<LobbyUser>,
        all: bool,
    ) -> Result<Vec<SeekView>, LobbyError> {
        let request = {
            let viewer = viewer.clone();
            move || cluster::LobbyRequest::Seeks { viewer, all }
        };
        self.call(
            |reply| LobbyMsg::Seeks { viewer, all, reply },
            request,
            |answer| match answer {
                cluster::LobbyAnswer::Seeks { seeks } => Some(seeks),
                _ => None,
            },
        )
        .await
    }

    /// How many players are online and games in play.
    ///
    /// # Errors
    /// The lobby is gone.
    pub async fn stats(&self) -> Result<LobbyStats, LobbyError> {
        self.call(
            |reply| LobbyMsg::Stats { reply },
            || cluster::LobbyRequest::Stats,
            |answer| match answer {
                cluster::LobbyAnswer::Stats { stats } => Some(stats),
                _ => None,
            },
        )
        .await
    }

    /// A user by name, any case.
    async fn user_named(&self, name: &str) -> Result<crate::store::User, LobbyError> {
        find_user(&self.inner.store, name).await
    }

    /// Games in progress.
    async fn games(&self) -> Result<LobbyReply, LobbyError> {
        let games = self.inner.store.active_games(200).await?;
        Ok(LobbyReply {
            text: command::games_text(&games),
            data: ReplyData::Games { games },
        })
    }

    /// A user's last games.
    async fn history(&self, name: &str) -> Result<LobbyReply, LobbyError> {
        let user = self.user_named(name).await?;
        let games = self
            .inner
            .store
            .user_games(&user.username, None, None, HISTORY_LINES, 0)
            .await?;
        Ok(LobbyReply {
            text: command::history_text(&user.username, &games),
            data: ReplyData::History {
                user: user.username,
                games,
            },
        })
    }

    /// `finger`: a user's ratings per variant and rated results.
    ///
    /// # Errors
    /// [`LobbyRefusal::UnknownUser`], store failures.
    pub async fn finger(&self, name: &str) -> Result<FingerView, LobbyError> {
        let user = self.user_named(name).await?;
        let ratings = self.inner.store.ratings(user.user_id).await?;
        Ok(FingerView {
            user: user.username,
            registered: !user.is_guest,
            created_at: user.created_at,
            rated_games: ratings.iter().map(|r| r.games).sum(),
            ratings: ratings.iter().map(RatingView::from).collect(),
        })
    }

    /// A user's rating after each rated game, oldest first.
    ///
    /// # Errors
    /// [`LobbyRefusal::UnknownUser`], store failures.
    pub async fn rating_history(
        &self,
        name: &str,
        variant: Option<Variant>,
    ) -> Result<(String, Vec<RatingHistoryEntry>), LobbyError> {
        let user = self.user_named(name).await?;
        let history = self
            .inner
            .store
            .rating_history(user.user_id, variant)
            .await?;
        Ok((user.username, history))
    }
}
