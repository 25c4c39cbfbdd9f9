//! The lobby's transport: the `/ws/lobby` socket (live seek list, challenges, game starts,
//! and commands as JSON or text), the command endpoints and the JSON reads.
//!
//! - `GET /ws/lobby`: the socket loop (`web::socket`) with this module's handler: the
//!   lobby's events for this connection out, the player's commands in.
//! - `POST /api/command` `{"line":"seek 5 0 rated chazz"}`: a FICS-style text command.
//! - `POST /api/lobby` `{"t":"seek","time":5,…}`: the same commands as JSON.
//! - `GET /api/seeks[?all=true]`, `GET /api/games/live`, `GET /api/lobby/stats`,
//!   `GET /api/users/{name}` (finger), `GET /api/users/{name}/ratings/history[?variant=…]`.
//!
//! Over HTTP a command answers 200 `{"reply":"<FICS-like text>","data":{…}}`, and a refused
//! one the HTTP error `{"error":"<stable_code>","message":"<FICS-like text>"}` with a real
//! status ([`command_error`]). On the socket the same answers are the `reply` message and the
//! shared `error` event, each echoing the command's `ref` (`crate::play::wire::lobby`).

use super::auth::{CurrentUser, MaybeUser};
use super::error::{ApiError, ErrorBody};
use super::extract::{JsonBody, PathParam, QueryParams};
use super::limits::{Action, RateLimited, SocketKind};
use super::openapi::UserNameParam;
use super::proxy::ClientInfo;
use super::socket::{
    self, open_socket, send_now, Flow, Outbox, SocketHandler, SocketOpening, MAX_CLIENT_MESSAGE,
};
use super::AppState;
use crate::game::lobby::command::{parse_line, request_of, Request};
use crate::game::lobby::{
    FingerView, LobbyCmd, LobbyError, LobbyRefusal, LobbyReply, LobbyStats, LobbyUser, SeekView,
};
use crate::play::wire::lobby::{
    parse_lobby_msg, parse_lobby_value, CommandAnswer, LobbyAnswer, ReplyData,
};
use crate::play::wire::ErrorEvent;
use crate::rules::Variant;
use crate::store::{GameSummary, RatingHistoryEntry, User};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::mpsc;
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, ToSchema};

/// The quick-pairing grid's clocks (minutes, increment seconds), `0 0` being no clock as in
/// the lobby's seeks: lichess's pools, one of each kind of game.
pub(super) const QUICK_CLOCKS: [(u32, u32); 6] =
    [(1, 0), (3, 2), (5, 3), (10, 5), (15, 10), (0, 0)];

/// The lobby page's quick-pairing grid: a row per playable variant, its name linking to the
/// variant's page (most visitors know none of these games), and a button per clock, each
/// carrying the seek it sends (`lobby.js`). Drawn by the server so the page does not shift as
/// its script starts.
pub(super) fn quick_grid() -> String {
    let mut out = String::new();
    for variant in super::pages::playable_variants() {
        let key = variant.key();
        let name = super::pages::escape(variant.display_name());
        out.push_str(&format!(
            "<div class=\"quick-row\" role=\"group\" aria-labelledby=\"quick-{key}\" data-variant=\"{key}\">\
             <a class=\"quick-variant\" id=\"quick-{key}\" href=\"/variant/{key}\">{name}</a>"
        ));
        for (time, inc) in QUICK_CLOCKS {
            // The accessible name holds the visible text, and says what ∞ means.
            let (shown, said) = if time == 0 && inc == 0 {
                ("∞".to_string(), "∞ no clock".to_string())
            } else {
                let clock = format!("{time}+{inc}");
                (clock.clone(), clock)
            };
            out.push_str(&format!(
                "<button type=\"button\" class=\"quick\" data-variant=\"{key}\" data-time=\"{time}\" \
                 data-inc=\"{inc}\" aria-pressed=\"false\" aria-label=\"{name} {said}\">{shown}</button>"
            ));
        }
        out.push_str("</div>");
    }
    out
}

fn lobby_user(user: &User) -> LobbyUser {
    LobbyUser {
        user_id: user.user_id,
        name: user.username.clone(),
        registered: !user.is_guest,
    }
}

