//! The browser pages: lobby (`/`), game (`/game/{id}`), replay (`/replay/{id}`) and player
//! (`/player/{name}`). They load the static files (ES modules, CSS) from their versioned
//! URLs (`super::assets`).
//!
//! Pages are small server-rendered shells, their HTML in `templates/` (built into the binary):
//! the layout, the headings and the data the scripts start from (as escaped `data-`
//! attributes, filled into the templates' `{{key}}` placeholders). The scripts in `static/` do
//! the rest from the JSON API and the game WebSocket. Every text that comes from a user or
//! the URL goes through [`escape`]; nothing else is interpolated.
//!
//! A game or replay page for a game that does not exist, and every path no route serves
//! (`web::fallback`), is a small error page ([`error_page`]) with its status.

use super::auth::MaybeUser;
use super::AppState;
use crate::rules::Variant;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use uuid::Uuid;

/// Escapes text for HTML element content and double-quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page templates (`templates/`), built into the binary so the server needs no files
/// beside it but `static/`.
const LAYOUT: &str = include_str!("../../templates/layout.html");
const LOBBY: &str = include_str!("../../templates/lobby.html");
const GAME: &str = include_str!("../../templates/game.html");
const REPLAY: &str = include_str!("../../templates/replay.html");
const PLAYER: &str = include_str!("../../templates/player.html");
const ERROR: &str = include_str!("../../templates/error.html");

