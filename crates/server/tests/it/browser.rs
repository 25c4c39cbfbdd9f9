//! End-to-end tests in a real browser: headless Chromium driven through chromedriver
//! ([`super::webdriver`]). Two separate browser sessions register from the lobby; for every
//! variant one posts a seek with the lobby's form and the other answers it from the lobby's
//! seek list; they play it through the board with clicks and drags (pickers and
//! special-action buttons included) until it ends; then one replays it. Screenshots of each
//! variant's board go to `target/screenshots/`.
//!
//! The test picks which legal action to play by reading the page's own state (the snapshot
//! the page got from the server), but plays it only through the board, as a person would.
//! Games end naturally where the variant allows it within the ply budget; otherwise the
//! side to move resigns with the Resign button (Chad ends by a draw offered and accepted
//! with the buttons). In the Suicide game one player leaves the game page for a while: the
//! other's page offers the claims only once the claim delay has passed.

use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use oddboard::game::GameSettings;
use oddboard::rules::{AnyGame, Variant};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How many plies a game is played through the board before it is ended by the buttons.
const PLY_BUDGET: usize = 160;

/// Picks an action that brings the game to its natural end soon, with the rules engine: one
/// that ends the game, else the most material taken, else the position that leaves the
/// opponent the most captures (Suicide and Do-Or-Die Chazz end by running out of men; Duel
/// Chess by a full Duel board). `None` where the engine cannot help (dice decide Davey
/// Drehs' attacks) or the variant is left to the buttons.
fn engine_choice(variant: &str, position: &str, ply: usize) -> Option<String> {
    let variant: Variant = variant.parse().ok()?;
    if matches!(variant, Variant::Drehs | Variant::Chad) {
        return None;
    }
    let game = AnyGame::from_position(variant, position).ok()?;
    let before = game.snapshot().pieces.len();
    let mut best: Option<(i64, String)> = None;
    for (i, action) in game.legal_actions().into_iter().enumerate() {
        let mut next = game.clone();
        if next.play(&action).is_err() {
            continue;
        }
        let snapshot = next.snapshot();
        let taken = before.saturating_sub(snapshot.pieces.len()) as i64;
        let score = if next.outcome().is_some() {
            1_000_000
        } else {
            // A reply whose target square is occupied is a capture (a cheap test, without
            // playing every reply).
            let occupied: std::collections::HashSet<&str> =
                snapshot.pieces.iter().map(|p| &*p.square).collect();
            let replies = next
                .legal_actions()
                .iter()
                .filter(|reply| {
                    square_tokens(reply)
                        .get(1)
                        .is_some_and(|t| occupied.contains(t.as_str()))
                })
                .count() as i64;
            taken * 100 + replies * 10 + ((i + ply) % 7) as i64
        };
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, action));
        }
    }
    best.map(|(_, action)| action)
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

/// (board, square, colour) of every piece of a position, as the rules engine sees it.
fn engine_pieces(variant: &str, position: &str) -> Vec<(String, String, String)> {
    let game = variant
        .parse::<Variant>()
        .ok()
        .and_then(|v| AnyGame::from_position(v, position).ok());
    let pieces = game.map(|g| g.snapshot().pieces).unwrap_or_default();
    sorted(
        pieces
            .into_iter()
            .map(|p| {
                let color = serde_json::to_value(p.color).unwrap_or_default();
                (
                    p.board.into_owned(),
                    p.square.into_owned(),
                    color.as_str().unwrap_or_default().to_string(),
                )
            })
            .collect(),
    )
}

pub(crate) fn screenshots_dir() -> PathBuf {
    // The workspace's `target/`, two levels above this crate.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target")
        .join("screenshots")
}

/// The square tokens of a machine action: a lower-case letter and one or two digits
/// (see the comment at the top of `static/board.js`).
pub(crate) fn square_tokens(action: &str) -> Vec<String> {
    let bytes = action.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i].is_ascii_lowercase() && bytes[i + 1].is_ascii_digit() {
            let mut end = i + 2;
            if end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            tokens.push(action[i..end].to_string());
            i = end;
        } else {
            i += 1;
        }
    }
    tokens
}

/// What the page knows about the game, read from its state.
pub(crate) struct PageGame {
    pub(crate) status: String,
    position: String,
    pub(crate) turn: String,
    pub(crate) ply: usize,
    pub(crate) legal: Vec<String>,
    /// (board, square, colour) of every piece.
    pub(crate) pieces: Vec<(String, String, String)>,
}

