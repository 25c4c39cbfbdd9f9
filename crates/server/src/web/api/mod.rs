//! JSON endpoints for games and history, and the PGN-like text export.
//!
//! - `POST /api/games`: create an open challenge (variant, clock, colour).
//! - `POST /api/games/{id}/accept`: take the free seat.
//! - `GET /api/games/{id}`: the whole record with every action, clocks and result.
//! - `GET /api/users/{name}/games`: a player's games, newest first, paged, by variant.
//! - `GET /games/{id}/export`: the game as PGN-like text.
//! - `GET /api/games/{id}/dice`: a finished dice game's roll log for `rules verify-dice`.
//! - `GET /api/variants`: the variants and whether they are playable.
//! - `GET /api/games?status=active`: the newest games in a status (games to watch).
//! - `GET /api/games/{id}/replay`: the rules snapshot after every ply, for the replay page.
//! - `GET /api/games/{id}/chat`: the game's stored chat the requester may read ([`chat`]).
//! - `GET /api/games/{id}/board`: the position a game stands at, its final one once over
//!   ([`boards`]).
//! - `GET /api/leaderboard`: a variant's highest established ratings, and the
//!   `/leaderboard` page ([`leaderboard`]).
//!
//! [`games`] holds the game endpoints, [`players`] a player's history, [`records`] the
//! export, the dice record and the replay.

pub(super) mod analysis;
pub(super) mod boards;
pub(super) mod chat;
pub(super) mod computer;
pub(super) mod games;
pub(super) mod leaderboard;
pub(super) mod players;
pub(super) mod records;

pub use games::{parse_variant, playable_variant, time_control};
pub use records::{export_text, replay_snapshots};

use crate::store::{GameRecord, GameStatus};
use crate::web::error::ApiError;
use crate::web::AppState;
use axum::Router;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The stored record of a game, or 404 `game_not_found`.
async fn stored_game(state: &AppState, game_id: Uuid) -> Result<GameRecord, ApiError> {
    state
        .store
        .load_game(game_id)
        .await?
        .ok_or(ApiError::NotFound("game_not_found"))
}

/// A game's result in PGN form: `*` while it is not decided (and for an aborted game).
fn result_text(record: &GameRecord) -> &'static str {
    record.outcome.map_or("*", |o| o.result_str())
}

/// An action as the API shows it. The store keeps an action's dice and effects as one record
/// (`{"rolls":[…],"effects":[…]}`, either left out when there are none); the API gives its
/// `rolls` (the list of dice rolled: empty when the action rolled none, null in a game
/// without dice) and `effects` (what the action did beyond its move, in words: the dice's
/// outcomes, Duel Chess's placements; null when it did nothing more) as fields of their own.
#[derive(Serialize, ToSchema)]
struct ActionView {
    ply: i32,
    /// The action in machine notation (`docs/rules/<variant>.md`).
    machine: String,
    /// The action in the variant's human notation.
    human: String,
    /// White's clock after the action, in milliseconds; null without a clock.
    white_ms: Option<i64>,
    black_ms: Option<i64>,
    /// The dice the action rolled (`[{"purpose":…,"dice":"d20","value":7},…]`): empty when it
    /// rolled none, null in a game without dice.
    #[schema(value_type = Option<Vec<Object>>)]
    rolls: Option<serde_json::Value>,
    /// What the action did beyond its move, in words; null when nothing.
    #[schema(value_type = Option<Vec<String>>)]
    effects: Option<serde_json::Value>,
    created_at: chrono::DateTime<chrono::Utc>,
}

fn action_views(record: &GameRecord) -> Vec<ActionView> {
    let has_dice = record.variant.has_dice();
    record
        .actions
        .iter()
        .map(|action| {
            let stored = action.rolls.as_ref();
            let rolls = stored.and_then(|s| s.get("rolls")).cloned();
            ActionView {
                ply: action.ply,
                machine: action.machine.clone(),
                human: action.human.clone(),
                white_ms: action.white_ms,
                black_ms: action.black_ms,
                rolls: rolls.or_else(|| has_dice.then(|| serde_json::Value::Array(Vec::new()))),
                effects: stored.and_then(|s| s.get("effects")).cloned(),
                created_at: action.created_at,
            }
        })
        .collect()
}

/// The dice seed (hex) of a game that is over; none before, and for variants without dice.
fn revealed_seed(record: &GameRecord) -> Option<String> {
    match record.status {
        GameStatus::Finished | GameStatus::Aborted => record.dice_seed.as_ref().map(hex::encode),
        _ => None,
    }
}

/// Every game and history endpoint.
pub fn router() -> Router<AppState> {
    Router::new()
        .merge(games::router())
        .merge(computer::router())
        .merge(players::router())
        .merge(records::router())
        .merge(analysis::router())
        .merge(chat::router())
        .merge(boards::router())
        .merge(leaderboard::router())
}
