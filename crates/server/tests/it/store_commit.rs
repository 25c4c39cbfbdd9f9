//! One commit for a game's end: the action that ends a rated game, the end and both
//! players' new ratings are written by the group-commit writer in one transaction, on the
//! one-statement path and on the one-by-one path alike.

use chrono::Utc;
use oddboard::play::rating::{rate_game, Glicko};
use oddboard::rules::{Color, EndReason, Outcome, Variant};
use oddboard::store::{
    ColorChoice, GameChange, GameEnd, GameStart, GameStatus, GameWriter, NewAction, NewGame,
    RatedSeats, RatingValues, Store, StoreError, User,
};
use sqlx::PgPool;
use uuid::Uuid;

const HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";

pub(crate) async fn registered(store: &Store, name: &str) -> User {
    store
        .create_user(name, Some(HASH), false)
        .await
        .unwrap_or_else(|err| panic!("create {name}: {err}"))
}

/// A rated Chazz game between `white` and `black`, created and started.
pub(crate) async fn started_rated_game(store: &Store, white: &User, black: &User) -> Uuid {
    let game_id = Uuid::new_v4();
    let create = GameChange::Create(NewGame {
        game_id,
        variant: Variant::Chazz,
        creator_id: white.user_id,
        white_id: None,
        black_id: None,
        color_choice: ColorChoice::White,
        clock: None,
        rated: true,
        start_position: None,
        dice_commitment: None,
        dice_seed: None,
    });
    let start = GameChange::Start(GameStart {
        game_id,
        white_id: white.user_id,
        black_id: black.user_id,
        started_at: Utc::now(),
    });
    for change in [create, start] {
        let answers = store.apply_changes(&[change]).await;
        assert!(matches!(answers.as_deref(), Ok([Ok(())])), "{answers:?}");
    }
    game_id
}

pub(crate) fn action(game_id: Uuid, ply: i32, machine: &str) -> NewAction {
    NewAction {
        game_id,
        ply,
        machine: machine.into(),
        human: machine.into(),
        white_ms: None,
        black_ms: None,
        rolls: None,
    }
}

fn rated_end(game_id: Uuid, winner: Option<Color>, white: &User, black: &User) -> GameEnd {
    let outcome = match winner {
        Some(winner) => Outcome::win(winner, EndReason::Checkmate),
        None => Outcome::draw(EndReason::Stalemate),
    };
    GameEnd {
        game_id,
        outcome,
        ended_at: Utc::now(),
        rated: Some(RatedSeats {
            variant: Variant::Chazz,
            white_id: white.user_id,
            black_id: black.user_id,
        }),
    }
}

/// A player's Chazz rating and games played, if rated.
async fn chazz_rating(store: &Store, user: &User) -> Option<(RatingValues, i32)> {
    let ratings = store.ratings(user.user_id).await.unwrap_or_default();
    ratings
        .into_iter()
        .find(|r| r.variant == Variant::Chazz)
        .map(|r| (r.values, r.games))
}

/// What the lobby showed before the rating moved into the commit: Glicko-2 from new
/// players' defaults.
fn expected(winner: Option<Color>) -> (RatingValues, RatingValues) {
    let (white, black) = rate_game(Glicko::default(), Glicko::default(), winner);
    (white.into(), black.into())
}

