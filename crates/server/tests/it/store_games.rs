//! The store's games against a real PostgreSQL: creating, starting, finishing and aborting
//! games, loading them with their actions, resuming the unfinished ones after a restart,
//! expiring the overdue ones, and a player's results and paged history.

// In tests a panic with a message is the failure report.
#![allow(clippy::expect_used)]

use crate::store::{
    action, at, new_game, plies, registered, set_action_times, set_created_at, started_game,
};
use chrono::{DateTime, Utc};
use oddboard::rules::{Color, EndReason, Outcome, Variant};
use oddboard::store::{
    ColorChoice, GameStatus, JsonText, NewAction, NewGame, PlayerResult, Store, StoreError,
    TimeControl, UnfinishedGame, VariantResults,
};
use sqlx::PgPool;
use uuid::Uuid;

// ---- games -------------------------------------------------------------------------------

#[sqlx::test(migrations = "./migrations")]
async fn create_and_load_a_game(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let game = NewGame {
        white_id: Some(alice.user_id),
        color_choice: ColorChoice::White,
        clock: Some(TimeControl {
            initial_ms: 300_000,
            increment_ms: 2_000,
        }),
        rated: true,
        start_position: Some("some position".into()),
        dice_commitment: Some("ab".repeat(32)),
        dice_seed: Some(vec![7; 16]),
        ..new_game(alice.user_id, Variant::Drehs)
    };

    store.create_game(&game).await?;
    let loaded = store.load_game(game.game_id).await?.expect("the game");

    assert_eq!(loaded.game_id, game.game_id);
    assert_eq!(loaded.variant, Variant::Drehs);
    assert_eq!(loaded.creator_id, alice.user_id);
    assert_eq!(loaded.white_id, Some(alice.user_id));
    assert_eq!(loaded.white_name.as_deref(), Some("Alice"));
    assert_eq!(
        (loaded.black_id, loaded.black_name.as_deref()),
        (None, None)
    );
    assert_eq!(loaded.color_choice, ColorChoice::White);
    assert_eq!(loaded.clock, game.clock);
    assert!(loaded.rated);
    assert_eq!(loaded.status, GameStatus::Waiting);
    assert_eq!(loaded.outcome, None);
    assert_eq!(loaded.start_position, game.start_position);
    assert_eq!(loaded.dice_commitment, game.dice_commitment);
    assert_eq!(loaded.dice_seed, game.dice_seed);
    assert_eq!((loaded.started_at, loaded.ended_at), (None, None));
    assert!(loaded.actions.is_empty());
    assert_eq!(store.load_game(Uuid::new_v4()).await?, None);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn dice_seed_is_never_serialized(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let game = NewGame {
        dice_commitment: Some("cd".repeat(32)),
        dice_seed: Some(vec![1, 2, 3]),
        ..new_game(alice.user_id, Variant::Drehs)
    };
    store.create_game(&game).await?;
    let loaded = store.load_game(game.game_id).await?.expect("the game");

    let json = serde_json::to_value(&loaded).unwrap_or_default();

    assert!(json.get("dice_seed").is_none(), "{json}");
    assert_eq!(
        loaded.revealed_dice_seed(),
        None,
        "secret while the game runs"
    );
    assert_eq!(json["dice_commitment"], "cd".repeat(32));
    assert_eq!(json["status"], "waiting");
    assert_eq!(json["variant"], "drehs");

    store
        .finish_game(game.game_id, &Outcome::draw(EndReason::Aborted), at(1))
        .await?;
    let over = store.load_game(game.game_id).await?.expect("the game");
    assert_eq!(over.revealed_dice_seed(), Some(&[1_u8, 2, 3][..]));
    let json = serde_json::to_value(&over).unwrap_or_default();
    assert!(
        json.get("dice_seed").is_none(),
        "the web layer decides: {json}"
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn create_game_checks_players_and_settings(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;

    let unknown_creator = store
        .create_game(&new_game(Uuid::new_v4(), Variant::Chad))
        .await;
    let unknown_black = store
        .create_game(&NewGame {
            black_id: Some(Uuid::new_v4()),
            ..new_game(alice.user_id, Variant::Chad)
        })
        .await;
    // (A negative clock, which the table's check constraint refuses, is not even a
    // `TimeControl`: its milliseconds are unsigned.)
    let uncommitted_seed = store
        .create_game(&NewGame {
            dice_seed: Some(vec![1]),
            ..new_game(alice.user_id, Variant::Drehs)
        })
        .await;

    assert!(matches!(unknown_creator, Err(StoreError::NotFound)));
    assert!(matches!(unknown_black, Err(StoreError::NotFound)));
    assert!(matches!(uncommitted_seed, Err(StoreError::Database(_))));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn start_a_waiting_game(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game = new_game(alice.user_id, Variant::Suicide);
    store.create_game(&game).await?;
    let updated_before: DateTime<Utc> =
        sqlx::query_scalar("select updated_at from game where game_id = $1")
            .bind(game.game_id)
            .fetch_one(store.pool())
            .await?;

    store
        .start_game(game.game_id, bob.user_id, alice.user_id, at(5))
        .await?;

    let loaded = store.load_game(game.game_id).await?.expect("the game");
    assert_eq!(loaded.status, GameStatus::Active);
    assert_eq!(loaded.white_id, Some(bob.user_id));
    assert_eq!(loaded.black_id, Some(alice.user_id));
    assert_eq!(loaded.white_name.as_deref(), Some("Bob"));
    assert_eq!(loaded.black_name.as_deref(), Some("Alice"));
    assert_eq!(loaded.started_at, Some(at(5)));
    let updated_after: DateTime<Utc> =
        sqlx::query_scalar("select updated_at from game where game_id = $1")
            .bind(game.game_id)
            .fetch_one(store.pool())
            .await?;
    assert!(
        updated_after > updated_before,
        "the trigger bumps updated_at"
    );

    // Only a waiting game can start.
    let again = store
        .start_game(game.game_id, bob.user_id, alice.user_id, at(6))
        .await;
    let unknown = store
        .start_game(Uuid::new_v4(), bob.user_id, alice.user_id, at(6))
        .await;
    assert!(matches!(again, Err(StoreError::NotFound)), "{again:?}");
    assert!(matches!(unknown, Err(StoreError::NotFound)), "{unknown:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn finish_with_every_kind_of_result(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let cases = [
        (
            Outcome::win(Color::White, EndReason::Checkmate),
            GameStatus::Finished,
            "1-0",
        ),
        (
            Outcome::win(Color::Black, EndReason::Timeout),
            GameStatus::Finished,
            "0-1",
        ),
        (
            Outcome::draw(EndReason::Agreement),
            GameStatus::Finished,
            "1/2-1/2",
        ),
        (Outcome::draw(EndReason::Aborted), GameStatus::Aborted, "*"),
    ];

    for (outcome, status, result) in cases {
        let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Chazz).await;

        store.finish_game(game_id, &outcome, at(60)).await?;

        let loaded = store.load_game(game_id).await?.expect("the game");
        assert_eq!(loaded.status, status, "{outcome:?}");
        assert_eq!(loaded.outcome, Some(outcome));
        assert_eq!(loaded.ended_at, Some(at(60)));
        let (stored_result, stored_reason): (String, String) =
            sqlx::query_as("select result, end_reason from game where game_id = $1")
                .bind(game_id)
                .fetch_one(store.pool())
                .await?;
        assert_eq!(stored_result, result);
        assert_eq!(stored_reason, outcome.reason.as_str());

        // Over is over.
        let again = store.finish_game(game_id, &outcome, at(61)).await;
        assert!(matches!(again, Err(StoreError::NotFound)), "{again:?}");
    }
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_waiting_game_can_be_aborted_but_not_finished(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let aborted = new_game(alice.user_id, Variant::Duel);
    let won = new_game(alice.user_id, Variant::Duel);
    store.create_game(&aborted).await?;
    store.create_game(&won).await?;

    store
        .finish_game(aborted.game_id, &Outcome::draw(EndReason::Aborted), at(1))
        .await?;
    let finish_unstarted = store
        .finish_game(
            won.game_id,
            &Outcome::win(Color::White, EndReason::Resignation),
            at(1),
        )
        .await;
    let unknown = store
        .finish_game(Uuid::new_v4(), &Outcome::draw(EndReason::Aborted), at(1))
        .await;

    let loaded = store.load_game(aborted.game_id).await?.expect("the game");
    assert_eq!(loaded.status, GameStatus::Aborted);
    assert_eq!(loaded.outcome, Some(Outcome::draw(EndReason::Aborted)));
    assert!(
        matches!(finish_unstarted, Err(StoreError::Database(_))),
        "{finish_unstarted:?}"
    );
    assert!(matches!(unknown, Err(StoreError::NotFound)), "{unknown:?}");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn load_returns_actions_in_ply_order(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Drehs).await;
    let roll_record = serde_json::json!({"attack": [6, 2], "defence": [1]});
    let rolled = NewAction {
        white_ms: Some(299_000),
        black_ms: Some(300_000),
        rolls: Some(JsonText::of(&roll_record).expect("JSON text")),
        ..action(game_id, 1)
    };

    // Stored out of order, in two batches.
    let first = store
        .append_actions(&[action(game_id, 3), rolled.clone()])
        .await?;
    let second = store.append_actions(&[action(game_id, 2)]).await?;
    assert!(first.iter().chain(&second).all(Result::is_ok));

    let loaded = store.load_game(game_id).await?.expect("the game");
    assert_eq!(plies(&loaded.actions), [1, 2, 3]);
    let ply1 = &loaded.actions[0];
    assert_eq!((ply1.machine.as_str(), ply1.human.as_str()), ("m1", "h1"));
    assert_eq!(
        (ply1.white_ms, ply1.black_ms),
        (Some(299_000), Some(300_000))
    );
    assert_eq!(ply1.rolls, Some(roll_record));
    assert_eq!(loaded.actions[1].rolls, None);
    assert_eq!(loaded.actions[1].white_ms, None);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn running_games_are_resumed_with_their_actions_and_count_the_restart(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let waiting = new_game(alice.user_id, Variant::Chad);
    store.create_game(&waiting).await?;
    let clocked = NewGame {
        clock: Some(TimeControl {
            initial_ms: 60_000,
            increment_ms: 0,
        }),
        ..new_game(alice.user_id, Variant::Suicide)
    };
    store.create_game(&clocked).await?;
    store
        .start_game(clocked.game_id, alice.user_id, bob.user_id, at(10))
        .await?;
    let opening = started_game(&store, bob.user_id, alice.user_id, Variant::Duel).await;
    let unclocked = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let finished = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    let aborted = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    set_created_at(&store, waiting.game_id, at(1)).await;
    set_created_at(&store, clocked.game_id, at(2)).await;
    set_created_at(&store, opening, at(3)).await;
    store
        .append_actions(&[
            action(clocked.game_id, 2),
            action(finished, 1),
            action(clocked.game_id, 1),
            action(opening, 1),
            action(unclocked, 1),
            action(unclocked, 2),
        ])
        .await?;
    store
        .finish_game(finished, &Outcome::draw(EndReason::Repetition), at(3))
        .await?;
    store
        .finish_game(aborted, &Outcome::draw(EndReason::Aborted), at(3))
        .await?;

    let games = store.resume_running_games().await?;

    // The open challenge and the game without a clock past its first moves hibernate.
    let ids: Vec<Uuid> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(ids, [clocked.game_id, opening], "oldest first");
    assert_eq!(games[0].status, GameStatus::Active);
    assert_eq!(plies(&games[0].actions), [1, 2]);
    assert_eq!(games[0].white_name.as_deref(), Some("Alice"));
    assert_eq!(plies(&games[1].actions), [1]);
    assert_eq!([games[0].restarts, games[1].restarts], [1, 1]);

    let again = store.resume_running_games().await?;
    assert_eq!([again[0].restarts, again[1].restarts], [2, 2]);
    for (game, restarts) in [(finished, 0), (waiting.game_id, 0), (unclocked, 0)] {
        let record = store.load_game(game).await?;
        assert_eq!(record.map(|g| g.restarts), Some(restarts), "{game}");
    }
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_hibernated_game_wakes_counted_as_restarted_and_a_finished_one_does_not(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let waiting = new_game(alice.user_id, Variant::Chad);
    store.create_game(&waiting).await?;
    let active = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    store
        .append_actions(&[action(active, 1), action(active, 2)])
        .await?;
    let finished = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    store
        .finish_game(finished, &Outcome::draw(EndReason::Agreement), at(3))
        .await?;

    let woken = store
        .wake_game(waiting.game_id)
        .await?
        .expect("the challenge");
    // A waiting game has no seats yet, but its creator's name comes with it.
    assert_eq!(
        (woken.status, woken.creator_name.as_str(), woken.restarts),
        (GameStatus::Waiting, "Alice", 1)
    );
    let woken = store.wake_game(active).await?.expect("the game");
    assert_eq!((plies(&woken.actions), woken.restarts), (vec![1, 2], 1));
    let again = store.wake_game(active).await?.expect("the game");
    assert_eq!(again.restarts, 2, "every life of the game starts a new log");

    assert_eq!(store.wake_game(finished).await?, None);
    assert_eq!(store.wake_game(Uuid::new_v4()).await?, None);
    let finished_record = store.load_game(finished).await?;
    assert_eq!(finished_record.map(|g| g.restarts), Some(0));

    let mut players = store.unfinished_game_players().await?;
    players.sort_by_key(|g| g.status == GameStatus::Active);
    assert_eq!(
        players,
        [
            UnfinishedGame {
                game_id: waiting.game_id,
                status: GameStatus::Waiting,
                creator_id: alice.user_id,
                white_id: None,
                black_id: None,
            },
            UnfinishedGame {
                game_id: active,
                status: GameStatus::Active,
                creator_id: alice.user_id,
                white_id: Some(alice.user_id),
                black_id: Some(bob.user_id),
            },
        ]
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn overdue_games_are_expired_challenges_and_idle_games_without_a_clock(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let old_challenge = new_game(alice.user_id, Variant::Chad);
    let new_challenge = new_game(alice.user_id, Variant::Chad);
    store.create_game(&old_challenge).await?;
    store.create_game(&new_challenge).await?;
    set_created_at(&store, old_challenge.game_id, at(1)).await;
    set_created_at(&store, new_challenge.game_id, at(100)).await;
    let idle = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let busy = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let opening = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    set_created_at(&store, idle, at(2)).await;
    store
        .append_actions(&[
            action(idle, 1),
            action(idle, 2),
            action(busy, 1),
            action(busy, 2),
            action(busy, 3),
            action(opening, 1),
        ])
        .await?;
    set_action_times(&store, idle, 1..3, at(10)).await;
    // Only `busy`'s last action is recent.
    set_action_times(&store, busy, 1..3, at(10)).await;
    set_action_times(&store, busy, 3..4, at(100)).await;
    set_action_times(&store, opening, 1..2, at(10)).await;

    let overdue = store.overdue_unfinished_games(at(50), at(50), 10).await?;
    assert_eq!(overdue, [old_challenge.game_id, idle], "oldest first");
    let first = store.overdue_unfinished_games(at(50), at(50), 1).await?;
    assert_eq!(first, [old_challenge.game_id], "at most the limit");
    Ok(())
}

/// Alice's finished games against Bob, by how they ended for her.
struct AlicesGames {
    won_as_white: Uuid,
    won_as_black: Uuid,
    lost: Uuid,
    drawn: Uuid,
    chad_win: Uuid,
}

/// Alice (`a`) against Bob (`b`): wins as White and as Black, loses once, draws once, in
/// Suicide; one Chad win; one Suicide game still running and one aborted, which count for
/// nothing.
async fn alices_games(store: &Store, a: Uuid, b: Uuid) -> Result<AlicesGames, StoreError> {
    let games = AlicesGames {
        won_as_white: started_game(store, a, b, Variant::Suicide).await,
        won_as_black: started_game(store, b, a, Variant::Suicide).await,
        lost: started_game(store, a, b, Variant::Suicide).await,
        drawn: started_game(store, b, a, Variant::Suicide).await,
        chad_win: started_game(store, b, a, Variant::Chad).await,
    };
    started_game(store, a, b, Variant::Suicide).await;
    let aborted = started_game(store, a, b, Variant::Suicide).await;
    let endings = [
        (
            games.won_as_white,
            Outcome::win(Color::White, EndReason::Resignation),
        ),
        (
            games.won_as_black,
            Outcome::win(Color::Black, EndReason::Timeout),
        ),
        (
            games.lost,
            Outcome::win(Color::Black, EndReason::Resignation),
        ),
        (games.drawn, Outcome::draw(EndReason::Agreement)),
        (
            games.chad_win,
            Outcome::win(Color::Black, EndReason::Resignation),
        ),
        (aborted, Outcome::draw(EndReason::Aborted)),
    ];
    for (game, outcome) in endings {
        store.finish_game(game, &outcome, at(20)).await?;
    }
    Ok(games)
}

/// The ids, sorted, of `name`'s games with `result` (of `variant`, if given).
async fn game_ids_with_result(
    store: &Store,
    name: &str,
    variant: Option<Variant>,
    result: PlayerResult,
) -> Result<Vec<Uuid>, StoreError> {
    let games = store.user_games(name, variant, Some(result), 10, 0).await?;
    let mut ids: Vec<Uuid> = games.into_iter().map(|g| g.game_id).collect();
    ids.sort();
    Ok(ids)
}

#[sqlx::test(migrations = "./migrations")]
async fn results_are_counted_and_filtered_from_each_players_side(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let games = alices_games(&store, alice.user_id, bob.user_id).await?;

    let counted = |v: Variant, finished, wins, draws, losses| VariantResults {
        variant: v,
        finished,
        wins,
        draws,
        losses,
    };
    assert_eq!(
        store.user_results("alice").await?,
        [
            counted(Variant::Chad, 1, 1, 0, 0),
            counted(Variant::Suicide, 4, 2, 1, 1)
        ]
    );
    assert_eq!(
        store.user_results("Bob").await?,
        [
            counted(Variant::Chad, 1, 0, 0, 1),
            counted(Variant::Suicide, 4, 1, 1, 2)
        ]
    );
    assert!(store.user_results("nobody").await?.is_empty());

    let mut alice_wins = vec![games.won_as_white, games.won_as_black, games.chad_win];
    alice_wins.sort();
    assert_eq!(
        game_ids_with_result(&store, "alice", None, PlayerResult::Win).await?,
        alice_wins
    );
    let bob_suicide_wins =
        game_ids_with_result(&store, "bob", Some(Variant::Suicide), PlayerResult::Win).await?;
    assert_eq!(bob_suicide_wins, [games.lost]);
    assert_eq!(
        game_ids_with_result(&store, "alice", None, PlayerResult::Loss).await?,
        [games.lost]
    );
    assert_eq!(
        game_ids_with_result(&store, "alice", None, PlayerResult::Draw).await?,
        [games.drawn]
    );
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn user_games_newest_first_with_filter_and_paging(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let carol = registered(&store, "Carol").await;
    // g1 (oldest) … g3 (newest) are Alice's; g4 is not; g5 is only a seek.
    let g1 = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    let g2 = started_game(&store, bob.user_id, alice.user_id, Variant::Chazz).await;
    let g3 = started_game(&store, alice.user_id, carol.user_id, Variant::Suicide).await;
    let g4 = started_game(&store, bob.user_id, carol.user_id, Variant::Suicide).await;
    let seek = NewGame {
        white_id: Some(alice.user_id),
        color_choice: ColorChoice::White,
        ..new_game(alice.user_id, Variant::Suicide)
    };
    store.create_game(&seek).await?;
    for (game_id, created) in [(g1, 1), (g2, 2), (g3, 3), (g4, 4), (seek.game_id, 5)] {
        set_created_at(&store, game_id, at(created)).await;
    }
    store
        .finish_game(g1, &Outcome::win(Color::Black, EndReason::NoPieces), at(9))
        .await?;
    store
        .finish_game(g3, &Outcome::draw(EndReason::Aborted), at(9))
        .await?;
    store
        .append_actions(&[action(g1, 1), action(g1, 2), action(g2, 1)])
        .await?;

    let all = store.user_games("aLiCe", None, None, 10, 0).await?;
    let suicide = store
        .user_games("alice", Some(Variant::Suicide), None, 10, 0)
        .await?;
    let page1 = store.user_games("alice", None, None, 2, 0).await?;
    let page2 = store.user_games("alice", None, None, 2, 2).await?;
    let past_the_end = store.user_games("alice", None, None, 2, 4).await?;
    let nobody = store.user_games("nobody", None, None, 10, 0).await?;

    let ids = |games: &[oddboard::store::GameSummary]| -> Vec<Uuid> {
        games.iter().map(|g| g.game_id).collect()
    };
    assert_eq!(ids(&all), [g3, g2, g1]);
    assert_eq!(ids(&suicide), [g3, g1]);
    assert_eq!(ids(&page1), [g3, g2]);
    assert_eq!(ids(&page2), [g1]);
    assert!(past_the_end.is_empty());
    assert!(nobody.is_empty());

    let oldest = &all[2];
    assert_eq!(oldest.variant, Variant::Suicide);
    assert_eq!(oldest.white_name.as_deref(), Some("Alice"));
    assert_eq!(oldest.black_name.as_deref(), Some("Bob"));
    assert_eq!(oldest.status, GameStatus::Finished);
    assert_eq!(
        oldest.outcome,
        Some(Outcome::win(Color::Black, EndReason::NoPieces))
    );
    assert_eq!(oldest.created_at, at(1));
    assert_eq!(oldest.ended_at, Some(at(9)));
    assert_eq!(oldest.action_count, 2);
    assert_eq!(all[1].status, GameStatus::Active);
    assert_eq!(all[1].action_count, 1);
    assert_eq!(all[0].status, GameStatus::Aborted);
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn user_games_break_ties_by_game_id(pool: PgPool) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let game_id = started_game(&store, alice.user_id, bob.user_id, Variant::Duel).await;
        set_created_at(&store, game_id, at(1)).await;
        ids.push(game_id);
    }
    ids.sort_unstable_by(|a, b| b.cmp(a));

    let first_two = store.user_games("bob", None, None, 2, 0).await?;
    let last = store.user_games("bob", None, None, 2, 2).await?;

    let listed: Vec<Uuid> = first_two.iter().chain(&last).map(|g| g.game_id).collect();
    assert_eq!(listed, ids, "stable order across pages");
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_players_games_in_progress_with_the_claims_of_a_node(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let alice = registered(&store, "Alice").await;
    let bob = registered(&store, "Bob").await;
    let carol = registered(&store, "Carol").await;
    // Alice's: an open challenge, a game she plays as Black, and one as White; a game of
    // hers that ended; Bob's open challenge (which a node claims for Alice, who joins it);
    // Bob and Carol's game (nothing of Alice's).
    let open = new_game(alice.user_id, Variant::Chad);
    store.create_game(&open).await?;
    let as_black = started_game(&store, bob.user_id, alice.user_id, Variant::Suicide).await;
    let as_white = started_game(&store, alice.user_id, carol.user_id, Variant::Duel).await;
    let ended = started_game(&store, alice.user_id, bob.user_id, Variant::Suicide).await;
    store
        .finish_game(ended, &Outcome::draw(EndReason::Agreement), at(20))
        .await?;
    let joining = new_game(bob.user_id, Variant::Chazz);
    store.create_game(&joining).await?;
    let others = started_game(&store, bob.user_id, carol.user_id, Variant::Suicide).await;
    // Being made on the node: no row yet.
    let being_made = Uuid::new_v4();

    let claimed = [as_black, ended, joining.game_id, being_made];
    let mut games = store
        .unfinished_games_of(&[alice.user_id], &claimed)
        .await?;
    games.unfinished.sort_by_key(|g| g.game_id);
    let mut expected = vec![
        UnfinishedGame {
            game_id: open.game_id,
            status: GameStatus::Waiting,
            creator_id: alice.user_id,
            white_id: None,
            black_id: None,
        },
        UnfinishedGame {
            game_id: as_black,
            status: GameStatus::Active,
            creator_id: bob.user_id,
            white_id: Some(bob.user_id),
            black_id: Some(alice.user_id),
        },
        UnfinishedGame {
            game_id: as_white,
            status: GameStatus::Active,
            creator_id: alice.user_id,
            white_id: Some(alice.user_id),
            black_id: Some(carol.user_id),
        },
        UnfinishedGame {
            game_id: joining.game_id,
            status: GameStatus::Waiting,
            creator_id: bob.user_id,
            white_id: None,
            black_id: None,
        },
    ];
    expected.sort_by_key(|g| g.game_id);
    assert_eq!(games.unfinished, expected);
    // The ended game is in neither list: a claim on it is stale.
    assert_eq!(games.not_stored, [being_made]);

    // Several players at once, nothing claimed: each of their unfinished games once.
    let both = store
        .unfinished_games_of(&[bob.user_id, carol.user_id], &[])
        .await?;
    let mut ids: Vec<Uuid> = both.unfinished.iter().map(|g| g.game_id).collect();
    ids.sort();
    let mut expected = vec![as_black, as_white, joining.game_id, others];
    expected.sort();
    assert_eq!(ids, expected);
    assert!(both.not_stored.is_empty());
    Ok(())
}
