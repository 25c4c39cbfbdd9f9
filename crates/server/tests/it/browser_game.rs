//! The game page in a real browser (headless Chromium through [`super::webdriver`]), as a
//! lichess player uses it: two registered players and a spectator in three sessions play a
//! rated Suicide game with premove, keyboard entry, chat (a muted opponent, chat off, a
//! spectator's line that never reaches the players), browsing earlier positions while the
//! game goes on, a confirmed resignation and the result banner with both rating changes; the
//! sound hook (`window.oddboardSounds`) records the sounds on the way. Another game has a
//! takeback declined, one accepted, and more time. A third test opens a game of every variant
//! at a desktop (1280x800) and a phone (390x844) size: no page wider than the window, a board
//! that uses the room, clocks at the board's edge, little layout shift, axe-core's checks,
//! and screenshots of each to `target/screenshots/`.

use super::axe::assert_no_serious_violations;
use super::browser::{
    confirm_click, lobby_ready, page_game, register, screenshots_dir, square_css, wait_ply,
};
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use oddboard::game::GameSettings;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// A test server, chromedriver and a directory of browser profiles, for one test.
struct Setup {
    server: TestServer,
    driver: Driver,
    profiles: PathBuf,
    base: String,
}

impl Setup {
    /// None when the browser is missing and the tests are told to skip.
    async fn start() -> Option<Setup> {
        if !browser_available() {
            return None;
        }
        // The first move may come long after the start on a loaded machine (two page loads
        // and a registration's password hash): the 30 s of the fast settings abort it.
        let settings = GameSettings {
            first_move_limit: Duration::from_secs(600),
            ..fast_settings()
        };
        let server = TestServer::start(settings).await;
        let base = format!("http://{}", server.addr);
        let driver = Driver::start().await;
        let profiles = std::env::temp_dir().join(format!(
            "oddboard-browser-game-{}",
            uuid::Uuid::new_v4().simple()
        ));
        Some(Setup {
            server,
            driver,
            profiles,
            base,
        })
    }

    /// `N` people, each registered in a browser session of their own.
    async fn people<const N: usize>(&self, prefix: &str) -> [Browser; N] {
        let suffix = &uuid::Uuid::new_v4().simple().to_string()[..6];
        let mut people = Vec::with_capacity(N);
        for i in 0..N {
            let mut browser = self
                .driver
                .session(&self.profiles.join(i.to_string()))
                .await;
            register(&mut browser, &self.base, &format!("{prefix}{i}{suffix}")).await;
            people.push(browser);
        }
        people
            .try_into()
            .unwrap_or_else(|_| unreachable!("N sessions were made"))
    }

    async fn finish<const N: usize>(self, people: [Browser; N]) {
        for browser in people {
            browser.quit().await;
        }
        drop(self.driver);
        let _ = std::fs::remove_dir_all(&self.profiles);
        self.server.stop().await;
    }
}
/// Runs a request from the page (with its session cookie) and returns the JSON answer.
pub(crate) async fn page_fetch(browser: &mut Browser, path: &str, body: Value) -> Value {
    browser
        .js(
            "window.__answer = null;
             fetch(arguments[0], { method: 'POST', headers: { 'content-type': 'application/json' },
                                   body: JSON.stringify(arguments[1]) })
               .then((r) => r.json()).then((d) => { window.__answer = d; },
                                               (e) => { window.__answer = { error: String(e) }; });",
            json!([path, body]),
        )
        .await;
    browser
        .wait_for(
            &format!("the answer to {path}"),
            "return window.__answer",
            json!([]),
        )
        .await
}

