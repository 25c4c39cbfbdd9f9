//! Games between two levels, refereed by the rules: what the ladder (each level against the
//! one below) and the tests build on. A game that runs past its ply cap is scored a draw.
//! Davey Drehs' games get referee dice from the game's seed, which neither side sees.

use crate::{choose_within, Cancel, Level, Limits};
use oddboard_rules::{AnyGame, Color, UnsupportedVariant, Variant};

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
        let level = match game.turn() {
            Color::White => white,
            Color::Black => black,
        };
        let limits = rules.limits.unwrap_or_else(|| level.limits());
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

/// `games` games of `first` against `second`, `first` White in the even ones.
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
    let mut tally = Tally::default();
    for index in 0..games {
        let first_color = if index % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let (white, black) = match first_color {
            Color::White => (first, second),
            Color::Black => (second, first),
        };
        match play_game(variant, white, black, u64::from(index), rules)? {
            Some(winner) if winner == first_color => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => tally.draws += 1,
        }
    }
    Ok(tally)
}
