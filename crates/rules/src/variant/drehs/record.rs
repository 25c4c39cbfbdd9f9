//! Game record files: a finished game of Davey Drehs with its revealed seed and every roll, and
//! the check that anyone can run on one (`oddboard rules verify-dice <file>`).
//!
//! The format is JSON (described with examples in `docs/rules/drehs.md`):
//!
//! ```json
//! { "variant": "drehs", "game_id": "g1", "commitment": "<hex SHA-256 of the seed>",
//!   "seed": "<64 hex digits>", "start_position": "<position notation>",
//!   "actions": [ { "action": "e2e4", "rolls": [] },
//!                { "action": "d1xd7", "human": "Qd1xd7",
//!                  "rolls": [ { "index": 0, "purpose": "to_hit", "dice": "d20", "value": 14 } ],
//!                  "effects": [ "hit: …" ] } ],
//!   "result": "1-0", "reason": "king_killed" }
//! ```
//!
//! `human`, `effects`, `result` and `reason` are for people; verification recomputes them
//! and checks `result` and `reason` when they are present.

use super::Drehs;
use crate::dice::{self, RollRecord};
use crate::{Rules, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A Davey Drehs game record file (`oddboard rules verify-dice`): a finished (or unfinished)
/// game with everything needed to check its dice. Not the store's `GameRecord`, a game as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceRecord {
    pub variant: Variant,
    pub game_id: String,
    /// Hex SHA-256 of the seed, published when the game started.
    pub commitment: String,
    /// The seed, 64 hex digits, revealed when the game ended.
    pub seed: String,
    /// The position the game started from, in Davey Drehs' position notation.
    pub start_position: String,
    pub actions: Vec<RecordedAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One action of a record with the dice it rolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedAction {
    /// The action in machine notation.
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<String>,
    /// Every die the action rolled, in order.
    #[serde(default)]
    pub rolls: Vec<RollRecord>,
    /// What the action did, one readable line each (informational).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<String>,
}

/// Why a record does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The record cannot be read as one: bad seed text, unknown start position, no dice.
    Malformed(String),
    /// The record is readable but wrong: the first thing that does not match.
    Mismatch(String),
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Malformed(m) => write!(f, "malformed record: {m}"),
            VerifyError::Mismatch(m) => write!(f, "mismatch: {m}"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Why a game could not be recorded: a bad start position, or an action (numbered from 1)
/// that does not parse or is not legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError(pub String);

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RecordError {}

/// What a successful verification found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub actions: usize,
    pub rolls: usize,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The end reason id, or `ongoing`.
    pub reason: String,
    /// One line per action: number, action and its dice (`#index purpose dN=value`).
    pub lines: Vec<String>,
}

fn result_strings(game: &Drehs) -> (String, String) {
    match game.outcome() {
        Some(o) => (o.result_str().to_string(), o.reason.as_str().to_string()),
        None => ("*".to_string(), "ongoing".to_string()),
    }
}

fn describe_roll(roll: &RollRecord) -> String {
    format!(
        "#{} {} {}={}",
        roll.index, roll.purpose, roll.dice, roll.value
    )
}

/// Plays `actions` from `start_position` (the start position when None) with the given dice
/// and writes the record the server exports: at the end of a game it needs only the seed, the
/// game id, the start position and the actions it stored.
///
/// # Errors
/// A bad start position, or an action that does not parse or is not legal (its number, from 1,
/// and why).
pub fn record_game(
    seed: [u8; 32],
    game_id: &str,
    start_position: Option<&str>,
    actions: &[String],
) -> Result<DiceRecord, RecordError> {
    let mut game = match start_position {
        Some(text) => Drehs::from_position(text).map_err(|e| RecordError(e.to_string()))?,
        None => Drehs::start(),
    };
    game.set_dice(seed, game_id);
    let start = game.position();
    let mut recorded = Vec::new();
    for (number, text) in actions.iter().enumerate() {
        let action = game
            .parse_action(text)
            .map_err(|e| RecordError(format!("action {} `{text}`: {e}", number + 1)))?;
        let human = game.action_to_human(&action);
        game.apply(&action)
            .map_err(|e| RecordError(format!("action {} `{text}` refused: {e}", number + 1)))?;
        recorded.push(RecordedAction {
            action: game.action_to_machine(&action),
            human: Some(human),
            rolls: game.last_roll_records(),
            effects: game.last_effects().to_vec(),
        });
    }
    let (result, reason) = result_strings(&game);
    Ok(DiceRecord {
        variant: Variant::Drehs,
        game_id: game_id.to_string(),
        commitment: dice::commitment(&seed),
        seed: hex::encode(seed),
        start_position: start,
        actions: recorded,
        result: Some(result),
        reason: Some(reason),
    })
}

/// Checks a record: the seed against the commitment, then a replay of every action from the
/// start position with the revealed seed, comparing each die with the recorded one (index,
/// purpose, die and face), and the result if the record states one.
///
/// # Errors
/// [`VerifyError::Malformed`] when the record cannot be replayed at all,
/// [`VerifyError::Mismatch`] naming the first thing that differs.
pub fn verify(record: &DiceRecord) -> Result<Verified, VerifyError> {
    if !record.variant.has_dice() {
        return Err(VerifyError::Malformed(format!(
            "variant `{}` rolls no dice",
            record.variant
        )));
    }
    let seed = dice::parse_seed(&record.seed).map_err(|e| VerifyError::Malformed(e.to_string()))?;
    if !dice::matches_commitment(&seed, &record.commitment) {
        return Err(VerifyError::Mismatch(format!(
            "SHA-256 of the seed is {}, not the commitment {}",
            dice::commitment(&seed),
            record.commitment
        )));
    }
    let mut game = Drehs::from_position(&record.start_position)
        .map_err(|e| VerifyError::Malformed(format!("start position: {e}")))?;
    game.set_dice(seed, &record.game_id);
    let mut lines = Vec::new();
    let mut roll_count = 0;
    for (number, recorded) in record.actions.iter().enumerate() {
        let label = format!("action {} `{}`", number + 1, recorded.action);
        let action = game
            .parse_action(&recorded.action)
            .map_err(|e| VerifyError::Mismatch(format!("{label}: {e}")))?;
        game.apply(&action)
            .map_err(|e| VerifyError::Mismatch(format!("{label} is not legal: {e}")))?;
        let replayed = game.last_roll_records();
        compare_rolls(&label, &recorded.rolls, &replayed)?;
        roll_count += replayed.len();
        let dice: Vec<String> = replayed.iter().map(describe_roll).collect();
        lines.push(
            format!("{}. {} {}", number + 1, recorded.action, dice.join(" "))
                .trim_end()
                .to_string(),
        );
    }
    let (result, reason) = result_strings(&game);
    check_stated(record.result.as_deref(), "result", &result)?;
    check_stated(record.reason.as_deref(), "reason", &reason)?;
    Ok(Verified {
        actions: record.actions.len(),
        rolls: roll_count,
        result,
        reason,
        lines,
    })
}

/// Compares one action's recorded rolls with the replay's, die by die.
fn compare_rolls(
    label: &str,
    recorded: &[RollRecord],
    replayed: &[RollRecord],
) -> Result<(), VerifyError> {
    for (k, expected) in replayed.iter().enumerate() {
        match recorded.get(k) {
            Some(stored) if stored == expected => {}
            Some(stored) => {
                return Err(VerifyError::Mismatch(format!(
                    "{label}, roll {}: recorded {}, the seed gives {}",
                    k + 1,
                    describe_roll(stored),
                    describe_roll(expected)
                )))
            }
            None => {
                return Err(VerifyError::Mismatch(format!(
                    "{label}: recorded {} rolls, the replay rolls {} (next: {})",
                    recorded.len(),
                    replayed.len(),
                    describe_roll(expected)
                )))
            }
        }
    }
    if let Some(extra) = recorded.get(replayed.len()) {
        return Err(VerifyError::Mismatch(format!(
            "{label}: recorded {} rolls, the replay rolls only {} (extra: {})",
            recorded.len(),
            replayed.len(),
            describe_roll(extra)
        )));
    }
    Ok(())
}

/// A result or reason the record states (if it states one) must be the replay's.
fn check_stated(stated: Option<&str>, field: &str, actual: &str) -> Result<(), VerifyError> {
    match stated {
        Some(stated) if stated != actual => Err(VerifyError::Mismatch(format!(
            "the record says {field} {stated}, the replay ends with {actual}"
        ))),
        _ => Ok(()),
    }
}
