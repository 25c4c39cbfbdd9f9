//! The game actor: a tokio task that owns one live game (rules state, seats, clocks, offers,
//! the event log) and processes its commands one at a time.
//!
//! An action's path: check seat, turn and ply; play it on a copy of the rules state; charge
//! the clock on a copy; hand the row to the store's group-commit writer and wait for the
//! commit; only then adopt the copies, log the event and broadcast it. A failed commit
//! therefore changes nothing and nobody was told anything.

use super::clock::{Clock, TimeControl};
use super::event::EventLog;
use super::{
    rating, GameCmd, GameError, GameHandle, GameNotice, GameTerms, Games, PlayerRequest, Seat,
    Subscription,
};
use crate::rules::snapshot::PlacedPiece;
use crate::rules::{AnyGame, Color, EndReason, Outcome, Variant};
use crate::store::{
    ColorChoice, GameChange, GameEnd, GameRecord, GameResult, GameStart, GameStatus, JsonText,
    NewAction, StoreError,
};
use crate::wire::game::{GameEvent, GameServerMsg, GameView, MoveView, SeatTimes};
use rand::Rng;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;
use uuid::Uuid;

/// Commands a game's queue holds before senders wait.
const COMMAND_QUEUE: usize = 64;
/// Events a finished game keeps for reconnecting clients (the end and the action before it);
/// anyone further behind gets a snapshot.
const EVENTS_KEPT_AFTER_END: usize = 2;
/// Events buffered per subscriber before a slow one is told to resync (it then starts again
/// from a snapshot). A socket forwards each event as it comes, so a few suffice; the channel
/// also keeps its last messages until they are overwritten, which on a finished game is
/// memory held for nothing.
const BROADCAST_BUFFER: usize = 16;

/// How far apart the event logs of a game's lives start: a game resumed after its n-th
/// restart numbers its events from n × this. Versions are counted in memory, so without it a
/// client reconnecting with a version from before the restart would be sent only what follows
/// that number in the new log, and miss what was played in between; with it, the old version
/// is older than anything the new log holds and the client gets a full snapshot. A billion
/// events is more than any one life of a game holds, and the versions stay exact in a
/// JavaScript number for millions of restarts.
const RESTART_VERSION_STRIDE: u64 = 1_000_000_000;

/// How long to wait before trying again a change the actor makes on its own (an end by the
/// clock or the first-move limit, a forced action) after the store failed to commit it:
/// the state stays as it was meanwhile, and retrying at once would hammer a failing database.
const STORE_RETRY_MS: u64 = 1_000;

/// The dice seed of a game whose variant rolls dice, and its public commitment.
#[derive(Clone, Debug)]
pub struct DiceSecret {
    pub seed: [u8; 32],
    pub commitment: String,
}

impl DiceSecret {
    /// A fresh secret seed for a dice variant, None for the others.
    pub fn for_variant(variant: Variant) -> Option<DiceSecret> {
        if !variant.has_dice() {
            return None;
        }
        let seed: [u8; 32] = rand::thread_rng().gen();
        Some(DiceSecret {
            seed,
            commitment: crate::rules::dice::commitment(&seed),
        })
    }

    fn from_stored(seed: &[u8], commitment: Option<&str>) -> Option<DiceSecret> {
        let seed: [u8; 32] = seed.try_into().ok()?;
        Some(DiceSecret {
            seed,
            commitment: commitment
                .map(str::to_string)
                .unwrap_or_else(|| crate::rules::dice::commitment(&seed)),
        })
    }
}

struct GameActor {
    games: Games,
    id: Uuid,
    game: AnyGame,
    /// The pieces of `game`'s snapshot, which the next action's update is computed against.
    pieces: Vec<PlacedPiece>,
    creator: Seat,
    color_choice: ColorChoice,
    seats: [Option<Seat>; 2],
    status: GameStatus,
    outcome: Option<Outcome>,
    time_control: Option<TimeControl>,
    rated: bool,
    clock: Option<Clock>,
    /// The zero of the actor's millisecond time scale, on the store's time
    /// ([`crate::store::StoreHealth::running_ms`]), which stands still while PostgreSQL is
    /// away: clocks, deadlines and delays are all measured on it, so no flag falls and no
    /// limit runs out during an outage, when nobody can act.
    epoch: u64,
    moves: Vec<MoveView>,
    log: EventLog,
    sender: broadcast::Sender<Arc<str>>,
    draw_offer: Option<Color>,
    rematch_offer: Option<Color>,
    rematch_game: Option<Uuid>,
    /// Open connections per signed-in viewer, and of anonymous viewers.
    viewers: HashMap<Uuid, u32>,
    anonymous_viewers: u32,
    /// When each seat's last connection closed, on the actor's time scale.
    gone_since: [Option<u64>; 2],
    first_move_deadline: Option<u64>,
    /// When an open challenge nobody has accepted is withdrawn (only while waiting).
    challenge_expires_at: Option<u64>,
    /// When the player to move in an active game without a clock loses it as abandoned,
    /// unless an action comes first (see [`GameSettings::idle_limit`]).
    idle_deadline: Option<u64>,
    /// Not before when to retry a change of the actor's own that the store failed to commit
    /// (see [`STORE_RETRY_MS`]); deadlines wait for it.
    store_retry_at: Option<u64>,
    /// A ply whose commit failed in a way that leaves it unknown whether it was stored: the
    /// store went away, or the ply turned out taken by another action. If the connection
    /// broke after PostgreSQL committed, the action is in the record but not in memory; so
    /// before the game goes on, the actor reads what the store holds for that ply and adopts
    /// it ([`GameActor::catch_up_with_store`]).
    unsettled_ply: Option<u32>,
    /// Whether the commit of an end (a resignation, a flag…) failed with the store away,
    /// so that the game may be over in the record but not in memory; settled the same way.
    unsettled_end: bool,
    ended_at: Option<u64>,
    /// Since when nobody has been connected (None while someone is), on the actor's time scale.
    unwatched_since: Option<u64>,
    /// When the last command came, on the actor's time scale: a game hibernates
    /// [`super::GameSettings::hibernate_after`] after it and after the last viewer left.
    last_command_at: u64,
    dice: Option<DiceSecret>,
}