pub(crate) async fn page_game(browser: &mut Browser) -> PageGame {
    let g = browser
        .wait_for(
            "the game state",
            "const g = window.oddboard && window.oddboard.game; if (!g) return null;
             return {status: g.status, position: g.rules.position, turn: g.rules.turn, ply: g.moves.length,
                     legal: g.rules.legal_actions,
                     pieces: g.rules.pieces.map(p => [p.board, p.square, p.color])};",
            json!([]),
        )
        .await;
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    PageGame {
        status: g["status"].as_str().unwrap_or_default().to_string(),
        position: g["position"].as_str().unwrap_or_default().to_string(),
        turn: g["turn"].as_str().unwrap_or_default().to_string(),
        ply: g["ply"].as_u64().unwrap_or_default() as usize,
        legal: strings(&g["legal"]),
        pieces: g["pieces"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| {
                        let s = strings(p);
                        (s[0].clone(), s[1].clone(), s[2].clone())
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Chooses the action to play: one that needs a picker first (to exercise it), then a
/// capture or attack, then any, varied by ply. `squares` maps on-board squares to boards.
pub(crate) fn choose(
    game: &PageGame,
    squares: &std::collections::HashMap<String, String>,
) -> String {
    let enemy = if game.turn == "white" {
        "black"
    } else {
        "white"
    };
    let on_board = |a: &str| {
        let t = square_tokens(a);
        !a.contains(':') && t.len() >= 2 && t.iter().all(|s| squares.contains_key(s))
    };
    let group = |a: &str| {
        let t = square_tokens(a);
        game.legal
            .iter()
            .filter(|b| {
                let u = square_tokens(b);
                on_board(b) && u.len() >= 2 && u[0] == t[0] && u[1] == t[1]
            })
            .count()
    };
    let captures: Vec<&String> = game
        .legal
        .iter()
        .filter(|a| on_board(a))
        .filter(|a| {
            let t = square_tokens(a);
            game.pieces
                .iter()
                .any(|(_, sq, c)| *sq == t[1] && c == enemy)
        })
        .collect();
    let picked: Vec<&String> = game
        .legal
        .iter()
        .filter(|a| on_board(a) && group(a) > 1)
        .collect();
    let pool: Vec<&String> = if !picked.is_empty() && game.ply.is_multiple_of(2) {
        picked
    } else if !captures.is_empty() {
        captures
    } else {
        let boards: Vec<&String> = game.legal.iter().filter(|a| on_board(a)).collect();
        if boards.is_empty() {
            game.legal.iter().collect()
        } else {
            boards
        }
    };
    pool[(game.ply * 7 + 3) % pool.len()].clone()
}

/// Whether an action is a teleport: `@` straight after its first square (`g1@e5`), as
/// `static/board-actions.js` reads it (a Duel Chess `@x1` placement comes after the target).
fn is_teleport(action: &str) -> bool {
    square_tokens(action)
        .first()
        .and_then(|first| action.find(first.as_str()).map(|at| at + first.len()))
        .is_some_and(|end| action[end..].starts_with('@'))
}

pub(crate) fn square_css(board: &str, square: &str) -> String {
    format!("#boards rect[data-board=\"{board}\"][data-square=\"{square}\"]")
}

/// Plays `action` through the board of `browser`: a special-action button, or from and to
/// squares by click-click or drag, then a picker (a highlighted square or a button).
pub(crate) async fn play_through_board(
    browser: &mut Browser,
    action: &str,
    game: &PageGame,
    squares: &std::collections::HashMap<String, String>,
    drag: bool,
) {
    let tokens = square_tokens(action);
    let special =
        action.contains(':') || tokens.len() < 2 || tokens.iter().any(|t| !squares.contains_key(t));
    if special {
        browser
            .click(&format!(
                "#special-actions button[data-action=\"{action}\"]"
            ))
            .await;
        return;
    }
    let from = square_css(&squares[&tokens[0]], &tokens[0]);
    let to = square_css(&squares[&tokens[1]], &tokens[1]);
    // A Davey Drehs teleport (`g1@e5`): the board plays ordinary moves by default and
    // offers a piece's teleports once its teleport switch is on.
    let teleport = is_teleport(action);
    if teleport {
        browser.pointer_click(&from).await;
        let toggle = "#special-actions button.teleport-toggle";
        browser.wait_element(toggle).await;
        let pressed = browser
            .js(
                "return document.querySelector(arguments[0]).getAttribute('aria-pressed')",
                json!([toggle]),
            )
            .await;
        if pressed != json!("true") {
            browser.click(toggle).await;
        }
        browser.wait_element("#boards .targets circle").await;
        browser.pointer_click(&to).await;
    } else if drag {
        browser.drag(&from, &to).await;
    } else {
        browser.pointer_click(&from).await;
        browser.wait_element("#boards .targets circle").await;
        browser.pointer_click(&to).await;
    }
    let same: Vec<&String> = game
        .legal
        .iter()
        .filter(|b| {
            let u = square_tokens(b);
            u.len() >= 2 && u[0] == tokens[0] && u[1] == tokens[1] && is_teleport(b) == teleport
        })
        .collect();
    if same.len() > 1 {
        browser
            .wait_element("#picker:not([hidden]) button.pick")
            .await;
        // Pick by the extra square where that tells the candidates apart, else the button.
        let last = tokens.last().cloned().unwrap_or_default();
        let by_square = tokens.len() > 2
            && same
                .iter()
                .filter(|b| square_tokens(b).last() == Some(&last))
                .count()
                == 1;
        if by_square && game.ply % 4 < 2 {
            browser
                .pointer_click(&square_css(&squares[&last], &last))
                .await;
        } else {
            browser
                .click(&format!("#picker button.pick[data-action=\"{action}\"]"))
                .await;
        }
    }
}

pub(crate) async fn wait_ply(browser: &mut Browser, ply: usize) {
    browser
        .wait_for(
            &format!("ply {ply}"),
            "const g = window.oddboard && window.oddboard.game;
             return !!g && (g.moves.length >= arguments[0] || g.status !== 'active');",
            json!([ply]),
        )
        .await;
}

/// Waits until the page shows an active game this browser plays; the game's id.
pub(crate) async fn on_game_page(browser: &mut Browser) -> String {
    let id = browser
        .wait_for(
            "the game page with the game under way",
            "const g = window.oddboard && window.oddboard.game;
             return g && g.status === 'active' && g.you ? location.pathname.split('/').pop() : null;",
            json!([]),
        )
        .await;
    id.as_str().unwrap_or_default().to_string()
}

/// Opens the lobby and waits until it is connected to the lobby socket.
pub(crate) async fn lobby_ready(browser: &mut Browser, base: &str) {
    browser.goto(&format!("{base}/")).await;
    lobby_connected(browser).await;
}

/// Waits until the lobby page is connected to the lobby socket, which its seeks and commands
/// go over (before, a command is answered "not connected").
pub(crate) async fn lobby_connected(browser: &mut Browser) {
    browser
        .wait_for(
            "the lobby socket",
            "return window.oddboard && window.oddboard.lobby && window.oddboard.lobby.connected",
            json!([]),
        )
        .await;
}

/// Clicks a button that acts on a second click (Resign, Abort): the first arms it for a
/// few seconds (`game/confirm.js`), the second, once it is armed, acts.
pub(crate) async fn confirm_click(browser: &mut Browser, css: &str) {
    browser.click(css).await;
    browser
        .wait_for(
            "the button armed",
            "return document.querySelector(arguments[0]).dataset.confirm === 'armed'",
            json!([css]),
        )
        .await;
    browser.click(css).await;
}

pub(crate) async fn register(browser: &mut Browser, base: &str, name: &str) {
    browser.goto(&format!("{base}/")).await;
    browser
        .type_text("#login-form input[name=username]", name)
        .await;
    browser
        .type_text("#login-form input[name=password]", "correct horse battery")
        .await;
    browser.click("#register-button").await;
    browser
        .wait_for(
            "registration",
            "return document.getElementById('me').dataset.username === arguments[0]",
            json!([name]),
        )
        .await;
}

/// One variant from the lobby to the replay. Returns how the game ended.
async fn play_variant(
    base: &str,
    players: &mut [Browser; 2],
    names: &[String; 2],
    variant: &str,
) -> String {
    let [a, b] = players;
    start_from_the_lobby(base, a, b, variant).await;
    let squares = board_squares(a).await;
    let dir = screenshots_dir();
    let ended = play_until_end(base, a, b, variant, &squares, &dir).await;
    let result = wait_for_result(a, b).await;
    b.screenshot(&dir.join(format!("{variant}-end.png"))).await;
    replay_the_game(b, variant, &dir).await;
    let _ = names;
    format!("{ended}: {}", result.as_str().unwrap_or_default())
}

/// B waits in the lobby; A posts a seek from the lobby form (10+5, White, unrated,
/// automatic); B answers it from the lobby's seek list and the game opens for both.
async fn start_from_the_lobby(base: &str, a: &mut Browser, b: &mut Browser, variant: &str) {
    lobby_ready(b, base).await;
    lobby_ready(a, base).await;
    a.js(
        "document.getElementById('seek-variant').value = arguments[0];
         document.getElementById('seek-color').value = 'white';",
        json!([variant]),
    )
    .await;
    // The full seek form is the "Create a game" dialog.
    a.click("#create-open").await;
    a.type_text("#seek-minutes", "10").await;
    a.type_text("#seek-increment", "5").await;
    a.click("#seek-submit").await;
    if variant == "suicide" {
        b.wait_element("#seek-graph .seek-point").await;
        b.screenshot(&screenshots_dir().join("lobby.png")).await;
    }
    let play = format!("#seek-list button.play[data-variant=\"{variant}\"]");
    b.wait_element(&play).await;
    b.click(&play).await;
    for browser in [&mut *a, &mut *b] {
        browser
            .wait_for(
                "the game to start",
                "const g = window.oddboard && window.oddboard.game; return g && g.status === 'active' && g.you",
                json!([]),
            )
            .await;
    }
}

/// Which board each square of A's page is on, by square name.
pub(crate) async fn board_squares(a: &mut Browser) -> std::collections::HashMap<String, String> {
    a
        .js(
            "const m = {}; for (const r of document.querySelectorAll('#boards rect.sq')) m[r.dataset.square] = r.dataset.board; return m;",
            json!([]),
        )
        .await
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Plays the game on the pages' boards, each side in turn, until it ends by itself, by
/// agreement (Chad) or, out of budget, by resignation; screenshots on the way, a suicide
/// player leaving and coming back, a duel player's connection dropped. Returns how it ended.
async fn play_until_end(
    base: &str,
    a: &mut Browser,
    b: &mut Browser,
    variant: &str,
    squares: &std::collections::HashMap<String, String>,
    dir: &std::path::Path,
) -> String {
    let mut ended = String::new();
    for ply in 0..PLY_BUDGET {
        let game = page_game(a).await;
        if game.status != "active" {
            ended = "natural".into();
            break;
        }
        if variant == "chad" && ply == 12 {
            agree_draw(a, b, variant, dir).await;
            ended = "draw agreed".into();
            break;
        }
        let mover = if game.turn == "white" {
            &mut *a
        } else {
            &mut *b
        };
        // The mover's page agrees on the position before it acts.
        wait_ply(mover, game.ply).await;
        let game = page_game(mover).await;
        // The page built its pieces from the action events' updates: they are the position's.
        assert_eq!(
            sorted(game.pieces.clone()),
            engine_pieces(variant, &game.position),
            "{variant} ply {}: the page's pieces differ from its position",
            game.ply
        );
        let action = engine_choice(variant, &game.position, game.ply)
            .unwrap_or_else(|| choose(&game, squares));
        eprintln!("browser: {variant} ply {} {action}", game.ply + 1);
        play_through_board(mover, &action, &game, squares, ply % 3 == 1).await;
        wait_ply(a, game.ply + 1).await;
        wait_ply(b, game.ply + 1).await;
        if ply == 6 {
            a.screenshot(&dir.join(format!("{variant}.png"))).await;
        }
        if ply == 4 && variant == "suicide" {
            leave_and_come_back(base, a, b, dir).await;
        }
        if ply == 9 && variant == "duel" {
            drop_connection(b).await;
        }
    }
    if ended.is_empty() {
        // Out of budget: the side to move resigns with the button.
        let game = page_game(a).await;
        let mover = if game.turn == "white" {
            &mut *a
        } else {
            &mut *b
        };
        // Resign asks for a second click.
        confirm_click(mover, "#resign").await;
        ended = format!("{} resigned", game.turn);
    }
    ended
}

/// Chad ends by agreement: White offers a draw with the button, Black accepts.
async fn agree_draw(a: &mut Browser, b: &mut Browser, variant: &str, dir: &std::path::Path) {
    a.click("#draw").await;
    b.wait_for(
        "the draw offer",
        "return document.getElementById('draw').textContent === 'Accept draw'",
        json!([]),
    )
    .await;
    b.screenshot(&dir.join(format!("{variant}-draw-offer.png")))
        .await;
    b.click("#draw").await;
}

/// B's connection drops with White to move: B's page shows it is reconnecting, White moves
/// meanwhile, and B's page comes back by itself with the missed action (the next
/// `wait_ply(b, …)` checks it; B then moves on the reconnected socket).
async fn drop_connection(b: &mut Browser) {
    b.js("window.oddboard.socket.close()", json!([])).await;
    b.wait_for(
        "the reconnecting state",
        "return document.body.classList.contains('reconnecting') && document.getElementById('connection').textContent",
        json!([]),
    )
    .await;
}

/// Both pages show the game finished; returns the result B's page states.
async fn wait_for_result(a: &mut Browser, b: &mut Browser) -> serde_json::Value {
    for browser in [&mut *a, &mut *b] {
        browser
            .wait_for(
                "the result",
                "const g = window.oddboard.game; return g.status === 'finished' && document.getElementById('status').textContent",
                json!([]),
            )
            .await;
    }
    b.js(
        "return document.getElementById('status').textContent",
        json!([]),
    )
    .await
}

/// B replays the game: steps back with the arrow key and the buttons, jumps to a move,
/// flips the board; checks the dice verification of a Davey Drehs game.
async fn replay_the_game(b: &mut Browser, variant: &str, dir: &std::path::Path) {
    b.click("#replay-after").await;
    b.wait_for(
        "the replay",
        "return document.getElementById('replay') && document.getElementById('replay').dataset.loaded",
        json!([]),
    )
    .await;
    let total: usize = b
        .js(
            "return Number(document.getElementById('replay').dataset.ply)",
            json!([]),
        )
        .await
        .as_u64()
        .unwrap_or_default() as usize;
    assert!(total > 0, "{variant}: the replay has no moves");
    b.key("\u{E012}").await; // left arrow
    b.wait_for(
        "one step back",
        "return Number(document.getElementById('replay').dataset.ply) === arguments[0]",
        json!([total - 1]),
    )
    .await;
    b.click("#first").await;
    b.click("#next").await;
    b.click("#moves button.move[data-ply=\"2\"]").await;
    b.wait_for(
        "the jump",
        "return document.getElementById('replay').dataset.ply === '2'",
        json!([]),
    )
    .await;
    b.click("#flip").await;
    if variant == "drehs" {
        b.wait_for(
            "the dice verification",
            "return document.getElementById('replay').dataset.dice",
            json!([]),
        )
        .await;
        let dice = b
            .js(
                "return document.getElementById('replay').dataset.dice",
                json!([]),
            )
            .await;
        assert_eq!(dice, json!("verified"), "drehs dice verification");
    }
    b.screenshot(&dir.join(format!("{variant}-replay.png")))
        .await;
    if variant == "duel" || variant == "chad" {
        // The same page on a phone-sized window.
        b.set_window(390, 844).await;
        b.screenshot(&dir.join(format!("{variant}-phone.png")))
            .await;
        b.set_window(1100, 900).await;
    }
}

/// The claim delay of the browser test's server: long enough to see that A's page waits for
/// it before offering the claims.
const CLAIM_DELAY: Duration = Duration::from_secs(2);

/// Notes in `window.firstClaimNote` the text of the first claim note the page draws and
/// whether the claims came with it. A mutation observer runs once the page's drawing is done,
/// so it sees the note and the buttons of one drawing together.
const FIRST_CLAIM_NOTE: &str = "window.firstClaimNote = null;
new MutationObserver((_, observer) => {
  const note = document.getElementById('claim-note');
  if (!note) return;
  const claims = document.getElementById('claim-victory') !== null;
  window.firstClaimNote = { text: note.textContent, claims };
  observer.disconnect();
}).observe(document.body, { childList: true, subtree: true, characterData: true });";

/// B leaves its game page for the lobby with both sides moved: A's page learns of it at once,
/// but offers the claims only once the claim delay has passed; B comes back to the game page
/// and A's page takes the claims away.
async fn leave_and_come_back(base: &str, a: &mut Browser, b: &mut Browser, dir: &Path) {
    let game_path = b.js("return location.pathname", json!([])).await;
    let game_path = game_path.as_str().unwrap_or_default().to_string();
    // A's page notes what it first draws when it learns of the absence, as it draws it: the
    // page counts the delay from the moment it learns, so that first drawing is the note
    // with the wait and no claims however long the test then takes to look.
    a.js(FIRST_CLAIM_NOTE, json!([])).await;
    // B's absence, and the claim delay with it, begins after this.
    let leaving = Instant::now();
    b.goto(&format!("{base}/")).await;
    a.wait_for(
        "the opponent's absence",
        "return (window.oddboard.game.absent || []).length > 0",
        json!([]),
    )
    .await;
    let first = a
        .wait_for(
            "the first claim note",
            "return window.firstClaimNote",
            json!([]),
        )
        .await;
    assert_eq!(
        first["claims"],
        json!(false),
        "the claims were offered before the claim delay: {first}"
    );
    assert!(
        first["text"]
            .as_str()
            .is_some_and(|n| n.contains("You can claim in")),
        "the page does not say when the claims come: {first}"
    );
    a.wait_element("#claim-victory").await;
    // The server counted B absent after B left, and the page counts the rest of the delay
    // from the server's figure: the claims cannot come sooner after the leaving than the
    // delay (less the milliseconds the figures are rounded to), however slow the machine.
    assert!(
        leaving.elapsed() > CLAIM_DELAY * 9 / 10,
        "the claims came {:?} after B left",
        leaving.elapsed()
    );
    a.screenshot(&dir.join("suicide-claim.png")).await;
    b.goto(&format!("{base}{game_path}")).await;
    a.wait_for(
        "the opponent's return",
        "return (window.oddboard.game.absent || []).length === 0 && document.getElementById('claim-victory') === null",
        json!([]),
    )
    .await;
}

/// The player page of `name` lists at least `games` games.
async fn check_player_page(a: &mut Browser, base: &str, name: &str, games: usize) {
    a.goto(&format!("{base}/player/{name}")).await;
    a.wait_for(
        "the player's games",
        "return document.querySelectorAll('#games tr a[href^=\"/replay/\"]').length >= arguments[0]",
        json!([games]),
    )
    .await;
    a.screenshot(&screenshots_dir().join("player.png")).await;
}

/// Signing out elsewhere (another tab of the same browser, here a request from the page)
/// closes this page's lobby socket, and the page shows itself signed out.
async fn check_sign_out_elsewhere(b: &mut Browser, base: &str) {
    b.goto(&format!("{base}/")).await;
    b.wait_for(
        "the lobby socket",
        "const s = window.oddboard.lobby.socket; return !!s && s.readyState === WebSocket.OPEN;",
        json!([]),
    )
    .await;
    b.js(
        "fetch('/api/auth/logout', { method: 'POST' }); return true;",
        json!([]),
    )
    .await;
    b.wait_for(
        "the page signed out after the logout",
        "const me = document.getElementById('me'); return !!me && !me.dataset.username;",
        json!([]),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_browsers_play_every_variant_and_replay_it() {
    if !browser_available() {
        return;
    }
    let settings = GameSettings {
        min_claim_delay: CLAIM_DELAY,
        max_claim_delay: CLAIM_DELAY,
        ..fast_settings()
    };
    let server = TestServer::start(settings).await;
    let base = format!("http://{}", server.addr);
    let driver = Driver::start().await;
    let profiles = std::env::temp_dir().join(format!(
        "oddboard-browser-{}",
        uuid::Uuid::new_v4().simple()
    ));
    eprintln!("browser: chromedriver up");
    let mut players = [
        driver.session(&profiles.join("a")).await,
        driver.session(&profiles.join("b")).await,
    ];
    let suffix = &uuid::Uuid::new_v4().simple().to_string()[..6];
    let names = [format!("alice{suffix}"), format!("bob{suffix}")];
    eprintln!("browser: registering");
    register(&mut players[0], &base, &names[0]).await;
    register(&mut players[1], &base, &names[1]).await;

    let mut report = Vec::new();
    // ODDBOARD_BROWSER_VARIANTS=duel,chad narrows the run while working on one variant.
    let chosen = std::env::var("ODDBOARD_BROWSER_VARIANTS").unwrap_or_default();
    for variant in ["suicide", "chazz", "duel", "drehs", "chad"] {
        if !chosen.is_empty() && !chosen.split(',').any(|v| v == variant) {
            continue;
        }
        eprintln!("browser: playing {variant}");
        let ended = play_variant(&base, &mut players, &names, variant).await;
        report.push(format!("{variant}: {ended}"));
    }
    eprintln!("browser games:\n{}", report.join("\n"));

    let [mut a, mut b] = players;
    check_player_page(&mut a, &base, &names[0], report.len()).await;
    check_sign_out_elsewhere(&mut b, &base).await;
    a.quit().await;
    b.quit().await;
    drop(driver);
    let _ = std::fs::remove_dir_all(&profiles);
    server.stop().await;
}
