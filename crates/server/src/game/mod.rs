//! Live play: the [`Games`] registry that creates, finds, hibernates and restores games and
//! counts each player's games in progress.
//!
//! Each game is a pure [`GameState`](crate::play::state::GameState) (rules, clock, offers, claims, the versioned
//! event log) inside an [`actor`], a tokio task reached through a [`GameHandle`] that does the
//! game's I/O. This layer decides nothing about legality (the rules engine does) and writes
//! no SQL (the store does); it sequences each game's actions, keeps the clocks, and
//! acknowledges an action only after the store has committed it.

pub mod actor;
mod bounds;
pub mod computer;
pub mod forwarding;
pub mod housekeeping;
pub mod lobby;
pub mod ownership;
mod remote;

mod error;
mod handle;

pub use crate::play::{
    Audience, GameNotice, GameSettings, GameTerms, Outgoing, Refusal, Seat, MAX_OPEN_CHALLENGES,
};
pub use error::{GameError, PlayerRequest};
pub use handle::{GameCmd, GameHandle, Subscription};

use crate::engine_pool::EnginePool;
use crate::metrics::Metrics;
use crate::play::clock::TimeControl;
use crate::play::state;
use crate::rules::Variant;
use crate::store::{ColorChoice, GameChange, GameRecord, GameWriter, NewGame, Store, StoreError};
use computer::ComputerPlayers;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use uuid::Uuid;

struct GamesInner {
    store: Store,
    /// Where game starts and ends are told (the lobby), if anyone listens. Unbounded, so
    /// that no notice is ever lost nor an actor held up: a missed start would leave a
    /// player's seeks standing and never send them to their game, a missed end would leave
    /// stale ratings. Two notices a game, each handled in microseconds unless it reloads
    /// ratings, so the queue stays short.
    notices: Mutex<Option<mpsc::UnboundedSender<GameNotice>>>,
    writer: GameWriter,
    /// What every game actor stores through: PostgreSQL, by the writer.
    game_store: Arc<dyn actor::GameStore>,
    metrics: Arc<Metrics>,
    settings: Arc<GameSettings>,
    /// Where every engine search runs: the computer's moves and analyses.
    engine_pool: EnginePool,
    /// The computer's accounts, one per level.
    computers: Arc<ComputerPlayers>,
    live: Mutex<HashMap<Uuid, GameHandle>>,
    /// Each player's open challenges still waiting for an opponent, by creator: what
    /// [`MAX_OPEN_CHALLENGES`] counts. A challenge leaves when its game starts or ends.
    open_challenges: Mutex<HashMap<Uuid, Vec<Uuid>>>,
    /// Each account's games in progress, hibernated or not: the open challenges it created
    /// and the active games it plays, what [`GameSettings::max_games_in_progress`] counts.
    /// Counted in memory for the reason [`Games::create_open`] gives, and filled from the
    /// store at the start ([`Games::restore`]). On a node of a cluster these are only this
    /// node's claims, counted with the store's games ([`bounds`]).
    in_progress: Mutex<HashMap<Uuid, Vec<Uuid>>>,
    /// The hibernated games being brought back, each behind a cell that the first request
    /// fills and the others wait on, so that requests at once bring back one actor.
    waking: Mutex<HashMap<Uuid, Arc<tokio::sync::OnceCell<GameHandle>>>>,
    /// On a node of a cluster, its leases on games (set once, at the start).
    ownership: std::sync::OnceLock<Arc<ownership::Ownership>>,
    /// On a node of a cluster, the games other nodes run that are served here
    /// ([`remote`]), by id.
    remote: Mutex<HashMap<Uuid, GameHandle>>,
}

/// The registry of live games: creates actors, finds them by id, restores them after a
/// restart. Cheap to clone.
#[derive(Clone)]
pub struct Games {
    inner: Arc<GamesInner>,
}

