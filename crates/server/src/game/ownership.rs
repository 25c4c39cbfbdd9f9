//! Which games this node runs, on a node of a cluster (docs/architecture.md, "Several
//! nodes"): the leases it holds ([`crate::cluster::leases`]), taken when it makes a game or
//! takes one over, renewed every [`RENEW_EVERY`], and given up when the game hibernates or
//! ends. A game taken over has its `owner_epoch` raised in PostgreSQL first
//! ([`crate::store::Store::take_over_game`]), and its actor commits with that epoch, so the
//! node it came from can commit nothing more to it even if it still runs.
//!
//! A node that cannot reach NATS takes no game it does not hold (`game_unavailable`), and
//! keeps those it holds until another node takes them, which only happens once their leases
//! lapse: refused, never lost.

use super::{GameCmd, GameError, Games};
use crate::cluster::leases::wall_ms;
use crate::cluster::{Acquired, Cluster, Lease, Leases, RENEW_EVERY};
use crate::metrics::Metrics;
use crate::store::Store;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use uuid::Uuid;

/// This node's leases on games.
pub struct Ownership {
    cluster: Cluster,
    held: Mutex<HashMap<Uuid, Lease>>,
    metrics: Arc<Metrics>,
}

impl Ownership {
    pub fn new(cluster: Cluster, metrics: Arc<Metrics>) -> Ownership {
        Ownership {
            cluster,
            held: Mutex::default(),
            metrics,
        }
    }

    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Lease>> {
        // Leases only: a panic elsewhere cannot leave the map inconsistent.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn hold(&self, game_id: Uuid, lease: Lease) {
        if self.held().insert(game_id, lease).is_none() {
            self.metrics.games_owned.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Takes the lease of game `game_id`, or says who holds it.
    async fn acquire(&self, game_id: Uuid) -> Result<Lease, GameError> {
        let key = Leases::game_key(game_id);
        match self.cluster.leases().acquire(&key, wall_ms()).await {
            Ok(Acquired::Taken(lease)) => Ok(lease),
            Ok(Acquired::HeldBy(_)) => Err(GameError::Elsewhere),
            Err(e) => {
                tracing::warn!(%game_id, cause = %e, "cannot take a game's lease: NATS is away");
                Err(GameError::Unavailable)
            }
        }
    }

    /// A game this node is making: its lease, and the epoch its commits carry (0, the new
    /// row's).
    ///
    /// # Errors
    /// [`GameError::Unavailable`] if NATS cannot be reached.
    pub async fn claim_new(&self, game_id: Uuid) -> Result<i64, GameError> {
        let lease = self.acquire(game_id).await?;
        self.hold(game_id, lease);
        Ok(0)
    }

    /// Takes game `game_id` over: its lease, then its epoch raised in PostgreSQL. Returns
    /// the epoch this node's commits of it carry, or None for a game that is over or does
    /// not exist (whose lease it gives back).
    ///
    /// # Errors
    /// [`GameError::Elsewhere`] if another node's lease on it is live;
    /// [`GameError::Unavailable`] if NATS cannot be reached; a store error.
    pub async fn take_over(&self, store: &Store, game_id: Uuid) -> Result<Option<i64>, GameError> {
        let lease = self.acquire(game_id).await?;
        match store.take_over_game(game_id).await {
            Ok(Some(epoch)) => {
                self.hold(game_id, lease);
                self.metrics.takeovers.fetch_add(1, Ordering::Relaxed);
                tracing::info!(%game_id, epoch, "took the game over");
                self.say_moved(game_id).await;
                Ok(Some(epoch))
            }
            Ok(None) => {
                let _ = self.cluster.leases().release(lease).await;
                Ok(None)
            }
            Err(e) => {
                let _ = self.cluster.leases().release(lease).await;
                Err(e.into())
            }
        }
    }

    /// Tells the proxies of game `game_id` on other nodes that it runs here now, so that
    /// those still waiting on its former node end and their clients reconnect.
    async fn say_moved(&self, game_id: Uuid) {
        let moved = super::forwarding::Moved {
            moved_to: self.cluster.node_id().to_string(),
        };
        let body = serde_json::to_vec(&moved).unwrap_or_default();
        let subject = super::forwarding::events_subject(game_id);
        if let Err(e) = self.cluster.client().publish(subject, body.into()).await {
            tracing::debug!(%game_id, cause = %e, "could not say the game moved");
        }
    }

    /// Gives game `game_id`'s lease back (it hibernated or ended here), so that another
    /// node may take it at once.
    pub fn release(self: &Arc<Self>, game_id: Uuid) {
        let Some(lease) = self.held().remove(&game_id) else {
            return;
        };
        self.metrics.games_owned.fetch_sub(1, Ordering::Relaxed);
        let ownership = Arc::clone(self);
        tokio::spawn(async move {
            if let Err(e) = ownership.cluster.leases().release(lease).await {
                tracing::debug!(%game_id, cause = %e, "could not give a lease back; it lapses");
            }
        });
    }

    /// Gives every lease back (the node is stopping), and returns how many.
    pub async fn release_all(&self) -> usize {
        let leases: Vec<(Uuid, Lease)> = self.held().drain().collect();
        self.metrics.games_owned.store(0, Ordering::Relaxed);
        let count = leases.len();
        let releases = leases.into_iter().map(|(game_id, lease)| async move {
            if let Err(e) = self.cluster.leases().release(lease).await {
                tracing::debug!(%game_id, cause = %e, "could not give a lease back; it lapses");
            }
        });
        futures_util::future::join_all(releases).await;
        count
    }

    /// Forgets game `game_id`'s lease without giving it back: another node holds it now.
    pub fn forget(&self, game_id: Uuid) {
        if self.held().remove(&game_id).is_some() {
            self.metrics.games_owned.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Whether another node holds a live lease on game `game_id`.
    pub async fn held_elsewhere(&self, game_id: Uuid) -> bool {
        // NATS away: as good as held, since nothing can be taken.
        !matches!(self.holder(game_id).await, Ok(None))
    }

    /// The other node whose lease on game `game_id` is live, if any.
    ///
    /// # Errors
    /// [`ClusterError`](crate::cluster::ClusterError) if NATS could not be asked.
    pub async fn holder(
        &self,
        game_id: Uuid,
    ) -> Result<Option<String>, crate::cluster::ClusterError> {
        let key = Leases::game_key(game_id);
        let node = self.cluster.leases().holder(&key, wall_ms()).await?;
        Ok(node.filter(|node| node != self.cluster.node_id()))
    }

    /// Renews every lease this node holds, once; tells the actor of a game whose lease
    /// another node took to stop.
    async fn renew_all(&self, games: &Games) {
        let leases: Vec<(Uuid, Lease)> = self
            .held()
            .iter()
            .map(|(id, lease)| (*id, lease.clone()))
            .collect();
        for (game_id, mut lease) in leases {
            match self.cluster.leases().renew(&mut lease, wall_ms()).await {
                Ok(true) => {
                    self.metrics.lease_renewals.fetch_add(1, Ordering::Relaxed);
                    if let Some(held) = self.held().get_mut(&game_id) {
                        *held = lease;
                    }
                }
                Ok(false) => {
                    self.metrics
                        .lease_renewal_failures
                        .fetch_add(1, Ordering::Relaxed);
                    self.forget(game_id);
                    if let Some(handle) = games.get(game_id) {
                        let _ = handle.tx.send(GameCmd::LeaseLost).await;
                    }
                }
                Err(e) => {
                    self.metrics
                        .lease_renewal_failures
                        .fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(%game_id, cause = %e, "could not renew a game's lease");
                }
            }
        }
    }
}

/// Renews this node's leases every [`RENEW_EVERY`], and takes over the running games whose
/// node has gone quiet (their lease lapsed), so that their clocks still fall with nobody
/// connected; until `shutdown`.
pub async fn keep(
    games: Games,
    ownership: Arc<Ownership>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(RENEW_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = shutdown.changed() => return,
        }
        ownership.renew_all(&games).await;
        games.take_over_orphans().await;
    }
}
