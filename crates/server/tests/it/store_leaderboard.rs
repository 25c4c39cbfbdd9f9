//! The leaderboard query against a real PostgreSQL: only people's established ratings of the
//! variant asked for (no guest, disabled account, computer or provisional rating), highest
//! first with ties by name, as many as asked within the bound.

use crate::store::registered;
use oddboard::rules::Variant;
use oddboard::store::{Store, StoreError, LEADERBOARD_MAX};
use sqlx::PgPool;
use uuid::Uuid;

/// Gives `user_id` a rating in `variant` (the table the end of a rated game writes).
async fn rate(pool: &PgPool, user_id: Uuid, variant: Variant, rating: f64, deviation: f64) {
    sqlx::query(
        "insert into rating (user_id, variant, rating, deviation, volatility, games, wins, draws, losses) \
         values ($1, $2, $3, $4, 0.06, 20, 11, 4, 5)",
    )
    .bind(user_id)
    .bind(variant.key())
    .bind(rating)
    .bind(deviation)
    .execute(pool)
    .await
    .unwrap_or_else(|e| panic!("rating: {e}"));
}

#[sqlx::test(migrations = "./migrations")]
async fn the_leaderboard_lists_peoples_established_ratings_highest_first(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    let names = ["alice", "Bob", "carol", "Dave", "erin", "frank"];
    let mut ids = Vec::new();
    for name in names {
        ids.push(registered(&store, name).await.user_id);
    }
    let [alice, bob, carol, dave, erin, frank] = ids[..] else {
        panic!("six users");
    };
    rate(&pool, alice, Variant::Suicide, 1800.0, 80.0).await;
    rate(&pool, bob, Variant::Suicide, 1850.0, 60.0).await;
    // Equal ratings: by name, whatever its case.
    rate(&pool, carol, Variant::Suicide, 1700.0, 100.0).await;
    rate(&pool, dave, Variant::Suicide, 1700.0, 110.0).await;
    // Provisional (deviation above 110): not listed, however high.
    rate(&pool, erin, Variant::Suicide, 2400.0, 110.5).await;
    // Another variant's rating is not this one's.
    rate(&pool, frank, Variant::Chad, 2000.0, 50.0).await;
    // A guest, a disabled account and the computer are not on it either.
    let guest = store.create_user("Guest123", None, true).await?.user_id;
    rate(&pool, guest, Variant::Suicide, 2300.0, 50.0).await;
    let gone = registered(&store, "gone").await.user_id;
    rate(&pool, gone, Variant::Suicide, 2200.0, 50.0).await;
    sqlx::query("update app_user set disabled_at = now() where user_id = $1")
        .bind(gone)
        .execute(&pool)
        .await?;
    let computer: Uuid =
        sqlx::query_scalar("select user_id from app_user where computer_level = 8")
            .fetch_one(&pool)
            .await?;
    rate(&pool, computer, Variant::Suicide, 2500.0, 50.0).await;

    let board = store.leaderboard(Variant::Suicide, 10).await?;
    let listed: Vec<(i64, &str, f64)> = board
        .iter()
        .map(|e| (e.rank, e.username.as_str(), e.rating))
        .collect();
    assert_eq!(
        listed,
        [
            (1, "Bob", 1850.0),
            (2, "alice", 1800.0),
            (3, "carol", 1700.0),
            (4, "Dave", 1700.0)
        ]
    );
    let bob_line = &board[0];
    assert_eq!(
        (
            bob_line.games,
            bob_line.wins,
            bob_line.draws,
            bob_line.losses,
            bob_line.deviation
        ),
        (20, 11, 4, 5, 60.0)
    );

    // As many as asked, within 1..=LEADERBOARD_MAX.
    let top_two = store.leaderboard(Variant::Suicide, 2).await?;
    assert_eq!(top_two.len(), 2);
    assert_eq!(top_two[1].username, "alice");
    assert_eq!(store.leaderboard(Variant::Suicide, 0).await?.len(), 1);
    assert_eq!(store.leaderboard(Variant::Suicide, -5).await?.len(), 1);
    assert_eq!(
        store
            .leaderboard(Variant::Suicide, LEADERBOARD_MAX * 10)
            .await?
            .len(),
        4
    );

    let chad = store.leaderboard(Variant::Chad, 10).await?;
    assert_eq!(chad.len(), 1);
    assert_eq!((chad[0].rank, chad[0].username.as_str()), (1, "frank"));
    assert!(store.leaderboard(Variant::Duel, 10).await?.is_empty());
    Ok(())
}

/// More players than the bound: the list stops at it.
#[sqlx::test(migrations = "./migrations")]
async fn the_leaderboard_stops_at_its_bound(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    for i in 0..(LEADERBOARD_MAX + 5) {
        let user = registered(&store, &format!("p{i:03}")).await.user_id;
        rate(&pool, user, Variant::Duel, 1000.0 + i as f64, 70.0).await;
    }
    let board = store
        .leaderboard(Variant::Duel, LEADERBOARD_MAX + 5)
        .await?;
    assert_eq!(board.len() as i64, LEADERBOARD_MAX);
    assert_eq!(board[0].username, format!("p{:03}", LEADERBOARD_MAX + 4));
    assert!(board
        .windows(2)
        .all(|w| w[0].rating > w[1].rating && w[0].rank + 1 == w[1].rank));
    Ok(())
}
