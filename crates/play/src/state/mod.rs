//! One game as plain state: rules, seats, clock, offers, claims, presence and the event log,
//! with every rule about them, and no task, store or wall clock.
//!
//! Every input takes the current time as milliseconds on the actor's scale (see
//! the server's `game::actor`) and returns a decision for the actor to carry out:
//! [`Effects`] (messages to broadcast, notices for the registry) for what only memory holds,
//! or a [`Proposal`], a change to commit first and then [`GameState::adopt`], for what the
//! store must hold before anyone is told. A proposal changes nothing until it is adopted, so a
//! failed commit leaves the game as it was. [`GameState::next_deadline`] is the timer to arm.
//!
//! The wall clock that stamps a stored start, end or chat line (`started_at`, `ended_at`,
//! a line's time) is the [`WallClock`] the server passes in; nothing is decided by it.

mod chat;
mod offers;
mod play;
mod resident;
mod spectators;
mod takeback;
mod timers;
mod view;

#[cfg(test)]
mod tests;

pub use crate::wire::game::{GameView, MoveView, SeatTimes};
pub use chat::{
    ChatDraft, ChatRefusal, ChatRooms, CHAT_BURST, CHAT_LINES_KEPT, CHAT_LINES_STORED,
    CHAT_MAX_CHARS, CHAT_WINDOW_MS,
};
pub use resident::ComputerTurn;
pub use spectators::SPECTATORS_EVERY_MS;
pub use takeback::{TakenBack, MORE_TIME_MS};

use super::clock::{Clock, TimeControl};
use super::event::{EventLog, GameEvent};
use super::{GameNotice, GameSettings, GameTerms, Seat, WallClock};
use crate::record::{ColorChoice, GameChange, GameRecord, GameStatus};
use crate::replay::{Replay, Seed};
use crate::rules::snapshot::PlacedPiece;
use crate::rules::{AnyGame, Color, Outcome, Snapshot};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Events a finished game keeps for reconnecting clients (the end and the action before it);
/// anyone further behind gets a snapshot.
const EVENTS_KEPT_AFTER_END: usize = 2;

/// How far apart the event logs of a game's lives start: a game resumed after its n-th
/// restart numbers its events from n × this. Versions are counted in memory, so without it a
/// client reconnecting with a version from before the restart would be sent only what follows
/// that number in the new log, and miss what was played in between; with it, the old version
/// is older than anything the new log holds and the client gets a full snapshot. A billion
/// events is more than any one life of a game holds, and the versions stay exact in a
/// JavaScript number for millions of restarts.
const RESTART_VERSION_STRIDE: u64 = 1_000_000_000;

/// How long to wait before trying again a change the game makes on its own (an end by the
/// clock or the first-move limit, a forced action) after the store failed to commit it: the
/// state stays as it was meanwhile, and retrying at once would hammer a failing database.
pub const STORE_RETRY_MS: u64 = 1_000;

/// The dice seed of a game whose variant rolls dice, and its public commitment.
#[derive(Clone, Debug)]
pub struct DiceSecret {
    pub seed: [u8; 32],
    pub commitment: String,
}

