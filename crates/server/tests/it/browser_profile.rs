//! The player page and the leaderboard against a real server: two registered players play
//! rated games through the lobby, then a third person's browser (headless Chromium, through
//! [`super::webdriver`]) finds on the player page a rating chart whose points are the rating
//! history, the results per variant, the games with a small board of each final position and
//! a Challenge link; on the leaderboard, each variant's established ratings in order. Both
//! pages pass axe in the light and the dark theme and fit a 390 x 844 phone and a 1280 x 800
//! desktop; screenshots go to `target/screenshots/profile-*.png` and `leaderboard-*.png`.
//! The board read (`GET /api/games/{id}/board`) and the leaderboard API are checked over
//! HTTP (without a browser).

use super::axe::assert_no_serious_violations;
use super::browser::screenshots_dir;
use super::browser_site::{choose_theme, layout_shift, overflow, Session, MAX_LAYOUT_SHIFT, SIZES};
use super::lobby::{game_of, server, LobbyPlayer};
use super::server::{Player, TestServer, Watcher};
use super::webdriver::{browser_available, Browser};
use super::ws_game::{play_until, start_game};
use serde_json::{json, Value};

/// A GET that must answer; its status and JSON body.
async fn get(player: &mut LobbyPlayer, path: &str) -> (u16, Value) {
    let response = player
        .client
        .get(path)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    (response.status, response.json())
}

/// A lobby player's game socket, past its first snapshot.
async fn watch(player: &LobbyPlayer, game_id: &str) -> Watcher {
    let player = Player {
        name: player.name.clone(),
        client: player.client.clone(),
    };
    player.watch(game_id).await
}

/// A rated game of `variant` between `white` and `black` from their seeks, a few plies
/// played, then `loser` resigns. Its id.
async fn rated_game(
    white: &mut LobbyPlayer,
    black: &mut LobbyPlayer,
    variant: &str,
    white_loses: bool,
) -> String {
    white.seek(&format!("5 0 rated white {variant}")).await;
    let game = game_of(&black.ok(&format!("seek 5 0 rated black {variant}")).await);
    assert_eq!(game["rated"], true, "{game}");
    let game_id = game["game_id"].as_str().unwrap_or_default().to_string();
    let mut w = watch(white, &game_id).await;
    let mut b = watch(black, &game_id).await;
    play_until(&mut [&mut w, &mut b], &mut [], 4).await;
    let loser = if white_loses { &mut w } else { &mut b };
    loser.send(json!({ "t": "resign" })).await;
    loser.read_until(|s| s.outcome.is_some()).await;
    game_id
}

/// Signs the browser in as a new registered user through the API (the page's own fetch, so
/// the cookie is the browser's), whatever the lobby's forms look like.
async fn register_in_browser(browser: &mut Browser, base: &str, name: &str) {
    browser.goto(&format!("{base}/leaderboard")).await;
    let status = browser
        .js(
            "return fetch('/api/auth/register', { method: 'POST', headers: { 'content-type': 'application/json' },
               body: JSON.stringify({ username: arguments[0], password: 'correct horse battery' }) })
               .then((r) => r.status, (e) => String(e));",
            json!([name]),
        )
        .await;
    assert_eq!(status, json!(200), "register {name}");
}

/// Opens a player page and waits for its chart and boards. The page must not have moved as
/// they filled in: its layout shift (the sum Lighthouse's CLS takes, from the browser's own
/// `layout-shift` entries) stays under [`MAX_LAYOUT_SHIFT`].
async fn open_player(browser: &mut Browser, base: &str, name: &str) {
    browser.goto(&format!("{base}/player/{name}")).await;
    browser
        .wait_for(
            "the chart and the boards",
            "const p = document.getElementById('player');
             return p.dataset.chart === 'drawn' && p.dataset.boards === 'drawn'",
            json!([]),
        )
        .await;
    let (shift, moved) = layout_shift(browser).await;
    assert!(
        (0.0..MAX_LAYOUT_SHIFT).contains(&shift),
        "/player/{name} moved as it loaded: layout shift {shift}: {moved}"
    );
}