/// A creates a game (A white) with the API from its page, B accepts it; both open the page.
async fn start_game(base: &str, a: &mut Browser, b: &mut Browser, variant: &str) -> String {
    a.goto(&format!("{base}/")).await;
    let created = page_fetch(
        a,
        "/api/games",
        json!({"variant": variant, "clock": {"minutes": 10, "increment": 5}, "color": "white"}),
    )
    .await;
    let id = created["game_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no game: {created}"))
        .to_string();
    b.goto(&format!("{base}/")).await;
    // The lobby page opens the game by itself once it starts, which may come before the
    // answer: either will do.
    b.js(
        "window.__answer = null;
         fetch(arguments[0], { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'null' })
           .then((r) => r.json()).then((d) => { window.__answer = d; });",
        json!([format!("/api/games/{id}/accept")]),
    )
    .await;
    let accepted = b
        .wait_for(
            "the acceptance",
            "return window.__answer || (location.pathname.startsWith('/game/') && {game_id: arguments[0]})",
            json!([id]),
        )
        .await;
    assert_eq!(accepted["game_id"], json!(id), "{accepted}");
    for browser in [&mut *a, &mut *b] {
        browser.goto(&format!("{base}/game/{id}")).await;
        wait_active(browser).await;
    }
    id
}

async fn wait_active(browser: &mut Browser) {
    browser
        .wait_for(
            "the game to start",
            "const g = window.oddboard && window.oddboard.game; return g && g.status === 'active'",
            json!([]),
        )
        .await;
}

/// A rated Suicide game from the lobby: A seeks (White, rated, 10+5), B answers.
async fn start_rated_game(base: &str, a: &mut Browser, b: &mut Browser) -> String {
    lobby_ready(b, base).await;
    lobby_ready(a, base).await;
    a.js(
        "document.getElementById('seek-variant').value = 'suicide';
         document.getElementById('seek-color').value = 'white';
         document.getElementById('seek-rated').checked = true;",
        json!([]),
    )
    .await;
    // The full seek form is the "Create a game" dialog.
    a.click("#create-open").await;
    a.type_text("#seek-minutes", "10").await;
    a.type_text("#seek-increment", "5").await;
    a.click("#seek-submit").await;
    let play = "#seek-list button.play[data-variant=\"suicide\"]";
    b.wait_element(play).await;
    b.click(play).await;
    for browser in [&mut *a, &mut *b] {
        browser
            .wait_for(
                "the game to start",
                "const g = window.oddboard && window.oddboard.game; return g && g.status === 'active' && g.you",
                json!([]),
            )
            .await;
    }
    let id = a.js("return window.oddboard.game.id", json!([])).await;
    let rated = a.js("return window.oddboard.game.rated", json!([])).await;
    assert_eq!(rated, json!(true), "the seek made an unrated game");
    id.as_str().unwrap_or_default().to_string()
}

/// Plays `action` with two clicks on the board (from, then to).
async fn click_move(browser: &mut Browser, from: &str, to: &str) {
    browser.pointer_click(&square_css("main", from)).await;
    browser.pointer_click(&square_css("main", to)).await;
}