/// The lobby's own refusals of a command, by the HTTP status that says what kind each is:
/// the one table the HTTP answers are made from ([`command_error`]) and the API document
/// lists ([`CommandRefusals`]); `docs/protocol.md`'s table is checked against it. The codes
/// are `LobbyError::code`'s. A game the command could not start is refused as the game layer
/// refuses anywhere (`ApiError::Game`), and 401, 422, 429 and 503 come from elsewhere.
const REFUSALS: [(StatusCode, &[&str]); 4] = [
    (
        StatusCode::BAD_REQUEST,
        &[
            "bad_command",
            "invalid_value",
            "bad_formula",
            "own_seek",
            "self_challenge",
        ],
    ),
    (
        StatusCode::FORBIDDEN,
        &[
            "guests_play_unrated",
            "rating_out_of_range",
            "formula_rejected",
            "noplay",
        ],
    ),
    (
        StatusCode::NOT_FOUND,
        &[
            "unknown_user",
            "no_such_seek",
            "no_challenge",
            "no_previous_game",
        ],
    ),
    (
        StatusCode::CONFLICT,
        &[
            "too_many_seeks",
            "duplicate_seek",
            "user_not_online",
            "not_in_lobby",
            "ambiguous",
        ],
    ),
];

/// The status of one of the lobby's own refusals ([`REFUSALS`]).
fn refusal_status(code: &str) -> Option<StatusCode> {
    REFUSALS
        .iter()
        .find(|(_, codes)| codes.contains(&code))
        .map(|&(status, _)| status)
}

/// A refused command as the HTTP error: its code and FICS text, with the status that says
/// what kind of refusal it is.
fn command_error(e: LobbyError) -> ApiError {
    let e = match e {
        // Answered (and logged) as every store failure is.
        LobbyError::Store(cause) => return ApiError::Store(cause),
        other => other,
    };
    let status = match &e {
        LobbyError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        LobbyError::Game(game) => super::error::game_status(game),
        // Refused by the node that runs the lobby: the status its code has here.
        LobbyError::Remote { code, .. } => {
            refusal_status(code).unwrap_or_else(|| remote_status(code))
        }
        // Every other code is in the table (a test says so); one missing would be our fault.
        own => refusal_status(own.code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    };
    ApiError::Refused {
        status,
        code: e.code(),
        message: e.to_string(),
    }
}

/// The status of a code the lobby's node sent back that is not one of the lobby's own
/// refusals: the lobby's or the store's failures, or the game layer's.
fn remote_status(code: &str) -> StatusCode {
    match code {
        "lobby_unavailable" | "store_unavailable" => StatusCode::SERVICE_UNAVAILABLE,
        "internal" => StatusCode::INTERNAL_SERVER_ERROR,
        code => super::error::game_status(&crate::game::GameError::remote(code, String::new())),
    }
}

/// The refusals of a lobby command in the API document, one response per status of
/// [`REFUSALS`].
struct CommandRefusals;

impl utoipa::IntoResponses for CommandRefusals {
    fn responses() -> BTreeMap<String, RefOr<utoipa::openapi::Response>> {
        REFUSALS
            .iter()
            .map(|(status, codes)| {
                let listed: Vec<String> = codes.iter().map(|code| format!("`{code}`")).collect();
                let also = match *status {
                    StatusCode::BAD_REQUEST => " (`bad_command`'s message is the usage)",
                    StatusCode::CONFLICT => {
                        ", and the game layer's refusals of a new game \
                         (`too_many_games_in_progress`)"
                    }
                    _ => "",
                };
                let description = format!("{}{also}.", listed.join(", "));
                let response = super::openapi::error_response(&description).build();
                (status.as_str().to_owned(), RefOr::T(response))
            })
            .collect()
    }
}

/// The HTTP answer to a command.
fn http_answer(result: Result<LobbyReply, LobbyError>) -> Result<Json<CommandAnswer>, ApiError> {
    let reply = result.map_err(command_error)?;
    Ok(Json(CommandAnswer {
        reply: reply.text,
        data: reply.data,
    }))
}

#[derive(Deserialize, ToSchema)]
struct CommandLine {
    /// A FICS-style command, at most 4 KiB.
    #[schema(example = "seek 5 0 rated chazz")]
    line: String,
}

/// Carries out a lobby command (or the error of a line that did not parse) for `user`, once
/// it has passed `client`'s lobby limit, and, for one that can start a game (`seek`,
/// `match`, `rematch`), its game limit too.
///
/// # Errors
/// Over a limit: the command is not carried out.
async fn carry_out(
    state: &AppState,
    user: LobbyUser,
    client: &ClientInfo,
    command: Result<LobbyCmd, LobbyRefusal>,
) -> Result<Result<LobbyReply, LobbyError>, RateLimited> {
    state.limits.check(Action::LobbyCommand, client)?;
    let starts_a_game = matches!(
        command,
        Ok(LobbyCmd::Seek(_) | LobbyCmd::Match(_) | LobbyCmd::Rematch)
    );
    if starts_a_game {
        state.limits.check(Action::CreateGame, client)?;
    }
    Ok(match command {
        Ok(command) => state.lobby.command(user, command).await,
        Err(refusal) => Err(refusal.into()),
    })
}

/// Runs a FICS-style text command (`docs/protocol.md`, "Lobby").
#[utoipa::path(
    post,
    path = "/api/command",
    tag = "lobby",
    request_body = CommandLine,
    responses(
        (status = 200, description = "The command's answer.", body = CommandAnswer),
        CommandRefusals,
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 422, description = "`line_too_long`, `bad_body`.", body = ErrorBody),
    )
)]
async fn command(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    JsonBody(body): JsonBody<CommandLine>,
) -> Result<Json<CommandAnswer>, ApiError> {
    if body.line.len() > MAX_CLIENT_MESSAGE {
        return Err(ApiError::invalid(
            "line_too_long",
            "a command line is at most 4 KiB",
        ));
    }
    let command = parse_line(&body.line);
    http_answer(carry_out(&state, lobby_user(&user), &client, command).await?)
}

