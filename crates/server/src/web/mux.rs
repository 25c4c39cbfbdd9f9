//! `/ws/games`: one WebSocket carrying any number of games at once (up to [`MAX_WATCHED`]),
//! for a client that plays or follows several: a bot, a player with many games without a
//! clock, a spectator of a tournament. A client watches a game (`watch`, resuming after a
//! version if it has one), sends that game's `/ws/game/{id}` messages wrapped in `game`, and
//! receives every message of the game it watches with the game's id (`"gid"`) added. A
//! `preview` watch (the lobby's small live boards) only reads: the game counts it neither
//! present nor among its spectators, so a page that shows games in passing changes nothing
//! a player sees or claims.
//!
//! One task serves the socket, as on `/ws/game/{id}`, with one `select!` over the socket,
//! the watched games' event streams, the answers still awaited and the server's shutdown or
//! the session's logout. Two things differ, because many games share the socket:
//! - A game message does not hold up the socket: an action's answer comes only once it is
//!   committed, so each is awaited among the others ([`MAX_PENDING`] at most; reading waits
//!   beyond that).
//! - Whatever is ready to send when the task wakes goes out in one write: with many games on
//!   a socket the events of several arrive together, and one system call for many messages
//!   is the reason such a socket costs the server less per move than one socket per game.
//!   One commit releases the moves of many games at once, but their actors run one after
//!   another, and tokio runs the task an actor wakes straight after it. So the task yields
//!   once before it writes, and the other games' events join the write: under load that took
//!   the server from about one write per move to one per three.

use super::auth::{LogoutSignal, MaybeUser};
use super::limits::{rate_limited_close, Admission, FrameGate, SocketKind};
use super::proxy::ClientInfo;
use super::ws::{
    answer, error_json, frame_too_large, open_socket, SocketOpening, MAX_CLIENT_MESSAGE,
};
use super::AppState;
use crate::game::{GameHandle, Outgoing};
use crate::wire::game::{parse_mux_msg, tag_with_gid, unwatched_message, ClientMsg, MuxClientMsg};
use crate::wire::{ErrorEvent, Pong};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::future::BoxFuture;
use futures_util::stream::{self, AbortHandle, BoxStream, FuturesUnordered, SelectAll};
use futures_util::{FutureExt, SinkExt, StreamExt};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

/// Games one socket may watch at once; a `watch` beyond it gets `too_many_games`.
pub const MAX_WATCHED: usize = 256;
/// Game messages whose answers are still awaited; the socket reads no more until one is
/// answered, so a client that floods it is slowed rather than buffered without end.
const MAX_PENDING: usize = 256;
/// Messages gathered into one write at most; the rest wait for the next turn of the loop, so
/// that a busy socket still reads its client's frames in between.
const MAX_WRITE_BATCH: usize = 128;

/// One watched game's messages, tagged with its id; ends when the game stops.
type EventStream = BoxStream<'static, (Uuid, Result<Arc<str>, RecvError>)>;

/// A game message being carried out, with the game it is for and its answer, if any.
type PendingAnswer = BoxFuture<'static, (Uuid, Option<String>)>;

pub async fn games_socket(
    State(state): State<AppState>,
    MaybeUser(user): MaybeUser,
    client: ClientInfo,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let viewer = user.map(|u| u.user_id);
    let opening = SocketOpening {
        viewer,
        headers: &headers,
        client: &client,
        kind: SocketKind::Multiplexed,
    };
    open_socket(
        state,
        upgrade,
        opening,
        move |socket, state, logout, gate| async move {
            let mut mux = Multiplexer::new(viewer);
            if let Err(e) = mux.serve(socket, &state, logout, gate).await {
                tracing::debug!(cause = %e, "multiplexed socket closed");
            }
            mux.leave_all().await;
        },
    )
}

/// A game the socket watches.
struct Watched {
    handle: GameHandle,
    /// A preview: not counted in the game, and sends it no game messages but `sync` and
    /// `ping`.
    preview: bool,
    /// Ends the game's event stream (an `unwatch`, or a fresh subscription after lagging).
    stop: AbortHandle,
}

impl Watched {
    /// Who the game sees on this socket: its viewer, or nobody for a preview (`watch` with
    /// `preview`), which reads only what any spectator reads.
    fn seen_as(&self, viewer: Option<Uuid>) -> Option<Uuid> {
        if self.preview {
            None
        } else {
            viewer
        }
    }
}

/// The state of one multiplexed socket.
struct Multiplexer {
    viewer: Option<Uuid>,
    watched: HashMap<Uuid, Watched>,
    events: SelectAll<EventStream>,
    pending: FuturesUnordered<PendingAnswer>,
}

impl Multiplexer {
    fn new(viewer: Option<Uuid>) -> Multiplexer {
        Multiplexer {
            viewer,
            watched: HashMap::new(),
            events: SelectAll::new(),
            pending: FuturesUnordered::new(),
        }
    }

