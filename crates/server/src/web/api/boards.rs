//! A game's position as one rules snapshot (`GET /api/games/{id}/board`): the final position
//! of a finished game, the current one of a game in progress. It is what a small picture of
//! the game needs (the player page's recent games) without the whole replay.

use super::records::final_snapshot;
use super::stored_game;
use crate::rules::{Outcome, Snapshot, Variant};
use crate::store::GameStatus;
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

/// How long a browser may keep the board of a game that is over: it never changes again.
const OVER_CACHE_CONTROL: &str = "public, max-age=86400";

/// A game and the position it stands at.
#[derive(Serialize, ToSchema)]
struct GameBoard {
    game_id: Uuid,
    variant: Variant,
    white: Option<String>,
    black: Option<String>,
    status: GameStatus,
    outcome: Option<Outcome>,
    /// The actions played to reach `rules`.
    ply: usize,
    /// The rules snapshot after the last stored action, as the game socket sends `rules`
    /// (`docs/protocol.md`). A running dice game's seed is not in it.
    #[schema(value_type = Object)]
    rules: Snapshot,
}

/// The position a game stands at: the final one once it is over.
#[utoipa::path(
    get,
    path = "/api/games/{id}/board",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The game and its position.", body = GameBoard),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
    )
)]
async fn game_board(
    State(state): State<AppState>,
    GameIdPath(game_id): GameIdPath,
) -> Result<Response, ApiError> {
    let record = stored_game(&state, game_id).await?;
    let rules = final_snapshot(&record)?;
    let over = record.status.is_over();
    let board = GameBoard {
        game_id,
        variant: record.variant,
        white: record.white_name,
        black: record.black_name,
        status: record.status,
        outcome: record.outcome,
        ply: record.actions.len(),
        rules,
    };
    let cache = if over { OVER_CACHE_CONTROL } else { "no-store" };
    Ok(([(header::CACHE_CONTROL, cache)], Json(board)).into_response())
}

/// The routes of this module's endpoints.
pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/games/{id}/board", get(game_board))
}
