//! Games between two levels, refereed by the rules: what the ladder (each level against the
//! one below) and the tests build on. A game that runs past its ply cap is scored a draw.
//! Davey Drehs' games get referee dice from the game's seed, which neither side sees. The
//! levels play on their clock-free limits ([`Level::fixed_limits`]), so a match's result
//! depends only on its games' seeds: it is the same on any machine and with any number of
//! threads playing its games side by side.

use crate::{choose, choose_within, Cancel, Level, Limits};
use oddboard_rules::{AnyGame, Color, UnsupportedVariant, Variant};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Most threads a match plays its games on.
pub const MAX_THREADS: u32 = 64;

/// A match's result from the first level's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    /// Points scored, a win 1 and a draw ½, in half points.
    pub fn half_points(&self) -> u32 {
        2 * self.wins + self.draws
    }

    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
}

/// How each game of a match is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchRules {
    /// Each move's limits, in place of the levels' own (None: the levels' own).
    pub limits: Option<Limits>,
    /// Plies after which an unfinished game is a draw.
    pub max_plies: u32,
    /// Games played at once, each on its own thread (1 to [`MAX_THREADS`]).
    pub threads: u32,
    /// Random plies that open each game, the same for games `2k` and `2k + 1` (where the
    /// colours are swapped): without them two levels without noise play the same two games
    /// over and over.
    pub opening_plies: u32,
}

/// Plays one game from the start of `variant`; the winner, None for a draw or an unfinished
/// game.
///
/// # Errors
/// The variant is not playable in this build.
pub fn play_game(
    variant: Variant,
    white: Level,
    black: Level,
    seed: u64,
    rules: MatchRules,
) -> Result<Option<Color>, UnsupportedVariant> {
    let mut game = AnyGame::start(variant)?;
    let mut dice = [0u8; 32];
    dice[..8].copy_from_slice(&seed.to_le_bytes());
    game.set_dice(dice, "ladder");
    let cancel = Cancel::new();
    for ply in 0..rules.max_plies {
        if let Some(outcome) = game.outcome() {
            return Ok(outcome.winner);
        }
        if ply < rules.opening_plies {
            let Some(action) = choose(Level::MIN, &game, seed / 2 + u64::from(ply)) else {
                break;
            };
            if game.play(&action).is_err() {
                break;
            }
            continue;
        }
        let level = match game.turn() {
            Color::White => white,
            Color::Black => black,
        };
        let limits = rules.limits.unwrap_or_else(|| level.fixed_limits());
        let move_seed = seed.wrapping_mul(1_000_003).wrapping_add(u64::from(ply));
        let Some(action) = choose_within(level, &game, move_seed, &limits, &cancel) else {
            break;
        };
        if game.play(&action).is_err() {
            break;
        }
    }
    Ok(game.outcome().and_then(|o| o.winner))
}

/// `games` games of `first` against `second`, `first` White in the even ones, played on
/// `rules.threads` threads; game `i` has seed `i` whatever thread plays it.
///
/// # Errors
/// The variant is not playable in this build.
pub fn play_match(
    variant: Variant,
    first: Level,
    second: Level,
    games: u32,
    rules: MatchRules,
) -> Result<Tally, UnsupportedVariant> {
    AnyGame::start(variant)?;
    let next = AtomicU32::new(0);
    let tally = Mutex::new(Tally::default());
    let play = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= games {
                return;
            }
            let first_color = if index.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            };
            let (white, black) = match first_color {
                Color::White => (first, second),
                Color::Black => (second, first),
            };
            // The variant was started above: a game cannot fail to start.
            let winner = play_game(variant, white, black, u64::from(index), rules)
                .ok()
                .flatten();
            let mut tally = tally
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match winner {
                Some(winner) if winner == first_color => tally.wins += 1,
                Some(_) => tally.losses += 1,
                None => tally.draws += 1,
            }
        }
    };
    let threads = rules.threads.clamp(1, MAX_THREADS).min(games.max(1));
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(play);
        }
        play();
    });
    Ok(tally
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner()))
}
