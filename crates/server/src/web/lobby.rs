//! The lobby's transport: the `/ws/lobby` socket (live seek list, challenges, game starts,
//! and commands as JSON or text), the command endpoints and the JSON reads.
//!
//! - `GET /ws/lobby`: one task per connection, a single `select!` over the socket, the
//!   lobby's events for this connection, and shutdown or the player's logout.
//! - `POST /api/command` `{"line":"seek 5 0 rated chazz"}`: a FICS-style text command.
//! - `POST /api/lobby` `{"t":"seek","time":5,…}`: the same commands as JSON.
//! - `GET /api/seeks[?all=true]`, `GET /api/games/live`, `GET /api/users/{name}` (finger),
//!   `GET /api/users/{name}/ratings/history[?variant=…]`.
//!
//! Both command forms answer `{"ok":true,"reply":"<FICS-like text>","data":{…}}` or
//! `{"ok":false,"code":"<stable_code>","reply":"<FICS-like text>"}` with status 200: a
//! refused command is an ordinary answer, as on a FICS console.

use super::auth::{CurrentUser, LogoutSignal, MaybeUser};
use super::error::{ApiError, ErrorBody};
use super::extract::{JsonBody, PathParam, QueryParams};
use super::limits::{rate_limited_close, Action, Admission, FrameGate, RateLimited, SocketKind};
use super::openapi::UserNameParam;
use super::proxy::ClientInfo;
use super::ws::{open_socket, SocketOpening, MAX_CLIENT_MESSAGE};
use super::AppState;
use crate::game::lobby::command::parse_line;
use crate::game::lobby::{
    FingerView, LobbyCmd, LobbyError, LobbyReply, LobbyUser, MatchRequest, PlayTarget, ReplyData,
    SeekRequest, SeekView, Which,
};
use crate::rules::Variant;
use crate::store::{GameSummary, RatingHistoryEntry, User};
use crate::wire::ErrorEvent;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

fn lobby_user(user: &User) -> LobbyUser {
    LobbyUser {
        user_id: user.user_id,
        name: user.username.clone(),
        registered: !user.is_guest,
    }
}

/// The answer to a command, in the shape both endpoints and the socket use: a refused
/// command is an ordinary answer (`ok` false, with a `code`), as on a FICS console.
#[derive(Serialize, ToSchema)]
struct CommandReply {
    ok: bool,
    /// Why the command was refused (a stable snake_case code); absent when `ok`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "no_such_seek")]
    code: Option<&'static str>,
    /// FICS-like text for the console.
    reply: String,
    /// The structured answer, for programs; absent when refused, and for `ping`.
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<ReplyData>,
}

impl CommandReply {
    fn new(result: Result<LobbyReply, LobbyError>) -> CommandReply {
        match result {
            Ok(reply) => CommandReply {
                ok: true,
                code: None,
                reply: reply.text,
                data: Some(reply.data),
            },
            Err(e) => {
                if let LobbyError::Store(cause) = &e {
                    tracing::error!(cause = %cause, "lobby command failed");
                }
                CommandReply {
                    ok: false,
                    code: Some(e.code()),
                    reply: e.to_string(),
                    data: None,
                }
            }
        }
    }
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
    command: Result<LobbyCmd, LobbyError>,
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
        Err(e) => Err(e),
    })
}

/// Runs a FICS-style text command (`docs/protocol.md`, "Lobby").
#[utoipa::path(
    post,
    path = "/api/command",
    tag = "lobby",
    request_body = CommandLine,
    responses(
        (status = 200, description = "The command's answer, also when the lobby refused it.", body = CommandReply),
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 422, description = "`line_too_long`, `bad_body`.", body = ErrorBody),
    )
)]
async fn command(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    JsonBody(body): JsonBody<CommandLine>,
) -> Result<Json<CommandReply>, ApiError> {
    if body.line.len() > MAX_CLIENT_MESSAGE {
        return Err(ApiError::invalid(
            "line_too_long",
            "a command line is at most 4 KiB",
        ));
    }
    let command = parse_line(&body.line);
    let result = carry_out(&state, lobby_user(&user), &client, command).await?;
    Ok(Json(CommandReply::new(result)))
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
        (status = 200, description = "The command's answer, also when the lobby refused it.", body = CommandReply),
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
        (status = 422, description = "`bad_message`, `unknown_message`, `bad_body`.", body = ErrorBody),
    )
)]
async fn json_command(
    State(state): State<AppState>,
    CurrentUser(user): CurrentUser,
    client: ClientInfo,
    JsonBody(body): JsonBody<Value>,
) -> Result<Json<CommandReply>, ApiError> {
    let message =
        parse_lobby_msg(body).map_err(|(code, message)| ApiError::invalid(code, message))?;
    let command = match message {
        LobbyClientMsg::Ping => {
            return Ok(Json(CommandReply {
                ok: true,
                code: None,
                reply: "pong".into(),
                data: None,
            }))
        }
        LobbyClientMsg::Command(command) => Ok(command),
        LobbyClientMsg::Line(line) => parse_line(&line),
    };
    let result = carry_out(&state, lobby_user(&user), &client, command).await?;
    Ok(Json(CommandReply::new(result)))
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
        Some(text) => Some(
            text.parse::<Variant>()
                .map_err(|e| ApiError::invalid("unknown_variant", e.to_string()))?,
        ),
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
        LobbyError::UnknownUser(_) => ApiError::NotFound("user_not_found"),
        LobbyError::Store(cause) => ApiError::Store(cause),
        other => ApiError::Internal(other.to_string()),
    }
}

