//! The site around the game page in a real browser (headless Chromium through
//! [`super::webdriver`]): the lobby (signed out and as a guest), a replay, a player page
//! and the error pages pass axe-core ([`super::axe`]) in the light and the dark theme, and
//! none is wider than a 390 x 844 phone or a 1280 x 800 desktop; the header's Display menu
//! switches the theme (following the system until a choice is made) and the board colours,
//! kept across pages; a game or replay that does not exist is a 404 page saying so; and no
//! page of the site moves as it loads over a slow phone network. The seek form's clock
//! agreement with the server is `browser_seek_form.rs`. Screenshots of each page go to
//! `target/screenshots/site-*.png`.

use super::axe::assert_no_serious_violations;
use super::browser::screenshots_dir;
use super::browser_dice::play;
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use super::ws_game::{start_game, stored_record_once};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The screen sizes every page must fit: a phone and a desktop.
pub(crate) const SIZES: [(u32, u32); 2] = [(390, 844), (1280, 800)];

/// The page background of each theme (style.css's `--bg`), as the browser computes it.
const LIGHT_BG: &str = "rgb(244, 241, 234)";
const DARK_BG: &str = "rgb(22, 21, 18)";

/// A browser session with its own profile directory, removed at the end.
pub(crate) struct Session {
    pub(crate) browser: Browser,
    profile: PathBuf,
    _driver: Driver,
}

impl Session {
    pub(crate) async fn start(name: &str) -> Session {
        let driver = Driver::start().await;
        let profile =
            std::env::temp_dir().join(format!("oddboard-{name}-{}", uuid::Uuid::new_v4().simple()));
        let browser = driver.session(&profile).await;
        Session {
            browser,
            profile,
            _driver: driver,
        }
    }

