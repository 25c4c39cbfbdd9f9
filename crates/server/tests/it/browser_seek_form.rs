//! The lobby's clock inputs and the server agree (issue 39, "the seek form and the server
//! agree on what clocks are allowed"). The page's own inputs are read in a real browser:
//! their min, max and step are the server's constants; for clocks at and around every
//! bound, the form's constraint validation says yes exactly when the server accepts what
//! the page would send: the seek form's clock as a seek (`POST /api/lobby`, what the form's
//! Seek button sends on the lobby socket) and as a challenge link (`POST /api/games`), the
//! computer dialog's as a game against the computer (`POST /api/games/computer`). Then the
//! form itself sends its largest clock and "No clock" as seeks, which appear in the list.

use super::browser::lobby_connected;
use super::browser_site::{sign_in_as_guest, start_site, Session};
use super::server::{Player, WAIT};
use super::webdriver::Browser;
use oddboard::game::lobby::{MAX_INC, MAX_TIME};
use oddboard::play::clock::{MAX_INCREMENT_MS, MAX_INITIAL_MS, MIN_INITIAL_MS};
use serde_json::{json, Value};

/// `min`, `max` and `step` of each clock input, as the browser reads them.
const BOUNDS: &str = "const out = {};
    for (const id of ['seek-minutes', 'seek-increment', 'computer-minutes', 'computer-increment']) {
      const input = document.getElementById(id);
      out[id] = [Number(input.min), Number(input.max), Number(input.step)];
    }
    return out;";

/// Sets a form's clock as a person would and returns whether the form would submit it.
const VALID: &str = "const [prefix, minutes, increment, untimed] = arguments;
    const $ = (name) => document.getElementById(`${prefix}-${name}`);
    $('untimed').checked = untimed;
    $('untimed').dispatchEvent(new Event('change'));
    $('minutes').value = minutes;
    $('minutes').dispatchEvent(new Event('input'));
    $('increment').value = increment;
    $('increment').dispatchEvent(new Event('input'));
    return $('form').checkValidity();";