/// Runs a lobby command given as JSON, as on the lobby socket.
#[utoipa::path(
    post,
    path = "/api/lobby",
    tag = "lobby",
    request_body(
        content = Object,
        description = "A lobby message: an object with a string `t` (`seek`, `unseek`, `sought`, `play`, `match`, `accept`, `decline`, `withdraw`, `pending`, `rematch`, `games`, `history`, `finger`, `set`, `noplay`, `command`, `ping`) and that message's fields (`docs/protocol.md`, \"Lobby\")."
    ),
    responses(
        (status = 200, description = "The command's answer.", body = CommandAnswer),
        CommandRefusals,
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 422, description = "`bad_message`, `unknown_message`, `bad_body`.", body = ErrorBody),
    )
)]
async fn json_command(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    JsonBody(body): JsonBody<Value>,
) -> Result<Json<CommandAnswer>, ApiError> {
    let (_, message) =
        parse_lobby_value(body).map_err(|(_, code, message)| ApiError::invalid(code, message))?;
    let command = match request_of(message).map_err(|(code, why)| ApiError::invalid(code, why))? {
        Request::Ping => {
            return Ok(Json(CommandAnswer {
                reply: "pong".into(),
                data: ReplyData::Pong,
            }))
        }
        Request::Command(command) => Ok(command),
        Request::Line(line) => parse_line(&line),
    };
    http_answer(carry_out(&state, lobby_user(&user), &client, command).await?)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct SeeksQuery {
    /// Also the seeks the viewer could not accept (formula, rating range).
    #[serde(default)]
    all: bool,
}

#[derive(Serialize, ToSchema)]
struct SeekList {
    seeks: Vec<SeekView>,
}

/// The open seeks, as the viewer may accept them.
#[utoipa::path(
    get,
    path = "/api/seeks",
    tag = "lobby",
    params(SeeksQuery),
    responses(
        (status = 200, description = "The seeks.", body = SeekList),
        (status = 422, description = "`bad_query`.", body = ErrorBody),
    )
)]
async fn seeks(
    State(state): State<AppState>,
    MaybeUser(user): MaybeUser,
    QueryParams(query): QueryParams<SeeksQuery>,
) -> Result<Json<SeekList>, ApiError> {
    let seeks = state
        .lobby
        .seeks(user.as_ref().map(lobby_user), query.all)
        .await
        .map_err(lobby_api_error)?;
    Ok(Json(SeekList { seeks }))
}

#[derive(Serialize, ToSchema)]
struct LiveGames {
    games: Vec<GameSummary>,
}

