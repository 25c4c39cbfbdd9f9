//! Leases in a JetStream key-value bucket (`oddboard_leases`): one key per game
//! (`game.<id>`) and one for the lobby (`lobby`), whose value names the node that holds it
//! and when the lease lapses. Every change is a compare-and-swap on the key's revision, so of
//! two nodes that reach for one lease at once exactly one gets it. The expiry is in the value
//! (NATS 2.9, which Debian ships, has no per-key TTL), in milliseconds of the holder's wall
//! clock: the nodes' clocks must agree to well within [`LEASE_TTL`] (NTP does).
//!
//! Times are arguments (`now_ms`), so that the tests move time on without waiting for it.

use super::ClusterError;
use async_nats::jetstream::kv;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How long a lease lasts unless renewed: a node that died is replaced after about this long.
pub const LEASE_TTL: Duration = Duration::from_secs(3);
/// How often a holder renews its leases: two renewals may fail before the lease lapses.
pub const RENEW_EVERY: Duration = Duration::from_secs(1);
/// The bucket the leases live in.
pub const BUCKET: &str = "oddboard_leases";

/// What a lease's key holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Holder {
    node: String,
    /// When the lease lapses, in milliseconds since the Unix epoch on the holder's clock.
    expires_ms: u64,
}

/// A lease this node holds: its key and the revision its last write left, which the next
/// renewal or the release must still find.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    key: String,
    revision: u64,
}

impl Lease {
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// The answer to [`Leases::acquire`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acquired {
    /// This node holds the lease now.
    Taken(Lease),
    /// Another node holds it and it has not lapsed.
    HeldBy(String),
}

/// This node's view of the leases bucket.
#[derive(Clone)]
pub struct Leases {
    node_id: String,
    store: kv::Store,
}

impl Leases {
    /// Opens the bucket, making it if no node has yet: one value per key (no history),
    /// kept on disk so that a restarted NATS still knows who holds what.
    ///
    /// # Errors
    /// [`ClusterError::Nats`] if JetStream refuses.
    pub async fn open(client: async_nats::Client, node_id: &str) -> Result<Leases, ClusterError> {
        let jetstream = async_nats::jetstream::new(client);
        let store = match jetstream.get_key_value(BUCKET).await {
            Ok(store) => store,
            Err(_) => {
                // The bucket's stream, made as a key-value bucket's is. Not through
                // `create_key_value`, which first reads the account's limits in a shape
                // that NATS 2.9 does not answer in. Two nodes making it at once is fine:
                // the same config twice makes one stream.
                jetstream
                    .create_stream(async_nats::jetstream::stream::Config {
                        name: format!("KV_{BUCKET}"),
                        description: Some(
                            "Which Oddboard node runs each game and the lobby".to_string(),
                        ),
                        subjects: vec![format!("$KV.{BUCKET}.>")],
                        max_messages_per_subject: 1,
                        storage: async_nats::jetstream::stream::StorageType::File,
                        allow_rollup: true,
                        deny_delete: true,
                        allow_direct: true,
                        num_replicas: 1,
                        discard: async_nats::jetstream::stream::DiscardPolicy::New,
                        ..Default::default()
                    })
                    .await
                    .map_err(ClusterError::nats)?;
                jetstream
                    .get_key_value(BUCKET)
                    .await
                    .map_err(ClusterError::nats)?
            }
        };
        Ok(Leases {
            node_id: node_id.to_string(),
            store,
        })
    }

    /// The key of game `game_id`'s lease.
    pub fn game_key(game_id: uuid::Uuid) -> String {
        format!("game.{}", game_id.simple())
    }

    /// The key of the lobby's lease.
    pub const LOBBY_KEY: &'static str = "lobby";

    fn value(&self, now_ms: u64) -> Bytes {
        let holder = Holder {
            node: self.node_id.clone(),
            expires_ms: now_ms + LEASE_TTL.as_millis() as u64,
        };
        Bytes::from(serde_json::to_vec(&holder).unwrap_or_default())
    }

