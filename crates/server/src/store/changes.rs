//! Batches of changes to many games, each batch committed with one statement: what the
//! group-commit [`super::GameWriter`] writes.
//!
//! A game's life is a row created, a row started, its actions, and a row ended. Each of those
//! must be committed before the players are told of it, and committing each on its own costs
//! an fsync and a round trip: at saturation, a game's creation, start and end were two thirds
//! of all commits (docs/performance.md). [`Store::apply_changes`] writes a whole batch of
//! [`GameChange`]s, of any kinds and for any games, as one statement: four data-modifying CTEs
//! (create, start, act, end), each fed by `unnest` over one array per column, so the statement
//! has a fixed number of parameters whatever the batch holds.
//!
//! The CTEs of one statement all see the same snapshot, and PostgreSQL does not support one
//! statement changing the same row twice, so a batch may hold at most one change that writes
//! a game's row ([`GameChange::writes_game_row`]) per game, and no action beside it (the
//! order of the two would be lost). The writer keeps to that ([`super::writer`]); here it is
//! checked, and a batch that breaks it is refused before anything is sent. Plain actions of
//! one game may come several to a batch.
//!
//! If the statement fails (a ply already stored, a game that does not exist, a value the
//! schema refuses), the batch is retried one change at a time inside one transaction, each
//! change in its own savepoint, so that every change gets its own answer and one bad change
//! does not cost the others theirs.

use super::games::{insert_actions, insert_game, record_end, seat_players};
use super::{GameEnd, GameStart, JsonText, NewAction, NewGame, Store, StoreError};
use chrono::{DateTime, Utc};
use sqlx::PgExecutor;
use std::collections::HashSet;
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
}

impl GameChange {
    /// The game this change is to.
    pub fn game_id(&self) -> Uuid {
        match self {
            GameChange::Create(game) => game.game_id,
            GameChange::Start(start) => start.game_id,
            GameChange::Act(action, _) => action.game_id,
            GameChange::End(end) => end.game_id,
        }
    }

    /// Whether the change writes the game's own row, not only an action.
    pub fn writes_game_row(&self) -> bool {
        !matches!(self, GameChange::Act(_, None))
    }
}

/// The first game of the batch that has a change writing its row beside any other change,
/// which one statement cannot apply in order.
fn game_changed_twice(changes: &[GameChange]) -> Option<Uuid> {
    let row_writes: HashSet<Uuid> = changes
        .iter()
        .filter(|c| c.writes_game_row())
        .map(GameChange::game_id)
        .collect();
    if row_writes.is_empty() {
        return None;
    }
    let mut seen = HashSet::new();
    changes
        .iter()
        .map(GameChange::game_id)
        .filter(|id| row_writes.contains(id))
        .find(|&id| !seen.insert(id))
}

impl Store {
    /// Commits a batch of changes with one statement; each change gets its own answer, in
    /// order. A change that writes a game's row must be the only change to its game.
    ///
    /// Answers: [`StoreError::DuplicatePly`] for an action whose ply is already stored;
    /// [`StoreError::NotFound`] for a change to a game that does not exist or is in no state
    /// for it (starting a game that is not waiting, ending one that is over), or a new game
    /// whose users do not exist; [`StoreError::Database`] for values the schema refuses. An
    /// action whose game end could not be stored (the game was already over) is still
    /// committed and answered `Ok`; the failure is logged.
    ///
    /// # Errors
    /// The outer `Err` means nothing was committed: the transaction itself failed (connection
    /// lost…), or [`StoreError::SameGameTwice`] if a change writing a game's row is not the
    /// only change to its game.
    #[tracing::instrument(skip(self, changes), fields(changes = changes.len()))]
    pub async fn apply_changes(
        &self,
        changes: &[GameChange],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        if changes.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(game_id) = game_changed_twice(changes) {
            return Err(StoreError::SameGameTwice { game_id });
        }
        // Only actions: the plain multi-row insert, which PostgreSQL plans and runs for less
        // than the four-part statement. A single statement is a transaction of its own.
        let only_actions = !changes.iter().any(GameChange::writes_game_row);
        let written = if only_actions {
            let actions: Vec<&NewAction> = changes
                .iter()
                .filter_map(|c| match c {
                    GameChange::Act(action, None) => Some(action),
                    _ => None,
                })
                .collect();
            insert_actions(&self.writer_pool, &actions)
                .await
                .map(|()| Applied::default())
        } else {
            apply_in_one_statement(&self.writer_pool, changes).await
        };
        match written {
            Ok(applied) => Ok(changes.iter().map(|c| applied.answer(c)).collect()),
            Err(err) if err.as_database_error().is_some() => {
                tracing::warn!(cause = %err, "batch of game changes failed; retrying one by one");
                self.apply_changes_one_by_one(changes).await
            }
            Err(err) => Err(err.into()),
        }
    }

