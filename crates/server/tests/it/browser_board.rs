//! The board in a real browser (`static/board.js`, `board-draw.js`, `board-actions.js`,
//! `pieces.js`, `board.css` and the dice of `common.js`). Every variant's game page is drawn
//! at a phone's size (390 x 844) and a desktop's (1280 x 800), with screenshots in
//! `target/screenshots/board-*.png`, and checked: each board an ARIA grid of rows of named
//! squares with one tab stop, nothing wider than the screen, the Duel board's and the hole's
//! labels, Chad's legend, a Dabbabah unlike a rook, Davey Drehs' life points readable and
//! its badges clear of the coordinates, and no critical or serious axe-core finding. Then:
//! a Davey Drehs knight moves on a plain click while its teleport is a separate switch; the
//! dice are drawn as dice; a move is played with the keyboard alone; and on the replay page,
//! the sliding animation and premoves. One browser plays the computer at level 0 (random
//! moves), so no second player is needed.

use super::axe::assert_no_serious_violations;
use super::browser::{screenshots_dir, square_css, wait_ply};
use super::browser_computer::start_from_the_dialog;
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const VARIANTS: [&str; 5] = ["suicide", "chazz", "duel", "drehs", "chad"];

/// WebDriver key codes.
const LEFT: &str = "\u{E012}";
const UP: &str = "\u{E013}";
const RIGHT: &str = "\u{E014}";
const ENTER: &str = "\u{E007}";

/// Starts a game against the computer at level 0 (random moves), the person White, from
/// the lobby's dialog (as a guest); returns the game's id.
async fn start_game(browser: &mut Browser, base: &str, variant: &str) -> String {
    start_from_the_dialog(browser, base, variant, 0, "white").await
}

/// Ends the game the page shows (a guest may have only five games against the computer at
/// once): resigns over the page's own socket, as the Resign button does, without depending
/// on how the page asks for confirmation.
async fn end_game(browser: &mut Browser) {
    browser
        .js(
            "window.oddboard.socket.send(JSON.stringify({ t: 'resign' }))",
            json!([]),
        )
        .await;
    browser
        .wait_for(
            "the game's end",
            "return window.oddboard.game.status !== 'active'",
            json!([]),
        )
        .await;
}

/// What is wrong with the boards as ARIA grids, as readable lines (none when all is well):
/// each board a named `grid` whose only exposed children are its ranks as `row`s, each cell
/// a `gridcell` named after its square and what stands there, one tab stop per grid.
const GRID_PROBLEMS: &str = "const rules = window.oddboard.game.rules; const problems = [];
  for (const b of rules.boards) {
    const svg = document.querySelector(`#boards svg[data-board=\"${b.id}\"]`);
    if (!svg) { problems.push(`${b.id}: no board`); continue; }
    const by = svg.getAttribute('aria-labelledby');
    const name = svg.getAttribute('aria-label') || (by && document.getElementById(by).textContent);
    if (svg.getAttribute('role') !== 'grid' || !name) problems.push(`${b.id}: not a named grid`);
    const rows = [...svg.children].filter((c) => c.getAttribute('role') === 'row');
    const exposed = [...svg.children].filter((c) => c.getAttribute('role') !== 'row' && c.getAttribute('aria-hidden') !== 'true');
    if (rows.length !== b.ranks || exposed.length) problems.push(`${b.id}: ${rows.length} rows, ${exposed.length} other children`);
    const cells = rows.flatMap((r) => [...r.children]);
    if (cells.length !== b.files * b.ranks || cells.some((c) => c.getAttribute('role') !== 'gridcell')) problems.push(`${b.id}: cells`);
    if (svg.querySelectorAll('[tabindex=\"0\"]').length !== 1) problems.push(`${b.id}: not one tab stop`);
    for (const cell of cells) {
      const square = cell.dataset.square || cell.dataset.hole;
      const label = b.id === 'main' ? square : square.toUpperCase();
      const piece = rules.pieces.find((p) => p.board === b.id && p.square === square);
      const expected = cell.dataset.hole ? `${label}, hole` : piece ? `${label}, ${piece.color} ${piece.role}` : `${label}, empty`;
      if (!(cell.getAttribute('aria-label') || '').startsWith(expected)) problems.push(`${square}: ${cell.getAttribute('aria-label')}, not ${expected}`);
    }
  }
  const width = document.documentElement.clientWidth;
  for (const svg of document.querySelectorAll('#boards svg.board')) {
    if (svg.getBoundingClientRect().right > width + 0.5) problems.push(`${svg.dataset.board} wider than the page (${width} px)`);
  }
  return problems;";

