//! JSON endpoints for games and history, and the PGN-like text export.
//!
//! - `POST /api/games`: create an open challenge (variant, clock, colour).
//! - `POST /api/games/{id}/accept`: take the free seat.
//! - `GET /api/games/{id}`: the whole record with every action, clocks and result.
//! - `GET /api/users/{name}/games`: a player's games, newest first, paged, by variant.
//! - `GET /games/{id}/export`: the game as PGN-like text.
//! - `GET /api/games/{id}/dice`: a finished dice game's roll log for `rules verify-dice`.
//! - `GET /api/variants`: the variants and whether they are playable.
//! - `GET /api/games?status=active`: the newest games in a status (games to watch).
//! - `GET /api/games/{id}/replay`: the rules snapshot after every ply, for the replay page.

use super::auth::CurrentUser;
use super::error::{ApiError, ErrorBody};
use super::extract::{GameIdPath, JsonBody, PathParam, QueryParams};
use super::limits::Action;
use super::openapi::UserNameParam;
use super::proxy::ClientInfo;
use super::AppState;
use crate::game::{GameTerms, Seat};
use crate::rules::dice::RollRecord;
use crate::rules::variant::drehs::record::{DiceRecord, RecordedAction};
use crate::rules::{AnyGame, Variant};
use crate::store::{
    ColorChoice, GameRecord, GameStatus, GameSummary, PlayerResult, TimeControl, VariantResults,
};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Deserialize, ToSchema)]
struct ClockRequest {
    /// Each side's time, in minutes; may be fractional (0.5 is 30 seconds).
    #[schema(example = 3, minimum = 0, maximum = 180)]
    minutes: f64,
    /// Seconds added after each of a side's actions (some time or some increment is needed).
    #[schema(example = 2, maximum = 180)]
    increment: u64,
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
struct GameLink {
    game_id: Uuid,
    /// The game's page, `/game/{id}`.
    url: String,
}

impl GameLink {
    fn new(game_id: Uuid) -> GameLink {
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

/// Parses a variant id that must be playable.
pub fn playable_variant(text: &str) -> Result<Variant, ApiError> {
    let variant: Variant = text.parse().map_err(|e: crate::rules::UnknownVariant| {
        ApiError::invalid("unknown_variant", e.to_string())
    })?;
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
    let time_control = match body.clock {
        Some(c) => Some(time_control(c.minutes, c.increment)?),
        None => None,
    };
    let color: ColorChoice = match body.color.as_deref() {
        None => ColorChoice::Random,
        Some(text) => text
            .parse()
            .map_err(|_| ApiError::invalid("invalid_color", "color is random, white or black"))?,
    };
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

/// The stored record of a game, or 404 `game_not_found`.
async fn stored_game(state: &AppState, game_id: Uuid) -> Result<GameRecord, ApiError> {
    state
        .store
        .load_game(game_id)
        .await?
        .ok_or(ApiError::NotFound("game_not_found"))
}

/// A game's result in PGN form: `*` while it is not decided (and for an aborted game).
fn result_text(record: &GameRecord) -> &'static str {
    record.outcome.map_or("*", |o| o.result_str())
}

/// An action as the API shows it. The store keeps an action's dice and effects as one record
/// (`{"rolls":[…],"effects":[…]}`, either left out when there are none); the API gives its
/// `rolls` (the list of dice rolled: empty when the action rolled none, null in a game
/// without dice) and `effects` (what the action did beyond its move, in words: the dice's
/// outcomes, Duel Chess's placements; null when it did nothing more) as fields of their own.
#[derive(Serialize, ToSchema)]
struct ActionView {
    ply: i32,
    /// The action in machine notation (`docs/rules/<variant>.md`).
    machine: String,
    /// The action in the variant's human notation.
    human: String,
    /// White's clock after the action, in milliseconds; null without a clock.
    white_ms: Option<i64>,
    black_ms: Option<i64>,
    /// The dice the action rolled (`[{"purpose":…,"dice":"d20","value":7},…]`): empty when it
    /// rolled none, null in a game without dice.
    #[schema(value_type = Option<Vec<Object>>)]
    rolls: Option<serde_json::Value>,
    /// What the action did beyond its move, in words; null when nothing.
    #[schema(value_type = Option<Vec<String>>)]
    effects: Option<serde_json::Value>,
    created_at: chrono::DateTime<chrono::Utc>,
}

fn action_views(record: &GameRecord) -> Vec<ActionView> {
    let has_dice = record.variant.has_dice();
    record
        .actions
        .iter()
        .map(|action| {
            let stored = action.rolls.as_ref();
            let rolls = stored.and_then(|s| s.get("rolls")).cloned();
            ActionView {
                ply: action.ply,
                machine: action.machine.clone(),
                human: action.human.clone(),
                white_ms: action.white_ms,
                black_ms: action.black_ms,
                rolls: rolls.or_else(|| has_dice.then(|| serde_json::Value::Array(Vec::new()))),
                effects: stored.and_then(|s| s.get("effects")).cloned(),
                created_at: action.created_at,
            }
        })
        .collect()
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

fn revealed_seed(record: &GameRecord) -> Option<String> {
    match record.status {
        GameStatus::Finished | GameStatus::Aborted => record.dice_seed.as_ref().map(hex::encode),
        _ => None,
    }
}

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
        Some(text) => Some(
            text.parse::<Variant>()
                .map_err(|e| ApiError::invalid("unknown_variant", e.to_string()))?,
        ),
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
    let mut index = start_position
        .split_whitespace()
        .last()
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0);
    let actions = record
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
                            let entry = RollRecord {
                                index,
                                purpose: roll["purpose"].as_str().unwrap_or_default().to_string(),
                                dice: roll["dice"].as_str().unwrap_or_default().to_string(),
                                value: roll["value"]
                                    .as_u64()
                                    .and_then(|v| u32::try_from(v).ok())
                                    .unwrap_or(0),
                            };
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
        .collect();
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

/// Every position of a stored game, rebuilt with the rules engine from its start position
/// and stored actions: `snapshots[0]` is the start, `snapshots[n]` the position after ply n.
/// A dice game is rebuilt with its revealed seed, so it is only available once over (before
/// that the rolls could not be reproduced without giving the seed away).
pub fn replay_snapshots(record: &GameRecord) -> Result<Vec<crate::rules::Snapshot>, ApiError> {
    let mut game = match &record.start_position {
        Some(position) => AnyGame::from_position(record.variant, position)
            .map_err(|e| ApiError::Internal(format!("stored start position: {e}")))?,
        None => AnyGame::start(record.variant).map_err(|e| ApiError::Internal(e.to_string()))?,
    };
    if record.variant.has_dice() {
        let seed: [u8; 32] = record
            .revealed_dice_seed()
            .and_then(|seed| seed.try_into().ok())
            .ok_or_else(|| {
                ApiError::invalid(
                    "game_not_over",
                    "a dice game can be replayed once it is over and its seed revealed",
                )
            })?;
        game.set_dice(seed, &record.game_id.to_string());
    }
    let mut snapshots = Vec::with_capacity(record.actions.len() + 1);
    snapshots.push(game.snapshot());
    for action in &record.actions {
        game.play(&action.machine).map_err(|e| {
            ApiError::Internal(format!(
                "stored action {} `{}`: {e}",
                action.ply, action.machine
            ))
        })?;
        snapshots.push(game.snapshot());
    }
    Ok(snapshots)
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
        (status = 422, description = "`game_not_over`: a dice game is replayed only once over.", body = ErrorBody),
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
        snapshots,
    }))
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/games", post(create_game).get(list_games))
        .route("/api/games/{id}/replay", get(replay))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/accept", post(accept_game))
        .route("/api/users/{name}/games", get(user_games))
        .route("/api/users/{name}/results", get(user_results))
        .route("/games/{id}/export", get(export_game))
        .route("/api/games/{id}/dice", get(dice_record))
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
