//! The game page at a glance in real Chromium: the bar of the side to move is marked (a class,
//! the words "to move" for a screen reader, and a look of its own) in a timed and an untimed
//! game, on a desktop and a phone, and the mark goes over to the other bar with each move; an
//! untimed game shows no empty clock box. And the newcomers' hints take one line at a time,
//! leave Resign on a laptop's screen in Davey Drehs' game, and go when the game ends.
//! The player is a guest in the browser; the opponent plays over the game socket.

use super::axe::assert_no_serious_violations;
use super::browser::{confirm_click, screenshots_dir};
use super::browser_hints::{answer, new_game_with_clock, open_game, play, resign, wait_ply};
use super::browser_site::{sign_in_as_guest, start_site};
use super::browser_variants::check_page;
use super::webdriver::Browser;
use serde_json::{json, Value};

/// Waits until the bar at `place` ("top" or "bottom") is the one marked as to move, and
/// checks that the mark is seen, not only set: the bar's computed outline and background
/// differ from the other bar's, an arrow stands before its name, and its hidden note says so.
async fn assert_marked(browser: &mut Browser, place: &str, size: &str) {
    let seen = browser
        .wait_for(
            &format!("the {place} bar marked as to move at {size}"),
            "const [place] = arguments;
             const bar = document.getElementById(`${place}-bar`);
             const rest = document.getElementById(`${place === 'top' ? 'bottom' : 'top'}-bar`);
             if (!bar.classList.contains('to-move') || rest.classList.contains('to-move')) return null;
             const a = getComputedStyle(bar), b = getComputedStyle(rest);
             return {
               data: [bar.dataset.toMove, rest.dataset.toMove],
               notes: [bar.querySelector('.visually-hidden').textContent,
                       rest.querySelector('.visually-hidden').textContent],
               outline_differs: a.boxShadow !== b.boxShadow,
               background_differs: a.backgroundColor !== b.backgroundColor,
               arrows: [getComputedStyle(bar.querySelector('.who'), '::before').content,
                        getComputedStyle(rest.querySelector('.who'), '::before').content],
             };",
            json!([place]),
        )
        .await;
    assert_eq!(seen["data"], json!(["true", "false"]), "{size}: {seen}");
    assert_eq!(seen["notes"], json!([", to move", ""]), "{size}: {seen}");
    assert_eq!(seen["outline_differs"], true, "{size}: {seen}");
    assert_eq!(seen["background_differs"], true, "{size}: {seen}");
    assert_ne!(seen["arrows"][0], "none", "{size}: no arrow: {seen}");
    assert_eq!(
        seen["arrows"][1], "none",
        "{size}: an arrow on both: {seen}"
    );
}