    /// The live holder of `key` at `now_ms`, and the revision of its entry (0: none).
    async fn read(&self, key: &str, now_ms: u64) -> Result<(Option<Holder>, u64), ClusterError> {
        let entry = self.store.entry(key).await.map_err(ClusterError::nats)?;
        let Some(entry) = entry else {
            return Ok((None, 0));
        };
        if entry.operation != kv::Operation::Put {
            return Ok((None, entry.revision));
        }
        let holder: Holder =
            serde_json::from_slice(&entry.value).map_err(|_| ClusterError::BadLease {
                key: key.to_string(),
            })?;
        let live = holder.expires_ms > now_ms;
        Ok((live.then_some(holder), entry.revision))
    }

    /// Which node holds `key` at `now_ms`, if a lease on it has not lapsed.
    ///
    /// # Errors
    /// [`ClusterError`] if NATS could not be asked or the value is unreadable.
    pub async fn holder(&self, key: &str, now_ms: u64) -> Result<Option<String>, ClusterError> {
        Ok(self.read(key, now_ms).await?.0.map(|h| h.node))
    }

    /// Takes `key` for this node unless another node holds a lease on it that has not lapsed
    /// at `now_ms`. A lease this node holds already is taken again (renewed).
    ///
    /// # Errors
    /// [`ClusterError`] if NATS could not be asked or the value is unreadable.
    pub async fn acquire(&self, key: &str, now_ms: u64) -> Result<Acquired, ClusterError> {
        let (holder, revision) = self.read(key, now_ms).await?;
        if let Some(holder) = holder.filter(|h| h.node != self.node_id) {
            return Ok(Acquired::HeldBy(holder.node));
        }
        let written = if revision == 0 {
            self.store
                .create(key, self.value(now_ms))
                .await
                .map_err(|e| {
                    (
                        e.kind() == kv::CreateErrorKind::AlreadyExists,
                        e.to_string(),
                    )
                })
        } else {
            self.store
                .update(key, self.value(now_ms), revision)
                .await
                .map_err(|e| {
                    (
                        e.kind() == kv::UpdateErrorKind::WrongLastRevision,
                        e.to_string(),
                    )
                })
        };
        match written {
            Ok(revision) => Ok(Acquired::Taken(Lease {
                key: key.to_string(),
                revision,
            })),
            // Another node wrote first: it holds the lease now.
            Err((true, _)) => {
                let node = self.holder(key, now_ms).await?.unwrap_or_default();
                Ok(Acquired::HeldBy(node))
            }
            Err((false, cause)) => Err(ClusterError::Nats(cause)),
        }
    }

    /// Renews `lease` until [`LEASE_TTL`] after `now_ms`. False if it is no longer this
    /// node's (another node took it after it lapsed): the node must let the game go.
    ///
    /// # Errors
    /// [`ClusterError`] if NATS could not be asked: the lease still runs until it lapses.
    pub async fn renew(&self, lease: &mut Lease, now_ms: u64) -> Result<bool, ClusterError> {
        match self
            .store
            .update(&lease.key, self.value(now_ms), lease.revision)
            .await
        {
            Ok(revision) => {
                lease.revision = revision;
                Ok(true)
            }
            Err(e) if e.kind() == kv::UpdateErrorKind::WrongLastRevision => Ok(false),
            Err(e) => Err(ClusterError::nats(e)),
        }
    }

    /// Gives `lease` up, so that another node may take the key at once; nothing happens if
    /// another node holds it already.
    ///
    /// # Errors
    /// [`ClusterError`] if NATS could not be asked: the lease then lapses on its own.
    pub async fn release(&self, lease: Lease) -> Result<(), ClusterError> {
        let deleted = self
            .store
            .delete_expect_revision(&lease.key, Some(lease.revision))
            .await;
        match deleted {
            Ok(()) => Ok(()),
            // A delete that finds another revision fails like any other: it was not ours
            // any more if another node holds the key now.
            Err(e) => match self.holder(&lease.key, wall_ms()).await {
                Ok(Some(node)) if node != self.node_id => Ok(()),
                _ => Err(ClusterError::nats(e)),
            },
        }
    }
}

/// Milliseconds since the Unix epoch on this node's clock: the time leases are written in.
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