impl DiceSecret {
    /// The secret for a dice variant from `seed` (fresh random bytes the caller drew), None
    /// for the other variants.
    pub fn for_variant(variant: crate::rules::Variant, seed: [u8; 32]) -> Option<DiceSecret> {
        if !variant.has_dice() {
            return None;
        }
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

/// What the actor must do after the state changed in memory.
#[derive(Debug, Default)]
pub struct Effects {
    /// Messages for every connection, in order (already in the event log).
    pub broadcast: Vec<Arc<str>>,
    /// For the registry's listener (the lobby).
    pub notices: Vec<GameNotice>,
    /// Players for whom this game no longer counts as in progress.
    pub released_places: Vec<Uuid>,
    /// The creator whose open challenge this game no longer is.
    pub challenge_closed: Option<Uuid>,
    /// How the count of games in progress changed (+1 started, -1 ended).
    pub in_progress_delta: i64,
}

impl Effects {
    fn absorb(&mut self, later: Effects) {
        self.broadcast.extend(later.broadcast);
        self.notices.extend(later.notices);
        self.released_places.extend(later.released_places);
        self.challenge_closed = self.challenge_closed.or(later.challenge_closed);
        self.in_progress_delta += later.in_progress_delta;
    }
}

/// A change to commit, and what the game becomes once it is committed.
#[derive(Debug)]
pub struct Proposal {
    pub change: GameChange,
    pub adoption: Adoption,
}

/// What [`GameState::adopt`] takes in once a [`Proposal`]'s change is committed.
#[derive(Debug)]
pub enum Adoption {
    /// Both seats are taken.
    Start { seats: [Option<Seat>; 2] },
    /// An action, with the end it brings if it ends the game.
    Action(Box<PlayedAction>),
    /// The game ends without an action. `flagged_mover`: it is the flag of the side that
    /// tried to act, whose action is refused once the end is stored.
    End {
        outcome: Outcome,
        flagged_mover: bool,
        at: u64,
    },
    /// The last actions are taken back.
    Takeback(Box<TakenBack>),
    /// `by` gave `to` more time: the clock after it.
    MoreTime {
        by: Color,
        to: Color,
        ms: u64,
        clock: Clock,
    },
}

/// An action played on copies of the game and the clock, waiting for its commit.
#[derive(Debug)]
pub struct PlayedAction {
    game: AnyGame,
    clock: Option<Clock>,
    rules: Snapshot,
    pub ply: u32,
    pub machine: String,
    human: String,
    color: Color,
    forced: bool,
    /// When it was played (the first-move limit and an end count from here).
    at: u64,
}

/// What a player's request leads to.
#[derive(Debug)]
pub enum Decision {
    /// Done in memory (an offer, a decline).
    Done(Effects),
    /// To commit, then adopt.
    Commit(Proposal),
    /// A rematch was agreed: the actor creates the game (colours already swapped), then
    /// tells [`GameState::rematch_started`].
    Rematch {
        white: Seat,
        black: Seat,
        terms: GameTerms,
    },
}

/// One live game's whole state.
#[derive(Debug)]
pub struct GameState {
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
    moves: Vec<MoveView>,
    log: EventLog,
    draw_offer: Option<Color>,
    rematch_offer: Option<Color>,
    rematch_game: Option<Uuid>,
    /// The side whose takeback offer stands (memory only, like a draw offer).
    takeback_offer: Option<Color>,
    /// The position the game started from, when not the variant's standard start: a
    /// takeback rebuilds the game from it.
    start_position: Option<Box<str>>,
    /// Open connections per signed-in viewer, and of anonymous viewers.
    viewers: HashMap<Uuid, u32>,
    anonymous_viewers: u32,
    /// When each seat's last connection closed.
    gone_since: [Option<u64>; 2],
    /// Whether each seat's player has had a connection to the game since it started.
    joined: [bool; 2],
    /// When the game is aborted if a player has still not come ([`GameState::expect_players`]).
    join_deadline: Option<u64>,
    first_move_deadline: Option<u64>,
    /// When an open challenge nobody has accepted is withdrawn (only while waiting).
    challenge_expires_at: Option<u64>,
    /// When the player to move in an active game without a clock loses it as abandoned,
    /// unless an action comes first (see [`GameSettings::idle_limit`]).
    idle_deadline: Option<u64>,
    /// Not before when to retry a change of the game's own that the store failed to commit
    /// (see [`STORE_RETRY_MS`]); deadlines wait for it.
    retry_at: Option<u64>,
    ended_at: Option<u64>,
    /// Since when nobody has been connected (None while someone is).
    unwatched_since: Option<u64>,
    /// When the last command came: a game hibernates [`GameSettings::hibernate_after`] after
    /// it and after the last viewer left.
    last_command_at: u64,
    dice: Option<DiceSecret>,
    /// The computer's account, when it holds a seat ([`GameState::set_resident`]).
    resident: Option<Uuid>,
    /// The chat's last lines and its writers' rates (`chat.rs`).
    chat: ChatRooms,
    /// The spectator count last sent, and when the next is due (`spectators.rs`).
    spectator_notice: spectators::SpectatorNotice,
    settings: Arc<GameSettings>,
    /// Where the times the game records (start, end, chat lines) come from.
    wall_clock: WallClock,
}

/// Who a new game's state is for.
#[derive(Clone, Debug)]
pub struct Founding {
    pub id: Uuid,
    pub creator: Seat,
    pub color_choice: ColorChoice,
    pub seats: [Option<Seat>; 2],
    pub status: GameStatus,
    pub terms: GameTerms,
    pub dice: Option<DiceSecret>,
}

impl GameState {
    /// A game as founded, at time 0, before any action.
    ///
    /// # Errors
    /// The variant cannot be played, or `start_position` is not one of its positions.
    pub fn new(
        founding: Founding,
        start_position: Option<&str>,
        settings: Arc<GameSettings>,
        wall_clock: WallClock,
    ) -> Result<GameState, super::Refusal> {
        let game = founded_game(
            founding.terms.variant,
            start_position,
            founding.dice.as_ref(),
            founding.id,
        )?;
        let pieces = game.snapshot().pieces;
        Ok(GameState {
            id: founding.id,
            game,
            pieces,
            creator: founding.creator,
            color_choice: founding.color_choice,
            seats: founding.seats,
            status: founding.status,
            outcome: None,
            time_control: founding.terms.time_control,
            rated: founding.terms.rated,
            clock: founding.terms.time_control.map(Clock::new),
            moves: Vec::new(),
            log: EventLog::default(),
            draw_offer: None,
            rematch_offer: None,
            rematch_game: None,
            takeback_offer: None,
            start_position: start_position.map(Box::from),
            viewers: HashMap::new(),
            anonymous_viewers: 0,
            gone_since: [None, None],
            joined: [false, false],
            join_deadline: None,
            first_move_deadline: None,
            challenge_expires_at: None,
            idle_deadline: None,
            retry_at: None,
            ended_at: None,
            unwatched_since: Some(0),
            last_command_at: 0,
            dice: founding.dice,
            resident: None,
            chat: ChatRooms::new(),
            spectator_notice: spectators::SpectatorNotice::default(),
            settings,
            wall_clock,
        })
    }

    /// A new open challenge at time 0: it expires `open_challenge_limit` from now.
    ///
    /// # Errors
    /// As [`GameState::new`].
    pub fn open(
        founding: Founding,
        settings: Arc<GameSettings>,
        wall_clock: WallClock,
    ) -> Result<GameState, super::Refusal> {
        let mut state = GameState::new(founding, None, settings, wall_clock)?;
        state.set_challenge_expiry(0, Duration::ZERO);
        Ok(state)
    }

    /// A game loaded from the store at `now`, its actions replayed. `age` is how long ago it
    /// was created and `idle_for` how long ago its last action was stored (by the wall
    /// clock, which runs on while the server is down).
    ///
    /// # Errors
    /// The record's position or an action does not replay.
    pub fn restore(
        record: &GameRecord,
        settings: Arc<GameSettings>,
        wall_clock: WallClock,
        now: u64,
        age: Duration,
        idle_for: Duration,
    ) -> Result<GameState, super::Refusal> {
        let mut state = GameState::new(
            founding_of(record),
            record.start_position.as_deref(),
            settings,
            wall_clock,
        )?;
        let mut moves = Vec::with_capacity(record.actions.len());
        state.game = Replay::new(record, Seed::Stored).play_through(|_, played| {
            if let Some(played) = played {
                moves.push(MoveView {
                    ply: u32::try_from(moves.len() + 1).unwrap_or(u32::MAX),
                    machine: played.machine,
                    human: played.human,
                });
            }
        })?;
        state.moves = moves;
        state.pieces = state.game.snapshot().pieces;
        // The clock resumes from the readings stored with the last action, or with a later
        // takeback or gift of more time; the time the server was down is not charged to
        // anyone: the side to move starts afresh now.
        if let (Some(clock), Some((white_ms, black_ms))) = (
            state.clock.as_mut(),
            Replay::new(record, Seed::Stored).clock(),
        ) {
            *clock = Clock::with_remaining(clock.control(), white_ms, black_ms);
        }
        // Past every version the game's earlier logs handed out (see RESTART_VERSION_STRIDE).
        state.log = EventLog::starting_at(u64::from(record.restarts) * RESTART_VERSION_STRIDE);
        state.last_command_at = now;
        state.unwatched_since = Some(now);
        // Its actor reads the stored chat ([`GameState::load_chat`]).
        state.chat = ChatRooms::unread();
        match state.status {
            // An open challenge expires as long after its creation as if the server had
            // never stopped.
            GameStatus::Waiting => state.set_challenge_expiry(now, age),
            GameStatus::Active => {
                state.resume_timers(now);
                // Nobody is connected yet after a restart; the claim delay starts now.
                state.gone_since = [Some(now), Some(now)];
                // (The computer, if seated, is marked present again by the actor.)
                // Unlike a clock, the idle limit measures how long the players have stayed
                // away, so the time the server was down counts.
                state.set_idle_deadline(now, idle_for);
            }
            _ => {}
        }
        Ok(state)
    }

    pub fn id(&self) -> Uuid {
        self.id
    }

    pub fn status(&self) -> GameStatus {
        self.status
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn is_over(&self) -> bool {
        matches!(self.status, GameStatus::Finished | GameStatus::Aborted)
    }

    /// Plies played so far.
    pub fn ply(&self) -> u32 {
        u32::try_from(self.moves.len()).unwrap_or(u32::MAX)
    }

    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    pub fn draw_offer(&self) -> Option<Color> {
        self.draw_offer
    }

    pub fn rematch_offer(&self) -> Option<Color> {
        self.rematch_offer
    }

    pub fn takeback_offer(&self) -> Option<Color> {
        self.takeback_offer
    }

    pub fn rated(&self) -> bool {
        self.rated
    }

    /// The creator and the seated players: everyone whose place this game may hold.
    pub fn players(&self) -> Vec<Uuid> {
        (self.seats.iter().flatten())
            .chain([&self.creator])
            .map(|s| s.user_id)
            .collect()
    }

    pub fn seat_of(&self, user_id: Uuid) -> Option<Color> {
        Color::ALL.into_iter().find(|c| {
            self.seats[c.index()]
                .as_ref()
                .is_some_and(|s| s.user_id == user_id)
        })
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

    fn terms(&self) -> GameTerms {
        GameTerms {
            variant: self.game.variant(),
            time_control: self.time_control,
            rated: self.rated,
        }
    }

    /// Logs an event and queues its message for broadcast.
    fn announce(&mut self, effects: &mut Effects, event: &GameEvent) {
        effects.broadcast.push(self.log.push(event));
    }

    /// The messages that bring a connection up to date: what it missed since version
    /// `since` if the log still holds it, a snapshot for `viewer` otherwise.
    pub fn catch_up(&self, viewer: Option<Uuid>, since: Option<u64>, now: u64) -> Vec<Arc<str>> {
        match since.and_then(|v| self.log.since(v)) {
            Some(missed) => missed,
            None => vec![view::snapshot_message(
                self.log.version(),
                self.view(viewer, now),
            )],
        }
    }
}

/// The game as founded: the variant's start or `start_position`, with the dice seed.
fn founded_game(
    variant: crate::rules::Variant,
    start_position: Option<&str>,
    dice: Option<&DiceSecret>,
    id: Uuid,
) -> Result<AnyGame, super::Refusal> {
    Ok(crate::replay::start_game(
        variant,
        start_position,
        dice.map(|secret| secret.seed),
        id,
    )?)
}

/// The founding facts of a stored game.
fn founding_of(record: &GameRecord) -> Founding {
    let seat = |id: Option<Uuid>, name: &Option<String>| {
        id.map(|user_id| Seat {
            user_id,
            name: name.clone().unwrap_or_default(),
        })
    };
    let dice = record
        .dice_seed
        .as_deref()
        .and_then(|seed| DiceSecret::from_stored(seed, record.dice_commitment.as_deref()));
    Founding {
        id: record.game_id,
        // An open challenge's creator has no seat yet, so the name comes with the record.
        creator: Seat {
            user_id: record.creator_id,
            name: record.creator_name.clone(),
        },
        color_choice: record.color_choice,
        seats: [
            seat(record.white_id, &record.white_name),
            seat(record.black_id, &record.black_name),
        ],
        status: record.status,
        terms: GameTerms {
            variant: record.variant,
            time_control: record.clock,
            rated: record.rated,
        },
        dice,
    }
}

/// The wall clock of the state's unit tests: a fixed time, so that what a game records is the
/// same on every run.
#[cfg(test)]
pub(crate) fn test_wall_clock() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::UNIX_EPOCH + chrono::TimeDelta::days(20_000)
}