/// Axe in both themes and no overflow, at the current size; a screenshot of each theme.
async fn check_page(browser: &mut Browser, label: &str, shot: &str) {
    for theme in ["light", "dark"] {
        choose_theme(browser, theme).await;
        browser.click("#display-menu summary").await;
        let file = if theme == "light" {
            format!("{shot}.png")
        } else {
            format!("{shot}-dark.png")
        };
        browser.screenshot(&screenshots_dir().join(file)).await;
        assert_no_serious_violations(browser, &format!("{label} ({theme})")).await;
        assert_eq!(
            overflow(browser).await,
            Value::Null,
            "{label} ({theme}) is wider than the screen"
        );
    }
}

/// The rounded ratings of `name`'s history in `variant`, oldest first.
async fn history(player: &mut LobbyPlayer, name: &str, variant: &str) -> Vec<i64> {
    let (status, body) = get(
        player,
        &format!("/api/users/{name}/ratings/history?variant={variant}"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["history"]
        .as_array()
        .map(|h| {
            h.iter()
                .map(|e| e["rating"].as_f64().unwrap_or_default().round() as i64)
                .collect()
        })
        .unwrap_or_default()
}

/// The board read: a game's final position is the replay's last, of a game that is over
/// kept by browsers; a running dice game's board says nothing of its seed; an unknown game
/// is 404.
async fn check_board_reads(server: &TestServer, player: &mut LobbyPlayer, finished: &str) {
    let (status, board) = get(player, &format!("/api/games/{finished}/board")).await;
    assert_eq!(status, 200, "{board}");
    let (_, replay) = get(player, &format!("/api/games/{finished}/replay")).await;
    let snapshots = replay["snapshots"].as_array().cloned().unwrap_or_default();
    assert_eq!(board["ply"], json!(snapshots.len() - 1));
    assert_eq!(Some(&board["rules"]), snapshots.last());
    assert_eq!(board["status"], "finished");
    let cached = player
        .client
        .get(&format!("/api/games/{finished}/board"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        cached.header("cache-control"),
        Some("public, max-age=86400")
    );

    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let running = start_game(&mut alice, &mut bob, "drehs", Value::Null).await;
    let mut white = alice.watch(&running).await;
    let mut black = bob.watch(&running).await;
    play_until(&mut [&mut white, &mut black], &mut [], 4).await;
    let response = player
        .client
        .get(&format!("/api/games/{running}/board"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.header("cache-control"), Some("no-store"));
    let board = response.json();
    assert_eq!(
        (board["status"].clone(), board["ply"].clone()),
        (json!("active"), json!(4))
    );
    assert!(!response.body.contains("seed"), "{}", response.body);
    let (_, replay) = get(player, &format!("/api/games/{running}/replay")).await;
    assert_eq!(replay["dice_seed"], Value::Null);
    assert_eq!(
        Some(&board["rules"]),
        replay["snapshots"].as_array().and_then(|s| s.last())
    );

    for missing in [uuid::Uuid::new_v4().to_string(), "not-a-game".to_string()] {
        let (status, body) = get(player, &format!("/api/games/{missing}/board")).await;
        assert_eq!(
            (status, body["error"].clone()),
            (404, json!("game_not_found"))
        );
    }
}

/// The leaderboard API: in order, bounded, refusing what it cannot answer.
async fn check_leaderboard_api(player: &mut LobbyPlayer) {
    let (status, body) = get(player, "/api/leaderboard?variant=suicide").await;
    assert_eq!(status, 200, "{body}");
    let names: Vec<Value> = body["players"]
        .as_array()
        .map(|p| p.iter().map(|e| e["username"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(names, [json!("Rita"), json!("Sam")]);
    assert_eq!(body["players"][0]["rank"], 1);
    assert_eq!(body["variant_name"], "Suicide Chess");
    let (_, one) = get(player, "/api/leaderboard?variant=suicide&limit=1").await;
    assert_eq!(one["players"].as_array().map(Vec::len), Some(1));
    let (status, _) = get(player, "/api/leaderboard?variant=suicide&limit=100000").await;
    assert_eq!(status, 200);
    for (query, code) in [
        ("", "bad_query"),
        ("?variant=chess", "unknown_variant"),
        ("?variant=chad&limit=lots", "bad_query"),
    ] {
        let (status, body) = get(player, &format!("/api/leaderboard{query}")).await;
        assert_eq!(
            (status, body["error"].clone()),
            (422, json!(code)),
            "{query}"
        );
    }
}

/// The chart: the variant played most, rated, shown first; its points are the history;
/// another variant chosen shows its own.
async fn check_chart(browser: &mut Browser, suicide: &[i64], chad: &[i64]) {
    let shown = browser
        .js(
            "return [document.getElementById('chart-variant').value,
                     [...document.querySelectorAll('#chart .chart-point')].map((c) => Number(c.dataset.rating)),
                     document.querySelector('#chart svg[role=img]').getAttribute('aria-labelledby'),
                     document.getElementById('chart-caption').textContent,
                     document.querySelectorAll('#chart-table tr').length]",
            json!([]),
        )
        .await;
    let caption = format!(
        "Suicide Chess: 2 rated games, from {} to {}; now {} (provisional).",
        suicide[0], suicide[1], suicide[1]
    );
    assert_eq!(
        shown,
        json!(["suicide", suicide, "chart-caption", caption, 2])
    );
    browser
        .js(
            "const s = document.getElementById('chart-variant'); s.value = 'chad';
             s.dispatchEvent(new Event('change')); return true;",
            json!([]),
        )
        .await;
    let points = browser
        .js(
            "return [...document.querySelectorAll('#chart .chart-point')].map((c) => Number(c.dataset.rating))",
            json!([]),
        )
        .await;
    assert_eq!(points, json!(chad));
}

/// The results per variant and the games, each with a picture of its final position.
async fn check_results_and_games(browser: &mut Browser, rita: &mut LobbyPlayer, games: &[String]) {
    // Results per variant: rating (provisional), games, won / drawn / lost.
    let rows = browser
        .js(
            "return Object.fromEntries([...document.querySelectorAll('#ratings tr')].map((r) =>
               [r.dataset.variant, [...r.cells].slice(1).map((c) => c.textContent)]))",
            json!([]),
        )
        .await;
    let (_, finger) = get(rita, "/api/users/Rita").await;
    let rating_of = |variant: &str| {
        finger["ratings"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["variant"] == variant))
            .map(|r| format!("{}?", r["rating"]))
            .unwrap_or_default()
    };
    assert_eq!(
        rows["suicide"],
        json!([rating_of("suicide"), "2", "2 / 0 / 0"])
    );
    assert_eq!(rows["chad"], json!([rating_of("chad"), "1", "0 / 0 / 1"]));
    assert_eq!(rows["duel"], json!(["—", "0", "0 / 0 / 0"]));
    // The games, newest first, each with a picture of its final position.
    let (_, board) = get(rita, &format!("/api/games/{}/board", games[0])).await;
    let listed = browser
        .js(
            "return [...document.querySelectorAll('#games tr[data-game]')].map((r) => [
               r.dataset.game,
               !!r.querySelector('a[href^=\"/replay/\"]'),
               r.querySelectorAll('.mini-box svg.mini-board[role=img] g.piece').length,
               (r.querySelector('.mini-box svg') || {}).getAttribute?.('aria-label') || null])",
            json!([]),
        )
        .await;
    let listed = listed.as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), 3, "{listed:?}");
    for (row, id) in listed.iter().zip(games) {
        assert_eq!(row[0], json!(id));
        assert_eq!(row[1], json!(true));
        assert!(
            row[3]
                .as_str()
                .is_some_and(|l| l.starts_with("Final position of ")),
            "{row}"
        );
    }
    assert_eq!(
        listed[0][2],
        json!(board["rules"]["pieces"].as_array().map(Vec::len))
    );
}

