//! Issue 48, items 5 and 6, in real Chromium. Quick pairing: a registered player chooses
//! rated or casual above the grid (remembered across visits), every cell says which it
//! seeks, and a guest and a registered player on the same casual cell land in the same
//! unrated game. Challenge links: the creator's waiting page names its terms, has a working
//! Copy button and calls its chat the players' ("Chat", not "Spectators' chat"); the friend
//! who opens the link reads who challenges them, the variant, the clock, their colour and
//! that it is casual, and accepting starts the game for both. axe-core on the lobby with the
//! choice shown and on both sides of a challenge.

use super::axe::assert_no_serious_violations;
use super::browser::{lobby_ready, on_game_page, register};
use super::browser_site::sign_in_as_guest;
use super::server::{fast_settings, TestServer};
use super::webdriver::{browser_available, Browser, Driver};
use super::ws_game::stored_record;
use serde_json::{json, Value};

/// What every cell of the grid says it seeks (its `::after` words) and whether its label
/// says the same: `[word, label ends with it]` for each cell, deduplicated.
async fn cells_say(browser: &mut Browser) -> Value {
    browser
        .js(
            "const said = new Set();
             for (const c of document.querySelectorAll('#quick-grid button.quick')) {
               const word = getComputedStyle(c, '::after').content.replace(/\"/g, '');
               said.add(JSON.stringify([word, c.getAttribute('aria-label').endsWith(' ' + word)]));
             }
             return [...said].map((s) => JSON.parse(s));",
            json!([]),
        )
        .await
}

fn cell(variant: &str, time: u32, inc: u32) -> String {
    format!("#quick-grid button.quick[data-variant=\"{variant}\"][data-time=\"{time}\"][data-inc=\"{inc}\"]")
}

/// A server and two browser sessions of one chromedriver, for two people on one site.
struct Two {
    server: TestServer,
    base: String,
    driver: Driver,
    profiles: std::path::PathBuf,
    a: Browser,
    b: Browser,
}

impl Two {
    /// None when the browser tests are skipped.
    async fn start(name: &str) -> Option<Two> {
        if !browser_available() {
            return None;
        }
        let server = TestServer::start(fast_settings()).await;
        let base = format!("http://{}", server.addr);
        let driver = Driver::start().await;
        let profiles =
            std::env::temp_dir().join(format!("oddboard-{name}-{}", uuid::Uuid::new_v4().simple()));
        let a = driver.session(&profiles.join("a")).await;
        let b = driver.session(&profiles.join("b")).await;
        Some(Two {
            server,
            base,
            driver,
            profiles,
            a,
            b,
        })
    }

    async fn end(self) {
        self.a.quit().await;
        self.b.quit().await;
        drop(self.driver);
        let _ = std::fs::remove_dir_all(&self.profiles);
        self.server.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_and_a_registered_player_meet_on_a_casual_tile() {
    let Some(mut two) = Two::start("glance-tile").await else {
        return;
    };
    let (base, reg, guest) = (two.base.clone(), &mut two.a, &mut two.b);
    let name = format!("carol{}", &uuid::Uuid::new_v4().simple().to_string()[..6]);
    register(reg, &base, &name).await;
    lobby_ready(reg, &base).await;
    // A registered player seeks rated games first, and every cell says so.
    assert_eq!(cells_say(reg).await, json!([["rated", true]]));
    assert_no_serious_violations(reg, "the lobby with the rated or casual choice").await;
    reg.click("#quick-casual").await;
    reg.wait_for(
        "every cell casual",
        "return document.getElementById('quick-grid').dataset.rated === 'false'",
        json!([]),
    )
    .await;
    assert_eq!(cells_say(reg).await, json!([["casual", true]]));
    // The choice is kept for the next visit.
    lobby_ready(reg, &base).await;
    let kept = reg
        .js(
            "return [document.getElementById('quick-casual').checked, document.getElementById('quick-grid').dataset.rated]",
            json!([]),
        )
        .await;
    assert_eq!(kept, json!([true, "false"]));

    // A guest has no choice: the grid seeks casual games, and says so.
    sign_in_as_guest(guest, &base).await;
    lobby_ready(guest, &base).await;
    let choice = guest
        .js(
            "return [!!document.getElementById('quick-rated'), document.getElementById('quick-mode').textContent]",
            json!([]),
        )
        .await;
    assert_eq!(choice[0], json!(false), "{choice}");
    assert!(
        choice[1].as_str().unwrap_or_default().contains("Casual"),
        "{choice}"
    );
    assert_eq!(cells_say(guest).await, json!([["casual", true]]));

    let tile = cell("chazz", 3, 2);
    reg.click(&tile).await;
    reg.wait_for(
        "the registered player's casual search",
        "return document.querySelector(arguments[0]).getAttribute('aria-pressed') === 'true'
           && document.getElementById('quick-status').textContent.includes('casual')",
        json!([tile]),
    )
    .await;
    // The guest sees the seek before clicking: the two are eligible for each other.
    guest
        .wait_for(
            "the registered player's seek in the guest's list",
            "return [...document.querySelectorAll('#seek-list tr')].some((r) => r.textContent.includes(arguments[0]))",
            json!([name]),
        )
        .await;
    guest.click(&tile).await;
    let game_reg = on_game_page(reg).await;
    let game_guest = on_game_page(guest).await;
    assert_eq!(game_reg, game_guest, "both on the same game");
    let record = stored_record(&two.server, &game_reg).await;
    assert_eq!(record["variant"], "chazz", "{record}");
    assert_eq!(record["rated"], false, "{record}");
    assert_eq!(
        record["clock"],
        json!({"initial_ms": 180_000, "increment_ms": 2000}),
        "{record}"
    );
    two.end().await;
}

/// The open challenge panel's heading and terms, and whether the Copy row shows.
async fn challenge_panel(browser: &mut Browser) -> (String, String, bool) {
    let panel = browser
        .wait_for(
            "the challenge panel with the variant's name",
            "const s = document.getElementById('challenge');
             const terms = document.getElementById('challenge-terms').textContent;
             return !s.hidden && terms.includes('Duel Chess')
               ? [document.getElementById('challenge-title').textContent, terms, !document.getElementById('challenge-share').hidden]
               : null;",
            json!([]),
        )
        .await;
    (
        panel[0].as_str().unwrap_or_default().to_string(),
        panel[1].as_str().unwrap_or_default().to_string(),
        panel[2] == json!(true),
    )
}

async fn chat_title(browser: &mut Browser) -> String {
    let title = browser
        .js(
            "return document.getElementById('chat-title').textContent",
            json!([]),
        )
        .await;
    title.as_str().unwrap_or_default().to_string()
}

/// The creator's side: a challenge link (Duel Chess, 10+5, the creator Black), then the
/// waiting page, which names the terms, copies the link and
/// calls its chat the players'. The link.
async fn waiting_page_names_its_terms_and_copies_the_link(
    creator: &mut Browser,
    base: &str,
) -> String {
    creator
        .cdp(
            "Browser.grantPermissions",
            json!({"origin": base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await;
    // A challenge link as "Challenge a friend" makes it (the lobby's tests go through the
    // dialog): Duel Chess, 10+5, the creator Black.
    let link = creator
        .js(
            "return fetch('/api/games', {
               method: 'POST', headers: { 'content-type': 'application/json' },
               body: JSON.stringify({ variant: 'duel', clock: { minutes: 10, increment: 5 }, color: 'black' }),
             }).then((r) => r.json()).then((g) => new URL(g.url, location.href).href);",
            json!([]),
        )
        .await;
    let link = link.as_str().unwrap_or_default().to_string();
    creator.goto(&link).await;

    // The creator's waiting page: their terms, the link to copy, the players' chat.
    let (heading, terms, share) = challenge_panel(creator).await;
    assert_eq!(heading, "Your challenge");
    assert_eq!(terms, "Duel Chess · 10+5 · you play Black · casual");
    assert!(share, "the creator gets the link");
    assert_eq!(chat_title(creator).await, "Chat");
    let shown = creator
        .js(
            "return document.getElementById('challenge-link').value",
            json!([]),
        )
        .await;
    assert_eq!(shown, json!(link));
    creator.click("#challenge-copy").await;
    creator
        .wait_for(
            "copied",
            "return document.getElementById('challenge-note').textContent === 'Link copied.'",
            json!([]),
        )
        .await;
    let copied = creator
        .js("return navigator.clipboard.readText()", json!([]))
        .await;
    assert_eq!(copied, json!(link));
    assert_no_serious_violations(creator, "the creator's waiting page").await;
    link
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_link_names_its_challenger_and_the_creator_copies_it() {
    let Some(mut two) = Two::start("glance-link").await else {
        return;
    };
    let (base, creator, friend) = (two.base.clone(), &mut two.a, &mut two.b);
    sign_in_as_guest(creator, &base).await;
    let creator_name = creator
        .js(
            "return document.getElementById('me').dataset.username",
            json!([]),
        )
        .await;
    let creator_name = creator_name.as_str().unwrap_or_default().to_string();
    let link = waiting_page_names_its_terms_and_copies_the_link(creator, &base).await;

    // The friend opens the link: who challenges them and on what terms, before accepting.
    sign_in_as_guest(friend, &base).await;
    friend.goto(&link).await;
    let (heading, terms, share) = challenge_panel(friend).await;
    assert_eq!(heading, format!("{creator_name} challenges you"));
    assert_eq!(terms, "Duel Chess · 10+5 · you play White · casual");
    assert!(!share, "only the creator gets the Copy row");
    friend.wait_element("#accept").await;
    assert_no_serious_violations(friend, "a challenge link's page").await;
    friend.click("#accept").await;
    let game_friend = on_game_page(friend).await;
    let game_creator = on_game_page(creator).await;
    assert_eq!(game_friend, game_creator);
    assert!(link.ends_with(&game_creator), "{link}");
    for browser in [&mut *creator, &mut *friend] {
        browser
            .wait_for(
                "the challenge panel gone once the game started",
                "return document.getElementById('challenge').hidden",
                json!([]),
            )
            .await;
        assert_eq!(chat_title(browser).await, "Chat");
    }
    let record = stored_record(&two.server, &game_creator).await;
    assert_eq!(record["black_name"], creator_name.as_str(), "{record}");
    two.end().await;
}
