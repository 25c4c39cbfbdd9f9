//! Games (`game`) and their actions (`game_action`): creation, seating, results, loading a
//! game with its whole action list, and a user's game history.
//!
//! Rows hold the stable string ids of the rules layer (variant, end reason) and of this
//! module ([`ColorChoice`], [`GameStatus`]); they are parsed back here, so nothing above the
//! store sees a raw status string.
//!
//! The game actors' changes go through the group-commit [`super::GameWriter`], which
//! writes them in batches ([`super::changes`]); the few changes made here one at a time use
//! the same statements.

use crate::play::record::*;

use super::changes::rows::{insert_game, record_end, seat_players};
use super::{GameChange, Store, StoreError};
use crate::rules::{Color, EndReason, Outcome, Variant};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::str::FromStr;
use uuid::Uuid;

/// A game's result from the side of the user `u` it is joined with: `win`, `loss` or `draw`
/// ([`PlayerResult::as_str`]), null while it runs or when it was aborted. The history's
/// filter and the results' counts both use it.
macro_rules! player_result_sql {
    () => {
        "(case when g.result = '1/2-1/2' then 'draw' \
               when g.result is null or g.result not in ('1-0', '0-1') then null \
               when (g.result = '1-0') = (g.white_id = u.user_id) then 'win' \
               else 'loss' end)"
    };
}

/// The columns of a game with its players' names; every game query starts with this and
/// adds its own `where`.
const SELECT_GAME: &str = "\
    select g.game_id, g.variant, g.creator_id, g.white_id, g.black_id, \
           w.username as white_name, b.username as black_name, c.username as creator_name, \
           g.color_choice, g.clock_initial_ms, g.clock_increment_ms, g.rated, g.status, \
           g.restarts, g.result, g.end_reason, \
           g.start_position, g.dice_commitment, g.dice_seed, \
           g.created_at, g.started_at, g.ended_at \
    from game g \
    join app_user c on c.user_id = g.creator_id \
    left join app_user w on w.user_id = g.white_id \
    left join app_user b on b.user_id = g.black_id";

/// The columns of an action, in the order of [`ActionRecord`].
const ACTION_COLUMNS: &str = "ply, machine, human, white_ms, black_ms, rolls, created_at";

/// The unfinished games whose actor must run from the server's start (a clock or the
/// first-move limit runs in them), on `game g`: an active game with a clock, or one that
/// has no second action yet (plies are numbered without gaps).
const RUNNING_GAME: &str = "g.status = 'active' \
    and (g.clock_initial_ms is not null \
         or not exists (select 1 from game_action a where a.game_id = g.game_id and a.ply = 2))";

/// A `game` row as stored, before its ids are parsed.
#[derive(sqlx::FromRow)]
struct GameRow {
    game_id: Uuid,
    variant: String,
    creator_id: Uuid,
    white_id: Option<Uuid>,
    black_id: Option<Uuid>,
    white_name: Option<String>,
    black_name: Option<String>,
    creator_name: String,
    color_choice: String,
    clock_initial_ms: Option<i64>,
    clock_increment_ms: Option<i64>,
    rated: bool,
    status: String,
    restarts: i32,
    result: Option<String>,
    end_reason: Option<String>,
    start_position: Option<String>,
    dice_commitment: Option<String>,
    dice_seed: Option<Vec<u8>>,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    ended_at: Option<DateTime<Utc>>,
}

impl GameRow {
    fn into_record(self, actions: Vec<ActionRecord>) -> Result<GameRecord, StoreError> {
        Ok(GameRecord {
            game_id: self.game_id,
            variant: parse_column("game.variant", &self.variant)?,
            creator_id: self.creator_id,
            white_id: self.white_id,
            black_id: self.black_id,
            white_name: self.white_name,
            black_name: self.black_name,
            creator_name: self.creator_name,
            color_choice: parse_column("game.color_choice", &self.color_choice)?,
            clock: clock_columns(self.clock_initial_ms, self.clock_increment_ms),
            rated: self.rated,
            status: parse_column("game.status", &self.status)?,
            restarts: u32::try_from(self.restarts).map_err(|_| StoreError::InvalidValue {
                column: "game.restarts",
                value: self.restarts.to_string(),
            })?,
            outcome: outcome(self.result.as_deref(), self.end_reason.as_deref())?,
            start_position: self.start_position,
            dice_commitment: self.dice_commitment,
            dice_seed: self.dice_seed,
            created_at: self.created_at,
            started_at: self.started_at,
            ended_at: self.ended_at,
            actions,
            adjustments: Vec::new(),
        })
    }
}

