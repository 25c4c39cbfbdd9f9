//! Fischer clocks as pure arithmetic: every method takes the current time as a number of
//! milliseconds on a monotonic scale chosen by the caller, so tests need no real time.
//!
//! The clock starts only once both sides have made their first move (as on lichess); until
//! then the game actor enforces a first-move deadline instead and may abort the game.

use crate::rules::Color;
pub use crate::wire::game::ClockView;

/// What each side starts with in a game of no minutes and an increment, if the increment is
/// less (see [`Clock::new`]).
pub const MIN_START_WITHOUT_MINUTES_MS: u64 = 3_000;

/// The longest initial time a game may have: three hours.
pub const MAX_INITIAL_MS: u64 = 180 * 60_000;
/// The longest increment: three minutes.
pub const MAX_INCREMENT_MS: u64 = 180_000;
/// The shortest initial time of a game that has one: a quarter of a minute, lichess's
/// shortest. A shorter clock (the API took 0.0001 minutes, 6 ms) is lost on time by
/// whoever moves first once it runs.
pub const MIN_INITIAL_MS: u64 = 15_000;
/// The shortest increment of a game with no initial time (lichess's `0+1`).
pub const MIN_INCREMENT_WITHOUT_INITIAL_MS: u64 = 1_000;

/// Initial time and increment, in milliseconds: the store's type, the one for every layer.
pub use crate::record::TimeControl;

impl TimeControl {
    /// The control, if it is one a game may be played with: an initial time of at least
    /// [`MIN_INITIAL_MS`], or none and an increment of at least
    /// [`MIN_INCREMENT_WITHOUT_INITIAL_MS`]; at most [`MAX_INITIAL_MS`] and
    /// [`MAX_INCREMENT_MS`]. The games API and the lobby both hold clocks to this rule.
    ///
    /// # Errors
    /// The rule it breaks, in words for people.
    pub fn checked(self) -> Result<TimeControl, String> {
        let minutes = |ms: u64| ms as f64 / 60_000.0;
        let seconds = |ms: u64| ms / 1000;
        if self.initial_ms > MAX_INITIAL_MS || self.increment_ms > MAX_INCREMENT_MS {
            return Err(format!(
                "a clock has at most {} minutes and an increment of at most {} seconds",
                minutes(MAX_INITIAL_MS),
                seconds(MAX_INCREMENT_MS)
            ));
        }
        let too_short = if self.initial_ms == 0 {
            self.increment_ms < MIN_INCREMENT_WITHOUT_INITIAL_MS
        } else {
            self.initial_ms < MIN_INITIAL_MS
        };
        if too_short {
            return Err(format!(
                "a clock starts with at least {} minutes ({} seconds), or with none and an \
                 increment of at least {} second",
                minutes(MIN_INITIAL_MS),
                seconds(MIN_INITIAL_MS),
                seconds(MIN_INCREMENT_WITHOUT_INITIAL_MS)
            ));
        }
        Ok(self)
    }
}

/// The remaining time of both sides and which one is running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    remaining_ms: [u64; 2],
    /// The side whose time is running and when its turn began; None while stopped.
    running: Option<(Color, u64)>,
}

impl Clock {
    /// A stopped clock with the full initial time on both sides. A control of no minutes and
    /// an increment (`0 2`) starts each side with the increment, but at least
    /// [`MIN_START_WITHOUT_MINUTES_MS`], as lichess does: with nothing on the clock, the first
    /// side to move once the clock runs would lose on time at once.
    pub fn new(control: TimeControl) -> Clock {
        let start_ms = if control.initial_ms == 0 {
            control.increment_ms.max(MIN_START_WITHOUT_MINUTES_MS)
        } else {
            control.initial_ms
        };
        Clock {
            control,
            remaining_ms: [start_ms; 2],
            running: None,
        }
    }

