//! Several nodes over one PostgreSQL and NATS (docs/architecture.md, "Several nodes"): this
//! node's name in the cluster, its connection to NATS, and the [`leases`] by which one node at
//! a time runs a game or the lobby.
//!
//! NATS carries leases and messages only. Who may write a game is PostgreSQL's to say (the
//! game's `owner_epoch`, `store::changes::fence`): a lease tells the other nodes where a game
//! runs and when its node has gone quiet, but a node that still believes in a lapsed lease can
//! commit nothing once another has taken the game over. Without `--nats-url` there is no
//! cluster and the server runs alone, exactly as before.

pub mod leases;

pub use leases::{Acquired, Lease, Leases, LEASE_TTL, RENEW_EVERY};

use std::time::Duration;

/// What went wrong talking to NATS. Nothing here is a verdict on a game: a node that cannot
/// reach NATS keeps what it holds until its leases would lapse, and takes nothing new.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The connection to NATS could not be made, or JetStream is not enabled on it.
    #[error("cannot reach NATS at {url} ({cause}); start nats-server with -js, or unset NATS_URL")]
    Unreachable { url: String, cause: String },
    /// A request to NATS failed or timed out.
    #[error("NATS request failed: {0}")]
    Nats(String),
    /// A lease's value in NATS is not one this binary wrote.
    #[error("lease {key} holds an unreadable value")]
    BadLease { key: String },
}

impl ClusterError {
    pub(crate) fn nats(err: impl std::fmt::Display) -> ClusterError {
        ClusterError::Nats(err.to_string())
    }
}

/// This node in the cluster: its id, its NATS connection and the leases bucket.
#[derive(Clone)]
pub struct Cluster {
    node_id: String,
    client: async_nats::Client,
    leases: Leases,
}

impl Cluster {
    /// Connects to NATS at `url` as node `node_id` and opens (or makes) the leases bucket.
    ///
    /// # Errors
    /// [`ClusterError::Unreachable`] if NATS does not answer within `within` or has no
    /// JetStream.
    pub async fn connect(
        url: &str,
        node_id: &str,
        within: Duration,
    ) -> Result<Cluster, ClusterError> {
        let unreachable = |cause: String| ClusterError::Unreachable {
            url: url.to_string(),
            cause,
        };
        let options = async_nats::ConnectOptions::new()
            .name(format!("oddboard {node_id}"))
            .connection_timeout(within)
            // Until the first connection, NATS being away is an error to report, not to wait out.
            .retry_on_initial_connect();
        let client = tokio::time::timeout(within, options.connect(url))
            .await
            .map_err(|_| unreachable(format!("no answer within {within:?}")))?
            .map_err(|e| unreachable(e.to_string()))?;
        let leases = tokio::time::timeout(within, Leases::open(client.clone(), node_id))
            .await
            .map_err(|_| unreachable(format!("JetStream did not answer within {within:?}")))?
            .map_err(|e| unreachable(e.to_string()))?;
        Ok(Cluster {
            node_id: node_id.to_string(),
            client,
            leases,
        })
    }

    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    pub fn client(&self) -> &async_nats::Client {
        &self.client
    }

    pub fn leases(&self) -> &Leases {
        &self.leases
    }
}

/// A node id for a node started without one: the host's name and a random suffix, so that
/// a restarted node is a new node (its old leases lapse; it does not inherit them).
pub fn generated_node_id() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or_else(|| "node".to_string());
    format!("{host}-{:08x}", rand::random::<u32>())
}
