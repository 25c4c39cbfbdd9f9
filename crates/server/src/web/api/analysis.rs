//! `GET /api/games/{id}/analysis`: the engine's analysis of a finished game, for the replay
//! page. The first call starts it ([`crate::analysis`]); later calls poll it. The service
//! lives with this router, one per server.

use super::stored_game;
use crate::analysis::{
    positions, Analyses, AnalysisReport, AnalysisSettings, PositionsError, StartError,
};
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::GameIdPath;
use crate::web::limits::Action;
use crate::web::proxy::ClientInfo;
use crate::web::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Extension, Json, Router};

/// A finished game's engine analysis so far, started by the first request (`docs/protocol.md`,
/// "Analysis"). Poll it about once a second until `status` is `done`.
#[utoipa::path(
    get,
    path = "/api/games/{id}/analysis",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The analysis so far: `running` (more plies come), `done`, or `busy` (the server is analysing as many games as it may; ask again to resume).", body = AnalysisReport),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
        (status = 409, description = "`game_in_progress`: only a game that is over can be analysed.", body = ErrorBody),
        (status = 422, description = "`game_too_long`: a game of more than 999 plies.", body = ErrorBody),
        (status = 429, description = "`rate_limited`: this address started too many analyses lately.", body = ErrorBody),
    )
)]
async fn analysis(
    State(state): State<AppState>,
    Extension(analyses): Extension<Analyses>,
    client: ClientInfo,
    GameIdPath(game_id): GameIdPath,
) -> Result<Json<AnalysisReport>, ApiError> {
    if let Some(report) = analyses.existing(game_id) {
        return Ok(Json(report));
    }
    let record = stored_game(&state, game_id).await?;
    let positions = positions(&record).map_err(|e| match e {
        PositionsError::NotOver => ApiError::Refused {
            status: StatusCode::CONFLICT,
            code: "game_in_progress",
            message: "only a game that is over can be analysed".into(),
        },
        PositionsError::Replay(cause) => ApiError::Internal(format!("game {game_id}: {cause}")),
    })?;
    let admit = || state.limits.check(Action::StartAnalysis, &client);
    let pool = state.games.engine_pool();
    match analyses.start(game_id, record.variant, positions, pool, admit) {
        Ok(report) => Ok(Json(report)),
        Err(StartError::Refused(limited)) => Err(limited.into()),
        Err(StartError::TooLong) => Err(ApiError::invalid(
            "game_too_long",
            format!(
                "only games of up to {} plies can be analysed",
                analyses.settings().max_positions.saturating_sub(1)
            ),
        )),
    }
}

/// The route, with this server's analysis service.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/games/{id}/analysis", get(analysis))
        .layer(Extension(Analyses::new(AnalysisSettings::default())))
}
