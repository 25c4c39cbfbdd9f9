//! `/ws/game/{id}`: one task per connection with a single `select!` over the socket, the
//! game's event stream, and shutdown or the viewer's logout (the mini-redis subscriber
//! shape).
//!
//! On connect (`?v=N` to resume after version N) the client gets the events it missed, or a
//! full snapshot. Frames are parsed into [`ClientMsg`]; anything wrong is answered with an
//! error message on this socket only and changes nothing.
//!
//! It also owns the frame limits and buffer sizes that every socket the server accepts
//! shares, the lobby's included ([`with_socket_limits`]), and what the multiplexed socket
//! (`web::mux`) shares with this one: the carrying out of one game message ([`answer`]). Every
//! socket, the lobby's too, is opened by [`open_socket`], which holds it to its address's
//! socket limit and hands it the [`FrameGate`] its frames pass (`web::limits`).

use super::auth::{socket_logout_signal, LogoutSignal, MaybeUser};
use super::extract::{GameIdPath, QueryParams};
use super::limits::{rate_limited_close, Admission, FrameGate, SocketKind};
use super::proxy::ClientInfo;
use super::AppState;
use crate::game::{GameError, GameHandle, PlayerRequest};
use crate::wire::game::{batch_message, parse_client_msg, ClientMsg};
use crate::wire::{ErrorEvent, Pong};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

/// Longest client message we read (game and lobby sockets, and a lobby command over HTTP);
/// longer ones get `frame_too_large` and are ignored.
pub const MAX_CLIENT_MESSAGE: usize = 4 * 1024;
/// Frames beyond this close the connection at the protocol level.
const MAX_FRAME: usize = 64 * 1024;
/// Per-connection write buffer. The library default (128 KiB each way) would cost over a
/// gigabyte at 10,000 connections; our messages are a few KiB.
const SOCKET_WRITE_BUFFER: usize = 8 * 1024;
/// How much one read asks the kernel for. tungstenite zeroes that much before every read
/// (2.5% of the server's CPU under load at 8 KiB), and client messages are under 100 bytes
/// but for the rare long one, which simply takes more reads.
const SOCKET_READ_CHUNK: usize = 1024;

#[derive(Deserialize)]
pub struct ResumeQuery {
    /// The last event version the client saw.
    v: Option<u64>,
}

pub async fn game_socket(
    State(state): State<AppState>,
    GameIdPath(game_id): GameIdPath,
    QueryParams(resume): QueryParams<ResumeQuery>,
    MaybeUser(user): MaybeUser,
    client: ClientInfo,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let handle = match state.games.find(game_id).await {
        Ok(handle) => handle,
        Err(e) => return super::error::ApiError::from(e).into_response(),
    };
    let viewer = user.map(|u| u.user_id);
    let opening = SocketOpening {
        viewer,
        headers: &headers,
        client: &client,
        kind: SocketKind::Game,
    };
    open_socket(
        state,
        upgrade,
        opening,
        move |socket, state, logout, gate| async move {
            handle.presence(viewer, true).await;
            let since = resume.v;
            if let Err(e) = serve_socket(socket, &state, &handle, viewer, since, logout, gate).await
            {
                tracing::debug!(cause = %e, "game socket closed");
            }
            handle.presence(viewer, false).await;
        },
    )
}

/// Who is opening a socket, and which kind.
pub(super) struct SocketOpening<'a> {
    pub viewer: Option<Uuid>,
    pub headers: &'a HeaderMap,
    pub client: &'a ClientInfo,
    pub kind: SocketKind,
}