    /// A stopped clock with the given remaining times (used when a game is restored).
    pub fn with_remaining(control: TimeControl, white_ms: u64, black_ms: u64) -> Clock {
        Clock {
            control,
            remaining_ms: [white_ms, black_ms],
            running: None,
        }
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Whether a side's time is running.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Starts (or restarts) `side`'s time at `now_ms`.
    pub fn start(&mut self, side: Color, now_ms: u64) {
        self.running = Some((side, now_ms));
    }

    /// Stops the clock, charging the running side for the time used.
    pub fn stop(&mut self, now_ms: u64) {
        if let Some((side, since)) = self.running.take() {
            let used = now_ms.saturating_sub(since);
            let slot = &mut self.remaining_ms[side.index()];
            *slot = slot.saturating_sub(used);
        }
    }

    /// Gives `side` `ms` more (a gift of more time), running or not.
    pub fn add(&mut self, side: Color, ms: u64) {
        let slot = &mut self.remaining_ms[side.index()];
        *slot = slot.saturating_add(ms);
    }

    /// Remaining time of `side` at `now_ms`.
    pub fn remaining(&self, side: Color, now_ms: u64) -> u64 {
        let stored = self.remaining_ms[side.index()];
        match self.running {
            Some((running, since)) if running == side => {
                stored.saturating_sub(now_ms.saturating_sub(since))
            }
            _ => stored,
        }
    }

    /// When the running side's flag falls, on the caller's time scale.
    pub fn flag_deadline(&self) -> Option<(Color, u64)> {
        self.running
            .map(|(side, since)| (side, since + self.remaining_ms[side.index()]))
    }

    /// Whether `side` has run out of time at `now_ms`.
    pub fn is_flagged(&self, side: Color, now_ms: u64) -> bool {
        self.remaining(side, now_ms) == 0
    }

    /// Ends `mover`'s turn at `now_ms`: charges the time used, adds the increment, and starts
    /// the opponent's clock when `start_opponent` is set. Returns false (changing nothing) if
    /// the mover had already run out of time.
    pub fn complete_move(&mut self, mover: Color, now_ms: u64, start_opponent: bool) -> bool {
        if self.is_flagged(mover, now_ms) && self.is_running() {
            return false;
        }
        let was_running = self.is_running();
        self.stop(now_ms);
        if was_running {
            let slot = &mut self.remaining_ms[mover.index()];
            *slot = slot.saturating_add(self.control.increment_ms);
        }
        if start_opponent {
            self.start(mover.other(), now_ms);
        }
        true
    }

    /// The view sent to clients.
    pub fn view(&self, now_ms: u64) -> ClockView {
        ClockView {
            white_ms: self.remaining(Color::White, now_ms),
            black_ms: self.remaining(Color::Black, now_ms),
            running: self.running.map(|(side, _)| side),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_too_short_or_too_long_are_refused() {
        let control = |initial_ms, increment_ms| TimeControl {
            initial_ms,
            increment_ms,
        };
        for playable in [
            control(15_000, 0),
            control(0, 1_000),
            control(15_000, 2_000),
            control(180 * 60_000, 180_000),
            control(60_000, 0),
        ] {
            assert_eq!(playable.checked(), Ok(playable));
        }
        for refused in [
            control(0, 0),
            control(6, 0),
            control(14_999, 5_000),
            control(0, 999),
            control(180 * 60_000 + 1, 0),
            control(60_000, 180_001),
        ] {
            assert!(refused.checked().is_err(), "{refused:?}");
        }
    }

    const THREE_TWO: TimeControl = TimeControl {
        initial_ms: 180_000,
        increment_ms: 2_000,
    };

    #[test]
    fn a_stopped_clock_charges_nothing() {
        let clock = Clock::new(THREE_TWO);
        assert_eq!(clock.remaining(Color::White, 1_000_000), 180_000);
        assert_eq!(clock.flag_deadline(), None);
    }

    #[test]
    fn moves_charge_time_used_and_add_the_increment() {
        let mut clock = Clock::new(THREE_TWO);
        clock.start(Color::White, 1_000);
        assert_eq!(clock.remaining(Color::White, 11_000), 170_000);
        assert!(clock.complete_move(Color::White, 11_000, true));
        assert_eq!(clock.remaining(Color::White, 50_000), 172_000);
        assert_eq!(clock.remaining(Color::Black, 16_000), 175_000);
        assert_eq!(
            clock.flag_deadline(),
            Some((Color::Black, 11_000 + 180_000))
        );
    }

    #[test]
    fn no_increment_before_the_clock_runs() {
        let mut clock = Clock::new(THREE_TWO);
        assert!(clock.complete_move(Color::White, 5_000, false));
        assert_eq!(clock.remaining(Color::White, 5_000), 180_000);
        assert!(!clock.is_running());
    }

    #[test]
    fn a_flagged_side_cannot_complete_its_move() {
        let mut clock = Clock::new(THREE_TWO);
        clock.start(Color::Black, 0);
        assert!(clock.is_flagged(Color::Black, 180_000));
        assert!(!clock.complete_move(Color::Black, 180_001, true));
        assert_eq!(clock.view(180_001).black_ms, 0);
        assert_eq!(clock.view(180_001).running, Some(Color::Black));
    }

    #[test]
    fn a_clock_of_no_minutes_starts_each_side_with_the_increment_or_three_seconds() {
        for (increment_ms, start_ms) in [(1_000, 3_000), (3_000, 3_000), (10_000, 10_000)] {
            let mut clock = Clock::new(TimeControl {
                initial_ms: 0,
                increment_ms,
            });
            // Both first moves, then White's clock runs: not flagged at once.
            assert!(clock.complete_move(Color::White, 0, false));
            assert!(clock.complete_move(Color::Black, 0, true));
            assert_eq!(clock.remaining(Color::White, 0), start_ms);
            assert_eq!(clock.flag_deadline(), Some((Color::White, start_ms)));
            // Each move then adds the increment as usual.
            assert!(clock.complete_move(Color::White, 500, true));
            assert_eq!(
                clock.remaining(Color::White, 500),
                start_ms - 500 + increment_ms
            );
        }
    }

    #[test]
    fn restored_clocks_keep_their_times_and_start_stopped() {
        let clock = Clock::with_remaining(THREE_TWO, 1_234, 5_678);
        assert_eq!(
            clock.view(99_999),
            ClockView {
                white_ms: 1_234,
                black_ms: 5_678,
                running: None
            }
        );
    }
}
