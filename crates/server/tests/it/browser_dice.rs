//! Davey Drehs' dice in front (issue 48, static/game/dice.js): a spectator's browser, at a
//! desktop's size (1280 x 800) and a phone's (390 x 844), watches two players who play over
//! their sockets. After an attack the roll panel shows its dice inside the window, without
//! scrolling; it stays when the next move rolls nothing; the move list, the replay page and
//! the export say the attack's result in words, and the page asked for the hit or the miss
//! sound. The same when the computer makes the attack, on a phone held either way.
//! Screenshots: `target/screenshots/dice-1280x800.png`, `dice-390x844.png`, `dice-844x390.png`,
//! `dice-computer-390x844.png`, `dice-computer-844x390.png`.

use super::browser::{page_game, screenshots_dir, square_tokens, wait_ply};
use super::browser_computer::start_from_the_dialog;
use super::browser_hints::play as play_by_form;
use super::browser_site::{sign_in_as_guest, start_site};
use super::server::Watcher;
use super::webdriver::Browser;
use serde_json::{json, Value};

/// Plays `action` for the side to move and waits until both players' sockets have it.
pub(crate) async fn play(mover: &mut Watcher, other: &mut Watcher, action: &str) {
    let ply = mover.ply + 1;
    mover.act(action).await;
    mover.read_until(|w| w.ply >= ply).await;
    other.read_until(|w| w.ply >= ply).await;
    assert!(mover.errors.is_empty(), "{action}: {:?}", mover.errors);
}

/// The roll panel once it shows the roll of `ply`: its box and the window's, its dice and
/// its words.
async fn panel_at(browser: &mut Browser, ply: usize) -> Value {
    browser
        .wait_for(
            &format!("the roll panel showing ply {ply}"),
            "const el = document.getElementById('rolls');
             if (!el || el.hidden || el.dataset.ply !== String(arguments[0])) return null;
             const r = el.getBoundingClientRect();
             return { top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                      width: window.innerWidth, height: window.innerHeight,
                      dice: el.querySelectorAll('svg.die').length, words: el.dataset.words,
                      strikes: el.querySelectorAll('.strike').length };",
            json!([ply]),
        )
        .await
}

/// The panel lies wholly inside the window, with its dice and words.
fn assert_in_view(panel: &Value, size: (u32, u32), when: &str) {
    let num = |k: &str| panel[k].as_f64().unwrap_or(f64::NAN);
    assert!(
        num("top") >= 0.0
            && num("left") >= 0.0
            && num("bottom") <= num("height")
            && num("right") <= num("width"),
        "{size:?} {when}: the roll panel is not inside the window: {panel}"
    );
    assert!(num("dice") >= 1.0 && num("strikes") >= 1.0, "{panel}");
    let words = panel["words"].as_str().unwrap_or_default();
    assert!(
        words.starts_with("hit") || words.starts_with("miss"),
        "{size:?} {when}: {panel}"
    );
}

/// The words beside the attack (ply 3) in the page's move list, once they are there.
async fn listed_result(browser: &mut Browser) -> String {
    let words = browser
        .wait_for(
            "the attack's result in the move list",
            "const el = document.querySelector('#moves .move[data-ply=\"3\"] .move-result');
             return el ? el.textContent.trim() : null;",
            json!([]),
        )
        .await;
    words.as_str().unwrap_or_default().to_string()
}