async fn assert_grid(browser: &mut Browser, what: &str) {
    let problems = browser.js(GRID_PROBLEMS, json!([])).await;
    assert_eq!(problems, json!([]), "{what}");
}

/// Davey Drehs at a phone's size: the smallest life text in screen pixels, and how many
/// coordinates a stats badge covers.
const DREHS_STATS: &str = "const svg = document.querySelector('#boards svg.board');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('.life-text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
  const boxes = (css) => [...svg.querySelectorAll(css)].map((e) => e.getBoundingClientRect());
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const badges = boxes('.life, .armor, .ears, .badge');
  return { smallest: Math.min(...sizes), lives: sizes.length,
           covered: boxes('.coord').filter((c) => badges.some((b) => meet(c, b))).length };";

/// Duel: the boards' names, the hole's cell, mark and legend, and the Dabbabah's drawing
/// against the rook's (a wide, low engine against a tall tower, and other shapes).
const DUEL_LABELS: &str = "const shape = (role) => document.querySelector(`#boards .piece[data-role=\"${role}\"] .piece-shape`);
  const [d, r] = [shape('dabbabah'), shape('rook')];
  const [db, rb] = [d.getBBox(), r.getBBox()];
  const hole = document.querySelector('#boards [data-hole=\"c4\"]');
  return { captions: [...document.querySelectorAll('#boards .board-caption')].map((c) => c.textContent),
           duelGrid: document.getElementById(document.querySelector('#boards svg[data-board=\"duel\"]').getAttribute('aria-labelledby')).textContent,
           hole: hole.getAttribute('aria-label'), holeRole: hole.getAttribute('role'),
           holeMarks: document.querySelectorAll('#boards .hole-marks path').length,
           legend: [...document.querySelectorAll('#boards .board-legend li')].map((li) => li.textContent),
           dabbabahWide: db.width > db.height, rookTall: rb.height > rb.width,
           sameDrawing: d.innerHTML === r.innerHTML,
           a1: document.querySelector('#boards rect[data-square=\"a1\"]').getAttribute('aria-label') };";

/// The variant's own checks, at the size the page has now.
async fn check_variant(browser: &mut Browser, variant: &str, phone: bool) {
    match variant {
        "duel" => {
            let labels = browser.js(DUEL_LABELS, json!([])).await;
            assert_eq!(labels["captions"], json!(["Main board", "Duel board"]));
            assert_eq!(labels["duelGrid"], "Duel board");
            assert_eq!(labels["hole"], "c4, hole, no square");
            assert_eq!(labels["holeRole"], "gridcell");
            assert!(labels["holeMarks"].as_u64() >= Some(1), "{labels}");
            assert_eq!(labels["legend"], json!(["Hole (c4): no square"]));
            assert_eq!(labels["dabbabahWide"], true, "{labels}");
            assert_eq!(labels["rookTall"], true, "{labels}");
            assert_eq!(labels["sameDrawing"], false);
            assert_eq!(labels["a1"], "a1, white dabbabah");
        }
        "chad" => {
            let legend = browser
                .js(
                    "return [...document.querySelectorAll('#boards .board-legend li')].map((li) => li.textContent)",
                    json!([]),
                )
                .await;
            let expected = [
                "White's castle",
                "White's wall",
                "Black's castle",
                "Black's wall",
            ];
            assert_eq!(sorted_strings(&legend), sorted_strings(&json!(expected)));
        }
        "drehs" => {
            let stats = browser.js(DREHS_STATS, json!([])).await;
            assert_eq!(stats["lives"], 32, "{stats}");
            assert_eq!(stats["covered"], 0, "a badge covers a coordinate: {stats}");
            if phone {
                let smallest = stats["smallest"].as_f64().unwrap_or_default();
                assert!(smallest >= 11.0, "life text {smallest} px on a phone");
            }
        }
        _ => {}
    }
}

fn sorted_strings(v: &Value) -> Vec<String> {
    let mut items: Vec<String> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    items.sort();
    items
}

/// Every variant's game page at both sizes: screenshots, the grid, the variant's labels,
/// and axe-core at the desktop size.
async fn every_variant(browser: &mut Browser, base: &str) {
    let dir = screenshots_dir();
    for variant in VARIANTS {
        eprintln!("browser_board: {variant}");
        browser.set_window(1280, 800).await;
        start_game(browser, base, variant).await;
        assert_grid(browser, &format!("{variant} at 1280 x 800")).await;
        check_variant(browser, variant, false).await;
        browser
            .screenshot(&dir.join(format!("board-{variant}-1280x800.png")))
            .await;
        assert_no_serious_violations(browser, &format!("the {variant} game page")).await;
        browser.set_window(390, 844).await;
        // The board follows the window's size.
        browser
            .wait_for(
                "the board at the phone's width",
                "const svg = document.querySelector('#boards svg.board');
                 return svg.getBoundingClientRect().right <= document.documentElement.clientWidth;",
                json!([]),
            )
            .await;
        assert_grid(browser, &format!("{variant} at 390 x 844")).await;
        check_variant(browser, variant, true).await;
        browser
            .screenshot(&dir.join(format!("board-{variant}-390x844.png")))
            .await;
        end_game(browser).await;
    }
    browser.set_window(1280, 800).await;
}

