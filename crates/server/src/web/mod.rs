//! HTTP and WebSocket transport (the only layer that knows axum): routes, auth, JSON API,
//! the game sockets (one game each, or many on one: `mux`), the lobby (socket, commands,
//! ratings), health and metrics. Handlers are thin: they validate input, call the game layer
//! or the store, and map errors to [`error::ApiError`].

pub mod access;
pub mod admin_notices;
pub mod api;
pub mod assets;
pub mod auth;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod limits;
pub mod lobby;
pub mod login_backoff;
pub mod mux;
pub mod openapi;
pub mod pages;
pub mod proxy;
pub mod security;
pub mod socket;
pub mod variant_pages;
pub mod ws;

use crate::game::lobby::LobbyHandle;
use crate::game::Games;
use crate::store::{CommitStats, Store};
use axum::extract::ws::{CloseFrame, Message};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::sync::Arc;
use tokio::sync::watch;
use tokio_util::task::TaskTracker;
use tower_http::set_header::SetResponseHeaderLayer;

/// Shared state of every handler. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    /// Sessions recently found in the database.
    pub sessions: Arc<auth::SessionCache>,
    pub games: Games,
    pub lobby: LobbyHandle,
    pub commit_stats: Arc<CommitStats>,
    /// Flips to true when the server begins shutting down; sockets close on it.
    pub shutdown: watch::Receiver<bool>,
    /// Every open WebSocket task. axum's graceful shutdown waits for HTTP connections only:
    /// an upgraded socket runs in a task of its own, which the runtime would cancel at exit
    /// before it had sent its close frame.
    pub sockets: TaskTracker,
    /// The public URL and the trusted proxies: who each request's client is.
    pub site: Arc<proxy::Site>,
    pub limits: Arc<limits::Limiters>,
    /// The modules each page module imports, which its page preloads ([`assets`]).
    pub static_preloads: Arc<assets::Preloads>,
    /// The version of the static files, in the URLs the pages load them from ([`assets`]).
    pub static_version: Arc<str>,
}

impl AppState {
    /// Completes once the server begins shutting down (at once if it already has). A socket
    /// task pins one for its whole life: asking the watch afresh in every `select!` added and
    /// removed a waiter under the one lock that every socket shares, around every frame.
    pub fn shutting_down(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut shutdown = self.shutdown.clone();
        async move {
            // An error means the sender is gone: the server is stopping either way.
            let _ = shutdown.wait_for(|&stopping| stopping).await;
        }
    }

    /// Completes when a socket must close although its peer has not asked to: the server
    /// begins shutting down, or the session the socket was opened with (`logout`) logs out.
    /// A socket task pins one for its whole life, as [`AppState::shutting_down`].
    pub fn closing(
        &self,
        logout: Option<auth::LogoutSignal>,
    ) -> impl std::future::Future<Output = Closing> + Send + 'static {
        let shutting_down = self.shutting_down();
        async move {
            let Some(mut logout) = logout else {
                shutting_down.await;
                return Closing::ShuttingDown;
            };
            tokio::select! {
                () = shutting_down => Closing::ShuttingDown,
                () = logout.logged_out() => Closing::LoggedOut,
            }
        }
    }
}

/// Why the server closes a socket on its own (see [`AppState::closing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closing {
    ShuttingDown,
    /// The session the socket was opened with logged out: its player may no longer act
    /// through it. The close frame says `logged_out`, so a client knows not to reconnect
    /// as if the connection had merely dropped.
    LoggedOut,
}

impl Closing {
    /// The close frame the socket sends before it stops.
    pub fn close_message(self) -> Message {
        match self {
            Closing::ShuttingDown => Message::Close(None),
            Closing::LoggedOut => Message::Close(Some(CloseFrame {
                code: axum::extract::ws::close_code::NORMAL,
                reason: "logged_out".into(),
            })),
        }
    }
}

/// Whether the server can reach its database.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "server",
    responses(
        (status = 200, description = "`ok`.", content_type = "text/plain", body = String),
        (status = 503, description = "The database is unreachable.", content_type = "text/plain", body = String),
    )
)]
async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    // During an outage the store's prober is already pinging; a ping here would only wait
    // out the pool's acquire timeout.
    let available = match state.store.check_available() {
        Ok(()) => state.store.ping().await,
        Err(away) => Err(away),
    };
    match available {
        Ok(_) => (axum::http::StatusCode::OK, "ok"),
        Err(_) => (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "database unreachable",
        ),
    }
}

/// The server's counters in Prometheus's text format (`docs/protocol.md` names them).
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "server",
    responses((status = 200, description = "Prometheus text exposition format 0.0.4.", content_type = "text/plain", body = String))
)]
async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let text = state.games.metrics().render(&state.commit_stats.snapshot());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}

/// The whole application: [`router`], compressed, plus the static files of the browser
/// client under `/static` ([`assets`]: built in, with their own compressed copies, or
/// `STATIC_DIR`'s), with the hardening headers ([`security`], and HSTS for an https public
/// URL) and logged with a request id ([`access`]).
pub fn app_router(state: AppState, static_files: &assets::StaticFiles) -> Router {
    let sends_hsts = state.site.sends_hsts();
    let mut app = router(state)
        .layer(assets::compression())
        .merge(static_files.router());
    if sends_hsts {
        app = app.layer(SetResponseHeaderLayer::if_not_present(
            header::STRICT_TRANSPORT_SECURITY,
            header::HeaderValue::from_static(proxy::HSTS),
        ));
    }
    access::wrap(security::with_security_headers(app))
}

/// The whole application's routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/ws/game/{id}", get(ws::game_socket))
        .route("/ws/games", get(mux::games_socket))
        .merge(auth::router())
        .merge(api::router())
        .merge(pages::router())
        .merge(variant_pages::router())
        .merge(lobby::router())
        .merge(openapi::router())
        .fallback(fallback::not_found)
        .method_not_allowed_fallback(fallback::method_not_allowed)
        // Bodies are read by the JSON extractor, which answers one over the limit with the
        // API's `body_too_large` (`extract::JsonBody`).
        .layer(DefaultBodyLimit::max(64 * 1024))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::refuse_cross_origin,
        ))
        .with_state(state)
}