/// The games in progress (at most 200), newest first.
#[utoipa::path(
    get,
    path = "/api/games/live",
    tag = "lobby",
    responses((status = 200, description = "The games.", body = LiveGames))
)]
async fn live_games(State(state): State<AppState>) -> Result<Json<LiveGames>, ApiError> {
    let games = state.store.active_games(200).await?;
    Ok(Json(LiveGames { games }))
}

/// How many players are online (a lobby connection open, or seated in a game in progress)
/// and how many games are in play.
#[utoipa::path(
    get,
    path = "/api/lobby/stats",
    tag = "lobby",
    responses((status = 200, description = "The counts.", body = LobbyStats))
)]
async fn lobby_stats(State(state): State<AppState>) -> Result<Json<LobbyStats>, ApiError> {
    let stats = state.lobby.stats().await.map_err(lobby_api_error)?;
    Ok(Json(stats))
}

/// `finger`: who a user is, their ratings and their results.
#[utoipa::path(
    get,
    path = "/api/users/{name}",
    tag = "lobby",
    params(UserNameParam),
    responses(
        (status = 200, description = "The user.", body = FingerView),
        (status = 404, description = "`user_not_found`.", body = ErrorBody),
    )
)]
async fn finger(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
) -> Result<Json<FingerView>, ApiError> {
    let finger = state.lobby.finger(&name).await.map_err(lobby_api_error)?;
    Ok(Json(finger))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct RatingHistoryQuery {
    /// Only this variant's ratings.
    #[param(value_type = Option<Variant>)]
    variant: Option<String>,
}

#[derive(Serialize, ToSchema)]
struct RatingHistory {
    user: String,
    /// Oldest first.
    history: Vec<RatingHistoryEntry>,
}

/// A user's rating after each rated game, oldest first.
#[utoipa::path(
    get,
    path = "/api/users/{name}/ratings/history",
    tag = "lobby",
    params(UserNameParam, RatingHistoryQuery),
    responses(
        (status = 200, description = "The ratings.", body = RatingHistory),
        (status = 404, description = "`user_not_found`.", body = ErrorBody),
        (status = 422, description = "`unknown_variant`, `bad_query`.", body = ErrorBody),
    )
)]
async fn rating_history(
    State(state): State<AppState>,
    PathParam(name): PathParam<String>,
    QueryParams(query): QueryParams<RatingHistoryQuery>,
) -> Result<Json<RatingHistory>, ApiError> {
    let variant = match query.variant.as_deref() {
        None | Some("") => None,
        Some(text) => Some(super::api::parse_variant(text)?),
    };
    let (user, history) = state
        .lobby
        .rating_history(&name, variant)
        .await
        .map_err(lobby_api_error)?;
    Ok(Json(RatingHistory { user, history }))
}

/// Lobby failures on the plain JSON reads.
fn lobby_api_error(e: LobbyError) -> ApiError {
    match e {
        LobbyError::Refused(LobbyRefusal::UnknownUser(_)) => ApiError::NotFound("user_not_found"),
        LobbyError::Store(cause) => ApiError::Store(cause),
        other => ApiError::Internal(other.to_string()),
    }
}

pub async fn lobby_socket(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let user = lobby_user(&user);
    let opening = SocketOpening {
        viewer: Some(user.user_id),
        headers: &headers,
        client: &client,
        kind: SocketKind::Lobby,
    };
    let peer = client.clone();
    open_socket(
        state,
        upgrade,
        opening,
        move |mut socket, state, logout, gate| async move {
            let connection = match state.lobby.connect(user.clone()).await {
                Ok(connection) => connection,
                Err(e) => {
                    let error = ErrorEvent::new(e.code(), &e.to_string()).to_json();
                    let _ = send_now(&mut socket, [error]).await;
                    return;
                }
            };
            let id = connection.id;
            let mut lobby = LobbySocket {
                state: &state,
                user: &user,
                client: &peer,
                events: connection.events,
            };
            let served = socket::serve(&mut socket, &mut lobby, gate, state.closing(logout));
            if let Err(e) = served.await {
                tracing::debug!(cause = %e, "lobby socket closed");
            }
            state.lobby.disconnect(user.user_id, id).await;
        },
    )
}

/// One player's lobby socket: their commands go to the lobby, its events for this
/// connection to them.
struct LobbySocket<'a> {
    state: &'a AppState,
    user: &'a LobbyUser,
    /// The client address its limits are counted by.
    client: &'a ClientInfo,
    events: mpsc::Receiver<Arc<str>>,
}

