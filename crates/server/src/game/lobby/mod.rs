//! The lobby: seeks, challenges, pairing, formulas and presence, owned by one actor
//! ([`LobbyHandle`] → `actor::LobbyActor`) so that every race (two `play`s of one seek, a
//! user's seeks pairing at once, an accept against a pairing) is decided by the order in
//! which the actor takes its messages.
//!
//! - [`command`]: the FICS-style text commands (`seek 5 0 rated chazz`) and the JSON
//!   messages (`crate::wire::lobby`) turned into one typed [`LobbyCmd`]; the text of replies.
//! - `state`: the lobby as plain state: seeks, challenges, users, formulas, presence and
//!   the FICS matching rules (see `docs/protocol.md`, "Lobby"), one file per group of commands.
//! - `actor`: the task around the state, doing its I/O (store, game creation, sending).
//!
//! Games are started through [`Games::create_started`]; the lobby learns about every other
//! game start (rematches, open challenges) and end from [`Games::notices`], removes the
//! players' seeks and challenges when a game starts for them, and reloads ratings when a game
//! ends. Read-only commands (`games`, `history`, `finger`) go straight to the store.

mod actor;
pub mod command;
mod state;

use super::formula::FormulaError;
use super::{GameError, Games};
use crate::rules::Variant;
use crate::store::{RatingHistoryEntry, RatingRecord, Store, StoreError};
pub use crate::wire::lobby::{
    ChallengeView, FingerView, GameStartedView, MatchRequest, RatingView, ReplyData, SeekRequest,
    SeekView,
};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// At most this many open seeks per user (FatICS's limit).
pub const MAX_SEEKS: usize = 3;
/// Longest time and increment a seek or match may ask for (minutes, seconds).
pub const MAX_TIME: u32 = 180;
pub const MAX_INC: u32 = 180;
/// The highest rating a seek's range may name (FICS's); the lowest is 0.
pub const MAX_RATING: i64 = 9999;
/// How many lines `history` shows.
pub const HISTORY_LINES: i64 = 10;

/// Timings of the lobby; shorter in tests.
///
/// A user's seeks and challenges never outlive their last lobby connection: they go the
/// moment it closes (`docs/protocol.md`, "Seeks and matching").
#[derive(Clone, Debug)]
pub struct LobbySettings {
    /// How long the lobby keeps a user with no lobby connection loaded (ratings, settings,
    /// formulas), so that a page reload does not read them again.
    pub forget_after: Duration,
    /// How long a seek number rests before it is handed out again (FICS: 90 s).
    pub seek_number_reuse: Duration,
    /// How long each player of a game the lobby paired has to open it before it is aborted
    /// (far less than the first-move limit: a pairing is meant to be played at once).
    pub join_limit: Duration,
    /// How long the list of a user's seeks that went when they left waits for them to come
    /// back (it is sent as a `notice` on their next lobby connection).
    pub missed_notice_keep: Duration,
}

impl Default for LobbySettings {
    fn default() -> Self {
        LobbySettings {
            forget_after: Duration::from_secs(5),
            seek_number_reuse: Duration::from_secs(90),
            join_limit: Duration::from_secs(15),
            missed_notice_keep: Duration::from_secs(60 * 60),
        }
    }
}

/// A signed-in user as the lobby needs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobbyUser {
    pub user_id: Uuid,
    pub name: String,
    /// Registered account (not a guest).
    pub registered: bool,
}

/// Which challenge `accept`, `decline` and `withdraw` mean: a number, the other user's name,
/// or every one. None: the only one there is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    Id(u32),
    User(String),
    All,
}

/// What `play` responds to: a seek number or the seeker's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayTarget {
    Seek(u32),
    User(String),
}

/// A lobby setting (`set <name> <value>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingName {
    Time,
    Inc,
    Variant,
    /// The formula (0) or f1..f9.
    Formula(u8),
}

/// Every lobby command, whichever form it arrived in (text or JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LobbyCmd {
    Seek(SeekRequest),
    /// One seek, or all of the user's.
    Unseek(Option<u32>),
    /// The seeks the user is eligible for, or every seek.
    Sought {
        all: bool,
    },
    Play(PlayTarget),
    Match(MatchRequest),
    Accept(Option<Which>),
    Decline(Option<Which>),
    Withdraw(Option<Which>),
    /// Challenges to and from the user.
    Pending,
    /// Shows the settings (None) or sets one ('' clears a formula).
    Set(Option<(SettingName, String)>),
    /// Lists the noplay list (None), adds (true) or removes (false) a user.
    Noplay(Option<(String, bool)>),
    /// Challenges the last opponent to the same game with colours swapped.
    Rematch,
    Games,
    History(Option<String>),
    Finger(Option<String>),
    Help,
}

impl From<&RatingRecord> for RatingView {
    fn from(r: &RatingRecord) -> Self {
        let glicko = super::rating::Glicko::from(r.values);
        RatingView {
            variant: r.variant,
            rating: glicko.rounded(),
            deviation: r.values.deviation,
            volatility: r.values.volatility,
            provisional: glicko.is_provisional(),
            games: r.games,
            wins: r.wins,
            losses: r.losses,
            draws: r.draws,
        }
    }
}

/// A successful command's answer: FICS-like text for the console, data for programs.
#[derive(Clone, Debug, PartialEq)]
pub struct LobbyReply {
    pub text: String,
    pub data: ReplyData,
}

