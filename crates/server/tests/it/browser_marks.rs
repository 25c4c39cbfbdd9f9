//! The replay page's engine help on the board and in the move list, in a real browser
//! (headless Chromium through [`super::webdriver`]): a finished game's replay with its
//! analysis done, the analysis panel opened; at every ply the board shows the engine's best
//! action of that position as an arrow between the squares of its machine notation, and the
//! move list marks `?!`, `?` and `??` exactly where the thresholds of `docs/protocol.md`
//! ("Analysis", "Marks") say. The expected marks are computed here, independently of the
//! page's script, from the analysis the page itself received, so the test holds whatever the
//! engine found. Closing the panel takes the arrow and the marks away.

use super::analysis::analysis_when_done;
use super::browser_analysis::{finished_game, open_replay};
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser};
use serde_json::{json, Value};

/// The thresholds of docs/protocol.md: points of win chance (0–100) the mover lost, largest
/// first, and the mark each earns.
const THRESHOLDS: [(f64, &str); 3] = [(30.0, "??"), (20.0, "?"), (10.0, "?!")];

/// White's win chance, 0 to 100, of a score as the analysis sends it: lichess's curve on the
/// score clamped to ±1000 centipawns (a mate or a won result at the clamp, a draw at 0).
fn white_win_percent(score: &Value) -> f64 {
    let cp = if let Some(cp) = score["cp"].as_f64() {
        cp.clamp(-1000.0, 1000.0)
    } else if let Some(mate) = score["mate"].as_f64() {
        1000.0 * mate.signum()
    } else {
        match score["result"].as_str() {
            Some("1-0") => 1000.0,
            Some("0-1") => -1000.0,
            _ => 0.0,
        }
    };
    50.0 + 50.0 * (2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0)
}

/// The mark of each ply's move (none at 0): the mover's fall in win chance from the position
/// before to the one after, unless the move was the engine's own best.
fn expected_marks(plies: &[Value], played: &[Value], turns: &[Value]) -> Vec<Option<String>> {
    (0..plies.len())
        .map(|ply| {
            let (before, after) = (plies.get(ply.checked_sub(1)?)?, &plies[ply]);
            if before.is_null() || after.is_null() || before["best_machine"] == played[ply - 1] {
                return None;
            }
            let fall = white_win_percent(&before["score"]) - white_win_percent(&after["score"]);
            let lost = if turns[ply - 1] == "black" {
                -fall
            } else {
                fall
            };
            THRESHOLDS
                .iter()
                .find(|(drop, _)| lost >= *drop)
                .map(|(_, mark)| (*mark).to_string())
        })
        .collect()
}

/// The first two square names of an action in machine notation (`a7a8q` -> a7, a8): where
/// its piece stands and where it goes (the board's reading, static/board-actions.js).
fn squares(machine: &str) -> Vec<String> {
    let bytes = machine.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i].is_ascii_lowercase() && bytes[i + 1].is_ascii_digit() {
            let digits = if bytes.get(i + 2).is_some_and(u8::is_ascii_digit) {
                2
            } else {
                1
            };
            found.push(machine[i..i + 1 + digits].to_string());
            i += 1 + digits;
        } else {
            i += 1;
        }
    }
    found.truncate(2);
    found
}

/// The arrows on the boards: `[from, to]` of each.
async fn arrows(browser: &mut Browser) -> Value {
    browser
        .js(
            "return [...document.querySelectorAll('#boards svg .arrows .arrow')]
               .map((a) => [a.dataset.from, a.dataset.to])",
            json!([]),
        )
        .await
}