/// The leaderboard page at both sizes: the first variant's players in order, linked; a
/// link shows another variant without a reload.
async fn check_leaderboard_pages(browser: &mut Browser, base: &str) {
    for (width, height) in SIZES {
        browser.set_window(width, height).await;
        browser.goto(&format!("{base}/leaderboard")).await;
        browser.wait_element("#lb-suicide").await;
        let order = browser
            .js(
                "return [...document.querySelectorAll('.lb-section:not([hidden]) tbody tr')].map((r) =>
                   [r.cells[0].textContent, r.cells[1].textContent, r.querySelector('a').getAttribute('href')])",
                json!([]),
            )
            .await;
        assert_eq!(
            order,
            json!([["1", "Rita", "/player/Rita"], ["2", "Sam", "/player/Sam"]])
        );
        check_page(
            browser,
            &format!("leaderboard {width}"),
            &format!("leaderboard-{width}"),
        )
        .await;
    }
    // Another variant's table, from its link, without a reload; the address follows.
    browser
        .js("window.samePage = true; return true", json!([]))
        .await;
    browser.click(".lb-tabs a[data-variant=chad]").await;
    let chad_board = browser
        .js(
            "return [window.samePage === true, location.search,
                     document.querySelector('.lb-tabs a[aria-current=page]').dataset.variant,
                     [...document.querySelectorAll('.lb-section:not([hidden]) tbody tr')].map((r) => r.cells[1].textContent)]",
            json!([]),
        )
        .await;
    assert_eq!(
        chad_board,
        json!([true, "?variant=chad", "chad", ["Sam", "Rita"]])
    );
}

