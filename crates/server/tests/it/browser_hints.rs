//! The game page's rules link and newcomers' hints in real Chromium: a hint appears when its
//! rule first matters (not before), can be dismissed, comes once per game, and is not shown
//! to a player who has finished five games of the variant; the link goes to the variant's
//! page. The player is a guest in the browser; the opponent plays over the game socket.
//! And in every variant, across many positions of the real engine, the page's hints agree
//! with what the engine's own notation says about each rule.

use super::axe::assert_no_serious_violations;
use super::browser::screenshots_dir;
use super::browser_game::page_fetch;
use super::browser_site::{sign_in_as_guest, start_site};
use super::server::{Player, Watcher};
use super::webdriver::Browser;
use oddboard::rules::{AnyGame, Variant};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// An untimed game of `variant` the browser's player creates as White, the opponent accepting.
async fn new_game(
    base: &str,
    browser: &mut Browser,
    opponent: &mut Player,
    variant: &str,
) -> String {
    new_game_with_clock(base, browser, opponent, variant, Value::Null).await
}

/// A game of `variant` and `clock` (`{minutes, increment}`, or null) the browser's player
/// creates as White from a page with no lobby socket (which would open the game by itself),
/// and the opponent accepts.
pub(crate) async fn new_game_with_clock(
    base: &str,
    browser: &mut Browser,
    opponent: &mut Player,
    variant: &str,
    clock: Value,
) -> String {
    browser.goto(&format!("{base}/no-such-page")).await;
    let body = json!({ "variant": variant, "clock": clock, "color": "white" });
    let created = page_fetch(browser, "/api/games", body).await;
    let id = created["game_id"].as_str();
    let id = id
        .unwrap_or_else(|| panic!("no game: {created}"))
        .to_string();
    opponent.accept(&id).await;
    id
}

