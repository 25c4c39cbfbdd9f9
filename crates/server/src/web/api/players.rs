//! A player's history: their games, newest first and paged, and their results per variant.

use crate::rules::Variant;
use crate::store::{GameSummary, PlayerResult, VariantResults};
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::{PathParam, QueryParams};
use crate::web::openapi::UserNameParam;
use crate::web::AppState;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct HistoryQuery {
    /// Only games of this variant.
    #[param(value_type = Option<Variant>)]
    variant: Option<String>,
    /// `win`, `loss` or `draw`, from the user's side.
    result: Option<PlayerResult>,
    /// From 1 (the default).
    page: Option<i64>,
    /// 1 to 100 (20 by default); out of that range is brought into it.
    per_page: Option<i64>,
}

/// A page of a player's games, newest first.
#[derive(Serialize, ToSchema)]
struct UserGames {
    /// The stored spelling of the player's name.
    user: String,
    page: i64,
    per_page: i64,
    games: Vec<GameSummary>,
}

/// A player's finished games counted by result, one entry per variant played.
#[derive(Serialize, ToSchema)]
struct UserResults {
    user: String,
    results: Vec<VariantResults>,
}

/// The stored spelling of a registered or guest user's name, looked up in any case.
async fn known_username(state: &AppState, name: &str) -> Result<String, ApiError> {
    let user = state
        .store
        .user_by_name(name)
        .await?
        .ok_or(ApiError::NotFound("user_not_found"))?;
    Ok(user.username)
}

/// A player's games, newest first, paged, optionally of one variant or result.
#[utoipa::path(
    get,
    path = "/api/users/{name}/games",
    tag = "games",
    params(UserNameParam, HistoryQuery),
    responses(
        (status = 200, description = "One page of games.", body = UserGames),
        (status = 404, description = "`user_not_found`.", body = ErrorBody),
        (status = 422, description = "`unknown_variant`, `bad_query`.", body = ErrorBody),
    )
)]
async fn user_games(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    QueryParams(query): QueryParams<HistoryQuery>,
) -> Result<Json<UserGames>, ApiError> {
    let username = known_username(&state, &name).await?;
    let variant = match query.variant.as_deref() {
        None | Some("") => None,
        Some(text) => Some(super::parse_variant(text)?),
    };
    let per_page = query.per_page.unwrap_or(20).clamp(1, 100);
    let page = query.page.unwrap_or(1).max(1);
    // Saturating: a page past the end, however far, is an empty page, not an overflow.
    let offset = (page - 1).saturating_mul(per_page);
    let games = state
        .store
        .user_games(&username, variant, query.result, per_page, offset)
        .await?;
    Ok(Json(UserGames {
        user: username,
        page,
        per_page,
        games,
    }))
}

/// A player's finished games counted by result, per variant (the player page's table).
#[utoipa::path(
    get,
    path = "/api/users/{name}/results",
    tag = "games",
    params(UserNameParam),
    responses(
        (status = 200, description = "Results per variant.", body = UserResults),
        (status = 404, description = "`user_not_found`.", body = ErrorBody),
    )
)]
async fn user_results(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
) -> Result<Json<UserResults>, ApiError> {
    let username = known_username(&state, &name).await?;
    let results = state.store.user_results(&username).await?;
    Ok(Json(UserResults {
        user: username,
        results,
    }))
}

/// The routes of this module's endpoints.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/users/{name}/games", get(user_games))
        .route("/api/users/{name}/results", get(user_results))
}
