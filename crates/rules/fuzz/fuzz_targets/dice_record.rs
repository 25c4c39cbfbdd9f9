//! Fuzzes Davey Drehs' game record files, which anyone may hand to `oddboard rules
//! verify-dice` to check a finished game's dice: JSON that may be malformed, tampered with or
//! hostile (a wrong seed, impossible actions, rolls that do not match). Verification must
//! answer every input without a panic, and a record that verifies must verify again once
//! written back out.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oddboard_rules::variant::drehs::record::{verify, DiceRecord};

fuzz_target!(|data: &[u8]| {
    let Ok(record) = serde_json::from_slice::<DiceRecord>(data) else {
        return;
    };
    if verify(&record).is_ok() {
        let written = serde_json::to_string(&record).expect("a record serializes");
        let again: DiceRecord = serde_json::from_str(&written).expect("a written record reads");
        assert!(
            verify(&again).is_ok(),
            "a verified record failed once rewritten"
        );
    }
});