    /// The slow path of [`Store::apply_changes`]: one transaction, one savepoint per change.
    async fn apply_changes_one_by_one(
        &self,
        changes: &[GameChange],
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let mut tx = self.writer_pool.begin().await?;
        let mut answers = Vec::with_capacity(changes.len());
        for change in changes {
            let mut savepoint = sqlx::Acquire::begin(&mut *tx).await?;
            match apply_one(&mut savepoint, change).await {
                Ok(()) => {
                    savepoint.commit().await?;
                    answers.push(Ok(()));
                }
                Err(StoreError::Database(err)) if err.as_database_error().is_none() => {
                    return Err(StoreError::Database(err));
                }
                Err(refused) => {
                    savepoint.rollback().await?;
                    answers.push(Err(refused));
                }
            }
        }
        tx.commit().await?;
        Ok(answers)
    }
}

/// One change on its own, inside the savepoint of the slow path.
async fn apply_one(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    change: &GameChange,
) -> Result<(), StoreError> {
    match change {
        GameChange::Create(game) => insert_game(&mut **tx, game)
            .await
            .map_err(StoreError::from_sqlx),
        GameChange::Start(start) => seat_players(&mut **tx, start).await,
        GameChange::Act(action, end) => {
            insert_actions(&mut **tx, &[action])
                .await
                .map_err(|err| action_error(err, action))?;
            if let Some(end) = end {
                match record_end(&mut **tx, end).await {
                    Ok(()) => {}
                    // No unfinished row to end: as in the one-statement path, the action
                    // stands and the oddity is logged.
                    Err(StoreError::NotFound) => {
                        log_unrecorded_end(end.game_id, &StoreError::NotFound);
                    }
                    // The database refused the end. The savepoint is now unusable, and the
                    // action goes with its end or not at all, as in the one-statement path:
                    // refused, rolled back to the savepoint, the rest of the batch unharmed.
                    Err(err) => return Err(err),
                }
            }
            Ok(())
        }
        GameChange::End(end) => record_end(&mut **tx, end).await,
    }
}

/// A failed insert of one action: its ply taken, or what [`StoreError::from_sqlx`] makes of it.
fn action_error(err: sqlx::Error, action: &NewAction) -> StoreError {
    let duplicate =
        err.as_database_error().and_then(|db| db.constraint()) == Some("game_action_pkey");
    if duplicate {
        StoreError::DuplicatePly {
            game_id: action.game_id,
            ply: action.ply,
        }
    } else {
        StoreError::from_sqlx(err)
    }
}

fn log_unrecorded_end(game_id: Uuid, err: &StoreError) {
    tracing::error!(%game_id, cause = %err, "the last action was stored but not the game's end");
}

/// Which conditional updates of the one-statement path found their game.
#[derive(Debug, Default)]
struct Applied {
    started: HashSet<Uuid>,
    ended: HashSet<Uuid>,
}

impl Applied {
    /// The answer for one change of the batch that was committed.
    fn answer(&self, change: &GameChange) -> Result<(), StoreError> {
        match change {
            GameChange::Create(_) | GameChange::Act(_, None) => Ok(()),
            GameChange::Act(_, Some(end)) => {
                if !self.ended.contains(&end.game_id) {
                    log_unrecorded_end(end.game_id, &StoreError::NotFound);
                }
                Ok(())
            }
            GameChange::Start(start) if self.started.contains(&start.game_id) => Ok(()),
            GameChange::End(end) if self.ended.contains(&end.game_id) => Ok(()),
            GameChange::Start(_) | GameChange::End(_) => Err(StoreError::NotFound),
        }
    }
}

