//! Live play: one actor per game (a tokio task that owns the game's state, reached through a
//! [`GameHandle`]), the [`Games`] registry that creates, finds and restores them, clocks, and
//! the versioned event log used for reconnects.
//!
//! This layer decides nothing about legality (the rules engine does) and writes no SQL (the
//! store does); it sequences each game's actions, keeps the clocks, and acknowledges an action
//! only after the store has committed it.

pub mod actor;
pub mod clock;
pub mod event;
pub mod formula;
pub mod lobby;
pub mod rating;

use crate::metrics::Metrics;
use crate::rules::{ActionError, Color, Outcome, Variant};
use crate::store::{ColorChoice, GameChange, GameRecord, GameWriter, NewGame, Store, StoreError};
use clock::TimeControl;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

/// A player as the game layer knows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    pub user_id: Uuid,
    pub name: String,
}

/// Why the game layer refused a request. Each has a stable snake_case code.
#[derive(Debug)]
pub enum GameError {
    NotFound,
    /// The game's actor has stopped (the server is shutting down).
    Unavailable,
    NotAPlayer,
    NotStarted,
    GameOver,
    AlreadyStarted,
    OwnGame,
    NotYourTurn,
    /// The action was meant for another ply than the next one.
    WrongPly {
        expected: u32,
    },
    /// The same action was already applied at that ply.
    Duplicate {
        ply: u32,
    },
    Action(ActionError),
    /// The player's time had run out.
    TimeOut,
    /// Abort, claims and offers that the game's state does not allow.
    NotAllowed(&'static str),
    /// The player already holds [`MAX_OPEN_CHALLENGES`] open challenges.
    TooManyChallenges,
    Store(StoreError),
}

impl GameError {
    /// The stable error code sent to clients.
    pub fn code(&self) -> &'static str {
        match self {
            GameError::NotFound => "game_not_found",
            GameError::Unavailable => "game_unavailable",
            GameError::NotAPlayer => "not_a_player",
            GameError::NotStarted => "game_not_started",
            GameError::GameOver => "game_over",
            GameError::AlreadyStarted => "game_already_started",
            GameError::OwnGame => "own_game",
            GameError::NotYourTurn => "not_your_turn",
            GameError::WrongPly { .. } => "wrong_ply",
            GameError::Duplicate { .. } => "duplicate_action",
            GameError::Action(e) => e.code(),
            GameError::TimeOut => "time_out",
            GameError::NotAllowed(code) => code,
            GameError::TooManyChallenges => "too_many_challenges",
            GameError::Store(e) if e.is_unavailable() => "store_unavailable",
            GameError::Store(_) => "storage_failed",
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::NotFound => f.write_str("no such game"),
            GameError::Unavailable => f.write_str("the game is not available right now"),
            GameError::NotAPlayer => f.write_str("you are not playing in this game"),
            GameError::NotStarted => f.write_str("the game has not started"),
            GameError::GameOver => f.write_str("the game is over"),
            GameError::AlreadyStarted => f.write_str("the game already has both players"),
            GameError::OwnGame => f.write_str("you cannot accept your own challenge"),
            GameError::NotYourTurn => f.write_str("it is not your turn"),
            GameError::WrongPly { expected } => {
                write!(f, "that action is not for the next ply ({expected})")
            }
            GameError::Duplicate { ply } => write!(f, "ply {ply} was already played"),
            GameError::Action(e) => e.fmt(f),
            GameError::TimeOut => f.write_str("your time ran out"),
            GameError::NotAllowed(code) => write!(f, "not allowed now ({code})"),
            GameError::TooManyChallenges => write!(
                f,
                "you already have {MAX_OPEN_CHALLENGES} open challenges: withdraw one or wait \
                 until one is taken"
            ),
            // Store details are logged, not sent.
            GameError::Store(e) if e.is_unavailable() => f.write_str(
                "the database is unavailable: nothing was done, and no clock runs until it is \
                 back; try again shortly",
            ),
            GameError::Store(_) => f.write_str("the action could not be stored; try again"),
        }
    }
}

impl std::error::Error for GameError {}

impl From<StoreError> for GameError {
    fn from(e: StoreError) -> Self {
        GameError::Store(e)
    }
}

