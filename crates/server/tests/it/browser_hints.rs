//! The game page's rules link and newcomers' hints in real Chromium: a hint appears when its
//! rule first matters (not before), can be dismissed, comes once per game, and is not shown
//! to a player who has finished five games of the variant; the link goes to the variant's
//! page. The player is a guest in the browser; the opponent plays over the game socket.

use super::axe::assert_no_serious_violations;
use super::browser::screenshots_dir;
use super::browser_game::page_fetch;
use super::browser_site::{sign_in_as_guest, start_site};
use super::server::{Player, Watcher};
use super::webdriver::Browser;
use serde_json::{json, Value};
use std::time::Duration;

/// A game of `variant` the browser's player creates as White from a page with no lobby
/// socket (which would open the game by itself), and the opponent accepts.
async fn new_game(
    base: &str,
    browser: &mut Browser,
    opponent: &mut Player,
    variant: &str,
) -> String {
    browser.goto(&format!("{base}/no-such-page")).await;
    let body = json!({ "variant": variant, "clock": null, "color": "white" });
    let created = page_fetch(browser, "/api/games", body).await;
    let id = created["game_id"].as_str();
    let id = id
        .unwrap_or_else(|| panic!("no game: {created}"))
        .to_string();
    opponent.accept(&id).await;
    id
}

/// Opens the game page and waits for the game to be on.
async fn open_game(base: &str, browser: &mut Browser, id: &str) {
    browser.goto(&format!("{base}/game/{id}")).await;
    browser
        .wait_for(
            "the game to be on",
            "return document.getElementById('game').dataset.status === 'active'",
            json!([]),
        )
        .await;
}

/// Plays a move by the move form and waits until the page holds `ply` plies.
async fn play(browser: &mut Browser, action: &str, ply: u64) {
    browser.type_text("#move-input", action).await;
    browser.click("#move-form button[type=\"submit\"]").await;
    wait_ply(browser, ply).await;
}

async fn wait_ply(browser: &mut Browser, ply: u64) {
    browser
        .wait_for(
            &format!("ply {ply}"),
            "return document.getElementById('game').dataset.ply === String(arguments[0])",
            json!([ply]),
        )
        .await;
}

/// The opponent's move as ply `after + 1`, once it has seen ply `after`.
async fn answer(opponent: &mut Watcher, action: &str, after: u64) {
    opponent.read_until(|w| w.ply >= after).await;
    opponent.act(action).await;
    opponent.read_until(|w| w.ply > after).await;
}

/// The ids of the hints on show.
async fn hints(browser: &mut Browser) -> Vec<String> {
    let ids = browser
        .js(
            "return [...document.querySelectorAll('#hints [data-hint]')].map((h) => h.dataset.hint)",
            json!([]),
        )
        .await;
    serde_json::from_value(ids).unwrap_or_default()
}

/// The hints after the page has had time to ask the server whether the player is new (an
/// answer that never comes shows nothing either, so a check for none waits this long).
async fn settled_hints(browser: &mut Browser) -> Vec<String> {
    tokio::time::sleep(Duration::from_millis(800)).await;
    hints(browser).await
}

async fn wait_hint(browser: &mut Browser, id: &str) -> String {
    let text = browser
        .wait_for(
            &format!("the {id} hint"),
            "const h = document.querySelector(`#hints [data-hint=\"${arguments[0]}\"] p`); return h && h.textContent",
            json!([id]),
        )
        .await;
    text.as_str().unwrap_or_default().to_string()
}

/// The opponent resigns: the game counts as finished for the browser's player.
async fn resign(opponent: &mut Watcher) {
    opponent.send(json!({ "t": "resign" })).await;
    opponent.read_until(|w| w.outcome.is_some()).await;
}

async fn rules_link(browser: &mut Browser, variant_name: &str) -> Value {
    browser
        .wait_for(
            "the rules link's name",
            "const a = document.getElementById('rules-link'); return a.textContent === arguments[0] && a.getAttribute('href')",
            json!([format!("Rules of {variant_name}")]),
        )
        .await
}