    pub(crate) async fn end(self) {
        self.browser.quit().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// A server and a browser session, with the server's base URL; None (after saying so)
/// when the browser tests are skipped.
pub(crate) async fn start_site(name: &str) -> Option<(TestServer, String, Session)> {
    if !browser_available() {
        return None;
    }
    let server = TestServer::start(fast_settings()).await;
    let base = format!("http://{}", server.addr);
    Some((server, base, Session::start(name).await))
}

/// Signs in as a new guest with the lobby's button.
pub(crate) async fn sign_in_as_guest(browser: &mut Browser, base: &str) {
    browser.goto(&format!("{base}/")).await;
    browser.click("#guest-button").await;
    browser
        .wait_for(
            "the guest's name in the header",
            "return document.getElementById('me').dataset.username",
            json!([]),
        )
        .await;
}

/// A Davey Drehs game (dice, so the replay shows its roll log too) of six plies that Black
/// then resigns; its id and White's name. Its one roll is at ply 3 (`e4xd5` is an attack
/// whatever the dice say) and the three plies after it roll nothing, so the game page's roll
/// panel needs a position from before the live one: the case where it once appeared late
/// and pushed the result banner down.
async fn finished_game(server: &TestServer) -> (String, String) {
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "drehs", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    for ply in 0..6 {
        let [mover, other] = if ply % 2 == 0 {
            [&mut white, &mut black]
        } else {
            [&mut black, &mut white]
        };
        let action = match ply {
            0 => "e2e4".to_string(),
            1 => "d7d5".to_string(),
            2 => "e4xd5".to_string(),
            // A plain move: two squares, no attack.
            _ => mover
                .legal
                .iter()
                .find(|a| a.len() == 4 && !a.contains('x'))
                .cloned()
                .unwrap_or_else(|| panic!("no plain move in {:?}", mover.legal)),
        };
        play(mover, other, &action).await;
    }
    black.send(json!({ "t": "resign" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    let record = stored_record_once(server, &game_id, |r| r["status"] == "finished").await;
    assert_eq!(record["status"], "finished", "{record}");
    (game_id, alice.name)
}

/// A page to check: its path, a name for messages and screenshots, and a script that is
/// truthy once the page shows its data.
struct Page {
    path: String,
    name: &'static str,
    ready: &'static str,
}

fn pages(game_id: &str, player: &str) -> Vec<Page> {
    let missing = uuid::Uuid::new_v4();
    vec![
        Page {
            path: "/".into(),
            name: "lobby",
            ready: "return document.querySelectorAll('#live-list tr, #open-list tr').length >= 2",
        },
        Page {
            path: format!("/player/{player}"),
            name: "player",
            ready: "return document.querySelectorAll('#games tr').length > 0
                    && document.querySelectorAll('#ratings tr').length > 0",
        },
        Page {
            path: format!("/game/{missing}"),
            name: "missing-game",
            ready: "return !!document.getElementById('error')",
        },
        Page {
            path: "/no/such/page".into(),
            name: "not-found",
            ready: "return !!document.getElementById('error')",
        },
        Page {
            path: format!("/replay/{game_id}"),
            name: "replay",
            ready: "const r = document.getElementById('replay');
                    return r.dataset.loaded === 'true' && !!document.getElementById('dice-result').textContent",
        },
    ]
}

async fn open(browser: &mut Browser, base: &str, page: &Page) {
    browser.goto(&format!("{base}{}", page.path)).await;
    browser.wait_for(page.name, page.ready, json!([])).await;
}

/// The site's other pages, which `browser_variants.rs` and `browser_profile.rs` check with
/// axe, and the game page: with [`pages`], every page there is, for the layout-shift check.
fn more_pages(game_id: &str) -> Vec<Page> {
    let mut more = vec![
        Page {
            path: "/variants".into(),
            name: "variants",
            ready: "return document.querySelectorAll('.variant-picture svg').length === 5",
        },
        Page {
            path: "/leaderboard".into(),
            name: "leaderboard",
            ready: "return document.querySelectorAll('.lb-section:not([hidden])').length === 1",
        },
        Page {
            path: format!("/game/{game_id}"),
            name: "game",
            ready: "const g = window.oddboard && window.oddboard.game;
                    return g && g.status === 'finished' && !!document.querySelector('#boards svg')",
        },
    ];
    for (variant, name) in [
        ("suicide", "variant-suicide"),
        ("chazz", "variant-chazz"),
        ("duel", "variant-duel"),
        ("drehs", "variant-drehs"),
        ("chad", "variant-chad"),
    ] {
        more.push(Page {
            path: format!("/variant/{variant}"),
            name,
            ready: "return document.getElementById('variant').dataset.loaded === 'true'",
        });
    }
    more
}

/// Makes the browser load every page as a first visit over a slow phone network (no cache,
/// Lighthouse's 150 ms round trip and 1.6 Mbit/s), so that a page paints before its scripts
/// and data arrive, as it does for a newcomer; on the loopback everything arrives before the
/// first paint and nothing could be seen to move.
pub(crate) async fn slow_first_visits(browser: &mut Browser) {
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp("Network.setCacheDisabled", json!({ "cacheDisabled": true }))
        .await;
    browser
        .cdp(
            "Network.emulateNetworkConditions",
            json!({
                "offline": false,
                "latency": 150,
                "downloadThroughput": 1_600_000 / 8,
                "uploadThroughput": 750_000 / 8,
            }),
        )
        .await;
}

/// Chooses a theme with the header's Display menu, as a person would, and leaves the menu
/// open (so axe checks it too).
pub(crate) async fn choose_theme(browser: &mut Browser, theme: &str) {
    let open = browser
        .js(
            "return document.getElementById('display-menu').open",
            json!([]),
        )
        .await;
    if open != json!(true) {
        browser.click("#display-menu summary").await;
    }
    browser
        .click(&format!("input[name=theme][value={theme}]"))
        .await;
}

/// The page's theme attribute and its computed background colour.
async fn theme_shown(browser: &mut Browser) -> (Value, Value) {
    let shown = browser
        .js(
            "return [document.documentElement.dataset.theme, getComputedStyle(document.body).backgroundColor]",
            json!([]),
        )
        .await;
    (shown[0].clone(), shown[1].clone())
}

/// How far the page has moved since it started loading: the sum of the browser's own
/// `layout-shift` entries not caused by input (what Lighthouse's CLS adds up for a page that
/// loads and stays), and which elements moved, to say what to fix.
pub(crate) async fn layout_shift(browser: &mut Browser) -> (f64, Value) {
    let measured = browser
        .js(
            "return new Promise((done) => {
               let sum = 0;
               const moved = [];
               new PerformanceObserver((list) => {
                 for (const e of list.getEntries()) {
                   if (e.hadRecentInput) continue;
                   sum += e.value;
                   for (const s of e.sources || []) {
                     const n = s.node;
                     const name = !n ? '?' : n.id ? `#${n.id}` : `${n.nodeName.toLowerCase()}.${[...(n.classList || [])].join('.')}`;
                     moved.push(`${name} top ${Math.round(s.previousRect.top)} -> ${Math.round(s.currentRect.top)}`);
                   }
                 }
               }).observe({ type: 'layout-shift', buffered: true });
               setTimeout(() => done([sum, moved]), 300);
             });",
            json!([]),
        )
        .await;
    (
        measured[0].as_f64().unwrap_or(f64::MAX),
        measured[1].clone(),
    )
}

/// The layout shift a page may have as it loads: Lighthouse's "good" is up to 0.1, and a
/// page that reserves the room of what it fills in later moves by nothing.
pub(crate) const MAX_LAYOUT_SHIFT: f64 = 0.02;

/// Whether the page is wider than the window.
pub(crate) async fn overflow(browser: &mut Browser) -> Value {
    browser
        .js(
            "const w = document.documentElement.scrollWidth;
             if (w <= window.innerWidth) return null;
             // The outermost elements past the right edge say what to fix.
             const past = [...document.querySelectorAll('body *')].filter((e) =>
               e.getBoundingClientRect().right > window.innerWidth + 0.5
               && !(e.parentElement && e.parentElement.getBoundingClientRect().right > window.innerWidth + 0.5));
             const names = past.slice(0, 5).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} (right ${Math.round(e.getBoundingClientRect().right)})`);
             return `scrollWidth ${w} > innerWidth ${window.innerWidth}: ${names.join(', ')}`;",
            json!([]),
        )
        .await
}

/// Every page in both themes at both sizes: axe finds nothing serious, nothing overflows.
async fn check_pages(session: &mut Session, base: &str, pages: &[Page], who: &str) {
    let browser = &mut session.browser;
    for (width, height) in SIZES {
        browser.set_window(width, height).await;
        for page in pages {
            open(browser, base, page).await;
            for theme in ["light", "dark"] {
                choose_theme(browser, theme).await;
                let (attribute, background) = theme_shown(browser).await;
                assert_eq!(attribute, json!(theme), "{}", page.name);
                let expected = if theme == "dark" { DARK_BG } else { LIGHT_BG };
                assert_eq!(background, json!(expected), "{} in {theme}", page.name);
                let label = format!("{} ({who}, {theme}, {width}x{height})", page.name);
                assert_no_serious_violations(browser, &label).await;
                let wide = overflow(browser).await;
                assert_eq!(wide, Value::Null, "{label} is wider than the screen");
                browser.click("#display-menu summary").await;
                let wide = overflow(browser).await;
                assert_eq!(wide, Value::Null, "{label}, menu closed");
                let file = format!("site-{}-{who}-{theme}-{width}.png", page.name);
                browser.screenshot(&screenshots_dir().join(file)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_site_page_passes_axe_in_both_themes_and_fits_phone_and_desktop() {
    let Some((server, base, mut session)) = start_site("site").await else {
        return;
    };
    let (game_id, player) = finished_game(&server).await;
    let pages = pages(&game_id, &player);
    check_pages(&mut session, &base, &pages, "signed-out").await;
    // Signed in (as a guest), the lobby shows the seek form's partner panels and the
    // header a name and a sign-out button.
    session.browser.set_window(1280, 800).await;
    sign_in_as_guest(&mut session.browser, &base).await;
    check_pages(&mut session, &base, &pages[..1], "guest").await;
    session.end().await;
    server.stop().await;
}

/// No page moves as it loads, at either size, on a newcomer's first visit over a slow
/// network: what is filled in later has its room reserved or is shown all at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_holds_still_as_it_loads_over_a_slow_network() {
    let Some((server, base, mut session)) = start_site("site-shift").await else {
        return;
    };
    let (game_id, player) = finished_game(&server).await;
    let mut all = pages(&game_id, &player);
    all.extend(more_pages(&game_id));
    let browser = &mut session.browser;
    slow_first_visits(browser).await;
    for (width, height) in SIZES {
        browser.set_window(width, height).await;
        for page in &all {
            open(browser, &base, page).await;
            let (shift, moved) = layout_shift(browser).await;
            assert!(
                (0.0..MAX_LAYOUT_SHIFT).contains(&shift),
                "{} ({width}x{height}) moved as it loaded: layout shift {shift}: {moved}",
                page.name
            );
        }
    }
    session.end().await;
    server.stop().await;
}

/// The page theme follows the system (emulated through the DevTools protocol) until the
/// reader picks one; the choice and the board colours stay across pages and reloads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_theme_follows_the_system_until_chosen_and_choices_are_kept() {
    let Some((server, base, mut session)) = start_site("site-theme").await else {
        return;
    };
    let browser = &mut session.browser;
    let system = |scheme: &str| json!({"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]});
    browser.goto(&format!("{base}/")).await;
    for (scheme, background) in [("dark", DARK_BG), ("light", LIGHT_BG)] {
        browser
            .cdp("Emulation.setEmulatedMedia", system(scheme))
            .await;
        assert_eq!(
            theme_shown(browser).await,
            (json!("system"), json!(background)),
            "a {scheme} system"
        );
    }
    // A choice beats the system, and is kept on the next page.
    browser
        .cdp("Emulation.setEmulatedMedia", system("dark"))
        .await;
    choose_theme(browser, "light").await;
    browser.click("input[name=board-theme][value=green]").await;
    browser.goto(&format!("{base}/player/nobody")).await;
    browser.wait_element("#player").await;
    assert_eq!(
        theme_shown(browser).await,
        (json!("light"), json!(LIGHT_BG))
    );
    let kept = browser
        .js(
            "return [document.body.dataset.boardTheme, document.documentElement.dataset.boardTheme,
                     document.querySelector('input[name=theme][value=light]').checked,
                     document.querySelector('input[name=board-theme][value=green]').checked]",
            json!([]),
        )
        .await;
    assert_eq!(kept, json!(["green", "green", true, true]));
    // Back to the system's choice.
    choose_theme(browser, "system").await;
    assert_eq!(
        theme_shown(browser).await,
        (json!("system"), json!(DARK_BG))
    );
    // A stored value the page does not know is the default, not an unstyled page.
    browser
        .js(
            "localStorage.setItem('oddboard.theme', 'purple');
             localStorage.setItem('oddboard.boardTheme', '\"><b>');",
            json!([]),
        )
        .await;
    browser.goto(&format!("{base}/")).await;
    let defaults = browser
        .js(
            "return [document.documentElement.dataset.theme, document.body.dataset.boardTheme]",
            json!([]),
        )
        .await;
    assert_eq!(defaults, json!(["system", "brown"]));
    session.end().await;
    server.stop().await;
}

/// The theme script runs before the first paint: a classic script in `<head>`, before the
/// stylesheet, neither deferred nor a module, on every page (the error pages too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_loads_the_theme_script_first_in_its_head() {
    let server = TestServer::start(fast_settings()).await;
    let mut client = server.client();
    for path in [
        "/",
        "/player/alice",
        "/game/nope",
        "/replay/nope",
        "/nowhere",
    ] {
        let response = client
            .get(path)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let head = response
            .body
            .split("</head>")
            .next()
            .unwrap_or_default()
            .to_string();
        let script = head
            .find("/theme.js\"></script>")
            .unwrap_or_else(|| panic!("{path}: no theme script in the head: {head}"));
        let style = head
            .find("/style.css\"")
            .unwrap_or_else(|| panic!("{path}: no stylesheet: {head}"));
        assert!(script < style, "{path}: {head}");
        let tag_start = head[..script].rfind("<script").unwrap_or_default();
        let tag = &head[tag_start..script];
        assert!(
            !tag.contains("module") && !tag.contains("defer") && !tag.contains("async"),
            "{path}: {tag}"
        );
        let src = &tag[tag.find("src=\"").map_or(0, |i| i + 5)..];
        let theme = client
            .get(&format!("{src}/theme.js"))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(theme.status, 200, "{path}: {src}/theme.js");
    }
    server.stop().await;
}

/// A game or replay page of a game that does not exist, or of an id that is none, says so
/// with a 404 and a link home, and is not the game page waiting for a socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_game_is_a_404_page_with_a_link_home() {
    let server = TestServer::start(fast_settings()).await;
    let missing = uuid::Uuid::new_v4();
    let mut client = server.client();
    for path in [
        format!("/game/{missing}"),
        format!("/replay/{missing}"),
        "/game/123".to_string(),
        "/replay/not-a-game".to_string(),
        format!("/game/{}", "9".repeat(300)),
    ] {
        let response = client
            .get(&path)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(response.status, 404, "{path}");
        assert!(response.body.contains("No such game"), "{path}");
        assert!(response.body.contains("<a href=\"/\">"), "{path}");
        assert!(
            !response.body.contains("id=\"game\"") && !response.body.contains("game.js"),
            "{path}: the game page"
        );
    }
    if !browser_available() {
        server.stop().await;
        return;
    }
    let base = format!("http://{}", server.addr);
    let mut session = Session::start("site-missing").await;
    let browser = &mut session.browser;
    browser.goto(&format!("{base}/game/{missing}")).await;
    browser.wait_element("#error").await;
    let shown = browser
        .js(
            "return [document.querySelector('h1').textContent, document.title,
                     !!document.querySelector('main a[href=\"/\"]'), document.body.innerText.includes('Reconnecting'),
                     !!document.getElementById('resign')]",
            json!([]),
        )
        .await;
    assert_eq!(
        shown,
        json!([
            "No such game",
            "No such game · Oddboard",
            true,
            false,
            false
        ])
    );
    browser.click("main a[href=\"/\"]").await;
    browser.wait_element("#seek-form").await;
    session.end().await;
    server.stop().await;
}
