//! `/ws/games`: one WebSocket carrying any number of games at once (up to [`MAX_WATCHED`]),
//! for a client that plays or follows several: a bot, a player with many games without a
//! clock, a spectator of a tournament. A client watches a game (`watch`, resuming after a
//! version if it has one), sends that game's `/ws/game/{id}` messages wrapped in `game`, and
//! receives every message of the game it watches with the game's id (`"gid"`) added. A
//! `preview` watch (the lobby's small live boards) only reads: the game counts it neither
//! present nor among its spectators, so a page that shows games in passing changes nothing
//! a player sees or claims.
//!
//! The socket loop (`web::socket`) serves it, as it does `/ws/game/{id}`; this module's
//! [`SocketHandler`] gives the loop its outbound items, the watched games' event streams and
//! the answers still awaited. Two things differ, because many games share the socket:
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

use super::auth::MaybeUser;
use super::limits::SocketKind;
use super::proxy::ClientInfo;
use super::socket::{self, open_socket, Flow, Outbox, SocketHandler, SocketOpening};
use super::ws::{answer, error_json};
use super::AppState;
use crate::game::{GameHandle, Outgoing};
use crate::play::wire::game::{
    parse_mux_msg, tag_with_gid, unwatched_message, ClientMsg, MuxClientMsg,
};
use crate::play::wire::{ErrorEvent, Pong};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::future::BoxFuture;
use futures_util::stream::{self, AbortHandle, BoxStream, FuturesUnordered, SelectAll};
use futures_util::{FutureExt, StreamExt};
use std::collections::HashMap;
use std::sync::Arc;
use std::task::Poll;
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
        move |mut socket, state, logout, gate| async move {
            let mut mux = Multiplexer::new(&state, viewer);
            let served = socket::serve(&mut socket, &mut mux, gate, state.closing(logout));
            if let Err(e) = served.await {
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
struct Multiplexer<'a> {
    state: &'a AppState,
    viewer: Option<Uuid>,
    watched: HashMap<Uuid, Watched>,
    events: SelectAll<EventStream>,
    pending: FuturesUnordered<PendingAnswer>,
}

/// What the multiplexed socket has to send: an answer to one of its game messages, or an
/// item of a watched game's stream.
enum MuxEvent {
    Answer(Uuid, Option<String>),
    Game(Uuid, Result<Arc<str>, RecvError>),
}

impl SocketHandler for Multiplexer<'_> {
    type Event = MuxEvent;

    /// The answers first, then the games' events, as they were ready. Never ends: with no
    /// game watched and nothing awaited there is simply nothing to send.
    async fn next_event(&mut self) -> Option<MuxEvent> {
        std::future::poll_fn(|cx| {
            // An empty set is ready with None and keeps no waker; it gets items only from
            // this task, which polls here again before it sleeps.
            if let Poll::Ready(Some((gid, reply))) = self.pending.poll_next_unpin(cx) {
                return Poll::Ready(Some(MuxEvent::Answer(gid, reply)));
            }
            if let Poll::Ready(Some((gid, event))) = self.events.poll_next_unpin(cx) {
                return Poll::Ready(Some(MuxEvent::Game(gid, event)));
            }
            Poll::Pending
        })
        .await
    }

    async fn on_event(
        &mut self,
        event: MuxEvent,
        out: &mut Outbox<'_>,
    ) -> Result<Flow, axum::Error> {
        self.send(event, out).await?;
        Ok(Flow::Go)
    }

    async fn on_text(&mut self, text: &str, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        self.read_text(text, out).await
    }

    fn is_reading(&self) -> bool {
        self.pending.len() < MAX_PENDING
    }

    /// What is ready now (this also sends the actions just read on to their games), then,
    /// once the tasks already woken have run, what they made ready: the other games' events
    /// released by the same commit share this write (the module's header).
    async fn after_turn(&mut self, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        self.feed_ready(out).await?;
        tokio::task::yield_now().await;
        self.feed_ready(out).await
    }
}