/// The page's legal actions and the machine notation of its moves so far.
async fn legal_and_moves(browser: &mut Browser) -> (Vec<String>, Vec<String>) {
    let v = browser
        .js(
            "const g = window.oddboard.game; return [g.rules.legal_actions, g.moves.map((m) => m.machine)];",
            json!([]),
        )
        .await;
    (
        sorted_strings(&v[0]),
        v[1].as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
    )
}

async fn targets(browser: &mut Browser) -> Vec<String> {
    let v = browser
        .js(
            "return [...document.querySelectorAll('#boards .targets circle')].map((c) => c.dataset.square)",
            json!([]),
        )
        .await;
    sorted_strings(&v)
}
async fn focused(browser: &mut Browser) -> String {
    let v = browser
        .js(
            "return document.activeElement.getAttribute('aria-label') || ''",
            json!([]),
        )
        .await;
    v.as_str().unwrap_or_default().to_string()
}

/// The simple teleport (`b1@d4`) of a knight to a square none of its ordinary moves reaches.
fn lone_teleport(legal: &[String]) -> Option<(String, String)> {
    legal.iter().find_map(|a| {
        let (from, to) = a.split_once('@')?;
        let ordinary = legal
            .iter()
            .any(|b| !b.contains('@') && b.starts_with(from) && b[from.len()..].starts_with(to));
        (from.len() == 2 && to.len() == 2 && !ordinary).then(|| (from.to_string(), to.to_string()))
    })
}

/// Davey Drehs: a plain click on the knight and then on its target plays the ordinary move
/// at once (no "teleport or move?"); the teleport is reached with the switch beside the
/// board, which shows the teleport squares instead.
async fn drehs_knight(browser: &mut Browser, base: &str) {
    start_game(browser, base, "drehs").await;
    browser.pointer_click(&square_css("main", "g1")).await;
    assert_eq!(targets(browser).await, ["f3", "h3"]);
    let pressed = "const b = document.querySelector('#special-actions button.teleport-toggle');
                   return b ? b.getAttribute('aria-pressed') : 'none';";
    assert_eq!(browser.js(pressed, json!([])).await, "false");
    browser.pointer_click(&square_css("main", "f3")).await;
    wait_ply(browser, 1).await;
    let (_, moves) = legal_and_moves(browser).await;
    assert_eq!(
        moves[0], "g1f3",
        "a plain click plays the knight's ordinary move"
    );
    let picker = browser
        .js("return document.getElementById('picker').hidden", json!([]))
        .await;
    assert_eq!(picker, true, "no picker for an ordinary knight move");
    wait_ply(browser, 2).await;
    let (legal, _) = legal_and_moves(browser).await;
    let (from, to) =
        lone_teleport(&legal).unwrap_or_else(|| panic!("no knight's teleport in {legal:?}"));
    browser.pointer_click(&square_css("main", &from)).await;
    assert!(
        !targets(browser).await.contains(&to),
        "{to} before the switch"
    );
    browser
        .click("#special-actions button.teleport-toggle")
        .await;
    assert_eq!(browser.js(pressed, json!([])).await, "true");
    let shown = targets(browser).await;
    assert!(
        shown.contains(&to) && shown.len() > 8,
        "teleport squares: {shown:?}"
    );
    browser.pointer_click(&square_css("main", &to)).await;
    let teleport = format!("{from}@{to}");
    if legal.iter().filter(|a| a.starts_with(&teleport)).count() > 1 {
        // Teleports that attack from there too: the picker offers them, and the plain one.
        browser
            .click(&format!("#picker button.pick[data-action=\"{teleport}\"]"))
            .await;
    }
    wait_ply(browser, 3).await;
    let (_, moves) = legal_and_moves(browser).await;
    assert_eq!(moves[2], teleport);
    dice_faces(browser).await;
    end_game(browser).await;
}