/// What a client may send on the lobby socket or to `POST /api/lobby`.
#[derive(Debug, PartialEq, Eq)]
pub enum LobbyClientMsg {
    Command(LobbyCmd),
    /// `{"t":"command","line":"seek 5 0"}`: a text command.
    Line(String),
    Ping,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdOnly {
    id: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllOnly {
    #[serde(default)]
    all: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayMsg {
    seek: Option<u32>,
    user: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WhichMsg {
    id: Option<u32>,
    user: Option<String>,
    #[serde(default)]
    all: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UserOnly {
    user: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetMsg {
    name: Option<String>,
    #[serde(default)]
    value: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoplayMsg {
    user: Option<String>,
    #[serde(default = "yes")]
    on: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineMsg {
    line: String,
}

fn which(msg: WhichMsg) -> Option<Which> {
    if msg.all {
        Some(Which::All)
    } else if let Some(id) = msg.id {
        Some(Which::Id(id))
    } else {
        msg.user.map(Which::User)
    }
}

/// Parses a lobby client message: a JSON object with `"t"` (and optionally `"ref"`, which
/// the socket echoes in the reply).
///
/// # Errors
/// `(code, message)`: `bad_message` or `unknown_message`.
pub fn parse_lobby_msg(value: Value) -> Result<LobbyClientMsg, (&'static str, String)> {
    let Value::Object(mut fields) = value else {
        return Err(("bad_message", "a message is a JSON object".into()));
    };
    let kind = match fields.remove("t") {
        Some(Value::String(kind)) => kind,
        _ => {
            return Err((
                "bad_message",
                "a message needs a string field \"t\"".to_string(),
            ))
        }
    };
    fields.remove("ref");
    let rest = Value::Object(fields);
    fn parse<T: for<'de> Deserialize<'de>>(
        kind: &str,
        rest: Value,
    ) -> Result<T, (&'static str, String)> {
        serde_json::from_value(rest)
            .map_err(|e| ("bad_message", format!("malformed `{kind}` message: {e}")))
    }
    let command = match kind.as_str() {
        "ping" => {
            parse::<Nothing>(&kind, rest)?;
            return Ok(LobbyClientMsg::Ping);
        }
        "command" => return Ok(LobbyClientMsg::Line(parse::<LineMsg>(&kind, rest)?.line)),
        "seek" => LobbyCmd::Seek(parse::<SeekRequest>(&kind, rest)?),
        "unseek" => LobbyCmd::Unseek(parse::<IdOnly>(&kind, rest)?.id),
        "sought" => LobbyCmd::Sought {
            all: parse::<AllOnly>(&kind, rest)?.all,
        },
        "play" => {
            let msg = parse::<PlayMsg>(&kind, rest)?;
            LobbyCmd::Play(match (msg.seek, msg.user) {
                (Some(n), None) => PlayTarget::Seek(n),
                (None, Some(user)) => PlayTarget::User(user),
                _ => {
                    return Err((
                        "bad_message",
                        "`play` takes either \"seek\" or \"user\"".into(),
                    ))
                }
            })
        }
        "match" => LobbyCmd::Match(parse::<MatchRequest>(&kind, rest)?),
        "accept" => LobbyCmd::Accept(which(parse::<WhichMsg>(&kind, rest)?)),
        "decline" => LobbyCmd::Decline(which(parse::<WhichMsg>(&kind, rest)?)),
        "withdraw" => LobbyCmd::Withdraw(which(parse::<WhichMsg>(&kind, rest)?)),
        "pending" => {
            parse::<Nothing>(&kind, rest)?;
            LobbyCmd::Pending
        }
        "rematch" => {
            parse::<Nothing>(&kind, rest)?;
            LobbyCmd::Rematch
        }
        "games" => {
            parse::<Nothing>(&kind, rest)?;
            LobbyCmd::Games
        }
        "history" => LobbyCmd::History(parse::<UserOnly>(&kind, rest)?.user),
        "finger" => LobbyCmd::Finger(parse::<UserOnly>(&kind, rest)?.user),
        "set" => {
            let msg = parse::<SetMsg>(&kind, rest)?;
            match msg.name {
                None => LobbyCmd::Set(None),
                Some(name) => match crate::game::lobby::command::parse_line(&format!(
                    "set {name} {}",
                    msg.value
                )) {
                    Ok(LobbyCmd::Set(Some((setting, _)))) => {
                        LobbyCmd::Set(Some((setting, msg.value.trim().to_string())))
                    }
                    _ => return Err(("bad_message", format!("no setting named `{name}`"))),
                },
            }
        }
        "noplay" => {
            let msg = parse::<NoplayMsg>(&kind, rest)?;
            LobbyCmd::Noplay(msg.user.map(|u| (u, msg.on)))
        }
        other => return Err(("unknown_message", format!("unknown message type `{other}`"))),
    };
    Ok(LobbyClientMsg::Command(command))
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
        move |socket, state, logout, gate| async move {
            match state.lobby.connect(user.clone()).await {
                Ok(connection) => {
                    let id = connection.id;
                    let asker = Asker {
                        user: &user,
                        client: &peer,
                    };
                    let served = serve_socket(socket, &state, asker, connection, logout, gate);
                    if let Err(e) = served.await {
                        tracing::debug!(cause = %e, "lobby socket closed");
                    }
                    state.lobby.disconnect(user.user_id, id).await;
                }
                Err(e) => {
                    let (mut sink, _) = socket.split();
                    let error = ErrorEvent::new(e.code(), &e.to_string()).to_json();
                    let _ = sink.send(Message::Text(Utf8Bytes::from(error))).await;
                }
            }
        },
    )
}

/// Whose lobby socket it is: the player, and the client address its limits are counted by.
#[derive(Clone, Copy)]
struct Asker<'a> {
    user: &'a LobbyUser,
    client: &'a ClientInfo,
}

async fn serve_socket(
    socket: WebSocket,
    state: &AppState,
    asker: Asker<'_>,
    mut connection: crate::game::lobby::LobbyConnection,
    logout: Option<LogoutSignal>,
    gate: FrameGate,
) -> Result<(), axum::Error> {
    let (mut sink, mut stream) = socket.split();
    let mut closing = std::pin::pin!(state.closing(logout));
    loop {
        tokio::select! {
            // In this order, and the closing (shutdown, logout) only when neither of the
            // others is ready: polling it takes the lock that every socket's shutdown waiter
            // shares.
            biased;
            frame = stream.next() => {
                let Some(frame) = frame else { break };
                let frame = frame?;
                match gate.admit_frame(&frame) {
                    Admission::Admit => {}
                    Admission::Refuse(error) => {
                        sink.send(Message::Text(Utf8Bytes::from(error))).await?;
                        continue;
                    }
                    Admission::Close => {
                        let _ = sink.send(rate_limited_close()).await;
                        break;
                    }
                }
                match frame {
                    Message::Text(text) => {
                        let reply = handle_frame(text.as_str(), state, asker).await;
                        sink.send(Message::Text(Utf8Bytes::from(reply))).await?;
                    }
                    Message::Binary(_) => {
                        let error = ErrorEvent::new("bad_message", "send JSON text frames");
                        sink.send(Message::Text(Utf8Bytes::from(error.to_json()))).await?;
                    }
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => {}
                }
            }
            event = connection.events.recv() => match event {
                Some(message) => sink.send(Message::Text(Utf8Bytes::from(&*message))).await?,
                // The lobby dropped this connection (too far behind, or shutting down).
                None => {
                    let _ = sink.send(Message::Close(None)).await;
                    break;
                }
            },
            closing = &mut closing => {
                let _ = sink.send(closing.close_message()).await;
                break;
            }
        }
    }
    Ok(())
}

/// Handles one frame: always answers, with a `reply` or an `error` message.
async fn handle_frame(text: &str, state: &AppState, asker: Asker<'_>) -> String {
    if text.len() > MAX_CLIENT_MESSAGE {
        let message = format!("messages are limited to {MAX_CLIENT_MESSAGE} bytes");
        return ErrorEvent::new("frame_too_large", &message).to_json();
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return ErrorEvent::new("bad_message", &format!("not JSON: {e}")).to_json(),
    };
    let reference = value.get("ref").cloned();
    let command = match parse_lobby_msg(value) {
        // A refused command answers its `ref` too, so that a client waiting on it hears.
        Err((code, message)) => {
            return ErrorEvent::new(code, &message)
                .answering(reference)
                .to_json()
        }
        Ok(LobbyClientMsg::Ping) => return "{\"t\":\"pong\"}".to_string(),
        Ok(LobbyClientMsg::Command(command)) => Ok(command),
        Ok(LobbyClientMsg::Line(line)) => parse_line(&line),
    };
    let result = match carry_out(state, asker.user.clone(), asker.client, command).await {
        Ok(result) => result,
        Err(limited) => {
            let message = limited.message();
            return ErrorEvent::new("rate_limited", &message)
                .answering(reference)
                .to_json();
        }
    };
    let reply = SocketReply {
        t: "reply",
        reference,
        reply: CommandReply::new(result),
    };
    // Cannot fail: every map in a reply has string keys.
    serde_json::to_string(&reply).unwrap_or_default()
}

/// A command's answer on the lobby socket: `{"t":"reply","ref":…,"ok":…}`.
#[derive(Serialize)]
struct SocketReply {
    t: &'static str,
    /// The `ref` of the message answered, if it had one.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    reference: Option<Value>,
    #[serde(flatten)]
    reply: CommandReply,
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/ws/lobby", get(lobby_socket))
        .route("/api/command", post(command))
        .route("/api/lobby", post(json_command))
        .route("/api/seeks", get(seeks))
        .route("/api/games/live", get(live_games))
        .route("/api/users/{name}", get(finger))
        .route("/api/users/{name}/ratings/history", get(rating_history))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::lobby::SettingName;
    use crate::rules::Color;

    fn parse(text: &str) -> Result<LobbyClientMsg, &'static str> {
        let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        parse_lobby_msg(value).map_err(|(code, _)| code)
    }

    #[test]
    fn lobby_messages_parse() {
        assert_eq!(
            parse(
                r#"{"t":"seek","time":5,"inc":0,"rated":false,"color":"white","variant":"chazz","manual":true,"min":1000,"max":2000,"ref":7}"#
            ),
            Ok(LobbyClientMsg::Command(LobbyCmd::Seek(SeekRequest {
                time: Some(5),
                inc: Some(0),
                rated: Some(false),
                color: Some(Color::White),
                variant: Some(Variant::Chazz),
                manual: true,
                formula: false,
                min: Some(1000),
                max: Some(2000),
            })))
        );
        assert_eq!(
            parse(r#"{"t":"play","seek":3}"#),
            Ok(LobbyClientMsg::Command(LobbyCmd::Play(PlayTarget::Seek(3))))
        );
        assert_eq!(
            parse(r#"{"t":"decline","all":true}"#),
            Ok(LobbyClientMsg::Command(LobbyCmd::Decline(Some(Which::All))))
        );
        assert_eq!(
            parse(r#"{"t":"set","name":"f2","value":"rating > 3"}"#),
            Ok(LobbyClientMsg::Command(LobbyCmd::Set(Some((
                SettingName::Formula(2),
                "rating > 3".into()
            )))))
        );
        assert_eq!(
            parse(r#"{"t":"command","line":"sought all"}"#),
            Ok(LobbyClientMsg::Line("sought all".into()))
        );
        assert_eq!(parse(r#"{"t":"ping"}"#), Ok(LobbyClientMsg::Ping));
    }

    #[test]
    fn bad_lobby_messages_are_named() {
        assert_eq!(parse("[]"), Err("bad_message"));
        assert_eq!(parse(r#"{"x":1}"#), Err("bad_message"));
        assert_eq!(parse(r#"{"t":"fly"}"#), Err("unknown_message"));
        assert_eq!(
            parse(r#"{"t":"seek","colour":"white"}"#),
            Err("bad_message")
        );
        assert_eq!(parse(r#"{"t":"seek","time":-1}"#), Err("bad_message"));
        assert_eq!(parse(r#"{"t":"play"}"#), Err("bad_message"));
        assert_eq!(
            parse(r#"{"t":"set","name":"nonsense"}"#),
            Err("bad_message")
        );
    }
}