/// Fills a template's `{{key}}` placeholders with the given values, which the caller has
/// already escaped (or built from escaped parts). A placeholder with no value is left as it
/// is; a unit test checks that every page fills all of its own.
pub(super) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            rest = &rest[open..];
            break;
        };
        let key = &after[..close];
        match values.iter().find(|(k, _)| *k == key) {
            Some((_, value)) => out.push_str(value),
            None => out.push_str(&rest[open..open + 2 + close + 2]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

/// The common layout: head, navigation with the signed-in user, the page body and its module
/// (a file of `static/`, loaded from `static_prefix`, with `preloads`: the modules it
/// imports, see [`super::assets::module_preloads`]).
fn layout_html(
    title: &str,
    user: &MaybeUser,
    body: &str,
    static_prefix: &str,
    (script, preloads): (&str, &[String]),
) -> String {
    let who = match &user.0 {
        Some(u) => format!(
            "<a id=\"me\" href=\"/player/{name}\" data-username=\"{name}\">{name}</a> \
             <button type=\"button\" id=\"logout\" aria-label=\"Sign out\">Sign out</button>",
            name = escape(&u.username),
        ),
        None => "<a id=\"me\" href=\"/#account\" data-username=\"\">Sign in</a>".to_string(),
    };
    fill(
        LAYOUT,
        &[
            ("title", &escape(title)),
            ("static", static_prefix),
            ("script", script),
            ("preloads", &preload_links(static_prefix, preloads)),
            ("styles", &page_styles(static_prefix, script)),
            ("who", &who),
            ("body", body),
        ],
    )
}

/// Stylesheets only one page needs, by the page's module. They load from `<head>` like the
/// shared ones: a stylesheet in the body would let the browser paint the page unstyled
/// first, and shift it when the styles arrive.
const PAGE_STYLESHEETS: &[(&str, &str)] = &[
    ("game.js", "game.css"),
    ("player.js", "player.css"),
    ("leaderboard.js", "leaderboard.css"),
    ("variant.js", "variant.css"),
];

fn page_styles(static_prefix: &str, script: &str) -> String {
    PAGE_STYLESHEETS
        .iter()
        .filter(|(module, _)| *module == script)
        .map(|(_, sheet)| format!("<link rel=\"stylesheet\" href=\"{static_prefix}/{sheet}\">\n"))
        .collect()
}

/// `<link rel="modulepreload">` lines for the modules (names from the static directory,
/// which the server's operator controls; escaped all the same).
fn preload_links(static_prefix: &str, modules: &[String]) -> String {
    modules
        .iter()
        .map(|m| {
            format!(
                "<link rel=\"modulepreload\" href=\"{static_prefix}/{}\">\n",
                escape(m)
            )
        })
        .collect()
}

pub(super) fn page(
    state: &AppState,
    title: &str,
    user: &MaybeUser,
    body: &str,
    script: &str,
) -> Response {
    let prefix = super::assets::versioned_prefix(&state.static_version);
    let preloads = state
        .static_preloads
        .get(script)
        .map_or(&[][..], Vec::as_slice);
    let html = layout_html(title, user, body, &prefix, (script, preloads));
    ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

/// The playable variants, in the site's order; worked out once, as each asks the rules for
/// a start position.
pub(in crate::web) fn playable_variants() -> &'static [Variant] {
    static PLAYABLE: std::sync::LazyLock<Vec<Variant>> = std::sync::LazyLock::new(|| {
        Variant::ALL
            .iter()
            .copied()
            .filter(|v| v.is_playable())
            .collect()
    });
    &PLAYABLE
}

/// `<option>`s for the playable variants.
pub(super) fn variant_options() -> String {
    playable_variants()
        .iter()
        .map(|v| {
            format!(
                "<option value=\"{}\">{}</option>",
                v.key(),
                escape(v.display_name())
            )
        })
        .collect()
}

/// The bounds of the lobby's clock and rating inputs, from the rules the server holds them
/// to, so that what the forms let a person send is what the server accepts (a test posts
/// each bound). The seek form's clock goes to a seek or match (whole minutes and seconds up
/// to the lobby's `MAX_TIME` and `MAX_INC`, `0 0` for no clock) or to a challenge link (the
/// games API's [`TimeControl::checked`]): it takes what both accept. The computer dialog
/// posts to the games API only, which takes minutes in quarters down to its shortest clock
/// (`MIN_INITIAL_MS`, a quarter of a minute). A clock of no minutes and no increment is
/// refused by the page's script (the API refuses it; the lobby would take it as no clock,
/// which is the "No clock" box's to say).
///
/// [`TimeControl::checked`]: crate::play::clock::TimeControl::checked
fn lobby_bounds() -> [(&'static str, String); 8] {
    use crate::game::lobby::{MAX_INC, MAX_RATING, MAX_TIME};
    use crate::play::clock::{MAX_INCREMENT_MS, MAX_INITIAL_MS, MIN_INITIAL_MS};
    let api_minutes_max = MAX_INITIAL_MS / 60_000;
    let api_increment_max = MAX_INCREMENT_MS / 1000;
    [
        (
            "seek_minutes_max",
            u64::from(MAX_TIME).min(api_minutes_max).to_string(),
        ),
        (
            "seek_increment_max",
            u64::from(MAX_INC).min(api_increment_max).to_string(),
        ),
        ("minutes_max", api_minutes_max.to_string()),
        (
            "minutes_step",
            (MIN_INITIAL_MS as f64 / 60_000.0).to_string(),
        ),
        ("increment_max", api_increment_max.to_string()),
        ("rating_max", MAX_RATING.to_string()),
        ("options", variant_options()),
        ("quick_grid", super::lobby::quick_grid()),
    ]
}

/// Quick pairing's rated or casual choice, drawn by the server so that nothing moves when the
/// script starts: a registered player chooses (rated first; the script restores the choice
/// they last made), a guest or a visitor reads that the grid seeks casual games, which are
/// the only ones a guest may play. Each cell says which it seeks from the grid's
/// `data-rated` (style.css).
fn quick_mode(registered: bool) -> (&'static str, &'static str) {
    if registered {
        (
            "<fieldset id=\"quick-mode\" class=\"quick-mode\"><legend class=\"visually-hidden\">Quick pairing seeks</legend>\
             <label><input type=\"radio\" name=\"quick-mode\" value=\"rated\" id=\"quick-rated\" checked> Rated</label>\
             <label><input type=\"radio\" name=\"quick-mode\" value=\"casual\" id=\"quick-casual\"> Casual</label></fieldset>",
            "true",
        )
    } else {
        (
            "<p id=\"quick-mode\" class=\"quick-mode muted\">Casual games: only registered players play rated.</p>",
            "false",
        )
    }
}

/// How many of a player's newest games the lobby looks through for the ones in progress
/// ("Your games"); the script's refresh reads the same page of `GET /api/users/{name}/games`.
const YOUR_GAMES_SCAN: i64 = 20;

/// "Your games": links to `me`'s games in progress among `games`, each with its variant and
/// opponent, drawn by the server so that the section is there from the first paint (nothing
/// moves below it when the script starts). The script redraws it with the same markup
/// (lobby.js `yourGames`). Empty when there is none: the section is then hidden.
fn your_games(me: &str, games: &[crate::store::GameSummary]) -> String {
    use crate::store::GameStatus;
    games
        .iter()
        .filter(|g| g.status == GameStatus::Active)
        .map(|g| {
            let white = g.white_name.as_deref().unwrap_or("");
            let black = g.black_name.as_deref().unwrap_or("");
            let opponent = if white.eq_ignore_ascii_case(me) {
                black
            } else {
                white
            };
            format!(
                "<li><a href=\"/game/{}\">{} against {}</a></li>",
                g.game_id,
                escape(g.variant.display_name()),
                escape(opponent)
            )
        })
        .collect()
}

/// The lobby's body, with its counts (`GET /api/lobby/stats`, "–" when the lobby cannot
/// say) drawn in, so the script's first read of them changes nothing on the screen, the
/// quick pairing's rated or casual choice for a `registered` player ([`quick_mode`]), and
/// the player's games in progress (`yours`, from [`your_games`]).
fn lobby_body(
    stats: Option<crate::game::lobby::LobbyStats>,
    registered: bool,
    yours: &str,
) -> String {
    let values = lobby_bounds();
    let (mode, rated) = quick_mode(registered);
    let count = |n: Option<usize>| n.map_or_else(|| "–".to_string(), |n| n.to_string());
    let players = count(stats.map(|s| s.players_online));
    let games = count(stats.map(|s| s.games_in_play));
    let mut pairs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
    pairs.extend([
        ("players_online", players.as_str()),
        ("games_in_play", games.as_str()),
        ("quick_mode", mode),
        ("quick_rated", rated),
        ("your_games", yours),
        (
            "your_games_hidden",
            if yours.is_empty() { " hidden" } else { "" },
        ),
    ]);
    fill(LOBBY, &pairs)
}

fn game_body(game_id: Uuid) -> String {
    fill(GAME, &[("game_id", &game_id.to_string())])
}

fn replay_body(game_id: Uuid) -> String {
    fill(REPLAY, &[("game_id", &game_id.to_string())])
}

/// The player page's Challenge link, for a viewer who may challenge `name`: none on their own
/// page, or for a name no person can hold (the computer's, or one the rules for names refuse,
/// which nobody has); "Sign in to challenge" when signed out (the lobby asks them to).
fn challenge_link(name: &str, viewer: &MaybeUser) -> String {
    use super::auth::{has_name_characters, is_computer_name};
    let possible = !name.is_empty()
        && has_name_characters(name)
        && !is_computer_name(&name.to_ascii_lowercase());
    match &viewer.0 {
        _ if !possible => String::new(),
        Some(me) if me.username.eq_ignore_ascii_case(name) => String::new(),
        Some(_) => format!(
            "<a class=\"button challenge\" id=\"challenge\" href=\"/?challenge={name}\">Challenge {name}</a>"
        ),
        None => format!(
            "<a class=\"button challenge\" id=\"challenge\" href=\"/?challenge={name}\">Sign in to challenge</a>"
        ),
    }
}

/// A row of the player page's ratings table per playable variant, its cells blank until the
/// script fills them: the table has its final size from the first paint.
fn player_rating_rows() -> String {
    playable_variants()
        .iter()
        .map(|v| {
            format!(
                "<tr data-variant=\"{}\"><th scope=\"row\">{}</th><td>—</td><td>0</td><td>0 / 0 / 0</td></tr>",
                v.key(),
                escape(v.display_name())
            )
        })
        .collect()
}

fn player_body(name: &str, viewer: &MaybeUser) -> String {
    fill(
        PLAYER,
        &[
            ("name", &escape(name)),
            ("options", &variant_options()),
            ("challenge", &challenge_link(name, viewer)),
            ("rating_rows", &player_rating_rows()),
        ],
    )
}

async fn lobby(State(state): State<AppState>, user: MaybeUser) -> Response {
    let stats = state.lobby.stats().await.ok();
    let registered = user.0.as_ref().is_some_and(|u| !u.is_guest);
    // A player's own games in progress lead the lobby, guests' too (they play as well). A
    // store that cannot answer leaves the section out; the script's refresh fills it later.
    let yours = match &user.0 {
        Some(me) => state
            .store
            .user_games(&me.username, None, None, YOUR_GAMES_SCAN, 0)
            .await
            .map(|games| your_games(&me.username, &games))
            .unwrap_or_default(),
        None => String::new(),
    };
    page(
        &state,
        "Lobby",
        &user,
        &lobby_body(stats, registered, &yours),
        "lobby.js",
    )
}

/// A small HTML page saying what went wrong, with a link home, answered with `status`. It is
/// answered where no user is looked up, so its navigation names nobody, and its module is
/// the one without effects of its own (`common.js`).
pub fn error_page(status: StatusCode, heading: &str, detail: &str) -> Response {
    let body = fill(
        ERROR,
        &[
            ("status", status.as_str()),
            ("heading", &escape(heading)),
            ("detail", &escape(detail)),
        ],
    );
    let html = fill(
        LAYOUT,
        &[
            ("title", &escape(heading)),
            ("static", "/static"),
            ("script", "common.js"),
            ("preloads", ""),
            ("styles", ""),
            ("who", ""),
            ("body", &body),
        ],
    );
    (status, [(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

/// The answer to a game or replay page of a game that does not exist: the page itself would
/// wait for a game socket that never opens.
fn no_such_game() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "No such game",
        "There is no game at this address.",
    )
}

/// The game a page's path names, if it names one the server has. A path that is not a game
/// id names none. A store that cannot be asked does not make a game missing: the page is
/// served, and its script says when the server is back.
async fn existing_game(
    state: &AppState,
    path: Result<Path<String>, PathRejection>,
) -> Option<Uuid> {
    let game_id: Uuid = path.ok()?.0.parse().ok()?;
    if state.games.get(game_id).is_some() {
        return Some(game_id);
    }
    match state.store.game_exists(game_id).await {
        Ok(found) => found.then_some(game_id),
        Err(_) => Some(game_id),
    }
}

/// The page of the game the path names (`title`, its body from `body`, its module
/// `script`), or [`no_such_game`].
async fn game_of_path(
    state: &AppState,
    user: &MaybeUser,
    path: Result<Path<String>, PathRejection>,
    (title, body, script): (&str, fn(Uuid) -> String, &str),
) -> Response {
    match existing_game(state, path).await {
        Some(game_id) => page(state, title, user, &body(game_id), script),
        None => no_such_game(),
    }
}

async fn game_page(
    State(state): State<AppState>,
    user: MaybeUser,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    game_of_path(&state, &user, path, ("Game", game_body, "game.js")).await
}

async fn replay_page(
    State(state): State<AppState>,
    user: MaybeUser,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    game_of_path(&state, &user, path, ("Replay", replay_body, "replay.js")).await
}

async fn player_page(
    State(state): State<AppState>,
    user: MaybeUser,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    match path {
        Ok(Path(name)) => page(
            &state,
            &name,
            &user,
            &player_body(&name, &user),
            "player.js",
        ),
        // Only a name that is not UTF-8 once decoded: it names nobody.
        Err(_) => error_page(
            StatusCode::NOT_FOUND,
            "No such player",
            "There is no player at this address.",
        ),
    }
}

/// The page routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(lobby))
        .route("/game/{id}", get(game_page))
        .route("/replay/{id}", get(replay_page))
        .route("/player/{name}", get(player_page))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_fills_all_its_placeholders() {
        let id = Uuid::nil();
        let signed_out = MaybeUser(None);
        for body in [
            lobby_body(None, false, ""),
            game_body(id),
            replay_body(id),
            player_body("<alice>", &signed_out),
            fill(ERROR, &[("status", "404"), ("heading", ""), ("detail", "")]),
        ] {
            let preloads = ["common.js".to_string(), "game/chat.js".to_string()];
            let html = layout_html(
                "<title>",
                &signed_out,
                &body,
                "/static/v1",
                ("x.js", &preloads),
            );
            assert!(!html.contains("{{"), "{html}");
            assert!(html.starts_with("<!doctype html>"));
            assert!(html.contains("src=\"/static/v1/x.js\""), "{html}");
            assert!(
                html.contains("<link rel=\"modulepreload\" href=\"/static/v1/game/chat.js\">"),
                "{html}"
            );
            assert!(!html.contains("<alice>") && !html.contains("<title> ·"));
        }
        assert!(game_body(id).contains(&format!("data-game-id=\"{id}\"")));
        assert!(player_body("a&b", &signed_out).contains("data-username=\"a&amp;b\""));
    }

    #[test]
    fn the_lobby_clock_inputs_carry_the_servers_bounds() {
        let body = lobby_body(None, false, "");
        for input in [
            r#"id="seek-minutes" type="number" required min="0" max="180" step="1""#,
            r#"id="seek-increment" type="number" required min="0" max="180" step="1""#,
            r#"id="computer-minutes" type="number" required min="0" max="180" step="0.25""#,
            r#"id="seek-max" type="number" required min="0" max="9999" step="1" value="9999""#,
        ] {
            assert!(body.contains(input), "{input}");
        }
    }

    #[test]
    fn the_challenge_link_is_for_others_and_asks_strangers_to_sign_in() {
        let viewer = |name: &str| {
            MaybeUser(Some(crate::store::User {
                user_id: Uuid::nil(),
                username: name.to_string(),
                is_guest: false,
                created_at: chrono::DateTime::UNIX_EPOCH,
            }))
        };
        assert_eq!(
            challenge_link("Alice", &viewer("bob")),
            "<a class=\"button challenge\" id=\"challenge\" href=\"/?challenge=Alice\">Challenge Alice</a>"
        );
        assert!(challenge_link("Alice", &MaybeUser(None)).contains(">Sign in to challenge</a>"));
        for (name, who) in [
            ("alice", "Alice"),
            ("Computer-level-3", "bob"),
            ("a b", "bob"),
            ("<x>", "bob"),
        ] {
            assert_eq!(challenge_link(name, &viewer(who)), "", "{name}");
        }
    }

    #[test]
    fn the_lobby_draws_its_counts_or_a_dash() {
        let stats = crate::game::lobby::LobbyStats {
            players_online: 7,
            games_in_play: 3,
        };
        let body = lobby_body(Some(stats), false, "");
        assert!(body.contains(r#"<span id="players-online">7</span>"#));
        assert!(body.contains(r#"<span id="games-in-play">3</span>"#));
        assert!(lobby_body(None, false, "").contains(r#"<span id="players-online">–</span>"#));
    }

    #[test]
    fn quick_pairing_offers_rated_to_registered_players_only() {
        let registered = lobby_body(None, true, "");
        assert!(registered.contains(r#"id="quick-grid" class="quick-grid" data-rated="true""#));
        assert!(registered.contains(r#"id="quick-rated" checked"#));
        assert!(registered.contains(r#"id="quick-casual""#));
        let guest = lobby_body(None, false, "");
        assert!(guest.contains(r#"data-rated="false""#));
        assert!(!guest.contains("quick-rated") && guest.contains("Casual games"));
    }

    #[test]
    fn fill_leaves_unknown_and_unclosed_placeholders() {
        assert_eq!(fill("a{{x}}b{{y}}c{{", &[("x", "1")]), "a1b{{y}}c{{");
        assert_eq!(fill("", &[]), "");
    }

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }
}