/// The dice of an action drawn as dice: pips on a d6's face, the number on a d20's, the
/// dice of one purpose together with their total (common.js renderRolls, on a detached
/// element of the page).
async fn dice_faces(browser: &mut Browser) {
    let dice = browser
        .js(
            "const page = [...document.querySelectorAll('script[type=module]')].map((s) => s.src).find((s) => /\\/game\\.js$/.test(s));
             return import(new URL('common.js', page).href).then((m) => {
               const el = document.createElement('div');
               el.setAttribute('aria-label', 'Dice');
               m.renderRolls(el, { human: 'Nb1@c3xd5', effects: ['hit: …'], rolls: [
                 { purpose: 'to_hit', dice: 'd20', value: 17 },
                 { purpose: 'damage', dice: 'd6', value: 5 }, { purpose: 'damage', dice: 'd6', value: 2 }] });
               const dice = [...el.querySelectorAll('svg.die')];
               return { role: el.getAttribute('role'), names: dice.map((d) => d.getAttribute('aria-label')),
                        pips: dice.map((d) => d.querySelectorAll('.pip').length),
                        number: el.querySelector('svg.d20 .number').textContent,
                        totals: [...el.querySelectorAll('.roll-total')].map((t) => t.textContent),
                        purposes: [...el.querySelectorAll('.roll')].map((r) => r.dataset.purpose) };
             });",
            json!([]),
        )
        .await;
    assert_eq!(dice["role"], "group");
    assert_eq!(
        dice["names"],
        json!(["d20 showing 17", "d6 showing 5", "d6 showing 2"])
    );
    assert_eq!(dice["pips"], json!([0, 5, 2]));
    assert_eq!(dice["number"], "17");
    assert_eq!(dice["totals"], json!(["= 7"]));
    assert_eq!(dice["purposes"], json!(["to_hit", "damage"]));
}

/// Suicide with the keyboard alone: the board's tab stop, arrows to the e2 pawn, Enter,
/// arrows to e4, Enter. The focus stays on the board as the position changes, and the
/// computer's answer slides its piece. Returns the game's id.
async fn keyboard_move(browser: &mut Browser, base: &str) -> String {
    let id = start_game(browser, base, "suicide").await;
    browser
        .js(
            "document.querySelector('#boards [role=gridcell][tabindex=\"0\"]').focus()",
            json!([]),
        )
        .await;
    assert_eq!(focused(browser).await, "a1, white rook");
    for key in [RIGHT, RIGHT, RIGHT, RIGHT, UP] {
        browser.key(key).await;
    }
    assert_eq!(focused(browser).await, "e2, white pawn");
    browser.key(ENTER).await;
    assert_eq!(targets(browser).await, ["e3", "e4"]);
    for key in [UP, UP, LEFT, RIGHT] {
        browser.key(key).await;
    }
    assert_eq!(focused(browser).await, "e4, empty, target");
    browser.key(ENTER).await;
    wait_ply(browser, 2).await;
    let (_, moves) = legal_and_moves(browser).await;
    assert_eq!(moves[0], "e2e4");
    assert_eq!(focused(browser).await, "e4, white pawn");
    // The computer's answer slid its piece from where it stood.
    let slid = browser
        .js(
            "return document.getElementById('boards').boardView.lastAnimation",
            json!([]),
        )
        .await;
    let reply = &moves[1];
    assert_eq!(
        slid,
        json!([{"board": "main", "from": &reply[0..2], "to": &reply[2..4]}]),
        "{reply}"
    );
    id
}

/// The replay page of game `id`, once its record holds at least `plies` actions (the stored
/// record may trail the live game by a moment).
async fn open_replay(browser: &mut Browser, base: &str, id: &str, plies: usize) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        browser.goto(&format!("{base}/replay/{id}")).await;
        let held = browser
            .wait_for(
                "the replay",
                "const s = window.oddboard; return s && s.data && document.getElementById('replay').dataset.loaded ? [s.data.snapshots.length] : null;",
                json!([]),
            )
            .await;
        if held[0].as_u64().unwrap_or_default() as usize > plies {
            return;
        }
        assert!(Instant::now() < deadline, "the replay of {id} lacks moves");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn last_animation(browser: &mut Browser) -> Value {
    browser
        .js(
            "return document.getElementById('boards').boardView.lastAnimation",
            json!([]),
        )
        .await
}