impl From<ActionError> for GameError {
    fn from(e: ActionError) -> Self {
        GameError::Action(e)
    }
}

/// What a player asks of a game besides playing an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerRequest {
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Abort,
    OfferRematch,
    AcceptRematch,
    DeclineRematch,
    /// Claim the win against an opponent who left.
    ClaimVictory,
    /// Call the game a draw against an opponent who left.
    ClaimDraw,
}

/// The stream a connection receives: the messages that bring it up to date, then every
/// later event.
pub struct Subscription {
    pub initial: Vec<Arc<str>>,
    pub events: broadcast::Receiver<Arc<str>>,
    pub seat: Option<Color>,
}

/// Messages to a game actor. Each request carries its reply channel.
pub enum GameCmd {
    Join {
        seat: Seat,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    Subscribe {
        viewer: Option<Uuid>,
        since: Option<u64>,
        reply: oneshot::Sender<Subscription>,
    },
    Act {
        user_id: Uuid,
        ply: u32,
        action: String,
        received: tokio::time::Instant,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    Request {
        user_id: Uuid,
        request: PlayerRequest,
        reply: oneshot::Sender<Result<(), GameError>>,
    },
    /// A connection of this viewer opened (true) or closed (false).
    Presence { viewer: Option<Uuid>, open: bool },
    /// A full snapshot for this viewer, serialized.
    Snapshot {
        viewer: Option<Uuid>,
        reply: oneshot::Sender<Arc<str>>,
    },
}

/// A cheap, cloneable address of one game's actor.
#[derive(Clone, Debug)]
pub struct GameHandle {
    id: Uuid,
    tx: mpsc::Sender<GameCmd>,
}

impl GameHandle {
    pub fn id(&self) -> Uuid {
        self.id
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> GameCmd,
    ) -> Result<T, GameError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(make(reply))
            .await
            .map_err(|_| GameError::Unavailable)?;
        answer.await.map_err(|_| GameError::Unavailable)
    }

    /// Takes the free seat of an open challenge.
    pub async fn join(&self, seat: Seat) -> Result<(), GameError> {
        self.ask(|reply| GameCmd::Join { seat, reply }).await?
    }

    /// Subscribes to the game's events, catching up from version `since` when possible.
    pub async fn subscribe(
        &self,
        viewer: Option<Uuid>,
        since: Option<u64>,
    ) -> Result<Subscription, GameError> {
        self.ask(|reply| GameCmd::Subscribe {
            viewer,
            since,
            reply,
        })
        .await
    }

    /// Plays an action for the player; resolves once it is committed and broadcast.
    pub async fn act(&self, user_id: Uuid, ply: u32, action: String) -> Result<(), GameError> {
        let received = tokio::time::Instant::now();
        self.ask(|reply| GameCmd::Act {
            user_id,
            ply,
            action,
            received,
            reply,
        })
        .await?
    }

    /// Resign, offers, abort and claims.
    pub async fn request(&self, user_id: Uuid, request: PlayerRequest) -> Result<(), GameError> {
        self.ask(|reply| GameCmd::Request {
            user_id,
            request,
            reply,
        })
        .await?
    }

    /// A full snapshot message for this viewer.
    pub async fn snapshot(&self, viewer: Option<Uuid>) -> Result<Arc<str>, GameError> {
        self.ask(|reply| GameCmd::Snapshot { viewer, reply }).await
    }

    /// Tells the actor a connection opened or closed (never blocks the caller for long: a
    /// full queue means the game is busy and the message waits its turn).
    pub async fn presence(&self, viewer: Option<Uuid>, open: bool) {
        let _ = self.tx.send(GameCmd::Presence { viewer, open }).await;
    }
}

/// Limits that shape every game; shorter in tests.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// How long each side has for its first move before the game is aborted.
    pub first_move_limit: Duration,
    /// How long an open challenge waits for someone to accept it before it is withdrawn
    /// (aborted), so that forgotten links do not pile up, each an actor restored at every
    /// start.
    pub open_challenge_limit: Duration,
    /// How long a game without a clock may wait for its next action, once both sides have
    /// moved, before the player to move loses it as abandoned. lichess ends its unlimited
    /// games the same way after 21 days; without it, a game both players left would never
    /// end, and its actor would be restored at every start. (A game with a clock ends by
    /// the clock, and one before both sides' first moves by `first_move_limit`.)
    pub idle_limit: Duration,
    /// How long a finished game's actor stays up for rematches and late viewers.
    pub linger_after_end: Duration,
    /// How long a finished game stays up once nobody is connected to it (never longer than
    /// `linger_after_end`): nobody is left to offer a rematch, and a late visitor's game page
    /// shows the stored game in the replay instead. Under load thousands of games end every
    /// minute, and their actors would otherwise hold memory for the full linger.
    pub linger_unwatched: Duration,
    /// Bounds of the delay after which a player may claim against a vanished opponent.
    pub min_claim_delay: Duration,
    pub max_claim_delay: Duration,
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            first_move_limit: Duration::from_secs(30),
            open_challenge_limit: Duration::from_secs(24 * 60 * 60),
            idle_limit: Duration::from_secs(21 * 24 * 60 * 60),
            linger_after_end: Duration::from_secs(600),
            linger_unwatched: Duration::from_secs(60),
            min_claim_delay: Duration::from_secs(10),
            max_claim_delay: Duration::from_secs(60),
        }
    }
}

