//! The lobby page (issue 40, item 1) in real Chromium, and its counts read: quick pairing
//! between two browser sessions in every variant (both land on the same game), cancelling
//! and replacing a search, the computer dialog opened from `?computer=` starting a game, a
//! signed-out visitor seeing a seek, being asked to sign in when acting on it and then
//! playing it, challenge-a-friend's link and Copy button, the players online and games in
//! play (`GET /api/lobby/stats`, exact counts, and on the page), live mini boards following a
//! game's actions, the URL parameters, and the page passing axe in both themes with nothing
//! wider than a 390 x 844 phone (seeks, games and a dialog shown). Screenshots:
//! `target/screenshots/lobby-{390,1280}.png`.

use super::axe::assert_no_serious_violations;
use super::browser::{lobby_ready, on_game_page, screenshots_dir};
use super::browser_site::{choose_theme, overflow, sign_in_as_guest, start_site, SIZES};
use super::server::{choose, fast_settings, Player, TestServer};

use super::webdriver::{browser_available, Browser, Driver};
use super::ws_game::{start_game, stored_record};
use oddboard_client::LobbySocket;
use serde_json::{json, Value};
use std::time::Duration;

const VARIANTS: [&str; 5] = ["suicide", "chazz", "duel", "drehs", "chad"];
/// The grid's clocks, as the page's cells carry them (`web::lobby::QUICK_CLOCKS`).
const CLOCKS: [(u32, u32); 6] = [(1, 0), (3, 2), (5, 3), (10, 5), (15, 10), (0, 0)];
const WAIT: Duration = Duration::from_secs(20);

fn cell(variant: &str, (time, inc): (u32, u32)) -> String {
    format!("#quick-grid button.quick[data-variant=\"{variant}\"][data-time=\"{time}\"][data-inc=\"{inc}\"]")
}

