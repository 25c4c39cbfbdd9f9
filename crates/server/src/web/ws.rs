//! `/ws/game/{id}`: one game's socket. On connect (`?v=N` to resume after version N) the
//! client gets the events it missed, or a full snapshot; then the socket loop (`web::socket`)
//! runs it, with this module's [`SocketHandler`]: the game's events go to the client, and the
//! client's frames are parsed into [`ClientMsg`] and carried out. Anything wrong is answered
//! with an error message on this socket only and changes nothing.
//!
//! It also owns what the multiplexed socket (`web::mux`) shares with this one: the carrying
//! out of one game message ([`answer`]).

use super::auth::{LogoutSignal, MaybeUser};
use super::extract::{GameIdPath, QueryParams};
use super::limits::{FrameGate, SocketKind};
use super::proxy::ClientInfo;
use super::socket::{self, open_socket, send_now, Flow, Outbox, SocketHandler, SocketOpening};
use super::AppState;
use crate::game::{GameError, GameHandle, Outgoing, PlayerRequest};
use crate::play::wire::game::{batch_message, parse_client_msg, ClientMsg};
use crate::play::wire::{ErrorEvent, Pong};
use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

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

/// Subscribes to the game (from version `since`), sends what the client missed, and serves
/// the socket until it closes.
async fn serve_socket(
    mut socket: WebSocket,
    state: &AppState,
    handle: &GameHandle,
    viewer: Option<Uuid>,
    since: Option<u64>,
    logout: Option<LogoutSignal>,
    gate: FrameGate,
) -> Result<(), axum::Error> {
    let subscription = match handle.subscribe(viewer, since).await {
        Ok(s) => s,
        Err(e) => {
            let error = ErrorEvent::new(e.code(), &e.to_string()).to_json();
            return send_now(&mut socket, [error]).await;
        }
    };
    send_now(
        &mut socket,
        subscription.initial.iter().map(AsRef::<str>::as_ref),
    )
    .await?;
    let mut game = GameSocket {
        handle,
        viewer,
        events: subscription.events,
    };
    socket::serve(&mut socket, &mut game, gate, state.closing(logout)).await
}

/// One game's socket: the client's messages go to the game, the game's events to the client.
struct GameSocket<'a> {
    handle: &'a GameHandle,
    viewer: Option<Uuid>,
    events: broadcast::Receiver<Outgoing>,
}

impl SocketHandler for GameSocket<'_> {
    type Event = Result<Outgoing, RecvError>;

    async fn next_event(&mut self) -> Option<Self::Event> {
        match self.events.recv().await {
            // The game has stopped (shut down or let go): the socket says so, rather than drop.
            Err(RecvError::Closed) => None,
            event => Some(event),
        }
    }

    async fn on_event(
        &mut self,
        event: Self::Event,
        out: &mut Outbox<'_>,
    ) -> Result<Flow, axum::Error> {
        match event {
            // A chat line of a room this viewer is not in is not theirs to see.
            Ok(message) if message.reaches(self.viewer) => out.push(&*message.text).await?,
            Ok(_) => {}
            // Too slow to keep up (`Lagged`; `Closed` ends the events): start again from a
            // full snapshot.
            Err(_) => match self.handle.subscribe(self.viewer, None).await {
                Ok(fresh) => {
                    self.events = fresh.events;
                    for message in &fresh.initial {
                        out.push(&**message).await?;
                    }
                }
                Err(_) => return Ok(Flow::Stop),
            },
        }
        Ok(Flow::Go)
    }

    async fn on_text(&mut self, text: &str, out: &mut Outbox<'_>) -> Result<(), axum::Error> {
        let reply = match parse_client_msg(text) {
            Ok(message) => answer(message, self.handle, self.viewer).await,
            Err((code, message)) => Some(ErrorEvent::new(code, &message).to_json()),
        };
        match reply {
            Some(reply) => out.push(reply).await,
            None => Ok(()),
        }
    }
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