impl SocketHandler for LobbySocket<'_> {
    type Event = Arc<str>;

    /// None once the lobby has dropped this connection (too far behind, or shutting down).
    async fn next_event(&mut self) -> Option<Arc<str>> {
        self.events.recv().await
    }

    async fn on_event(
        &mut self,
        event: Arc<str>,
        out: &mut Outbox<'_>,
    ) -> Result<Flow, axum::Error> {
        out.push(&*event).await?;
        Ok(Flow::Go)
    }

    /// Always answers, with a `reply`, a `pong` or an `error` message.
    async fn on_text(&mut self, text: &str, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        let reply = self.answer(text).await;
        out.push(reply).await
    }
}

impl LobbySocket<'_> {
    /// The answer to one frame.
    async fn answer(&self, text: &str) -> String {
        // A refused message answers its `ref` too, so that a client waiting on it hears.
        let refuse = |reference: Option<Value>, code: &str, message: &str| {
            ErrorEvent::new(code, message)
                .answering(reference)
                .to_json()
        };
        let (reference, message) = match parse_lobby_msg(text) {
            Ok(parsed) => parsed,
            Err((reference, code, message)) => return refuse(reference, code, &message),
        };
        let command = match request_of(message) {
            Err((code, message)) => return refuse(reference, code, &message),
            Ok(Request::Ping) => return LobbyAnswer::Pong { reference }.to_json(),
            Ok(Request::Command(command)) => Ok(command),
            Ok(Request::Line(line)) => parse_line(&line),
        };
        let result = match carry_out(self.state, self.user.clone(), self.client, command).await {
            Ok(result) => result,
            Err(limited) => return refuse(reference, "rate_limited", &limited.message()),
        };
        match result {
            Ok(reply) => LobbyAnswer::Reply {
                reference,
                reply: reply.text,
                data: reply.data,
            }
            .to_json(),
            Err(e) => {
                if let LobbyError::Store(cause) = &e {
                    tracing::error!(cause = %cause, "lobby command failed");
                }
                refuse(reference, e.code(), &e.to_string())
            }
        }
    }
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/ws/lobby", get(lobby_socket))
        .route("/api/command", post(command))
        .route("/api/lobby", post(json_command))
        .route("/api/seeks", get(seeks))
        .route("/api/games/live", get(live_games))
        .route("/api/lobby/stats", get(lobby_stats))
        .route("/api/users/{name}", get(finger))
        .route("/api/users/{name}/ratings/history", get(rating_history))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameError;

    /// One refusal of each of the lobby's own kinds; the match fails to compile when a kind
    /// is added, so that it is added here and to [`REFUSALS`] too.
    fn own_refusals() -> Vec<LobbyRefusal> {
        let name = || "bob".to_string();
        let all = vec![
            LobbyRefusal::BadCommand("usage".into()),
            LobbyRefusal::UnknownUser(name()),
            LobbyRefusal::NotOnline(name()),
            LobbyRefusal::NotInLobby,
            LobbyRefusal::GuestRated,
            LobbyRefusal::TooManySeeks,
            LobbyRefusal::DuplicateSeek,
            LobbyRefusal::InvalidValue("too long".into()),
            LobbyRefusal::NoSuchSeek,
            LobbyRefusal::OwnSeek,
            LobbyRefusal::SelfChallenge,
            LobbyRefusal::RatingOutOfRange { user: name() },
            LobbyRefusal::FormulaRejected { user: name() },
            LobbyRefusal::Noplay {
                user: name(),
                yours: true,
            },
            LobbyRefusal::NoChallenge,
            LobbyRefusal::Ambiguous,
            LobbyRefusal::NoPreviousGame,
            LobbyRefusal::BadFormula(crate::play::formula::FormulaError {
                position: 0,
                message: "no".into(),
            }),
        ];
        for e in &all {
            match e {
                LobbyRefusal::BadCommand(_)
                | LobbyRefusal::UnknownUser(_)
                | LobbyRefusal::NotOnline(_)
                | LobbyRefusal::NotInLobby
                | LobbyRefusal::GuestRated
                | LobbyRefusal::TooManySeeks
                | LobbyRefusal::DuplicateSeek
                | LobbyRefusal::InvalidValue(_)
                | LobbyRefusal::NoSuchSeek
                | LobbyRefusal::OwnSeek
                | LobbyRefusal::SelfChallenge
                | LobbyRefusal::RatingOutOfRange { .. }
                | LobbyRefusal::FormulaRejected { .. }
                | LobbyRefusal::Noplay { .. }
                | LobbyRefusal::NoChallenge
                | LobbyRefusal::Ambiguous
                | LobbyRefusal::NoPreviousGame
                | LobbyRefusal::BadFormula(_) => {}
            }
        }
        all
    }

    #[test]
    fn every_refusal_of_the_lobby_has_its_status_in_the_table_once() {
        let codes: Vec<&str> = own_refusals().iter().map(LobbyRefusal::code).collect();
        let mut listed: Vec<&str> = REFUSALS
            .iter()
            .flat_map(|(_, c)| c.iter().copied())
            .collect();
        let mut expected = codes.clone();
        listed.sort_unstable();
        expected.sort_unstable();
        assert_eq!(listed, expected);
        for e in own_refusals() {
            let code = e.code();
            let answer = command_error(e.into());
            let ApiError::Refused { status, .. } = answer else {
                panic!("{code}: {answer:?}");
            };
            assert_eq!(Some(status), refusal_status(code), "{code}");
        }
        // A game the command could not start: as the game layer is refused anywhere.
        let game = command_error(LobbyError::Game(GameError::Refused(
            crate::game::Refusal::NotAPlayer,
        )));
        assert!(matches!(
            game,
            ApiError::Refused {
                status: StatusCode::FORBIDDEN,
                ..
            }
        ));
    }

    /// `docs/protocol.md`'s table of a refused command's status ("Answers") lists each code of
    /// [`REFUSALS`] in its status's row, and in no other.
    #[test]
    fn the_protocol_documents_the_table() {
        let doc = include_str!("../../../../docs/protocol.md");
        let answers = doc.split("\n### Answers\n").nth(1).unwrap_or_default();
        let section = answers.split("\n### ").next().unwrap_or_default();
        let rows: Vec<(&str, &str)> = section
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix("| ")?;
                let (status, codes) = rest.split_once(" | ")?;
                status.parse::<u16>().ok().map(|_| (status, codes))
            })
            .collect();
        for (status, codes) in REFUSALS {
            for code in codes {
                let quoted = format!("`{code}`");
                let rows_with: Vec<&str> = rows
                    .iter()
                    .filter(|(_, listed)| listed.contains(&quoted))
                    .map(|&(status, _)| status)
                    .collect();
                assert_eq!(rows_with, [status.as_str()], "{code}");
            }
        }
    }

    #[test]
    fn the_api_document_lists_the_table_for_both_command_routes() {
        use utoipa::OpenApi;
        let document = super::super::openapi::ApiDoc::openapi();
        for path in ["/api/command", "/api/lobby"] {
            let operation = document
                .paths
                .paths
                .get(path)
                .and_then(|item| item.post.as_ref())
                .unwrap_or_else(|| panic!("{path}"));
            for (status, codes) in REFUSALS {
                let Some(RefOr::T(response)) = operation.responses.responses.get(status.as_str())
                else {
                    panic!("{path} {status}");
                };
                for code in codes {
                    assert!(
                        response.description.contains(&format!("`{code}`")),
                        "{path} {code}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_quick_grid_has_every_playable_variant_at_every_clock() {
        let grid = quick_grid();
        let playable: Vec<Variant> = Variant::ALL
            .iter()
            .copied()
            .filter(|v| v.is_playable())
            .collect();
        assert_eq!(
            grid.matches("class=\"quick\"").count(),
            playable.len() * QUICK_CLOCKS.len()
        );
        for variant in playable {
            let key = variant.key();
            assert!(grid.contains(&format!("data-variant=\"{key}\" data-time=\"0\"")));
            // Its name leads to the page that teaches it.
            assert!(grid.contains(&format!("href=\"/variant/{key}\">")));
            for (time, inc) in QUICK_CLOCKS {
                let cell =
                    format!("data-variant=\"{key}\" data-time=\"{time}\" data-inc=\"{inc}\"");
                assert_eq!(grid.matches(&cell).count(), 1, "{cell}");
                // Every clock is one the lobby's seeks accept.
                assert!(time <= crate::game::lobby::MAX_TIME && inc <= crate::game::lobby::MAX_INC);
            }
        }
    }
}