/// Every open seek, as an anonymous reader sees them.
async fn open_seeks(server: &TestServer) -> Vec<Value> {
    let mut client = server.client();
    let response = client
        .get("/api/seeks")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 200);
    response.json()["seeks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Waits until the open seeks are `expected` (variant, time, inc) of `user`, in any order.
async fn wait_seeks(server: &TestServer, user: &str, expected: &[(&str, u32, u32)]) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let seeks = open_seeks(server).await;
        let mut shown: Vec<(String, u64, u64)> = seeks
            .iter()
            .filter(|s| s["user"] == user)
            .map(|s| {
                (
                    s["variant"].as_str().unwrap_or_default().to_string(),
                    s["time"].as_u64().unwrap_or(99),
                    s["inc"].as_u64().unwrap_or(99),
                )
            })
            .collect();
        shown.sort();
        let mut wanted: Vec<(String, u64, u64)> = expected
            .iter()
            .map(|(v, t, i)| ((*v).to_string(), u64::from(*t), u64::from(*i)))
            .collect();
        wanted.sort();
        if shown == wanted {
            for s in seeks.iter().filter(|s| s["user"] == user) {
                // Quick pairing seeks: automatic, open colour, the full range.
                assert_eq!(
                    (&s["manual"], &s["color"], &s["min"], &s["max"], &s["rated"]),
                    (
                        &json!(false),
                        &Value::Null,
                        &json!(0),
                        &json!(9999),
                        &json!(false)
                    ),
                    "{s}"
                );
            }
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "seeks of {user}: {shown:?}, wanted {wanted:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn my_name(browser: &mut Browser) -> String {
    let name = browser
        .js(
            "return document.getElementById('me').dataset.username",
            json!([]),
        )
        .await;
    name.as_str().unwrap_or_default().to_string()
}

/// Whether a grid cell shows the searching state.
async fn searching(browser: &mut Browser, css: &str) -> Value {
    browser
        .js(
            "const c = document.querySelector(arguments[0]);
             return c.getAttribute('aria-pressed') === 'true' && c.classList.contains('searching');",
            json!([css]),
        )
        .await
}

/// A search shows on its cell and can be cancelled with the Cancel button, or by clicking
/// the cell again; another cell replaces it. Each time, the lobby's seeks say the same.
async fn searches_cancel_and_replace(server: &TestServer, browser: &mut Browser, base: &str) {
    lobby_ready(browser, base).await;
    let me = my_name(browser).await;
    let first = cell("chad", CLOCKS[2]);
    browser.click(&first).await;
    browser
        .wait_for(
            "the searching state",
            "const c = document.querySelector(arguments[0]);
             return c.getAttribute('aria-pressed') === 'true'
               && document.getElementById('quick-status').textContent.includes('Searching')
               && !document.getElementById('quick-cancel').hidden;",
            json!([first]),
        )
        .await;
    wait_seeks(server, &me, &[("chad", 5, 3)]).await;
    browser.click("#quick-cancel").await;
    browser
        .wait_for(
            "the search cancelled",
            "return document.querySelector(arguments[0]).getAttribute('aria-pressed') === 'false'
               && document.getElementById('quick-status').textContent.includes('cancelled')",
            json!([first]),
        )
        .await;
    wait_seeks(server, &me, &[]).await;
    // Another cell replaces the search; the same cell again ends it.
    let second = cell("duel", CLOCKS[5]);
    browser.click(&first).await;
    browser
        .wait_for(
            "searching",
            "return document.querySelector(arguments[0]).getAttribute('aria-pressed') === 'true'",
            json!([first]),
        )
        .await;
    browser.click(&second).await;
    browser
        .wait_for(
            "the search replaced",
            "return document.querySelector(arguments[1]).getAttribute('aria-pressed') === 'true'
               && document.querySelector(arguments[0]).getAttribute('aria-pressed') === 'false'",
            json!([first, second]),
        )
        .await;
    wait_seeks(server, &me, &[("duel", 0, 0)]).await;
    assert_eq!(searching(browser, &second).await, json!(true));
    browser.click(&second).await;
    wait_seeks(server, &me, &[]).await;
    // The server drops the seek before its reply reaches the page: wait for the page too.
    browser
        .wait_for(
            "the search ended on its cell",
            "const c = document.querySelector(arguments[0]);
             return c.getAttribute('aria-pressed') === 'false' && !c.classList.contains('searching')
               && document.getElementById('quick-cancel').hidden;",
            json!([second]),
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_pairing_pairs_two_sessions_in_every_variant_and_searches_cancel() {
    if !browser_available() {
        return;
    }
    let server = TestServer::start(fast_settings()).await;
    let base = format!("http://{}", server.addr);
    let driver = Driver::start().await;
    let profiles =
        std::env::temp_dir().join(format!("oddboard-lobby-{}", uuid::Uuid::new_v4().simple()));
    let mut a = driver.session(&profiles.join("a")).await;
    let mut b = driver.session(&profiles.join("b")).await;
    sign_in_as_guest(&mut a, &base).await;
    sign_in_as_guest(&mut b, &base).await;
    searches_cancel_and_replace(&server, &mut a, &base).await;
    let mut previous: Option<String> = None;
    for (i, variant) in VARIANTS.iter().enumerate() {
        let clock = CLOCKS[i % CLOCKS.len()];
        let css = cell(variant, clock);
        lobby_ready(&mut a, &base).await;
        lobby_ready(&mut b, &base).await;
        if let Some(game) = previous.take() {
            // The players' own game is listed and shown as a live board, which follows it as
            // a preview: the game does not count them present (`mux::a_preview_…`).
            a.wait_for(
                "the game listed and drawn as a live board",
                "return document.querySelector(`#live-list a[href=\"/game/${arguments[0]}\"]`)
                   && document.querySelector(`#live-boards li[data-game-id=\"${arguments[0]}\"] svg`);",
                json!([game]),
            )
            .await;
        }
        a.click(&css).await;
        a.wait_for(
            "A searching",
            "return document.querySelector(arguments[0]).getAttribute('aria-pressed') === 'true'",
            json!([css]),
        )
        .await;
        b.click(&css).await;
        let game_a = on_game_page(&mut a).await;
        let game_b = on_game_page(&mut b).await;
        assert_eq!(game_a, game_b, "{variant}: both on the same game");
        previous = Some(game_a.clone());
        let record = stored_record(&server, &game_a).await;
        assert_eq!(record["variant"], *variant, "{record}");
        let expected_clock = if clock == (0, 0) {
            Value::Null
        } else {
            json!({"initial_ms": clock.0 * 60_000, "increment_ms": clock.1 * 1000})
        };
        assert_eq!(record["clock"], expected_clock, "{record}");
        assert_eq!(record["rated"], false, "guests play unrated: {record}");
    }
    a.quit().await;
    b.quit().await;
    drop(driver);
    let _ = std::fs::remove_dir_all(&profiles);
    server.stop().await;
}

/// A lobby socket for `player` (the seeker's page, as it were), past its snapshot.
async fn lobby_socket(player: &Player) -> LobbySocket {
    let mut socket = player
        .client
        .connect_lobby()
        .await
        .unwrap_or_else(|e| panic!("lobby: {e}"));
    socket
        .wait_for(WAIT, |m| m["t"] == "lobby")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    socket
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_out_visitor_sees_seeks_signs_in_from_the_dialog_and_plays_the_seek() {
    let Some((server, base, mut session)) = start_site("lobby-signed-out").await else {
        return;
    };
    let seeker = server.guest().await;
    let mut socket = lobby_socket(&seeker).await;
    let seek =
        json!({"t": "seek", "variant": "chazz", "time": 5, "inc": 3, "rated": false, "ref": 1});
    socket.send(&seek).await.unwrap_or_else(|e| panic!("{e}"));
    let reply = socket
        .wait_for(WAIT, |m| m["t"] == "reply" || m["t"] == "error")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply["data"]["kind"], "seek_posted", "{reply}");
    let id = reply["data"]["seek"]["id"].clone();

    let browser = &mut session.browser;
    browser.goto(&format!("{base}/")).await;
    let play = format!("#seek-list button.play[data-seek=\"{id}\"]");
    browser.wait_element(&play).await;
    browser
        .wait_element(&format!("#seek-graph .seek-point[data-seek=\"{id}\"]"))
        .await;
    let row = browser
        .js(
            "return document.querySelector(arguments[0]).closest('tr').textContent",
            json!([play]),
        )
        .await;
    let row = row.as_str().unwrap_or_default();
    assert!(row.contains(&seeker.name) && row.contains("5+3"), "{row}");
    // A grid cell asks to sign in too; cancelled, nothing was sent.
    browser.click(&cell("suicide", CLOCKS[0])).await;
    browser
        .wait_element("#signin-dialog[open] #guest-button")
        .await;
    browser.click("#signin-cancel").await;
    browser
        .wait_for(
            "the sign-in dialog closed, still signed out",
            "return !document.querySelector('#signin-dialog[open]')
               && !document.getElementById('me').dataset.username
               && !!document.querySelector('#account #guest-button')",
            json!([]),
        )
        .await;
    let ids: Vec<Value> = open_seeks(&server)
        .await
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    assert_eq!(ids, vec![id.clone()], "only the seeker's seek");
    // Playing the seek: asked to sign in, as a guest, and then the game starts.
    browser.click(&play).await;
    browser
        .wait_element("#signin-dialog[open] #guest-button")
        .await;
    let why = browser
        .js(
            "return document.getElementById('signin-why').textContent",
            json!([]),
        )
        .await;
    assert!(
        why.as_str().unwrap_or_default().contains(&seeker.name),
        "{why}"
    );
    browser.click("#signin-dialog #guest-button").await;
    let game_id = on_game_page(browser).await;
    let started = socket
        .wait_for(WAIT, |m| m["t"] == "game_started")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(started["game"]["game_id"], game_id.as_str(), "{started}");
    assert_eq!(started["game"]["variant"], "chazz");
    session.end().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_dialog_opened_from_the_url_starts_a_game() {
    let Some((server, base, mut session)) = start_site("lobby-computer").await else {
        return;
    };
    let browser = &mut session.browser;
    browser.goto(&format!("{base}/?computer=chad")).await;
    browser.wait_element("#computer-dialog[open]").await;
    let chosen = browser
        .js(
            "return document.getElementById('computer-variant').value",
            json!([]),
        )
        .await;
    assert_eq!(chosen, json!("chad"));
    browser
        .js(
            "document.getElementById('computer-level').value = '0';",
            json!([]),
        )
        .await;
    browser.click("#computer-play").await;
    let game_id = on_game_page(browser).await;
    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["variant"], "chad", "{record}");
    let names = [&record["white_name"], &record["black_name"]];
    assert!(
        names
            .iter()
            .any(|n| n.as_str().unwrap_or_default() == "Computer-level-0"),
        "{record}"
    );
    session.end().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenge_a_friend_gives_a_link_to_copy_that_starts_the_game() {
    let Some((server, base, mut session)) = start_site("lobby-friend").await else {
        return;
    };
    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    browser
        .cdp(
            "Browser.grantPermissions",
            json!({"origin": base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await;
    browser.click("#friend-open").await;
    browser.wait_element("#friend-dialog[open]").await;
    browser
        .js(
            "document.getElementById('friend-variant').value = 'duel';
             document.getElementById('friend-color').value = 'white';",
            json!([]),
        )
        .await;
    browser.click("#friend-create").await;
    let link = browser
        .wait_for(
            "the link",
            "return !document.getElementById('friend-result').hidden && document.getElementById('friend-link').value",
            json!([]),
        )
        .await;
    let link = link.as_str().unwrap_or_default().to_string();
    let prefix = format!("{base}/game/");
    assert!(link.starts_with(&prefix), "{link}");
    let game_id = link[prefix.len()..].to_string();
    assert!(uuid::Uuid::parse_str(&game_id).is_ok(), "{link}");
    browser.click("#friend-copy").await;
    browser
        .wait_for(
            "copied",
            "return document.getElementById('friend-status').textContent === 'Link copied.'",
            json!([]),
        )
        .await;
    let copied = browser
        .js("return navigator.clipboard.readText()", json!([]))
        .await;
    assert_eq!(copied, json!(link));
    // The creator waits on the game page; the friend opens the link and accepts.
    browser.click("#friend-go").await;
    browser
        .wait_for(
            "the waiting game page",
            "const g = window.oddboard && window.oddboard.game; return g && g.status === 'waiting'",
            json!([]),
        )
        .await;
    let mut friend = server.guest().await;
    friend.accept(&game_id).await;
    assert_eq!(on_game_page(browser).await, game_id);
    let record = stored_record(&server, &game_id).await;
    assert_eq!(record["variant"], "duel");
    assert_eq!(record["black_name"], friend.name.as_str(), "{record}");
    session.end().await;
    server.stop().await;
}

async fn stats(server: &TestServer) -> Value {
    let mut client = server.client();
    let response = client
        .get("/api/lobby/stats")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 200, "{}", response.body);
    response.json()
}

/// Waits until the counts are `expected` (one count is served for up to a second).
async fn wait_stats(server: &TestServer, expected: Value) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let shown = stats(server).await;
        if shown == expected {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{shown}, wanted {expected}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Players online are the distinct people with a lobby socket or a seat in a game in
/// progress; games in play leave out open challenges nobody took, and the computer is no
/// player.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_stats_count_distinct_players_and_games_in_play() {
    let server = TestServer::start(fast_settings()).await;
    wait_stats(&server, json!({"players_online": 0, "games_in_play": 0})).await;
    let mut ann = server.guest().await;
    let mut bob = server.guest().await;
    let mut carl = server.guest().await;
    // An open challenge nobody took: nobody is playing yet. Carl comes to the lobby after
    // it, so a count with Carl in it was taken after the challenge too (a count is served
    // for up to a second), and shows neither Ann nor her challenge.
    let waiting = ann.create_game("suicide", Value::Null, "white").await;
    let _carl_1 = lobby_socket(&carl).await;
    wait_stats(&server, json!({"players_online": 1, "games_in_play": 0})).await;
    bob.accept(&waiting).await;
    wait_stats(&server, json!({"players_online": 3, "games_in_play": 1})).await;
    // Two sockets of one player count once; one who also plays counts once.
    let _carl_2 = lobby_socket(&carl).await;
    let _ann_lobby = lobby_socket(&ann).await;
    let second = start_game(&mut ann, &mut bob, "chazz", Value::Null).await;
    wait_stats(&server, json!({"players_online": 3, "games_in_play": 2})).await;
    // A game against the computer: one game more, no player more.
    let response = carl
        .client
        .post(
            "/api/games/computer",
            &json!({"variant": "suicide", "level": 0, "clock": null, "color": "white"}),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 201, "{}", response.body);
    wait_stats(&server, json!({"players_online": 3, "games_in_play": 3})).await;
    // A game that ends is no longer in play.
    let mut view = ann.watch(&second).await;
    view.send(json!({"t": "resign"})).await;
    view.read_until(|w| w.outcome.is_some()).await;
    wait_stats(&server, json!({"players_online": 3, "games_in_play": 2})).await;
    server.stop().await;
}

/// The page's counts, the live boards (following a game's actions), the URL parameters, and
/// the layout: axe in both themes and nothing wider than a phone with seeks, games and a
/// dialog shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_shows_counts_live_boards_and_fits_a_phone_in_both_themes() {
    let Some((server, base, mut session)) = start_site("lobby-page").await else {
        return;
    };
    let mut ann = server.guest().await;
    let mut bob = server.guest().await;
    let game_id = start_game(&mut ann, &mut bob, "duel", Value::Null).await;
    let mut games = vec![game_id.clone()];
    for variant in ["drehs", "chad"] {
        games.push(
            start_game(
                &mut bob,
                &mut ann,
                variant,
                json!({"minutes": 10, "increment": 5}),
            )
            .await,
        );
    }
    // A seek with a long name, to be listed too.
    let seeker = server.guest().await;
    let mut socket = lobby_socket(&seeker).await;
    let seek = json!({"t": "seek", "variant": "drehs", "time": 15, "inc": 10, "rated": false, "color": "black", "manual": true, "ref": 1});
    socket.send(&seek).await.unwrap_or_else(|e| panic!("{e}"));

    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    lobby_ready(browser, &base).await;
    // Ann, Bob, the seeker and this page: four players; three games.
    browser
        .wait_for(
            "the counts",
            "return document.getElementById('players-online').textContent === '4'
                && document.getElementById('games-in-play').textContent === '3'",
            json!([]),
        )
        .await;
    wait_stats(&server, json!({"players_online": 4, "games_in_play": 3})).await;
    for id in &games {
        browser
            .wait_element(&format!(
                "#live-boards li[data-game-id=\"{id}\"] svg.mini-board[role=img]"
            ))
            .await;
    }
    // Duel's picture holds its two boards side by side.
    let duel = browser
        .js(
            "return document.querySelectorAll(`#live-boards li[data-game-id=\"${arguments[0]}\"] svg.mini-board > g`).length",
            json!([game_id]),
        )
        .await;
    assert_eq!(duel, json!(2));
    // An action in the game moves its board.
    let mut white = ann.watch(&game_id).await;
    let action = choose(&white.legal, 0);
    white.act(&action).await;
    white.read_until(|w| w.ply >= 1).await;
    browser
        .wait_for(
            "the board after the action",
            "const li = document.querySelector(`#live-boards li[data-game-id=\"${arguments[0]}\"]`);
             return li.dataset.ply === '1' && !!li.querySelector('svg .last');",
            json!([game_id]),
        )
        .await;
    let href = browser
        .js(
            "return document.querySelector(`#live-boards li[data-game-id=\"${arguments[0]}\"] a`).getAttribute('href')",
            json!([game_id]),
        )
        .await;
    assert_eq!(href, json!(format!("/game/{game_id}")));
    browser
        .wait_element("#seek-list button.play[data-variant=\"drehs\"]")
        .await;
    check_layout(browser, &base).await;
    url_parameters(browser, &base).await;
    session.end().await;
    server.stop().await;
}

/// Axe in both themes at both sizes, nothing wider than the window (also with the "Create a
/// game" dialog open), screenshots.
async fn check_layout(browser: &mut Browser, base: &str) {
    for (width, height) in SIZES {
        browser.set_window(width, height).await;
        lobby_ready(browser, base).await;
        browser.wait_element("#live-boards svg.mini-board").await;
        for theme in ["light", "dark"] {
            choose_theme(browser, theme).await;
            browser.click("#display-menu summary").await;
            let label = format!("lobby ({theme}, {width}x{height})");
            let name = match theme {
                "light" => format!("lobby-{width}.png"),
                _ => format!("lobby-{width}-{theme}.png"),
            };
            browser.screenshot(&screenshots_dir().join(name)).await;
            assert_no_serious_violations(browser, &label).await;
            assert_eq!(overflow(browser).await, Value::Null, "{label}");
            browser.click("#create-open").await;
            browser.wait_element("#create-dialog[open]").await;
            if theme == "light" {
                let name = format!("lobby-{width}-create.png");
                browser.screenshot(&screenshots_dir().join(name)).await;
            }
            let label = format!("{label}, create dialog");
            assert_no_serious_violations(browser, &label).await;
            assert_eq!(overflow(browser).await, Value::Null, "{label}");
            browser.click("#create-cancel").await;
        }
    }
}

/// `?variant=` highlights a row, `?challenge=` opens "Create a game" with the opponent.
async fn url_parameters(browser: &mut Browser, base: &str) {
    browser.goto(&format!("{base}/?variant=drehs")).await;
    let highlighted = browser
        .wait_for(
            "the highlighted row",
            "return [...document.querySelectorAll('.quick-row.highlight')].map((r) => r.dataset.variant).join(',')",
            json!([]),
        )
        .await;
    assert_eq!(highlighted, json!("drehs"));
    browser.goto(&format!("{base}/?challenge=somebody")).await;
    browser.wait_element("#create-dialog[open]").await;
    let opponent = browser
        .js(
            "return document.getElementById('seek-opponent').value",
            json!([]),
        )
        .await;
    assert_eq!(opponent, json!("somebody"));
    // Unknown values open nothing.
    browser
        .goto(&format!("{base}/?variant=nope&computer=%3Cb%3E"))
        .await;
    // The page's module has run (it reads the parameters in the same task).
    browser
        .wait_for(
            "the lobby's script",
            "return !!(window.oddboard && window.oddboard.lobby)",
            json!([]),
        )
        .await;
    let open = browser
        .js(
            "return document.querySelectorAll('dialog[open], .quick-row.highlight').length",
            json!([]),
        )
        .await;
    assert_eq!(open, json!(0));
}
