//! Davey Drehs' dice record of a finished game: the file `oddboard rules verify-dice` reads,
//! with the stored roll log and the revealed seed, so that anyone can recompute every roll.

use super::{Replay, Seed};
use crate::record::GameRecord;
use crate::rules::dice::RollRecord;
use crate::rules::variant::drehs::record::{DiceRecord, RecordedAction};
use crate::rules::AnyGame;

/// Why a game has no dice record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoDiceRecord {
    /// Not a finished game of a dice variant: no commitment, or a seed still secret.
    NotAvailable,
    /// The variant's standard start cannot be set up.
    BadSetup(String),
}

/// The dice record of `record`.
///
/// # Errors
/// [`NoDiceRecord::NotAvailable`] unless the game is over and rolled dice.
pub fn dice_record(record: &GameRecord) -> Result<DiceRecord, NoDiceRecord> {
    let (Some(commitment), Some(seed)) = (
        record.dice_commitment.clone(),
        record.revealed_dice_seed().map(hex::encode),
    ) else {
        return Err(NoDiceRecord::NotAvailable);
    };
    let start_position = match &record.start_position {
        Some(position) => position.clone(),
        None => AnyGame::start(record.variant)
            .map(|g| g.position())
            .map_err(|e| NoDiceRecord::BadSetup(e.to_string()))?,
    };
    // Roll indexes run on from the start position's next index through every stored roll.
    let first_index = start_position
        .split_whitespace()
        .last()
        .and_then(|f| f.parse::<u64>().ok())
        .unwrap_or(0);
    let actions = recorded_actions(record, first_index);
    // `verify-dice` replays the actions and checks the result it reaches. Only an end the rules
    // decided (a killed king, repetition…) is reproducible that way; a resignation, a flag or
    // an agreement is the server's, so the record states no result then.
    let rules_result = record
        .outcome
        .filter(|o| Replay::new(record, Seed::Revealed).rules_outcome() == Some(*o));
    Ok(DiceRecord {
        variant: record.variant,
        game_id: record.game_id.to_string(),
        commitment,
        seed,
        start_position,
        actions,
        result: rules_result.map(|o| o.result_str().to_string()),
        reason: rules_result.map(|o| o.reason.as_str().to_string()),
    })
}

/// The stored actions as a dice record lists them, each with its rolls (numbered on from
/// `first_index`) and effects.
fn recorded_actions(record: &GameRecord, first_index: u64) -> Vec<RecordedAction> {
    let mut index = first_index;
    record
        .actions
        .iter()
        .map(|action| {
            let stored = action.rolls.clone().unwrap_or(serde_json::Value::Null);
            let rolls: Vec<RollRecord> = stored["rolls"]
                .as_array()
                .map(|rolls| {
                    rolls
                        .iter()
                        .map(|roll| {
                            let entry = roll_record(roll, index);
                            index += 1;
                            entry
                        })
                        .collect()
                })
                .unwrap_or_default();
            let effects = stored["effects"]
                .as_array()
                .map(|e| {
                    e.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            RecordedAction {
                action: action.machine.clone(),
                human: Some(action.human.clone()),
                rolls,
                effects,
            }
        })
        .collect()
}

/// One stored roll (`{"purpose","dice","value"}`) as the roll numbered `index`.
fn roll_record(roll: &serde_json::Value, index: u64) -> RollRecord {
    RollRecord {
        index,
        purpose: roll["purpose"].as_str().unwrap_or_default().to_string(),
        dice: roll["dice"].as_str().unwrap_or_default().to_string(),
        value: roll["value"]
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(0),
    }
}
