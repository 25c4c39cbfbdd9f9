//! Building and running the server: connect the store (creating the database and running
//! migrations), start the group-commit writer and the lobby, restore unfinished games, start
//! the housekeeping task, and serve the router until the shutdown signal, then let open
//! sockets close.

use crate::config::Config;
use crate::game::computer::ComputerPlayers;
use crate::game::lobby::{LobbyHandle, LobbySettings};
use crate::game::{GameSettings, Games};
use crate::metrics::Metrics;
use crate::store::{GameWriter, Store};
use crate::web::limits::Limiters;
use crate::web::proxy::Site;
use crate::web::{self, AppState};
use axum::serve::ListenerExt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_util::task::TaskTracker;

/// Why the server could not start: PostgreSQL, or NATS in cluster mode.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Cluster(#[from] crate::cluster::ClusterError),
}

/// A built application, ready to serve.
pub struct App {
    pub state: AppState,
    /// The browser client's static files: built in, or `STATIC_DIR`'s.
    static_files: web::assets::StaticFiles,
    shutdown_tx: watch::Sender<bool>,
}

impl App {
    /// Connects to the database (and to NATS in cluster mode) and restores live games.
    ///
    /// # Errors
    /// The database cannot be reached or migrated, or NATS cannot be reached.
    pub async fn build(config: &Config, settings: GameSettings) -> Result<App, BuildError> {
        App::build_with(config, settings, LobbySettings::default()).await
    }

    /// [`App::build`] with the lobby's timings given (tests shorten them).
    ///
    /// # Errors
    /// As [`App::build`].
    pub async fn build_with(
        config: &Config,
        settings: GameSettings,
        lobby_settings: LobbySettings,
    ) -> Result<App, BuildError> {
        // First, while no task of this server runs that it could hold up.
        let static_files = web::assets::StaticFiles::load(config.static_dir.as_deref());
        let store = Store::connect(&config.database_url).await?;
        let writer = GameWriter::spawn(store.clone());
        let commit_stats = writer.stats();
        let metrics = Arc::new(Metrics::default());
        let computers = ComputerPlayers::new(store.computer_players().await?);
        let games = Games::new(store.clone(), writer, metrics, settings, computers);
        // Several nodes: this one runs only the games whose lease it holds.
        let ownership = match &config.nats_url {
            Some(url) => {
                let node_id = config
                    .node_id
                    .clone()
                    .unwrap_or_else(crate::cluster::generated_node_id);
                let cluster =
                    crate::cluster::Cluster::connect(url, &node_id, NATS_CONNECT_TIMEOUT).await?;
                tracing::info!(node_id, "joined the cluster");
                Some(games.join_cluster(cluster))
            }
            None => None,
        };
        // Before restoring games, so the lobby hears about every game start.
        let lobby = LobbyHandle::spawn(games.clone(), lobby_settings);
        let restored = games.restore().await?;
        if restored > 0 {
            tracing::info!(restored, "restored unfinished games");
        }
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        if let Some(ownership) = ownership {
            // Other nodes' requests for the games this one runs.
            tokio::spawn(crate::game::forwarding::serve(
                games.clone(),
                ownership.cluster().client().clone(),
                ownership.cluster().node_id().to_string(),
            ));
            tokio::spawn(crate::game::ownership::keep(
                games.clone(),
                ownership,
                shutdown_rx.clone(),
            ));
        }
        let mut limits = Limiters::new(&config.rate_limits);
        if games.ownership().is_some() {
            // Several nodes: a name's wrong passwords slow its attempts on every node.
            limits = limits.sharing_login_backoff(store.clone());
        }
        let limits = Arc::new(limits);
        limits.spawn_sweeper();
        tokio::spawn(crate::game::housekeeping::run(
            games.clone(),
            shutdown_rx.clone(),
        ));
        Ok(App {
            state: AppState {
                store,
                sessions: Default::default(),
                games,
                lobby,
                commit_stats,
                shutdown: shutdown_rx,
                sockets: TaskTracker::new(),
                site: Arc::new(Site::new(
                    config.public_url.clone(),
                    config.trusted_proxies.clone(),
                )),
                limits,
                static_preloads: static_files.preloads.clone(),
                static_version: static_files.version.clone(),
            },
            static_files,
            shutdown_tx,
        })
    }

