//! A stored game in other forms, served: the PGN-like export, the dice record that
//! `oddboard rules verify-dice` checks, and the replay (the rules snapshot after every ply).
//! Each is built by the one `Replay` and its record formats in `oddboard_play::replay`.

use super::{action_views, result_text, revealed_seed, stored_game, ActionView};
use crate::play::replay::dice::NoDiceRecord;
use crate::play::replay::Seed;
use crate::rules::Variant;
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

/// The PGN-like export of a stored game (`oddboard_play::replay::pgn`).
pub use crate::play::replay::pgn::export_text;

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
    let dice_record = crate::play::replay::dice::dice_record(&record).map_err(|e| match e {
        NoDiceRecord::NotAvailable => ApiError::invalid(
            "no_dice_record",
            "only finished games of a dice variant have a dice record",
        ),
        NoDiceRecord::BadSetup(why) => ApiError::Internal(why),
    })?;
    Ok(Json(dice_record).into_response())
}

/// Every position of a stored game ([`Replay::snapshots`](crate::play::replay::Replay::snapshots)): `snapshots[0]` is the start,
/// `snapshots[n]` the position after ply n. A dice game is rebuilt with its seed even while it
/// runs: the snapshots hold only the rolls already made, which every viewer of the game has
/// seen, never the seed (which the answer reveals only once the game is over) nor anything
/// about the rolls to come.
pub fn replay_snapshots(record: &GameRecord) -> Result<Vec<crate::rules::Snapshot>, ApiError> {
    crate::play::replay::Replay::new(record, Seed::Stored)
        .snapshots()
        .map_err(|e| ApiError::Internal(e.to_string()))
}

/// The position a stored game stands at after its last stored action (its final position
/// once it is over): the same snapshot as the last of [`replay_snapshots`], the seed of a
/// running dice game just as secret.
pub fn final_snapshot(record: &GameRecord) -> Result<crate::rules::Snapshot, ApiError> {
    crate::play::replay::Replay::new(record, Seed::Stored)
        .final_game()
        .map(|game| game.snapshot())
        .map_err(|e| ApiError::Internal(e.to_string()))
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
