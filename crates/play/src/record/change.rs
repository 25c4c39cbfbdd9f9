//! [`GameChange`]: one change to one game, the unit the store's group-commit writer commits
//! and a game waits for before it tells anyone.

use super::{GameEnd, GameStart, NewAction, NewGame, NewMoreTime, NewTakeback};
use uuid::Uuid;

/// One change to one game: the unit a caller of the writer waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum GameChange {
    /// A new game row, `waiting`.
    Create(NewGame),
    /// A waiting game's seats are taken and it becomes `active`.
    Start(GameStart),
    /// An action; with the game's end when the action ends it, so that the last move and the
    /// result are committed together.
    Act(NewAction, Option<GameEnd>),
    /// The game ends without an action (resignation, flag, agreement, abort…).
    End(GameEnd),
    /// The last actions are taken back (their rows deleted, the takeback recorded).
    Takeback(NewTakeback),
    /// A player gives the opponent more time.
    MoreTime(NewMoreTime),
}

impl GameChange {
    /// The game this change is to.
    pub fn game_id(&self) -> Uuid {
        match self {
            GameChange::Create(game) => game.game_id,
            GameChange::Start(start) => start.game_id,
            GameChange::Act(action, _) => action.game_id,
            GameChange::End(end) => end.game_id,
            GameChange::Takeback(takeback) => takeback.game_id,
            GameChange::MoreTime(gift) => gift.game_id,
        }
    }

    /// Whether the change writes the game's own row, not only an action. A takeback or a
    /// gift of more time counts as one: it must not share a statement with another change of
    /// its game, whose order with it would be lost.
    pub fn writes_game_row(&self) -> bool {
        !matches!(self, GameChange::Act(_, None))
    }

    /// A takeback or a gift of more time, which only the one-by-one path writes.
    pub fn is_adjustment(&self) -> bool {
        matches!(self, GameChange::Takeback(_) | GameChange::MoreTime(_))
    }

    /// The end the change stores, if any.
    pub fn end(&self) -> Option<&GameEnd> {
        match self {
            GameChange::Act(_, end) => end.as_ref(),
            GameChange::End(end) => Some(end),
            GameChange::Create(_)
            | GameChange::Start(_)
            | GameChange::Takeback(_)
            | GameChange::MoreTime(_) => None,
        }
    }
}