    async fn serve(
        &mut self,
        mut socket: WebSocket,
        state: &AppState,
        logout: Option<LogoutSignal>,
        gate: FrameGate,
    ) -> Result<(), axum::Error> {
        let mut closing = std::pin::pin!(state.closing(logout));
        loop {
            tokio::select! {
                // The closing (shutdown, logout) last, as on `/ws/game/{id}`: polling it
                // takes the lock every socket's shutdown waiter shares.
                biased;
                frame = socket.recv(), if self.pending.len() < MAX_PENDING => {
                    let Some(frame) = frame else { break };
                    let frame = frame?;
                    match gate.admit_frame(&frame) {
                        Admission::Admit => {}
                        // Sent at once: `continue` skips the write at the end of the loop.
                        Admission::Refuse(error) => {
                            socket.send(text_message(error)).await?;
                            continue;
                        }
                        Admission::Close => {
                            let _ = socket.send(rate_limited_close()).await;
                            break;
                        }
                    }
                    match frame {
                        Message::Text(text) => self.read_frame(state, text.as_str(), &mut socket).await?,
                        Message::Binary(_) => {
                            let error = ErrorEvent::new("bad_message", "send JSON text frames");
                            socket.feed(text_message(error.to_json())).await?;
                        }
                        Message::Close(_) => break,
                        Message::Ping(_) | Message::Pong(_) => {}
                    }
                }
                Some((gid, reply)) = self.pending.next(), if !self.pending.is_empty() => {
                    if let Some(reply) = reply {
                        socket.feed(tagged(gid, &reply)).await?;
                    }
                }
                Some((gid, event)) = self.events.next(), if !self.events.is_empty() => {
                    self.forward(gid, event, &mut socket).await?;
                }
                closing = &mut closing => {
                    let _ = socket.send(closing.close_message()).await;
                    break;
                }
            }
            // What is ready now (this also sends the actions just read on to their games),
            // then, once the tasks already woken have run, what they made ready: the other
            // games' events released by the same commit share this write (the module's header).
            self.feed_ready(&mut socket).await?;
            tokio::task::yield_now().await;
            self.feed_ready(&mut socket).await?;
            socket.flush().await?;
        }
        Ok(())
    }

