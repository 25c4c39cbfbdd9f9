//! The browser pages: lobby (`/`), game (`/game/{id}`), replay (`/replay/{id}`) and player
//! (`/player/{name}`), plus the static files under `/static` (ES modules, CSS).
//!
//! Pages are small server-rendered shells written by hand: the layout, the headings and the
//! data the scripts start from (as escaped `data-` attributes). The scripts in `static/` do
//! the rest from the JSON API and the game WebSocket. Every text that comes from a user or
//! the URL goes through [`escape`]; nothing else is interpolated.

use super::auth::MaybeUser;
use super::AppState;
use crate::rules::Variant;
use axum::extract::Path;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::path::Path as FsPath;
use tower_http::services::ServeDir;
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

/// The common layout: head, navigation with the signed-in user, the page body and its module.
fn layout(title: &str, user: &MaybeUser, body: &str, script: &str) -> Response {
    let who = match &user.0 {
        Some(u) => format!(
            "<a id=\"me\" href=\"/player/{name_url}\" data-username=\"{name}\">{name}</a> \
             <button type=\"button\" id=\"logout\" aria-label=\"Sign out\">Sign out</button>",
            name = escape(&u.username),
            name_url = escape(&u.username),
        ),
        None => "<a id=\"me\" href=\"/#account\" data-username=\"\">Sign in</a>".to_string(),
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title} · Oddboard</title>\n\
         <link rel=\"icon\" href=\"data:,\">\n\
         <link rel=\"stylesheet\" href=\"/static/style.css\">\n\
         <script type=\"module\" src=\"/static/{script}\"></script>\n\
         </head>\n<body>\n\
         <header class=\"top\"><a class=\"brand\" href=\"/\">Oddboard</a>\
         <nav aria-label=\"Account\">{who}</nav></header>\n\
         <main>\n{body}\n</main>\n</body>\n</html>\n",
        title = escape(title),
    );
    ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response()
}

/// `<option>`s for the playable variants.
fn variant_options() -> String {
    Variant::ALL
        .iter()
        .filter(|v| v.is_playable())
        .map(|v| {
            format!(
                "<option value=\"{}\">{}</option>",
                v.key(),
                escape(v.display_name())
            )
        })
        .collect()
}

