//! Fuzzes the rules engine the way the server uses it on untrusted input: a position text (the
//! `oddboard rules` command and the tests take one; the server replays stored ones) and
//! action texts sent by players. Whatever the bytes, nothing may panic; a position that is
//! accepted must list its legal actions, build its snapshot and reprint to a text that is
//! accepted again; every listed action must play; an action that is refused changes nothing.
//!
//! Input layout: byte 0 picks the variant; the bytes up to the first 0xFF are a position text
//! (empty: the start position); after it, each byte picks one of the legal actions to play,
//! and a 0xFE byte makes the next bytes, up to the next 0xFE, an arbitrary action text tried
//! against the current position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oddboard_rules::{AnyGame, Variant};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let variant = Variant::ALL[usize::from(selector) % Variant::ALL.len()];
    let (position, script) = match rest.iter().position(|&b| b == 0xFF) {
        Some(end) => (&rest[..end], &rest[end + 1..]),
        None => (rest, &[][..]),
    };
    let game = if position.is_empty() {
        AnyGame::start(variant)
    } else {
        match AnyGame::from_position(variant, &String::from_utf8_lossy(position)) {
            Ok(game) => Ok(game),
            Err(_) => return,
        }
    };
    let Ok(mut game) = game else { return };
    if variant.has_dice() {
        game.set_dice([selector; 32], "fuzz");
    }
    check_position(&game);
    let mut bytes = script.iter();
    while let Some(&b) = bytes.next() {
        if b == 0xFE {
            let text: Vec<u8> = bytes
                .by_ref()
                .take_while(|&&c| c != 0xFE)
                .copied()
                .collect();
            let before = game.position();
            let mut probe = game.clone();
            match probe.play(&String::from_utf8_lossy(&text)) {
                Ok(_) => {
                    check_position(&probe);
                    game = probe;
                }
                Err(_) => assert_eq!(
                    probe.position(),
                    before,
                    "a refused action changed the game"
                ),
            }
            continue;
        }
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        let action = &legal[usize::from(b) % legal.len()];
        if let Err(e) = game.play(action) {
            panic!("listed action {action} refused in {}: {e}", game.position());
        }
        // The whole check costs more than the ply: every eighth ply and at the end, so that
        // the fuzzer gets deeper into games.
        if game.ply() % 8 == 0 {
            check_position(&game);
        }
    }
    check_position(&game);
});

/// What every accepted position must support.
fn check_position(game: &AnyGame) {
    let _ = game.outcome();
    let _ = game.snapshot();
    let _ = game.forced_action();
    for color in [oddboard_rules::Color::White, oddboard_rules::Color::Black] {
        let _ = game.can_win(color);
    }
    let text = game.position();
    if let Err(e) = AnyGame::from_position(game.variant(), &text) {
        panic!("the position's own text {text:?} is refused: {e}");
    }
}
