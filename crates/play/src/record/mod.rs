//! Games as the store keeps them: what a game asks the store to write ([`GameChange`] and
//! its parts) and what the store hands back ([`GameRecord`], summaries, ratings, chat lines).
//! Plain data; the SQL that reads and writes it is the server's `store`.

mod adjustment;
mod change;
mod chat;
mod game;
mod player;

pub use adjustment::{AdjustmentRecord, NewMoreTime, NewTakeback, TakenBackAction};
pub use change::GameChange;
pub use chat::{ChatRecord, ChatRoom, NewChatLine};
pub use game::{
    ActionRecord, ColorChoice, GameEnd, GameRecord, GameStart, GameStatus, GameSummary, JsonText,
    NewAction, NewGame, ParseColorChoiceError, ParseGameStatusError, PlayerResult, RatedSeats,
    TimeControl, UnfinishedGame, VariantResults,
};
pub use player::{LastGame, RatingHistoryEntry, RatingRecord, RatingValues, UserSettings};