async fn lobby(user: MaybeUser) -> Response {
    let options = variant_options();
    let body = format!(
        r##"<h1 class="visually-hidden">Lobby</h1>
<div class="lobby">
<section id="account" aria-labelledby="account-h" class="panel">
  <h2 id="account-h">Account</h2>
  <div id="account-forms">
  <form id="login-form" class="stack">
    <label>Username <input name="username" autocomplete="username" required minlength="3" maxlength="20"></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required minlength="8" maxlength="128"></label>
    <div class="row">
      <button type="submit" name="action" value="login" id="login-button">Log in</button>
      <button type="submit" name="action" value="register" id="register-button">Register</button>
      <button type="button" id="guest-button">Play as guest</button>
    </div>
  </form>
  </div>
  <p id="account-status" role="status" aria-live="polite"></p>
</section>
<section aria-labelledby="seek-h" class="panel">
  <h2 id="seek-h">Create a game</h2>
  <form id="seek-form" class="stack">
    <label>Variant <select name="variant" id="seek-variant">{options}</select></label>
    <label><input type="checkbox" name="untimed" id="seek-untimed"> No clock</label>
    <label>Minutes <input name="minutes" id="seek-minutes" type="number" min="0" max="180" step="0.5" value="5"></label>
    <label>Increment (seconds) <input name="increment" id="seek-increment" type="number" min="0" max="180" step="1" value="3"></label>
    <label>Colour <select name="color" id="seek-color">
      <option value="random">Random</option><option value="white">White</option><option value="black">Black</option>
    </select></label>
    <label>Rating range <span class="row"><input name="min" id="seek-min" type="number" min="0" max="9999" value="0" aria-label="Lowest rating" size="5"> – <input name="max" id="seek-max" type="number" min="0" max="9999" value="9999" aria-label="Highest rating" size="5"></span></label>
    <label><input type="checkbox" name="rated" id="seek-rated"> Rated (registered players)</label>
    <label><input type="checkbox" name="manual" id="seek-manual"> Manual (I accept each opponent)</label>
    <label><input type="checkbox" name="formula" id="seek-formula"> Check my formula</label>
    <label>Challenge a user (optional) <input name="opponent" id="seek-opponent" maxlength="20" autocomplete="off"></label>
    <div class="row">
      <button type="submit" id="seek-submit">Seek</button>
      <button type="button" id="link-submit" aria-label="Create an open challenge link">Challenge link</button>
    </div>
  </form>
  <p id="seek-status" role="status" aria-live="polite"></p>
</section>
<section aria-labelledby="challenges-h" class="panel wide" id="challenges-panel" hidden>
  <h2 id="challenges-h">Challenges</h2>
  <ul id="challenge-list"></ul>
</section>
<section aria-labelledby="seeks-h" class="panel wide">
  <h2 id="seeks-h">Open seeks</h2>
  <svg id="seek-graph" role="img" aria-label="Seek graph: open games by rating and time" viewBox="0 0 400 200"></svg>
  <table class="list" aria-describedby="seeks-h"><thead><tr><th>Player</th><th>Rating</th><th>Variant</th><th>Clock</th><th>Colour</th><th></th></tr></thead>
  <tbody id="seek-list"></tbody></table>
  <h3>Open challenge links</h3>
  <table class="list"><thead><tr><th>Player</th><th>Variant</th><th>Clock</th><th>Colour</th><th></th></tr></thead>
  <tbody id="open-list"></tbody></table>
</section>
<section aria-labelledby="live-h" class="panel wide">
  <h2 id="live-h">Games in progress</h2>
  <table class="list"><thead><tr><th>White</th><th>Black</th><th>Variant</th><th>Clock</th><th>Moves</th><th></th></tr></thead>
  <tbody id="live-list"></tbody></table>
</section>
<section aria-labelledby="console-h" class="panel wide">
  <h2 id="console-h">Console</h2>
  <pre id="console-log" aria-live="polite" tabindex="0"></pre>
  <form id="console-form" class="row">
    <label class="grow"><span class="visually-hidden">Command</span><input id="console-input" name="command" autocomplete="off" placeholder="seek 5 3 suicide, sought, play 3, match bob, finger, help"></label>
    <button type="submit">Send</button>
  </form>
</section>
</div>"##
    );
    layout("Lobby", &user, &body, "lobby.js")
}

async fn game_page(user: MaybeUser, Path(game_id): Path<Uuid>) -> Response {
    let body = format!(
        r##"<div id="game" class="game" data-game-id="{game_id}">
<section class="board-area" aria-label="Board">
  <div class="player-bar top-bar"><span class="name" id="top-name"></span><span class="clock" id="top-clock" role="timer" aria-label="Clock"></span></div>
  <div id="boards" class="boards"></div>
  <div class="player-bar bottom-bar"><span class="name" id="bottom-name"></span><span class="clock" id="bottom-clock" role="timer" aria-label="Clock"></span></div>
  <div id="picker" class="picker" hidden role="dialog" aria-label="Choose"></div>
  <div id="special-actions" class="row"></div>
</section>
<aside class="side">
  <p id="connection" class="connection" role="status" aria-live="polite"></p>
  <p id="status" class="status" role="status" aria-live="polite"></p>
  <p id="spectators" class="muted"></p>
  <div class="row controls">
    <button type="button" id="flip" aria-label="Flip the board">Flip</button>
    <button type="button" id="resign" aria-label="Resign">Resign</button>
    <button type="button" id="draw" aria-label="Offer a draw">Offer draw</button>
    <button type="button" id="abort" aria-label="Abort the game">Abort</button>
    <button type="button" id="rematch" aria-label="Offer a rematch">Rematch</button>
  </div>
  <div id="offer" class="row"></div>
  <div id="join" class="row"></div>
  <ol id="moves" class="moves" aria-label="Moves"></ol>
  <div id="rolls" class="rolls" aria-label="Dice" aria-live="polite"></div>
  <p><a id="replay-link" href="/replay/{game_id}">Replay</a> · <a href="/games/{game_id}/export" download>Export</a></p>
</aside>
</div>"##
    );
    layout("Game", &user, &body, "game.js")
}