impl Games {
    pub fn new(
        store: Store,
        writer: GameWriter,
        metrics: Arc<Metrics>,
        settings: GameSettings,
        computers: ComputerPlayers,
    ) -> Games {
        let engine_pool = match &settings.engine_worker {
            Some(program) => EnginePool::new(
                program.clone(),
                settings.engine_threads,
                settings.engine_queue,
            ),
            None => EnginePool::in_process(settings.engine_threads, settings.engine_queue),
        };
        Games {
            inner: Arc::new(GamesInner {
                game_store: Arc::new(actor::PostgresGameStore {
                    store: store.clone(),
                    writer: writer.clone(),
                }),
                store,
                writer,
                metrics,
                settings: Arc::new(settings),
                engine_pool,
                computers: Arc::new(computers),
                notices: Mutex::new(None),
                live: Mutex::new(HashMap::new()),
                open_challenges: Mutex::new(HashMap::new()),
                in_progress: Mutex::new(HashMap::new()),
                waking: Mutex::new(HashMap::new()),
                ownership: std::sync::OnceLock::new(),
                remote: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The computer's accounts.
    pub fn computers(&self) -> &Arc<ComputerPlayers> {
        &self.inner.computers
    }

    /// The threads every engine search runs on.
    pub fn engine_pool(&self) -> &EnginePool {
        &self.inner.engine_pool
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.inner.metrics
    }

    /// What a game's actor may reach: the writer, the store, the settings, the metrics, and
    /// this registry through a few callbacks only.
    fn context(&self) -> actor::GameContext {
        actor::GameContext::new(
            self.inner.game_store.clone(),
            self.inner.settings.clone(),
            self.inner.metrics.clone(),
            self.clone(),
        )
    }

    /// [`Games::context`] of a game this node holds with epoch `fence` (None alone).
    fn fenced_context(&self, fence: Option<i64>) -> actor::GameContext {
        let mut ctx = self.context();
        ctx.fence = fence;
        ctx
    }

    /// Makes this registry a node of `cluster`: from now on it runs only the games whose
    /// lease it holds. Called once, before [`Games::restore`].
    pub fn join_cluster(&self, cluster: crate::cluster::Cluster) -> Arc<ownership::Ownership> {
        let made = Arc::new(ownership::Ownership::new(
            cluster,
            self.inner.metrics.clone(),
        ));
        Arc::clone(self.inner.ownership.get_or_init(|| made))
    }

    /// This node's leases, on a node of a cluster.
    pub fn ownership(&self) -> Option<&Arc<ownership::Ownership>> {
        self.inner.ownership.get()
    }

    /// Takes over the running games whose node has gone quiet (no live lease): their clocks
    /// and deadlines then run here, with nobody connected. On a node of a cluster only.
    pub async fn take_over_orphans(&self) {
        let Some(ownership) = self.ownership() else {
            return;
        };
        let ids = match self.inner.store.running_game_ids().await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::debug!(cause = %e, "cannot list running games to take over");
                return;
            }
        };
        for id in ids {
            if self.get(id).is_some() || ownership.held_elsewhere(id).await {
                continue;
            }
            // Not through a proxy of it that may still stand here: the game is taken over.
            match self.wake_once(id).await {
                Ok(_) | Err(GameError::Elsewhere | GameError::NotFound) => {}
                Err(e) => tracing::warn!(game_id = %id, cause = %e, "could not take a game over"),
            }
        }
    }

    /// Every later game start and end, in order and none missed. There is one listener:
    /// a second call takes the notices from the first.
    pub fn notices(&self) -> mpsc::UnboundedReceiver<GameNotice> {
        let (sender, receiver) = mpsc::unbounded_channel();
        *self.notice_sender() = Some(sender);
        receiver
    }

    pub(crate) fn notify(&self, notice: GameNotice) {
        let mut sender = self.notice_sender();
        // Nobody listening (tests without a lobby, or a lobby that stopped) is fine.
        if sender.as_ref().is_some_and(|s| s.send(notice).is_err()) {
            *sender = None;
        }
    }

    fn notice_sender(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<mpsc::UnboundedSender<GameNotice>>> {
        // A sender or none: a panic elsewhere cannot leave it inconsistent.
        self.inner.notices.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The live game with this id, if its actor is running (see [`Games::find`], which
    /// also brings back a hibernated game).
    pub fn get(&self, id: Uuid) -> Option<GameHandle> {
        self.live_map().get(&id).cloned()
    }

    /// The game with this id: its running actor, or, for an unfinished game that
    /// hibernated, a new one restored from the store. Requests at once for the same
    /// hibernated game bring back one actor, which all of them get.
    ///
    /// # Errors
    /// [`GameError::NotFound`] for a game that is neither running nor unfinished in the
    /// store; [`GameError::Store`] if the store could not be read.
    pub async fn find(&self, id: Uuid) -> Result<GameHandle, GameError> {
        if let Some(handle) = self.get(id) {
            return Ok(handle);
        }
        if let Some(handle) = self.remote_map().get(&id).filter(|h| !h.tx.is_closed()) {
            return Ok(handle.clone());
        }
        self.wake_once(id).await
    }

    /// [`Games::wake`], once for requests at once for the same game.
    async fn wake_once(&self, id: Uuid) -> Result<GameHandle, GameError> {
        let cell = self.waking_map().entry(id).or_default().clone();
        let woken = cell.get_or_try_init(|| self.wake(id)).await.cloned();
        let mut waking = self.waking_map();
        if waking.get(&id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            waking.remove(&id);
        }
        woken
    }

    /// Restores a hibernated game's actor (unless another request just did).
    async fn wake(&self, id: Uuid) -> Result<GameHandle, GameError> {
        if let Some(handle) = self.get(id) {
            return Ok(handle);
        }
        // On a node of a cluster: the game's lease and epoch first, so that the node that
        // ran it can commit nothing after the record is read.
        let fence = match self.ownership() {
            Some(ownership) => match ownership.take_over(&self.inner.store, id).await {
                Ok(Some(epoch)) => Some(epoch),
                Ok(None) => return Err(GameError::NotFound),
                // Another node runs it: served from there.
                Err(GameError::Elsewhere) => return self.serve_remote(ownership, id).await,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let record = match self.inner.store.wake_game(id).await {
            Ok(Some(record)) => record,
            Ok(None) => {
                self.let_lease_go(id);
                return Err(GameError::NotFound);
            }
            Err(e) => {
                self.let_lease_go(id);
                return Err(e.into());
            }
        };
        let handle = actor::spawn_restored(self.fenced_context(fence), record)?;
        self.register(handle.clone());
        Ok(handle)
    }

    /// Serves game `id`, which another node runs, through a [`remote`] proxy.
    async fn serve_remote(
        &self,
        ownership: &Arc<ownership::Ownership>,
        id: Uuid,
    ) -> Result<GameHandle, GameError> {
        let owner = ownership
            .holder(id)
            .await
            .ok()
            .flatten()
            .ok_or(GameError::Elsewhere)?;
        let client = ownership.cluster().client().clone();
        let handle = remote::spawn(self, id, owner, client)
            .await
            .ok_or(GameError::Elsewhere)?;
        self.remote_map().insert(id, handle.clone());
        Ok(handle)
    }

    fn remote_map(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, GameHandle>> {
        // Handles only: a panic elsewhere cannot leave the map inconsistent.
        self.inner.remote.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A [`remote`] proxy of game `id` ended.
    fn remote_ended(&self, id: Uuid) {
        let mut remote = self.remote_map();
        if remote.get(&id).is_some_and(|h| h.tx.is_closed()) {
            remote.remove(&id);
        }
    }

    fn waking_map(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<Uuid, Arc<tokio::sync::OnceCell<GameHandle>>>> {
        // Cells only: a panic elsewhere cannot leave the map inconsistent.
        self.inner.waking.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes game `id`'s actor out of the registry so that it may stop, if nobody can reach
    /// it any more: no command waits in its queue `commands` and nobody but the registry
    /// holds its address. Checked under the registry's lock, which every new address is
    /// taken under, so no command can come after a true answer; the next request for the
    /// game brings it back from the store ([`Games::find`]).
    pub(crate) fn hibernate(&self, id: Uuid, commands: &mpsc::Receiver<GameCmd>) -> bool {
        let mut live = self.live_map();
        let unreachable = commands.is_empty() && commands.sender_strong_count() == 1;
        if unreachable {
            live.remove(&id);
            drop(live);
            self.let_lease_go(id);
        }
        unreachable
    }

    /// Gives game `id`'s lease back, on a node of a cluster: it stopped running here.
    fn let_lease_go(&self, id: Uuid) {
        if let Some(ownership) = self.ownership() {
            ownership.release(id);
        }
    }

    /// Another node took game `id` over: out of the registry, its lease forgotten (it is the
    /// other node's now), and no longer counted among this node's games in progress.
    pub(crate) fn moved_away(&self, id: Uuid, was_active: bool) {
        self.live_map().remove(&id);
        if let Some(ownership) = self.ownership() {
            ownership.forget(id);
        }
        if was_active {
            self.inner
                .metrics
                .games_in_progress
                .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Number of live game actors (hibernated games are not among them).
    pub fn live_count(&self) -> usize {
        self.live_map().len()
    }

    fn live_map(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, GameHandle>> {
        // A poisoned lock only means another thread panicked mid-insert; the map is still usable.
        self.inner.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn register(&self, handle: GameHandle) {
        self.live_map().insert(handle.id, handle);
    }

    pub(crate) fn deregister(&self, id: Uuid) {
        self.live_map().remove(&id);
        self.let_lease_go(id);
    }

    /// Creates an open challenge: the creator waits for the first other person to accept.
    /// A player holds at most [`MAX_OPEN_CHALLENGES`] at once (`too_many_challenges`), as
    /// FICS limits a player's seeks: each is a live game until it is taken, withdrawn or
    /// expires. They are counted in memory: a count in PostgreSQL, through an index of
    /// waiting games, cost about 3 µs of PostgreSQL time per move under load (a fifth more),
    /// as the index filled with the dead entries of games that had started. A node of a
    /// cluster counts them with the store's ([`bounds`]), once per challenge made.
    pub async fn create_open(
        &self,
        creator: Seat,
        terms: GameTerms,
        color: ColorChoice,
    ) -> Result<Uuid, GameError> {
        let game_id = new_game_id();
        let creator_id = creator.user_id;
        let stored = self.stored_places(&[creator_id]).await?;
        {
            // Counted before it is created, so that requests at once cannot pass the limit.
            let mut open = self.open_challenges();
            let held = open.entry(creator_id).or_default();
            let count = match &stored {
                None => held.len(),
                Some(stored) => stored.open_challenges_of(creator_id, held),
            };
            if count >= MAX_OPEN_CHALLENGES {
                if held.is_empty() {
                    open.remove(&creator_id);
                }
                return Err(Refusal::TooManyChallenges.into());
            }
            held.push(game_id);
        }
        let created = self.create_waiting(game_id, creator, terms, color).await;
        if created.is_err() {
            self.challenge_closed(creator_id, game_id);
        }
        created
    }

    fn open_challenges(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Vec<Uuid>>> {
        // Lists of ids: a panic elsewhere cannot leave them inconsistent.
        self.inner
            .open_challenges
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// `creator`'s open challenge `game_id` is waiting no more (taken, withdrawn or
    /// expired); a game that was not one is ignored.
    pub(crate) fn challenge_closed(&self, creator: Uuid, game_id: Uuid) {
        let mut open = self.open_challenges();
        if let Some(held) = open.get_mut(&creator) {
            held.retain(|&id| id != game_id);
            if held.is_empty() {
                open.remove(&creator);
            }
        }
    }

    fn in_progress(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Vec<Uuid>>> {
        // Lists of ids: a panic elsewhere cannot leave them inconsistent.
        self.inner
            .in_progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Counts game `game_id` among the games in progress of each of `players`, unless one of
    /// them already has [`GameSettings::max_games_in_progress`] others (then nothing is
    /// counted). A player it is already counted for passes, so a game's seats can be
    /// claimed before it is created and again as it starts. On a node of a cluster the
    /// others are counted with the store's ([`bounds`]).
    pub(crate) async fn claim_places(
        &self,
        game_id: Uuid,
        players: &[&Seat],
    ) -> Result<(), GameError> {
        // The computer's own bound is the server-wide one (`create_against_computer`).
        let stored = match self.ownership() {
            None => None,
            Some(_) => {
                let unclaimed: Vec<Uuid> = {
                    let in_progress = self.in_progress();
                    players
                        .iter()
                        .map(|player| player.user_id)
                        .filter(|&id| !self.inner.computers.is_computer(id))
                        .filter(|id| !in_progress.get(id).is_some_and(|h| h.contains(&game_id)))
                        .collect()
                };
                if unclaimed.is_empty() {
                    None
                } else {
                    self.stored_places(&unclaimed).await?
                }
            }
        };
        let mut in_progress = self.in_progress();
        for player in players {
            let held = in_progress
                .get(&player.user_id)
                .map_or(&[][..], Vec::as_slice);
            if held.contains(&game_id) || self.inner.computers.is_computer(player.user_id) {
                continue;
            }
            match &stored {
                None => self.room_beside(player, held.len())?,
                Some(stored) => {
                    let games = stored.games_of(player.user_id, held);
                    if !games.contains(&game_id) {
                        self.room_beside(player, games.len())?;
                    }
                }
            }
        }
        for player in players {
            count_place(&mut in_progress, player.user_id, game_id);
        }
        Ok(())
    }

    /// Refuses with `too_many_games_in_progress` if `player` has no room for one more game
    /// (the lobby asks before it posts a seek or a match request for them). On a node of a
    /// cluster, counted with the store's games ([`bounds`]).
    pub async fn ensure_room(&self, player: &Seat) -> Result<(), GameError> {
        let held = match self.stored_places(&[player.user_id]).await? {
            None => self.games_in_progress(player.user_id),
            Some(stored) => {
                let in_progress = self.in_progress();
                let claims = in_progress
                    .get(&player.user_id)
                    .map_or(&[][..], Vec::as_slice);
                stored.games_of(player.user_id, claims).len()
            }
        };
        self.room_beside(player, held)
    }

    /// On a node of a cluster, what the store says of `players`' games in progress, asked
    /// with the claims this node holds for them, whose stale ones (games over) are dropped
    /// on the way; None on a node alone, whose memory is the whole truth ([`bounds`]).
    async fn stored_places(
        &self,
        players: &[Uuid],
    ) -> Result<Option<bounds::StoredPlaces>, GameError> {
        if self.ownership().is_none() {
            return Ok(None);
        }
        // Each lock apart, as everywhere else.
        let mut asked: HashSet<Uuid> = HashSet::new();
        {
            let in_progress = self.in_progress();
            asked.extend(players.iter().filter_map(|p| in_progress.get(p)).flatten());
        }
        {
            let open = self.open_challenges();
            asked.extend(players.iter().filter_map(|p| open.get(p)).flatten());
        }
        // At once during an outage, rather than after the pool's wait.
        self.inner.store.check_available()?;
        let claimed: Vec<Uuid> = asked.iter().copied().collect();
        let answer = self
            .inner
            .store
            .unfinished_games_of(players, &claimed)
            .await?;
        let stored = bounds::StoredPlaces::new(asked, answer);
        self.drop_stale_claims(players, &stored);
        Ok(Some(stored))
    }

    /// Forgets the claims `stored` found stale: `players`' games that are over (also among
    /// the computer's, which the server-wide bound counts), and their open challenges that
    /// are over or started. A game that moved to another node ends there, and nothing
    /// would take it out of this node's memory otherwise.
    fn drop_stale_claims(&self, players: &[Uuid], stored: &bounds::StoredPlaces) {
        let over = stored.over();
        if !over.is_empty() {
            let mut in_progress = self.in_progress();
            let holders = players.iter().copied().chain(self.inner.computers.ids());
            for holder in holders {
                if let Some(held) = in_progress.get_mut(&holder) {
                    held.retain(|id| !over.contains(id));
                    if held.is_empty() {
                        in_progress.remove(&holder);
                    }
                }
            }
        }
        let no_longer_open = stored.no_longer_open();
        if !no_longer_open.is_empty() {
            let mut open = self.open_challenges();
            for player in players {
                if let Some(held) = open.get_mut(player) {
                    held.retain(|id| !no_longer_open.contains(id));
                    if held.is_empty() {
                        open.remove(player);
                    }
                }
            }
        }
    }

    /// Whether `player`, who has `held` games in progress, may have one more.
    fn room_beside(&self, player: &Seat, held: usize) -> Result<(), GameError> {
        let limit = self.inner.settings.max_games_in_progress;
        if held >= limit {
            return Err(Refusal::TooManyGames {
                player: player.name.clone(),
                limit,
            }
            .into());
        }
        Ok(())
    }

    /// Game `game_id` is no longer in progress for these players (it ended, or it could not
    /// be created or started).
    pub(crate) fn release_places(&self, game_id: Uuid, players: &[Uuid]) {
        let mut in_progress = self.in_progress();
        for player in players {
            if let Some(held) = in_progress.get_mut(player) {
                held.retain(|&id| id != game_id);
                if held.is_empty() {
                    in_progress.remove(player);
                }
            }
        }
    }

    /// The people seated in a game in progress (the computer's accounts left out) and how
    /// many games are in progress, open challenges nobody has taken left out of both.
    pub fn in_play(&self) -> (HashSet<Uuid>, usize) {
        // Taken apart, never both locks at once.
        let waiting: HashSet<Uuid> = self.open_challenges().values().flatten().copied().collect();
        let in_progress = self.in_progress();
        let mut players = HashSet::new();
        let mut games: HashSet<Uuid> = HashSet::new();
        for (player, held) in in_progress.iter() {
            let playing: Vec<&Uuid> = held.iter().filter(|id| !waiting.contains(id)).collect();
            if playing.is_empty() {
                continue;
            }
            games.extend(playing.into_iter().copied());
            if !self.inner.computers.is_computer(*player) {
                players.insert(*player);
            }
        }
        (players, games.len())
    }

    /// [`Games::in_play`] over every node of a cluster, from the store: each node knows
    /// only the games it runs.
    ///
    /// # Errors
    /// Database failures.
    pub async fn in_play_everywhere(&self) -> Result<(HashSet<Uuid>, usize), StoreError> {
        let pairs = self.inner.store.players_in_play().await?;
        let games = pairs.len();
        let players = pairs
            .into_iter()
            .flat_map(|(white, black)| [white, black])
            .filter(|id| !self.inner.computers.is_computer(*id))
            .collect();
        Ok((players, games))
    }

    /// How many games `user_id` has in progress, open challenges included.
    pub fn games_in_progress(&self, user_id: Uuid) -> usize {
        self.in_progress().get(&user_id).map_or(0, Vec::len)
    }

    /// Creates a game with the creator seated, waiting for the other seat.
    async fn create_waiting(
        &self,
        game_id: Uuid,
        creator: Seat,
        terms: GameTerms,
        color: ColorChoice,
    ) -> Result<Uuid, GameError> {
        self.claim_places(game_id, &[&creator]).await?;
        let created = self
            .store_and_spawn(game_id, creator.clone(), terms, color)
            .await;
        if created.is_err() {
            self.release_places(game_id, &[creator.user_id]);
        }
        created
    }

    /// Stores a new waiting game and starts its actor.
    async fn store_and_spawn(
        &self,
        game_id: Uuid,
        creator: Seat,
        terms: GameTerms,
        color: ColorChoice,
    ) -> Result<Uuid, GameError> {
        // The seed is secret until the game is over, so it comes from the operating system's
        // generator, never from anything a player could know.
        let dice = state::DiceSecret::for_variant(terms.variant, rand::random());
        let fence = match self.ownership() {
            Some(ownership) => Some(ownership.claim_new(game_id).await?),
            None => None,
        };
        let created = self
            .inner
            .writer
            .commit(GameChange::Create(NewGame {
                game_id,
                variant: terms.variant,
                creator_id: creator.user_id,
                white_id: None,
                black_id: None,
                color_choice: color,
                clock: terms.time_control,
                rated: terms.rated,
                start_position: None,
                dice_commitment: dice.as_ref().map(|d| d.commitment.clone()),
                dice_seed: dice.as_ref().map(|d| d.seed.to_vec()),
            }))
            .await;
        if let Err(e) = created {
            self.let_lease_go(game_id);
            return Err(e.into());
        }
        let handle = actor::spawn_new(
            self.fenced_context(fence),
            state::Founding {
                id: game_id,
                creator,
                color_choice: color,
                seats: [None, None],
                status: crate::store::GameStatus::Waiting,
                terms,
                dice,
            },
        )?;
        self.register(handle);
        Ok(game_id)
    }

    /// Creates a game whose players are already known (seeks, matches, rematches) and starts it.
    pub async fn create_started(
        &self,
        white: Seat,
        black: Seat,
        terms: GameTerms,
    ) -> Result<Uuid, GameError> {
        // Both players' places are claimed first: a refusal for either creates nothing.
        let game_id = new_game_id();
        self.claim_places(game_id, &[&white, &black]).await?;
        let (white_id, black_id) = (white.user_id, black.user_id);
        let created = self
            .create_waiting(game_id, white, terms, ColorChoice::White)
            .await;
        if let Err(e) = created {
            self.release_places(game_id, &[white_id, black_id]);
            return Err(e);
        }
        let joined = match self.get(game_id) {
            Some(handle) => handle.join(black).await,
            None => Err(GameError::Unavailable),
        };
        if let Err(e) = joined {
            // The game stays, waiting for an opponent as White's (until it expires): only
            // Black's place is given back.
            self.release_places(game_id, &[black_id]);
            return Err(e);
        }
        Ok(game_id)
    }

    /// Creates and starts a game the lobby paired (a seek, a `play`, an accepted challenge)
    /// for two players who are on the lobby, not on the game's page: it is aborted unless
    /// both open it within `join_limit` (`docs/protocol.md`, "Seeks and matching").
    pub async fn create_paired(
        &self,
        white: Seat,
        black: Seat,
        terms: GameTerms,
        join_limit: std::time::Duration,
    ) -> Result<Uuid, GameError> {
        let game_id = self.create_started(white, black, terms).await?;
        if let Some(handle) = self.get(game_id) {
            handle.expect_players(join_limit).await;
        }
        Ok(game_id)
    }

    /// Starts a game between `player` and the computer at `level`: unrated, with the
    /// player's choice of colour, within the server's and the player's bounds on games
    /// against the computer.
    ///
    /// # Errors
    /// `computer_busy` when the computer plays as many games as it may (or has no account at
    /// that level), `too_many_computer_games` when the player has theirs, and whatever
    /// starting a game may meet.
    pub async fn create_against_computer(
        &self,
        player: Seat,
        level: oddboard_engine::Level,
        variant: Variant,
        time_control: Option<TimeControl>,
        color: ColorChoice,
    ) -> Result<Uuid, GameError> {
        let computer = self
            .inner
            .computers
            .seat(level)
            .cloned()
            .ok_or(Refusal::ComputerBusy)?;
        self.room_for_computer_game(player.user_id).await?;
        let player_is_white = match color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => rand::random(),
        };
        let (white, black) = if player_is_white {
            (player, computer)
        } else {
            (computer, player)
        };
        let terms = GameTerms {
            variant,
            time_control,
            rated: false,
        };
        self.create_started(white, black, terms).await
    }

    /// Refuses a new game against the computer beyond the server's or `player`'s bound.
    /// Counted in memory with every other game in progress: the computer's accounts hold
    /// one place per game they play. On a node of a cluster the player's are counted with
    /// the store's games ([`bounds`]); the server's stay this node's, whose engines play
    /// them.
    async fn room_for_computer_game(&self, player: Uuid) -> Result<(), GameError> {
        let stored = self.stored_places(&[player]).await?;
        let settings = &self.inner.settings;
        let in_progress = self.in_progress();
        let computer_games: Vec<&Uuid> = self
            .inner
            .computers
            .ids()
            .filter_map(|id| in_progress.get(&id))
            .flatten()
            .collect();
        if computer_games.len() >= settings.max_computer_games {
            return Err(Refusal::ComputerBusy.into());
        }
        let own = in_progress.get(&player).map_or(&[][..], Vec::as_slice);
        let against = match &stored {
            None => own.iter().filter(|id| computer_games.contains(id)).count(),
            Some(stored) => {
                let computer_claims: HashSet<Uuid> = computer_games.iter().map(|&&id| id).collect();
                stored.computer_games_of(player, own, &computer_claims, |id| {
                    self.inner.computers.is_computer(id)
                })
            }
        };
        if against >= settings.max_computer_games_per_player {
            return Err(Refusal::TooManyComputerGames {
                limit: settings.max_computer_games_per_player,
            }
            .into());
        }
        Ok(())
    }

    /// After a restart: counts every unfinished game against its players' limits, and
    /// restarts an actor for every game whose clock or first-move limit runs, replaying its
    /// stored actions. The others (open challenges, games without a clock) are left
    /// hibernating until someone asks for them. Returns how many were restored.
    pub async fn restore(&self) -> Result<usize, StoreError> {
        let unfinished = self.inner.store.unfinished_game_players().await?;
        let mut active: i64 = 0;
        for game in unfinished {
            let players = [Some(game.creator_id), game.white_id, game.black_id];
            let mut in_progress = self.in_progress();
            for player in players.into_iter().flatten() {
                count_place(&mut in_progress, player, game.game_id);
            }
            drop(in_progress);
            match game.status {
                crate::store::GameStatus::Waiting => {
                    let mut open = self.open_challenges();
                    open.entry(game.creator_id).or_default().push(game.game_id);
                }
                _ => active += 1,
            }
        }
        // Every game in progress, in memory or hibernating.
        self.inner
            .metrics
            .games_in_progress
            .fetch_add(active, std::sync::atomic::Ordering::Relaxed);
        if self.ownership().is_some() {
            // On a node of a cluster the running games may be another node's: each is taken
            // over only once its lease has lapsed ([`Games::take_over_orphans`]).
            self.take_over_orphans().await;
            return Ok(self.live_count());
        }
        let records: Vec<GameRecord> = self.inner.store.resume_running_games().await?;
        let mut restored = 0;
        for record in records {
            let id = record.game_id;
            match actor::spawn_restored(self.context(), record) {
                Ok(handle) => {
                    self.register(handle);
                    restored += 1;
                }
                Err(e) => tracing::error!(game_id = %id, cause = %e, "could not restore game"),
            }
        }
        Ok(restored)
    }
}

/// Counts `game_id` among `player`'s games in progress, once.
fn count_place(in_progress: &mut HashMap<Uuid, Vec<Uuid>>, player: Uuid, game_id: Uuid) {
    let held = in_progress.entry(player).or_default();
    if !held.contains(&game_id) {
        held.push(game_id);
    }
}

/// A new game's id: a version 7 UUID, the creation's millisecond followed by 74 random bits.
/// The games being played were created in the last minutes, so their `game_action` rows and
/// each commit's key probes fall in a few adjacent B-tree pages at the end of the index,
/// where random ids would spread them over all of it (docs/performance.md). The random part
/// still keeps a challenge link unguessable.
fn new_game_id() -> Uuid {
    Uuid::new_v7(uuid::Timestamp::now(uuid::NoContext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_away_and_a_store_refusing_have_their_own_codes() {
        let away = GameError::from(StoreError::Unavailable {
            cause: "connection reset".into(),
        });
        let refused = GameError::from(StoreError::BatchFailed {
            rows: 1,
            cause: "check constraint".into(),
        });
        assert_eq!(away.code(), "store_unavailable");
        assert_eq!(refused.code(), "storage_failed");
        // Details stay in the log.
        assert!(!away.to_string().contains("reset"), "{away}");
    }

    /// A registry whose store is never reached.
    pub(super) fn offline_games(settings: GameSettings) -> Games {
        let pool = sqlx::PgPool::connect_lazy("postgres://nobody@127.0.0.1:1/none")
            .unwrap_or_else(|e| panic!("{e}"));
        let store = Store::from_pool(pool);
        let writer = GameWriter::spawn(store.clone());
        Games::new(
            store,
            writer,
            Arc::default(),
            settings,
            ComputerPlayers::default(),
        )
    }

    #[tokio::test]
    async fn places_in_games_are_claimed_up_to_the_limit_once_per_game() {
        let games = offline_games(GameSettings {
            max_games_in_progress: 2,
            ..GameSettings::default()
        });
        let seat = |name: &str| Seat {
            user_id: Uuid::new_v4(),
            name: name.into(),
        };
        let (alice, bob) = (seat("alice"), seat("bob"));
        let (one, two, three) = (new_game_id(), new_game_id(), new_game_id());
        assert!(games.claim_places(one, &[&alice]).await.is_ok());
        assert!(games.claim_places(two, &[&alice, &bob]).await.is_ok());
        // A game already counted passes again, and is counted once.
        assert!(games.claim_places(two, &[&alice, &bob]).await.is_ok());
        assert_eq!(games.games_in_progress(alice.user_id), 2);
        // A third is refused for Alice, and so counted for nobody.
        match games.claim_places(three, &[&bob, &alice]).await {
            Err(GameError::Refused(Refusal::TooManyGames { player, limit })) => {
                assert_eq!((player.as_str(), limit), ("alice", 2));
            }
            other => panic!("expected too_many_games_in_progress, got {other:?}"),
        }
        assert_eq!(games.games_in_progress(bob.user_id), 1);
        assert!(games.ensure_room(&alice).await.is_err());
        assert!(games.ensure_room(&bob).await.is_ok());
        // An ended game makes room.
        games.release_places(one, &[alice.user_id]);
        assert!(games.claim_places(three, &[&bob, &alice]).await.is_ok());
        games.release_places(two, &[alice.user_id, bob.user_id]);
        games.release_places(three, &[alice.user_id, bob.user_id]);
        assert_eq!(games.in_progress().len(), 0, "nothing is kept for nobody");
    }

    #[tokio::test]
    async fn no_notice_is_lost_however_far_behind_the_listener_is() {
        let games = offline_games(GameSettings::default());
        games.notify(ended(Uuid::nil()));
        let mut notices = games.notices();
        // Far more than any buffer, before the listener reads one.
        let ids: Vec<Uuid> = (0..5_000).map(|_| new_game_id()).collect();
        for &id in &ids {
            games.notify(ended(id));
        }
        for &id in &ids {
            match notices.try_recv() {
                Ok(GameNotice::Ended { game_id, .. }) => assert_eq!(game_id, id),
                other => panic!("expected the end of {id}, got {other:?}"),
            }
        }
        assert!(
            notices.try_recv().is_err(),
            "nothing from before it listened"
        );
    }

    fn ended(game_id: Uuid) -> GameNotice {
        let seat = |name: &str| Seat {
            user_id: Uuid::new_v4(),
            name: name.into(),
        };
        GameNotice::Ended {
            game_id,
            white: seat("alice"),
            black: seat("bob"),
            rated: false,
            outcome: crate::rules::Outcome::draw(crate::rules::EndReason::Agreement),
        }
    }

    #[test]
    fn game_ids_are_time_ordered_and_random_within_a_millisecond() {
        let first = new_game_id();
        // The first id of a later millisecond (its first 48 bits), asked for until the clock
        // has moved on.
        let later = std::iter::repeat_with(new_game_id)
            .find(|id| id.as_bytes()[..6] != first.as_bytes()[..6])
            .unwrap_or_default();
        assert_eq!(first.get_version_num(), 7);
        assert!(first < later, "{first} then {later}");
        // Ids of the same millisecond differ in their random bits.
        let batch: std::collections::HashSet<_> = (0..1000).map(|_| new_game_id()).collect();
        assert_eq!(batch.len(), 1000);
    }
}
