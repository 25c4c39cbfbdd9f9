//! What a game actor may reach beyond its own game: the group-commit writer, the store for
//! reading its record back, the settings, the metrics, the computer's accounts and engine
//! pool, and the registry's few callbacks.

use crate::engine_pool::EnginePool;
use crate::game::computer::ComputerPlayers;
use crate::game::state::Effects;
use crate::game::{GameCmd, GameError, GameNotice, GameSettings, GameTerms, Games, Seat};
use crate::metrics::Metrics;
use crate::store::{GameWriter, Store};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;
use uuid::Uuid;

/// A game actor's narrow view of the server. Cheap to clone.
#[derive(Clone)]
pub struct GameContext {
    pub writer: GameWriter,
    pub store: Store,
    pub settings: Arc<GameSettings>,
    pub metrics: Arc<Metrics>,
    /// Reached only through the callbacks below.
    registry: Games,
}

impl GameContext {
    pub(in crate::game) fn new(
        writer: GameWriter,
        store: Store,
        settings: Arc<GameSettings>,
        metrics: Arc<Metrics>,
        registry: Games,
    ) -> GameContext {
        GameContext {
            writer,
            store,
            settings,
            metrics,
            registry,
        }
    }

    /// Counts game `game_id` among the games in progress of `players` (see
    /// `Games::claim_places`).
    pub fn claim_places(&self, game_id: Uuid, players: &[&Seat]) -> Result<(), GameError> {
        self.registry.claim_places(game_id, players)
    }

    pub fn release_places(&self, game_id: Uuid, players: &[Uuid]) {
        self.registry.release_places(game_id, players);
    }

    /// Creates and starts a rematch.
    pub async fn create_started(
        &self,
        white: Seat,
        black: Seat,
        terms: GameTerms,
    ) -> Result<Uuid, GameError> {
        self.registry.create_started(white, black, terms).await
    }

    /// The computer's accounts.
    pub fn computers(&self) -> &ComputerPlayers {
        self.registry.computers()
    }

    /// Where the computer's searches run.
    pub fn engine_pool(&self) -> &EnginePool {
        self.registry.engine_pool()
    }

    /// Takes the game out of the registry if nobody can reach it any more (see
    /// `Games::hibernate`).
    pub fn hibernate(&self, game_id: Uuid, commands: &mpsc::Receiver<GameCmd>) -> bool {
        self.registry.hibernate(game_id, commands)
    }

    pub fn deregister(&self, game_id: Uuid) {
        self.registry.deregister(game_id);
    }

    /// Carries out what a change of game `game_id`'s state asks of the server, except the
    /// broadcast, which is the actor's own.
    pub fn carry_out(&self, game_id: Uuid, effects: &mut Effects) {
        if effects.in_progress_delta != 0 {
            self.metrics
                .games_in_progress
                .fetch_add(effects.in_progress_delta, Ordering::Relaxed);
        }
        if let Some(creator) = effects.challenge_closed {
            self.registry.challenge_closed(creator, game_id);
        }
        if !effects.released_places.is_empty() {
            self.registry
                .release_places(game_id, &effects.released_places);
        }
        for notice in effects.notices.drain(..) {
            self.notify(notice);
        }
    }

    fn notify(&self, notice: GameNotice) {
        self.registry.notify(notice);
    }
}
