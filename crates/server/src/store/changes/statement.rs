//! The one statement that writes a whole batch of changes: four data-modifying CTEs
//! (create, start, act, end), each fed by `unnest` over one array per column.

use super::log_unrecorded_end;
use crate::store::{GameChange, GameEnd, JsonText, NewAction, NewGame, StoreError};
use chrono::{DateTime, Utc};
use sqlx::PgExecutor;
use std::collections::HashSet;
use uuid::Uuid;

/// Which conditional updates of the one-statement path found their game.
#[derive(Debug, Default)]
pub(super) struct Applied {
    pub started: HashSet<Uuid>,
    pub ended: HashSet<Uuid>,
}

impl Applied {
    /// The answer for one change of the batch that was committed.
    pub(super) fn answer(&self, change: &GameChange) -> Result<(), StoreError> {
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
            // Never in a batch written as one statement (see `Store::apply_changes`).
            GameChange::Start(_)
            | GameChange::End(_)
            | GameChange::Takeback(_)
            | GameChange::MoreTime(_) => Err(StoreError::NotFound),
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
                // Written on the one-by-one path only.
                GameChange::Takeback(_) | GameChange::MoreTime(_) => {}
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
        self.new_clock_initial_ms.push(
            game.clock
                .map(|c| crate::store::games::bigint(c.initial_ms)),
        );
        self.new_clock_increment_ms.push(
            game.clock
                .map(|c| crate::store::games::bigint(c.increment_ms)),
        );
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

pub(super) async fn apply_in_one_statement<'e>(
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