/// Some players' games in progress, as [`Store::unfinished_games_of`] finds them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayersGames {
    /// The unfinished games they created or sit in, and the claimed games that are
    /// unfinished.
    pub unfinished: Vec<UnfinishedGame>,
    /// The claimed games with no row: being created.
    pub not_stored: Vec<Uuid>,
}

/// A `game` row summarized for a history list.
#[derive(sqlx::FromRow)]
struct SummaryRow {
    game_id: Uuid,
    variant: String,
    white_name: Option<String>,
    black_name: Option<String>,
    status: String,
    result: Option<String>,
    end_reason: Option<String>,
    clock_initial_ms: Option<i64>,
    clock_increment_ms: Option<i64>,
    rated: bool,
    created_at: DateTime<Utc>,
    ended_at: Option<DateTime<Utc>>,
    action_count: i64,
}

impl TryFrom<SummaryRow> for GameSummary {
    type Error = StoreError;

    fn try_from(row: SummaryRow) -> Result<Self, Self::Error> {
        Ok(GameSummary {
            game_id: row.game_id,
            variant: parse_column("game.variant", &row.variant)?,
            white_name: row.white_name,
            black_name: row.black_name,
            status: parse_column("game.status", &row.status)?,
            outcome: outcome(row.result.as_deref(), row.end_reason.as_deref())?,
            clock: clock_columns(row.clock_initial_ms, row.clock_increment_ms),
            rated: row.rated,
            created_at: row.created_at,
            ended_at: row.ended_at,
            action_count: row.action_count,
        })
    }
}

/// An action row tagged with its game, for loading the actions of several games at once.
#[derive(sqlx::FromRow)]
struct GameActionRow {
    game_id: Uuid,
    #[sqlx(flatten)]
    action: ActionRow,
}

/// A `game_action` row as read ([`ACTION_COLUMNS`]); the other layers see it as an
/// [`ActionRecord`], which knows nothing of rows.
#[derive(sqlx::FromRow)]
struct ActionRow {
    ply: i32,
    machine: String,
    human: String,
    white_ms: Option<i64>,
    black_ms: Option<i64>,
    rolls: Option<serde_json::Value>,
    created_at: DateTime<Utc>,
}

impl From<ActionRow> for ActionRecord {
    fn from(row: ActionRow) -> Self {
        ActionRecord {
            ply: row.ply,
            machine: row.machine,
            human: row.human,
            white_ms: row.white_ms,
            black_ms: row.black_ms,
            rolls: row.rolls,
            created_at: row.created_at,
        }
    }
}

/// Parses a stored id, reporting the column if the code no longer knows it.
fn parse_column<T: FromStr>(column: &'static str, value: &str) -> Result<T, StoreError> {
    value.parse().map_err(|_| StoreError::InvalidValue {
        column,
        value: value.to_string(),
    })
}