/// The columns of a batch, one array per column, in the order the statement binds them.
#[derive(Default)]
struct Columns<'a> {
    // New games.
    new_ids: Vec<Uuid>,
    new_variants: Vec<&'static str>,
    new_creators: Vec<Uuid>,
    new_whites: Vec<Option<Uuid>>,
    new_blacks: Vec<Option<Uuid>>,
    new_color_choices: Vec<&'static str>,
    new_clock_initial_ms: Vec<Option<i64>>,
    new_clock_increment_ms: Vec<Option<i64>>,
    new_rated: Vec<bool>,
    new_start_positions: Vec<Option<&'a str>>,
    new_dice_commitments: Vec<Option<&'a str>>,
    new_dice_seeds: Vec<Option<&'a [u8]>>,
    // Starts.
    start_ids: Vec<Uuid>,
    start_whites: Vec<Uuid>,
    start_blacks: Vec<Uuid>,
    start_times: Vec<DateTime<Utc>>,
    // Actions.
    action_games: Vec<Uuid>,
    action_plies: Vec<i32>,
    action_machines: Vec<&'a str>,
    action_humans: Vec<&'a str>,
    action_white_ms: Vec<Option<i64>>,
    action_black_ms: Vec<Option<i64>>,
    action_rolls: Vec<Option<&'a str>>,
    // Ends.
    end_ids: Vec<Uuid>,
    end_statuses: Vec<&'static str>,
    end_results: Vec<&'static str>,
    end_reasons: Vec<&'static str>,
    end_times: Vec<DateTime<Utc>>,
}

