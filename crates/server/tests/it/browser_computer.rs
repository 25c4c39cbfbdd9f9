//! Playing the computer in a real browser: a person opens the lobby's "Play the computer"
//! dialog, starts a game in every variant (at levels from random to the strongest, in both
//! colours), plays through the board while the computer answers, and resigns; the game is
//! then stored, unrated, against the computer's account. A piece picked up stays in hand
//! while the page draws the same position again.

use super::browser::{
    board_squares, choose, confirm_click, on_game_page, page_game, play_through_board, register,
    screenshots_dir, square_css, square_tokens, wait_ply,
};
use super::browser_site::start_site;
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use super::ws_game::stored_record_once;
use serde_json::json;

/// The person's actions in each game before resigning.
const PERSON_ACTIONS: usize = 3;

/// Starts a game from the lobby's dialog and waits until the page shows it under way
/// (also used by `browser_board`).
pub(crate) async fn start_from_the_dialog(
    browser: &mut Browser,
    base: &str,
    variant: &str,
    level: u8,
    color: &str,
) -> String {
    browser.goto(&format!("{base}/")).await;
    browser.click("#computer-open").await;
    browser.wait_element("#computer-dialog[open]").await;
    browser
        .js(
            "document.getElementById('computer-variant').value = arguments[0];
             document.getElementById('computer-level').value = String(arguments[1]);
             document.getElementById('computer-color').value = arguments[2];",
            json!([variant, level, color]),
        )
        .await;
    browser.click("#computer-play").await;
    on_game_page(browser).await
}

/// Plays [`PERSON_ACTIONS`] actions through the board, waiting each time for the computer.
async fn play_some_actions(browser: &mut Browser, you: &str) {
    let squares = board_squares(browser).await;
    let mut played = 0;
    while played < PERSON_ACTIONS {
        let game = page_game(browser).await;
        if game.status != "active" {
            return;
        }
        if game.turn != you {
            // The computer's turn: its action must come.
            wait_ply(browser, game.ply + 1).await;
            continue;
        }
        let action = choose(&game, &squares);
        play_through_board(browser, &action, &game, &squares, played % 2 == 1).await;
        wait_ply(browser, game.ply + 1).await;
        played += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_the_computer_in_every_variant_from_the_lobby() {
    if !browser_available() {
        return;
    }
    let server = TestServer::start(fast_settings()).await;
    let base = format!("http://{}", server.addr);
    let driver = Driver::start().await;
    let profile = std::env::temp_dir().join(format!(
        "oddboard-browser-computer-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let mut browser = driver.session(&profile).await;
    let name = format!("carol{}", &uuid::Uuid::new_v4().simple().to_string()[..6]);
    register(&mut browser, &base, &name).await;
    let games = [
        ("suicide", 0, "white"),
        ("chazz", 2, "black"),
        ("duel", 4, "white"),
        ("drehs", 6, "black"),
        ("chad", 8, "white"),
    ];
    for (variant, level, color) in games {
        eprintln!("browser: {variant} against level {level} as {color}");
        let game_id = start_from_the_dialog(&mut browser, &base, variant, level, color).await;
        play_some_actions(&mut browser, color).await;
        browser
            .screenshot(&screenshots_dir().join(format!("{variant}-computer.png")))
            .await;
        if page_game(&mut browser).await.status == "active" {
            // The computer never leaves: nothing to claim against it.
            let away = browser
                .js(
                    "return document.body.innerText.includes('opponent left')
                        || !!document.getElementById('claim-victory');",
                    json!([]),
                )
                .await;
            assert_eq!(away, json!(false), "{variant}");
            // Resign asks for a second click.
            confirm_click(&mut browser, "#resign").await;
        }
        let record = stored_record_once(&server, &game_id, |r| r["status"] == "finished").await;
        assert_eq!(record["status"], "finished", "{variant}: {record}");
        assert_eq!(record["rated"], false);
        let computer = if color == "white" { "black" } else { "white" };
        assert_eq!(
            record[format!("{computer}_name")],
            format!("Computer-level-{level}"),
            "{record}"
        );
        assert_eq!(record[format!("{color}_name")], name.as_str());
    }
    browser.quit().await;
    drop(driver);
    let _ = std::fs::remove_dir_all(&profile);
    server.stop().await;
}

/// A piece picked up stays in hand when the page draws the same position again, as it does
/// when the earlier positions of a game it joined after the first move arrive a moment
/// after the snapshot (a reload, or the computer moving first): the second click then makes
/// the move. The redraw is the board's own `update` with an equal snapshot, as the page's
/// render gives it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_piece_picked_up_stays_in_hand_when_the_page_redraws_the_same_position() {
    let Some((server, base, mut session)) = start_site("browser-in-hand").await else {
        return;
    };
    let browser = &mut session.browser;
    let name = format!("dave{}", &uuid::Uuid::new_v4().simple().to_string()[..6]);
    register(browser, &base, &name).await;
    start_from_the_dialog(browser, &base, "suicide", 0, "white").await;
    let game = page_game(browser).await;
    let squares = board_squares(browser).await;
    let action = choose(&game, &squares);
    let tokens = square_tokens(&action);
    let (from, to) = (&tokens[0], &tokens[1]);
    browser
        .pointer_click(&square_css(&squares[from], from))
        .await;
    browser.wait_element("#boards .targets circle").await;
    browser
        .js(
            "const view = document.getElementById('boards').boardView;
             view.update(JSON.parse(JSON.stringify(view.snapshot)), view.interactive);",
            json!([]),
        )
        .await;
    let in_hand = browser
        .js(
            "return [document.querySelectorAll('#boards .targets circle').length,
                     document.querySelector('#boards [aria-selected=true]')?.dataset.square];",
            json!([]),
        )
        .await;
    assert!(
        in_hand[0].as_u64().unwrap_or(0) > 0 && in_hand[1] == json!(from),
        "after the redraw: {in_hand}, {from} picked up"
    );
    browser.pointer_click(&square_css(&squares[to], to)).await;
    wait_ply(browser, 1).await;
    let first = browser
        .js("return window.oddboard.game.moves[0].machine", json!([]))
        .await;
    assert_eq!(first, json!(action));
    session.end().await;
    server.stop().await;
}