/// Upgrades to one of the server's sockets (`/ws/game/{id}`, `/ws/games`, `/ws/lobby`), with
/// [`with_socket_limits`]: it counts among the open connections while `serve` runs, and the
/// server waits for it at shutdown. `serve` gets the signal of a signed-in viewer's logout,
/// which must close it, and the gate its frames pass. A client already holding its address's
/// quota of sockets gets 429 `rate_limited` instead.
pub(super) fn open_socket<Serve, Served>(
    state: AppState,
    upgrade: WebSocketUpgrade,
    opening: SocketOpening<'_>,
    serve: Serve,
) -> Response
where
    Serve: FnOnce(WebSocket, AppState, Option<LogoutSignal>, FrameGate) -> Served + Send + 'static,
    Served: std::future::Future<Output = ()> + Send,
{
    let gate = match state.limits.open_socket(opening.client, opening.kind) {
        Ok(gate) => gate,
        Err(limited) => return super::error::ApiError::from(limited).into_response(),
    };
    // Only a signed-in viewer's socket closes at its session's logout.
    let logout = opening
        .viewer
        .and_then(|_| socket_logout_signal(&state, opening.headers));
    with_socket_limits(upgrade).on_upgrade(move |socket| async move {
        let _open = state.sockets.token();
        let metrics = state.games.metrics().clone();
        metrics.connections.fetch_add(1, Ordering::Relaxed);
        serve(socket, state, logout, gate).await;
        metrics.connections.fetch_sub(1, Ordering::Relaxed);
    })
}

/// The frame limits and buffer sizes of every WebSocket the server accepts (game and lobby).
fn with_socket_limits(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .read_buffer_size(SOCKET_READ_CHUNK)
        .write_buffer_size(SOCKET_WRITE_BUFFER)
}

async fn send_text(socket: &mut WebSocket, text: &str) -> Result<(), axum::Error> {
    socket.send(Message::Text(Utf8Bytes::from(text))).await
}

async fn serve_socket(
    mut socket: WebSocket,
    state: &AppState,
    handle: &GameHandle,
    viewer: Option<Uuid>,
    since: Option<u64>,
    logout: Option<LogoutSignal>,
    gate: FrameGate,
) -> Result<(), axum::Error> {
    // One task owns the socket whole: `select!` drops the pending read before a branch runs,
    // so a branch can write. Splitting it would put a lock around every read and write.
    let mut subscription = match handle.subscribe(viewer, since).await {
        Ok(s) => s,
        Err(e) => {
            let error = ErrorEvent::new(e.code(), &e.to_string()).to_json();
            return send_text(&mut socket, &error).await;
        }
    };
    send_all(&mut socket, &subscription.initial).await?;
    let mut closing = std::pin::pin!(state.closing(logout));
    loop {
        let flow = tokio::select! {
            // In this order, and the closing (shutdown, logout) only when neither of the
            // others is ready: polling it takes the lock that every socket's shutdown waiter
            // shares.
            biased;
            frame = socket.recv() => match frame {
                Some(frame) => read_frame(&mut socket, frame?, &gate, handle, viewer).await?,
                None => Flow::Close,
            },
            event = subscription.events.recv() => match event {
                Ok(message) => {
                    // A chat line of a room this viewer is not in is not theirs to see.
                    if message.reaches(viewer) {
                        send_text(&mut socket, &message.text).await?;
                    }
                    Flow::Go
                }
                // Too slow to keep up: start again from a full snapshot.
                Err(RecvError::Lagged(_)) => match handle.subscribe(viewer, None).await {
                    Ok(fresh) => {
                        subscription = fresh;
                        send_all(&mut socket, &subscription.initial).await?;
                        Flow::Go
                    }
                    Err(_) => Flow::Close,
                },
                Err(RecvError::Closed) => {
                    // The game has stopped (shut down or let go): say so, rather than drop.
                    let _ = socket.send(Message::Close(None)).await;
                    Flow::Close
                }
            },
            closing = &mut closing => {
                let _ = socket.send(closing.close_message()).await;
                Flow::Close
            }
        };
        if flow == Flow::Close {
            break;
        }
    }
    Ok(())
}

/// Whether a socket's loop goes on after what it just did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Close,
}

async fn send_all(socket: &mut WebSocket, messages: &[Arc<str>]) -> Result<(), axum::Error> {
    for message in messages {
        send_text(socket, message).await?;
    }
    Ok(())
}