    /// Serves on `listener` until `shutdown` completes, then closes sockets and drains.
    ///
    /// # Errors
    /// The listener fails.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let router = web::app_router(self.state.clone(), &self.static_files);
        // Ends on its own at shutdown; aborted below in case serving fails first.
        let admin_notices = tokio::spawn(web::admin_notices::listen(self.state.clone()));
        let shutdown_tx = self.shutdown_tx;
        // Game messages are small and latency-bound: without TCP_NODELAY, Nagle's algorithm and
        // delayed ACKs hold each one back by tens of milliseconds.
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(cause = %e, "could not set TCP_NODELAY");
            }
        });
        // `into_make_service_with_connect_info` hands each connection a clone of one shared
        // router, with the peer's address that rate limits are keyed by. Serving the `Router`
        // itself rebuilds its whole route table for every connection (axum 0.8's
        // per-connection `with_state(())`), a tenth of the server's CPU when games start and
        // end at a high rate.
        let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
        let ownership = self.state.games.ownership().cloned();
        let lobby = self.state.lobby.clone();
        let served = axum::serve(listener, service)
            .with_graceful_shutdown(async move {
                shutdown.await;
                tracing::info!("shutting down");
                let _ = shutdown_tx.send(true);
                // Several nodes: the games' leases and the lobby's go back at once, so that
                // the other nodes take them over within a second rather than after the leases lapse.
                // A game this node still commits to meanwhile is fenced by the new owner.
                // Bounded: with NATS away the leases lapse on their own, and the node must
                // still stop.
                if let Some(ownership) = ownership {
                    let games = ownership.release_all();
                    let (games, _) = tokio::join!(
                        tokio::time::timeout(HANDOVER_WAIT, games),
                        tokio::time::timeout(HANDOVER_WAIT, lobby.hand_over())
                    );
                    match games {
                        Ok(released) => tracing::info!(released, "handed this node's games over"),
                        Err(_) => tracing::warn!("NATS did not take the leases back; they lapse"),
                    }
                }
            })
            .await;
        // The sockets saw the same signal and are sending their close frames. Wait for them,
        // but not for a client that stopped reading and holds its socket's write open.
        let sockets = self.state.sockets;
        sockets.close();
        if tokio::time::timeout(SOCKET_CLOSE_GRACE, sockets.wait())
            .await
            .is_err()
        {
            tracing::warn!(open = sockets.len(), "sockets still open at exit");
        }
        admin_notices.abort();
        served
    }
}

/// How long a stopping node tries to give its leases back before it stops anyway.
const HANDOVER_WAIT: Duration = Duration::from_secs(2);

/// How long the start waits for NATS, in cluster mode, before giving up.
const NATS_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long shutdown waits for open WebSockets to send their close frames.
const SOCKET_CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Connections the kernel holds for the server before it accepts them. tokio's
/// `TcpListener::bind` asks for 1024: a burst of players connecting at once (a load test
/// opens thousands) overflowed that queue, and with SYN cookies the dropped connections
/// looked established to the client and were then reset. The kernel caps this at
/// `net.core.somaxconn` (4096 by default).
pub const LISTEN_BACKLOG: u32 = 4096;

/// Listens on `addr` (`host:port`; the first address it resolves to) with
/// [`LISTEN_BACKLOG`].
///
/// # Errors
/// The address does not resolve, or the socket cannot be bound.
pub async fn listen(addr: &str) -> std::io::Result<TcpListener> {
    let resolved = tokio::net::lookup_host(addr).await?.next().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address to listen on")
    })?;
    let socket = if resolved.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // A restarted server can bind again at once, without waiting out TIME_WAIT.
    socket.set_reuseaddr(true)?;
    socket.bind(resolved)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
