//! What operators rely on: request ids, compression, the static files' cache headers, JSON
//! logs and `.env` through the real binary, `oddboard migrate`, and `oddboard admin`
//! (through the real binary, against a running server's database).

use crate::crash::{free_port, wait_healthy, ServerProcess};
use crate::server::{database_url_named, drop_database, fast_settings, TestServer, Watcher, WAIT};
use oddboard_client::{expect_ok, Client, HttpResponse};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn get(client: &mut Client, path: &str, headers: &[(&str, &str)]) -> HttpResponse {
    client
        .request_with_headers("GET", path, None, headers)
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

/// The version in the lobby page's script URL (`/static/<version>/lobby.js`).
async fn static_version(client: &mut Client) -> String {
    let page = get(client, "/", &[]).await;
    let start = page
        .body
        .find("/static/")
        .unwrap_or_else(|| panic!("no static URL: {}", page.body))
        + "/static/".len();
    let version: String = page.body[start..]
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect();
    assert_eq!(version.len(), 16, "{}", page.body);
    assert!(
        page.body
            .contains(&format!("src=\"/static/{version}/lobby.js\"")),
        "{}",
        page.body
    );
    version
}

/// The status line and headers (lowercase) of a WebSocket upgrade sent by hand, so that it
/// can say it accepts compressed answers.
async fn upgrade_head(addr: &str, path: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Accept-Encoding: gzip, br\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
        let read = tokio::time::timeout(WAIT, stream.read(&mut byte))
            .await
            .unwrap_or_else(|_| panic!("no answer to the upgrade"))
            .unwrap_or_else(|e| panic!("{e}"));
        if read == 0 {
            break;
        }
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).to_ascii_lowercase()
}

