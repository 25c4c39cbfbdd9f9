//! Starting a game's actor: for a new open challenge, or for a game loaded from the store.

use super::{GameActor, GameContext};
use crate::game::{GameError, GameHandle};
use crate::play::state::{Founding, GameState};
use crate::store::GameRecord;

/// Spawns the actor of a new open challenge.
pub(in crate::game) fn spawn_new(
    ctx: GameContext,
    founding: Founding,
) -> Result<GameHandle, GameError> {
    let state = GameState::open(founding, ctx.settings.clone(), chrono::Utc::now)?;
    Ok(GameActor::new(ctx, state).spawn())
}

/// Spawns the actor of a game loaded from the database, replaying its actions.
pub(in crate::game) fn spawn_restored(
    ctx: GameContext,
    record: GameRecord,
) -> Result<GameHandle, GameError> {
    let now = chrono::Utc::now();
    let age = (now - record.created_at).to_std().unwrap_or_default();
    let idle_for = record
        .actions
        .last()
        .and_then(|last| (now - last.created_at).to_std().ok())
        .unwrap_or_default();
    // The actor's time starts at 0 as it is spawned.
    let state = GameState::restore(
        &record,
        ctx.settings.clone(),
        chrono::Utc::now,
        0,
        age,
        idle_for,
    )?;
    Ok(GameActor::new(ctx, state).spawn())
}