/// A clock's milliseconds as the `bigint` column holds them (the game layer refuses clocks of
/// more than three hours long before this bound).
pub(super) fn bigint(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// The clock columns as a time control: both null means no clock (a check constraint forbids
/// one without the other, and negative values).
fn clock_columns(initial_ms: Option<i64>, increment_ms: Option<i64>) -> Option<TimeControl> {
    Some(TimeControl {
        initial_ms: u64::try_from(initial_ms?).unwrap_or(0),
        increment_ms: u64::try_from(increment_ms?).unwrap_or(0),
    })
}

/// The `result` and `end_reason` columns as an [`Outcome`]; `None` while the game runs.
fn outcome(result: Option<&str>, end_reason: Option<&str>) -> Result<Option<Outcome>, StoreError> {
    let (Some(result), Some(reason)) = (result, end_reason) else {
        return Ok(None);
    };
    let winner = match result {
        "1-0" => Some(Color::White),
        "0-1" => Some(Color::Black),
        "1/2-1/2" | "*" => None,
        other => {
            return Err(StoreError::InvalidValue {
                column: "game.result",
                value: other.to_string(),
            })
        }
    };
    let reason: EndReason = parse_column("game.end_reason", reason)?;
    Ok(Some(Outcome { winner, reason }))
}

impl Store {
    /// Creates a game in the `waiting` state.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if the creator or a seated player does not exist;
    /// [`StoreError::Database`] for a reused id or settings the schema rejects (a negative
    /// clock, a seed without a commitment).
    #[tracing::instrument(skip(self, game), fields(game_id = %game.game_id, variant = %game.variant))]
    pub async fn create_game(&self, game: &NewGame) -> Result<(), StoreError> {
        insert_game(&self.pool, game)
            .await
            .map_err(StoreError::from_sqlx)
    }

    /// Seats both players and makes a waiting game `active`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if there is no such game, it is no longer waiting, or a
    /// player does not exist.
    #[tracing::instrument(skip(self))]
    pub async fn start_game(
        &self,
        game_id: Uuid,
        white_id: Uuid,
        black_id: Uuid,
        started_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let start = GameStart {
            game_id,
            white_id,
            black_id,
            started_at,
        };
        seat_players(&self.pool, &start).await
    }

    /// Ends a waiting or active game: `aborted` when the reason is
    /// [`EndReason::Aborted`], `finished` otherwise, with the outcome's result and reason.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] if there is no such game or it is already over;
    /// [`StoreError::Database`] when finishing (not aborting) a game that never started.
    #[tracing::instrument(skip(self))]
    pub async fn finish_game(
        &self,
        game_id: Uuid,
        outcome: &Outcome,
        ended_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let end = GameEnd {
            game_id,
            outcome: *outcome,
            ended_at,
            rated: None,
        };
        record_end(&self.pool, &end).await
    }

    /// A game with its players' names and every action in ply order.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn load_game(&self, game_id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query_as::<_, GameRow>(&format!("{SELECT_GAME} where g.game_id = $1"))
            .bind(game_id)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let actions = sqlx::query_as::<_, ActionRow>(&format!(
            "select {ACTION_COLUMNS} from game_action where game_id = $1 order by ply"
        ))
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        let actions = actions.into_iter().map(ActionRecord::from).collect();
        let mut record = row.into_record(actions)?;
        record.adjustments = (self.adjustments_of(&[game_id]).await?)
            .remove(&game_id)
            .unwrap_or_default();
        Ok(Some(record))
    }

    /// Whether a game with this id exists, in any status: what a game page needs to know,
    /// without the record and actions [`Store::load_game`] reads.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn game_exists(&self, game_id: Uuid) -> Result<bool, StoreError> {
        let exists = sqlx::query_scalar("select exists (select 1 from game where game_id = $1)")
            .bind(game_id)
            .fetch_one(&self.pool)
            .await?;
        Ok(exists)
    }

    /// Every game whose clock or first-move limit runs (an active game with a clock, or one
    /// before both sides' first moves), with its actions, oldest first, each counted as
    /// restarted once more (`restarts`, which sets where its new event log starts): what a
    /// starting server resumes at once. The other unfinished games (open challenges, games
    /// without a clock) would only hibernate again: they are woken when asked for
    /// ([`Store::wake_game`]). Four statements in all, however many games.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn resume_running_games(&self) -> Result<Vec<GameRecord>, StoreError> {
        // Counted before the games are read, so every record read carries its new count. If
        // the read then fails the server does not start, and the extra count costs nothing:
        // a larger count only starts a log further on.
        sqlx::query(&format!(
            "update game g set restarts = restarts + 1 where {RUNNING_GAME}"
        ))
        .execute(&self.pool)
        .await?;
        let rows = sqlx::query_as::<_, GameRow>(&format!(
            "{SELECT_GAME} where {RUNNING_GAME} order by g.created_at, g.game_id"
        ))
        .fetch_all(&self.pool)
        .await?;
        let ids: Vec<Uuid> = rows.iter().map(|row| row.game_id).collect();
        let action_rows = sqlx::query_as::<_, GameActionRow>(&format!(
            "select game_id, {ACTION_COLUMNS} from game_action where game_id = any($1) \
             order by game_id, ply"
        ))
        .bind(&ids)
        .fetch_all(&self.pool)
        .await?;
        let mut actions: HashMap<Uuid, Vec<ActionRecord>> = HashMap::new();
        for row in action_rows {
            actions
                .entry(row.game_id)
                .or_default()
                .push(row.action.into());
        }
        let mut adjustments = self.adjustments_of(&ids).await?;
        rows.into_iter()
            .map(|row| {
                let game_id = row.game_id;
                let game_actions = actions.remove(&game_id).unwrap_or_default();
                let mut record = row.into_record(game_actions)?;
                record.adjustments = adjustments.remove(&game_id).unwrap_or_default();
                Ok(record)
            })
            .collect()
    }

    /// The ids of the games whose clock or first-move limit runs: those a node of a
    /// cluster takes over when the node that ran them went quiet.
    ///
    /// # Errors
    /// Database failures.
    pub async fn running_game_ids(&self) -> Result<Vec<Uuid>, StoreError> {
        let ids = sqlx::query_scalar(&format!(
            "select g.game_id from game g where {RUNNING_GAME}"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(ids)
    }

    /// An unfinished game brought back into memory after it hibernated, counted as
    /// restarted once more, as [`Store::resume_running_games`] counts the games it resumes;
    /// None if there is no such game or it is over.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn wake_game(&self, game_id: Uuid) -> Result<Option<GameRecord>, StoreError> {
        let counted = sqlx::query(
            "update game set restarts = restarts + 1 \
             where game_id = $1 and status in ('waiting', 'active')",
        )
        .bind(game_id)
        .execute(&self.pool)
        .await?;
        if counted.rows_affected() == 0 {
            return Ok(None);
        }
        self.load_game(game_id).await
    }

    /// Who is in every unfinished game: the creators of open challenges and the players of
    /// active games, which the game layer counts against its limits from the start, whether
    /// the games are in memory or not. One statement, through the small index of unfinished
    /// games.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for a status the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn unfinished_game_players(&self) -> Result<Vec<UnfinishedGame>, StoreError> {
        let rows = sqlx::query_as::<_, (Uuid, String, Uuid, Option<Uuid>, Option<Uuid>)>(
            "select game_id, status, creator_id, white_id, black_id from game \
             where status in ('waiting', 'active')",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(game_id, status, creator_id, white_id, black_id)| {
                Ok(UnfinishedGame {
                    game_id,
                    status: parse_column("game.status", &status)?,
                    creator_id,
                    white_id,
                    black_id,
                })
            })
            .collect()
    }

    /// The games in progress of `players`, as a node of a cluster counts them against the
    /// per-account bounds (`game::bounds`): every unfinished game one of them created or sits
    /// in, and of the games `claimed` (the ones that node counts for them in its memory) those
    /// that are unfinished, whoever sits in them, or not stored at all. A claimed game in
    /// neither list is over. One statement; it runs only when a game is about to be created or
    /// joined on a node of a cluster, never per move.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for a status the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn unfinished_games_of(
        &self,
        players: &[Uuid],
        claimed: &[Uuid],
    ) -> Result<PlayersGames, StoreError> {
        let rows = sqlx::query_as::<
            _,
            (
                Uuid,
                Option<String>,
                Option<Uuid>,
                Option<Uuid>,
                Option<Uuid>,
            ),
        >(
            "select game_id, status, creator_id, white_id, black_id from game \
             where status in ('waiting', 'active') \
               and (creator_id = any($1) or white_id = any($1) or black_id = any($1) \
                    or game_id = any($2)) \
             union all \
             select claimed.game_id, null::text, null::uuid, null::uuid, null::uuid \
             from unnest($2::uuid[]) as claimed (game_id) \
             where not exists (select 1 from game g where g.game_id = claimed.game_id)",
        )
        .bind(players)
        .bind(claimed)
        .fetch_all(&self.pool)
        .await?;
        let mut games = PlayersGames::default();
        for (game_id, status, creator_id, white_id, black_id) in rows {
            match (status, creator_id) {
                (Some(status), Some(creator_id)) => games.unfinished.push(UnfinishedGame {
                    game_id,
                    status: parse_column("game.status", &status)?,
                    creator_id,
                    white_id,
                    black_id,
                }),
                _ => games.not_stored.push(game_id),
            }
        }
        Ok(games)
    }

    /// Up to `limit` unfinished games, oldest first, that a deadline of their own has caught
    /// up with while they may be out of memory: open challenges created at or before
    /// `challenges_created_by` (expired), and active games without a clock, both sides
    /// having moved, whose last action was at or before `idle_since` (abandoned). The game
    /// layer wakes them, and their actors end them as they would have in memory.
    ///
    /// # Errors
    /// Database failures only.
    #[tracing::instrument(skip(self))]
    pub async fn overdue_unfinished_games(
        &self,
        challenges_created_by: DateTime<Utc>,
        idle_since: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        let ids = sqlx::query_scalar::<_, Uuid>(
            "select g.game_id from game g \
             where g.status in ('waiting', 'active') \
               and ((g.status = 'waiting' and g.created_at <= $1) \
                 or (g.status = 'active' and g.clock_initial_ms is null \
                     and exists (select 1 from game_action a \
                                 where a.game_id = g.game_id and a.ply = 2) \
                     and (select a.created_at from game_action a where a.game_id = g.game_id \
                          order by a.ply desc limit 1) <= $2)) \
             order by g.created_at, g.game_id \
             limit $3",
        )
        .bind(challenges_created_by)
        .bind(idle_since)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(ids)
    }

    /// The games `username` (any case) sat in that started or were aborted, newest first by
    /// creation time, optionally of one variant and with one result for that user;
    /// `limit`/`offset` page through them. Waiting games are left out: they are seeks, not
    /// history. Empty for an unknown user.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn user_games(
        &self,
        username: &str,
        variant: Option<Variant>,
        result: Option<PlayerResult>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<GameSummary>, StoreError> {
        let rows = sqlx::query_as::<_, SummaryRow>(concat!(
            "select g.game_id, g.variant, w.username as white_name, b.username as black_name, \
                    g.status, g.result, g.end_reason, g.clock_initial_ms, g.clock_increment_ms, \
                    g.rated, g.created_at, g.ended_at, \
                    (select count(*) from game_action a where a.game_id = g.game_id) \
                        as action_count \
             from app_user u \
             join game g on g.white_id = u.user_id or g.black_id = u.user_id \
             left join app_user w on w.user_id = g.white_id \
             left join app_user b on b.user_id = g.black_id \
             where lower(u.username) = lower($1) \
               and g.status in ('active', 'finished', 'aborted') \
               and ($2::text is null or g.variant = $2) \
               and ($5::text is null or $5 = ",
            player_result_sql!(),
            ") \
             order by g.created_at desc, g.game_id desc \
             limit $3 offset $4"
        ))
        .bind(username)
        .bind(variant.map(Variant::key))
        .bind(limit)
        .bind(offset)
        .bind(result.map(PlayerResult::as_str))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(GameSummary::try_from).collect()
    }

    /// `username`'s (any case) finished games counted by result, one entry per variant
    /// played, in variant id order. Empty for an unknown user or one with no finished game.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn user_results(&self, username: &str) -> Result<Vec<VariantResults>, StoreError> {
        let rows: Vec<(String, i64, i64, i64, i64)> = sqlx::query_as(concat!(
            "select variant, count(*), count(*) filter (where result = 'win'), \
                    count(*) filter (where result = 'draw'), \
                    count(*) filter (where result = 'loss') \
             from (select g.variant, ",
            player_result_sql!(),
            " as result \
             from app_user u \
             join game g on g.white_id = u.user_id or g.black_id = u.user_id \
             where lower(u.username) = lower($1) and g.status = 'finished') as finished \
             group by variant \
             order by variant"
        ))
        .bind(username)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(variant, finished, wins, draws, losses)| {
                Ok(VariantResults {
                    variant: parse_column("game.variant", &variant)?,
                    finished,
                    wins,
                    draws,
                    losses,
                })
            })
            .collect()
    }

    /// The newest games in one status (`active` for games to watch, `waiting` for open
    /// challenges), newest first, at most `limit`.
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn games_in_status(
        &self,
        status: GameStatus,
        limit: i64,
    ) -> Result<Vec<GameSummary>, StoreError> {
        let rows = sqlx::query_as::<_, SummaryRow>(
            "select g.game_id, g.variant, w.username as white_name, b.username as black_name, \
                    g.status, g.result, g.end_reason, g.clock_initial_ms, g.clock_increment_ms, \
                    g.rated, g.created_at, g.ended_at, \
                    (select count(*) from game_action a where a.game_id = g.game_id) \
                        as action_count \
             from game g \
             left join app_user w on w.user_id = g.white_id \
             left join app_user b on b.user_id = g.black_id \
             where g.status = $1 \
             order by g.created_at desc, g.game_id desc \
             limit $2",
        )
        .bind(status.as_str())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(GameSummary::try_from).collect()
    }

    /// Every game being played, oldest start first (the `games` command).
    ///
    /// # Errors
    /// Database failures, or [`StoreError::InvalidValue`] for an id the code does not know.
    #[tracing::instrument(skip(self))]
    pub async fn active_games(&self, limit: i64) -> Result<Vec<GameSummary>, StoreError> {
        let rows = sqlx::query_as::<_, SummaryRow>(
            "select g.game_id, g.variant, w.username as white_name, b.username as black_name, \
                    g.status, g.result, g.end_reason, g.clock_initial_ms, g.clock_increment_ms, \
                    g.rated, g.created_at, g.ended_at, \
                    (select count(*) from game_action a where a.game_id = g.game_id) \
                        as action_count \
             from game g \
             left join app_user w on w.user_id = g.white_id \
             left join app_user b on b.user_id = g.black_id \
             where g.status = 'active' \
             order by g.started_at, g.game_id \
             limit $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(GameSummary::try_from).collect()
    }

    /// The machine notation of the action stored for `game_id` at `ply`, if there is one.
    ///
    /// # Errors
    /// Database failures.
    #[tracing::instrument(skip(self))]
    pub async fn stored_action(
        &self,
        game_id: Uuid,
        ply: i32,
    ) -> Result<Option<String>, StoreError> {
        let machine =
            sqlx::query_scalar("select machine from game_action where game_id = $1 and ply = $2")
                .bind(game_id)
                .bind(ply)
                .fetch_optional(&self.pool)
                .await?;
        Ok(machine)
    }

    /// Appends a batch of actions (of any games, several of one game allowed) with one
    /// multi-row INSERT: [`Store::apply_changes`] with actions only. Returns one result per
    /// entry, in order: `Ok` if committed, [`StoreError::DuplicatePly`] if that game already
    /// had that ply (or an earlier entry of the same batch took it), [`StoreError::NotFound`]
    /// for an unknown game. The other rows commit regardless.
    ///
    /// # Errors
    /// The outer `Err` means the transaction itself failed (connection lost…): no entry was
    /// committed.
    pub async fn append_actions(
        &self,
        actions: &[NewAction],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let changes: Vec<GameChange> = actions
            .iter()
            .map(|action| GameChange::Act(action.clone(), None))
            .collect();
        self.apply_changes(&changes).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_text_and_serde() {
        for choice in ColorChoice::ALL {
            assert_eq!(choice.as_str().parse::<ColorChoice>(), Ok(choice));
            let json = serde_json::to_string(&choice).unwrap_or_default();
            assert_eq!(json, format!("\"{choice}\""));
        }
        for status in GameStatus::ALL {
            assert_eq!(status.as_str().parse::<GameStatus>(), Ok(status));
            let json = serde_json::to_string(&status).unwrap_or_default();
            assert_eq!(json, format!("\"{status}\""));
        }
        assert_eq!(
            "purple".parse::<ColorChoice>().map_err(|e| e.to_string()),
            Err("unknown colour choice `purple` (known: random, white, black)".to_string())
        );
        assert!("Active".parse::<GameStatus>().is_err());
    }

    #[test]
    fn outcome_columns() {
        let read = |result, reason| outcome(Some(result), Some(reason)).ok().flatten();
        assert_eq!(
            read("1-0", "checkmate"),
            Some(Outcome::win(Color::White, EndReason::Checkmate))
        );
        assert_eq!(
            read("0-1", "timeout"),
            Some(Outcome::win(Color::Black, EndReason::Timeout))
        );
        assert_eq!(
            read("1/2-1/2", "agreement"),
            Some(Outcome::draw(EndReason::Agreement))
        );
        assert_eq!(
            read("*", "aborted"),
            Some(Outcome::draw(EndReason::Aborted))
        );
        assert!(matches!(outcome(None, None), Ok(None)));
        assert!(matches!(
            outcome(Some("2-0"), Some("checkmate")),
            Err(StoreError::InvalidValue {
                column: "game.result",
                ..
            })
        ));
        assert!(matches!(
            outcome(Some("1-0"), Some("bored")),
            Err(StoreError::InvalidValue {
                column: "game.end_reason",
                ..
            })
        ));
    }

    #[test]
    fn clock_needs_both_columns() {
        assert_eq!(
            clock_columns(Some(60_000), Some(0)),
            Some(TimeControl {
                initial_ms: 60_000,
                increment_ms: 0
            })
        );
        assert_eq!(clock_columns(None, None), None);
        assert_eq!(clock_columns(Some(1), None), None);
    }
}