async fn replay_page(user: MaybeUser, Path(game_id): Path<Uuid>) -> Response {
    let body = format!(
        r##"<div id="replay" class="game" data-game-id="{game_id}">
<section class="board-area" aria-label="Board">
  <div class="player-bar top-bar"><span class="name" id="top-name"></span></div>
  <div id="boards" class="boards"></div>
  <div class="player-bar bottom-bar"><span class="name" id="bottom-name"></span></div>
  <div class="row controls">
    <button type="button" id="first" aria-label="First position">«</button>
    <button type="button" id="prev" aria-label="Previous move">◀</button>
    <span id="ply-label" aria-live="polite"></span>
    <button type="button" id="next" aria-label="Next move">▶</button>
    <button type="button" id="last" aria-label="Last position">»</button>
    <button type="button" id="flip" aria-label="Flip the board">Flip</button>
  </div>
</section>
<aside class="side">
  <p id="status" class="status"></p>
  <ol id="moves" class="moves" aria-label="Moves"></ol>
  <div id="rolls" class="rolls" aria-label="Dice"></div>
  <section id="dice" class="panel" hidden aria-labelledby="dice-h"><h2 id="dice-h">Dice verification</h2>
    <p id="dice-result" role="status"></p><ol id="roll-log" class="roll-log"></ol></section>
  <p><a id="export" href="/games/{game_id}/export" download>Download the export</a> · <a href="/game/{game_id}">Game page</a></p>
</aside>
</div>"##
    );
    layout("Replay", &user, &body, "replay.js")
}

async fn player_page(user: MaybeUser, Path(name): Path<String>) -> Response {
    let options = variant_options();
    let body = format!(
        r##"<div id="player" data-username="{name}">
<h1>{name}</h1>
<section class="panel" aria-labelledby="ratings-h"><h2 id="ratings-h">Ratings and results per variant</h2>
  <table class="list"><thead><tr><th>Variant</th><th>Rating</th><th>Games</th><th>Won</th><th>Drawn</th><th>Lost</th></tr></thead><tbody id="ratings"></tbody></table>
</section>
<section class="panel" aria-labelledby="games-h"><h2 id="games-h">Games</h2>
  <form id="filters" class="row">
    <label>Variant <select name="variant" id="filter-variant"><option value="">All</option>{options}</select></label>
    <label>Result <select name="result" id="filter-result"><option value="">All</option><option value="win">Won</option><option value="draw">Drawn</option><option value="loss">Lost</option></select></label>
  </form>
  <table class="list"><thead><tr><th>Date</th><th>Variant</th><th>White</th><th>Black</th><th>Result</th><th>Reason</th><th>Moves</th><th></th></tr></thead><tbody id="games"></tbody></table>
  <div class="row"><button type="button" id="prev-page">Newer</button><span id="page-label"></span><button type="button" id="next-page">Older</button></div>
</section>
</div>"##,
        name = escape(&name),
    );
    layout(&name, &user, &body, "player.js")
}

/// The page routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(lobby))
        .route("/game/{id}", get(game_page))
        .route("/replay/{id}", get(replay_page))
        .route("/player/{name}", get(player_page))
}

/// The static files (`static/` by default) under `/static`.
pub fn static_files(dir: &FsPath) -> ServeDir {
    ServeDir::new(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }
}