/// Spawns the actor of a new open challenge.
pub(super) fn spawn_new(
    games: Games,
    id: Uuid,
    creator: Seat,
    terms: GameTerms,
    color_choice: ColorChoice,
    dice: Option<DiceSecret>,
) -> Result<GameHandle, GameError> {
    let mut game = AnyGame::start(terms.variant).map_err(|e| {
        GameError::NotAllowed(if e.0.is_playable() {
            "bad_setup"
        } else {
            "variant_not_playable"
        })
    })?;
    if let Some(secret) = &dice {
        game.set_dice(secret.seed, &id.to_string());
    }
    let mut actor = GameActor::new(
        games,
        id,
        game,
        creator,
        color_choice,
        [None, None],
        GameStatus::Waiting,
        terms,
        dice,
    );
    actor.set_challenge_expiry(Duration::ZERO);
    Ok(actor.spawn())
}

/// Spawns the actor of a game loaded from the database, replaying its actions.
pub(super) fn spawn_restored(games: Games, record: GameRecord) -> Result<GameHandle, GameError> {
    let mut game = match &record.start_position {
        Some(position) => AnyGame::from_position(record.variant, position)
            .map_err(|_| GameError::NotAllowed("bad_setup"))?,
        None => AnyGame::start(record.variant).map_err(|_| GameError::NotAllowed("bad_setup"))?,
    };
    let dice = record
        .dice_seed
        .as_deref()
        .and_then(|seed| DiceSecret::from_stored(seed, record.dice_commitment.as_deref()));
    if let Some(secret) = &dice {
        game.set_dice(secret.seed, &record.game_id.to_string());
    }
    let mut moves = Vec::with_capacity(record.actions.len());
    for action in &record.actions {
        let played = game.play(&action.machine)?;
        moves.push(MoveView {
            ply: u32::try_from(action.ply).unwrap_or(0),
            machine: played.machine,
            human: played.human,
        });
    }
    let name = |id: Option<Uuid>, name: &Option<String>| {
        id.map(|user_id| Seat {
            user_id,
            name: name.clone().unwrap_or_default(),
        })
    };
    let seats = [
        name(record.white_id, &record.white_name),
        name(record.black_id, &record.black_name),
    ];
    // An open challenge's creator has no seat yet, so the name comes with the record.
    let creator = Seat {
        user_id: record.creator_id,
        name: record.creator_name.clone(),
    };
    let terms = GameTerms {
        variant: record.variant,
        time_control: record.clock,
        rated: record.rated,
    };
    let mut actor = GameActor::new(
        games,
        record.game_id,
        game,
        creator,
        record.color_choice,
        seats,
        record.status,
        terms,
        dice,
    );
    // The clock resumes from the readings stored with the last action; the time the server
    // was down is not charged to anyone: the side to move starts afresh now.
    if let (Some(clock), Some(last)) = (actor.clock.as_mut(), record.actions.last()) {
        let control = clock.control();
        *clock = Clock::with_remaining(
            control,
            u64::try_from(last.white_ms.unwrap_or(0)).unwrap_or(0),
            u64::try_from(last.black_ms.unwrap_or(0)).unwrap_or(0),
        );
    }
    actor.moves = moves;
    if actor.status == GameStatus::Waiting {
        // An open challenge expires as long after its creation as if the server had never
        // stopped.
        let age = (chrono::Utc::now() - record.created_at)
            .to_std()
            .unwrap_or_default();
        actor.set_challenge_expiry(age);
    }
    // Past every version the game's earlier logs handed out (see RESTART_VERSION_STRIDE).
    actor.log = EventLog::starting_at(u64::from(record.restarts) * RESTART_VERSION_STRIDE);
    if actor.status == GameStatus::Active {
        // Counted in `games_in_progress` already: by `Games::restore` at the start, or
        // before the game hibernated.
        let now = actor.now_ms();
        actor.resume_timers(now);
        // Nobody is connected yet after a restart; the claim delay starts now.
        actor.gone_since = [Some(now), Some(now)];
        // Unlike a clock, the idle limit measures how long the players have stayed away,
        // so the time the server was down counts.
        let idle_for = record
            .actions
            .last()
            .and_then(|last| (chrono::Utc::now() - last.created_at).to_std().ok())
            .unwrap_or_default();
        actor.set_idle_deadline(idle_for);
    }
    Ok(actor.spawn())
}

impl GameActor {
    #[allow(clippy::too_many_arguments)]
    fn new(
        games: Games,
        id: Uuid,
        game: AnyGame,
        creator: Seat,
        color_choice: ColorChoice,
        seats: [Option<Seat>; 2],
        status: GameStatus,
        terms: GameTerms,
        dice: Option<DiceSecret>,
    ) -> GameActor {
        let (sender, _) = broadcast::channel(BROADCAST_BUFFER);
        let pieces = game.snapshot().pieces;
        let epoch = games.store().health().running_ms();
        GameActor {
            games,
            id,
            game,
            pieces,
            creator,
            color_choice,
            seats,
            status,
            outcome: None,
            time_control: terms.time_control,
            rated: terms.rated,
            clock: terms.time_control.map(Clock::new),
            epoch,
            moves: Vec::new(),
            log: EventLog::default(),
            sender,
            draw_offer: None,
            rematch_offer: None,
            rematch_game: None,
            viewers: HashMap::new(),
            anonymous_viewers: 0,
            gone_since: [None, None],
            first_move_deadline: None,
            challenge_expires_at: None,
            idle_deadline: None,
            store_retry_at: None,
            unsettled_ply: None,
            unsettled_end: false,
            ended_at: None,
            unwatched_since: Some(0),
            last_command_at: 0,
            dice,
        }
    }

    fn spawn(self) -> GameHandle {
        let (tx, rx) = mpsc::channel(COMMAND_QUEUE);
        let handle = GameHandle { id: self.id, tx };
        tokio::spawn(self.run(rx));
        handle
    }

    /// Sets when an open challenge `age` old is withdrawn: `open_challenge_limit` after its
    /// creation.
    fn set_challenge_expiry(&mut self, age: Duration) {
        let limit = self.games.inner.settings.open_challenge_limit;
        self.challenge_expires_at = Some(self.deadline_after(limit, age));
    }

    /// Sets when the player to move loses an active game without a clock as abandoned:
    /// `idle_limit` after the last action, which was `idle_for` ago. Not before both sides
    /// have moved (the first-move limit aborts such a game), nor in a game with a clock.
    fn set_idle_deadline(&mut self, idle_for: Duration) {
        self.idle_deadline = None;
        if self.status != GameStatus::Active || self.clock.is_some() || self.ply() < 2 {
            return;
        }
        let limit = self.games.inner.settings.idle_limit;
        self.idle_deadline = Some(self.deadline_after(limit, idle_for));
    }