impl<'a> Columns<'a> {
    fn of(changes: &'a [GameChange]) -> Columns<'a> {
        let mut columns = Columns::default();
        for change in changes {
            match change {
                GameChange::Create(game) => columns.push_game(game),
                GameChange::Start(start) => {
                    columns.start_ids.push(start.game_id);
                    columns.start_whites.push(start.white_id);
                    columns.start_blacks.push(start.black_id);
                    columns.start_times.push(start.started_at);
                }
                GameChange::Act(action, end) => {
                    columns.push_action(action);
                    if let Some(end) = end {
                        columns.push_end(end);
                    }
                }
                GameChange::End(end) => columns.push_end(end),
            }
        }
        columns
    }

    fn push_game(&mut self, game: &'a NewGame) {
        self.new_ids.push(game.game_id);
        self.new_variants.push(game.variant.key());
        self.new_creators.push(game.creator_id);
        self.new_whites.push(game.white_id);
        self.new_blacks.push(game.black_id);
        self.new_color_choices.push(game.color_choice.as_str());
        self.new_clock_initial_ms
            .push(game.clock.map(|c| super::games::bigint(c.initial_ms)));
        self.new_clock_increment_ms
            .push(game.clock.map(|c| super::games::bigint(c.increment_ms)));
        self.new_rated.push(game.rated);
        self.new_start_positions
            .push(game.start_position.as_deref());
        self.new_dice_commitments
            .push(game.dice_commitment.as_deref());
        self.new_dice_seeds.push(game.dice_seed.as_deref());
    }

    fn push_action(&mut self, action: &'a NewAction) {
        self.action_games.push(action.game_id);
        self.action_plies.push(action.ply);
        self.action_machines.push(&action.machine);
        self.action_humans.push(&action.human);
        self.action_white_ms.push(action.white_ms);
        self.action_black_ms.push(action.black_ms);
        self.action_rolls
            .push(action.rolls.as_ref().map(JsonText::as_str));
    }

    fn push_end(&mut self, end: &GameEnd) {
        self.end_ids.push(end.game_id);
        self.end_statuses.push(end.status().as_str());
        self.end_results.push(end.outcome.result_str());
        self.end_reasons.push(end.outcome.reason.as_str());
        self.end_times.push(end.ended_at);
    }
}

/// The whole batch as one statement. Its CTEs run against one snapshot and a game whose row
/// is written appears in only one of them, so their order does not matter. It returns the
/// ids of the games it started and ended, to tell which conditional updates found their game.
///
/// The two updates find their rows through `game_pkey`, one probe per game of the batch,
/// driven by the batch's own rows (a nested loop whose inner side is the index lookup).
/// `status || ''` keeps the planner from proving that the status test implies the predicate
/// of the partial index on unfinished games, which it would otherwise read whole on every
/// batch (every live game, and more as it bloats: 0.6 ms of a 0.8 ms batch with 400 games in
/// play). An extra `game_id = any(…)` is not wanted either: the planner then scans the index
/// for all of the batch's games first and compares each found row with every row of the batch
/// (a join filter), which grows with the square of the games started or ended at once (85 ms
/// against 14.5 ms for 1,000 ended games). Public so that a test can check that plan.
pub const APPLY_CHANGES: &str = "\
with created as (
    insert into game (game_id, variant, creator_id, white_id, black_id, color_choice,
                      clock_initial_ms, clock_increment_ms, rated, status,
                      start_position, dice_commitment, dice_seed)
    select c.game_id, c.variant, c.creator_id, c.white_id, c.black_id, c.color_choice,
           c.clock_initial_ms, c.clock_increment_ms, c.rated, 'waiting',
           c.start_position, c.dice_commitment, c.dice_seed
    from unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::uuid[], $6::text[],
                $7::int8[], $8::int8[], $9::bool[], $10::text[], $11::text[], $12::bytea[])
         as c(game_id, variant, creator_id, white_id, black_id, color_choice,
              clock_initial_ms, clock_increment_ms, rated, start_position, dice_commitment,
              dice_seed)
),
started as (
    update game g
    set status = 'active', white_id = s.white_id, black_id = s.black_id,
        started_at = s.started_at
    from unnest($13::uuid[], $14::uuid[], $15::uuid[], $16::timestamptz[])
         as s(game_id, white_id, black_id, started_at)
    where g.game_id = s.game_id and g.status || '' = 'waiting'
    returning g.game_id
),
acted as (
    insert into game_action (game_id, ply, machine, human, white_ms, black_ms, rolls)
    select a.game_id, a.ply, a.machine, a.human, a.white_ms, a.black_ms, a.rolls::jsonb
    from unnest($17::uuid[], $18::int4[], $19::text[], $20::text[],
                $21::int8[], $22::int8[], $23::text[])
         as a(game_id, ply, machine, human, white_ms, black_ms, rolls)
),
ended as (
    update game g
    set status = e.status, result = e.result, end_reason = e.end_reason,
        ended_at = e.ended_at
    from unnest($24::uuid[], $25::text[], $26::text[], $27::text[], $28::timestamptz[])
         as e(game_id, status, result, end_reason, ended_at)
    where g.game_id = e.game_id and g.status || '' in ('waiting', 'active')
    returning g.game_id
)
select array(select game_id from started), array(select game_id from ended)";

async fn apply_in_one_statement<'e>(
    executor: impl PgExecutor<'e>,
    changes: &[GameChange],
) -> Result<Applied, sqlx::Error> {
    let c = Columns::of(changes);
    let (started, ended): (Vec<Uuid>, Vec<Uuid>) = sqlx::query_as(APPLY_CHANGES)
        .bind(&c.new_ids)
        .bind(&c.new_variants)
        .bind(&c.new_creators)
        .bind(&c.new_whites)
        .bind(&c.new_blacks)
        .bind(&c.new_color_choices)
        .bind(&c.new_clock_initial_ms)
        .bind(&c.new_clock_increment_ms)
        .bind(&c.new_rated)
        .bind(&c.new_start_positions)
        .bind(&c.new_dice_commitments)
        .bind(&c.new_dice_seeds)
        .bind(&c.start_ids)
        .bind(&c.start_whites)
        .bind(&c.start_blacks)
        .bind(&c.start_times)
        .bind(&c.action_games)
        .bind(&c.action_plies)
        .bind(&c.action_machines)
        .bind(&c.action_humans)
        .bind(&c.action_white_ms)
        .bind(&c.action_black_ms)
        .bind(&c.action_rolls)
        .bind(&c.end_ids)
        .bind(&c.end_statuses)
        .bind(&c.end_results)
        .bind(&c.end_reasons)
        .bind(&c.end_times)
        .fetch_one(executor)
        .await?;
    Ok(Applied {
        started: started.into_iter().collect(),
        ended: ended.into_iter().collect(),
    })
}
