//! The one socket loop every WebSocket of the server runs (`/ws/game/{id}`, `/ws/games`,
//! `/ws/lobby`): opening a socket ([`open_socket`]: its address's socket limit, its frame
//! limits and buffers, its place among the open connections), then one task with a single
//! `select!` over the client's frames, the socket's own outbound messages and the server's
//! shutdown or the session's logout ([`serve`], the mini-redis subscriber shape).
//!
//! The loop owns what is the same on every socket: reading frames, the frame rate and size
//! limits, binary frames, pings and closes, writing, and the close frames it sends. A socket
//! gives only its own message handling, as a [`SocketHandler`]: what a text frame does, where
//! its outbound messages come from and what each does. The handler is a type parameter, so a
//! frame costs no boxing or dynamic call.
//!
//! Writes are queued ([`Outbox`]) and go out in one write at the end of each turn of the
//! loop, so a handler that gathers several messages ([`SocketHandler::after_turn`]) sends
//! them in one system call.

use super::auth::{socket_logout_signal, LogoutSignal};
use super::limits::{rate_limited_close, Admission, FrameGate, SocketKind};
use super::proxy::ClientInfo;
use super::{AppState, Closing};
use crate::play::wire::ErrorEvent;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::SinkExt;
use std::future::Future;
use std::sync::atomic::Ordering;
use uuid::Uuid;

/// Longest client message we read (every socket, and a lobby command over HTTP); longer ones
/// get `frame_too_large` and are ignored.
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

/// Who is opening a socket, and which kind.
pub(super) struct SocketOpening<'a> {
    pub viewer: Option<Uuid>,
    pub headers: &'a HeaderMap,
    pub client: &'a ClientInfo,
    pub kind: SocketKind,
}

/// Upgrades to one of the server's sockets, with [`with_socket_limits`]: it counts among the
/// open connections while `serve` runs, and the server waits for it at shutdown. `serve` gets
/// the signal of a signed-in viewer's logout, which must close it, and the gate its frames
/// pass. A client already holding its address's quota of sockets gets 429 `rate_limited`
/// instead.
pub(super) fn open_socket<Serve, Served>(
    state: AppState,
    upgrade: WebSocketUpgrade,
    opening: SocketOpening<'_>,
    serve: Serve,
) -> Response
where
    Serve: FnOnce(WebSocket, AppState, Option<LogoutSignal>, FrameGate) -> Served + Send + 'static,
    Served: Future<Output = ()> + Send,
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

/// The frame limits and buffer sizes of every WebSocket the server accepts.
fn with_socket_limits(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .read_buffer_size(SOCKET_READ_CHUNK)
        .write_buffer_size(SOCKET_WRITE_BUFFER)
}

/// Sends text messages at once, in one write, outside the loop: what a socket says before
/// the loop starts (what its client missed), or instead of it (its game or the lobby refused
/// it).
///
/// # Errors
/// The socket failed.
pub(super) async fn send_now<T: Into<Utf8Bytes>>(
    socket: &mut WebSocket,
    texts: impl IntoIterator<Item = T>,
) -> Result<(), axum::Error> {
    for text in texts {
        socket.feed(Message::Text(text.into())).await?;
    }
    socket.flush().await
}

/// What a turn of the loop leads to.
pub(super) enum Flow {
    /// Go on serving.
    Go,
    /// Stop without a close frame: the peer has gone, or the socket can no longer be
    /// served and its client will reconnect.
    Stop,
    /// Send this close frame (after what is queued) and stop.
    Close(Message),
}

/// Where a handler's messages to the client go: queued, and written at the end of the turn
/// (or with the close frame).
pub(super) struct Outbox<'s> {
    socket: &'s mut WebSocket,
}

impl Outbox<'_> {
    /// Queues one text message.
    ///
    /// # Errors
    /// The socket failed (its write buffer was full and writing it out failed).
    pub async fn push(&mut self, text: impl Into<Utf8Bytes>) -> Result<(), axum::Error> {
        self.socket.feed(Message::Text(text.into())).await
    }
}

/// What one kind of socket does with its messages; [`serve`] does the rest.
pub(super) trait SocketHandler: Send {
    /// One of the socket's outbound items (a game's event, a lobby event, an answer).
    type Event: Send;