#[sqlx::test(migrations = "./migrations")]
async fn an_ending_move_its_end_and_the_ratings_land_together(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let (alice, bob) = (
        registered(&store, "Alice").await,
        registered(&store, "Bob").await,
    );
    let game_id = started_rated_game(&store, &alice, &bob).await;
    let other = started_rated_game(&store, &bob, &alice).await;
    // The ending move shares its batch with another game's move, through the writer.
    let writer = GameWriter::spawn(store.clone());
    let end = rated_end(game_id, Some(Color::White), &alice, &bob);
    let (ending, plain) = tokio::join!(
        writer.commit(GameChange::Act(action(game_id, 1, "a2a3"), Some(end))),
        writer.commit(GameChange::Act(action(other, 1, "a2a4"), None)),
    );
    ending?;
    plain?;
    let record = store
        .load_game(game_id)
        .await?
        .unwrap_or_else(|| panic!("no game"));
    assert_eq!(record.status, GameStatus::Finished);
    assert_eq!(record.actions.len(), 1);
    let (white_after, black_after) = expected(Some(Color::White));
    assert_eq!(chazz_rating(&store, &alice).await, Some((white_after, 1)));
    assert_eq!(chazz_rating(&store, &bob).await, Some((black_after, 1)));
    let history = store
        .rating_history(bob.user_id, Some(Variant::Chazz))
        .await?;
    assert_eq!(
        history.iter().map(|h| h.game_id).collect::<Vec<_>>(),
        [game_id]
    );
    // An end that is not stored (the game is over already) rates nobody again.
    let again = rated_end(game_id, None, &alice, &bob);
    let answers = store.apply_changes(&[GameChange::End(again)]).await?;
    assert!(
        matches!(answers.as_slice(), [Err(StoreError::NotFound)]),
        "{answers:?}"
    );
    assert_eq!(chazz_rating(&store, &alice).await, Some((white_after, 1)));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn a_rated_end_beside_a_bad_change_is_still_rated_with_it(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool);
    let (alice, bob) = (
        registered(&store, "Alice").await,
        registered(&store, "Bob").await,
    );
    let game_id = started_rated_game(&store, &alice, &bob).await;
    let other = started_rated_game(&store, &bob, &alice).await;
    store
        .apply_changes(&[GameChange::Act(action(other, 1, "a2a3"), None)])
        .await?;
    // The duplicate ply sends the batch down the one-by-one path.
    let batch = [
        GameChange::Act(action(other, 1, "a2a4"), None),
        GameChange::End(rated_end(game_id, None, &alice, &bob)),
    ];
    let answers = store.apply_changes(&batch).await?;
    assert!(
        matches!(
            answers.as_slice(),
            [Err(StoreError::DuplicatePly { .. }), Ok(())]
        ),
        "{answers:?}"
    );
    let (white_after, black_after) = expected(None);
    assert_eq!(chazz_rating(&store, &alice).await, Some((white_after, 1)));
    assert_eq!(chazz_rating(&store, &bob).await, Some((black_after, 1)));
    Ok(())
}

#[sqlx::test(migrations = "./migrations")]
async fn an_end_the_database_refuses_leaves_the_ratings_alone(
    pool: PgPool,
) -> Result<(), StoreError> {
    let store = Store::from_pool(pool.clone());
    let (alice, bob) = (
        registered(&store, "Alice").await,
        registered(&store, "Bob").await,
    );
    let game_id = started_rated_game(&store, &alice, &bob).await;
    sqlx::raw_sql(
        "create function refuse_end() returns trigger language plpgsql as \
         $$ begin raise exception 'refused'; end $$; \
         create trigger refuse_end before update on game for each row \
         when (new.status <> old.status) execute function refuse_end();",
    )
    .execute(&pool)
    .await?;
    let ending = GameChange::Act(
        action(game_id, 1, "a2a3"),
        Some(rated_end(game_id, Some(Color::Black), &alice, &bob)),
    );
    let answers = store.apply_changes(&[ending]).await?;
    assert!(matches!(answers.as_slice(), [Err(_)]), "{answers:?}");
    let record = store
        .load_game(game_id)
        .await?
        .unwrap_or_else(|| panic!("no game"));
    assert_eq!(
        (record.status, record.actions.len()),
        (GameStatus::Active, 0)
    );
    assert_eq!(chazz_rating(&store, &alice).await, None);
    assert_eq!(chazz_rating(&store, &bob).await, None);
    Ok(())
}