    /// The moment, on the actor's time scale, when `limit` has passed since something that
    /// happened `elapsed` ago.
    fn deadline_after(&self, limit: Duration, elapsed: Duration) -> u64 {
        let left = limit.saturating_sub(elapsed);
        let left_ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
        self.now_ms().saturating_add(left_ms)
    }

    fn now_ms(&self) -> u64 {
        self.games
            .store()
            .health()
            .running_ms()
            .saturating_sub(self.epoch)
    }

    /// When the actor's time reaches `ms`, if PostgreSQL stays available meanwhile. If it
    /// goes away, the actor wakes early by the length of the outage, finds the deadline not
    /// yet due, and sleeps again.
    fn instant_at(&self, ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms.saturating_sub(self.now_ms()))
    }

    fn ply(&self) -> u32 {
        u32::try_from(self.moves.len()).unwrap_or(u32::MAX)
    }

    /// Open connections of the player in `color`'s seat.
    fn connections(&self, color: Color) -> u32 {
        self.seats[color.index()]
            .as_ref()
            .and_then(|s| self.viewers.get(&s.user_id))
            .copied()
            .unwrap_or(0)
    }

    /// Viewers who are not seated in the game.
    fn spectators(&self) -> u32 {
        let seated: u32 = Color::ALL.into_iter().map(|c| self.connections(c)).sum();
        let signed_in: u32 = self.viewers.values().sum();
        (signed_in - seated.min(signed_in)).saturating_add(self.anonymous_viewers)
    }

    fn seat_of(&self, user_id: Uuid) -> Option<Color> {
        Color::ALL.into_iter().find(|c| {
            self.seats[c.index()]
                .as_ref()
                .is_some_and(|s| s.user_id == user_id)
        })
    }

    /// The earliest moment something must happen without a command arriving.
    fn next_deadline(&self) -> Option<u64> {
        let linger = self.ended_at.map(|ended| self.linger_until(ended));
        let flag = match self.status {
            GameStatus::Active => self
                .clock
                .as_ref()
                .and_then(|c| c.flag_deadline())
                .map(|(_, t)| t),
            _ => None,
        };
        let expiry = self
            .challenge_expires_at
            .filter(|_| self.status == GameStatus::Waiting);
        let idle = self
            .idle_deadline
            .filter(|_| self.status == GameStatus::Active);
        let hibernate = self.hibernation_due_at();
        let due = [
            linger,
            flag,
            self.first_move_deadline,
            expiry,
            idle,
            hibernate,
        ]
        .into_iter()
        .flatten()
        .min();
        // A pending retry is the moment to wake: a deadline due before it waits for it
        // (`on_deadline` retries first), and one due after it must not hold it up (waking
        // at the later of the two left a refused forced pass unplayed until the first-move
        // limit or the passer's own flag).
        match self.store_retry_at {
            Some(retry) if self.ended_at.is_none() => Some(retry),
            _ => due,
        }
    }

    /// When the game hibernates unless a command or a viewer comes first: never while
    /// anything in it is timed more closely than the store can time it (a running clock, the
    /// first-move limit, a retry), nor while anyone is connected, nor once it is over (its
    /// actor lingers, then stops). An open challenge's expiry and the idle limit of a game
    /// without a clock are days away: the housekeeping task wakes the game when they pass
    /// ([`super::housekeeping`]). What only memory holds lapses: an unanswered draw offer,
    /// and the claim delay against an absent player starts again when the game wakes.
    fn hibernation_due_at(&self) -> Option<u64> {
        let timed = self.first_move_deadline.is_some()
            || self.store_retry_at.is_some()
            || self.clock.as_ref().is_some_and(Clock::is_running);
        let in_progress = matches!(self.status, GameStatus::Waiting | GameStatus::Active);
        if timed || !in_progress || self.ended_at.is_some() {
            return None;
        }
        let unwatched_since = self.unwatched_since?;
        let idle_since = unwatched_since.max(self.last_command_at);
        let after = self.games.inner.settings.hibernate_after;
        Some(idle_since.saturating_add(u64::try_from(after.as_millis()).unwrap_or(u64::MAX)))
    }

    /// When the actor of a game that ended at `ended` stops: `linger_after_end` after the
    /// end, or `linger_unwatched` after the end or the last viewer leaving if that is sooner.
    fn linger_until(&self, ended: u64) -> u64 {
        let settings = &self.games.inner.settings;
        let cap = ended + settings.linger_after_end.as_millis() as u64;
        match self.unwatched_since {
            Some(since) => cap.min(since.max(ended) + settings.linger_unwatched.as_millis() as u64),
            None => cap,
        }
    }

    #[tracing::instrument(name = "game", skip_all, fields(game_id = %self.id))]
    async fn run(mut self, mut rx: mpsc::Receiver<GameCmd>) {
        // A resumed game may stop where the rules force an action that was not stored
        // before the server went down (a Chazz pass).
        self.play_forced_actions().await;
        let mut hibernated = false;
        loop {
            let deadline = self.next_deadline();
            let sleep_until = self.instant_at(deadline.unwrap_or(0));
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => {
                        self.last_command_at = self.now_ms();
                        self.handle(command).await;
                    }
                    None => break,
                },
                () = tokio::time::sleep_until(sleep_until), if deadline.is_some() => {
                    // The game's own deadlines first: one that ends it also keeps it awake.
                    if self.on_deadline().await {
                        break;
                    }
                    let now = self.now_ms();
                    if self.hibernation_due_at().is_some_and(|at| now >= at) {
                        if self.games.hibernate(self.id, &rx) {
                            hibernated = true;
                            break;
                        }
                        // Someone holds the game's address, a request on its way: another
                        // try once that has settled.
                        self.last_command_at = now;
                    }
                }
            }
        }
        if hibernated {
            // Out of the registry already, and still in progress (and counted so) in the
            // store, from which the next request for it brings it back.
            tracing::debug!("hibernated");
            return;
        }
        if self.status == GameStatus::Active {
            // Shutting down mid-game: the game stays unfinished in the database and is
            // restored at the next start.
            self.games
                .metrics()
                .games_in_progress
                .fetch_sub(1, Ordering::Relaxed);
        }
        self.games.deregister(self.id);
    }

    /// Handles a passed deadline; returns true when the actor should stop.
    async fn on_deadline(&mut self) -> bool {
        let now = self.now_ms();
        if let Some(ended) = self.ended_at {
            return now >= self.linger_until(ended);
        }
        if self.store_retry_at.is_some_and(|t| now < t) {
            return false;
        }
        self.store_retry_at = None;
        if let Err(e) = self.catch_up_with_store().await {
            // Nothing is decided against a record the actor cannot read: a flag may not fall
            // before the action that would have stopped the clock.
            tracing::error!(cause = %e, "could not read the game's record; trying again");
            self.store_retry_at = Some(now + STORE_RETRY_MS);
            return false;
        }
        self.play_forced_actions().await;
        let expired = self.status == GameStatus::Waiting
            && self.challenge_expires_at.is_some_and(|t| now >= t);
        let idle =
            self.status == GameStatus::Active && self.idle_deadline.is_some_and(|t| now >= t);
        let result = if expired || self.first_move_deadline.is_some_and(|t| now >= t) {
            self.finish(Outcome::draw(EndReason::Aborted)).await
        } else if idle {
            // The player to move has let the game lie: they lose it, as on lichess.
            let winner = self.game.turn().other();
            self.finish(Outcome::win(winner, EndReason::Abandoned))
                .await
        } else {
            match self.clock.as_ref().and_then(Clock::flag_deadline) {
                Some((side, flag_at)) if now >= flag_at => self.flag(side).await,
                _ => Ok(()),
            }
        };
        if let Err(e) = result {
            tracing::error!(cause = %e, "could not store the game's end; trying again");
            self.store_retry_at = Some(now + STORE_RETRY_MS);
        }
        false
    }

    /// `side` ran out of time: the opponent wins, unless it could never win (FICS's rule).
    async fn flag(&mut self, side: Color) -> Result<(), GameError> {
        let winner = side.other();
        let outcome = if self.game.can_win(winner) {
            Outcome::win(winner, EndReason::Timeout)
        } else {
            Outcome::draw(EndReason::TimeoutVsInsufficient)
        };
        self.finish(outcome).await
    }

    async fn handle(&mut self, command: GameCmd) {
        match command {
            GameCmd::Join { seat, reply } => {
                let result = self.join(seat).await;
                let _ = reply.send(result);
            }
            GameCmd::Subscribe {
                viewer,
                since,
                reply,
            } => {
                let events = self.sender.subscribe();
                let initial = match since.and_then(|v| self.log.since(v)) {
                    Some(missed) => missed,
                    None => vec![self.snapshot_message(viewer)],
                };
                let _ = reply.send(Subscription { initial, events });
            }
            GameCmd::Act {
                user_id,
                ply,
                action,
                received,
                reply,
            } => {
                let result = self.act(user_id, ply, &action, received).await;
                let _ = reply.send(result);
            }
            GameCmd::Request {
                user_id,
                request,
                reply,
            } => {
                let result = self.request(user_id, request).await;
                let _ = reply.send(result);
            }
            GameCmd::Presence { viewer, open } => self.presence(viewer, open),
            GameCmd::AbortedInStore => {
                let now = self.now_ms();
                self.conclude(Outcome::draw(EndReason::Aborted), now).await;
            }
        }
    }

    fn broadcast(&mut self, event: &GameEvent) {
        let message = self.log.push(event);
        // No receivers is fine: nobody is watching right now.
        let _ = self.sender.send(message);
    }

    fn view(&self, viewer: Option<Uuid>) -> GameView<'_> {
        let now = self.now_ms();
        let over = matches!(self.status, GameStatus::Finished | GameStatus::Aborted);
        GameView {
            id: self.id,
            variant: self.game.variant(),
            status: self.status,
            white: self.seats[0].as_ref().map(|s| s.name.as_str()),
            black: self.seats[1].as_ref().map(|s| s.name.as_str()),
            creator: &self.creator.name,
            color_choice: self.color_choice,
            time_control: self.time_control,
            rated: self.rated,
            clock: self.clock.as_ref().map(|c| c.view(now)),
            moves: &self.moves,
            rules: self.game.snapshot(),
            draw_offer: self.draw_offer,
            rematch_offer: self.rematch_offer,
            rematch_game: self.rematch_game,
            outcome: self.outcome,
            you: viewer.and_then(|v| self.seat_of(v)),
            spectators: self.spectators(),
            dice_commitment: self.dice.as_ref().map(|d| d.commitment.as_str()),
            dice_seed: self
                .dice
                .as_ref()
                .filter(|_| over)
                .map(|d| hex::encode(d.seed)),
            first_move_deadline_ms: self.first_move_deadline.map(|t| t.saturating_sub(now)),
            absent: self.absent_seats().collect(),
            claim_after_ms: self.claim_waits(now),
        }
    }

    /// Seats of an active game whose player has no open connection.
    fn absent_seats(&self) -> impl Iterator<Item = Color> + '_ {
        Color::ALL
            .into_iter()
            .filter(|c| self.status == GameStatus::Active && self.connections(*c) == 0)
    }

    /// When a claim against the player in `color`'s seat is allowed: the claim delay after
    /// their last connection closed (None while they are connected).
    fn claim_allowed_at(&self, color: Color) -> Option<u64> {
        let delay = self.games.inner.settings.claim_delay(self.time_control);
        self.gone_since[color.index()].map(|since| since + delay.as_millis() as u64)
    }

    /// How long until a claim against each absent seat is allowed, at `now`.
    fn claim_waits(&self, now: u64) -> SeatTimes {
        let mut waits = SeatTimes::default();
        for color in self.absent_seats() {
            let wait = self
                .claim_allowed_at(color)
                .map(|at| at.saturating_sub(now));
            match color {
                Color::White => waits.white = wait,
                Color::Black => waits.black = wait,
            }
        }
        waits
    }

    fn snapshot_message(&self, viewer: Option<Uuid>) -> Arc<str> {
        let game = self.view(viewer);
        GameServerMsg::snapshot(self.log.version(), game)
            .to_json()
            .into()
    }

    async fn join(&mut self, seat: Seat) -> Result<(), GameError> {
        self.catch_up_with_store().await?;
        if self.status != GameStatus::Waiting {
            return Err(GameError::AlreadyStarted);
        }
        if seat.user_id == self.creator.user_id {
            return Err(GameError::OwnGame);
        }
        // The creator's place was claimed with the challenge; the joiner's is claimed now.
        self.games.claim_places(self.id, &[&seat])?;
        let joiner = seat.user_id;
        let creator_color = match self.color_choice {
            ColorChoice::White => Color::White,
            ColorChoice::Black => Color::Black,
            ColorChoice::Random => {
                if rand::thread_rng().gen::<bool>() {
                    Color::White
                } else {
                    Color::Black
                }
            }
        };
        let mut seats = [None, None];
        seats[creator_color.index()] = Some(self.creator.clone());
        seats[creator_color.other().index()] = Some(seat);
        let (Some(white), Some(black)) = (&seats[0], &seats[1]) else {
            self.games.release_places(self.id, &[joiner]);
            return Err(GameError::NotAllowed("bad_seats"));
        };
        let stored = self
            .games
            .inner
            .writer
            .commit(GameChange::Start(GameStart {
                game_id: self.id,
                white_id: white.user_id,
                black_id: black.user_id,
                started_at: chrono::Utc::now(),
            }))
            .await;
        if let Err(e) = stored {
            self.games.release_places(self.id, &[joiner]);
            return Err(e.into());
        }
        let event = GameEvent::Started {
            white: white.name.clone(),
            black: black.name.clone(),
            rules: Box::new(self.game.snapshot()),
        };
        self.seats = seats;
        self.games.challenge_closed(self.creator.user_id, self.id);
        self.status = GameStatus::Active;
        self.games
            .metrics()
            .games_in_progress
            .fetch_add(1, Ordering::Relaxed);
        let now = self.now_ms();
        self.resume_timers(now);
        for color in Color::ALL {
            if self.connections(color) == 0 {
                self.gone_since[color.index()] = Some(now);
            }
        }
        self.broadcast(&event);
        if let (Some(white), Some(black)) = (&self.seats[0], &self.seats[1]) {
            self.games.notify(GameNotice::Started {
                game_id: self.id,
                white: white.clone(),
                black: black.clone(),
                terms: GameTerms {
                    variant: self.game.variant(),
                    time_control: self.time_control,
                    rated: self.rated,
                },
            });
        }
        self.play_forced_actions().await;
        Ok(())
    }

    /// Sets the first-move deadline or starts the clock, as the ply count requires.
    fn resume_timers(&mut self, now: u64) {
        let ply = self.ply();
        if ply < 2 {
            self.first_move_deadline =
                Some(now + self.games.inner.settings.first_move_limit.as_millis() as u64);
        } else {
            self.first_move_deadline = None;
            let turn = self.game.turn();
            if let Some(clock) = self.clock.as_mut() {
                clock.start(turn, now);
            }
        }
    }

    async fn act(
        &mut self,
        user_id: Uuid,
        ply: u32,
        action: &str,
        received: Instant,
    ) -> Result<(), GameError> {
        if self.status == GameStatus::Waiting {
            return Err(GameError::NotStarted);
        }
        let color = self.seat_of(user_id).ok_or(GameError::NotAPlayer)?;
        // First the game takes in an action stored without its answer, so this one is
        // checked against the true next ply (its retry is then told it was played).
        self.catch_up_with_store().await?;
        // A retry of an action already played is told so, also when that action ended the
        // game. The client may have written it in either notation the variant reads.
        let already = ply
            .checked_sub(1)
            .and_then(|i| self.moves.get(i as usize))
            .is_some_and(|m| m.machine == action || m.human == action);
        if already {
            return Err(GameError::Duplicate { ply });
        }
        if self.status != GameStatus::Active {
            return Err(GameError::GameOver);
        }
        let expected = self.ply() + 1;
        if ply != expected {
            return Err(GameError::WrongPly { expected });
        }
        if self.game.turn() != color {
            return Err(GameError::NotYourTurn);
        }
        let now = self.now_ms();
        let committed = self
            .commit_action(color, action, now, received, false)
            .await;
        if matches!(
            committed,
            Err(GameError::Store(StoreError::DuplicatePly { .. }))
        ) {
            // The ply holds another action, stored by a try whose answer was lost: the game
            // takes that one in, and this one came too late for its ply.
            self.catch_up_with_store().await?;
            return Err(GameError::WrongPly {
                expected: self.ply() + 1,
            });
        }
        committed?;
        self.play_forced_actions().await;
        Ok(())
    }

    /// Plays actions the rules force with no choice (a Chazz pass) for whoever must make them.
    /// One the store fails to commit is tried again after [`STORE_RETRY_MS`].
    async fn play_forced_actions(&mut self) {
        while self.status == GameStatus::Active {
            let Some(action) = self.game.forced_action() else {
                break;
            };
            let color = self.game.turn();
            let now = self.now_ms();
            match self
                .commit_action(color, &action, now, Instant::now(), true)
                .await
            {
                Ok(()) => {}
                // The side's time ran out before its forced action could be stored (an
                // earlier try failed): it lost on time, and the action came too late.
                Err(GameError::TimeOut) => break,
                Err(e) => {
                    tracing::error!(cause = %e, "forced action or flag failed; trying again");
                    self.store_retry_at = Some(now + STORE_RETRY_MS);
                    break;
                }
            }
        }
    }

    /// Plays, stores, then adopts and broadcasts one action; changes nothing on error. A
    /// mover whose time ran out loses on time instead ([`GameError::TimeOut`] once that end
    /// is stored). `forced`: the server plays it because the rules leave `color` no other.
    async fn commit_action(
        &mut self,
        color: Color,
        action: &str,
        now: u64,
        received: Instant,
        forced: bool,
    ) -> Result<(), GameError> {
        if let Some(clock) = &self.clock {
            if clock.is_running() && clock.is_flagged(color, now) {
                self.flag(color).await?;
                return Err(GameError::TimeOut);
            }
        }
        let mut next = self.game.clone();
        let played = next.play(action)?;
        let ply = self.ply() + 1;
        let mut clock = self.clock.clone();
        if let Some(clock) = clock.as_mut() {
            // The clock starts once both sides have moved. (A mover out of time was flagged
            // above, so the move completes.)
            clock.complete_move(color, now, ply >= 2);
        }
        let clock_view = clock.as_ref().map(|c| c.view(now));
        let rules = next.snapshot();
        let rolls = rules
            .last_action
            .as_ref()
            .filter(|a| !a.rolls.is_empty() || !a.effects.is_empty())
            .and_then(|a| JsonText::of(a).ok());
        // An action that ends the game is committed with the game's end: one commit, and
        // no moment at which the last move is stored but the game still looks unfinished.
        // The snapshot already holds the outcome; asking the game again would repeat its
        // search for a legal move on every move.
        let ends = rules.outcome.map(|outcome| GameEnd {
            game_id: self.id,
            outcome,
            ended_at: chrono::Utc::now(),
        });
        let stored_ply = i32::try_from(ply).unwrap_or(i32::MAX);
        let action = NewAction {
            game_id: self.id,
            ply: stored_ply,
            machine: played.machine.clone(),
            human: played.human.clone(),
            white_ms: clock_view.map(|c| i64::try_from(c.white_ms).unwrap_or(i64::MAX)),
            black_ms: clock_view.map(|c| i64::try_from(c.black_ms).unwrap_or(i64::MAX)),
            rolls,
        };
        match self
            .games
            .inner
            .writer
            .commit(GameChange::Act(action, ends))
            .await
        {
            Ok(()) => {}
            // The ply is stored already. If with this very action, an earlier commit of it
            // went through but its answer was lost (the connection dropped after COMMIT),
            // and the game was left one ply behind its own record, refusing every move
            // after: the action is committed, so it is adopted now.
            Err(StoreError::DuplicatePly { .. })
                if self.stored_action(stored_ply).await.as_deref() == Some(&played.machine) => {}
            Err(e) => {
                if e.is_unavailable() || matches!(e, StoreError::DuplicatePly { .. }) {
                    self.unsettled_ply = Some(ply);
                }
                return Err(e.into());
            }
        }
        // Committed: adopt the new state. The opponent's time runs from now, when the action
        // can first be seen: the commit's wait is charged to neither side.
        if let Some(clock) = clock.as_mut().filter(|c| c.is_running()) {
            clock.start(color.other(), self.now_ms());
        }
        let (update, pieces) = rules.into_update(&self.pieces);
        self.pieces = pieces;
        self.game = next;
        self.clock = clock;
        self.moves.push(MoveView {
            ply,
            machine: played.machine.clone(),
            human: played.human.clone(),
        });
        if self.draw_offer == Some(color.other()) && !forced {
            // Moving instead of answering declines the offer, as on lichess; an action the
            // rules forced was no answer.
            self.draw_offer = None;
        }
        self.first_move_deadline = None;
        if ply < 2 {
            self.first_move_deadline =
                Some(now + self.games.inner.settings.first_move_limit.as_millis() as u64);
        }
        self.set_idle_deadline(Duration::ZERO);
        self.broadcast(&GameEvent::Action {
            ply,
            machine: played.machine,
            human: played.human,
            by: color,
            forced,
            clock: clock_view,
            update: Box::new(update),
        });
        self.games.metrics().record_action(received.elapsed());
        if let Some(end) = ends {
            self.conclude(end.outcome, now).await;
        }
        Ok(())
    }

    /// If a commit left the next ply unsettled (see [`GameActor::unsettled_ply`]), reads
    /// what the store holds for it and adopts that action if there is one, as if it had
    /// just been played (time charged as now, which the outage's standstill keeps fair).
    ///
    /// # Errors
    /// The store cannot be read (the ply stays unsettled and nothing changes), or adopting
    /// the stored action failed.
    async fn catch_up_with_store(&mut self) -> Result<(), GameError> {
        if self.unsettled_end {
            self.settle_end().await?;
        }
        let ply = self.ply() + 1;
        if self.status != GameStatus::Active || self.unsettled_ply != Some(ply) {
            return Ok(());
        }
        self.games.store().check_available()?;
        let stored_ply = i32::try_from(ply).unwrap_or(i32::MAX);
        let stored = self.games.store().stored_action(self.id, stored_ply).await;
        self.games.store().observe(&stored);
        let stored = stored?;
        self.unsettled_ply = None;
        if let Some(machine) = stored {
            tracing::warn!(
                ply,
                "adopting an action stored by a commit whose answer was lost"
            );
            // Committing it again finds the ply taken by this very action, and adopts it.
            let color = self.game.turn();
            let now = self.now_ms();
            let forced = self.game.forced_action().as_deref() == Some(machine.as_str());
            self.commit_action(color, &machine, now, Instant::now(), forced)
                .await?;
        }
        Ok(())
    }

    /// Reads whether an end whose commit was cut off is in the record, and if it is, ends
    /// the game as stored.
    async fn settle_end(&mut self) -> Result<(), GameError> {
        self.games.store().check_available()?;
        let record = self.games.store().load_game(self.id).await;
        self.games.store().observe(&record);
        let record = record?;
        self.unsettled_end = false;
        let stored_end = record
            .filter(|r| matches!(r.status, GameStatus::Finished | GameStatus::Aborted))
            .and_then(|r| r.outcome);
        if let Some(outcome) = stored_end {
            tracing::warn!("concluding with an end stored by a commit whose answer was lost");
            let now = self.now_ms();
            self.conclude(outcome, now).await;
        }
        Ok(())
    }

    /// The machine notation stored for this game's `ply`, if any (None if the store cannot
    /// tell).
    async fn stored_action(&self, ply: i32) -> Option<String> {
        match self.games.store().stored_action(self.id, ply).await {
            Ok(machine) => machine,
            Err(e) => {
                tracing::error!(cause = %e, "could not read a stored action");
                None
            }
        }
    }

    /// Ends the game without an action (resignation, flag, agreement, abort…): stores the
    /// result, then [`GameActor::conclude`]s. Nothing is announced, rated or revealed unless
    /// the end is stored: on error the game goes on as it was.
    async fn finish(&mut self, outcome: Outcome) -> Result<(), GameError> {
        if matches!(self.status, GameStatus::Finished | GameStatus::Aborted) {
            return Ok(());
        }
        let now = self.now_ms();
        let end = GameEnd {
            game_id: self.id,
            outcome,
            ended_at: chrono::Utc::now(),
        };
        if let Err(e) = self.games.inner.writer.commit(GameChange::End(end)).await {
            let over_in_the_record = matches!(e, StoreError::NotFound);
            self.unsettled_end |= e.is_unavailable() || over_in_the_record;
            if over_in_the_record {
                // An earlier end was stored but its answer lost: the game takes it in.
                self.settle_end().await?;
                if let Some(stored) = self.outcome {
                    return if stored == outcome {
                        Ok(())
                    } else {
                        Err(GameError::GameOver)
                    };
                }
            }
            return Err(e.into());
        }
        self.conclude(outcome, now).await;
        Ok(())
    }

    /// Everything after the end is stored: stops the clock at `now`, rates the game,
    /// reveals the dice seed and broadcasts the end.
    async fn conclude(&mut self, outcome: Outcome, now: u64) {
        if matches!(self.status, GameStatus::Finished | GameStatus::Aborted) {
            return;
        }
        if let Some(clock) = self.clock.as_mut() {
            clock.stop(now);
        }
        let was_active = self.status == GameStatus::Active;
        if was_active && self.rated && outcome.reason != EndReason::Aborted {
            self.rate(&outcome).await;
        }
        if self.status == GameStatus::Active {
            self.games
                .metrics()
                .games_in_progress
                .fetch_sub(1, Ordering::Relaxed);
        }
        if self.status == GameStatus::Waiting {
            self.games.challenge_closed(self.creator.user_id, self.id);
        }
        let players: Vec<Uuid> = (self.seats.iter().flatten())
            .chain([&self.creator])
            .map(|s| s.user_id)
            .collect();
        self.games.release_places(self.id, &players);
        self.status = if outcome.reason == EndReason::Aborted {
            GameStatus::Aborted
        } else {
            GameStatus::Finished
        };
        self.outcome = Some(outcome);
        self.first_move_deadline = None;
        self.draw_offer = None;
        self.ended_at = Some(now);
        let event = GameEvent::Ended {
            outcome,
            clock: self.clock.as_ref().map(|c| c.view(now)),
            dice_seed: self.dice.as_ref().map(|d| hex::encode(d.seed)),
        };
        // The lobby hears of the end before anyone else, so a command sent after seeing the
        // end finds the ratings already reloaded.
        if let (true, Some(white), Some(black)) = (was_active, &self.seats[0], &self.seats[1]) {
            self.games.notify(GameNotice::Ended {
                game_id: self.id,
                white: white.clone(),
                black: black.clone(),
                rated: self.rated,
                outcome,
            });
        }
        self.broadcast(&event);
        // Lingering costs memory only: late viewers get a snapshot, and no update follows.
        self.log.keep_last(EVENTS_KEPT_AFTER_END);
        self.pieces = Vec::new();
    }

    /// Updates both players' ratings for a rated game that ended (before the end is
    /// announced, so whoever sees the end sees the new ratings). Failures are logged: the
    /// result stands either way.
    async fn rate(&self, outcome: &Outcome) {
        let (Some(white), Some(black)) = (&self.seats[0], &self.seats[1]) else {
            return;
        };
        let winner = outcome.winner;
        let result = self
            .games
            .store()
            .rate_game(
                &GameResult {
                    game_id: self.id,
                    variant: self.game.variant(),
                    white_id: white.user_id,
                    black_id: black.user_id,
                    winner,
                },
                rating::Glicko::default().into(),
                |w, b| {
                    let (w, b) = rating::rate_game(w.into(), b.into(), winner);
                    (w.into(), b.into())
                },
            )
            .await;
        if let Err(e) = result {
            tracing::error!(cause = %e, "could not rate the game");
        }
    }

    async fn request(&mut self, user_id: Uuid, request: PlayerRequest) -> Result<(), GameError> {
        self.catch_up_with_store().await?;
        // The creator of an open challenge, who has no seat until someone accepts, may
        // withdraw it.
        if self.status == GameStatus::Waiting
            && request == PlayerRequest::Abort
            && user_id == self.creator.user_id
        {
            return self.finish(Outcome::draw(EndReason::Aborted)).await;
        }
        let color = self.seat_of(user_id).ok_or(GameError::NotAPlayer)?;
        let over = matches!(self.status, GameStatus::Finished | GameStatus::Aborted);
        match request {
            PlayerRequest::OfferRematch
            | PlayerRequest::AcceptRematch
            | PlayerRequest::DeclineRematch => {
                if !over {
                    return Err(GameError::NotAllowed("game_not_over"));
                }
                return self.rematch(color, request).await;
            }
            _ if over => return Err(GameError::GameOver),
            _ if self.status == GameStatus::Waiting => return Err(GameError::NotStarted),
            _ => {}
        }
        match request {
            PlayerRequest::Resign => {
                self.finish(Outcome::win(color.other(), EndReason::Resignation))
                    .await?;
            }
            PlayerRequest::Abort => {
                if self.ply() >= 2 {
                    return Err(GameError::NotAllowed("too_late_to_abort"));
                }
                self.finish(Outcome::draw(EndReason::Aborted)).await?;
            }
            PlayerRequest::OfferDraw => match self.draw_offer {
                Some(by) if by == color.other() => {
                    self.finish(Outcome::draw(EndReason::Agreement)).await?;
                }
                Some(_) => return Err(GameError::NotAllowed("draw_already_offered")),
                None => {
                    self.draw_offer = Some(color);
                    self.broadcast(&GameEvent::DrawOffered { by: color });
                }
            },
            PlayerRequest::AcceptDraw => {
                if self.draw_offer != Some(color.other()) {
                    return Err(GameError::NotAllowed("no_draw_offer"));
                }
                self.finish(Outcome::draw(EndReason::Agreement)).await?;
            }
            PlayerRequest::DeclineDraw => {
                if self.draw_offer != Some(color.other()) {
                    return Err(GameError::NotAllowed("no_draw_offer"));
                }
                self.draw_offer = None;
                self.broadcast(&GameEvent::DrawDeclined { by: color });
            }
            PlayerRequest::ClaimVictory | PlayerRequest::ClaimDraw => {
                let opponent = color.other();
                let now = self.now_ms();
                let claimable = self.connections(opponent) == 0
                    && self.claim_allowed_at(opponent).is_some_and(|t| now >= t);
                if !claimable {
                    return Err(GameError::NotAllowed("opponent_present"));
                }
                // Before both sides have moved the game can still be aborted, unrated, and
                // the first-move limit aborts it anyway: an absent opponent is no win yet
                // (as on lichess).
                if self.ply() < 2 {
                    return Err(GameError::NotAllowed("abort_instead"));
                }
                let outcome = if request == PlayerRequest::ClaimVictory {
                    Outcome::win(color, EndReason::Abandoned)
                } else {
                    Outcome::draw(EndReason::Abandoned)
                };
                self.finish(outcome).await?;
            }
            PlayerRequest::OfferRematch
            | PlayerRequest::AcceptRematch
            | PlayerRequest::DeclineRematch => {}
        }
        Ok(())
    }

    async fn rematch(&mut self, color: Color, request: PlayerRequest) -> Result<(), GameError> {
        if self.rematch_game.is_some() {
            return Err(GameError::NotAllowed("rematch_already_started"));
        }
        let accepting = match (request, self.rematch_offer) {
            (PlayerRequest::DeclineRematch, Some(by)) if by != color => {
                self.rematch_offer = None;
                self.broadcast(&GameEvent::RematchDeclined { by: color });
                return Ok(());
            }
            (PlayerRequest::DeclineRematch, _) => {
                return Err(GameError::NotAllowed("no_rematch_offer"))
            }
            (PlayerRequest::OfferRematch, None) => {
                self.rematch_offer = Some(color);
                self.broadcast(&GameEvent::RematchOffered { by: color });
                return Ok(());
            }
            (PlayerRequest::OfferRematch, Some(by)) if by == color => {
                return Err(GameError::NotAllowed("rematch_already_offered"))
            }
            (_, Some(by)) => by != color,
            (PlayerRequest::AcceptRematch, None) => {
                return Err(GameError::NotAllowed("no_rematch_offer"))
            }
            _ => false,
        };
        if !accepting {
            return Err(GameError::NotAllowed("no_rematch_offer"));
        }
        let (Some(white), Some(black)) = (self.seats[0].clone(), self.seats[1].clone()) else {
            return Err(GameError::NotAllowed("no_players"));
        };
        // Colours swap in the rematch.
        let terms = GameTerms {
            variant: self.game.variant(),
            time_control: self.time_control,
            rated: self.rated,
        };
        let game_id = self.games.create_started(black, white, terms).await?;
        self.rematch_offer = None;
        self.rematch_game = Some(game_id);
        self.broadcast(&GameEvent::Rematch { game_id });
        Ok(())
    }

    fn presence(&mut self, viewer: Option<Uuid>, open: bool) {
        self.count_viewer(viewer, open);
        let watched = self.anonymous_viewers > 0 || !self.viewers.is_empty();
        if watched {
            self.unwatched_since = None;
        } else if self.unwatched_since.is_none() {
            self.unwatched_since = Some(self.now_ms());
        }
    }

    /// Counts a connection opening or closing, and tells the players when a seated player's
    /// last connection closes or the first one opens again.
    fn count_viewer(&mut self, viewer: Option<Uuid>, open: bool) {
        let Some(viewer) = viewer else {
            self.anonymous_viewers = if open {
                self.anonymous_viewers.saturating_add(1)
            } else {
                self.anonymous_viewers.saturating_sub(1)
            };
            return;
        };
        let count = self.viewers.entry(viewer).or_insert(0);
        *count = if open {
            count.saturating_add(1)
        } else {
            count.saturating_sub(1)
        };
        let now_connected = *count;
        if now_connected == 0 {
            self.viewers.remove(&viewer);
        }
        let Some(color) = self.seat_of(viewer) else {
            return;
        };
        if self.status != GameStatus::Active {
            return;
        }
        if open && now_connected == 1 {
            if self.gone_since[color.index()].take().is_some() {
                self.broadcast(&GameEvent::PlayerBack { color });
            }
        } else if !open && now_connected == 0 {
            self.gone_since[color.index()] = Some(self.now_ms());
            let delay = self.games.inner.settings.claim_delay(self.time_control);
            self.broadcast(&GameEvent::PlayerGone {
                color,
                claim_after_ms: delay.as_millis() as u64,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::tests::offline_games;
    use crate::game::GameSettings;

    fn actor(status: GameStatus, time_control: Option<TimeControl>) -> GameActor {
        let seat = |name: &str| Seat {
            user_id: Uuid::new_v4(),
            name: name.into(),
        };
        let creator = seat("alice");
        let seats = match status {
            GameStatus::Waiting => [None, None],
            _ => [Some(creator.clone()), Some(seat("bob"))],
        };
        let games = offline_games(GameSettings {
            hibernate_after: Duration::from_secs(300),
            ..GameSettings::default()
        });
        let terms = GameTerms {
            variant: Variant::Suicide,
            time_control,
            rated: false,
        };
        let game = AnyGame::start(Variant::Suicide).unwrap_or_else(|e| panic!("{e:?}"));
        GameActor::new(
            games,
            Uuid::new_v4(),
            game,
            creator,
            ColorChoice::White,
            seats,
            status,
            terms,
            None,
        )
    }

    #[tokio::test]
    async fn only_an_unwatched_game_without_a_running_timer_hibernates() {
        // An open challenge nobody watches: after the delay from its last command.
        let mut waiting = actor(GameStatus::Waiting, None);
        assert_eq!(waiting.hibernation_due_at(), Some(300_000));
        waiting.last_command_at = 1_000;
        assert_eq!(waiting.hibernation_due_at(), Some(301_000));
        // Not while someone is connected; after the delay from when the last one left.
        waiting.presence(None, true);
        assert_eq!(waiting.hibernation_due_at(), None);
        waiting.unwatched_since = Some(5_000);
        assert_eq!(waiting.hibernation_due_at(), Some(305_000));

        // A game without a clock, past the first moves.
        let mut untimed = actor(GameStatus::Active, None);
        assert!(untimed.hibernation_due_at().is_some());
        // Not while the first-move limit or a retry runs, nor once over.
        untimed.first_move_deadline = Some(30_000);
        assert_eq!(untimed.hibernation_due_at(), None);
        untimed.first_move_deadline = None;
        untimed.store_retry_at = Some(1_000);
        assert_eq!(untimed.hibernation_due_at(), None);
        untimed.store_retry_at = None;
        untimed.ended_at = Some(0);
        untimed.status = GameStatus::Finished;
        assert_eq!(untimed.hibernation_due_at(), None);

        // A game whose clock runs never does.
        let control = TimeControl {
            initial_ms: 60_000,
            increment_ms: 0,
        };
        let mut timed = actor(GameStatus::Active, Some(control));
        assert!(timed.hibernation_due_at().is_some(), "not started yet");
        if let Some(clock) = timed.clock.as_mut() {
            clock.start(Color::White, 0);
        }
        assert_eq!(timed.hibernation_due_at(), None);
    }
}