/// A server where Rita and Sam, registered, have played three rated games: Rita won two of
/// Suicide (her history there: two points, rising) and lost one of Chad. The games' ids,
/// newest first.
async fn rita_and_sam() -> (TestServer, LobbyPlayer, Vec<String>) {
    let server = server().await;
    let mut rita = LobbyPlayer::registered(&server, "Rita").await;
    let mut sam = LobbyPlayer::registered(&server, "Sam").await;
    let mut games = vec![
        rated_game(&mut rita, &mut sam, "suicide", false).await,
        rated_game(&mut sam, &mut rita, "suicide", true).await,
        rated_game(&mut rita, &mut sam, "chad", true).await,
    ];
    games.reverse();
    (server, rita, games)
}

/// Makes every Suicide and Chad rating established, as a dozen rated games would.
async fn establish_ratings(server: &TestServer) {
    server
        .execute("update rating set deviation = 90 where variant in ('suicide', 'chad')")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_games_board_and_the_leaderboard_are_read_over_http() {
    let (server, mut rita, games) = rita_and_sam().await;
    check_board_reads(&server, &mut rita, &games[0]).await;
    // Provisional ratings are not listed.
    let (status, body) = get(&mut rita, "/api/leaderboard?variant=suicide").await;
    assert_eq!((status, body["players"].clone()), (200, json!([])));
    establish_ratings(&server).await;
    check_leaderboard_api(&mut rita).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_shows_its_chart_results_games_and_challenge_and_the_leaderboard_its_order() {
    if !browser_available() {
        return;
    }
    let (server, mut rita, games) = rita_and_sam().await;
    let base = format!("http://{}", server.addr);
    let suicide = history(&mut rita, "Rita", "suicide").await;
    let chad = history(&mut rita, "Rita", "chad").await;
    assert!(suicide.len() == 2 && suicide[1] > suicide[0], "{suicide:?}");
    assert_eq!(chad.len(), 1);

    let mut session = Session::start("profile").await;
    let browser = &mut session.browser;
    register_in_browser(browser, &base, "Vic").await;
    open_player(browser, &base, "Rita").await;
    check_chart(browser, &suicide, &chad).await;
    check_results_and_games(browser, &mut rita, &games).await;
    // Somebody else's page: a Challenge link to the lobby's form.
    let challenge = browser
        .js(
            "const a = document.getElementById('challenge'); return [a.getAttribute('href'), a.textContent]",
            json!([]),
        )
        .await;
    assert_eq!(challenge, json!(["/?challenge=Rita", "Challenge Rita"]));
    for (width, height) in SIZES {
        browser.set_window(width, height).await;
        open_player(browser, &base, "Rita").await;
        check_page(
            browser,
            &format!("profile {width}"),
            &format!("profile-{width}"),
        )
        .await;
    }
    // One's own page has none.
    open_player(browser, &base, "Vic").await;
    let own = browser
        .js("return document.getElementById('challenge')", json!([]))
        .await;
    assert_eq!(own, Value::Null);

    // The leaderboard, once the ratings are established (as a dozen games would make them).
    establish_ratings(&server).await;
    check_leaderboard_pages(browser, &base).await;
    // Signed out, the player page asks to sign in to challenge.
    browser
        .js(
            "return fetch('/api/auth/logout', { method: 'POST' }).then((r) => r.status);",
            json!([]),
        )
        .await;
    open_player(browser, &base, "Sam").await;
    let challenge = browser
        .js(
            "const a = document.getElementById('challenge'); return [a.getAttribute('href'), a.textContent]",
            json!([]),
        )
        .await;
    assert_eq!(
        challenge,
        json!(["/?challenge=Sam", "Sign in to challenge"])
    );
    session.end().await;
    server.stop().await;
}