    /// Feeds what else is ready to go out, so that it shares the write.
    async fn feed_ready(&mut self, socket: &mut WebSocket) -> Result<(), axum::Error> {
        for _ in 0..MAX_WRITE_BATCH {
            // A poll that finds nothing is harmless: the next `select!` polls every branch
            // with the task's own waker before the task sleeps.
            if let Some(Some((gid, event))) = self.events.next().now_or_never() {
                self.forward(gid, event, socket).await?;
            } else if let Some(Some((gid, reply))) = self.pending.next().now_or_never() {
                if let Some(reply) = reply {
                    socket.feed(tagged(gid, &reply)).await?;
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    async fn read_frame(
        &mut self,
        state: &AppState,
        text: &str,
        socket: &mut WebSocket,
    ) -> Result<(), axum::Error> {
        if text.len() > MAX_CLIENT_MESSAGE {
            return socket.feed(text_message(frame_too_large())).await;
        }
        match parse_mux_msg(text) {
            Err((code, message)) => {
                socket
                    .feed(text_message(ErrorEvent::new(code, &message).to_json()))
                    .await
            }
            Ok(MuxClientMsg::Ping {}) => socket.feed(text_message(Pong {}.to_json())).await,
            Ok(MuxClientMsg::Watch { gid, v, preview }) => {
                self.watch(state, gid, v, preview, socket).await
            }
            Ok(MuxClientMsg::Unwatch { gid }) => {
                if self.stop_watching(gid).await {
                    socket.feed(unwatched(gid)).await
                } else {
                    socket.feed(not_watching(gid)).await
                }
            }
            Ok(MuxClientMsg::Game { gid, msg }) => {
                match self.watched.get(&gid) {
                    // A preview may catch up and ping, as the nobody it is; nothing else.
                    Some(watched)
                        if watched.preview
                            && !matches!(msg, ClientMsg::Sync { .. } | ClientMsg::Ping {}) =>
                    {
                        return socket.feed(preview_only(gid)).await
                    }
                    Some(watched) => {
                        let (handle, seen_as) =
                            (watched.handle.clone(), watched.seen_as(self.viewer));
                        self.carry_out(gid, handle, seen_as, msg)
                    }
                    None => return socket.feed(not_watching(gid)).await,
                }
                Ok(())
            }
        }
    }

    /// Starts forwarding a game's messages, from version `since` if the client has one.
    async fn watch(
        &mut self,
        state: &AppState,
        gid: Uuid,
        since: Option<u64>,
        preview: bool,
        socket: &mut WebSocket,
    ) -> Result<(), axum::Error> {
        if self.watched.contains_key(&gid) {
            let error = ErrorEvent::new(
                "already_watching",
                "this socket already watches that game; send it a sync to catch up",
            );
            return socket.feed(tagged(gid, &error.to_json())).await;
        }
        if self.watched.len() >= MAX_WATCHED {
            let message = format!("a socket watches at most {MAX_WATCHED} games at once");
            let error = ErrorEvent::new("too_many_games", &message);
            return socket.feed(tagged(gid, &error.to_json())).await;
        }
        let handle = match state.games.find(gid).await {
            Ok(handle) => handle,
            Err(error) => return socket.feed(tagged(gid, &error_json(&error))).await,
        };
        let seen_as = if preview { None } else { self.viewer };
        let subscription = match handle.subscribe(seen_as, since).await {
            Ok(subscription) => subscription,
            Err(e) => return socket.feed(tagged(gid, &error_json(&e))).await,
        };
        if !preview {
            handle.presence(self.viewer, true).await;
        }
        for message in &subscription.initial {
            socket.feed(tagged(gid, message)).await?;
        }
        let (events, stop) = event_stream(gid, subscription.events, seen_as);
        self.events.push(events);
        let watched = Watched {
            handle,
            preview,
            stop,
        };
        self.watched.insert(gid, watched);
        Ok(())
    }

    /// Sends one watched game's message to its actor, from `viewer` (who the game sees on
    /// this socket); the answer is awaited among the others.
    fn carry_out(
        &mut self,
        gid: Uuid,
        handle: GameHandle,
        viewer: Option<Uuid>,
        message: ClientMsg,
    ) {
        self.pending.push(
            async move {
                let reply = answer(message, &handle, viewer).await;
                (gid, reply)
            }
            .boxed(),
        );
    }

    /// Passes one item of a game's stream to the client.
    async fn forward(
        &mut self,
        gid: Uuid,
        event: Result<Arc<str>, RecvError>,
        socket: &mut WebSocket,
    ) -> Result<(), axum::Error> {
        match event {
            Ok(message) => socket.feed(tagged(gid, &message)).await,
            Err(RecvError::Lagged(_)) => {
                // Too slow to keep up with this game: start it again from a full snapshot.
                let Some(watched) = self.watched.get_mut(&gid) else {
                    return Ok(());
                };
                watched.stop.abort();
                let seen_as = watched.seen_as(self.viewer);
                match watched.handle.subscribe(seen_as, None).await {
                    Ok(fresh) => {
                        for message in &fresh.initial {
                            socket.feed(tagged(gid, message)).await?;
                        }
                        let (events, stop) = event_stream(gid, fresh.events, seen_as);
                        watched.stop = stop;
                        self.events.push(events);
                        Ok(())
                    }
                    Err(_) => {
                        self.watched.remove(&gid);
                        socket.feed(unwatched(gid)).await
                    }
                }
            }
            Err(RecvError::Closed) => {
                // The game has stopped (let go after its end, or the server is stopping).
                self.watched.remove(&gid);
                socket.feed(unwatched(gid)).await
            }
        }
    }

    /// Stops watching a game; false if the socket did not watch it.
    async fn stop_watching(&mut self, gid: Uuid) -> bool {
        let Some(watched) = self.watched.remove(&gid) else {
            return false;
        };
        watched.stop.abort();
        if !watched.preview {
            watched.handle.presence(self.viewer, false).await;
        }
        true
    }

    /// The socket has closed: its viewer is no longer present in any game it watched.
    async fn leave_all(&mut self) {
        for (_, watched) in self.watched.drain() {
            if !watched.preview {
                watched.handle.presence(self.viewer, false).await;
            }
        }
    }
}

/// A game's event stream as a stream of tagged items that ends after the game's last
/// (`Closed`) or when `AbortHandle::abort` is called. It holds only what reaches `viewer`
/// (a chat line is for one room).
fn event_stream(
    gid: Uuid,
    events: broadcast::Receiver<Outgoing>,
    viewer: Option<Uuid>,
) -> (EventStream, AbortHandle) {
    let items = stream::unfold(Some(events), move |receiver| async move {
        let mut receiver = receiver?;
        loop {
            let item = match receiver.recv().await {
                Ok(message) if !message.reaches(viewer) => continue,
                Ok(message) => Ok(message.text),
                Err(e) => Err(e),
            };
            let next = match item {
                Err(RecvError::Closed) => None,
                _ => Some(receiver),
            };
            return Some((item, next));
        }
    });
    let (items, stop) = stream::abortable(items);
    (items.map(move |item| (gid, item)).boxed(), stop)
}

fn text_message(text: String) -> Message {
    Message::Text(Utf8Bytes::from(text))
}

/// A game's message with the game's id added (`wire::game::GidTagged`).
fn tagged(gid: Uuid, message: &str) -> Message {
    text_message(tag_with_gid(gid, message))
}

fn unwatched(gid: Uuid) -> Message {
    text_message(unwatched_message(gid))
}

fn preview_only(gid: Uuid) -> Message {
    let error = ErrorEvent::new(
        "preview_only",
        "this socket watches the game as a preview, which only reads (sync and ping); watch it without preview to take part",
    );
    tagged(gid, &error.to_json())
}

fn not_watching(gid: Uuid) -> Message {
    let error = ErrorEvent::new("not_watching", "watch the game on this socket first");
    tagged(gid, &error.to_json())
}
