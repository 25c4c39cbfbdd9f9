//! Test support: a real server on 127.0.0.1:0 with its own fresh database, players that sign
//! in as guests and follow a game over the WebSocket, and a simple playing policy.

use oddboard::app::App;
use oddboard::config::Config;
use oddboard::game::lobby::LobbySettings;
use oddboard::game::{GameSettings, Games};
use oddboard_client::{expect_ok, Client, GameSocket, HttpResponse};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::oneshot;

/// How long a test waits for any single message.
pub const WAIT: Duration = Duration::from_secs(10);

/// How often [`wait_until`] asks again.
const POLL: Duration = Duration::from_millis(50);

/// Waits until `condition` holds, asking again every 50 ms, for at most `within`: a test
/// waits for what it checks instead of a fixed time, so a fast machine does not wait long
/// and a slow one is not failed. A long `within` costs time only when the test fails.
///
/// These tests run on the wall clock: tokio's paused time (`start_paused`) cannot drive a
/// server that talks to a real PostgreSQL, as it jumps to the next timer whenever every task
/// waits, which they do on each answer from the database, so every timeout would fire at
/// once. The few fixed waits left show that something does not happen within a period the
/// server marks no moment for, and say so where they are.
///
/// # Panics
/// `condition` still does not hold after `within`; the message names `what`.
pub async fn wait_until(what: &str, within: Duration, mut condition: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !condition().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {within:?} in vain for {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// The PostgreSQL server the tests use (the database name in it is replaced per test).
pub fn base_database_url() -> String {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@localhost:5432/oddboard_test".to_string())
}

/// `base` with its database name replaced.
pub fn database_url_named(name: &str) -> String {
    let base = base_database_url();
    match base.rfind('/') {
        Some(slash) => format!("{}/{name}", &base[..slash]),
        None => base,
    }
}

/// Settings with short limits so tests of timeouts run quickly.
pub fn fast_settings() -> GameSettings {
    GameSettings {
        first_move_limit: Duration::from_secs(30),
        open_challenge_limit: Duration::from_secs(24 * 60 * 60),
        idle_limit: Duration::from_secs(24 * 60 * 60),
        linger_after_end: Duration::from_secs(60),
        linger_unwatched: Duration::from_secs(60),
        min_claim_delay: Duration::from_millis(300),
        max_claim_delay: Duration::from_millis(300),
        // One search worker: the tests' servers share two cores with the browser,
        // PostgreSQL and each other.
        engine_threads: 1,
        // The server binary's `engine-worker`, as the server itself runs it (this test
        // binary has no such command).
        engine_worker: Some(std::path::PathBuf::from(env!("CARGO_BIN_EXE_oddboard"))),
        ..GameSettings::default()
    }
}

/// A running server with its own database.
pub struct TestServer {
    pub addr: String,
    database_name: String,
    /// The server's games, to see which are in memory (hibernation is seen nowhere else).
    /// Let go at shutdown: the registry holds every actor's address, and an actor stops only
    /// once nobody does.
    games: Option<Games>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on a fresh database.
    pub async fn start(settings: GameSettings) -> TestServer {
        let name = format!("oddboard_it_{}", uuid::Uuid::new_v4().simple());
        TestServer::start_on(&name, settings).await
    }

    /// Starts a server on a fresh database with the lobby's timings given.
    pub async fn start_with_lobby(settings: GameSettings, lobby: LobbySettings) -> TestServer {
        let name = format!("oddboard_it_{}", uuid::Uuid::new_v4().simple());
        TestServer::start_full(&name, settings, lobby).await
    }

    /// Starts a server on the named database (created if missing).
    pub async fn start_on(database_name: &str, settings: GameSettings) -> TestServer {
        TestServer::start_full(database_name, settings, LobbySettings::default()).await
    }

    /// Starts a server on a fresh database with its configuration changed by `configure`
    /// (tests of the settings: limits, the public URL, proxies).
    pub async fn start_configured(
        settings: GameSettings,
        configure: impl FnOnce(&mut Config),
    ) -> TestServer {
        let name = format!("oddboard_it_{}", uuid::Uuid::new_v4().simple());
        TestServer::start_with_config(&name, settings, LobbySettings::default(), configure).await
    }

    /// Starts a server on the named database (created if missing) with its configuration
    /// changed by `configure`: a node of several over one database.
    pub async fn start_configured_on(
        database_name: &str,
        settings: GameSettings,
        configure: impl FnOnce(&mut Config),
    ) -> TestServer {
        TestServer::start_with_config(database_name, settings, LobbySettings::default(), configure)
            .await
    }

    async fn start_full(
        database_name: &str,
        settings: GameSettings,
        lobby: LobbySettings,
    ) -> TestServer {
        TestServer::start_with_config(database_name, settings, lobby, |_| {}).await
    }

    async fn start_with_config(
        database_name: &str,
        settings: GameSettings,
        lobby: LobbySettings,
        configure: impl FnOnce(&mut Config),
    ) -> TestServer {
        let database_url = database_url_named(database_name);
        let mut config = Config {
            bind_addr: "127.0.0.1:0".into(),
            database_url: database_url.clone(),
            ..Config::default()
        };
        configure(&mut config);
        let app = App::build_with(&config, settings, lobby)
            .await
            .unwrap_or_else(|e| panic!("server did not build: {e}"));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("cannot bind: {e}"));
        let addr = listener
            .local_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let games = app.state.games.clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = app
                .run(listener, async move {
                    let _ = stopped.await;
                })
                .await;
        });
        TestServer {
            addr,
            database_name: database_name.to_string(),
            games: Some(games),
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// The URL of the server's database, for tools run beside it (`oddboard admin`).
    pub fn database_url(&self) -> String {
        database_url_named(&self.database_name)
    }

    /// How many games have their actor in memory (a hibernated game has none).
    pub fn live_games(&self) -> usize {
        self.games.as_ref().map_or(0, Games::live_count)
    }

    /// The server's engine pool (its searches, its workers).
    pub fn engine_pool(&self) -> Option<oddboard::engine_pool::EnginePool> {
        self.games.as_ref().map(|games| games.engine_pool().clone())
    }

    pub fn client(&self) -> Client {
        Client::new(self.addr.clone())
    }

    /// A new guest player.
    pub async fn guest(&self) -> Player {
        let mut client = self.client();
        let me = client
            .guest()
            .await
            .unwrap_or_else(|e| panic!("guest login failed: {e}"));
        Player {
            name: me["username"].as_str().unwrap_or_default().to_string(),
            client,
        }
    }

    /// Runs SQL statements on the server's database behind its back (to make the database
    /// refuse something, say).
    pub async fn execute(&self, statements: &str) {
        let pool = sqlx::PgPool::connect(&database_url_named(&self.database_name))
            .await
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        sqlx::raw_sql(statements)
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{statements}: {e}"));
        pool.close().await;
    }

    /// Stores `action` for the game's `ply` behind the server's back, as a commit whose
    /// answer was lost on the way back (the connection broke after COMMIT) leaves it.
    pub async fn store_action_behind_its_back(&self, game_id: &str, ply: u32, action: &str) {
        self.execute(&format!(
            "insert into game_action (game_id, ply, machine, human) \
             values ('{game_id}', {ply}, '{action}', '{action}');"
        ))
        .await;
    }

    /// A query's one number, read from the server's database behind its back.
    pub async fn fetch_number(&self, query: &str) -> i64 {
        let pool = sqlx::PgPool::connect(&database_url_named(&self.database_name))
            .await
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        let number: i64 = sqlx::query_scalar(query)
            .fetch_one(&pool)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        pool.close().await;
        number
    }

    /// Stops the server and drops its database.
    pub async fn stop(mut self) {
        self.shut_down().await;
        drop_database(&self.database_name).await;
    }

    /// Stops the server, leaving its database to the other nodes that share it.
    pub async fn stop_keeping_database(mut self) {
        self.shut_down().await;
    }

    /// Shuts the server down gracefully and starts a new one on the same database (on
    /// another port), which resumes the unfinished games.
    pub async fn restart(mut self, settings: GameSettings) -> TestServer {
        self.shut_down().await;
        TestServer::start_on(&self.database_name, settings).await
    }

    async fn shut_down(&mut self) {
        self.games = None;
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
    }
}

/// Creates a database with nothing in it (no migrations).
pub async fn create_empty_database(name: &str) {
    let pool = sqlx::PgPool::connect(&database_url_named("postgres"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    sqlx::query(&format!("create database \"{name}\""))
        .execute(&pool)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    pool.close().await;
}

/// Drops a test database, disconnecting anyone still on it.
pub async fn drop_database(name: &str) {
    if let Ok(pool) = sqlx::PgPool::connect(&database_url_named("postgres")).await {
        let _ = sqlx::query(&format!("drop database if exists \"{name}\" with (force)"))
            .execute(&pool)
            .await;
        pool.close().await;
    }
}

/// A signed-in player.
pub struct Player {
    pub name: String,
    pub client: Client,
}

impl Player {
    /// Creates an open challenge and returns its id.
    pub async fn create_game(&mut self, variant: &str, clock: Value, color: &str) -> String {
        let response = self.try_create_game(variant, clock, color).await;
        expect_ok(&response).unwrap_or_else(|e| panic!("create game: {e}"));
        response.json()["game_id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Asks to create an open challenge and returns the server's answer, refusal or not.
    pub async fn try_create_game(
        &mut self,
        variant: &str,
        clock: Value,
        color: &str,
    ) -> HttpResponse {
        self.client
            .post(
                "/api/games",
                &json!({ "variant": variant, "clock": clock, "color": color }),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub async fn accept(&mut self, game_id: &str) {
        let response = self
            .client
            .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        expect_ok(&response).unwrap_or_else(|e| panic!("accept: {e}"));
    }

    /// Opens the game socket and reads the first snapshot.
    pub async fn watch(&self, game_id: &str) -> Watcher {
        let socket = self
            .client
            .connect_game(game_id, None)
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        let mut watcher = Watcher::new(socket);
        watcher.read_until(|w| w.version.is_some()).await;
        watcher
    }
}

/// What a client knows about a game, kept up to date from the messages it reads.
#[derive(Default)]
pub struct GameState {
    pub version: Option<u64>,
    pub ply: u64,
    pub legal: Vec<String>,
    pub turn: String,
    pub you: Option<String>,
    pub status: String,
    pub outcome: Option<Value>,
    pub moves: Vec<String>,
    pub errors: Vec<Value>,
    pub events: Vec<Value>,
}

impl GameState {
    fn absorb_rules(&mut self, rules: &Value) {
        self.legal = rules["legal_actions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        self.turn = rules["turn"].as_str().unwrap_or_default().to_string();
        if let Some(outcome) = rules.get("outcome").filter(|o| !o.is_null()) {
            self.outcome = Some(outcome.clone());
        }
    }

    /// Applies one server message; checks that versions arrive in order without gaps.
    pub fn absorb(&mut self, message: &Value) {
        match message["t"].as_str() {
            Some("snapshot") => {
                let game = &message["game"];
                self.version = message["v"].as_u64();
                self.absorb_rules(&game["rules"]);
                self.moves = game["moves"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|m| m["machine"].as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                self.ply = self.moves.len() as u64;
                self.you = game["you"].as_str().map(str::to_string);
                self.status = game["status"].as_str().unwrap_or_default().to_string();
                self.outcome = game.get("outcome").filter(|o| !o.is_null()).cloned();
            }
            Some("event") => {
                let v = message["v"].as_u64().unwrap_or(0);
                if let Some(seen) = self.version {
                    assert_eq!(v, seen + 1, "event versions must not skip: {message}");
                }
                self.version = Some(v);
                self.events.push(message.clone());
                match message["kind"].as_str() {
                    Some("started") => {
                        self.status = "active".into();
                        self.absorb_rules(&message["rules"]);
                    }
                    Some("action") => {
                        self.ply = message["ply"].as_u64().unwrap_or(self.ply);
                        self.moves
                            .push(message["machine"].as_str().unwrap_or_default().to_string());
                        self.absorb_rules(&message["update"]);
                    }
                    Some("takeback") => {
                        let plies = message["plies"].as_u64().unwrap_or(0);
                        let kept = self.moves.len().saturating_sub(plies as usize);
                        self.moves.truncate(kept);
                        self.ply = kept as u64;
                        self.absorb_rules(&message["rules"]);
                    }
                    Some("ended") => {
                        self.status = "finished".into();
                        self.outcome = Some(message["outcome"].clone());
                        self.legal.clear();
                    }
                    _ => {}
                }
            }
            Some("batch") => {
                // A batch answers `sync` with every event after the version the client named;
                // events already in flight when it asked arrive twice, and a client (as
                // static/game.js does) skips those it has seen.
                let seen = self.version;
                if let Some(messages) = message["messages"].as_array() {
                    for m in messages.clone() {
                        let resent =
                            matches!((m["v"].as_u64(), seen), (Some(v), Some(s)) if v <= s);
                        if !resent {
                            self.absorb(&m);
                        }
                    }
                }
            }
            Some("error") => self.errors.push(message.clone()),
            _ => {}
        }
    }

    pub fn is_my_turn(&self) -> bool {
        self.you.as_deref() == Some(self.turn.as_str())
            && !self.legal.is_empty()
            && self.outcome.is_none()
    }
}

/// One connection to one game (`/ws/game/{id}`) and what it knows of the game, which its
/// fields are read through (`watcher.ply`).
pub struct Watcher {
    pub socket: GameSocket,
    pub game: GameState,
}

impl std::ops::Deref for Watcher {
    type Target = GameState;

    fn deref(&self) -> &GameState {
        &self.game
    }
}

impl std::ops::DerefMut for Watcher {
    fn deref_mut(&mut self) -> &mut GameState {
        &mut self.game
    }
}

impl Watcher {
    pub fn new(socket: GameSocket) -> Watcher {
        Watcher {
            socket,
            game: GameState::default(),
        }
    }

    /// Reads messages until `done` holds.
    pub async fn read_until(&mut self, mut done: impl FnMut(&Watcher) -> bool) {
        while !done(self) {
            let message = self
                .socket
                .next(WAIT)
                .await
                .unwrap_or_else(|e| panic!("waiting for the game: {e}"));
            self.absorb(&message);
        }
    }

    /// Reads the next message and returns it (after absorbing it).
    pub async fn next(&mut self) -> Value {
        let message = self
            .socket
            .next(WAIT)
            .await
            .unwrap_or_else(|e| panic!("waiting for a message: {e}"));
        self.absorb(&message);
        message
    }

    /// Sends an action for the next ply.
    pub async fn act(&mut self, action: &str) {
        let message = json!({ "t": "act", "ply": self.ply + 1, "action": action });
        self.socket
            .send(&message)
            .await
            .unwrap_or_else(|e| panic!("send: {e}"));
    }

    /// Sends any message.
    pub async fn send(&mut self, message: Value) {
        self.socket
            .send(&message)
            .await
            .unwrap_or_else(|e| panic!("send: {e}"));
    }

    /// Waits for the next error message.
    pub async fn expect_error(&mut self, code: &str) {
        let before = self.errors.len();
        self.read_until(|w| w.errors.len() > before).await;
        let got = self.errors.last().cloned().unwrap_or_default();
        assert_eq!(got["code"], code, "expected error {code}, got {got}");
    }
}

/// A deterministic choice among legal actions: spreads over the list by ply so that games
/// differ between variants but replay identically.
pub fn choose(legal: &[String], ply: u64) -> String {
    let index = (ply as usize * 7 + 3) % legal.len().max(1);
    legal.get(index).cloned().unwrap_or_default()
}
