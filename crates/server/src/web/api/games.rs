//! The game endpoints: create an open challenge and accept it (the clock and variant checks
//! they share with the lobby), a game's stored record, the games in a status, the variants.

use super::{action_views, result_text, revealed_seed, stored_game, ActionView};
use crate::game::{GameTerms, Seat};
use crate::rules::Variant;
use crate::store::{ColorChoice, GameRecord, GameStatus, GameSummary, TimeControl};
use crate::web::auth::CurrentUser;
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::{GameIdPath, JsonBody, QueryParams};
use crate::web::limits::Action;
use crate::web::proxy::ClientInfo;
use crate::web::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Deserialize, ToSchema)]
pub(super) struct ClockRequest {
    /// Each side's time, in minutes; may be fractional (0.5 is 30 seconds).
    #[schema(example = 3, minimum = 0, maximum = 180)]
    minutes: f64,
    /// Seconds added after each of a side's actions (some time or some increment is needed).
    #[schema(example = 2, maximum = 180)]
    increment: u64,
}

impl ClockRequest {
    /// The clock asked for, validated; None for no clock.
    pub(super) fn checked(clock: Option<&ClockRequest>) -> Result<Option<TimeControl>, ApiError> {
        clock
            .map(|c| time_control(c.minutes, c.increment))
            .transpose()
    }
}

/// Parses a colour choice; none is `random`.
pub(super) fn color_choice(text: Option<&str>) -> Result<ColorChoice, ApiError> {
    match text {
        None => Ok(ColorChoice::Random),
        Some(text) => text
            .parse()
            .map_err(|_| ApiError::invalid("invalid_color", "color is random, white or black")),
    }
}

#[derive(Deserialize, ToSchema)]
struct CreateGame {
    /// A playable variant (`GET /api/variants`).
    #[schema(value_type = Variant, example = "suicide")]
    variant: String,
    /// None for a game without a clock.
    clock: Option<ClockRequest>,
    /// The creator's colour: `random` (the default), `white` or `black`.
    #[serde(default)]
    #[schema(value_type = Option<ColorChoice>, example = "random")]
    color: Option<String>,
}

/// Where a game is: its id and its page.
#[derive(Serialize, ToSchema)]
pub(super) struct GameLink {
    game_id: Uuid,
    /// The game's page, `/game/{id}`.
    url: String,
}

impl GameLink {
    pub(super) fn new(game_id: Uuid) -> GameLink {
        GameLink {
            game_id,
            url: format!("/game/{game_id}"),
        }
    }
}

/// Validates a clock request: minutes may be fractional (½ minute = 30 s); the bounds are
/// [`TimeControl::checked`]'s, the lobby's too.
pub fn time_control(minutes: f64, increment: u64) -> Result<TimeControl, ApiError> {
    if !minutes.is_finite() || minutes < 0.0 {
        return Err(ApiError::invalid(
            "invalid_clock",
            "minutes are a number from 0 up",
        ));
    }
    // Both saturate: a figure too large for the clock is refused by `checked` as any other.
    let initial_ms = (minutes * 60_000.0).round() as u64;
    let increment_ms = increment.saturating_mul(1000);
    TimeControl {
        initial_ms,
        increment_ms,
    }
    .checked()
    .map_err(|message| ApiError::invalid("invalid_clock", message))
}

/// A variant id from a request; `unknown_variant` (422) if there is no such variant.
pub fn parse_variant(text: &str) -> Result<Variant, ApiError> {
    text.parse().map_err(|e: crate::rules::UnknownVariant| {
        ApiError::invalid("unknown_variant", e.to_string())
    })
}

/// Parses a variant id that must be playable.
pub fn playable_variant(text: &str) -> Result<Variant, ApiError> {
    let variant = parse_variant(text)?;
    if !variant.is_playable() {
        return Err(ApiError::invalid(
            "variant_not_playable",
            format!("{variant} is not playable yet"),
        ));
    }
    Ok(variant)
}

/// Creates an open challenge that anyone else may accept.
#[utoipa::path(
    post,
    path = "/api/games",
    tag = "games",
    request_body = CreateGame,
    responses(
        (status = 201, description = "The challenge is open.", body = GameLink),
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 409, description = "`too_many_challenges`, `too_many_games`.", body = ErrorBody),
        (status = 422, description = "`unknown_variant`, `variant_not_playable`, `invalid_clock`, `invalid_color`, `bad_body`.", body = ErrorBody),
    )
)]
async fn create_game(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    JsonBody(body): JsonBody<CreateGame>,
) -> Result<Response, ApiError> {
    let variant = playable_variant(&body.variant)?;
    let time_control = ClockRequest::checked(body.clock.as_ref())?;
    let color = color_choice(body.color.as_deref())?;
    let seat = Seat {
        user_id: user.user_id,
        name: user.username.clone(),
    };
    let terms = GameTerms {
        variant,
        time_control,
        rated: false,
    };
    // Last, so that a request refused for its terms costs nothing.
    state.limits.check(Action::CreateGame, &client)?;
    let game_id = state.games.create_open(seat, terms, color).await?;
    Ok((StatusCode::CREATED, Json(GameLink::new(game_id))).into_response())
}

