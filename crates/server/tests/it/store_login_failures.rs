//! The login back-off of the nodes of a cluster in a real PostgreSQL (`login_failure`): runs
//! of wrong passwords counted, read with the time since the last, forgotten after their hour,
//! cleared by the right password, and swept.

use oddboard::store::{Store, StoreError};
use sqlx::PgPool;
use std::time::Duration;

const HOUR: Duration = Duration::from_secs(3600);

/// Moves `key`'s last failure `ago` into the past, behind the store's back.
async fn age(pool: &PgPool, key: &str, ago: Duration) {
    sqlx::query(
        "update login_failure set last_failure_at = now() - $2 * interval '1 millisecond' \
         where username_key = $1",
    )
    .bind(key)
    .bind(i64::try_from(ago.as_millis()).unwrap_or(i64::MAX))
    .execute(pool)
    .await
    .unwrap_or_else(|e| panic!("{e}"));
}

#[sqlx::test(migrations = "./migrations")]
async fn wrong_passwords_are_counted_per_name_until_the_right_one_or_an_hour(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    assert_eq!(store.login_failures("alice", HOUR).await?, None);
    for _ in 0..3 {
        store.record_login_failure("alice", HOUR).await?;
    }
    store.record_login_failure("bob", HOUR).await?;
    let run = store.login_failures("alice", HOUR).await?;
    assert_eq!(run.map(|r| r.failures), Some(3));
    assert!(
        run.is_some_and(|r| r.since_last < Duration::from_secs(5)),
        "{run:?}"
    );
    assert_eq!(
        store.login_failures("bob", HOUR).await?.map(|r| r.failures),
        Some(1)
    );

    // The time since the last failure is the database's.
    age(&pool, "alice", Duration::from_secs(90)).await;
    let since = store
        .login_failures("alice", HOUR)
        .await?
        .map_or(Duration::ZERO, |r| r.since_last);
    assert!(
        since >= Duration::from_secs(90) && since < Duration::from_secs(95),
        "{since:?}"
    );

    // An hour without a wrong password: the run is over, and the next failure starts anew.
    age(&pool, "alice", HOUR).await;
    assert_eq!(store.login_failures("alice", HOUR).await?, None);
    store.record_login_failure("alice", HOUR).await?;
    assert_eq!(
        store
            .login_failures("alice", HOUR)
            .await?
            .map(|r| r.failures),
        Some(1)
    );

    // The right password clears the name, and only it.
    store.forget_login_failures("alice").await?;
    assert_eq!(store.login_failures("alice", HOUR).await?, None);
    assert!(store.login_failures("bob", HOUR).await?.is_some());
    store.forget_login_failures("nobody").await?;
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn the_sweep_deletes_runs_an_hour_old_and_all_but_the_newest(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    for (n, name) in ["old", "first", "second", "third"].iter().enumerate() {
        store.record_login_failure(name, HOUR).await?;
        // Oldest first, a minute apart.
        let ago = Duration::from_secs(60 * (4 - n as u64));
        age(&pool, name, ago).await;
    }
    age(&pool, "old", HOUR).await;
    // Nothing past an hour, and at most two kept: the newest.
    assert_eq!(store.delete_old_login_failures(HOUR, 2).await?, 2);
    let kept: Vec<String> =
        sqlx::query_scalar("select username_key from login_failure order by username_key")
            .fetch_all(&pool)
            .await?;
    assert_eq!(kept, ["second", "third"]);
    assert_eq!(store.delete_old_login_failures(HOUR, 2).await?, 0);
    Ok(())
}