impl GameSettings {
    /// The claim delay for a time control: about a twentieth of the expected game length
    /// (initial time plus 40 increments), within the bounds, as lichess scales it; games
    /// without a clock use the upper bound.
    pub fn claim_delay(&self, control: Option<TimeControl>) -> Duration {
        match control {
            None => self.max_claim_delay,
            Some(tc) => {
                let expected_ms = tc.initial_ms + 40 * tc.increment_ms;
                Duration::from_millis(expected_ms / 20)
                    .clamp(self.min_claim_delay, self.max_claim_delay)
            }
        }
    }
}

/// What the registry tells its listeners (the lobby) about games starting and ending.
#[derive(Clone, Debug)]
pub enum GameNotice {
    /// Both seats are taken and the game is on.
    Started {
        game_id: Uuid,
        white: Seat,
        black: Seat,
        terms: GameTerms,
    },
    /// A started game is over (ratings, if rated, are already stored).
    Ended {
        game_id: Uuid,
        white: Seat,
        black: Seat,
        rated: bool,
        outcome: Outcome,
    },
}

struct GamesInner {
    store: Store,
    /// Where game starts and ends are told (the lobby), if anyone listens. Unbounded, so
    /// that no notice is ever lost nor an actor held up: a missed start would leave a
    /// player's seeks standing and never send them to their game, a missed end would leave
    /// stale ratings. Two notices a game, each handled in microseconds unless it reloads
    /// ratings, so the queue stays short.
    notices: Mutex<Option<mpsc::UnboundedSender<GameNotice>>>,
    writer: GameWriter,
    metrics: Arc<Metrics>,
    settings: GameSettings,
    live: Mutex<HashMap<Uuid, GameHandle>>,
    /// Each player's open challenges still waiting for an opponent, by creator: what
    /// [`MAX_OPEN_CHALLENGES`] counts. A challenge leaves when its game starts or ends.
    open_challenges: Mutex<HashMap<Uuid, Vec<Uuid>>>,
}

/// The most open challenges (games waiting for an opponent) one player may hold at once.
pub const MAX_OPEN_CHALLENGES: usize = 20;

/// The registry of live games: creates actors, finds them by id, restores them after a
/// restart. Cheap to clone.
#[derive(Clone)]
pub struct Games {
    inner: Arc<GamesInner>,
}

/// What a new game looks like before anyone has moved.
#[derive(Clone, Debug)]
pub struct GameTerms {
    pub variant: Variant,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
}