/// The page with a hint on show: the hints and the rules link within a phone's screen,
/// nothing serious for axe in either theme; screenshots at both sizes. (The header is the
/// site layout's business, checked with every page: axe runs here where it fits, at 1280.)
async fn hint_fits_and_passes_axe(browser: &mut Browser) {
    for (width, height, name) in [
        (390, 844, "game-hint-390.png"),
        (1280, 800, "game-hint-1280.png"),
    ] {
        browser.set_window(width, height).await;
        let past = browser
            .js(
                "return ['hints', 'rules-link'].filter((id) => {
                   const e = document.getElementById(id);
                   return e.getBoundingClientRect().right > window.innerWidth + 0.5
                     || e.scrollWidth > e.clientWidth + 0.5;
                 })",
                json!([]),
            )
            .await;
        assert_eq!(past, json!([]), "wider than {width}");
        for theme in if width > 390 {
            &["light", "dark"][..]
        } else {
            &[]
        } {
            browser
                .js(
                    "document.documentElement.dataset.theme = arguments[0]",
                    json!([theme]),
                )
                .await;
            assert_no_serious_violations(browser, &format!("game page with a hint, {theme}")).await;
        }
        browser.screenshot(&screenshots_dir().join(name)).await;
    }
}

/// 1. e4 d5: White must capture.
async fn to_a_forced_capture(browser: &mut Browser, opponent: &mut Watcher) {
    play(browser, "e2e4", 1).await;
    answer(opponent, "d7d5", 1).await;
    wait_ply(browser, 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_come_when_their_rule_first_matters_once_and_only_to_newcomers() {
    let Some((server, base, mut session)) = start_site("hints").await else {
        return;
    };
    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    let mut opponent = server.guest().await;

    // Suicide, a newcomer: nothing before a capture is possible, then the hint.
    let id = new_game(&base, browser, &mut opponent, "suicide").await;
    open_game(&base, browser, &id).await;
    let mut black = opponent.watch(&id).await;
    assert_eq!(
        rules_link(browser, "Suicide Chess").await,
        "/variant/suicide"
    );
    assert!(
        settled_hints(browser).await.is_empty(),
        "no hint at the start"
    );
    to_a_forced_capture(browser, &mut black).await;
    let text = wait_hint(browser, "must_capture").await;
    assert!(text.contains("you must capture"), "{text}");
    assert_eq!(hints(browser).await, ["must_capture"]);
    hint_fits_and_passes_axe(browser).await;
    // Dismissed, it goes.
    browser
        .click("#hints [data-hint=\"must_capture\"] button")
        .await;
    assert!(hints(browser).await.is_empty());
    // 2. exd5 Qxd5 3. Nc3 Qxa2: White must capture again, and is not told twice.
    play(browser, "e4d5", 3).await;
    answer(&mut black, "d8d5", 3).await;
    play(browser, "b1c3", 5).await;
    answer(&mut black, "d5a2", 5).await;
    wait_ply(browser, 6).await;
    assert!(settled_hints(browser).await.is_empty(), "once per game");
    // Not after a reload either.
    open_game(&base, browser, &id).await;
    wait_ply(browser, 6).await;
    assert!(
        settled_hints(browser).await.is_empty(),
        "once per game, reloaded"
    );
    resign(&mut black).await;

    // Chazz: a pawn may step back from the first move on.
    let id = new_game(&base, browser, &mut opponent, "chazz").await;
    open_game(&base, browser, &id).await;
    let mut black = opponent.watch(&id).await;
    let text = wait_hint(browser, "backward_pawn").await;
    assert!(text.contains("straight back"), "{text}");
    resign(&mut black).await;

    // Four more finished Suicide games make five: no more Suicide hints, the link stays.
    for _ in 0..4 {
        let id = new_game(&base, browser, &mut opponent, "suicide").await;
        let mut black = opponent.watch(&id).await;
        resign(&mut black).await;
    }
    let id = new_game(&base, browser, &mut opponent, "suicide").await;
    open_game(&base, browser, &id).await;
    let mut black = opponent.watch(&id).await;
    to_a_forced_capture(browser, &mut black).await;
    assert!(
        settled_hints(browser).await.is_empty(),
        "no hint after five finished games"
    );
    assert_eq!(
        rules_link(browser, "Suicide Chess").await,
        "/variant/suicide"
    );
    resign(&mut black).await;

    session.end().await;
    server.stop().await;
}