    /// Waits for the socket's next outbound item; None when its source has ended, which
    /// closes the socket (close frame without a reason), as the game or lobby is gone.
    fn next_event(&mut self) -> impl Future<Output = Option<Self::Event>> + Send;

    /// Carries out one outbound item.
    fn on_event(
        &mut self,
        event: Self::Event,
        out: &mut Outbox<'_>,
    ) -> impl Future<Output = Result<Flow, axum::Error>> + Send;

    /// Carries out one text frame of the client's (within [`MAX_CLIENT_MESSAGE`], and
    /// admitted by the socket's frame limit).
    fn on_text(
        &mut self,
        text: &str,
        out: &mut Outbox<'_>,
    ) -> impl Future<Output = Result<(), axum::Error>> + Send;

    /// Whether the socket reads its client's frames now; a handler with too much in hand
    /// says no, so that a client flooding it is slowed rather than buffered without end.
    fn is_reading(&self) -> bool {
        true
    }

    /// Runs after every turn that goes on, before the turn's write: a handler queues here
    /// what else is ready, so that it shares the write.
    fn after_turn(
        &mut self,
        _out: &mut Outbox<'_>,
    ) -> impl Future<Output = Result<(), axum::Error>> + Send {
        std::future::ready(Ok(()))
    }
}

/// Serves a socket until its client closes it or goes, its handler's source ends, the frame
/// limit closes it, or `closing` completes (shutdown, logout).
///
/// One task owns the socket whole: `select!` drops the pending read before a branch runs, so
/// a branch can write. Splitting it would put a lock around every read and write.
///
/// # Errors
/// The socket failed.
pub(super) async fn serve<H: SocketHandler>(
    socket: &mut WebSocket,
    handler: &mut H,
    gate: FrameGate,
    closing: impl Future<Output = Closing>,
) -> Result<(), axum::Error> {
    let mut closing = std::pin::pin!(closing);
    loop {
        let flow = tokio::select! {
            // In this order, and the closing (shutdown, logout) only when neither of the
            // others is ready: polling it takes the lock that every socket's shutdown waiter
            // shares.
            biased;
            frame = socket.recv(), if handler.is_reading() => match frame {
                Some(frame) => read_frame(frame?, &gate, handler, &mut Outbox { socket: &mut *socket }).await?,
                None => Flow::Stop,
            },
            event = handler.next_event() => match event {
                Some(event) => handler.on_event(event, &mut Outbox { socket: &mut *socket }).await?,
                None => Flow::Close(Message::Close(None)),
            },
            closing = &mut closing => Flow::Close(closing.close_message()),
        };
        match flow {
            Flow::Go => {
                handler
                    .after_turn(&mut Outbox {
                        socket: &mut *socket,
                    })
                    .await?;
                socket.flush().await?;
            }
            Flow::Stop => break,
            Flow::Close(frame) => {
                // The socket is closing anyway: a client already gone cannot hear it.
                let _ = socket.send(frame).await;
                break;
            }
        }
    }
    Ok(())
}

/// Passes one frame from the client through the socket's gate and size limit, and hands a
/// text frame to the handler.
async fn read_frame<H: SocketHandler>(
    frame: Message,
    gate: &FrameGate,
    handler: &mut H,
    out: &mut Outbox<'_>,
) -> Result<Flow, axum::Error> {
    match gate.admit_frame(&frame) {
        Admission::Admit => {}
        Admission::Refuse(error) => {
            out.push(error).await?;
            return Ok(Flow::Go);
        }
        Admission::Close => return Ok(Flow::Close(rate_limited_close())),
    }
    match frame {
        Message::Text(text) if text.len() > MAX_CLIENT_MESSAGE => {
            out.push(frame_too_large()).await?;
        }
        Message::Text(text) => handler.on_text(text.as_str(), out).await?,
        Message::Binary(_) => {
            let error = ErrorEvent::new("bad_message", "send JSON text frames");
            out.push(error.to_json()).await?;
        }
        Message::Close(_) => return Ok(Flow::Stop),
        // Answered by the library (a ping's pong goes out with the next read or write).
        Message::Ping(_) | Message::Pong(_) => {}
    }
    Ok(Flow::Go)
}

/// The error for a client frame over [`MAX_CLIENT_MESSAGE`].
fn frame_too_large() -> String {
    let message = format!("messages are limited to {MAX_CLIENT_MESSAGE} bytes");
    ErrorEvent::new("frame_too_large", &message).to_json()
}
