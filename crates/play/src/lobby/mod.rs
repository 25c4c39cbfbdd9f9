//! The lobby as plain state: seeks, challenges, pairing, formulas and presence, and the
//! commands that change them.
//!
//! - [`command`]: the FICS-style text commands (`seek 5 0 rated chazz`) and the JSON
//!   messages ([`crate::wire::lobby`]) turned into one typed [`LobbyCmd`]; the text of replies.
//! - [`state`]: [`LobbyState`], seeks, challenges, users, formulas, presence and the FICS
//!   matching rules (see `docs/protocol.md`, "Lobby"), one file per group of commands.
//!
//! The server's lobby actor owns one [`LobbyState`] and does its I/O (store, game creation,
//! sending); every race (two `play`s of one seek, an accept against a pairing) is decided by
//! the order in which it takes its messages.

pub mod command;
pub mod state;

pub use crate::wire::lobby::{
    ChallengeView, FingerView, GameStartedView, MatchRequest, RatingView, ReplyData, SeekRequest,
    SeekView,
};
pub use state::{LobbyState, PendingGame, UserInfo};

use crate::formula::FormulaError;
use crate::record::RatingRecord;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyUser {
    pub user_id: Uuid,
    pub name: String,
    /// Registered account (not a guest).
    pub registered: bool,
}

/// Which challenge `accept`, `decline` and `withdraw` mean: a number, the other user's name,
/// or every one. None: the only one there is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Which {
    Id(u32),
    User(String),
    All,
}

/// What `play` responds to: a seek number or the seeker's name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayTarget {
    Seek(u32),
    User(String),
}

/// A lobby setting (`set <name> <value>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SettingName {
    Time,
    Inc,
    Variant,
    /// The formula (0) or f1..f9.
    Formula(u8),
}

/// Every lobby command, whichever form it arrived in (text or JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
        let glicko = crate::rating::Glicko::from(r.values);
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LobbyReply {
    pub text: String,
    pub data: ReplyData,
}

/// Why the lobby refused a command, by its rules alone (the server adds its own failures). Each has a stable snake_case code and FICS-like text.
#[derive(Debug)]
pub enum LobbyRefusal {
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
}

impl LobbyRefusal {
    /// The stable code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            LobbyRefusal::BadCommand(_) => "bad_command",
            LobbyRefusal::UnknownUser(_) => "unknown_user",
            LobbyRefusal::NotOnline(_) => "user_not_online",
            LobbyRefusal::NotInLobby => "not_in_lobby",
            LobbyRefusal::GuestRated => "guests_play_unrated",
            LobbyRefusal::TooManySeeks => "too_many_seeks",
            LobbyRefusal::DuplicateSeek => "duplicate_seek",
            LobbyRefusal::InvalidValue(_) => "invalid_value",
            LobbyRefusal::NoSuchSeek => "no_such_seek",
            LobbyRefusal::OwnSeek => "own_seek",
            LobbyRefusal::SelfChallenge => "self_challenge",
            LobbyRefusal::RatingOutOfRange { .. } => "rating_out_of_range",
            LobbyRefusal::FormulaRejected { .. } => "formula_rejected",
            LobbyRefusal::Noplay { .. } => "noplay",
            LobbyRefusal::NoChallenge => "no_challenge",
            LobbyRefusal::Ambiguous => "ambiguous",
            LobbyRefusal::NoPreviousGame => "no_previous_game",
            LobbyRefusal::BadFormula(_) => "bad_formula",
        }
    }
}

impl fmt::Display for LobbyRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LobbyRefusal::BadCommand(usage) => f.write_str(usage),
            LobbyRefusal::UnknownUser(name) => {
                write!(f, "There is no player matching the name {name}.")
            }
            LobbyRefusal::NotOnline(name) => write!(f, "{name} is not logged in."),
            LobbyRefusal::NotInLobby => f.write_str(
                "You are not in the lobby: seeks and challenges last only while you have it \
                 open (the lobby page, or a /ws/lobby connection).",
            ),
            LobbyRefusal::GuestRated => {
                f.write_str("Only registered players can play rated games.")
            }
            LobbyRefusal::TooManySeeks => {
                write!(f, "You can only have {MAX_SEEKS} active seeks.")
            }
            LobbyRefusal::DuplicateSeek => {
                f.write_str("You already have an active seek with the same parameters.")
            }
            LobbyRefusal::InvalidValue(why) => f.write_str(why),
            LobbyRefusal::NoSuchSeek => f.write_str("That seek is not available."),
            LobbyRefusal::OwnSeek => f.write_str("You cannot respond to your own seek."),
            LobbyRefusal::SelfChallenge => f.write_str("You can't match yourself."),
            LobbyRefusal::RatingOutOfRange { user } => {
                write!(f, "Your rating does not fit {user}'s seek range.")
            }
            LobbyRefusal::FormulaRejected { user } => {
                write!(f, "Match request does not meet {user}'s formula.")
            }
            LobbyRefusal::Noplay { user, yours: true } => {
                write!(f, "You have {user} on your noplay list.")
            }
            LobbyRefusal::Noplay { user, yours: false } => {
                write!(f, "You are on {user}'s noplay list.")
            }
            LobbyRefusal::NoChallenge => f.write_str("There are no offers pending."),
            LobbyRefusal::Ambiguous => f.write_str(
                "You have more than one pending offer. Please specify which one (by number or name).",
            ),
            LobbyRefusal::NoPreviousGame => f.write_str("You have no previous game to rematch."),
            LobbyRefusal::BadFormula(e) => write!(f, "Bad formula: {e}."),
        }
    }
}

impl std::error::Error for LobbyRefusal {}

#[cfg(test)]
mod settings_tests {
    use super::LobbySettings;
    use crate::GameSettings;

    #[test]
    fn a_paired_game_waits_for_its_players_less_than_for_a_first_move() {
        assert!(LobbySettings::default().join_limit < GameSettings::default().first_move_limit);
    }
}