/// Passes one frame from the client through the socket's gate and carries it out, answering
/// on this socket.
async fn read_frame(
    socket: &mut WebSocket,
    frame: Message,
    gate: &FrameGate,
    handle: &GameHandle,
    viewer: Option<Uuid>,
) -> Result<Flow, axum::Error> {
    match gate.admit_frame(&frame) {
        Admission::Admit => {}
        Admission::Refuse(error) => {
            send_text(socket, &error).await?;
            return Ok(Flow::Go);
        }
        Admission::Close => {
            let _ = socket.send(rate_limited_close()).await;
            return Ok(Flow::Close);
        }
    }
    match frame {
        Message::Text(text) => {
            if let Some(reply) = handle_frame(text.as_str(), handle, viewer).await {
                send_text(socket, &reply).await?;
            }
        }
        Message::Binary(_) => {
            let error = ErrorEvent::new("bad_message", "send JSON text frames");
            send_text(socket, &error.to_json()).await?;
        }
        Message::Close(_) => return Ok(Flow::Close),
        Message::Ping(_) | Message::Pong(_) => {}
    }
    Ok(Flow::Go)
}

/// Handles one text frame; returns the message to send back to this socket, if any.
async fn handle_frame(text: &str, handle: &GameHandle, viewer: Option<Uuid>) -> Option<String> {
    if text.len() > MAX_CLIENT_MESSAGE {
        return Some(frame_too_large());
    }
    match parse_client_msg(text) {
        Ok(message) => answer(message, handle, viewer).await,
        Err((code, message)) => Some(ErrorEvent::new(code, &message).to_json()),
    }
}

/// The error for a client frame over [`MAX_CLIENT_MESSAGE`].
pub(super) fn frame_too_large() -> String {
    let message = format!("messages are limited to {MAX_CLIENT_MESSAGE} bytes");
    ErrorEvent::new("frame_too_large", &message).to_json()
}

/// Carries out one game message for `viewer`; returns the message to send back, if any (an
/// action's answer is its event, which arrives with every other viewer's).
pub(super) async fn answer(
    message: ClientMsg,
    handle: &GameHandle,
    viewer: Option<Uuid>,
) -> Option<String> {
    let request = match message {
        ClientMsg::Ping {} => return Some(Pong {}.to_json()),
        ClientMsg::Sync { v } => {
            return match handle.subscribe(viewer, Some(v)).await {
                // Only the catch-up messages matter here; the live stream is already flowing.
                Ok(sub) => Some(batch_message(&sub.initial)),
                Err(e) => Some(ErrorEvent::new(e.code(), &e.to_string()).to_json()),
            };
        }
        ClientMsg::Act { ply, action } => {
            let Some(user_id) = viewer else {
                return Some(not_a_player());
            };
            return handle
                .act(user_id, ply, action)
                .await
                .err()
                .map(|e| error_json(&e));
        }
        ClientMsg::Chat { text } => {
            return handle
                .chat(viewer, text)
                .await
                .err()
                .map(|e| error_json(&e));
        }
        ClientMsg::Resign {} => PlayerRequest::Resign,
        ClientMsg::DrawOffer {} => PlayerRequest::OfferDraw,
        ClientMsg::DrawAccept {} => PlayerRequest::AcceptDraw,
        ClientMsg::DrawDecline {} => PlayerRequest::DeclineDraw,
        ClientMsg::Abort {} => PlayerRequest::Abort,
        ClientMsg::RematchOffer {} => PlayerRequest::OfferRematch,
        ClientMsg::RematchAccept {} => PlayerRequest::AcceptRematch,
        ClientMsg::RematchDecline {} => PlayerRequest::DeclineRematch,
        ClientMsg::ClaimVictory {} => PlayerRequest::ClaimVictory,
        ClientMsg::ClaimDraw {} => PlayerRequest::ClaimDraw,
        ClientMsg::TakebackOffer {} => PlayerRequest::OfferTakeback,
        ClientMsg::TakebackAccept {} => PlayerRequest::AcceptTakeback,
        ClientMsg::TakebackDecline {} => PlayerRequest::DeclineTakeback,
        ClientMsg::MoreTime {} => PlayerRequest::GiveMoreTime,
    };
    let Some(user_id) = viewer else {
        return Some(not_a_player());
    };
    handle
        .request(user_id, request)
        .await
        .err()
        .map(|e| error_json(&e))
}

fn not_a_player() -> String {
    ErrorEvent::new("not_a_player", "you are not playing in this game").to_json()
}

pub(super) fn error_json(error: &GameError) -> String {
    if let GameError::Store(cause) = error {
        tracing::error!(cause = %cause, "storing an action failed");
    }
    ErrorEvent::new(error.code(), &error.to_string()).to_json()
}
