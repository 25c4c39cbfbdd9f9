//! The game's timers: the join limit, the first-move limit, an open challenge's expiry, the
//! idle limit, the flag, the claim delay, lingering after the end, hibernation and store
//! retries; and which of them is due next.

use super::{GameState, Proposal, STORE_RETRY_MS};
use crate::clock::Clock;
use crate::record::GameStatus;
use crate::rules::{Color, EndReason, Outcome};
use std::time::Duration;

/// Milliseconds of a duration, saturating.
pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl GameState {
    /// Sets when an open challenge `age` old at `now` is withdrawn: `open_challenge_limit`
    /// after its creation.
    pub(super) fn set_challenge_expiry(&mut self, now: u64, age: Duration) {
        let limit = self.settings.open_challenge_limit;
        self.challenge_expires_at = Some(deadline_after(now, limit, age));
    }

    /// Sets when the player to move loses an active game without a clock as abandoned:
    /// `idle_limit` after the last action, which was `idle_for` before `now`. Not before both
    /// sides have moved (the first-move limit aborts such a game), nor in a game with a clock.
    pub(super) fn set_idle_deadline(&mut self, now: u64, idle_for: Duration) {
        self.idle_deadline = None;
        if self.status != GameStatus::Active || self.clock.is_some() || self.ply() < 2 {
            return;
        }
        let limit = self.settings.idle_limit;
        self.idle_deadline = Some(deadline_after(now, limit, idle_for));
    }

    /// The game was paired by the lobby for two players who were not on its page: unless
    /// each of them has opened it `within` from `now`, it is aborted then, instead of waiting
    /// out the first-move limit for someone who is gone (their lobby page was closed or lost
    /// its network after the pairing). A player who comes once counts as come, as does the
    /// computer. Only before both sides' first moves: a game under way is never aborted.
    pub fn expect_players(&mut self, now: u64, within: Duration) {
        if self.status == GameStatus::Active && self.ply() < 2 && self.missing_player() {
            self.join_deadline = Some(now.saturating_add(millis(within)));
        }
    }

    /// Whether a seat's player has not opened the game since it started.
    fn missing_player(&self) -> bool {
        Color::ALL
            .into_iter()
            .any(|c| !self.joined[c.index()] && !self.is_resident(c))
    }

    /// The join deadline while it still matters: an active game, a player still missing.
    fn pending_join_deadline(&self) -> Option<u64> {
        self.join_deadline
            .filter(|_| self.status == GameStatus::Active && self.missing_player())
    }

    /// Sets the first-move deadline or starts the clock, as the ply count requires.
    pub(super) fn resume_timers(&mut self, now: u64) {
        if self.ply() < 2 {
            self.first_move_deadline = Some(now + millis(self.settings.first_move_limit));
        } else {
            self.first_move_deadline = None;
            let turn = self.game.turn();
            if let Some(clock) = self.clock.as_mut() {
                clock.start(turn, now);
            }
        }
    }

    /// A command came at `now` (it keeps the game from hibernating for a while).
    pub fn command_received(&mut self, now: u64) {
        self.last_command_at = now;
    }

    /// The store failed to commit a change the game made on its own: try again later.
    pub fn retry_later(&mut self, now: u64) {
        self.retry_at = Some(now + STORE_RETRY_MS);
    }

    /// Whether a retry is pending and not yet due at `now`; once due, it is cleared.
    pub fn waiting_to_retry(&mut self, now: u64) -> bool {
        if self.retry_at.is_some_and(|t| now < t) {
            return true;
        }
        self.retry_at = None;
        false
    }

    /// Whether the game is over and has lingered long enough at `now`: its actor may stop.
    pub fn lingered(&self, now: u64) -> bool {
        self.ended_at
            .is_some_and(|ended| now >= self.linger_until(ended))
    }

    /// The end a passed deadline brings at `now`: an open challenge's expiry, the join limit
    /// or the first-move limit aborts, the idle limit loses the game for the player to move, a
    /// flag loses it on time.
    pub fn deadline_end(&self, now: u64) -> Option<Proposal> {
        if self.is_over() {
            return None;
        }
        let expired = self.status == GameStatus::Waiting
            && self.challenge_expires_at.is_some_and(|t| now >= t);
        let idle =
            self.status == GameStatus::Active && self.idle_deadline.is_some_and(|t| now >= t);
        let no_show = self.pending_join_deadline().is_some_and(|t| now >= t);
        if expired || no_show || self.first_move_deadline.is_some_and(|t| now >= t) {
            return self.propose_end(Outcome::draw(EndReason::Aborted), now, false);
        }
        if idle {
            // The player to move has let the game lie: they lose it, as on lichess.
            let winner = self.game.turn().other();
            return self.propose_end(Outcome::win(winner, EndReason::Abandoned), now, false);
        }
        if self.status != GameStatus::Active {
            return None;
        }
        match self.clock.as_ref().and_then(Clock::flag_deadline) {
            Some((side, flag_at)) if now >= flag_at => self.propose_flag(side, now, false),
            _ => None,
        }
    }

    /// `side` ran out of time: the opponent wins, unless it could never win (FICS's rule).
    pub(super) fn propose_flag(&self, side: Color, now: u64, mover: bool) -> Option<Proposal> {
        let winner = side.other();
        let outcome = if self.game.can_win(winner) {
            Outcome::win(winner, EndReason::Timeout)
        } else {
            Outcome::draw(EndReason::TimeoutVsInsufficient)
        };
        self.propose_end(outcome, now, mover)
    }

    /// The earliest moment something must happen without a command arriving.
    pub fn next_deadline(&self) -> Option<u64> {
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
            self.pending_join_deadline(),
            self.first_move_deadline,
            expiry,
            idle,
            hibernate,
        ]
        .into_iter()
        .flatten()
        .min();
        // A pending retry is the moment to wake: a deadline due before it waits for it (the
        // actor retries first), and one due after it must not hold it up (waking at the
        // later of the two left a refused forced pass unplayed until the first-move limit
        // or the passer's own flag).
        match self.retry_at {
            Some(retry) if self.ended_at.is_none() => Some(retry),
            _ => due,
        }
    }

    /// When the game hibernates unless a command or a viewer comes first: never while
    /// anything in it is timed more closely than the store can time it (a running clock, the
    /// first-move limit, a retry), nor while anyone is connected, nor once it is over (its
    /// actor lingers, then stops). An open challenge's expiry and the idle limit of a game
    /// without a clock are days away: the housekeeping task wakes the game when they pass
    /// (the server's `game::housekeeping`). What only memory holds lapses: an unanswered draw
    /// offer, and the claim delay against an absent player starts again when the game wakes.
    pub fn hibernation_due_at(&self) -> Option<u64> {
        let timed = self.first_move_deadline.is_some()
            || self.retry_at.is_some()
            || self.clock.as_ref().is_some_and(Clock::is_running);
        let in_progress = matches!(self.status, GameStatus::Waiting | GameStatus::Active);
        if timed || !in_progress || self.ended_at.is_some() {
            return None;
        }
        let unwatched_since = self.unwatched_since?;
        let idle_since = unwatched_since.max(self.last_command_at);
        Some(idle_since.saturating_add(millis(self.settings.hibernate_after)))
    }

    /// When the actor of a game that ended at `ended` stops: `linger_after_end` after the
    /// end, or `linger_unwatched` after the end or the last viewer leaving if that is sooner.
    fn linger_until(&self, ended: u64) -> u64 {
        let settings = &self.settings;
        let cap = ended.saturating_add(millis(settings.linger_after_end));
        match self.unwatched_since {
            Some(since) => cap.min(
                since
                    .max(ended)
                    .saturating_add(millis(settings.linger_unwatched)),
            ),
            None => cap,
        }
    }

    /// The claim delay against an absent player, in milliseconds.
    pub(super) fn claim_delay_ms(&self) -> u64 {
        millis(self.settings.claim_delay(self.time_control))
    }

    /// When a claim against the player in `color`'s seat is allowed: the claim delay after
    /// their last connection closed (None while they are connected).
    pub(super) fn claim_allowed_at(&self, color: Color) -> Option<u64> {
        let delay = self.claim_delay_ms();
        self.gone_since[color.index()].map(|since| since + delay)
    }
}

/// The moment when `limit` has passed since something that happened `elapsed` before `now`.
fn deadline_after(now: u64, limit: Duration, elapsed: Duration) -> u64 {
    now.saturating_add(millis(limit.saturating_sub(elapsed)))
}
