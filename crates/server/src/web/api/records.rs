//! A stored game in other forms: the PGN-like export, the dice record that
//! `oddboard rules verify-dice` checks, and the replay (the rules snapshot after every ply).

use super::{action_views, result_text, revealed_seed, stored_game, ActionView};
use crate::rules::dice::RollRecord;
use crate::rules::variant::drehs::record::{DiceRecord, RecordedAction};
use crate::rules::{AnyGame, Variant};
use crate::store::{AdjustmentRecord, GameRecord, GameStatus, TimeControl};
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::GameIdPath;
use crate::web::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// Escapes a PGN tag value.
fn tag(name: &str, value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[{name} \"{escaped}\"]\n")
}

/// The PGN-like export of a stored game.
pub fn export_text(record: &GameRecord) -> String {
    let variant = record.variant;
    let result = result_text(record);
    let mut out = String::new();
    out.push_str(&tag("Event", "Oddboard game"));
    out.push_str(&tag("Site", "Oddboard"));
    out.push_str(&tag(
        "Date",
        &record.created_at.format("%Y.%m.%d").to_string(),
    ));
    out.push_str(&tag("White", record.white_name.as_deref().unwrap_or("?")));
    out.push_str(&tag("Black", record.black_name.as_deref().unwrap_or("?")));
    out.push_str(&tag("Result", result));
    out.push_str(&tag("Variant", variant.key()));
    out.push_str(&tag("VariantName", variant.display_name()));
    out.push_str(&tag("GameId", &record.game_id.to_string()));
    let time_control = record.clock.map_or("-".to_string(), |c| {
        format!("{}+{}", c.initial_ms / 1000, c.increment_ms / 1000)
    });
    out.push_str(&tag("TimeControl", &time_control));
    if let Some(outcome) = record.outcome {
        out.push_str(&tag("Termination", outcome.reason.as_str()));
    }
    let standard = AnyGame::start(variant).ok().map(|g| g.position());
    if let Some(position) = &record.start_position {
        if Some(position) != standard.as_ref() {
            out.push_str(&tag("SetUp", "1"));
            out.push_str(&tag("FEN", position));
        }
    }
    if let Some(commitment) = &record.dice_commitment {
        out.push_str(&tag("DiceCommitment", commitment));
    }
    if let Some(seed) = revealed_seed(record) {
        out.push_str(&tag("DiceSeed", &seed));
    }
    out.push('\n');
    let mut line = String::new();
    for action in &record.actions {
        let ply = action.ply.max(1);
        let number = (ply + 1) / 2;
        if ply % 2 == 1 {
            line.push_str(&format!("{number}. "));
        } else if line.is_empty() {
            line.push_str(&format!("{number}... "));
        }
        line.push_str(&action.human);
        line.push(' ');
        if let Some(effects) = action
            .rolls
            .as_ref()
            .and_then(|r| r.get("effects"))
            .and_then(|e| e.as_array())
        {
            let text: Vec<&str> = effects.iter().filter_map(|e| e.as_str()).collect();
            if !text.is_empty() {
                line.push_str(&format!("{{{}}} ", text.join("; ").replace('}', ")")));
            }
        }
    }
    line.push_str(result);
    // Wrap at 80 columns as PGN readers expect.
    let mut width = 0;
    for word in line.split(' ') {
        if width > 0 && width + word.len() + 1 > 80 {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += word.len();
    }
    out.push('\n');
    out
}

/// The game as PGN-like text (`docs/protocol.md`, "Export").
#[utoipa::path(
    get,
    path = "/games/{id}/export",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The game's tags and moves.", content_type = "text/plain", body = String,
            headers(("Content-Disposition" = String, description = "`inline; filename=\"oddboard-{id}.pgn\"`"))),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
    )
)]
async fn export_game(
    State(state): State<AppState>,
    GameIdPath(game_id): GameIdPath,
) -> Result<Response, ApiError> {
    let record = stored_game(&state, game_id).await?;
    let text = export_text(&record);
    let disposition = format!("inline; filename=\"oddboard-{game_id}.pgn\"");
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// The dice record of a finished dice game, in the format `oddboard rules verify-dice` reads:
/// the stored roll log with the revealed seed, so anyone can recompute every roll.
#[utoipa::path(
    get,
    path = "/api/games/{id}/dice",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The game record file that `oddboard rules verify-dice` checks (`docs/rules/drehs.md`).", body = serde_json::Value),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
        (status = 422, description = "`no_dice_record`: not a finished game of a dice variant.", body = ErrorBody),
    )
)]
async fn dice_record(
    State(state): State<AppState>,
    GameIdPath(game_id): GameIdPath,
) -> Result<Response, ApiError> {
    let record = stored_game(&state, game_id).await?;
    let (Some(commitment), Some(seed)) = (record.dice_commitment.clone(), revealed_seed(&record))
    else {
        return Err(ApiError::invalid(
            "no_dice_record",
            "only finished games of a dice variant have a dice record",
        ));
    };
    let start_position = match &record.start_position {
        Some(position) => position.clone(),
        None => AnyGame::start(record.variant)
            .map(|g| g.position())
            .map_err(|e| ApiError::Internal(e.to_string()))?,
    };
    // Roll indexes run on from the start position's next index through every stored roll.
    let first_index = start_position
        .split_whitespace()
        .last()
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0);
    let actions = recorded_actions(&record, first_index);
    // `verify-dice` replays the actions and checks the result it reaches. Only an end the rules
    // decided (a killed king, repetition…) is reproducible that way; a resignation, a flag or
    // an agreement is the server's, so the record states no result then.
    let rules_result = record
        .outcome
        .filter(|o| replayed_outcome(&record, &start_position) == Some(*o));
    let dice_record = DiceRecord {
        variant: record.variant,
        game_id: game_id.to_string(),
        commitment,
        seed,
        start_position,
        actions,
        result: rules_result.map(|o| o.result_str().to_string()),
        reason: rules_result.map(|o| o.reason.as_str().to_string()),
    };
    Ok(Json(dice_record).into_response())
}

