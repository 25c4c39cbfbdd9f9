//! The computer opponent in live games: its accounts (one per level, as lichess seats
//! "Stockfish level N"), how long it thinks for a move, and the search it asks of the
//! [`EnginePool`].
//!
//! The computer plays like a person: its own clock runs while it thinks, it learns nothing a
//! player would not (the dice seed stays hidden, see [`ComputerTurn`]), and its action goes
//! through the same checks and commit as anyone's. It thinks for at most its level's time,
//! less when its clock is short, and half as long when every engine thread is busy; since
//! its searches also stop at a wall-clock time, an engine thread starved of CPU by human
//! games simply searches less deep.

use super::Seat;
use crate::engine_pool::{EnginePool, PoolError};
use crate::engine_worker::Search;
use crate::play::state::ComputerTurn;
use oddboard_engine::{Cancel, Level};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

/// Never less thinking than this, however short the clock: enough for a shallow search.
const MIN_THINK_MS: u64 = 20;
/// Of the time left, the share the computer allows itself for one move: about forty moves
/// to go, as a player without an increment must reckon.
const MOVES_TO_GO: u64 = 40;

/// The computer's accounts, by level and by user id.
#[derive(Clone, Debug, Default)]
pub struct ComputerPlayers {
    by_level: Vec<Option<Seat>>,
    levels: HashMap<Uuid, Level>,
}

impl ComputerPlayers {
    /// From the store's `(user id, name, level)` rows.
    pub fn new(accounts: impl IntoIterator<Item = (Uuid, String, u8)>) -> ComputerPlayers {
        let mut players = ComputerPlayers {
            by_level: vec![None; usize::from(Level::MAX.number()) + 1],
            levels: HashMap::new(),
        };
        for (user_id, name, number) in accounts {
            let level = Level::new(number);
            if level.number() != number {
                continue;
            }
            players.by_level[usize::from(number)] = Some(Seat { user_id, name });
            players.levels.insert(user_id, level);
        }
        players
    }

    /// The account that plays at `level`, if the store has it.
    pub fn seat(&self, level: Level) -> Option<&Seat> {
        self.by_level.get(usize::from(level.number()))?.as_ref()
    }

    /// The level `user_id` plays at, if it is the computer.
    pub fn level_of(&self, user_id: Uuid) -> Option<Level> {
        self.levels.get(&user_id).copied()
    }

    pub fn is_computer(&self, user_id: Uuid) -> bool {
        self.levels.contains_key(&user_id)
    }

    /// Every computer account's id.
    pub fn ids(&self) -> impl Iterator<Item = Uuid> + '_ {
        self.levels.keys().copied()
    }
}

/// How long the computer at `level` thinks, given its clock (`(left, increment)` in ms) and
/// whether every engine thread is busy.
pub fn think_time(level: Level, clock: Option<(u64, u64)>, busy: bool) -> Duration {
    let own = level.limits().time.map_or(u64::MAX, |t| {
        u64::try_from(t.as_millis()).unwrap_or(u64::MAX)
    });
    let mut ms = own;
    if let Some((left, increment)) = clock {
        // A share of what is left plus most of the increment, and never more than a quarter
        // of what is left, so that the flag never falls while it thinks.
        let share = left / MOVES_TO_GO + increment * 3 / 4;
        ms = ms.min(share).min(left / 4);
    }
    if busy {
        ms /= 2;
    }
    Duration::from_millis(ms.max(MIN_THINK_MS).min(own))
}

/// Chooses the computer's action for `turn` at `level` on the pool, in machine notation.
/// None when it has no legal action (the game is over by then) or was cancelled before it
/// found one.
///
/// # Errors
/// The pool refused the search (full or closed).
pub async fn choose(
    pool: &EnginePool,
    level: Level,
    turn: ComputerTurn,
    seed: u64,
    cancel: Cancel,
) -> Result<Option<String>, PoolError> {
    if level.is_random() {
        // No search: a random choice costs nothing and needs no thread.
        return Ok(oddboard_engine::choose(level, &turn.game, seed));
    }
    let busy = pool.waiting() > 0;
    let think = think_time(level, turn.clock, busy);
    let search = Search::Move {
        variant: turn.game.variant(),
        position: turn.game.position(),
        level: level.number(),
        seed,
        think_ms: u64::try_from(think.as_millis()).unwrap_or(u64::MAX),
    };
    pool.best_move(search, cancel).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> u64 {
        u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
    }

    #[test]
    fn without_a_clock_a_level_takes_its_own_time() {
        for n in 1..=8 {
            let level = Level::new(n);
            let own = level.limits().time.map(ms);
            assert_eq!(Some(ms(think_time(level, None, false))), own, "level {n}");
        }
    }

    #[test]
    fn a_short_clock_means_less_thought_and_never_a_quarter_of_what_is_left() {
        let level = Level::MAX;
        let own = ms(think_time(level, None, false));
        let long = ms(think_time(level, Some((600_000, 0)), false));
        let short = ms(think_time(level, Some((20_000, 0)), false));
        let desperate = ms(think_time(level, Some((200, 0)), false));
        assert!(long <= own);
        assert!(short < long, "{short} < {long}");
        assert!(short <= 20_000 / 4);
        assert_eq!(desperate, MIN_THINK_MS);
        // An increment buys time back.
        assert!(ms(think_time(level, Some((20_000, 5_000)), false)) > short);
    }

    #[test]
    fn busy_threads_halve_the_thought() {
        let level = Level::new(6);
        let calm = ms(think_time(level, Some((300_000, 2_000)), false));
        let busy = ms(think_time(level, Some((300_000, 2_000)), true));
        assert_eq!(busy, (calm / 2).max(MIN_THINK_MS));
    }

    #[test]
    fn accounts_are_found_by_level_and_id() {
        let ids: Vec<Uuid> = (0..9).map(|_| Uuid::new_v4()).collect();
        let players = ComputerPlayers::new(
            ids.iter()
                .enumerate()
                .map(|(n, id)| (*id, format!("Computer-level-{n}"), n as u8))
                .chain([(Uuid::new_v4(), "Computer-level-9".into(), 9)]),
        );
        for (n, id) in ids.iter().enumerate() {
            let level = Level::new(n as u8);
            assert_eq!(players.seat(level).map(|s| s.user_id), Some(*id));
            assert_eq!(players.level_of(*id), Some(level));
        }
        // A level beyond the top is ignored rather than taken for the top.
        assert_eq!(players.ids().count(), 9);
        assert!(!players.is_computer(Uuid::new_v4()));
    }
}