/// Stepping forward one move slides it; stepping back, flipping, `animate: false` and a
/// reader who prefers reduced motion do not.
async fn replay_animation(browser: &mut Browser) {
    browser.click("#first").await;
    browser.click("#next").await;
    let e4 = json!([{"board": "main", "from": "e2", "to": "e4"}]);
    assert_eq!(last_animation(browser).await, e4);
    browser.click("#prev").await;
    assert_eq!(last_animation(browser).await, json!([]));
    browser.click("#flip").await;
    browser.click("#flip").await;
    assert_eq!(last_animation(browser).await, json!([]));
    let quiet = browser
        .js(
            "const bv = document.getElementById('boards').boardView; const s = window.oddboard.data.snapshots;
             bv.update(s[0], false); bv.update(s[1], false, { animate: false }); return bv.lastAnimation;",
            json!([]),
        )
        .await;
    assert_eq!(quiet, json!([]));
    let reduce = json!({"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]});
    browser.cdp("Emulation.setEmulatedMedia", reduce).await;
    browser.click("#first").await;
    browser.click("#next").await;
    assert_eq!(last_animation(browser).await, json!([]));
    browser
        .cdp("Emulation.setEmulatedMedia", json!({"features": []}))
        .await;
    browser.click("#first").await;
}

/// Premoves on the replay page's board (never interactive): White's pieces picked up by
/// click-click or drag report premoves, which are shown; a click on an empty square cancels;
/// `premoveActions` finds the legal actions a premove stands for, the ordinary one first.
async fn replay_premoves(browser: &mut Browser) {
    browser
        .js(
            "const bv = document.getElementById('boards').boardView; window.premoves = [];
             bv.options.onPremove = (p) => { window.premoves.push(p); bv.showPremove(p); };
             bv.options.onPremoveCancel = () => { window.premoves.push('cancel'); bv.showPremove(null); };
             bv.setPlayer('white'); bv.setPremoveEnabled(true);",
            json!([]),
        )
        .await;
    browser.pointer_click(&square_css("main", "d2")).await;
    browser.pointer_click(&square_css("main", "d4")).await;
    browser
        .drag(&square_css("main", "g1"), &square_css("main", "f3"))
        .await;
    let state = "const bv = document.getElementById('boards').boardView; const s0 = window.oddboard.data.snapshots[0];
                 return { premoves: window.premoves, shown: document.querySelectorAll('#boards .marks .premove').length,
                          actions: window.premoves.filter((p) => p !== 'cancel').map((p) => bv.premoveActions(p, s0)) };";
    let seen = browser.js(state, json!([])).await;
    let d4 = json!({"board": "main", "from": "d2", "to": "d4"});
    let f3 = json!({"board": "main", "from": "g1", "to": "f3"});
    assert_eq!(seen["premoves"], json!([d4, f3]));
    assert_eq!(seen["shown"], 2);
    assert_eq!(seen["actions"], json!([["d2d4"], ["g1f3"]]));
    // A click off White's pieces (on Black's pawn) cancels the premove shown; a click on an
    // empty square then has nothing to cancel.
    browser.pointer_click(&square_css("main", "e7")).await;
    browser.pointer_click(&square_css("main", "e5")).await;
    let seen = browser.js(state, json!([])).await;
    assert_eq!(seen["premoves"], json!([d4, f3, "cancel"]));
    assert_eq!(seen["shown"], 0);
    let ranked = browser
        .js(
            "const bv = document.getElementById('boards').boardView; const boards = window.oddboard.data.snapshots[0].boards;
             const rules = { boards, pieces: [], legal_actions: ['a7a8n', 'a7a8q', 'g1@f3', 'g1@f3xe5', 'g1f3', 'g1h3'] };
             return [bv.premoveActions({ board: 'main', from: 'g1', to: 'f3' }, rules),
                     bv.premoveActions({ board: 'main', from: 'a7', to: 'a8' }, rules),
                     bv.premoveActions({ board: 'main', from: 'g1', to: 'g3' }, rules)];",
            json!([]),
        )
        .await;
    assert_eq!(
        ranked,
        json!([["g1f3", "g1@f3", "g1@f3xe5"], ["a7a8q", "a7a8n"], []])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_in_every_variant_by_pointer_and_keyboard() {
    if !browser_available() {
        return;
    }
    let server = TestServer::start(fast_settings()).await;
    let base = format!("http://{}", server.addr);
    let driver = Driver::start().await;
    let profile = std::env::temp_dir().join(format!(
        "oddboard-browser-board-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let mut browser = driver.session(&profile).await;
    every_variant(&mut browser, &base).await;
    drehs_knight(&mut browser, &base).await;
    let id = keyboard_move(&mut browser, &base).await;
    open_replay(&mut browser, &base, &id, 2).await;
    replay_animation(&mut browser).await;
    replay_premoves(&mut browser).await;
    assert_no_serious_violations(&mut browser, "the replay page").await;
    browser.quit().await;
    drop(driver);
    let _ = std::fs::remove_dir_all(&profile);
    server.stop().await;
}
