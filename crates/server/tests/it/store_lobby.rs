//! The lobby's tables against a real PostgreSQL: ratings (guests never rated), settings with
//! their defaults, noplay lists and colour history.

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use crate::store::{at, registered, started_game};
use oddboard::rules::{Color, EndReason, Outcome, Variant};
use oddboard::store::{Store, StoreError};
use sqlx::PgPool;
use uuid::Uuid;

// ---- lobby: ratings, settings, noplay, colour history --------------------------------------

fn values(rating: f64) -> oddboard::store::RatingValues {
    oddboard::store::RatingValues {
        rating,
        deviation: 350.0,
        volatility: 0.06,
    }
}

#[sqlx::test(migrations = "./migrations")]
async fn rating_a_game_updates_both_players_once(pool: PgPool) -> Result<(), StoreError> {
    use oddboard::store::{GameResult, RatedGame};
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Chazz).await;
    let result = GameResult {
        game_id,
        variant: Variant::Chazz,
        white_id: alice.user_id,
        black_id: bob.user_id,
        winner: Some(Color::Black),
    };
    let rated = store
        .rate_game(&result, values(1500.0), |w, b| {
            assert_eq!(
                (w.rating, b.rating),
                (1500.0, 1500.0),
                "new players start at initial"
            );
            (values(1400.0), values(1600.0))
        })
        .await?;
    assert!(matches!(rated, RatedGame::Rated { .. }), "{rated:?}");
    // The same game again changes nothing.
    let again = store
        .rate_game(&result, values(1500.0), |_, _| (values(0.5), values(0.5)))
        .await?;
    assert_eq!(again, RatedGame::AlreadyRated);
    let alice_ratings = store.ratings(alice.user_id).await?;
    assert_eq!(alice_ratings.len(), 1);
    assert_eq!(alice_ratings[0].variant, Variant::Chazz);
    assert_eq!(alice_ratings[0].values.rating, 1400.0);
    assert_eq!((alice_ratings[0].games, alice_ratings[0].losses), (1, 1));
    let bob_ratings = store.ratings(bob.user_id).await?;
    assert_eq!((bob_ratings[0].games, bob_ratings[0].wins), (1, 1));
    let history = store
        .rating_history(bob.user_id, Some(Variant::Chazz))
        .await?;
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].game_id, game_id);
    assert_eq!(history[0].values.rating, 1600.0);
    assert!(store
        .rating_history(bob.user_id, Some(Variant::Duel))
        .await?
        .is_empty());
    // A draw counts as one.
    let second = started_game(&store, bob.user_id, alice.user_id, Variant::Chazz).await;
    store
        .rate_game(
            &GameResult {
                game_id: second,
                white_id: bob.user_id,
                black_id: alice.user_id,
                winner: None,
                ..result
            },
            values(1500.0),
            |w, b| {
                assert_eq!((w.rating, b.rating), (1600.0, 1400.0));
                (w, b)
            },
        )
        .await?;
    let alice_ratings = store.ratings(alice.user_id).await?;
    assert_eq!((alice_ratings[0].games, alice_ratings[0].draws), (2, 1));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn guests_are_never_rated(pool: PgPool) -> Result<(), StoreError> {
    use oddboard::store::{GameResult, RatedGame};
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let guest = store.create_user("Guest0001", None, true).await?;
    let game_id = started_game(&store, alice.user_id, guest.user_id, Variant::Suicide).await;
    let rated = store
        .rate_game(
            &GameResult {
                game_id,
                variant: Variant::Suicide,
                white_id: alice.user_id,
                black_id: guest.user_id,
                winner: Some(Color::White),
            },
            values(1500.0),
            |w, b| (w, b),
        )
        .await?;
    assert_eq!(rated, RatedGame::Guest);
    assert!(store.ratings(alice.user_id).await?.is_empty());
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn settings_round_trip_with_defaults(pool: PgPool) -> Result<(), StoreError> {
    use oddboard::store::UserSettings;
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    assert_eq!(
        store.user_settings(alice.user_id).await?,
        UserSettings::default()
    );
    let settings = UserSettings {
        time_minutes: 3,
        increment_seconds: 2,
        variant: Variant::Duel,
        formula: "f1 && rated".into(),
        f: vec!["rating > 1400".into(), String::new()],
    };
    store.save_user_settings(alice.user_id, &settings).await?;
    assert_eq!(store.user_settings(alice.user_id).await?, settings);
    let bad = UserSettings {
        time_minutes: 999,
        ..settings.clone()
    };
    assert!(store.save_user_settings(alice.user_id, &bad).await.is_err());
    assert!(matches!(
        store.save_user_settings(Uuid::new_v4(), &settings).await,
        Err(StoreError::NotFound)
    ));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn noplay_lists_and_colour_history(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    assert!(store.set_noplay(alice.user_id, bob.user_id, true).await?);
    assert!(!store.set_noplay(alice.user_id, bob.user_id, true).await?);
    assert_eq!(
        store.noplay_list(alice.user_id).await?,
        vec![(bob.user_id, "Bob".to_string())]
    );
    assert!(store.noplay_list(bob.user_id).await?.is_empty());
    assert!(store
        .set_noplay(alice.user_id, alice.user_id, true)
        .await
        .is_err());
    assert!(store.set_noplay(alice.user_id, bob.user_id, false).await?);
    assert!(store.noplay_list(alice.user_id).await?.is_empty());

    assert!(store.color_history(alice.user_id, 10).await?.is_empty());
    let first = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let second = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    sqlx::query("update game set started_at = $2 where game_id = $1")
        .bind(second)
        .bind(at(20))
        .execute(store.pool())
        .await?;
    assert_eq!(
        store.color_history(alice.user_id, 10).await?,
        vec![Color::Black, Color::White],
        "newest first"
    );
    assert_eq!(
        store.color_history(alice.user_id, 1).await?,
        vec![Color::Black]
    );
    let last = store.last_game_of(alice.user_id).await?.map(|g| g.game_id);
    assert_eq!(last, Some(second));
    // Aborted games are not history.
    store
        .finish_game(second, &Outcome::draw(EndReason::Aborted), at(30))
        .await?;
    assert_eq!(
        store.color_history(alice.user_id, 10).await?,
        vec![Color::White]
    );
    assert_eq!(
        store.last_game_of(alice.user_id).await?.map(|g| g.game_id),
        Some(first)
    );
    assert_eq!(store.active_games(10).await?.len(), 1);
    Ok(())
}