async fn sounds(browser: &mut Browser) -> Vec<String> {
    let value = browser
        .js("return window.oddboardSounds || []", json!([]))
        .await;
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

async fn text_of(browser: &mut Browser, css: &str) -> String {
    let value = browser
        .js(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
            json!([css]),
        )
        .await;
    value.as_str().unwrap_or_default().to_string()
}

async fn moves(browser: &mut Browser) -> Vec<String> {
    let value = browser
        .js(
            "return window.oddboard.game.moves.map((m) => m.machine)",
            json!([]),
        )
        .await;
    serde_json::from_value(value).unwrap_or_default()
}

/// White plays e3 by clicks; White's premove h3 is set during Black's turn and played at once
/// after Black's a5, typed in human notation; a second premove is cancelled by a click
/// elsewhere.
async fn premove_and_keyboard(a: &mut Browser, b: &mut Browser) {
    assert!(sounds(a).await.contains(&"start".to_string()));
    assert_turn_title(a, true).await;
    click_move(a, "e2", "e3").await;
    wait_ply(b, 1).await;
    wait_ply(a, 1).await;
    assert_turn_title(b, true).await;
    assert_turn_title(a, false).await;
    assert!(sounds(b).await.contains(&"move".to_string()));
    // A premove, cancelled by a click off the board.
    click_move(a, "g2", "g3").await;
    wait_premove(a, "g2g3").await;
    a.pointer_click("#status").await;
    wait_premove(a, "").await;
    // The premove that is played.
    click_move(a, "h2", "h3").await;
    wait_premove(a, "h2h3").await;
    b.type_text("#move-input", "a5\u{E007}").await;
    wait_ply(a, 3).await;
    wait_ply(b, 3).await;
    assert_eq!(moves(b).await, ["e2e3", "a7a5", "h2h3"]);
}

/// The tab title says "Your turn" exactly while it is.
async fn assert_turn_title(browser: &mut Browser, yours: bool) {
    let title = browser.js("return document.title", json!([])).await;
    let says = title.as_str().unwrap_or_default().starts_with("Your turn");
    assert_eq!(says, yours, "{title}");
}

/// Waits for the page's premove (`from` and `to` squares, or "" for none).
async fn wait_premove(browser: &mut Browser, premove: &str) {
    browser
        .wait_for(
            &format!("the premove {premove:?}"),
            "return document.getElementById('game').dataset.premove === arguments[0]",
            json!([premove]),
        )
        .await;
}

/// Black asks to take back a5 and White declines; then White asks to take back h3 and Black
/// accepts: one ply comes off both pages and White is to move again.
async fn takebacks(a: &mut Browser, b: &mut Browser) {
    b.click("#takeback").await;
    a.wait_element("#takeback-decline").await;
    a.click("#takeback-decline").await;
    b.wait_for(
        "the takeback declined",
        "return window.oddboard.game.takeback_offer === null && document.getElementById('status').textContent.includes('declined')",
        json!([]),
    )
    .await;
    assert_eq!(moves(a).await.len(), 3);
    a.click("#takeback").await;
    b.wait_element("#takeback-accept").await;
    b.click("#takeback-accept").await;
    for browser in [&mut *a, &mut *b] {
        browser
            .wait_for(
                "the takeback",
                "const g = window.oddboard.game; return g.moves.length === 2 && g.rules.turn === 'white'
                   && document.getElementById('game').dataset.ply === '2'
                   && !!document.querySelector('#boards .piece[data-square=\"h2\"]')
                   && !document.querySelector('#boards .piece[data-square=\"h3\"]')",
                json!([]),
            )
            .await;
    }
}

/// Black gives White 15 s: White's clock reading grows by that much, less what White's
/// clock may have run between the two readings (at most the time between their arrivals).
async fn more_time(a: &mut Browser, b: &mut Browser) {
    let before = a
        .js(
            "return [window.oddboard.game.clock.white_ms, window.oddboard.clockAt]",
            json!([]),
        )
        .await;
    b.click("#more-time").await;
    a.wait_for(
        "the more time",
        "const s = window.oddboard;
         return s.clockAt > arguments[1]
           && s.game.clock.white_ms + (s.clockAt - arguments[1]) >= arguments[0] + 14000;",
        before,
    )
    .await;
}

async fn chat_lines(browser: &mut Browser) -> Vec<String> {
    let value = browser
        .js(
            "return [...document.querySelectorAll('#chat-lines .chat-text')].map((e) => e.textContent)",
            json!([]),
        )
        .await;
    serde_json::from_value(value).unwrap_or_default()
}

async fn say(browser: &mut Browser, text: &str) {
    browser
        .type_text("#chat-input", &format!("{text}\u{E007}"))
        .await;
}

async fn wait_line(browser: &mut Browser, text: &str) {
    browser
        .wait_for(
            &format!("the chat line {text}"),
            "return [...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === arguments[0])",
            json!([text]),
        )
        .await;
}

/// Players' chat, markup shown as text; a spectator's line stays in the spectators' room; a
/// muted opponent's lines are hidden until unmuted; chat can be turned off.
async fn chat(base: &str, id: &str, a: &mut Browser, b: &mut Browser, c: &mut Browser) {
    say(a, "<b>hello</b> bob").await;
    wait_line(b, "<b>hello</b> bob").await;
    let bold = b
        .js(
            "return !!document.querySelector('#chat-lines b')",
            json!([]),
        )
        .await;
    assert_eq!(bold, json!(false), "chat text became markup");
    c.goto(&format!("{base}/game/{id}")).await;
    wait_active(c).await;
    a.wait_for(
        "the spectator count",
        "return document.getElementById('spectators').textContent === '1 watching'",
        json!([]),
    )
    .await;
    assert_no_serious_violations(c, "the game page (a spectator)").await;
    let title = text_of(c, "#chat-title").await;
    assert!(title.contains("Spectators"), "{title}");
    say(c, "spectator here").await;
    wait_line(c, "spectator here").await;
    say(a, "second").await;
    wait_line(b, "second").await;
    wait_line(a, "second").await;
    // Each socket delivers in order: a line the spectator sends after "second" comes back
    // to them after "second" would have, had it reached them.
    say(c, "marker").await;
    wait_line(c, "marker").await;
    for browser in [&mut *a, &mut *b] {
        assert!(!chat_lines(browser)
            .await
            .contains(&"spectator here".to_string()));
    }
    assert!(!chat_lines(c).await.contains(&"second".to_string()));
    // Muting: A's next line is hidden on B's page, and shown again once unmuted.
    b.click("#mute-opponent").await;
    say(a, "muted words").await;
    // A's two earlier lines are hidden at once; the third is the one sent after the mute.
    b.wait_for(
        "the muted line",
        "return document.getElementById('chat-note').textContent === '3 muted lines hidden.'",
        json!([]),
    )
    .await;
    assert!(!chat_lines(b).await.contains(&"muted words".to_string()));
    b.click("#mute-opponent").await;
    wait_line(b, "muted words").await;
    b.click("#chat-toggle").await;
    let hidden = b
        .js(
            "return document.getElementById('chat-lines').hidden",
            json!([]),
        )
        .await;
    assert_eq!(hidden, json!(true));
    b.click("#chat-toggle").await;
    wait_line(b, "muted words").await;
}

/// Browsing while the game goes on (Black to move at ply 3): the arrow key and a click on a
/// move show earlier positions, "Back to the game" and any new move return to the live one;
/// the spectator, who opened the page in the middle of the game, can see the start.
async fn browsing(a: &mut Browser, b: &mut Browser, c: &mut Browser) {
    b.type_text("#move-input", "b6\u{E007}").await;
    wait_ply(b, 4).await;
    let view = "return document.getElementById('game').dataset.view";
    b.pointer_click("#status").await; // the page, not an input, has the focus
    b.key("\u{E012}").await; // left arrow
    b.wait_for("ply 3 shown", &format!("{view} === '3'"), json!([]))
        .await;
    let b6 = b
        .js(
            "return !!document.querySelector('#boards .piece[data-square=\"b6\"]')",
            json!([]),
        )
        .await;
    assert_eq!(b6, json!(false), "the position after ply 3 shows b6");
    b.click("#moves button.move[data-ply=\"1\"]").await;
    b.wait_for("ply 1 shown", &format!("{view} === '1'"), json!([]))
        .await;
    b.click("#back-to-game").await;
    b.wait_for(
        "the live position",
        &format!("{view} === 'live'"),
        json!([]),
    )
    .await;
    c.click("#view-first").await;
    c.wait_for("the start", &format!("{view} === '0'"), json!([]))
        .await;
    // Black browses; White's move brings Black's board back to the game.
    b.pointer_click("#status").await;
    b.key("\u{E012}").await;
    b.wait_for("ply 3 shown", &format!("{view} === '3'"), json!([]))
        .await;
    a.type_text("#move-input", "b3\u{E007}").await;
    b.wait_for(
        "the live position after a move",
        &format!("{view} === 'live' && window.oddboard.game.moves.length === 5"),
        json!([]),
    )
    .await;
}

/// Resign asks for a second click; then both pages show the result banner with the rating
/// changes of this rated game, and the end sound.
async fn resign_and_banner(a: &mut Browser, b: &mut Browser) {
    a.click("#resign").await;
    a.wait_for(
        "the resign button asking to confirm",
        "const b = document.getElementById('resign');
         return b.dataset.confirm === 'armed' && b.textContent === 'Confirm resign?'",
        json!([]),
    )
    .await;
    // Left alone, the button goes back to its first state, and the game went on.
    a.wait_for(
        "the resign button back",
        "return document.getElementById('resign').textContent === 'Resign'",
        json!([]),
    )
    .await;
    assert_eq!(page_game(a).await.status, "active", "one click resigned");
    confirm_click(a, "#resign").await;
    for browser in [&mut *a, &mut *b] {
        browser
            .wait_for(
                "the banner",
                "const b = document.getElementById('result-banner');
                 return !b.hidden && b.dataset.result === '0-1 · Black wins'
                   && document.querySelectorAll('#rating-changes li').length === 2",
                json!([]),
            )
            .await;
        assert!(sounds(browser).await.contains(&"end".to_string()));
        let reason = text_of(browser, "#result-reason").await;
        assert!(reason.contains("resignation"), "{reason}");
        let hidden = browser
            .js(
                "return ['resign', 'abort', 'draw', 'takeback', 'more-time'].map((id) => document.getElementById(id).hidden)",
                json!([]),
            )
            .await;
        assert_eq!(hidden, json!([true, true, true, true, true]));
        let links = browser
            .js(
                "return [document.getElementById('rematch').hidden, document.getElementById('new-opponent').getAttribute('href'),
                         document.getElementById('replay-after').getAttribute('href').startsWith('/replay/')]",
                json!([]),
            )
            .await;
        assert_eq!(links, json!([false, "/", true]));
    }
    let changes = b
        .js(
            "return [...document.querySelectorAll('#rating-changes li')].map((l) => Number(l.dataset.diff))",
            json!([]),
        )
        .await;
    let diffs: Vec<i64> = serde_json::from_value(changes).unwrap_or_default();
    assert!(
        diffs[0] < 0 && diffs[1] > 0,
        "White lost, Black won: {diffs:?}"
    );
    b.screenshot(&screenshots_dir().join("game-banner.png"))
        .await;
    assert_no_serious_violations(b, "the game page (over, with the banner)").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_with_premove_chat_browsing_and_the_banner() {
    let Some(setup) = Setup::start().await else {
        return;
    };
    let base = setup.base.clone();
    let [mut a, mut b, mut c] = setup.people::<3>("gp").await;
    let id = start_rated_game(&base, &mut a, &mut b).await;
    eprintln!("browser_game: premove");
    premove_and_keyboard(&mut a, &mut b).await;
    assert_no_serious_violations(&mut a, "the game page (a player, live)").await;
    eprintln!("browser_game: chat");
    chat(&base, &id, &mut a, &mut b, &mut c).await;
    eprintln!("browser_game: browsing");
    browsing(&mut a, &mut b, &mut c).await;
    eprintln!("browser_game: resign");
    resign_and_banner(&mut a, &mut b).await;
    setup.finish([a, b, c]).await;
}

/// An unrated game (e3 a5 h3), then takebacks declined and accepted, and more time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takeback_declined_and_accepted_and_more_time() {
    let Some(setup) = Setup::start().await else {
        return;
    };
    let [mut a, mut b] = setup.people::<2>("tb").await;
    start_game(&setup.base, &mut a, &mut b, "suicide").await;
    for (ply, action) in [(1, "e3"), (2, "a5"), (3, "h3")] {
        let mover = if ply % 2 == 1 { &mut a } else { &mut b };
        mover
            .type_text("#move-input", &format!("{action}\u{E007}"))
            .await;
        wait_ply(&mut a, ply).await;
        wait_ply(&mut b, ply).await;
    }
    eprintln!("browser_game: takebacks");
    takebacks(&mut a, &mut b).await;
    eprintln!("browser_game: more time");
    more_time(&mut a, &mut b).await;
    b.screenshot(&screenshots_dir().join("game-more-time.png"))
        .await;
    setup.finish([a, b]).await;
}

