//! The variant pages and their lessons API (`web::variant_pages`).
//!
//! Over HTTP: every variant's lessons set up, a try answers the position after its actions
//! and says when the rule was shown, refusals (an illegal action, too many or too long
//! actions, an unknown variant or lesson) are errors with their codes, the try limit answers
//! 429, and an unknown variant's page is the 404 page.
//!
//! In a real browser (headless Chromium through [`super::webdriver`]): `/variants` lists the
//! five games with a picture each; on every variant page each try board (the required ones among them) is played
//! with clicks on its squares, picker and buttons, as a person would, and shows that its rule
//! was made; each page passes axe-core in the light and the dark theme and is no wider than a
//! 390 x 844 phone or a 1280 x 800 desktop, with screenshots in
//! `target/screenshots/variant-<id>-{390,1280}.png`.

use super::axe::assert_no_serious_violations;
use super::browser::screenshots_dir;
use super::browser_site::{overflow, start_site, SIZES};
use super::server::{fast_settings, TestServer};
use super::webdriver::Browser;
use oddboard_client::Client;
use serde_json::{json, Value};

const VARIANTS: [&str; 5] = ["suicide", "chazz", "duel", "drehs", "chad"];

fn try_path(variant: &str, lesson: &str) -> String {
    format!("/api/variants/{variant}/lessons/{lesson}/try")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lessons_api_replays_tries_on_its_own_set_ups_and_refuses_the_rest() {
    let server = TestServer::start(fast_settings()).await;
    let mut client = server.client();
    every_lesson_sets_up(&mut client).await;
    tries_replay_their_actions(&mut client).await;
    refusals_have_their_codes(&mut client).await;
    pages_and_the_404(&mut client).await;
    server.stop().await;
}

/// Each variant's lessons, each answering a try of no actions with its own set-up.
async fn every_lesson_sets_up(client: &mut Client) {
    for variant in VARIANTS {
        let response = client
            .get(&format!("/api/variants/{variant}/lessons"))
            .await
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(response.status, 200, "{variant}: {}", response.body);
        let list = response.json();
        assert_eq!(list["variant"], variant);
        assert_eq!(list["start"]["variant"], variant);
        assert_eq!(list["start"]["ply"], 0);
        let lessons = list["lessons"].as_array().cloned().unwrap_or_default();
        assert!(!lessons.is_empty(), "{variant} has no lessons");
        for lesson in &lessons {
            assert!(
                !lesson["rules"]["legal_actions"]
                    .as_array()
                    .is_none_or(Vec::is_empty),
                "{variant}/{}: nothing to try",
                lesson["id"]
            );
            // No actions: the set-up itself, and the task as the message.
            let id = lesson["id"].as_str().unwrap_or_default();
            let answer = client
                .post(&try_path(variant, id), &json!({ "actions": [] }))
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(answer.status, 200, "{}", answer.body);
            let answer = answer.json();
            assert_eq!(answer["rules"]["position"], lesson["rules"]["position"]);
            assert_eq!(answer["shown"], false);
            assert_eq!(answer["last"], Value::Null);
            assert_eq!(answer["message"], lesson["task"]);
        }
    }
}

/// A try that makes its point, one more action on top of it, and dice that roll the same.
async fn tries_replay_their_actions(client: &mut Client) {
    // A try that makes its point, then one more action on top of it.
    let answer = client
        .post(
            &try_path("suicide", "forced-capture"),
            &json!({ "actions": ["e4d5"] }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(answer["shown"], true, "{answer}");
    assert_eq!(
        answer["last"],
        json!({ "machine": "e4d5", "human": "exd5" })
    );
    assert!(answer["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("Right: a capture was possible")));
    assert_eq!(answer["rules"]["legal_actions"], json!(["d8d5"]));
    let answer = client
        .post(
            &try_path("suicide", "forced-capture"),
            &json!({ "actions": ["e4d5", "d8d5"] }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(answer["rules"]["turn"], "white", "{answer}");
    assert_eq!(answer["last"]["human"], "Qxd5", "{answer}");
    // The dice of a Davey Drehs try are the same on every replay.
    let attack = json!({ "actions": ["e4xd5"] });
    let mut rolls = Vec::new();
    for _ in 0..2 {
        let answer = client
            .post(&try_path("drehs", "attack"), &attack)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .json();
        assert_eq!(answer["shown"], true, "{answer}");
        rolls.push(answer["rules"]["last_action"]["rolls"].clone());
    }
    assert!(rolls[0].as_array().is_some_and(|r| r.len() >= 2));
    assert_eq!(rolls[0], rolls[1]);
}

async fn refusals_have_their_codes(client: &mut Client) {
    let refusals = [
        (
            try_path("suicide", "forced-capture"),
            json!({ "actions": ["d2d4"] }),
            422,
            "illegal_action",
        ),
        (
            try_path("chazz", "backward-pawn"),
            json!({ "actions": ["d3d2", "nonsense"] }),
            422,
            "illegal_action",
        ),
        (
            try_path("chazz", "pass"),
            json!({ "actions": vec!["pass"; 17] }),
            422,
            "too_many_actions",
        ),
        (
            try_path("chad", "promotion"),
            json!({ "actions": ["a".repeat(65)] }),
            422,
            "action_too_long",
        ),
        (
            try_path("chad", "promotion"),
            json!({ "moves": [] }),
            422,
            "bad_body",
        ),
        (
            try_path("chess", "promotion"),
            json!({ "actions": [] }),
            404,
            "variant_not_found",
        ),
        (
            try_path("chad", "castling"),
            json!({ "actions": [] }),
            404,
            "lesson_not_found",
        ),
    ];
    for (path, body, status, code) in refusals {
        let answer = client
            .post(&path, &body)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer.status, status, "{path} {body}: {}", answer.body);
        assert_eq!(answer.json()["error"], code, "{path} {body}");
    }
    let illegal = client
        .post(
            &try_path("suicide", "forced-capture"),
            &json!({ "actions": ["d2d4"] }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert!(
        illegal["message"]
            .as_str()
            .is_some_and(|m| m.contains("must_capture")),
        "{illegal}"
    );
    let missing = client
        .get("/api/variants/chess/lessons")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"], "variant_not_found");
}

/// The pages: the list, each variant, and the 404 page for a game we do not have.
async fn pages_and_the_404(client: &mut Client) {
    let list = client
        .get("/variants")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(list.status, 200);
    for variant in VARIANTS {
        assert!(list.body.contains(&format!("href=\"/variant/{variant}\"")));
        let page = client
            .get(&format!("/variant/{variant}"))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(page.status, 200, "{variant}");
        assert!(page
            .body
            .contains(&format!("href=\"/?computer={variant}\"")));
    }
    for path in ["/variant/chess", "/variant/", "/variant/%FF"] {
        let page = client.get(path).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(page.status, 404, "{path}");
        assert!(page.body.contains("id=\"error\""), "{path}: {}", page.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tries_are_rate_limited_per_address() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        config.rate_limits.exempt = Vec::new();
        config.trusted_proxies = Vec::new();
    })
    .await;
    let mut client = server.client();
    let path = try_path("chazz", "pass");
    let body = json!({ "actions": ["pass"] });
    let allowed = oddboard::web::limits::LESSON_TRIES.count.get();
    for n in 0..allowed {
        let answer = client
            .post(&path, &body)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer.status, 200, "try {n}: {}", answer.body);
    }
    let refused = client
        .post(&path, &body)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.json()["error"], "rate_limited");
    assert!(refused.header("retry-after").is_some());
    server.stop().await;
}

/// One try board (every one of the pages, the required ones among them): its lesson, and
/// what a person does on it, step by step.
struct Lesson {
    variant: &'static str,
    id: &'static str,
    steps: &'static [Step],
}

enum Step {
    /// A click on a square of a board (`main`, `duel`).
    Square(&'static str, &'static str),
    /// A click on one of the board's buttons (its special actions, the picker's choices).
    Button(&'static str),
}

use Step::{Button, Square};

const LESSONS: &[Lesson] = &[
    Lesson {
        variant: "suicide",
        id: "forced-capture",
        steps: &[Square("main", "e4"), Square("main", "d5")],
    },
    Lesson {
        variant: "suicide",
        id: "lose-everything",
        steps: &[Square("main", "b5"), Square("main", "a4")],
    },
    Lesson {
        variant: "suicide",
        id: "king-promotion",
        steps: &[
            Square("main", "a7"),
            Square("main", "a8"),
            Button(".try-picker button.pick[data-action=\"a7a8k\"]"),
        ],
    },
    Lesson {
        variant: "chazz",
        id: "backward-pawn",
        steps: &[Square("main", "d3"), Square("main", "d2")],
    },
    Lesson {
        variant: "chazz",
        id: "promotion",
        steps: &[
            Square("main", "e4"),
            Square("main", "e5"),
            Button(".try-picker button.pick[data-action=\"e4e5n\"]"),
        ],
    },
    Lesson {
        variant: "chazz",
        id: "pass",
        steps: &[Button(".try-specials button[data-action=\"pass\"]")],
    },
    Lesson {
        variant: "chazz",
        id: "self-destruct",
        steps: &[Button(".try-specials button[data-action=\"a1a0\"]")],
    },
    Lesson {
        variant: "duel",
        id: "dabbabah",
        steps: &[Square("main", "a1"), Square("main", "a3")],
    },
    Lesson {
        variant: "duel",
        id: "placement",
        // The capture opens the picker; the Duel square is clicked on the board.
        steps: &[
            Square("main", "b3"),
            Square("main", "a4"),
            Square("duel", "y2"),
        ],
    },
    Lesson {
        variant: "duel",
        id: "duel-capture",
        steps: &[
            Square("duel", "x1"),
            Square("duel", "y3"),
            Square("main", "c3"),
        ],
    },
    Lesson {
        variant: "chad",
        id: "king-castle",
        // The knight's leap inside the castle.
        steps: &[Square("main", "c3"), Square("main", "d5")],
    },
    Lesson {
        variant: "chad",
        id: "wall-capture",
        steps: &[Square("main", "g9"), Square("main", "h9")],
    },
    Lesson {
        variant: "chad",
        id: "promotion",
        steps: &[Square("main", "a10"), Square("main", "h10")],
    },
    Lesson {
        variant: "drehs",
        id: "attack",
        steps: &[Square("main", "e4"), Square("main", "d5")],
    },
    Lesson {
        variant: "drehs",
        id: "teleport",
        steps: &[
            Square("main", "g1"),
            Button(".try-specials button.teleport-toggle"),
            Square("main", "c4"),
        ],
    },
    Lesson {
        variant: "drehs",
        id: "cannon",
        // A normal attack and the cannon share their squares: the picker asks which.
        steps: &[
            Square("main", "a1"),
            Square("main", "a5"),
            Button(".try-picker button.pick[data-action=\"a1^a5\"]"),
        ],
    },
    Lesson {
        variant: "drehs",
        id: "heal",
        steps: &[Button(".try-specials button[data-action=\"heal:e1\"]")],
    },
    Lesson {
        variant: "drehs",
        id: "bishop-return",
        steps: &[Button(".try-specials button[data-action=\"return:c1\"]")],
    },
];

/// Brings `css` to the middle of the window (pointer actions need it in view).
async fn into_view(browser: &mut Browser, css: &str) {
    browser.wait_element(css).await;
    browser
        .js(
            "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' })",
            json!([css]),
        )
        .await;
}

async fn open_variant(browser: &mut Browser, base: &str, variant: &str) {
    browser.goto(&format!("{base}/variant/{variant}")).await;
    browser
        .wait_for(
            "the try boards",
            "const page = document.getElementById('variant');
             return page.dataset.loaded === 'true'
               && [...page.querySelectorAll('.try')].every((f) => f.dataset.state === 'ready')
               && !!document.querySelector('#setup svg.board')",
            json!([]),
        )
        .await;
}

/// Plays one lesson with clicks; returns its result line.
async fn play_lesson(browser: &mut Browser, lesson: &Lesson) -> String {
    let figure = format!("#try-{}", lesson.id);
    for step in lesson.steps {
        match step {
            Square(board, square) => {
                let css = format!(
                    "{figure} svg.board[data-board=\"{board}\"] rect[data-square=\"{square}\"]"
                );
                into_view(browser, &css).await;
                browser.pointer_click(&css).await;
            }
            Button(button) => {
                let css = format!("{figure} {button}");
                into_view(browser, &css).await;
                browser.click(&css).await;
            }
        }
    }
    let shown = browser
        .wait_for(
            &format!("{}/{} to show its rule", lesson.variant, lesson.id),
            "const f = document.querySelector(arguments[0]);
             return f.dataset.shown === 'true' && f.querySelector('.try-result').textContent",
            json!([figure]),
        )
        .await;
    shown.as_str().unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_try_board_plays_its_rule_with_clicks() {
    let Some((server, base, mut session)) = start_site("variants-try").await else {
        return;
    };
    let browser = &mut session.browser;
    browser.set_window(1280, 800).await;
    for variant in VARIANTS {
        open_variant(browser, &base, variant).await;
        // Every board of the page is played below.
        let on_page = browser
            .js(
                "return [...document.querySelectorAll('.try')].map((f) => f.dataset.lesson)",
                json!([]),
            )
            .await;
        let mut on_page: Vec<String> = serde_json::from_value(on_page).unwrap_or_default();
        on_page.sort();
        let mut played: Vec<&str> = LESSONS
            .iter()
            .filter(|l| l.variant == variant)
            .map(|l| l.id)
            .collect();
        played.sort_unstable();
        assert_eq!(on_page, played, "{variant}");
        for lesson in LESSONS.iter().filter(|l| l.variant == variant) {
            let result = play_lesson(browser, lesson).await;
            assert!(
                result.starts_with("Right:"),
                "{variant}/{}: {result}",
                lesson.id
            );
            let file = format!("variant-try-{variant}-{}.png", lesson.id);
            browser.screenshot(&screenshots_dir().join(file)).await;
            let plies = browser
                .js(
                    "return document.querySelector(arguments[0]).dataset.plies",
                    json!([format!("#try-{}", lesson.id)]),
                )
                .await;
            assert_eq!(plies, json!("1"), "{variant}/{}", lesson.id);
        }
        // The boards played, their results, pickers and dice pass axe too.
        check_page(browser, &format!("variant-{variant}-played")).await;
    }
    dice_and_reset(browser, &base).await;
    only_legal_targets(browser, &base).await;
    session.end().await;
    server.stop().await;
}

/// The dice of the attack are drawn, and Reset brings the set-up back.
async fn dice_and_reset(browser: &mut Browser, base: &str) {
    open_variant(browser, base, "drehs").await;
    let attack = LESSONS
        .iter()
        .find(|l| l.variant == "drehs" && l.id == "attack");
    play_lesson(
        browser,
        attack.unwrap_or_else(|| panic!("the attack lesson")),
    )
    .await;
    let dice = browser
        .js(
            "return document.querySelectorAll('#try-attack .try-rolls svg.die').length",
            json!([]),
        )
        .await;
    assert!(dice.as_u64().is_some_and(|n| n >= 2), "dice drawn: {dice}");
    browser.click("#try-attack .try-reset").await;
    let reset = browser
        .js(
            "const f = document.getElementById('try-attack');
             return [f.dataset.plies, f.dataset.shown || null, f.querySelectorAll('.try-rolls svg.die').length,
                     !!f.querySelector('svg.board rect[data-square=\"d5\"]')
                       && !!f.querySelector('.piece[data-square=\"e4\"]')]",
            json!([]),
        )
        .await;
    assert_eq!(reset, json!(["0", null, 0, true]));
}

/// A board only offers what the engine lists: in the forced capture no quiet move is a
/// target, so a click on a pawn that may not move selects nothing; Reset puts down a piece
/// picked up.
async fn only_legal_targets(browser: &mut Browser, base: &str) {
    open_variant(browser, base, "suicide").await;
    let css = "#try-forced-capture svg.board[data-board=\"main\"] rect[data-square=\"d2\"]";
    into_view(browser, css).await;
    browser.pointer_click(css).await;
    let targets = browser
        .js(
            "return document.querySelectorAll('#try-forced-capture .targets circle').length",
            json!([]),
        )
        .await;
    assert_eq!(targets, json!(0));
    // A piece that may capture, picked up, is put down by Reset (before any move, when the
    // board shows the set-up already).
    let from = browser
        .js(
            "return document.querySelector('#try-forced-capture .try-boards').boardView.parsed.board[0].from",
            json!([]),
        )
        .await;
    let from = from.as_str().unwrap_or_default();
    let css =
        format!("#try-forced-capture svg.board[data-board=\"main\"] rect[data-square=\"{from}\"]");
    browser.pointer_click(&css).await;
    browser
        .wait_element("#try-forced-capture .targets circle")
        .await;
    browser.click("#try-forced-capture .try-reset").await;
    let in_hand = browser
        .js(
            "const f = document.getElementById('try-forced-capture');
             return f.querySelectorAll('.targets circle').length + f.querySelectorAll('[aria-selected=true]').length",
            json!([]),
        )
        .await;
    assert_eq!(in_hand, json!(0), "Reset leaves {from} in hand");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_variant_pages_list_five_pass_axe_and_fit_phone_and_desktop() {
    let Some((server, base, mut session)) = start_site("variants-pages").await else {
        return;
    };
    let browser = &mut session.browser;
    for (width, height) in SIZES {
        browser.set_window(width, height).await;
        browser.goto(&format!("{base}/variants")).await;
        let cards = browser
            .wait_for(
                "five pictures",
                "const cards = [...document.querySelectorAll('.variant-card')];
                 return cards.length === 5 && cards.every((c) => c.querySelector('svg.mini-board[role=img]'))
                   && cards.map((c) => c.dataset.variant)",
                json!([]),
            )
            .await;
        assert_eq!(cards, json!(VARIANTS));
        check_page(browser, &format!("variants-{width}")).await;
        browser
            .screenshot(&screenshots_dir().join(format!("variants-{width}.png")))
            .await;
        for variant in VARIANTS {
            open_variant(browser, &base, variant).await;
            check_page(browser, &format!("variant-{variant}-{width}")).await;
            into_view(browser, ".try").await;
            let file = format!("variant-{variant}-{width}-try.png");
            browser.screenshot(&screenshots_dir().join(file)).await;
            browser.js("window.scrollTo(0, 0)", json!([])).await;
            browser
                .screenshot(&screenshots_dir().join(format!("variant-{variant}-{width}.png")))
                .await;
        }
    }
    // An unknown variant is the 404 page.
    browser.goto(&format!("{base}/variant/chess")).await;
    let heading = browser
        .wait_for(
            "the error page",
            "const e = document.getElementById('error'); return e && e.textContent",
            json!([]),
        )
        .await;
    assert!(
        heading
            .as_str()
            .is_some_and(|h| h.contains("No such variant")),
        "{heading}"
    );
    session.end().await;
    server.stop().await;
}

/// Axe in both themes, and nothing wider than the window.
pub(crate) async fn check_page(browser: &mut Browser, label: &str) {
    for theme in ["light", "dark"] {
        browser
            .js(
                "document.documentElement.dataset.theme = arguments[0]",
                json!([theme]),
            )
            .await;
        assert_no_serious_violations(browser, &format!("{label} ({theme})")).await;
    }
    browser
        .js("delete document.documentElement.dataset.theme", json!([]))
        .await;
    let wide = overflow(browser).await;
    assert_eq!(wide, Value::Null, "{label} is wider than the window");
}
