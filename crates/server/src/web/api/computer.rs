//! Games against the computer: `POST /api/games/computer` starts one at once, at any level,
//! in any variant, with any clock or none, as either colour. The computer is a player account
//! per level (`Computer-level-N`); the game is unrated, stored and replayable like any other,
//! and played over the same game socket.

use super::games::{color_choice, playable_variant, ClockRequest, GameLink};
use crate::game::Seat;
use crate::rules::Variant;
use crate::store::ColorChoice;
use crate::web::auth::CurrentUser;
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::JsonBody;
use crate::web::limits::Action;
use crate::web::proxy::ClientInfo;
use crate::web::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use oddboard_engine::Level;
use serde::Deserialize;
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
pub(super) struct ComputerGame {
    /// A playable variant (`GET /api/variants`).
    #[schema(value_type = Variant, example = "chad")]
    variant: String,
    /// The computer's strength: 0 plays a random legal action, 1 is a beginner, 8 the
    /// strongest.
    #[schema(example = 3, minimum = 0, maximum = 8)]
    level: u8,
    /// None for a game without a clock. The computer's clock runs while it thinks.
    clock: Option<ClockRequest>,
    /// Your colour: `random` (the default), `white` or `black`.
    #[serde(default)]
    #[schema(value_type = Option<ColorChoice>, example = "white")]
    color: Option<String>,
}

/// Starts an unrated game against the computer.
#[utoipa::path(
    post,
    path = "/api/games/computer",
    tag = "games",
    request_body = ComputerGame,
    responses(
        (status = 201, description = "The game has started; open its page or socket.", body = GameLink),
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 409, description = "`too_many_games_in_progress`, `too_many_computer_games`.", body = ErrorBody),
        (status = 422, description = "`unknown_variant`, `variant_not_playable`, `invalid_level`, `invalid_clock`, `invalid_color`, `bad_body`.", body = ErrorBody),
        (status = 429, description = "`rate_limited`.", body = ErrorBody),
        (status = 503, description = "`computer_busy`: the computer plays as many games as it may; try again shortly.", body = ErrorBody),
    )
)]
pub(super) async fn play_computer(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    JsonBody(body): JsonBody<ComputerGame>,
) -> Result<Response, ApiError> {
    let variant = playable_variant(&body.variant)?;
    if body.level > Level::MAX.number() {
        return Err(ApiError::invalid(
            "invalid_level",
            "level is a number from 0 to 8",
        ));
    }
    let time_control = ClockRequest::checked(body.clock.as_ref())?;
    let color = color_choice(body.color.as_deref())?;
    let player = Seat {
        user_id: user.user_id,
        name: user.username,
    };
    // Last, so that a request refused for its terms costs nothing.
    state.limits.check(Action::CreateGame, &client)?;
    let game_id = state
        .games
        .create_against_computer(player, Level::new(body.level), variant, time_control, color)
        .await?;
    Ok((StatusCode::CREATED, Json(GameLink::new(game_id))).into_response())
}

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/games/computer", post(play_computer))
}
