//! Issue 48, part 7's small fixes, in real Chromium. A guest plays Black in a Suicide game
//! against a player on the API: the lobby leads with "Your games", a link to that game naming
//! its variant and opponent (drawn by the server and kept by the script); the seek form's
//! Minutes and Increment are disabled, and look it, while "No clock" is ticked; on the game
//! page the sound and chat switches both say what a press does; and after White takes a black
//! pawn, the captured pawn beside the board stands out from the page in dark mode as in light
//! (contrast of at least 3:1, WCAG's figure for graphics). axe-core on the lobby with "Your
//! games" and on the game page in dark mode. When the game ends, the open lobby's refresh
//! takes it off "Your games".

use super::axe::assert_no_serious_violations;
use super::browser::wait_ply;
use super::browser_site::{sign_in_as_guest, start_site};
use super::server::{Player, Watcher};
use super::webdriver::Browser;
use serde_json::{json, Value};

/// The captured black pieces' outline and body against what they sit on: the contrast ratio
/// (WCAG's, from relative luminance) of each against the first opaque background behind them,
/// the larger of the two (either makes the piece visible), and the colours for messages.
const CAPTURED_CONTRAST: &str = "
  const shape = document.querySelector('.captured .cap-piece .piece-shape.black');
  if (!shape) return null;
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  let el = shape.closest('.captured');
  let bg = null;
  while (el) {
    const c = rgb(getComputedStyle(el).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] === 1)) { bg = c.slice(0, 3); break; }
    el = el.parentElement;
  }
  const style = getComputedStyle(shape);
  const stroke = rgb(style.stroke).slice(0, 3);
  const fill = rgb(style.fill).slice(0, 3);
  return { best: Math.max(ratio(stroke, bg), ratio(fill, bg)), stroke: style.stroke, fill: style.fill,
           background: String(bg), theme: document.documentElement.dataset.theme };";

/// The page's theme, set as the Display menu sets it (theme.js `choose`).
async fn set_theme(browser: &mut Browser, theme: &str) {
    browser
        .js(
            "localStorage.setItem('oddboard.theme', arguments[0]);
             document.documentElement.dataset.theme = arguments[0];",
            json!([theme]),
        )
        .await;
}

async fn switch_labels(browser: &mut Browser) -> Value {
    browser
        .js(
            "return [document.getElementById('sound-toggle').textContent,
                     document.getElementById('chat-toggle').textContent]",
            json!([]),
        )
        .await
}

/// The API player offers White; the guest in `browser` accepts from the page (with its
/// cookie); the game's id.
async fn guest_accepts_a_game(browser: &mut Browser, white_player: &mut Player) -> String {
    // The lobby may open the game by itself once it starts, before the answer: either will do.
    let game_id = white_player
        .create_game("suicide", Value::Null, "white")
        .await;
    browser
        .js(
            "window.__answer = null;
             fetch(arguments[0], { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'null' })
               .then((r) => r.json()).then((d) => { window.__answer = d; });",
            json!([format!("/api/games/{game_id}/accept")]),
        )
        .await;
    browser
        .wait_for(
            "the acceptance",
            "return window.__answer || location.pathname.startsWith('/game/')",
            json!([]),
        )
        .await;
    game_id
}

/// "Your games" leads the lobby, drawn by the server: a link to the game with its variant
/// and opponent, above quick pairing.
async fn your_games_drawn(browser: &mut Browser, base: &str, game_id: &str, opponent: &str) {
    browser.goto(&format!("{base}/")).await;
    let yours = browser
        .js(
            "const s = document.getElementById('your-games');
             const links = [...s.querySelectorAll('a')];
             return { hidden: s.hidden, links: links.map((a) => [a.getAttribute('href'), a.textContent]),
                      first: s.getBoundingClientRect().top < document.getElementById('play').getBoundingClientRect().top };",
            json!([]),
        )
        .await;
    assert_eq!(yours["hidden"], json!(false), "{yours}");
    assert_eq!(
        yours["links"],
        json!([[
            format!("/game/{game_id}"),
            format!("Suicide Chess against {opponent}")
        ]]),
        "{yours}"
    );
    assert_eq!(yours["first"], json!(true), "{yours}");
}

/// "No clock" disables the seek form's Minutes and Increment, and they look it (a dashed
/// border, muted text and label); unticked, they are back as they were.
async fn no_clock_disables_the_clock(browser: &mut Browser) {
    browser.click("#create-open").await;
    let look = "const [m, i] = ['seek-minutes', 'seek-increment'].map((id) => document.getElementById(id));
        const s = getComputedStyle(m);
        return { disabled: [m.disabled, i.disabled], border: s.borderTopStyle, color: s.color,
                 label: getComputedStyle(m.closest('label')).color,
                 variantLabel: getComputedStyle(document.getElementById('seek-variant').closest('label')).color };";
    let enabled = browser.js(look, json!([])).await;
    assert_eq!(enabled["disabled"], json!([false, false]), "{enabled}");
    browser.click("#seek-untimed").await;
    let disabled = browser.js(look, json!([])).await;
    assert_eq!(disabled["disabled"], json!([true, true]), "{disabled}");
    assert_eq!(disabled["border"], json!("dashed"), "{disabled}");
    assert_ne!(disabled["color"], enabled["color"], "{disabled} {enabled}");
    assert_ne!(disabled["label"], disabled["variantLabel"], "{disabled}");
    browser.click("#seek-untimed").await;
    let again = browser.js(look, json!([])).await;
    assert_eq!(again, enabled, "unticked");
    browser.click("#create-cancel").await;
}