/// The stored actions as a dice record lists them, each with its rolls (numbered on from
/// `first_index`) and effects.
fn recorded_actions(record: &GameRecord, first_index: u64) -> Vec<RecordedAction> {
    let mut index = first_index;
    record
        .actions
        .iter()
        .map(|action| {
            let stored = action.rolls.clone().unwrap_or(serde_json::Value::Null);
            let rolls: Vec<RollRecord> = stored["rolls"]
                .as_array()
                .map(|rolls| {
                    rolls
                        .iter()
                        .map(|roll| {
                            let entry = roll_record(roll, index);
                            index += 1;
                            entry
                        })
                        .collect()
                })
                .unwrap_or_default();
            let effects = stored["effects"]
                .as_array()
                .map(|e| {
                    e.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            RecordedAction {
                action: action.machine.clone(),
                human: Some(action.human.clone()),
                rolls,
                effects,
            }
        })
        .collect()
}

/// One stored roll (`{"purpose","dice","value"}`) as the roll numbered `index`.
fn roll_record(roll: &serde_json::Value, index: u64) -> RollRecord {
    RollRecord {
        index,
        purpose: roll["purpose"].as_str().unwrap_or_default().to_string(),
        dice: roll["dice"].as_str().unwrap_or_default().to_string(),
        value: roll["value"]
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(0),
    }
}

/// The outcome the rules reach when the stored actions are replayed with the revealed seed.
fn replayed_outcome(record: &GameRecord, start_position: &str) -> Option<crate::rules::Outcome> {
    let mut game = AnyGame::from_position(record.variant, start_position).ok()?;
    let seed: [u8; 32] = record.dice_seed.as_deref()?.try_into().ok()?;
    game.set_dice(seed, &record.game_id.to_string());
    for action in &record.actions {
        game.play(&action.machine).ok()?;
    }
    game.outcome()
}

/// Every position of a stored game, rebuilt with the rules engine from its start position
/// and stored actions: `snapshots[0]` is the start, `snapshots[n]` the position after ply n.
/// A dice game is rebuilt with its seed even while it runs: the snapshots hold only the rolls
/// already made, which every viewer of the game has seen, never the seed (which the answer
/// reveals only once the game is over) nor anything about the rolls to come.
pub fn replay_snapshots(record: &GameRecord) -> Result<Vec<crate::rules::Snapshot>, ApiError> {
    let mut snapshots = Vec::with_capacity(record.actions.len() + 1);
    replayed_game(record, |game| snapshots.push(game.snapshot()))?;
    Ok(snapshots)
}

/// The position a stored game stands at after its last stored action (its final position
/// once it is over), rebuilt as [`replay_snapshots`] rebuilds every one: the same snapshot as
/// the last of those, the seed of a running dice game just as secret.
pub fn final_snapshot(record: &GameRecord) -> Result<crate::rules::Snapshot, ApiError> {
    Ok(replayed_game(record, |_| {})?.snapshot())
}

/// A stored game played from its start through its stored actions, `each` called with the
/// start and after every action.
fn replayed_game(record: &GameRecord, mut each: impl FnMut(&AnyGame)) -> Result<AnyGame, ApiError> {
    let mut game = match &record.start_position {
        Some(position) => AnyGame::from_position(record.variant, position)
            .map_err(|e| ApiError::Internal(format!("stored start position: {e}")))?,
        None => AnyGame::start(record.variant).map_err(|e| ApiError::Internal(e.to_string()))?,
    };
    if record.variant.has_dice() {
        let seed: [u8; 32] = record
            .dice_seed
            .as_deref()
            .and_then(|seed| seed.try_into().ok())
            .ok_or_else(|| ApiError::Internal("a dice game without its stored seed".into()))?;
        game.set_dice(seed, &record.game_id.to_string());
    }
    each(&game);
    for action in &record.actions {
        game.play(&action.machine).map_err(|e| {
            ApiError::Internal(format!(
                "stored action {} `{}`: {e}",
                action.ply, action.machine
            ))
        })?;
        each(&game);
    }
    Ok(game)
}

/// A stored game with the rules snapshot of every position, for the replay page.
#[derive(Serialize, ToSchema)]
struct Replay {
    game_id: Uuid,
    variant: Variant,
    #[schema(value_type = String)]
    variant_name: &'static str,
    white: Option<String>,
    black: Option<String>,
    status: GameStatus,
    outcome: Option<crate::rules::Outcome>,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` while the game is undecided (and for an aborted game).
    #[schema(value_type = String)]
    result: &'static str,
    clock: Option<TimeControl>,
    created_at: chrono::DateTime<chrono::Utc>,
    dice_commitment: Option<String>,
    dice_seed: Option<String>,
    actions: Vec<ActionView>,
    /// Takebacks and gifts of more time, in order; each `ply` is the number of actions
    /// right after it (the actions a takeback removed are not in `actions`).
    adjustments: Vec<AdjustmentRecord>,
    /// `snapshots[0]` is the start, `snapshots[n]` the position after ply n: the rules
    /// snapshot the game socket sends as `rules` (`docs/protocol.md`).
    #[schema(value_type = Vec<Object>)]
    snapshots: Vec<crate::rules::Snapshot>,
}

/// Every position of a stored game, for the replay page.
#[utoipa::path(
    get,
    path = "/api/games/{id}/replay",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The game and its positions.", body = Replay),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
    )
)]
async fn replay(
    State(state): State<AppState>,
    GameIdPath(game_id): GameIdPath,
) -> Result<Json<Replay>, ApiError> {
    let record = stored_game(&state, game_id).await?;
    let snapshots = replay_snapshots(&record)?;
    let dice_seed = revealed_seed(&record);
    let result = result_text(&record);
    let actions = action_views(&record);
    Ok(Json(Replay {
        game_id,
        variant: record.variant,
        variant_name: record.variant.display_name(),
        white: record.white_name,
        black: record.black_name,
        status: record.status,
        outcome: record.outcome,
        result,
        clock: record.clock,
        created_at: record.created_at,
        dice_commitment: record.dice_commitment,
        dice_seed,
        actions,
        adjustments: record.adjustments,
        snapshots,
    }))
}

/// The routes of this module's endpoints.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/games/{id}/replay", get(replay))
        .route("/games/{id}/export", get(export_game))
        .route("/api/games/{id}/dice", get(dice_record))
}