/// Takes the free seat of an open challenge: the game starts.
#[utoipa::path(
    post,
    path = "/api/games/{id}/accept",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The game has started.", body = GameLink),
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
        (status = 409, description = "`own_game`, `game_already_started`, `game_over`, `too_many_games`.", body = ErrorBody),
    )
)]
async fn accept_game(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    GameIdPath(game_id): GameIdPath,
) -> Result<Json<GameLink>, ApiError> {
    let handle = state.games.find(game_id).await?;
    handle
        .join(Seat {
            user_id: user.user_id,
            name: user.username,
        })
        .await?;
    Ok(Json(GameLink::new(game_id)))
}

/// The public form of a stored game: its result, its actions as [`ActionView`]s, and the
/// dice seed only once the game is over.
#[derive(Serialize, ToSchema)]
struct GameRecordView {
    #[serde(flatten)]
    record: GameRecord,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` while the game is undecided (and for an aborted game).
    #[schema(value_type = String, example = "1-0")]
    result: &'static str,
    /// The dice seed (hex), once the game is over; null before, and for variants without dice.
    dice_seed: Option<String>,
    actions: Vec<ActionView>,
}

/// A game's stored record: settings, players, state, result and every action.
#[utoipa::path(
    get,
    path = "/api/games/{id}",
    tag = "games",
    params(GameIdPath),
    responses(
        (status = 200, description = "The game.", body = GameRecordView),
        (status = 404, description = "`game_not_found`.", body = ErrorBody),
    )
)]
async fn get_game(
    State(state): State<AppState>,
    GameIdPath(game_id): GameIdPath,
) -> Result<Json<GameRecordView>, ApiError> {
    let record = stored_game(&state, game_id).await?;
    Ok(Json(GameRecordView {
        result: result_text(&record),
        dice_seed: revealed_seed(&record),
        actions: action_views(&record),
        record,
    }))
}

/// One variant the server knows.
#[derive(Serialize, ToSchema)]
struct VariantInfo {
    id: Variant,
    #[schema(value_type = String, example = "Suicide Chess")]
    name: &'static str,
    /// Whether games of it can be created.
    playable: bool,
}

#[derive(Serialize, ToSchema)]
struct VariantList {
    variants: Vec<VariantInfo>,
}

/// Every variant, and whether it is playable.
#[utoipa::path(
    get,
    path = "/api/variants",
    tag = "games",
    responses((status = 200, description = "The variants.", body = VariantList))
)]
async fn variants() -> Json<VariantList> {
    let variants = Variant::ALL
        .iter()
        .map(|&v| VariantInfo {
            id: v,
            name: v.display_name(),
            playable: v.is_playable(),
        })
        .collect();
    Json(VariantList { variants })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct GamesQuery {
    /// `waiting`, `active` (the default), `finished` or `aborted`.
    #[param(value_type = Option<GameStatus>)]
    status: Option<String>,
    /// 1 to 200 (50 by default); out of that range is brought into it.
    limit: Option<i64>,
}

/// The newest games in one status.
#[derive(Serialize, ToSchema)]
struct GamesInStatus {
    status: GameStatus,
    games: Vec<GameSummary>,
}

/// The newest games in one status: `active` (the default) for games to watch.
#[utoipa::path(
    get,
    path = "/api/games",
    tag = "games",
    params(GamesQuery),
    responses(
        (status = 200, description = "The games, newest first.", body = GamesInStatus),
        (status = 422, description = "`invalid_status`, `bad_query`.", body = ErrorBody),
    )
)]
async fn list_games(
    State(state): State<AppState>,
    QueryParams(query): QueryParams<GamesQuery>,
) -> Result<Json<GamesInStatus>, ApiError> {
    let status: GameStatus = match query.status.as_deref() {
        None | Some("") => GameStatus::Active,
        Some(text) => text.parse().map_err(|_| {
            ApiError::invalid(
                "invalid_status",
                "status is waiting, active, finished or aborted",
            )
        })?,
    };
    let limit = query.limit.unwrap_or(50).clamp(1, 200);
    let games = state.store.games_in_status(status, limit).await?;
    Ok(Json(GamesInStatus { status, games }))
}

/// The routes of this module's endpoints.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/games", post(create_game).get(list_games))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/accept", post(accept_game))
        .route("/api/variants", get(variants))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_are_validated() {
        assert_eq!(
            time_control(3.0, 2).ok(),
            Some(TimeControl {
                initial_ms: 180_000,
                increment_ms: 2_000
            })
        );
        assert_eq!(
            time_control(0.5, 0).ok().map(|t| t.initial_ms),
            Some(30_000)
        );
        assert!(time_control(0.0, 0).is_err());
        assert!(time_control(-1.0, 0).is_err());
        assert!(time_control(f64::NAN, 0).is_err());
        assert!(time_control(500.0, 0).is_err());
        assert!(time_control(5.0, 1000).is_err());
        assert!(time_control(5.0, u64::MAX).is_err());
        assert!(time_control(f64::INFINITY, 0).is_err());
        // The shortest clocks: a quarter of a minute, or no minutes and a second's increment.
        assert!(time_control(0.25, 0).is_ok() && time_control(0.0, 1).is_ok());
        assert!(time_control(0.0001, 0).is_err());
        assert!(time_control(0.2, 5).is_err());
    }
}