/// On the game page both switches say what a press does, pressed in turn.
async fn switches_say_what_they_do(browser: &mut Browser, base: &str, game_id: &str) {
    browser.goto(&format!("{base}/game/{game_id}")).await;
    browser
        .wait_for(
            "the game page",
            "const g = window.oddboard && window.oddboard.game; return !!g && g.status === 'active' && g.you === 'black'",
            json!([]),
        )
        .await;
    assert_eq!(
        switch_labels(browser).await,
        json!(["Turn sound off", "Turn chat off"])
    );
    browser.click("#sound-toggle").await;
    assert_eq!(
        switch_labels(browser).await,
        json!(["Turn sound on", "Turn chat off"])
    );
    browser.click("#chat-toggle").await;
    assert_eq!(
        switch_labels(browser).await,
        json!(["Turn sound on", "Turn chat on"])
    );
    browser.click("#sound-toggle").await;
    browser.click("#chat-toggle").await;
    assert_eq!(
        switch_labels(browser).await,
        json!(["Turn sound off", "Turn chat off"])
    );
}

/// White takes a black pawn; the captured pawn stands out from what it sits on in each theme
/// (axe on the page in dark mode too). White's socket, to end the game with.
async fn captured_black_pawn_shows(
    browser: &mut Browser,
    white_player: &Player,
    game_id: &str,
) -> Watcher {
    // 1. e4 d5 2. exd5 (Suicide Chess: the capture is forced): a black pawn captured.
    let mut white = white_player.watch(game_id).await;
    white.act("e2e4").await;
    wait_ply(browser, 1).await;
    browser.type_text("#move-input", "d7d5\u{E007}").await;
    white.read_until(|w| w.ply >= 2).await;
    white.act("e4d5").await;
    wait_ply(browser, 3).await;
    for theme in ["light", "dark"] {
        set_theme(browser, theme).await;
        let shown = browser
            .wait_for("the captured black pawn", CAPTURED_CONTRAST, json!([]))
            .await;
        assert_eq!(shown["theme"], json!(theme), "{shown}");
        let best = shown["best"].as_f64().unwrap_or(0.0);
        assert!(
            best >= 3.0,
            "a captured black piece in {theme} mode: contrast {best:.2} ({shown})"
        );
    }
    assert_no_serious_violations(browser, "the game page in dark mode").await;
    white
}

/// The lobby's script keeps "Your games" current: the game ends while the lobby is open,
/// and a refresh (every 5 s) takes it off.
async fn lobby_drops_the_ended_game(browser: &mut Browser, base: &str, white: &mut Watcher) {
    browser.goto(&format!("{base}/")).await;
    browser
        .wait_for(
            "'Your games' shown",
            "return !document.getElementById('your-games').hidden",
            json!([]),
        )
        .await;
    white.send(json!({ "t": "resign" })).await;
    white.read_until(|w| w.outcome.is_some()).await;
    browser
        .wait_for(
            "'Your games' hidden once the game ended",
            "const s = document.getElementById('your-games');
             return s.hidden && !s.querySelector('a')",
            json!([]),
        )
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_small_fixes_your_games_no_clock_switches_and_dark_captures() {
    let Some((server, base, mut session)) = start_site("small").await else {
        return;
    };
    let browser = &mut session.browser;
    browser.set_window(1280, 800).await;

    // A guest in the browser; no game yet, so no "Your games".
    sign_in_as_guest(browser, &base).await;
    let hidden = browser
        .js(
            "return document.getElementById('your-games').hidden",
            json!([]),
        )
        .await;
    assert_eq!(hidden, json!(true), "'Your games' shown with no game");

    let mut white_player = server.guest().await;
    let game_id = guest_accepts_a_game(browser, &mut white_player).await;
    your_games_drawn(browser, &base, &game_id, &white_player.name).await;
    assert_no_serious_violations(browser, "the lobby with 'Your games'").await;
    no_clock_disables_the_clock(browser).await;
    switches_say_what_they_do(browser, &base, &game_id).await;
    let mut white = captured_black_pawn_shows(browser, &white_player, &game_id).await;
    lobby_drops_the_ended_game(browser, &base, &mut white).await;

    session.end().await;
    server.stop().await;
}