/// The clocks by their geometry: in a timed game both bars show one with its time; in an
/// untimed game no bar holds a clock box at all, empty or not.
async fn assert_clocks(browser: &mut Browser, timed: bool, size: &str) {
    let clocks = browser
        .js(
            "return [...document.querySelectorAll('.player-bar .clock')].map((c) => {
               const r = c.getBoundingClientRect();
               return { id: c.id, w: r.width, h: r.height, text: c.textContent.trim() };
             })",
            json!([]),
        )
        .await;
    let clocks = clocks.as_array().cloned().unwrap_or_default();
    assert_eq!(clocks.len(), 2, "{size}: {clocks:?}");
    for clock in &clocks {
        let area = clock["w"].as_f64().unwrap_or(0.0) * clock["h"].as_f64().unwrap_or(0.0);
        let text = clock["text"].as_str().unwrap_or_default();
        if timed {
            assert!(area > 0.0 && text.contains(':'), "{size}: {clock}");
        } else {
            assert!(
                area == 0.0 && text.is_empty(),
                "{size}: a clock box: {clock}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_side_to_moves_bar_is_marked_in_timed_and_untimed_games() {
    let Some((server, base, mut session)) = start_site("turn").await else {
        return;
    };
    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    let mut opponent = server.guest().await;

    for clock in [json!({ "minutes": 10, "increment": 5 }), Value::Null] {
        let timed = !clock.is_null();
        let id = new_game_with_clock(&base, browser, &mut opponent, "suicide", clock).await;
        browser.set_window(1280, 800).await;
        open_game(&base, browser, &id).await;
        let mut black = opponent.watch(&id).await;
        // White (the browser, at the bottom) moves first, then the mark crosses the board.
        assert_clocks(browser, timed, "1280").await;
        assert_marked(browser, "bottom", "1280").await;
        play(browser, "e2e4", 1).await;
        assert_marked(browser, "top", "1280").await;
        if !timed {
            // The marked bar's colours in both themes: nothing serious for axe.
            check_page(browser, "game page, turn").await;
            browser
                .screenshot(&screenshots_dir().join("game-turn-1280.png"))
                .await;
        }
        browser.set_window(390, 844).await;
        assert_clocks(browser, timed, "390").await;
        assert_marked(browser, "top", "390").await;
        answer(&mut black, "e7e6", 1).await;
        wait_ply(browser, 2).await;
        assert_marked(browser, "bottom", "390").await;
        let name = format!(
            "game-turn-390-{}.png",
            if timed { "timed" } else { "untimed" }
        );
        browser.screenshot(&screenshots_dir().join(name)).await;
        // Over: no one is to move.
        resign(&mut black).await;
        browser
            .wait_for(
                "no bar marked after the game",
                "return document.getElementById('game').dataset.status === 'finished'
                   && !document.querySelector('.player-bar.to-move')",
                json!([]),
            )
            .await;
    }

    session.end().await;
    server.stop().await;
}

/// The hints on show, each with whether it takes room on the screen.
async fn hint_boxes(browser: &mut Browser) -> Vec<(String, bool)> {
    let found = browser
        .js(
            "return [...document.querySelectorAll('#hints [data-hint]')]
               .map((h) => [h.dataset.hint, h.getClientRects().length > 0])",
            json!([]),
        )
        .await;
    serde_json::from_value(found.clone()).unwrap_or_else(|e| panic!("{e}: {found}"))
}

fn visible(boxes: &[(String, bool)]) -> usize {
    boxes.iter().filter(|(_, shown)| *shown).count()
}

/// The hints take one line, "New in this variant: …", with the earlier ones behind a closed
/// disclosure that counts them.
async fn assert_one_line(browser: &mut Browser) {
    let boxes = hint_boxes(browser).await;
    assert_eq!(visible(&boxes), 1, "one line: {boxes:?}");
    let line = browser
        .js(
            "const h = document.querySelector('#hints > [data-hint]');
             const more = h.querySelector('.hint-more');
             return { text: h.querySelector('p').textContent,
                      more: more && more.textContent,
                      expanded: more && more.getAttribute('aria-expanded') }",
            json!([]),
        )
        .await;
    let text = line["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("New in this variant: "), "{line}");
    let earlier = boxes.len() - 1;
    let plural = if earlier == 1 { "" } else { "s" };
    assert_eq!(
        line["more"],
        format!("{earlier} more hint{plural}"),
        "{line}"
    );
    assert_eq!(line["expanded"], "false", "{line}");
}

/// Resign and the moves stay on the screen (a laptop's, 1280x800).
async fn assert_resign_on_screen(browser: &mut Browser) {
    let inside = browser
        .js(
            "return ['resign', 'moves'].map((id) => {
               const r = document.getElementById(id).getBoundingClientRect();
               return [id, r.width > 0 && r.top >= 0 && r.top < window.innerHeight
                 && (id !== 'resign' || r.bottom <= window.innerHeight), r.top, r.bottom];
             })",
            json!([]),
        )
        .await;
    for row in inside.as_array().cloned().unwrap_or_default() {
        assert_eq!(row[1], true, "off the 1280x800 screen: {inside}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_take_one_line_leave_resign_on_screen_and_go_with_the_game() {
    let Some((server, base, mut session)) = start_site("turn-hints").await else {
        return;
    };
    let browser = &mut session.browser;
    sign_in_as_guest(browser, &base).await;
    let mut opponent = server.guest().await;
    let id = new_game_with_clock(&base, browser, &mut opponent, "drehs", Value::Null).await;
    browser.set_window(1280, 800).await;
    open_game(&base, browser, &id).await;

    // At the start White's knights may teleport, and from there attack: two hints at once.
    browser
        .wait_for(
            "two Davey Drehs hints",
            "return document.querySelectorAll('#hints [data-hint]').length >= 2",
            json!([]),
        )
        .await;
    assert_one_line(browser).await;
    assert_resign_on_screen(browser).await;
    browser
        .screenshot(&screenshots_dir().join("game-hints-drehs-1280.png"))
        .await;

    // The earlier ones on demand, and back out of the way.
    browser.click("#hints .hint-more").await;
    let boxes = hint_boxes(browser).await;
    assert_eq!(visible(&boxes), boxes.len(), "all on demand: {boxes:?}");
    assert_no_serious_violations(browser, "game page, hints opened").await;
    browser.click("#hints .hint-more").await;
    assert_eq!(visible(&hint_boxes(browser).await), 1);

    // Dismissed, the next one comes onto the line.
    let first = boxes[0].0.clone();
    browser.click("#hints > [data-hint] > button").await;
    let boxes = hint_boxes(browser).await;
    assert!(
        boxes.iter().all(|(id, _)| *id != first),
        "{first}: {boxes:?}"
    );
    assert_eq!(visible(&boxes), 1, "{boxes:?}");

    // Resigned, the game is over: no hint under the result banner.
    confirm_click(browser, "#resign").await;
    let gone = browser
        .wait_for(
            "the result banner without hints",
            "const over = document.getElementById('game').dataset.status === 'finished'
               && !document.getElementById('result-banner').hidden;
             const hints = document.getElementById('hints');
             return over && hints.querySelectorAll('[data-hint]').length === 0
               && { height: hints.getBoundingClientRect().height }",
            json!([]),
        )
        .await;
    assert_eq!(gone["height"], 0, "{gone}");

    session.end().await;
    server.stop().await;
}
