//! [`Replay`]: a game rebuilt from its stored record, the one way every caller does it: a
//! game resumed after a restart or woken from hibernation, the replay page and the boards of
//! finished games, the analysis of a finished game, a takeback (from the moves in memory),
//! the PGN-like export ([`pgn`]) and Davey Drehs' dice record ([`dice`]).
//!
//! The rebuild is the rules engine's: the start position (or the variant's standard one), the
//! dice seeded with the game's seed when the variant rolls dice, then every stored action in
//! ply order. Which seed may be used is the caller's choice ([`Seed`]): a server rebuilding a
//! running dice game uses the stored seed (the positions then hold only the rolls already made,
//! which everyone has seen), a reader of a record only the revealed one.

pub mod dice;
pub mod pgn;

use crate::record::GameRecord;
use crate::rules::{ActionError, AnyGame, Outcome, Played, Snapshot, Variant};
use std::fmt;
use uuid::Uuid;

/// Which dice seed a replay may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seed {
    /// The stored seed, even while the game runs: for the server's own rebuilds, which never
    /// show the seed nor anything about the rolls to come.
    Stored,
    /// Only a seed the record reveals (the game is over): for what anyone may recompute.
    Revealed,
}

/// Why a stored game does not replay.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayError {
    /// The variant cannot be played here.
    VariantNotPlayable(Variant),
    /// The start position is not one of the variant's positions.
    BadSetup(String),
    /// A dice game whose seed is not at hand: not stored, or not revealed yet.
    NoSeed,
    /// A stored action the rules refuse.
    Action {
        ply: i32,
        machine: String,
        reason: ActionError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::VariantNotPlayable(variant) => {
                write!(f, "variant `{variant}` is not playable")
            }
            ReplayError::BadSetup(why) => write!(f, "stored start position: {why}"),
            ReplayError::NoSeed => f.write_str("a dice game without its seed"),
            ReplayError::Action {
                ply,
                machine,
                reason,
            } => write!(f, "stored action {ply} `{machine}`: {reason}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// A game's start: `start_position` (the variant's standard start when None), its dice
/// seeded with `seed` for game `game_id` when given.
///
/// # Errors
/// The variant cannot be played, or the position is not one of its positions.
pub fn start_game(
    variant: Variant,
    start_position: Option<&str>,
    seed: Option<[u8; 32]>,
    game_id: Uuid,
) -> Result<AnyGame, ReplayError> {
    let mut game = match start_position {
        Some(position) => AnyGame::from_position(variant, position)
            .map_err(|e| ReplayError::BadSetup(e.to_string()))?,
        None => AnyGame::start(variant).map_err(|e| {
            if e.0.is_playable() {
                ReplayError::BadSetup(e.to_string())
            } else {
                ReplayError::VariantNotPlayable(variant)
            }
        })?,
    };
    if let Some(seed) = seed {
        game.set_dice(seed, &game_id.to_string());
    }
    Ok(game)
}

/// A stored game to rebuild, with the seed it may use.
#[derive(Clone, Copy, Debug)]
pub struct Replay<'a> {
    record: &'a GameRecord,
    seed: Seed,
}

impl<'a> Replay<'a> {
    /// `record` to rebuild, using `seed`.
    pub fn new(record: &'a GameRecord, seed: Seed) -> Replay<'a> {
        Replay { record, seed }
    }

    /// The seed to roll with: None for a variant without dice.
    ///
    /// # Errors
    /// [`ReplayError::NoSeed`]: a dice game whose seed may not be used.
    fn dice_seed(&self) -> Result<Option<[u8; 32]>, ReplayError> {
        if !self.record.variant.has_dice() {
            return Ok(None);
        }
        let seed = match self.seed {
            Seed::Stored => self.record.dice_seed.as_deref(),
            Seed::Revealed => self.record.revealed_dice_seed(),
        };
        seed.and_then(|seed| seed.try_into().ok())
            .map(Some)
            .ok_or(ReplayError::NoSeed)
    }

    /// The game as it started.
    ///
    /// # Errors
    /// As [`start_game`], and [`ReplayError::NoSeed`].
    pub fn start(&self) -> Result<AnyGame, ReplayError> {
        let record = self.record;
        start_game(
            record.variant,
            record.start_position.as_deref(),
            self.dice_seed()?,
            record.game_id,
        )
    }

    /// The game played from its start through every stored action: `each` is called with
    /// the start (and None), then after every action with the action as played.
    ///
    /// # Errors
    /// As [`Replay::start`], and the first stored action the rules refuse.
    pub fn play_through(
        &self,
        mut each: impl FnMut(&AnyGame, Option<Played>),
    ) -> Result<AnyGame, ReplayError> {
        let mut game = self.start()?;
        each(&game, None);
        for action in &self.record.actions {
            let played = game
                .play(&action.machine)
                .map_err(|reason| ReplayError::Action {
                    ply: action.ply,
                    machine: action.machine.clone(),
                    reason,
                })?;
            each(&game, Some(played));
        }
        Ok(game)
    }

    /// The game after its last stored action.
    ///
    /// # Errors
    /// As [`Replay::play_through`].
    pub fn final_game(&self) -> Result<AnyGame, ReplayError> {
        self.play_through(|_, _| {})
    }

    /// Every position's rules snapshot: `[0]` the start, `[n]` the position after ply n.
    ///
    /// # Errors
    /// As [`Replay::play_through`].
    pub fn snapshots(&self) -> Result<Vec<Snapshot>, ReplayError> {
        let mut snapshots = Vec::with_capacity(self.record.actions.len() + 1);
        self.play_through(|game, _| snapshots.push(game.snapshot()))?;
        Ok(snapshots)
    }

    /// The outcome the rules reach by themselves at the end of the stored actions (a king
    /// taken, a repetition…), None when they reach none (the game ended by resignation, time,
    /// agreement, or runs on) or the game does not replay.
    pub fn rules_outcome(&self) -> Option<Outcome> {
        self.final_game().ok()?.outcome()
    }

    /// Both clocks as stored after the last action, or after the last takeback or gift of
    /// more time if that came later; None for a game without a clock or with no stored
    /// reading yet. An adjustment came after the last action exactly when its ply is at
    /// least the action's: a later action has a higher ply, and a later takeback removes the
    /// actions after its own ply.
    pub fn clock(&self) -> Option<(u64, u64)> {
        let record = self.record;
        let ms = |stored: Option<i64>| u64::try_from(stored.unwrap_or(0)).unwrap_or(0);
        let last_ply = record.actions.last().map_or(0, |a| a.ply);
        let adjusted = (record.adjustments.last()).filter(|a| a.ply >= last_ply);
        match (adjusted, record.actions.last()) {
            (Some(adjustment), _) if adjustment.white_ms.is_some() => {
                Some((ms(adjustment.white_ms), ms(adjustment.black_ms)))
            }
            (_, Some(last)) => Some((ms(last.white_ms), ms(last.black_ms))),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
