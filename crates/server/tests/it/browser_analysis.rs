//! The replay page's analysis panel in a real browser (headless Chromium through
//! [`super::webdriver`]): a game played to its end over the WebSocket, its replay opened, the
//! panel opened with its button; the score graph, the best line at the ply shown (which
//! follows the arrow keys and a click on the graph) and the listed drops, at a desktop and a
//! phone width. Screenshots go to `target/screenshots/`.

use super::analysis::analysis_when_done;
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use super::ws_game::{play_until, start_game, stored_record_once};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn screenshots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target")
        .join("screenshots")
}

/// A Suicide game of `plies` plies that Black then resigns; its id and number of actions.
pub(super) async fn finished_game(server: &TestServer, plies: u64) -> (String, usize) {
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let game_id = start_game(&mut alice, &mut bob, "suicide", Value::Null).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play_until(&mut [&mut white, &mut black], &mut [], plies).await;
    black.send(json!({ "t": "resign" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    let record = stored_record_once(server, &game_id, |r| r["status"] == "finished").await;
    let actions = record["actions"].as_array().map_or(0, Vec::len);
    (game_id, actions)
}

/// A browser on the replay of `game_id`, once it is loaded: its driver, the browser and the
/// browser's profile folder (the caller removes it when done).
pub(super) async fn open_replay(server: &TestServer, game_id: &str) -> (Driver, Browser, PathBuf) {
    let driver = Driver::start().await;
    let profile = std::env::temp_dir().join(format!(
        "oddboard-analysis-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let mut browser = driver.session(&profile).await;
    browser
        .goto(&format!("http://{}/replay/{game_id}", server.addr))
        .await;
    browser
        .wait_for(
            "the replay",
            "return document.getElementById('replay').dataset.loaded",
            json!([]),
        )
        .await;
    (driver, browser, profile)
}

/// The text of the best line shown, once it is for `ply`.
async fn line_at(browser: &mut Browser, ply: usize) -> String {
    let text = browser
        .wait_for(
            &format!("the best line at ply {ply}"),
            "const line = document.getElementById('analysis-line').textContent;
             return line.startsWith(`Ply ${arguments[0]}:`) ? line : null",
            json!([ply]),
        )
        .await;
    text.as_str().unwrap_or_default().to_string()
}

async fn panel_is_drawn(browser: &mut Browser, positions: usize) {
    browser
        .wait_for(
            "the analysis to be done",
            "return document.getElementById('analysis').dataset.status === 'done'",
            json!([]),
        )
        .await;
    let points = browser
        .js(
            "return Number(document.getElementById('analysis-graph').dataset.points)",
            json!([]),
        )
        .await;
    assert_eq!(points, json!(positions), "one point per position");
    let circles = browser
        .js(
            "return document.querySelectorAll('#analysis-graph svg .graph-point').length",
            json!([]),
        )
        .await;
    assert_eq!(circles, json!(positions));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_page_shows_the_analysis_graph_and_best_line() {
    if !browser_available() {
        return;
    }
    let server = TestServer::start(fast_settings()).await;
    let (game_id, actions) = finished_game(&server, 6).await;
    // The engine's work is done first, within the HTTP test's patience: the page then
    // reads what the cache holds and the browser's waits are about the page alone.
    analysis_when_done(&mut server.client(), &game_id).await;

    let (driver, mut browser, profile) = open_replay(&server, &game_id).await;
    let hidden = browser
        .js(
            "return document.getElementById('analysis-body').hidden",
            json!([]),
        )
        .await;
    assert_eq!(hidden, json!(true), "the panel starts closed");
    browser.click("#analysis-toggle").await;
    panel_is_drawn(&mut browser, actions + 1).await;
    let expanded = browser
        .js(
            "return document.getElementById('analysis-toggle').getAttribute('aria-expanded')",
            json!([]),
        )
        .await;
    assert_eq!(expanded, json!("true"));

    follow_the_replay(&mut browser, actions).await;
    check_drops(&mut browser).await;
    browser
        .screenshot(&screenshots_dir().join("analysis-desktop.png"))
        .await;
    fits_a_phone(&mut browser).await;
    browser.quit().await;
    drop(driver);
    let _ = std::fs::remove_dir_all(&profile);
    server.stop().await;
}

/// Each listed drop is a button that jumps to its ply.
async fn check_drops(browser: &mut Browser) {
    let plies = browser
        .js(
            "return [...document.querySelectorAll('#analysis-drops button')].map((b) => Number(b.dataset.ply))",
            json!([]),
        )
        .await;
    let plies: Vec<u64> = plies
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    assert!(plies.len() <= 5, "{plies:?}");
    if let Some(&ply) = plies.first() {
        browser.click("#analysis-drops button").await;
        let shown = browser
            .js(
                "return document.getElementById('replay').dataset.ply",
                json!([]),
            )
            .await;
        assert_eq!(shown, json!(ply.to_string()));
    }
}

/// The best line follows the ply shown: at the end, a step back with the arrow key, and the
/// start after a click at the graph's left edge.
async fn follow_the_replay(browser: &mut Browser, actions: usize) {
    // The replay opens at the end, where Black resigned: the engine still has a best line.
    let last = line_at(browser, actions).await;
    assert!(
        last.contains("Best line: ") && !last.ends_with("–"),
        "{last}"
    );
    // A step back with the arrow key moves the line with it.
    browser.key("\u{E012}").await;
    let before = line_at(browser, actions - 1).await;
    assert!(before.contains("Best line: "), "{before}");
    // A click at the graph's left edge goes to the start.
    browser
        .js(
            "const svg = document.querySelector('#analysis-graph svg');
             const box = svg.getBoundingClientRect();
             svg.dispatchEvent(new MouseEvent('click', { clientX: box.left + 1, clientY: box.top + 5, bubbles: true }));",
            json!([]),
        )
        .await;
    line_at(browser, 0).await;
    let shown = browser
        .js(
            "return document.getElementById('replay').dataset.ply",
            json!([]),
        )
        .await;
    assert_eq!(shown, json!("0"));
}

/// At a phone's width the graph fits the screen.
async fn fits_a_phone(browser: &mut Browser) {
    browser.set_window(390, 844).await;
    let fits = browser
        .js(
            "const box = document.querySelector('#analysis-graph svg').getBoundingClientRect();
             return box.width > 100 && box.right <= document.documentElement.clientWidth",
            json!([]),
        )
        .await;
    assert_eq!(fits, json!(true));
    browser
        .js(
            "document.getElementById('analysis').scrollIntoView()",
            json!([]),
        )
        .await;
    browser
        .screenshot(&screenshots_dir().join("analysis-phone.png"))
        .await;
}
