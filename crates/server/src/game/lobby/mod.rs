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

mod actor;

pub use crate::play::lobby::{
    command, state, ChallengeView, FingerView, GameStartedView, LobbyCmd, LobbyRefusal, LobbyReply,
    LobbySettings, LobbyUser, MatchRequest, PlayTarget, RatingView, ReplyData, SeekRequest,
    SeekView, SettingName, Which, HISTORY_LINES, MAX_INC, MAX_RATING, MAX_SEEKS, MAX_TIME,
};

use super::{GameError, Games};
use crate::play::Refusal;
use crate::rules::Variant;
use crate::store::{RatingHistoryEntry, Store, StoreError};
use std::fmt;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// Why the lobby did not carry out a command: its rules refused it ([`LobbyRefusal`]), or the
/// game it would start, the store or the lobby's actor failed.
#[derive(Debug)]
pub enum LobbyError {
    Refused(LobbyRefusal),
    Game(GameError),
    Store(StoreError),
    /// The lobby actor is gone (shutting down).
    Unavailable,
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
        }
    }
}

impl std::error::Error for LobbyError {}

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
}

/// The lobby's counts (`GET /api/lobby/stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct LobbyStats {
    /// Distinct players with a lobby connection open or seated in a game in progress.
    pub players_online: usize,
    /// Games in progress (open challenges nobody has taken are not).
    pub games_in_play: usize,
}

/// Commands queued for the lobby actor before senders wait.
const QUEUE: usize = 256;

/// A cheap, cloneable address of the lobby actor.
#[derive(Clone)]
pub struct LobbyHandle {
    tx: mpsc::Sender<LobbyMsg>,
    store: Store,
}

impl LobbyHandle {
    /// Starts the lobby actor; it runs until every handle is dropped.
    pub fn spawn(games: Games, settings: LobbySettings) -> LobbyHandle {
        let (tx, rx) = mpsc::channel(QUEUE);
        let store = games.store().clone();
        tokio::spawn(actor::run(games, settings, rx));
        LobbyHandle { tx, store }
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<T, LobbyError>>) -> LobbyMsg,
    ) -> Result<T, LobbyError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(make(reply))
            .await
            .map_err(|_| LobbyError::Unavailable)?;
        answer.await.map_err(|_| LobbyError::Unavailable)?
    }

    /// Opens a lobby connection for `user`: the first event is the `lobby` snapshot.
    ///
    /// # Errors
    /// The lobby is gone, or the user's data cannot be loaded.
    pub async fn connect(&self, user: LobbyUser) -> Result<LobbyConnection, LobbyError> {
        self.ask(|reply| LobbyMsg::Connect { user, reply }).await
    }

    /// Closes a connection; the user's seeks and challenges go when the last one closes.
    pub async fn disconnect(&self, user_id: Uuid, connection: u64) {
        let _ = self
            .tx
            .send(LobbyMsg::Disconnect {
                user_id,
                connection,
            })
            .await;
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
                self.ask(|reply| LobbyMsg::Command {
                    user,
                    command,
                    reply,
                })
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
        self.ask(|reply| LobbyMsg::Seeks { viewer, all, reply })
            .await
    }

    /// How many players are online and games in play.
    ///
    /// # Errors
    /// The lobby is gone.
    pub async fn stats(&self) -> Result<LobbyStats, LobbyError> {
        self.ask(|reply| LobbyMsg::Stats { reply }).await
    }

    /// A user by name, any case.
    async fn user_named(&self, name: &str) -> Result<crate::store::User, LobbyError> {
        find_user(&self.store, name).await
    }

    /// Games in progress.
    async fn games(&self) -> Result<LobbyReply, LobbyError> {
        let games = self.store.active_games(200).await?;
        Ok(LobbyReply {
            text: command::games_text(&games),
            data: ReplyData::Games { games },
        })
    }

    /// A user's last games.
    async fn history(&self, name: &str) -> Result<LobbyReply, LobbyError> {
        let user = self.user_named(name).await?;
        let games = self
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
        let ratings = self.store.ratings(user.user_id).await?;
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
        let history = self.store.rating_history(user.user_id, variant).await?;
        Ok((user.username, history))
    }
}
