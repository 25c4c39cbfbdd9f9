//! `GET /api/games/{id}/chat`: a game's stored chat, for the replay. Anyone reads the
//! spectators' room; the game's players read their own room too, which nobody else ever
//! does, live or afterwards.

use crate::play::wire::game::{ChatLine, GameChat};
use crate::web::auth::MaybeUser;
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::GameIdPath;
use crate::web::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

/// A game's stored chat lines, oldest first: the spectators' room, and the players' room too
/// when the requester played in the game (`docs/protocol.md`, "Chat").
#[utoipa::path(
    get,
    path = "/api/games/{id}/chat",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The lines the requester may read, both rooms interleaved in the order they were written (at most 1,000 a game).", body = GameChat),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
    )
)]
pub(super) async fn game_chat(
    State(state): State<AppState>,
    MaybeUser(user): MaybeUser,
    GameIdPath(game_id): GameIdPath,
) -> Result<Json<GameChat>, ApiError> {
    let reader = user.map(|u| u.user_id);
    let records = state
        .store
        .game_chat(game_id, reader)
        .await?
        .ok_or(ApiError::NotFound("game_not_found"))?;
    Ok(Json(GameChat {
        game_id,
        chat: records.into_iter().map(ChatLine::from).collect(),
    }))
}

/// The route.
pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/games/{id}/chat", get(game_chat))
}