/// Opens the game page and waits for the game to be on.
pub(crate) async fn open_game(base: &str, browser: &mut Browser, id: &str) {
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
pub(crate) async fn play(browser: &mut Browser, action: &str, ply: u64) {
    browser.type_text("#move-input", action).await;
    browser.click("#move-form button[type=\"submit\"]").await;
    wait_ply(browser, ply).await;
}

pub(crate) async fn wait_ply(browser: &mut Browser, ply: u64) {
    browser
        .wait_for(
            &format!("ply {ply}"),
            "return document.getElementById('game').dataset.ply === String(arguments[0])",
            json!([ply]),
        )
        .await;
}

/// The opponent's move as ply `after + 1`, once it has seen ply `after`.
pub(crate) async fn answer(opponent: &mut Watcher, action: &str, after: u64) {
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

/// The hints once the page knows whether the player is new to the variant (before that it
/// shows none, so a check for none waits for the answer).
async fn settled_hints(browser: &mut Browser) -> Vec<String> {
    // Once the page knows whether the player is a newcomer, each position's hints are
    // shown in the same task the position is drawn in.
    browser
        .wait_for(
            "the newcomer question answered",
            "return document.getElementById('hints').dataset.newcomer",
            json!([]),
        )
        .await;
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
pub(crate) async fn resign(opponent: &mut Watcher) {
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

/// The hints whose rule the engine can tell apart by itself, from the human notation of the
/// legal actions and of the last one (the page reads machine notation and pieces): what each
/// position should bring the side to move.
fn engine_says(game: &AnyGame) -> BTreeSet<&'static str> {
    let snapshot = game.snapshot();
    let human: Vec<String> = (game.legal_actions().iter())
        .map(|a| {
            game.human_notation(a)
                .unwrap_or_else(|e| panic!("{a}: {e:?}"))
        })
        .collect();
    let any = |f: &dyn Fn(&str) -> bool| human.iter().any(|h| f(h));
    let last = snapshot.last_action.as_deref();
    let last_human = last.map_or("", |l| l.human.as_str());
    let last_machine = last.map_or("", |l| l.machine.as_str());
    let mut says = BTreeSet::new();
    let mut say = |yes: bool, id: &'static str| {
        if yes {
            says.insert(id);
        }
    };
    match game.variant() {
        Variant::Suicide => say(any(&|h| h.contains('x')), "must_capture"),
        Variant::Chazz => {
            say(last_machine == "pass", "pass");
            let off = any(&|h| h.ends_with("-off")) || last_human.ends_with("-off");
            say(off, "self_destruct");
        }
        Variant::Duel => {
            say(
                any(&|h| h.contains('@')) || last_human.contains('@'),
                "duel_placement",
            );
            say(
                any(&|h| h.contains('>')) || last_human.contains('>'),
                "duel_return",
            );
        }
        Variant::Chad => {
            say(any(&|h| h.starts_with('K')), "castle_king");
            say(
                any(&|h| h.contains('x')) || last_human.contains('x'),
                "wall_capture",
            );
            say(
                any(&|h| h.contains("=Q")) || last_human.contains("=Q"),
                "promotion",
            );
        }
        Variant::Drehs => {
            say(
                any(&|h| h.contains('x')) || last_human.contains('x'),
                "dice_attack",
            );
            say(any(&|h| h.contains('@')), "teleport");
            say(
                any(&|h| h.contains('^')) || last_human.contains('^'),
                "cannon",
            );
        }
    }
    says
}

/// Positions of pseudo-random games of `variant` (a fixed seed), at most `per_kind` for each
/// set of hints the engine says they bring: `(snapshot, expected hints)`.
fn sample_positions(variant: Variant, per_kind: usize) -> Vec<(Value, BTreeSet<&'static str>)> {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ variant.key().len() as u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(seed >> 33).unwrap_or(0)
    };
    let mut kept: Vec<(Value, BTreeSet<&'static str>)> = Vec::new();
    for game_no in 0..8 {
        let mut game = AnyGame::start(variant).unwrap_or_else(|e| panic!("{e:?}"));
        if variant.has_dice() {
            game.set_dice([game_no; 32], "hints");
        }
        for _ in 0..160 {
            let says = engine_says(&game);
            if kept.iter().filter(|(_, s)| *s == says).count() < per_kind {
                let snapshot = serde_json::to_value(game.snapshot());
                kept.push((snapshot.unwrap_or_else(|e| panic!("{e}")), says));
            }
            let legal = game.legal_actions();
            if legal.is_empty() {
                break;
            }
            let action = legal[next() % legal.len()].clone();
            game.play(&action)
                .unwrap_or_else(|e| panic!("{action}: {e:?}"));
        }
    }
    kept
}

/// The hints the page's module gives each position, for the side to move.
async fn page_hints(
    browser: &mut Browser,
    variant: Variant,
    snapshots: &[&Value],
) -> Vec<Vec<String>> {
    browser
        .js(
            "window.__hints = null;
             const src = document.querySelector('script[type=module][src]').src;
             import(new URL('game/hints.js', src).href).then((m) => {
               window.__hints = arguments[1].map((s) => m.hintsFor(arguments[0], s, s.turn).map((h) => h.id));
             }, (e) => { window.__hints = String(e); });",
            json!([variant.key(), snapshots]),
        )
        .await;
    let found = browser
        .wait_for("the page's hints", "return window.__hints", json!([]))
        .await;
    serde_json::from_value(found.clone()).unwrap_or_else(|e| panic!("{e}: {found}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hints_follow_the_engines_legal_actions_in_every_variant() {
    let Some((server, base, mut session)) = start_site("hints-engine").await else {
        return;
    };
    let browser = &mut session.browser;
    browser.goto(&format!("{base}/")).await;
    // What the engine can check: each at least once in these games, so no check is empty.
    let required = [
        "must_capture",
        "self_destruct",
        "duel_placement",
        "castle_king",
        "wall_capture",
        "promotion",
        "dice_attack",
        "teleport",
        "cannon",
    ];
    let mut seen = BTreeSet::new();
    for variant in [
        Variant::Suicide,
        Variant::Chazz,
        Variant::Duel,
        Variant::Chad,
        Variant::Drehs,
    ] {
        let positions = sample_positions(variant, 6);
        let snapshots: Vec<&Value> = positions.iter().map(|(s, _)| s).collect();
        let found = page_hints(browser, variant, &snapshots).await;
        let checked: BTreeSet<&str> = positions
            .iter()
            .flat_map(|(_, says)| says.iter().copied())
            .collect();
        for ((snapshot, says), ids) in positions.iter().zip(&found) {
            let shown: BTreeSet<&str> = (ids.iter().map(String::as_str))
                .filter(|id| checked.contains(id) || required.contains(id))
                .collect();
            assert_eq!(
                &shown, says,
                "{variant:?} at {}: the page hints {ids:?}, the engine says {says:?}",
                snapshot["position"]
            );
        }
        seen.extend(checked);
    }
    for id in required {
        assert!(seen.contains(id), "no position brought {id}: {seen:?}");
    }
    session.end().await;
    server.stop().await;
}
