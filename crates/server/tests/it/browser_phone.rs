//! Every variant at a glance on a phone held either way and on a laptop (issue 48), in real
//! Chromium, by element geometry: at 390 x 844, 844 x 390 and 1280 x 800 the whole of every
//! board (Duel's two), both players' bars with their clocks and the bar marked as to move lie
//! inside the window without scrolling; on a phone the move strip too, and the header is one
//! row; held sideways, the boards take the height with the panel beside them. The strip shows
//! a position at a tap; on Chad's small squares a finger's tap only proposes a move and a
//! second tap plays it, while an 8x8 board plays at the first tap. Screenshots:
//! `target/screenshots/phone-<variant>-<width>x<height>.png`.

use super::browser::{page_game, screenshots_dir, square_css, square_tokens, wait_ply};
use super::browser_hints::{answer, new_game_with_clock, open_game};
use super::browser_site::{sign_in_as_guest, start_site};
use super::browser_variants::check_page;
use super::webdriver::Browser;
use serde_json::{json, Value};

const SIZES: [(u32, u32); 3] = [(390, 844), (844, 390), (1280, 800)];
const VARIANTS: [&str; 5] = ["suicide", "chazz", "duel", "drehs", "chad"];

/// What the window shows: its size and scroll, and the boxes of the boards, bars, clocks,
/// strip, header and panel.
async fn layout(browser: &mut Browser) -> Value {
    browser
        .wait_for(
            "the game page laid out",
            "const g = document.getElementById('game');
             if (g.dataset.status !== 'active' || !document.querySelector('#boards svg.board')) return null;
             const box = (e) => { const r = e.getBoundingClientRect();
               return { l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height }; };
             const q = (s) => document.querySelector(s);
             const legends = [...document.querySelectorAll('#boards .board-legend')].map((e) => box(e).b);
             const toMove = q('.player-bar.to-move');
             return {
               vw: window.innerWidth, vh: window.innerHeight, scroll_y: window.scrollY,
               scroll_w: document.documentElement.scrollWidth,
               boards: [...document.querySelectorAll('#boards svg.board')].map(box),
               legend_bottom: legends.length ? Math.max(...legends) : null,
               bars: ['#top-bar', '#bottom-bar'].map((s) => box(q(s))),
               clocks: ['#top-clock', '#bottom-clock'].map((s) => box(q(s))),
               to_move: toMove ? box(toMove) : null,
               strip: getComputedStyle(q('#move-strip')).display === 'none' ? null : box(q('#move-strip')),
               header: box(q('header.top')),
               header_items: ['.brand', '#display-menu summary', '#me'].map((s) => box(q(s))),
               side: box(q('.gp-side')),
             };",
            json!([]),
        )
        .await
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// Whether box `b` lies wholly inside the window of `page`, and is not empty.
fn inside(page: &Value, b: &Value) -> bool {
    num(&b["w"]) > 0.0
        && num(&b["h"]) > 0.0
        && num(&b["l"]) >= -0.5
        && num(&b["t"]) >= -0.5
        && num(&b["r"]) <= num(&page["vw"]) + 0.5
        && num(&b["b"]) <= num(&page["vh"]) + 0.5
}

/// What a player must see without scrolling, and the shape of the page at this size.
fn assert_at_a_glance(page: &Value, variant: &str, (width, height): (u32, u32)) {
    let at = format!("{variant} at {width}x{height}: {page}");
    assert_eq!(
        num(&page["vw"]),
        f64::from(width),
        "the window's width, {at}"
    );
    assert_eq!(num(&page["scroll_y"]), 0.0, "{at}");
    assert!(
        num(&page["scroll_w"]) <= num(&page["vw"]),
        "wider than the window: {at}"
    );
    let boards = page["boards"].as_array().cloned().unwrap_or_default();
    assert_eq!(boards.len(), if variant == "duel" { 2 } else { 1 }, "{at}");
    for (i, board) in boards.iter().enumerate() {
        assert!(inside(page, board), "board {i} not in view: {at}");
    }
    for i in 0..2 {
        assert!(inside(page, &page["bars"][i]), "bar {i} not in view: {at}");
        assert!(
            inside(page, &page["clocks"][i]),
            "clock {i} not in view: {at}"
        );
    }
    assert!(inside(page, &page["to_move"]), "the turn not in view: {at}");

    let phone = width < 1000;
    let header = &page["header"];
    if phone {
        assert!(
            inside(page, &page["strip"]),
            "the move strip not in view: {at}"
        );
        // The header is one row: its brand, menu and name side by side, no taller than a row.
        let tops: Vec<f64> = (0..3)
            .map(|i| {
                let item = &page["header_items"][i];
                (num(&item["t"]) + num(&item["b"])) / 2.0
            })
            .collect();
        assert!(
            tops.iter().all(|t| (t - tops[0]).abs() < 8.0) && num(&header["h"]) < 56.0,
            "the header is not one row: {at}"
        );
    } else {
        assert!(
            page["strip"].is_null(),
            "a strip beside the move list: {at}"
        );
    }
    let left = boards.iter().map(|b| num(&b["l"])).fold(f64::MAX, f64::min);
    let right = boards.iter().map(|b| num(&b["r"])).fold(0.0, f64::max);
    let top = boards.iter().map(|b| num(&b["t"])).fold(f64::MAX, f64::min);
    let bottom = boards
        .iter()
        .map(|b| num(&b["b"]))
        .fold(num(&page["legend_bottom"]).max(0.0), f64::max);
    if width < height {
        // Upright: the boards take the width.
        assert!(
            right - left >= 0.9 * f64::from(width),
            "boards narrower than the screen: {at}"
        );
    } else if phone {
        // Sideways: the boards (with their legend) take the height below the header, and the
        // panel stands beside them.
        let room = num(&page["vh"]) - num(&header["b"]);
        assert!(
            bottom - top >= 0.85 * room,
            "boards shorter than the screen: {at}"
        );
        assert!(
            num(&page["side"]["l"]) >= right,
            "the panel is not beside the boards: {at}"
        );
        for i in 0..2 {
            assert!(
                num(&page["bars"][i]["l"]) >= right,
                "bar {i} not beside the boards: {at}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_variant_is_seen_whole_on_a_phone_either_way_and_on_a_laptop() {
    let Some((server, base, mut session)) = start_site("phone").await else {
        return;
    };
    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    let mut opponent = server.guest().await;
    for variant in VARIANTS {
        let clock = json!({ "minutes": 10, "increment": 5 });
        let id = new_game_with_clock(&base, browser, &mut opponent, variant, clock).await;
        for size in SIZES {
            browser.emulate_screen(size.0, size.1, size.0 < 1000).await;
            open_game(&base, browser, &id).await;
            let page = layout(browser).await;
            browser
                .screenshot(
                    &screenshots_dir().join(format!("phone-{variant}-{}x{}.png", size.0, size.1)),
                )
                .await;
            assert_at_a_glance(&page, variant, size);
            if (variant, size) == ("duel", (390, 844)) || (variant, size) == ("chad", (844, 390)) {
                check_page(
                    browser,
                    &format!("game page, {variant} at {}x{}", size.0, size.1),
                )
                .await;
            }
        }
    }
    session.end().await;
    server.stop().await;
}

/// The action from `from` to `to` on the page's board, for a tap on each: its board and squares.
fn taps(game: &super::browser::PageGame, action: &str) -> (String, String, String) {
    let squares = square_tokens(action);
    let board = game
        .pieces
        .iter()
        .find(|(_, square, _)| *square == squares[0])
        .map(|(board, _, _)| board.clone())
        .unwrap_or_else(|| panic!("no piece on {} for {action}", squares[0]));
    (board, squares[0].clone(), squares[1].clone())
}

/// A plain move of the side to move: two squares, the only action between them.
fn plain_move(game: &super::browser::PageGame) -> String {
    game.legal
        .iter()
        .find(|a| {
            let s = square_tokens(a);
            s.len() == 2
                && !a.contains('x')
                && game.legal.iter().filter(|b| square_tokens(b) == s).count() == 1
        })
        .cloned()
        .unwrap_or_else(|| panic!("no plain move in {:?}", game.legal))
}

/// The picker's proposed move, and whether the board marks its square.
async fn proposed(browser: &mut Browser) -> Value {
    browser
        .js(
            "const p = document.getElementById('picker');
             return [p.hidden ? null : (p.dataset.confirm || null),
                     document.querySelectorAll('#boards .marks .confirm').length];",
            json!([]),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finger_plays_chad_with_a_second_tap_and_browses_with_the_strip() {
    let Some((server, base, mut session)) = start_site("phone-touch").await else {
        return;
    };
    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    let mut opponent = server.guest().await;
    browser.emulate_screen(390, 844, true).await;

    // Suicide's squares on a phone are about 48 px: a tap from and a tap to play at once.
    let id = new_game_with_clock(&base, browser, &mut opponent, "suicide", Value::Null).await;
    open_game(&base, browser, &id).await;
    let mut black = opponent.watch(&id).await;
    browser.touch_tap(&square_css("main", "e2")).await;
    browser.touch_tap(&square_css("main", "e4")).await;
    wait_ply(browser, 1).await;
    assert_eq!(proposed(browser).await, json!([null, 0]));
    answer(&mut black, "e7e6", 1).await;
    wait_ply(browser, 2).await;
    // The strip lists both moves, the live one marked; a tap on the first shows its position.
    let strip = browser
        .js(
            "return [...document.querySelectorAll('#move-strip .strip-move')]
               .map((b) => [b.textContent, b.classList.contains('current')])",
            json!([]),
        )
        .await;
    assert_eq!(strip, json!([["e4", false], ["e6", true]]));
    browser
        .pointer_click("#move-strip .strip-move[data-ply=\"1\"]")
        .await;
    browser
        .wait_for(
            "the position after ply 1, shown from the strip",
            "return document.getElementById('game').dataset.view === '1'
               && document.querySelector('#move-strip .strip-move.current').dataset.ply === '1'",
            json!([]),
        )
        .await;

    // Chad's squares on a phone are about 32 px: the first tap proposes, the second plays.
    let id = new_game_with_clock(&base, browser, &mut opponent, "chad", Value::Null).await;
    open_game(&base, browser, &id).await;
    let game = page_game(browser).await;
    let action = plain_move(&game);
    let (board, from, to) = taps(&game, &action);
    browser.touch_tap(&square_css(&board, &from)).await;
    browser.touch_tap(&square_css(&board, &to)).await;
    assert_eq!(
        proposed(browser).await,
        json!([format!("{from}{to}"), 1]),
        "{action}"
    );
    browser
        .screenshot(&screenshots_dir().join("phone-chad-confirm-390x844.png"))
        .await;
    let ply = browser
        .js(
            "return document.getElementById('game').dataset.ply",
            json!([]),
        )
        .await;
    assert_eq!(ply, json!("0"), "a proposed move is not played");
    // A tap elsewhere drops the proposal; the same two taps propose it again.
    browser.touch_tap(&square_css(&board, &from)).await;
    assert_eq!(proposed(browser).await, json!([null, 0]));
    browser.touch_tap(&square_css(&board, &to)).await;
    assert_eq!(proposed(browser).await, json!([format!("{from}{to}"), 1]));
    browser.touch_tap(&square_css(&board, &to)).await;
    wait_ply(browser, 1).await;
    let played = browser
        .js("return window.oddboard.game.moves[0].machine", json!([]))
        .await;
    assert_eq!(played, json!(action));
    assert_eq!(proposed(browser).await, json!([null, 0]));

    session.end().await;
    server.stop().await;
}