#[tokio::test]
async fn requests_carry_ids_text_is_compressed_and_static_files_are_cached() {
    let server = TestServer::start(fast_settings()).await;
    let mut client = server.client();

    // A request id on every answer: minted, or the client's own when it is a plain token.
    let minted = get(&mut client, "/healthz", &[]).await;
    let id = minted
        .header("x-request-id")
        .unwrap_or_default()
        .to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id:?}");
    let again = get(&mut client, "/healthz", &[]).await;
    assert_ne!(
        again.header("x-request-id"),
        Some(id.as_str()),
        "one per request"
    );
    let kept = get(
        &mut client,
        "/api/variants",
        &[("X-Request-Id", "proxy-42.a")],
    )
    .await;
    assert_eq!(kept.header("x-request-id"), Some("proxy-42.a"));
    let replaced = get(&mut client, "/healthz", &[("X-Request-Id", "x\"; drop")]).await;
    let new_id = replaced.header("x-request-id").unwrap_or_default();
    assert!(uuid::Uuid::parse_str(new_id).is_ok(), "{new_id:?}");
    let not_found = get(&mut client, "/no/such/page", &[]).await;
    assert!(not_found.header("x-request-id").is_some(), "errors too");

    // Versioned static files are immutable, compressed as the client accepts.
    let version = static_version(&mut client).await;
    let versioned = format!("/static/{version}/board.js");
    for (accepted, encoding) in [
        ("br", Some("br")),
        ("gzip", Some("gzip")),
        ("identity", None),
    ] {
        let script = get(&mut client, &versioned, &[("Accept-Encoding", accepted)]).await;
        assert_eq!(script.status, 200);
        assert_eq!(script.header("content-encoding"), encoding, "{accepted}");
        assert_eq!(
            script.header("cache-control"),
            Some("public, max-age=31536000, immutable")
        );
    }
    let plain = get(&mut client, "/static/board.js", &[]).await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("cache-control"), Some("no-cache"));
    assert!(
        plain.body.contains("export"),
        "uncompressed without Accept-Encoding"
    );
    // Modules import each other relatively: they are all under the versioned prefix.
    assert!(plain.body.contains("from './") || plain.body.contains("from \"./"));
    let missing = get(&mut client, &format!("/static/{version}/nope.js"), &[]).await;
    assert_eq!(missing.status, 404);
    // The not-found page says `no-store`, never the immutable year.
    assert_eq!(
        missing.header("cache-control"),
        Some("no-store"),
        "a 404 is not cached"
    );
    let other_version = get(&mut client, "/static/0000000000000000/board.js", &[]).await;
    assert_eq!(other_version.status, 404);

    // JSON answers are compressed too; pages are never cached.
    let json = get(&mut client, "/api/variants", &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(json.header("content-encoding"), Some("gzip"));
    let page = get(&mut client, "/", &[("Accept-Encoding", "br")]).await;
    assert_eq!(page.header("content-encoding"), Some("br"));
    assert_eq!(page.header("cache-control"), Some("no-store"));

    // A WebSocket upgrade claims no encoding, whatever the client accepts.
    let head = upgrade_head(&server.addr, "/ws/games").await;
    assert!(head.starts_with("http/1.1 101"), "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    assert!(head.contains("x-request-id"), "{head}");
    server.stop().await;
}

/// Runs the real binary to completion: exit status, stdout, stderr. Logs at `info`, which
/// must all go to stderr: stdout is the command's answer.
fn oddboard(args: &[&str], database_url: &str) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_oddboard"))
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "info")
        .output()
        .unwrap_or_else(|e| panic!("cannot run the binary: {e}"));
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Registers (`register`) or signs in (`login`) with the test password.
async fn sign(client: &mut Client, how: &str, username: &str) -> HttpResponse {
    client
        .post(
            &format!("/api/auth/{how}"),
            &json!({ "username": username, "password": "correct horse" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `oddboard admin <args>` on the test's database: (exit status, stdout, stderr).
type Admin<'a> = dyn Fn(&[&str]) -> (i32, String, String) + 'a;

/// `sessions` lists every session, or one user's (named in any case): Alice's one and
/// Bob's, under a header line.
fn assert_sessions_are_listed(admin: &Admin<'_>) {
    let (status, listed, err) = admin(&["sessions", "--user", "ALICE"]);
    assert_eq!(status, 0, "{err}");
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(lines[1].contains("\talice\tfalse\t"), "{listed}");
    let (status, everyone, _) = admin(&["sessions"]);
    assert_eq!((status, everyone.lines().count()), (0, 3), "{everyone}");
}

/// A disabled account's session is gone and its password no longer signs in (saying so only
/// to the right password); disabling an unknown account fails.
async fn assert_disabled_account_is_locked_out(
    server: &TestServer,
    alice: &mut Client,
    admin: &Admin<'_>,
) {
    let me = get(alice, "/api/me", &[]).await;
    assert_eq!(me.status, 401, "{}", me.body);
    let refused = sign(&mut server.client(), "login", "alice").await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(refused.json()["error"], "account_disabled");
    let wrong_password = server
        .client()
        .post(
            "/api/auth/login",
            &json!({ "username": "alice", "password": "not the password" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        wrong_password.json()["error"],
        "bad_credentials",
        "says nothing more"
    );
    let (_, listed, _) = admin(&["sessions", "--user", "alice"]);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert_eq!(admin(&["disable-account", "nobody"]).0, 1);
}

/// Aborted: the running game ends for its players, and the record says so.
async fn assert_aborted_game_ends_for_its_players(
    server: &TestServer,
    bob_watcher: &mut Watcher,
    game_id: &str,
    admin: &Admin<'_>,
) {
    let (status, said, err) = admin(&["abort-game", game_id]);
    assert_eq!(
        (status, said.trim()),
        (0, format!("aborted {game_id}").as_str()),
        "{err}"
    );
    bob_watcher.read_until(|w| w.outcome.is_some()).await;
    assert_eq!(
        bob_watcher.outcome,
        Some(json!({ "winner": null, "reason": "aborted" }))
    );
    let record = get(&mut server.client(), &format!("/api/games/{game_id}"), &[]).await;
    assert_eq!(record.json()["status"], "aborted", "{}", record.body);
    assert_eq!(record.json()["result"], "*", "{}", record.body);
    let (status, _, err) = admin(&["abort-game", game_id]);
    assert_eq!(status, 1, "already over: {err}");
    let (status, _, _) = admin(&["abort-game", "not-an-id"]);
    assert_eq!(status, 2, "clap refuses it");
}

#[tokio::test]
async fn admin_commands_disable_accounts_abort_games_and_list_sessions() {
    let server = TestServer::start(fast_settings()).await;
    let database_url = server.database_url();
    let admin = |args: &[&str]| {
        let mut words = vec!["admin"];
        words.extend_from_slice(args);
        oddboard(&words, &database_url)
    };
    let mut alice = server.client();
    expect_ok(&sign(&mut alice, "register", "alice").await).unwrap_or_else(|e| panic!("{e}"));
    let mut alice_player = crate::server::Player {
        name: "alice".into(),
        client: alice.clone(),
    };
    let mut bob = server.guest().await;
    let game_id = alice_player
        .create_game("suicide", Value::Null, "white")
        .await;
    bob.accept(&game_id).await;
    let mut alice_socket = alice
        .connect_game(&game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut bob_watcher: Watcher = bob.watch(&game_id).await;

    assert_sessions_are_listed(&admin);
    // Disabled: the session ends, its socket closes, and the password no longer signs in.
    let (status, said, err) = admin(&["disable-account", "Alice"]);
    assert_eq!(status, 0, "{err}");
    assert!(
        said.starts_with("disabled alice (") && said.ends_with("sessions closed: 1\n"),
        "{said}"
    );
    let reason = alice_socket
        .closed(WAIT)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reason, "logged_out");
    assert_disabled_account_is_locked_out(&server, &mut alice, &admin).await;
    assert_aborted_game_ends_for_its_players(&server, &mut bob_watcher, &game_id, &admin).await;

    // Enabled again, the account signs in.
    assert_eq!(admin(&["enable-account", "alice"]).0, 0);
    assert_eq!(
        sign(&mut server.client(), "login", "alice").await.status,
        200
    );
    server.stop().await;
}

#[tokio::test]
async fn the_binary_migrates_reads_dotenv_and_logs_requests_as_json() {
    let name = format!("oddboard_it_{}", uuid::Uuid::new_v4().simple());
    let database_url = database_url_named(&name);
    assert_admin_waits_for_migrate(&name, &database_url).await;
    let logs = serve_from_dotenv(&database_url).await;
    drop_database(&name).await;

    assert!(
        !logs.contains("hunter2"),
        "the query string is not logged:\n{logs}"
    );
    let lines: Vec<Value> = logs
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let access = lines
        .iter()
        .find(|line| line["span"]["request_id"] == "it-json-1")
        .unwrap_or_else(|| panic!("no access line:\n{logs}"));
    assert_eq!(access["level"], "INFO", "{access}");
    assert_eq!(access["fields"]["status"], 404, "{access}");
    assert!(access["fields"]["latency_ms"].is_number(), "{access}");
    assert_eq!(access["span"]["method"], "GET", "{access}");
    assert_eq!(
        access["span"]["path"], "/api/users/nobody/games",
        "{access}"
    );
}

/// `admin` neither creates nor migrates a database: on an empty one it says to run
/// `migrate`, which migrates it to the newest migration.
async fn assert_admin_waits_for_migrate(name: &str, database_url: &str) {
    let (status, _, err) = oddboard(&["admin", "sessions"], database_url);
    assert_eq!(status, 2, "{err}");
    crate::server::create_empty_database(name).await;
    let (status, _, err) = oddboard(&["admin", "sessions"], database_url);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("run `oddboard migrate` first"), "{err}");
    let (status, said, err) = oddboard(&["migrate"], database_url);
    assert_eq!(status, 0, "{err}");
    let (status, listed, err) = oddboard(&["admin", "sessions"], database_url);
    assert_eq!((status, listed.lines().count()), (0, 1), "{err}");
    let newest = oddboard::store::MIGRATOR
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or_default();
    assert!(
        said.trim_end().ends_with(&format!("at migration {newest}")),
        "{said}"
    );
}

/// A bare `oddboard` serves, with settings from a `.env` file in its working directory
/// (empty: the default), where the environment and then the flags win. Asks it for one
/// page with a secret in the query and a request id, and returns what it logged.
async fn serve_from_dotenv(database_url: &str) -> String {
    let dir = std::env::temp_dir().join(format!("oddboard-env-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    std::fs::write(
        dir.join(".env"),
        "BIND_ADDR=127.0.0.1:1\nLOG_FORMAT=json\nSTATIC_DIR=\n\
         DATABASE_URL=postgres://nobody@127.0.0.1:1/nothing\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let child = Command::new(env!("CARGO_BIN_EXE_oddboard"))
        .args(["--bind", &addr])
        .current_dir(&dir)
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "info")
        .env_remove("BIND_ADDR")
        .env_remove("LOG_FORMAT")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the server binary: {e}"));
    let mut server = ServerProcess(child);
    wait_healthy(&addr).await;
    let mut client = Client::new(addr.clone());
    let answer = get(
        &mut client,
        "/api/users/nobody/games?page=1&secret=hunter2",
        &[("X-Request-Id", "it-json-1")],
    )
    .await;
    assert_eq!(answer.status, 404);
    let _ = server.0.kill();
    let _ = server.0.wait();
    let mut logs = String::new();
    if let Some(mut stdout) = server.0.stdout.take() {
        use std::io::Read;
        let _ = stdout.read_to_string(&mut logs);
    }
    let _ = std::fs::remove_dir_all(&dir);
    logs
}

/// The database alone keeps a disabled account out, for a server that missed the notice:
/// no session of it is found, even one created after the account was disabled.
#[sqlx::test(migrations = "./migrations")]
async fn a_disabled_account_has_no_session_even_unannounced(pool: sqlx::PgPool) {
    use oddboard::store::{Store, StoreError};
    let store = Store::from_pool(pool);
    let now = chrono::Utc::now();
    let later = now + chrono::Duration::days(1);
    let carol = store
        .create_user("carol", Some("$argon2id$stand-in"), false)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let (early, late) = ([7u8; 32], [8u8; 32]);
    store
        .create_session(carol.user_id, &early, later)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let found = |token: [u8; 32]| {
        let store = store.clone();
        async move {
            store
                .session(&token, now)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
                .is_some()
        }
    };
    assert!(found(early).await);
    let listed = store
        .live_sessions(Some("CAROL"), 10, now)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].username, "carol");

    // Behind the store's back, as by hand: no session is deleted, none is announced.
    sqlx::query("update app_user set disabled_at = now() where user_id = $1")
        .bind(carol.user_id)
        .execute(store.pool())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    store
        .create_session(carol.user_id, &late, later)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!found(early).await && !found(late).await);
    assert!(store.is_disabled(carol.user_id).await.unwrap_or(false));

    let (account, closed) = store
        .disable_account("Carol")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(closed, 2, "both sessions deleted");
    let first_disabled = account.disabled_at;
    let (again, closed) = store
        .disable_account("carol")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (again.disabled_at, closed),
        (first_disabled, 0),
        "keeps the first time"
    );
    store
        .enable_account("carol")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!store.is_disabled(carol.user_id).await.unwrap_or(true));
    assert!(matches!(
        store.enable_account("nobody").await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store.abort_game(uuid::Uuid::now_v7()).await,
        Err(StoreError::NotFound)
    ));
}