/// The move list, the export (before the effect lines) and the replay page say the attack's
/// result, `words`, beside the attack (ply 3, `e4xd5`).
async fn assert_said_in_words(
    browser: &mut Browser,
    base: &str,
    id: &str,
    words: &str,
    size: (u32, u32),
) {
    // The move list says it in words beside the attack.
    assert_eq!(listed_result(browser).await, words, "{size:?}");

    // So does the export, before the effect lines.
    let export = browser
        .js(
            "return fetch('/games/' + arguments[0] + '/export').then((r) => r.text());",
            json!([id]),
        )
        .await;
    let export = export.as_str().unwrap_or_default().replace('\n', " ");
    assert!(
        export.contains(&format!("e4xd5 {{{words}; ")),
        "{size:?}: {words} not in {export}"
    );

    // And the replay page, in its move list and its panel.
    browser.goto(&format!("{base}/replay/{id}")).await;
    assert_eq!(listed_result(browser).await, words, "{size:?}");
    // It opens at the last position, after the move without dice: the panel shows the attack.
    let panel = browser
        .wait_for(
            "the roll panel on the replay page",
            "const el = document.getElementById('rolls');
             return el && !el.hidden ? [el.dataset.ply, el.dataset.words] : null;",
            json!([]),
        )
        .await;
    assert_eq!(panel, json!(["3", words]), "{size:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_roll_stays_in_view_and_the_moves_and_the_export_say_it() {
    let Some((server, base, mut session)) = start_site("browser-dice").await else {
        return;
    };
    let browser = &mut session.browser;
    for size in [(1280, 800), (390, 844), (844, 390)] {
        browser.emulate_screen(size.0, size.1, size.0 < 1000).await;
        let mut alice = server.guest().await;
        let mut bob = server.guest().await;
        let id = alice.create_game("drehs", Value::Null, "white").await;
        bob.accept(&id).await;
        let mut white = alice.watch(&id).await;
        let mut black = bob.watch(&id).await;
        white.read_until(|w| w.status == "active").await;
        browser.goto(&format!("{base}/game/{id}")).await;
        browser
            .wait_for(
                "the game page with the game under way",
                "const g = window.oddboard && window.oddboard.game; return !!g && g.status === 'active';",
                json!([]),
            )
            .await;
        // e4xd5 is an attack at once, whatever the dice say.
        play(&mut white, &mut black, "e2e4").await;
        play(&mut black, &mut white, "d7d5").await;
        play(&mut white, &mut black, "e4xd5").await;
        wait_ply(browser, 3).await;
        let panel = panel_at(browser, 3).await;
        browser
            .screenshot(&screenshots_dir().join(format!("dice-{}x{}.png", size.0, size.1)))
            .await;
        assert_in_view(&panel, size, "after the attack");
        let words = panel["words"].as_str().unwrap_or_default().to_string();
        let verdict = if words.starts_with("hit") {
            "hit"
        } else {
            "miss"
        };
        let sounds = browser
            .js("return window.oddboardSounds || []", json!([]))
            .await;
        assert!(
            sounds
                .as_array()
                .is_some_and(|s| s.contains(&json!(verdict))),
            "{size:?}: {words} should sound as a {verdict}: {sounds}"
        );

        // Black's answer rolls nothing: the panel still shows the attack.
        let quiet = black
            .legal
            .iter()
            .find(|a| a.len() == 4 && !a.contains('x'))
            .cloned()
            .unwrap_or_else(|| panic!("no plain move in {:?}", black.legal));
        play(&mut black, &mut white, &quiet).await;
        wait_ply(browser, 4).await;
        let panel = panel_at(browser, 3).await;
        assert_in_view(&panel, size, "after a move without dice");
        assert_eq!(panel["words"], json!(words));

        assert_said_in_words(browser, &base, &id, &words, size).await;
    }
    session.end().await;
    server.stop().await;
}

/// White's next move against the computer: a plain move (two squares, no attack) that goes
/// furthest up the board, so that the pieces meet soon; any action when there is none.
fn forward_move(legal: &[String]) -> String {
    let rank = |a: &String| {
        square_tokens(a)
            .get(1)
            .and_then(|s| s[1..].parse::<u32>().ok())
            .unwrap_or(0)
    };
    legal
        .iter()
        .filter(|a| square_tokens(a).len() == 2 && !a.contains('x'))
        .max_by_key(|a| rank(a))
        .or_else(|| legal.first())
        .cloned()
        .unwrap_or_else(|| panic!("no legal action"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computers_attack_shows_its_roll_on_a_phone_either_way() {
    let Some((server, base, mut session)) = start_site("browser-dice-computer").await else {
        return;
    };
    let browser = &mut session.browser;
    browser.emulate_screen(390, 844, true).await;
    sign_in_as_guest(browser, &base).await;
    start_from_the_dialog(browser, &base, "drehs", 2, "white").await;
    // White walks up the board until the computer (Black) attacks: with the pieces in
    // contact it soon does, as an attack on a piece that came close is its best move.
    let mut attack = None;
    for _ in 0..40 {
        let game = page_game(browser).await;
        assert_eq!(
            game.status, "active",
            "the game ended before the computer attacked"
        );
        if game.turn != "white" {
            wait_ply(browser, game.ply + 1).await;
            // `wait_ply` also returns once the game is over, with no move at that ply.
            let machine = browser
                .js(
                    "const g = window.oddboard.game; const move = g.moves[arguments[0]];
                     return move ? move.machine : 'the game is ' + g.status;",
                    json!([game.ply]),
                )
                .await;
            assert!(
                !machine
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("the game is"),
                "no computer move at ply {}: {machine}",
                game.ply + 1
            );
            if machine.as_str().is_some_and(|m| m.contains('x')) {
                attack = Some(game.ply + 1);
                break;
            }
            continue;
        }
        play_by_form(browser, &forward_move(&game.legal), game.ply as u64 + 1).await;
    }
    let ply = attack.unwrap_or_else(|| panic!("the computer never attacked in 40 plies"));
    for size in [(390, 844), (844, 390)] {
        browser.emulate_screen(size.0, size.1, true).await;
        let panel = panel_at(browser, ply).await;
        browser
            .screenshot(&screenshots_dir().join(format!("dice-computer-{}x{}.png", size.0, size.1)))
            .await;
        assert_in_view(&panel, size, "after the computer's attack");
    }
    session.end().await;
    server.stop().await;
}
