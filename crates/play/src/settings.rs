//! The limits that shape every game ([`GameSettings`]).

use super::clock::TimeControl;
use std::time::Duration;

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
    /// How long a game nobody is connected to, and whose clock does not run (an open
    /// challenge, or a game without a clock), stays in memory after its last command before
    /// it hibernates: its actor stops, and the next request for it brings it back from the
    /// store (the server's `Games::find`). A correspondence-style game lies idle for days; in memory it
    /// held about 45 KiB all that time.
    pub hibernate_after: Duration,
    /// How often the housekeeping task runs (the server's `game::housekeeping`): it wakes the hibernated
    /// games whose expiry or idle limit has passed, so that they end as they would have in
    /// memory, and purges expired sessions and stale guest accounts.
    pub housekeeping_interval: Duration,
    /// How old a guest account must be before it may be purged (if no session of it is
    /// still valid and it never finished a game; see the store's `delete_stale_guests`).
    pub guest_purge_age: Duration,
    /// The most games one account may have in progress at once: active games it plays and
    /// open challenges it created (`too_many_games_in_progress`). Enough for a bot to fill a
    /// multiplexed socket (the server's `web::mux::MAX_WATCHED`, 256) and start its next games
    /// beside them; what it bounds is one account's share of the server's memory and
    /// PostgreSQL rows.
    pub max_games_in_progress: usize,
    /// Worker processes (or threads) of the engine pool (the server's `engine_pool`) that
    /// every search runs on (the computer's moves, analyses): by default one per core, since
    /// they take only idle CPU.
    pub engine_threads: usize,
    /// The program whose `engine-worker` command the engine pool runs its searches in: the
    /// server's own binary. None: threads of the server's own process, which only a program
    /// without that binary uses (the server's unit tests).
    pub engine_worker: Option<std::path::PathBuf>,
    /// Searches that may wait for an engine thread before more are refused.
    pub engine_queue: usize,
    /// The most games the computer plays at once, all levels together: what bounds the
    /// engine's work (each game has at most one search running or waiting).
    pub max_computer_games: usize,
    /// The most games against the computer one account may have in progress, so that one
    /// person cannot take every place above.
    pub max_computer_games_per_player: usize,
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
            hibernate_after: Duration::from_secs(5 * 60),
            housekeeping_interval: Duration::from_secs(60),
            guest_purge_age: Duration::from_secs(7 * 24 * 60 * 60),
            max_games_in_progress: 300,
            engine_threads: std::thread::available_parallelism().map_or(1, usize::from),
            engine_worker: None,
            engine_queue: 256,
            max_computer_games: 256,
            max_computer_games_per_player: 5,
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
