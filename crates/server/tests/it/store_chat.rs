//! Games' chat in a real PostgreSQL: lines stored with their writer's name, a game's cap,
//! the last lines of each room read back for a resumed game, and what a reader of the
//! stored chat may read.

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use crate::store::{registered, started_game};
use chrono::{DateTime, Duration, SubsecRound, Utc};
use oddboard::rules::Variant;
use oddboard::store::{ChatRecord, ChatRoom, NewChatLine, Store, StoreError};
use sqlx::PgPool;
use uuid::Uuid;

fn line(
    game_id: Uuid,
    user_id: Uuid,
    room: ChatRoom,
    text: &str,
    at: DateTime<Utc>,
) -> NewChatLine<'_> {
    NewChatLine {
        game_id,
        user_id,
        room,
        text,
        at,
    }
}

fn texts(records: &[ChatRecord]) -> Vec<&str> {
    records.iter().map(|r| r.text.as_str()).collect()
}

#[sqlx::test(migrations = "./migrations")]
async fn lines_are_stored_with_their_writers_name_under_the_games_cap(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let eve = registered(&store, "Eve").await;
    let game = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let at = Utc::now().trunc_subsecs(3);
    let said = |user: Uuid, room, text: &'static str| line(game, user, room, text, at);

    let name = store
        .insert_chat_line(said(alice.user_id, ChatRoom::Players, "good luck"), 3)
        .await?;
    assert_eq!(name.as_deref(), Some("Alice"));
    let name = store
        .insert_chat_line(said(eve.user_id, ChatRoom::Spectators, "hi"), 3)
        .await?;
    assert_eq!(name.as_deref(), Some("Eve"));
    store
        .insert_chat_line(said(bob.user_id, ChatRoom::Players, "you too"), 3)
        .await?;
    // The cap counts both rooms.
    let full = store
        .insert_chat_line(said(eve.user_id, ChatRoom::Spectators, "more"), 3)
        .await?;
    assert_eq!(full, None);

    let everything = store
        .game_chat(game, Some(alice.user_id))
        .await?
        .expect("the game");
    assert_eq!(texts(&everything), ["good luck", "hi", "you too"]);
    let first = everything.first().expect("a line");
    assert_eq!(
        (first.room, first.username.as_str(), first.at),
        (ChatRoom::Players, "Alice", at)
    );

    // An unknown game or writer stores nothing.
    let nowhere = store
        .insert_chat_line(
            line(Uuid::new_v4(), eve.user_id, ChatRoom::Spectators, "x", at),
            3,
        )
        .await;
    assert!(matches!(nowhere, Err(StoreError::NotFound)), "{nowhere:?}");
    let nobody = store
        .insert_chat_line(
            line(game, Uuid::new_v4(), ChatRoom::Spectators, "x", at),
            10,
        )
        .await;
    assert!(matches!(nobody, Err(StoreError::NotFound)), "{nobody:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn the_last_lines_of_each_room_come_back_oldest_first(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let eve = registered(&store, "Eve").await;
    let game = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let start = Utc::now().trunc_subsecs(3);
    for i in 0..6 {
        let at = start + Duration::milliseconds(i);
        let text = format!("s{i}");
        let spectator = line(game, eve.user_id, ChatRoom::Spectators, &text, at);
        store.insert_chat_line(spectator, 100).await?;
        if i % 2 == 0 {
            let text = format!("p{i}");
            let player = line(game, alice.user_id, ChatRoom::Players, &text, at);
            store.insert_chat_line(player, 100).await?;
        }
    }
    let recent = store.recent_chat(game, 2).await?;
    assert_eq!(texts(&recent), ["p2", "s4", "p4", "s5"]);
    assert!(store.recent_chat(Uuid::new_v4(), 2).await?.is_empty());
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn only_the_players_read_the_players_room(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let eve = registered(&store, "Eve").await;
    let game = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let at = Utc::now().trunc_subsecs(3);
    store
        .insert_chat_line(line(game, bob.user_id, ChatRoom::Players, "secret", at), 10)
        .await?;
    store
        .insert_chat_line(
            line(game, eve.user_id, ChatRoom::Spectators, "public", at),
            10,
        )
        .await?;
    for player in [alice.user_id, bob.user_id] {
        let read = store
            .game_chat(game, Some(player))
            .await?
            .expect("the game");
        assert_eq!(texts(&read), ["secret", "public"]);
    }
    for reader in [Some(eve.user_id), None] {
        let read = store.game_chat(game, reader).await?.expect("the game");
        assert_eq!(texts(&read), ["public"]);
    }
    assert_eq!(store.game_chat(Uuid::new_v4(), None).await?, None);
    Ok(())
}