/// A number as the page's `Number(input.value)` sends it in JSON: whole numbers without a
/// fraction (the lobby's fields are integers).
fn number(text: &str) -> Value {
    let n: f64 = text.parse().unwrap_or(f64::NAN);
    if n.fract() == 0.0 && n.abs() < 1e9 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

async fn post(player: &mut Player, path: &str, body: &Value) -> (u16, Value) {
    let response = player
        .client
        .post(path, body)
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    (response.status, response.json())
}

/// Whether the lobby takes the seek the Seek button would send (`0 0` for "No clock");
/// an accepted seek is withdrawn again.
async fn lobby_accepts(player: &mut Player, minutes: &str, increment: &str, untimed: bool) -> bool {
    let (time, inc) = if untimed {
        (json!(0), json!(0))
    } else {
        (number(minutes), number(increment))
    };
    let seek = json!({"t": "seek", "variant": "suicide", "time": time, "inc": inc, "rated": false,
                      "color": null, "manual": false, "formula": false, "min": 0, "max": 9999});
    let (status, body) = post(player, "/api/lobby", &seek).await;
    if status == 200 {
        let (status, body) = post(player, "/api/lobby", &json!({"t": "unseek"})).await;
        assert_eq!(status, 200, "unseek: {body}");
        return true;
    }
    assert!(
        body["error"] == "invalid_value" || body["error"] == "bad_message",
        "{minutes}+{increment}: {status} {body}"
    );
    false
}

/// Whether the games API takes the clock as a challenge link or a computer game (`path`);
/// an accepted computer game is aborted again.
async fn games_api_accepts(
    player: &mut Player,
    path: &str,
    (minutes, increment, untimed): (&str, &str, bool),
) -> bool {
    let clock = if untimed {
        Value::Null
    } else {
        json!({"minutes": number(minutes), "increment": number(increment)})
    };
    let computer = path.ends_with("computer");
    let mut body = json!({"variant": "suicide", "clock": clock, "color": "white"});
    if computer {
        // Level 0 plays random moves: no engine search to wait for.
        body["level"] = json!(0);
    }
    let (status, answer) = post(player, path, &body).await;
    if status == 201 || status == 200 {
        if computer {
            let game_id = answer["game_id"].as_str().unwrap_or_default().to_string();
            let mut view = player.watch(&game_id).await;
            super::ws_game::abort_expecting_aborted(&mut view).await;
        }
        return true;
    }
    assert!(
        answer["error"] == "invalid_clock" || answer["error"] == "bad_body",
        "{path} {minutes}+{increment}: {status} {answer}"
    );
    false
}

/// The inputs' `[min, max, step]` in [`BOUNDS`]' order, checked against the server's
/// constants.
async fn input_bounds(browser: &mut Browser) -> [[f64; 3]; 4] {
    let read = browser.js(BOUNDS, json!([])).await;
    let minutes_max = (MAX_INITIAL_MS / 60_000) as f64;
    let increment_max = (MAX_INCREMENT_MS / 1000) as f64;
    let expected = [
        (
            "seek-minutes",
            [0.0, f64::from(MAX_TIME).min(minutes_max), 1.0],
        ),
        (
            "seek-increment",
            [0.0, f64::from(MAX_INC).min(increment_max), 1.0],
        ),
        ("computer-minutes", [0.0, minutes_max, QUARTER]),
        ("computer-increment", [0.0, increment_max, 1.0]),
    ];
    expected.map(|(id, wanted)| {
        let shown = [0, 1, 2].map(|i| read[id][i].as_f64().unwrap_or(f64::NAN));
        assert_eq!(shown, wanted, "#{id}: {read}");
        shown
    })
}

/// A quarter of a minute: the games API's shortest clock, the computer dialog's step.
const QUARTER: f64 = MIN_INITIAL_MS as f64 / 60_000.0;

fn text(n: f64) -> String {
    n.to_string()
}

/// The seek form's clock goes to a seek, a match or a challenge link: the form takes a
/// clock exactly when the lobby and the games API both do.
async fn seek_form_agrees(browser: &mut Browser, player: &mut Player, m: f64, i: f64) {
    let cases = [
        (text(m), text(i), false),
        (text(m), "0".into(), false),
        ("0".into(), "1".into(), false),
        ("1".into(), "0".into(), false),
        ("0".into(), "0".into(), false),
        ("0".into(), "0".into(), true),
        ("-1".into(), "0".into(), true),
        (text(m + 1.0), "0".into(), false),
        ("0".into(), text(i + 1.0), false),
        ("2.5".into(), "3".into(), false),
        ("5".into(), "2.5".into(), false),
        ("-1".into(), "3".into(), false),
        ("5".into(), "-1".into(), false),
    ];
    for (minutes, increment, untimed) in &cases {
        let form = browser
            .js(VALID, json!(["seek", minutes, increment, untimed]))
            .await;
        let lobby = lobby_accepts(player, minutes, increment, *untimed).await;
        let clock = (minutes.as_str(), increment.as_str(), *untimed);
        let link = games_api_accepts(player, "/api/games", clock).await;
        assert_eq!(
            form,
            json!(lobby && link),
            "seek form {minutes}+{increment} untimed {untimed}: lobby {lobby}, link {link}"
        );
    }
}

/// The computer dialog posts to the games API alone, in quarters of a minute.
async fn computer_dialog_agrees(browser: &mut Browser, player: &mut Player, m: f64, i: f64) {
    let cases = [
        (text(QUARTER), "0".into(), false),
        (text(m), text(i), false),
        ("0".into(), "1".into(), false),
        ("0".into(), "0".into(), true),
        ("0".into(), "0".into(), false),
        (text(QUARTER * 0.8), "0".into(), false),
        (text(m + QUARTER), "0".into(), false),
        ("1".into(), text(i + 1.0), false),
    ];
    for (minutes, increment, untimed) in &cases {
        let form = browser
            .js(VALID, json!(["computer", minutes, increment, untimed]))
            .await;
        let clock = (minutes.as_str(), increment.as_str(), *untimed);
        let api = games_api_accepts(player, "/api/games/computer", clock).await;
        assert_eq!(
            form,
            json!(api),
            "computer dialog {minutes}+{increment} untimed {untimed}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_clock_inputs_allow_exactly_what_the_server_accepts() {
    let Some((server, base, mut session)) = start_site("seek-form").await else {
        return;
    };
    let browser = &mut session.browser;
    browser.goto(&format!("{base}/")).await;
    browser.wait_element("#seek-form").await;
    let [seek_minutes, seek_increment, computer_minutes, computer_increment] =
        input_bounds(browser).await;
    let mut player = server.guest().await;
    // The lobby takes seeks only from someone in it: the probing player holds a socket.
    let mut in_lobby = player.client.connect_lobby().await;
    let in_lobby = in_lobby.as_mut().unwrap_or_else(|e| panic!("{e}"));
    in_lobby.next(WAIT).await.unwrap_or_else(|e| panic!("{e}"));
    seek_form_agrees(browser, &mut player, seek_minutes[1], seek_increment[1]).await;
    computer_dialog_agrees(
        browser,
        &mut player,
        computer_minutes[1],
        computer_increment[1],
    )
    .await;
    sends_its_bounds(&mut session, &base, seek_minutes[1], seek_increment[1]).await;
    session.end().await;
    server.stop().await;
}

/// The form itself, as a guest: the largest clock and "No clock" become seeks in the list.
async fn sends_its_bounds(session: &mut Session, base: &str, minutes: f64, increment: f64) {
    let browser = &mut session.browser;
    sign_in_as_guest(browser, base).await;
    lobby_connected(browser).await;
    for (untimed, shown) in [
        (false, format!("{minutes}+{increment}")),
        (true, "no clock".to_string()),
    ] {
        let valid = browser
            .js(
                VALID,
                json!(["seek", minutes.to_string(), increment.to_string(), untimed]),
            )
            .await;
        assert_eq!(valid, json!(true));
        // The full seek form is the "Create a game" dialog; it closes once the seek is posted.
        browser.click("#create-open").await;
        browser.click("#seek-submit").await;
        browser
            .wait_for(
                &format!("the seek {shown} in the list"),
                "return [...document.querySelectorAll('#seek-list tr')].some((tr) =>
                   tr.textContent.includes(arguments[0]) && tr.querySelector('button.unseek'))",
                json!([shown]),
            )
            .await;
        browser.click("#seek-list button.unseek").await;
        browser
            .wait_for(
                "the seek withdrawn",
                "return !document.querySelector('#seek-list button.unseek')",
                json!([]),
            )
            .await;
    }
}
