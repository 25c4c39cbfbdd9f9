//! Fuzzes what players type and send outside a game's moves: console command lines (`seek 5 0
//! suicide`, `match alice 3 2 chad`, `set formula …`), FICS-style formulas with their `f1`–`f9`
//! helpers, evaluated against a proposed game, and the JSON messages of the game sockets (one
//! game's and the multiplexed one) and the lobby socket. Nothing may panic and every evaluation
//! must end.
//!
//! Input layout: bytes separated by 0xFF. Part 0 is the challenge's numbers (time, increment,
//! ratings: little-endian i64s, missing bytes count as 0); part 1 is the formula; parts 2 to
//! 10 are f1 to f9. Every part is also tried as a console line and as a game, a multiplexed
//! and a lobby socket message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oddboard_play::formula::{ChallengeContext, FormulaSet};
use oddboard_play::lobby::command::parse_line;
use oddboard_play::rules::{Color, Variant};
use oddboard_play::wire::game::{parse_client_msg, parse_mux_msg};
use oddboard_play::wire::lobby::parse_lobby_msg;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<String> = data
        .split(|&b| b == 0xFF)
        .map(|part| String::from_utf8_lossy(part).into_owned())
        .collect();
    for part in &parts {
        let _ = parse_line(part);
        let _ = parse_client_msg(part);
        let _ = parse_mux_msg(part);
        let _ = parse_lobby_msg(part);
    }
    let numbers = data.split(|&b| b == 0xFF).next().unwrap_or_default();
    let number = |i: usize| {
        let mut bytes = [0u8; 8];
        for (slot, &b) in bytes.iter_mut().zip(numbers.iter().skip(8 * i)) {
            *slot = b;
        }
        i64::from_le_bytes(bytes)
    };
    let flags = numbers.first().copied().unwrap_or(0);
    let ctx = ChallengeContext {
        variant: Variant::ALL[usize::from(flags) % Variant::ALL.len()],
        rated: flags & 8 != 0,
        time: number(0),
        inc: number(1),
        rating: number(2),
        myrating: number(3),
        registered: flags & 16 != 0,
        my_color: match flags & 96 {
            32 => Some(Color::White),
            64 => Some(Color::Black),
            _ => None,
        },
    };
    let formula = parts.get(1).map(String::as_str).unwrap_or_default();
    let helpers: Vec<String> = parts.iter().skip(2).take(9).cloned().collect();
    let (set, _errors) = FormulaSet::from_texts(formula, &helpers);
    let _ = set.judge(&ctx);
    let _ = set.accepts(&ctx);
});
