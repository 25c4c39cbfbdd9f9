//! What a game actor may reach beyond its own game: its store ([`GameStore`]: the
//! group-commit writer, its record read back, chat, the store's time), the settings, the
//! metrics, the computer's accounts and engine pool, and the registry's few callbacks.
//!
//! The store is the actor's only I/O, so it is a trait: the server's is PostgreSQL's
//! ([`PostgresGameStore`]), and the actor's unit tests give it an in-memory double that
//! commits, refuses or is away as the test says.

use crate::engine_pool::EnginePool;
use crate::game::computer::ComputerPlayers;
use crate::game::{GameCmd, GameError, GameNotice, GameSettings, GameTerms, Games, Seat};
use crate::metrics::Metrics;
use crate::play::state::Effects;
use crate::store::{
    ChatRecord, GameChange, GameRecord, GameWriter, NewChatLine, Store, StoreError,
};
use futures_util::future::BoxFuture;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;
use uuid::Uuid;

/// A game actor's I/O: committing its changes and reading back what it stored. Each call
/// answers as the store did; nothing is committed that was not acknowledged `Ok`.
pub trait GameStore: Send + Sync {
    /// Commits one change (through the group-commit writer, for PostgreSQL). `fence`: on a
    /// node of a cluster, the game's `owner_epoch` this node holds; the change is refused
    /// ([`StoreError::Fenced`]) if another node took the game over since.
    fn commit(
        &self,
        change: GameChange,
        fence: Option<i64>,
    ) -> BoxFuture<'_, Result<(), StoreError>>;
    /// The game's whole stored record.
    fn load_game(&self, game_id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>>;
    /// The machine notation stored for `ply`, if any.
    fn stored_action(
        &self,
        game_id: Uuid,
        ply: i32,
    ) -> BoxFuture<'_, Result<Option<String>, StoreError>>;
    /// Stores a chat line under the game's cap of `cap` lines: the writer's name, or None
    /// when the chat is full.
    fn insert_chat_line<'a>(
        &'a self,
        line: NewChatLine<'a>,
        cap: i64,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
    /// The last `per_room` lines of each of the game's chat rooms.
    fn recent_chat(
        &self,
        game_id: Uuid,
        per_room: i64,
    ) -> BoxFuture<'_, Result<Vec<ChatRecord>, StoreError>>;
    /// The store's time in milliseconds, which stands still while it is away: the time every
    /// clock and deadline of a game runs on.
    fn running_ms(&self) -> u64;
    /// Refuses at once while the store is away.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] during an outage.
    fn check_available(&self) -> Result<(), StoreError>;
    /// Tells the store how a call went: `None` for a success, else its failure (a failure
    /// because the store is away begins an outage).
    fn observe_outcome(&self, failure: Option<&StoreError>);
}

impl dyn GameStore {
    /// Tells the store how `result` went (see [`GameStore::observe_outcome`]).
    pub fn observe<T>(&self, result: &Result<T, StoreError>) {
        self.observe_outcome(result.as_ref().err());
    }
}

/// The server's [`GameStore`]: PostgreSQL, its changes through the group-commit writer.
pub struct PostgresGameStore {
    pub store: Store,
    pub writer: GameWriter,
}

impl GameStore for PostgresGameStore {
    fn commit(
        &self,
        change: GameChange,
        fence: Option<i64>,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.writer.commit_fenced(change, fence))
    }

    fn load_game(&self, game_id: Uuid) -> BoxFuture<'_, Result<Option<GameRecord>, StoreError>> {
        Box::pin(self.store.load_game(game_id))
    }

    fn stored_action(
        &self,
        game_id: Uuid,
        ply: i32,
    ) -> BoxFuture<'_, Result<Option<String>, StoreError>> {
        Box::pin(self.store.stored_action(game_id, ply))
    }

    fn insert_chat_line<'a>(
        &'a self,
        line: NewChatLine<'a>,
        cap: i64,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(self.store.insert_chat_line(line, cap))
    }

    fn recent_chat(
        &self,
        game_id: Uuid,
        per_room: i64,
    ) -> BoxFuture<'_, Result<Vec<ChatRecord>, StoreError>> {
        Box::pin(self.store.recent_chat(game_id, per_room))
    }

    fn running_ms(&self) -> u64 {
        self.store.health().running_ms()
    }

    fn check_available(&self) -> Result<(), StoreError> {
        self.store.check_available()
    }

    fn observe_outcome(&self, failure: Option<&StoreError>) {
        match failure {
            None => self.store.health().mark_back(),
            Some(e) => self.store.observe_failure(e),
        }
    }
}

/// A game actor's narrow view of the server. Cheap to clone.
#[derive(Clone)]
pub struct GameContext {
    pub store: Arc<dyn GameStore>,
    pub settings: Arc<GameSettings>,
    pub metrics: Arc<Metrics>,
    /// On a node of a cluster, the game's `owner_epoch` this node took it with: every
    /// commit carries it (see [`GameStore::commit`]). None for one node alone.
    pub fence: Option<i64>,
    /// Reached only through the callbacks below.
    registry: Games,
}

impl GameContext {
    pub(in crate::game) fn new(
        store: Arc<dyn GameStore>,
        settings: Arc<GameSettings>,
        metrics: Arc<Metrics>,
        registry: Games,
    ) -> GameContext {
        GameContext {
            store,
            settings,
            metrics,
            fence: None,
            registry,
        }
    }

    /// Counts game `game_id` among the games in progress of `players` (see
    /// `Games::claim_places`).
    pub async fn claim_places(&self, game_id: Uuid, players: &[&Seat]) -> Result<(), GameError> {
        self.registry.claim_places(game_id, players).await
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

    /// Another node took the game over: out of the registry, without its lease (see
    /// `Games::moved_away`).
    pub fn let_go(&self, game_id: Uuid, was_active: bool) {
        self.registry.moved_away(game_id, was_active);
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