/// Measures the page: (scrollWidth, innerWidth, main board width, clock's right edge less the
/// boards' right edge, the layout shift so far).
async fn measure(browser: &mut Browser) -> Value {
    browser
        .wait_for(
            "the measures",
            "const board = document.querySelector('#boards svg.board[data-board=\"main\"]');
             if (!board) return null;
             const boards = document.getElementById('boards').getBoundingClientRect();
             const clock = document.getElementById('bottom-clock').getBoundingClientRect();
             let shift = 0;
             for (const e of window.__shifts || []) if (!e.hadRecentInput) shift += e.value;
             return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
                      board: board.getBoundingClientRect().width, board_h: board.getBoundingClientRect().height,
                      height: window.innerHeight,
                      boards_right: boards.right, boards_w: boards.width, clock_right: clock.right, shift };",
            json!([]),
        )
        .await
}

/// Opens the game page afresh, recording layout shifts from the start.
async fn open_measured(browser: &mut Browser, url: &str) {
    browser.goto(url).await;
    browser
        .js(
            "window.__shifts = [];
             new PerformanceObserver((list) => window.__shifts.push(...list.getEntries()))
               .observe({ type: 'layout-shift', buffered: true });",
            json!([]),
        )
        .await;
    wait_active(browser).await;
}