/// Why the lobby refused a command. Each has a stable snake_case code and FICS-like text.
#[derive(Debug)]
pub enum LobbyError {
    /// Not a command, or its arguments do not parse: the usage.
    BadCommand(String),
    UnknownUser(String),
    NotOnline(String),
    /// A seek or a challenge from a user with no lobby connection: it could not outlive the
    /// request, since offers go when their owner's last connection closes.
    NotInLobby,
    /// Guests can only play unrated games.
    GuestRated,
    TooManySeeks,
    DuplicateSeek,
    /// A time, increment, range or setting value out of bounds.
    InvalidValue(String),
    NoSuchSeek,
    OwnSeek,
    SelfChallenge,
    RatingOutOfRange {
        user: String,
    },
    /// The other side's formula refused.
    FormulaRejected {
        user: String,
    },
    /// One side has the other on its noplay list; `yours` when it is the sender's list.
    Noplay {
        user: String,
        yours: bool,
    },
    NoChallenge,
    /// Several challenges are pending: say which.
    Ambiguous,
    NoPreviousGame,
    BadFormula(FormulaError),
    Game(GameError),
    Store(StoreError),
    /// The lobby actor is gone (shutting down).
    Unavailable,
}

impl LobbyError {
    /// The stable code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            LobbyError::BadCommand(_) => "bad_command",
            LobbyError::UnknownUser(_) => "unknown_user",
            LobbyError::NotOnline(_) => "user_not_online",
            LobbyError::NotInLobby => "not_in_lobby",
            LobbyError::GuestRated => "guests_play_unrated",
            LobbyError::TooManySeeks => "too_many_seeks",
            LobbyError::DuplicateSeek => "duplicate_seek",
            LobbyError::InvalidValue(_) => "invalid_value",
            LobbyError::NoSuchSeek => "no_such_seek",
            LobbyError::OwnSeek => "own_seek",
            LobbyError::SelfChallenge => "self_challenge",
            LobbyError::RatingOutOfRange { .. } => "rating_out_of_range",
            LobbyError::FormulaRejected { .. } => "formula_rejected",
            LobbyError::Noplay { .. } => "noplay",
            LobbyError::NoChallenge => "no_challenge",
            LobbyError::Ambiguous => "ambiguous",
            LobbyError::NoPreviousGame => "no_previous_game",
            LobbyError::BadFormula(_) => "bad_formula",
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
            LobbyError::BadCommand(usage) => f.write_str(usage),
            LobbyError::UnknownUser(name) => {
                write!(f, "There is no player matching the name {name}.")
            }
            LobbyError::NotOnline(name) => write!(f, "{name} is not logged in."),
            LobbyError::NotInLobby => f.write_str(
                "You are not in the lobby: seeks and challenges last only while you have it \
                 open (the lobby page, or a /ws/lobby connection).",
            ),
            LobbyError::GuestRated => {
                f.write_str("Only registered players can play rated games.")
            }
            LobbyError::TooManySeeks => {
                write!(f, "You can only have {MAX_SEEKS} active seeks.")
            }
            LobbyError::DuplicateSeek => {
                f.write_str("You already have an active seek with the same parameters.")
            }
            LobbyError::InvalidValue(why) => f.write_str(why),
            LobbyError::NoSuchSeek => f.write_str("That seek is not available."),
            LobbyError::OwnSeek => f.write_str("You cannot respond to your own seek."),
            LobbyError::SelfChallenge => f.write_str("You can't match yourself."),
            LobbyError::RatingOutOfRange { user } => {
                write!(f, "Your rating does not fit {user}'s seek range.")
            }
            LobbyError::FormulaRejected { user } => {
                write!(f, "Match request does not meet {user}'s formula.")
            }
            LobbyError::Noplay { user, yours: true } => {
                write!(f, "You have {user} on your noplay list.")
            }
            LobbyError::Noplay { user, yours: false } => {
                write!(f, "You are on {user}'s noplay list.")
            }
            LobbyError::NoChallenge => f.write_str("There are no offers pending."),
            LobbyError::Ambiguous => f.write_str(
                "You have more than one pending offer. Please specify which one (by number or name).",
            ),
            LobbyError::NoPreviousGame => f.write_str("You have no previous game to rematch."),
            LobbyError::BadFormula(e) => write!(f, "Bad formula: {e}."),
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

/// A user by name, any case.
///
/// # Errors
/// [`LobbyError::UnknownUser`] (also for a name no account can have, such as one with a NUL,
/// which the database would refuse), store failures.
async fn find_user(store: &Store, name: &str) -> Result<crate::store::User, LobbyError> {
    if name.contains('\0') {
        return Err(LobbyError::UnknownUser(name.replace('\0', "")));
    }
    store
        .user_by_name(name)
        .await?
        .ok_or_else(|| LobbyError::UnknownUser(name.to_string()))
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
    /// [`LobbyError::UnknownUser`], store failures.
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
    /// [`LobbyError::UnknownUser`], store failures.
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

#[cfg(test)]
mod settings_tests {
    use super::LobbySettings;
    use crate::game::GameSettings;

    #[test]
    fn a_paired_game_waits_for_its_players_less_than_for_a_first_move() {
        assert!(LobbySettings::default().join_limit < GameSettings::default().first_move_limit);
    }
}
