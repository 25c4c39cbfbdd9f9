//! Leases in NATS (`cluster::leases`) against a private `nats-server` with JetStream: one
//! node at a time holds a key; another takes it only once it has lapsed, after which the
//! first can neither renew nor release it; of nodes that reach for a free key at once
//! exactly one gets it; a release frees it at once; leases outlive a NATS restart. Time is
//! passed in, so nothing waits for a lease to lapse.

use super::nats::PrivateNats;
use oddboard::cluster::{Acquired, Cluster, Leases, LEASE_TTL};
use std::time::Duration;

const NOW: u64 = 1_800_000_000_000;

async fn node(nats: &PrivateNats, id: &str) -> Cluster {
    Cluster::connect(&nats.url(), id, Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn taken(acquired: Acquired) -> oddboard::cluster::Lease {
    match acquired {
        Acquired::Taken(lease) => lease,
        Acquired::HeldBy(node) => panic!("held by {node}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_node_holds_a_lease_until_it_lapses_or_is_released() {
    let nats = PrivateNats::start().await;
    let (a, b) = (node(&nats, "a").await, node(&nats, "b").await);
    let key = Leases::game_key(uuid::Uuid::new_v4());
    let ttl = LEASE_TTL.as_millis() as u64;

    let mut lease = taken(
        a.leases()
            .acquire(&key, NOW)
            .await
            .unwrap_or_else(|e| panic!("{e}")),
    );
    assert_eq!(
        b.leases().acquire(&key, NOW + 1).await.ok(),
        Some(Acquired::HeldBy("a".into()))
    );
    assert_eq!(
        b.leases().holder(&key, NOW + 1).await.ok(),
        Some(Some("a".into()))
    );
    // Renewed, it outlives its first term.
    assert_eq!(
        a.leases().renew(&mut lease, NOW + ttl - 1).await.ok(),
        Some(true)
    );
    assert_eq!(
        b.leases().acquire(&key, NOW + ttl + 1).await.ok(),
        Some(Acquired::HeldBy("a".into()))
    );
    // Not renewed, it lapses: b takes it, and a can neither renew nor release it.
    let later = NOW + 3 * ttl;
    assert_eq!(b.leases().holder(&key, later).await.ok(), Some(None));
    let b_lease = taken(
        b.leases()
            .acquire(&key, later)
            .await
            .unwrap_or_else(|e| panic!("{e}")),
    );
    assert_eq!(a.leases().renew(&mut lease, later).await.ok(), Some(false));
    a.leases()
        .release(lease)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        a.leases().holder(&key, later).await.ok(),
        Some(Some("b".into()))
    );
    // b releases it: a takes it at once, without waiting for a lapse.
    b.leases()
        .release(b_lease)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.leases().holder(&key, later).await.ok(), Some(None));
    taken(
        a.leases()
            .acquire(&key, later)
            .await
            .unwrap_or_else(|e| panic!("{e}")),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_nodes_reaching_for_one_lease_at_once_exactly_one_gets_it() {
    let nats = PrivateNats::start().await;
    let mut nodes = Vec::new();
    for id in ["a", "b", "c", "d"] {
        nodes.push(node(&nats, id).await);
    }
    for round in 0..20u64 {
        let key = Leases::game_key(uuid::Uuid::new_v4());
        let reaching = nodes.iter().map(|n| {
            let (leases, key) = (n.leases().clone(), key.clone());
            tokio::spawn(async move { leases.acquire(&key, NOW + round).await })
        });
        let mut winners = Vec::new();
        for (n, task) in nodes.iter().zip(reaching.collect::<Vec<_>>()) {
            match task.await.unwrap_or_else(|e| panic!("{e}")) {
                Ok(Acquired::Taken(_)) => winners.push(n.node_id().to_string()),
                Ok(Acquired::HeldBy(_)) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let holder = nodes[0]
            .leases()
            .holder(&key, NOW + round)
            .await
            .ok()
            .flatten();
        assert_eq!(holder.as_deref(), winners.first().map(String::as_str));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_outlives_a_nats_restart() {
    let mut nats = PrivateNats::start().await;
    let a = node(&nats, "a").await;
    let key = Leases::LOBBY_KEY;
    let mut lease = taken(
        a.leases()
            .acquire(key, NOW)
            .await
            .unwrap_or_else(|e| panic!("{e}")),
    );
    nats.restart().await;
    // The client reconnects by itself; the lease is still a's, and a renews it.
    let renewed = async || a.leases().renew(&mut lease, NOW + 10).await.ok() == Some(true);
    super::server::wait_until(
        "a's renewal after NATS restarted",
        Duration::from_secs(30),
        renewed,
    )
    .await;
    let b = node(&nats, "b").await;
    assert_eq!(
        b.leases().holder(key, NOW + 10).await.ok(),
        Some(Some("a".into()))
    );
    assert_eq!(
        b.leases().acquire(key, NOW + 10).await.ok(),
        Some(Acquired::HeldBy("a".into()))
    );
    assert_eq!(
        a.leases().renew(&mut lease, NOW + 20).await.ok(),
        Some(true)
    );
}