async fn check_sizes(browser: &mut Browser, url: &str, variant: &str) {
    for (width, height, name) in [(1280u32, 800u32, "desktop"), (390, 844, "phone")] {
        if name == "phone" {
            browser.emulate_screen(width, height, true).await;
        } else {
            browser.stop_emulating_screen().await;
            browser.set_window(width, height).await;
        }
        open_measured(browser, url).await;
        let m = measure(browser).await;
        eprintln!("browser_game: {variant} {name}: {m}");
        let num = |k: &str| m[k].as_f64().unwrap_or_default();
        assert!(
            num("scroll") <= num("inner"),
            "{variant} {name}: wider than the window: {m}"
        );
        if name == "phone" {
            // The boards take the width (Duel's main board shares it with the Duel board).
            assert!(
                num("boards_w") >= num("inner") * 0.95,
                "{variant} phone: a small board: {m}"
            );
        } else {
            // As tall as the window allows (Duel's main board is taller than wide, Chazz's
            // wider than tall): at least 450 px of the 657 px the window has inside.
            let larger = num("board").max(num("board_h"));
            assert!(larger >= 450.0, "{variant} desktop: a small board: {m}");
        }
        // The clock sits at the board's edge.
        assert!(
            (num("clock_right") - num("boards_right")).abs() <= 12.0,
            "{variant} {name}: clock away from the board: {m}"
        );
        assert!(num("shift") < 0.1, "{variant} {name}: layout shift {m}");
        assert_no_serious_violations(browser, &format!("the {variant} game page ({name})")).await;
        browser
            .screenshot(&screenshots_dir().join(format!("{variant}-game-{name}.png")))
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_page_fits_desktop_and_phone_in_every_variant() {
    let Some(setup) = Setup::start().await else {
        return;
    };
    let base = setup.base.clone();
    let [mut a, mut b] = setup.people::<2>("fit").await;
    for variant in ["suicide", "chazz", "duel", "drehs", "chad"] {
        let id = start_game(&base, &mut a, &mut b, variant).await;
        check_sizes(&mut b, &format!("{base}/game/{id}"), variant).await;
        b.stop_emulating_screen().await;
        b.set_window(1100, 900).await;
    }
    // A game that does not exist: said so, with a link home and nothing to act on.
    let missing = uuid::Uuid::new_v4();
    a.goto(&format!("{base}/game/{missing}")).await;
    let page = a
        .wait_for(
            "the missing game",
            "return document.body.innerText.includes('No such game') || document.body.innerText.includes('does not exist')
               ? [...document.querySelectorAll('#resign, #abort, #rematch')].filter((e) => !e.hidden).length === 0
                 && !!document.querySelector('a[href=\"/\"]') : null",
            json!([]),
        )
        .await;
    assert_eq!(page, json!(true));
    setup.finish([a, b]).await;
}
