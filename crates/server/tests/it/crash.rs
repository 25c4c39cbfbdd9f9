//! The server binary is killed with SIGKILL in the middle of a game and started again: every
//! acknowledged action must be there, and the game must go on to its end.

use crate::server::{choose, database_url_named, drop_database, Player, Watcher};
use oddboard_client::Client;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18_080)
}

/// The server process; killed when dropped, so a failing test leaves no server behind
/// (one would hold the test harness's output open).
pub struct ServerProcess(pub Child);

impl std::ops::Deref for ServerProcess {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for ServerProcess {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(port: u16, database_url: &str) -> ServerProcess {
    start_server_with(port, database_url, &[])
}

/// The server binary on `port` with `database_url` and more settings from the environment.
pub(crate) fn start_server_with(
    port: u16,
    database_url: &str,
    settings: &[(&str, String)],
) -> ServerProcess {
    let child = Command::new(env!("CARGO_BIN_EXE_oddboard"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .env("DATABASE_URL", database_url)
        .envs(settings.iter().map(|(k, v)| (k, v)))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the server binary: {e}"));
    ServerProcess(child)
}

pub async fn wait_healthy(addr: &str) {
    for _ in 0..200 {
        let mut client = Client::new(addr);
        if let Ok(response) = client.get("/healthz").await {
            if response.status == 200 {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server at {addr} did not become healthy");
}

pub(crate) async fn play(white: &mut Watcher, black: &mut Watcher, plies: u64) {
    for _ in 0..plies {
        if white.outcome.is_some() {
            return;
        }
        let ply = white.ply;
        let mover = if white.is_my_turn() {
            &mut *white
        } else {
            &mut *black
        };
        let action = choose(&mover.legal, ply);
        mover.act(&action).await;
        white
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
        black
            .read_until(|w| w.ply > ply || w.outcome.is_some())
            .await;
    }
}

/// A new guest on the server at `addr`.
pub(crate) async fn guest_on(addr: &str) -> Player {
    let mut client = Client::new(addr.to_string());
    client.guest().await.unwrap_or_else(|e| panic!("{e}"));
    Player {
        name: String::new(),
        client,
    }
}

/// `player` watches `game_id` again from the event `version` it saw last, which predates a
/// restart: the server answers with a whole snapshot.
async fn rejoin(player: &mut Player, game_id: &str, version: u64) -> Watcher {
    let socket = player
        .client
        .connect_game(game_id, Some(version))
        .await
        .unwrap_or_else(|e| panic!("reconnect: {e}"));
    let mut watcher = Watcher::new(socket);
    let first = watcher.next().await;
    assert_eq!(
        first["t"], "snapshot",
        "a version from before the restart: {first}"
    );
    watcher
}

/// Plays on (at most 400 plies) until the game ends; White resigns if it has not.
pub(crate) async fn play_to_the_end(white: &mut Watcher, black: &mut Watcher) {
    for _ in 0..400 {
        if white.outcome.is_some() {
            break;
        }
        play(white, black, 1).await;
    }
    if white.outcome.is_none() {
        white.send(serde_json::json!({ "t": "resign" })).await;
        white.read_until(|w| w.outcome.is_some()).await;
    }
}

/// The server at `addr` has `game_id` finished, with `actions` actions stored.
pub(crate) async fn assert_stored_finished_with(addr: &str, game_id: &str, actions: usize) {
    let mut client = Client::new(addr.to_string());
    let record = client
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(record["status"], "finished");
    let stored = record["actions"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(stored, actions);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_loses_no_acknowledged_action_and_the_game_goes_on() {
    let database = format!("oddboard_crash_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut server = start_server(port, &database_url);
    wait_healthy(&addr).await;

    let mut alice = guest_on(&addr).await;
    let mut bob = guest_on(&addr).await;
    let game_id = alice
        .create_game(
            "suicide",
            serde_json::json!({ "minutes": 10, "increment": 5 }),
            "white",
        )
        .await;
    bob.accept(&game_id).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play(&mut white, &mut black, 7).await;
    let acknowledged = white.moves.clone();
    assert_eq!(acknowledged.len(), 7);
    let seen_before_crash = white.version.unwrap_or(0);

    server
        .kill()
        .unwrap_or_else(|e| panic!("cannot kill the server: {e}"));
    let _ = server.wait();

    let mut server = start_server(port, &database_url);
    wait_healthy(&addr).await;
    let mut black = bob.watch(&game_id).await;
    assert_eq!(
        black.moves, acknowledged,
        "every acknowledged action survives"
    );
    assert_eq!(black.status, "active");
    // Versions go on growing across the restart, so an old one never names a new event.
    let resumed_version = black.version.unwrap_or(0);
    assert!(
        resumed_version > seen_before_crash,
        "version {resumed_version} after the restart, {seen_before_crash} before it"
    );
    // Black moves while White is away; White comes back with the version it saw before the
    // crash and must get the whole game, Black's move included.
    let action = choose(&black.legal, black.ply);
    black.act(&action).await;
    black.read_until(|w| w.ply == 8).await;
    let mut white = rejoin(&mut alice, &game_id, seen_before_crash).await;
    assert_eq!(white.moves.len(), 8, "the move made while White was away");
    assert_eq!(white.moves[..7], acknowledged[..]);
    // The clock of the side to move was not charged for the downtime: the stored readings hold.
    play_to_the_end(&mut white, &mut black).await;
    assert_stored_finished_with(&addr, &game_id, white.moves.len()).await;

    let _ = server.kill();
    let _ = server.wait();
    drop_database(&database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_shuts_the_server_down_gracefully_and_games_resume() {
    let database = format!("oddboard_term_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&database);
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut server = start_server(port, &database_url);
    wait_healthy(&addr).await;
    let mut alice = guest_on(&addr).await;
    let mut bob = guest_on(&addr).await;
    let game_id = alice
        .create_game("chazz", serde_json::Value::Null, "white")
        .await;
    bob.accept(&game_id).await;
    let mut white = alice.watch(&game_id).await;
    let mut black = bob.watch(&game_id).await;
    play(&mut white, &mut black, 3).await;
    let played = white.moves.clone();

    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap_or_else(|e| panic!("cannot send SIGTERM: {e}"));
    assert!(status.success());
    // The open game sockets are closed by the server with a close frame (a socket merely
    // dropped when the process exits reads as a reset, not as `socket closed`).
    let closed = loop {
        if let Err(e) = white.socket.next_text(Duration::from_secs(10)).await {
            break e.to_string();
        }
    };
    assert_eq!(closed, "socket closed");
    // The server then exits cleanly.
    let mut exited = None;
    for _ in 0..200 {
        if let Ok(Some(code)) = server.try_wait() {
            exited = Some(code);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let code = exited.unwrap_or_else(|| {
        let _ = server.kill();
        panic!("the server did not exit after SIGTERM")
    });
    assert!(code.success(), "exit status {code}");

    let mut server = start_server(port, &database_url);
    wait_healthy(&addr).await;
    let white = alice.watch(&game_id).await;
    assert_eq!(white.moves, played);
    assert_eq!(white.status, "active");
    let _ = server.kill();
    let _ = server.wait();
    drop_database(&database).await;
}
