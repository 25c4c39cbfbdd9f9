//! Games' chat (`game_chat`): writing a line under the game's cap, the last lines of each
//! room of a game resumed after a restart or hibernation, and a stored game's lines for the
//! replay.
//!
//! A line is written on its own, not through the group-commit [`super::GameWriter`]: chat is
//! rare beside actions (a few lines a minute where a busy server commits thousands of
//! actions a second), and its statement is no part of the writer's batch, whose four parts
//! are tuned for actions.

use super::{Store, StoreError};
use crate::play::record::*;
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct ChatRow {
    room: String,
    username: String,
    text: String,
    created_at: DateTime<Utc>,
}

impl ChatRow {
    fn into_record(self) -> Result<ChatRecord, StoreError> {
        let room = self.room.parse().map_err(|()| StoreError::InvalidValue {
            column: "game_chat.room",
            value: self.room.clone(),
        })?;
        Ok(ChatRecord {
            room,
            username: self.username,
            text: self.text,
            at: self.created_at,
        })
    }
}

impl Store {
    /// Stores a line unless the game already holds `cap` lines; returns the writer's
    /// username, or None when the game's chat is full. The game's actor is its only writer,
    /// one line at a time, so the count it checks cannot change under it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown game or writer; database failures.
    #[tracing::instrument(skip(self, line), fields(game_id = %line.game_id))]
    pub async fn insert_chat_line(
        &self,
        line: NewChatLine<'_>,
        cap: i64,
    ) -> Result<Option<String>, StoreError> {
        let stored = sqlx::query_scalar::<_, String>(
            "insert into game_chat (game_id, room, username, text, created_at) \
             select $1, $2, u.username, $4, $5 from app_user u \
             where u.user_id = $3 \
               and (select count(*) from game_chat c where c.game_id = $1) < $6 \
             returning username",
        )
        .bind(line.game_id)
        .bind(line.room.as_str())
        .bind(line.user_id)
        .bind(line.text)
        .bind(line.at)
        .bind(cap)
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::from_sqlx)?;
        if stored.is_some() {
            return Ok(stored);
        }
        // Nothing inserted: a full chat, or (never from a live socket) no such writer.
        let known: bool =
            sqlx::query_scalar("select exists (select 1 from app_user where user_id = $1)")
                .bind(line.user_id)
                .fetch_one(&self.pool)
                .await?;
        if known {
            Ok(None)
        } else {
            Err(StoreError::NotFound)
        }
    }

    /// The last `per_room` lines of each room of a game, oldest first: what a resumed game
    /// holds in memory.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an unknown room.
    #[tracing::instrument(skip(self))]
    pub async fn recent_chat(
        &self,
        game_id: Uuid,
        per_room: i64,
    ) -> Result<Vec<ChatRecord>, StoreError> {
        let rows = sqlx::query_as::<_, ChatRow>(
            "select room, username, text, created_at from ( \
                 (select chat_id, room, username, text, created_at from game_chat \
                  where game_id = $1 and room = 'players' order by chat_id desc limit $2) \
                 union all \
                 (select chat_id, room, username, text, created_at from game_chat \
                  where game_id = $1 and room = 'spectators' order by chat_id desc limit $2) \
             ) recent order by chat_id",
        )
        .bind(game_id)
        .bind(per_room)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(ChatRow::into_record).collect()
    }

    /// A game's stored lines that `reader` may read, oldest first (at most the game's cap):
    /// the spectators' room for anyone, and the players' room too for the game's players
    /// (its creator and the seated players, as live). None for an unknown game.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an unknown room.
    #[tracing::instrument(skip(self))]
    pub async fn game_chat(
        &self,
        game_id: Uuid,
        reader: Option<Uuid>,
    ) -> Result<Option<Vec<ChatRecord>>, StoreError> {
        let players = sqlx::query_as::<_, (Uuid, Option<Uuid>, Option<Uuid>)>(
            "select creator_id, white_id, black_id from game where game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((creator, white, black)) = players else {
            return Ok(None);
        };
        let played = reader.is_some_and(|r| r == creator || white == Some(r) || black == Some(r));
        let rooms: &[&str] = if played {
            &["players", "spectators"]
        } else {
            &["spectators"]
        };
        let rows = sqlx::query_as::<_, ChatRow>(
            "select room, username, text, created_at from game_chat \
             where game_id = $1 and room = any($2) order by chat_id",
        )
        .bind(game_id)
        .bind(rooms)
        .fetch_all(&self.pool)
        .await?;
        let lines = rows.into_iter().map(ChatRow::into_record);
        lines.collect::<Result<_, _>>().map(Some)
    }
}