impl Games {
    pub fn new(
        store: Store,
        writer: GameWriter,
        metrics: Arc<Metrics>,
        settings: GameSettings,
    ) -> Games {
        Games {
            inner: Arc::new(GamesInner {
                store,
                writer,
                metrics,
                settings,
                notices: Mutex::new(None),
                live: Mutex::new(HashMap::new()),
                open_challenges: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.inner.metrics
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

    /// The live game with this id, if its actor is running.
    pub fn get(&self, id: Uuid) -> Option<GameHandle> {
        self.live_map().get(&id).cloned()
    }

    /// Number of live game actors.
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
    }

    /// Creates an open challenge: the creator waits for the first other person to accept.
    /// A player holds at most [`MAX_OPEN_CHALLENGES`] at once (`too_many_challenges`), as
    /// FICS limits a player's seeks: each is a live game until it is taken, withdrawn or
    /// expires. They are counted in memory: a count in PostgreSQL, through an index of
    /// waiting games, cost about 3 µs of PostgreSQL time per move under load (a fifth more),
    /// as the index filled with the dead entries of games that had started.
    pub async fn create_open(
        &self,
        creator: Seat,
        terms: GameTerms,
        color: ColorChoice,
    ) -> Result<Uuid, GameError> {
        let game_id = new_game_id();
        let creator_id = creator.user_id;
        {
            // Counted before it is created, so that requests at once cannot pass the limit.
            let mut open = self.open_challenges();
            let held = open.entry(creator_id).or_default();
            if held.len() >= MAX_OPEN_CHALLENGES {
                return Err(GameError::TooManyChallenges);
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

    /// Creates a game with the creator seated, waiting for the other seat.
    async fn create_waiting(
        &self,
        game_id: Uuid,
        creator: Seat,
        terms: GameTerms,
        color: ColorChoice,
    ) -> Result<Uuid, GameError> {
        let dice = actor::DiceSecret::for_variant(terms.variant);
        self.inner
            .writer
            .commit(GameChange::Create(NewGame {
                game_id,
                variant: terms.variant,
                creator_id: creator.user_id,
                white_id: None,
                black_id: None,
                color_choice: color,
                clock: terms.time_control.map(actor::clock_setting),
                rated: terms.rated,
                start_position: None,
                dice_commitment: dice.as_ref().map(|d| d.commitment.clone()),
                dice_seed: dice.as_ref().map(|d| d.seed.to_vec()),
            }))
            .await?;
        let handle = actor::spawn_new(self.clone(), game_id, creator, terms, color, dice)?;
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
        let game_id = self
            .create_waiting(new_game_id(), white.clone(), terms, ColorChoice::White)
            .await?;
        let handle = self.get(game_id).ok_or(GameError::Unavailable)?;
        handle.join(black).await?;
        Ok(game_id)
    }

    /// Restarts an actor for every game the database says is unfinished, replaying its
    /// stored actions. Returns how many were restored.
    pub async fn restore(&self) -> Result<usize, StoreError> {
        let records: Vec<GameRecord> = self.inner.store.resume_unfinished_games().await?;
        let mut restored = 0;
        for record in records {
            let id = record.game_id;
            let challenge =
                (record.status == crate::store::GameStatus::Waiting).then_some(record.creator_id);
            match actor::spawn_restored(self.clone(), record) {
                Ok(handle) => {
                    self.register(handle);
                    if let Some(creator) = challenge {
                        self.open_challenges().entry(creator).or_default().push(id);
                    }
                    restored += 1;
                }
                Err(e) => tracing::error!(game_id = %id, cause = %e, "could not restore game"),
            }
        }
        Ok(restored)
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

    #[tokio::test]
    async fn no_notice_is_lost_however_far_behind_the_listener_is() {
        let pool = sqlx::PgPool::connect_lazy("postgres://nobody@127.0.0.1:1/none")
            .unwrap_or_else(|e| panic!("{e}"));
        let store = Store::from_pool(pool);
        let writer = GameWriter::spawn(store.clone());
        let games = Games::new(store, writer, Arc::default(), GameSettings::default());
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
            outcome: Outcome::draw(crate::rules::EndReason::Agreement),
        }
    }

    #[test]
    fn game_ids_are_time_ordered_and_random_within_a_millisecond() {
        let first = new_game_id();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let later = new_game_id();
        assert_eq!(first.get_version_num(), 7);
        assert!(first < later, "{first} then {later}");
        // Ids of the same millisecond differ in their random bits.
        let batch: std::collections::HashSet<_> = (0..1000).map(|_| new_game_id()).collect();
        assert_eq!(batch.len(), 1000);
    }
}