/// The mark shown on each move of the list, by ply (null where none).
async fn shown_marks(browser: &mut Browser) -> Vec<Option<String>> {
    let shown = browser
        .js(
            "return [...document.querySelectorAll('#moves .move[data-ply]')].map((m) => {
               const span = m.querySelector('.move-mark');
               return [Number(m.dataset.ply), m.dataset.mark || null, span ? span.textContent : null,
                       (m.getAttribute('aria-label') || '').split(', ').pop()];
             })",
            json!([]),
        )
        .await;
    let mut marks = vec![None];
    for (i, row) in shown.as_array().into_iter().flatten().enumerate() {
        assert_eq!(row[0], json!(i + 1), "the moves in order: {shown}");
        // The symbol drawn is the one the move says it has, and its name ends the label.
        assert_eq!(row[1], row[2], "{row}");
        if let Some(mark) = row[1].as_str() {
            let name = match mark {
                "??" => "blunder",
                "?" => "mistake",
                _ => "inaccuracy",
            };
            assert_eq!(row[3], name, "{row}");
        }
        marks.push(row[1].as_str().map(str::to_string));
    }
    marks
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_shows_the_best_move_as_an_arrow_and_marks_the_moves() {
    if !browser_available() {
        return;
    }
    let server = TestServer::start(fast_settings()).await;
    let (game_id, actions) = finished_game(&server, 10).await;
    // The engine's work first, within the HTTP test's patience: the page then reads the
    // cache and the browser's waits are about the page alone.
    analysis_when_done(&mut server.client(), &game_id).await;

    let (driver, mut browser, profile) = open_replay(&server, &game_id).await;
    assert_eq!(
        arrows(&mut browser).await,
        json!([]),
        "no help before the panel opens"
    );
    browser.click("#analysis-toggle").await;
    browser
        .wait_for(
            "the analysis to be done",
            "return document.getElementById('analysis').dataset.status === 'done'",
            json!([]),
        )
        .await;

    // What the page received and shows: the report, the actions and who played each.
    let page = browser
        .js(
            "const s = window.oddboard;
             return { plies: s.analysis.report().plies, played: s.data.actions.map((a) => a.machine),
                      turns: s.data.snapshots.map((p) => p.turn) }",
            json!([]),
        )
        .await;
    let list = |key: &str| page[key].as_array().cloned().unwrap_or_default();
    let (plies, played, turns) = (list("plies"), list("played"), list("turns"));
    assert_eq!(plies.len(), actions + 1, "{page}");
    assert!(plies.iter().all(|p| !p.is_null()), "every ply evaluated");

    let expected = expected_marks(&plies, &played, &turns);
    assert_eq!(shown_marks(&mut browser).await, expected, "{page}");
    arrows_at_every_ply(&mut browser, &plies, &expected).await;
    flip_and_close(&mut browser, &plies).await;

    browser.quit().await;
    drop(driver);
    let _ = std::fs::remove_dir_all(&profile);
    server.stop().await;
}

/// The arrows `plies[ply]` calls for: its best action's two squares, or none where the
/// engine has no best action (the rules ended the game there) or it names no two squares.
fn wanted_arrows(entry: &Value) -> Value {
    match entry["best_machine"].as_str() {
        Some(best) if squares(best).len() == 2 => json!([squares(best)]),
        _ => json!([]),
    }
}

/// At every ply, from the start: the arrow of that position's best action, and the marks
/// still in the move list, which stepping redraws.
async fn arrows_at_every_ply(browser: &mut Browser, plies: &[Value], expected: &[Option<String>]) {
    browser.key("\u{E011}").await; // Home
    let mut drawn = 0;
    for (ply, entry) in plies.iter().enumerate() {
        if ply > 0 {
            browser.key("\u{E014}").await; // ArrowRight
        }
        browser
            .wait_for(
                &format!("ply {ply} shown"),
                "return document.getElementById('replay').dataset.ply === String(arguments[0])",
                json!([ply]),
            )
            .await;
        let want = wanted_arrows(entry);
        drawn += usize::from(want != json!([]));
        assert_eq!(arrows(browser).await, want, "ply {ply}: {entry}");
        assert_eq!(shown_marks(browser).await, expected, "at ply {ply}");
    }
    assert!(drawn > 0, "some position had a best move: {plies:?}");
}

/// The arrow turns with the board (the same squares, drawn where they now are), and closing
/// the panel takes the arrow and the marks away with it.
async fn flip_and_close(browser: &mut Browser, plies: &[Value]) {
    let want = plies.last().map_or(json!([]), wanted_arrows);
    if want != json!([]) {
        let outline = "return document.querySelector('#boards .arrows .arrow').getAttribute('d')";
        let before = browser.js(outline, json!([])).await;
        browser.click("#flip").await;
        assert_eq!(arrows(browser).await, want);
        assert_ne!(browser.js(outline, json!([])).await, before);
    }
    browser.click("#analysis-toggle").await;
    assert_eq!(arrows(browser).await, json!([]));
    assert!(shown_marks(browser).await.iter().all(Option::is_none));
}

#[test]
fn the_expected_marks_follow_the_thresholds() {
    let entry = |cp: i32, best: &str| json!({ "score": { "cp": cp }, "best_machine": best });
    let plies = [
        entry(0, "e2e4"),
        entry(-600, "e7e5"),
        entry(-590, "g1f3"),
        entry(600, "b8c6"),
    ];
    let played = [json!("a2a3"), json!("e7e5"), json!("h2h3")];
    let turns = [json!("white"), json!("black"), json!("white")];
    let marks = expected_marks(&plies, &played, &turns);
    assert_eq!(marks, [None, Some("??".into()), None, None]);
    assert_eq!(squares("a7a8q"), ["a7", "a8"]);
    assert_eq!(squares("b10c12"), ["b10", "c12"]);
}