impl<'a> Multiplexer<'a> {
    fn new(state: &'a AppState, viewer: Option<Uuid>) -> Multiplexer<'a> {
        Multiplexer {
            state,
            viewer,
            watched: HashMap::new(),
            events: SelectAll::new(),
            pending: FuturesUnordered::new(),
        }
    }

    /// Queues what else is ready to go out, so that it shares the write.
    async fn feed_ready(&mut self, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        for _ in 0..MAX_WRITE_BATCH {
            // A poll that finds nothing is harmless: the next `select!` polls every branch
            // with the task's own waker before the task sleeps.
            if let Some(Some((gid, event))) = self.events.next().now_or_never() {
                self.forward(gid, event, out).await?;
            } else if let Some(Some((gid, reply))) = self.pending.next().now_or_never() {
                self.send(MuxEvent::Answer(gid, reply), out).await?;
            } else {
                break;
            }
        }
        Ok(())
    }

    /// Queues one outbound item for the client.
    async fn send(&mut self, event: MuxEvent, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        match event {
            MuxEvent::Answer(gid, Some(reply)) => out.push(tag_with_gid(gid, &reply)).await,
            MuxEvent::Answer(_, None) => Ok(()),
            MuxEvent::Game(gid, event) => self.forward(gid, event, out).await,
        }
    }

    /// Carries out one client message; a game message's answer is awaited among the others.
    async fn read_text(&mut self, text: &str, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        match parse_mux_msg(text) {
            Err((code, message)) => out.push(ErrorEvent::new(code, &message).to_json()).await,
            Ok(MuxClientMsg::Ping {}) => out.push(Pong {}.to_json()).await,
            Ok(MuxClientMsg::Watch { gid, v, preview }) => self.watch(gid, v, preview, out).await,
            Ok(MuxClientMsg::Unwatch { gid }) => {
                if self.stop_watching(gid).await {
                    out.push(unwatched_message(gid)).await
                } else {
                    out.push(not_watching(gid)).await
                }
            }
            Ok(MuxClientMsg::Game { gid, msg }) => {
                match self.watched.get(&gid) {
                    // A preview may catch up and ping, as the nobody it is; nothing else.
                    Some(watched)
                        if watched.preview
                            && !matches!(msg, ClientMsg::Sync { .. } | ClientMsg::Ping {}) =>
                    {
                        return out.push(preview_only(gid)).await
                    }
                    Some(watched) => {
                        let (handle, seen_as) =
                            (watched.handle.clone(), watched.seen_as(self.viewer));
                        self.carry_out(gid, handle, seen_as, msg)
                    }
                    None => return out.push(not_watching(gid)).await,
                }
                Ok(())
            }
        }
    }

    /// Starts forwarding a game's messages, from version `since` if the client has one.
    async fn watch(
        &mut self,
        gid: Uuid,
        since: Option<u64>,
        preview: bool,
        out: &mut Outbox<'_>,
    ) -> Result<(), axum::Error> {
        if self.watched.contains_key(&gid) {
            let error = ErrorEvent::new(
                "already_watching",
                "this socket already watches that game; send it a sync to catch up",
            );
            return out.push(tag_with_gid(gid, &error.to_json())).await;
        }
        if self.watched.len() >= MAX_WATCHED {
            let message = format!("a socket watches at most {MAX_WATCHED} games at once");
            let error = ErrorEvent::new("too_many_games", &message);
            return out.push(tag_with_gid(gid, &error.to_json())).await;
        }
        let handle = match self.state.games.find(gid).await {
            Ok(handle) => handle,
            Err(error) => return out.push(tag_with_gid(gid, &error_json(&error))).await,
        };
        let seen_as = if preview { None } else { self.viewer };
        let subscription = match handle.subscribe(seen_as, since).await {
            Ok(subscription) => subscription,
            Err(e) => return out.push(tag_with_gid(gid, &error_json(&e))).await,
        };
        if !preview {
            handle.presence(self.viewer, true).await;
        }
        for message in &subscription.initial {
            out.push(tag_with_gid(gid, message)).await?;
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
        out: &mut Outbox<'_>,
    ) -> Result<(), axum::Error> {
        match event {
            Ok(message) => out.push(tag_with_gid(gid, &message)).await,
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
                            out.push(tag_with_gid(gid, message)).await?;
                        }
                        let (events, stop) = event_stream(gid, fresh.events, seen_as);
                        watched.stop = stop;
                        self.events.push(events);
                        Ok(())
                    }
                    Err(_) => {
                        self.watched.remove(&gid);
                        out.push(unwatched_message(gid)).await
                    }
                }
            }
            Err(RecvError::Closed) => {
                // The game has stopped (let go after its end, or the server is stopping).
                self.watched.remove(&gid);
                out.push(unwatched_message(gid)).await
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

fn preview_only(gid: Uuid) -> String {
    let error = ErrorEvent::new(
        "preview_only",
        "this socket watches the game as a preview, which only reads (sync and ping); watch it without preview to take part",
    );
    tag_with_gid(gid, &error.to_json())
}

fn not_watching(gid: Uuid) -> String {
    let error = ErrorEvent::new("not_watching", "watch the game on this socket first");
    tag_with_gid(gid, &error.to_json())
}
