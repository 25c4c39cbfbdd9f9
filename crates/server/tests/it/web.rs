//! HTTP API tests against a real server: accounts and sessions, game creation and
//! validation, history paging and the export.

use crate::server::{fast_settings, TestServer, WAIT};
use oddboard::game::GameSettings;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_sessions_and_guests() {
    let server = TestServer::start(fast_settings()).await;
    let mut client = server.client();
    let me = client
        .get("/api/me")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(me.status, 401);
    assert_eq!(me.json()["error"], "not_logged_in");

    let register = client
        .post(
            "/api/auth/register",
            &json!({ "username": "Alice_1", "password": "correct horse" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(register.status, 200, "{}", register.body);
    let cookie = register
        .header("set-cookie")
        .unwrap_or_default()
        .to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert_eq!(
        client
            .get("/api/me")
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .json()["username"],
        "Alice_1"
    );

    // Usernames are unique without regard to case, and validated.
    let mut other = server.client();
    for (name, code) in [
        ("alice_1", "username_taken"),
        ("ab", "invalid_username"),
        ("admin", "reserved_username"),
        ("Guest99", "reserved_username"),
        ("<script>", "invalid_username"),
        // Refused, not trimmed into another name.
        (" Carol ", "invalid_username"),
        ("Carol\n", "invalid_username"),
    ] {
        let response = other
            .post(
                "/api/auth/register",
                &json!({ "username": name, "password": "long enough" }),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(response.json()["error"], code, "{name}: {}", response.body);
    }
    let short = other
        .post(
            "/api/auth/register",
            &json!({ "username": "bobby", "password": "short" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(short.json()["error"], "invalid_password");

    // Logout ends the session, even for a client that kept the cookie (the server had the
    // session in memory from the request before); login starts a new one; a wrong password
    // does not.
    let me = client
        .get("/api/me")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(me.status, 200);
    let old_cookie = client.cookie.clone();
    client
        .post("/api/auth/logout", &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        client
            .get("/api/me")
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .status,
        401
    );
    client.cookie = old_cookie;
    let replayed = client
        .get("/api/me")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed.status, 401, "a logged-out session still works");
    client.cookie = None;
    let wrong = client
        .post(
            "/api/auth/login",
            &json!({ "username": "alice_1", "password": "wrong password" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(wrong.json()["error"], "bad_credentials");
    let login = client
        .post(
            "/api/auth/login",
            &json!({ "username": "ALICE_1", "password": "correct horse" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(login.status, 200);
    assert_eq!(
        client
            .get("/api/me")
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .json()["username"],
        "Alice_1"
    );

    let mut guest = server.client();
    let me = guest.guest().await.unwrap_or_else(|e| panic!("{e}"));
    let name = me["username"].as_str().unwrap_or_default();
    assert!(name.starts_with("Guest") && name.len() >= 9, "{name}");
    assert_eq!(me["is_guest"], true);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_are_validated_and_listed() {
    let server = TestServer::start(fast_settings()).await;
    let mut anonymous = server.client();
    let refused = anonymous
        .post(
            "/api/games",
            &json!({ "variant": "suicide", "clock": null }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused.status, 401);

    let mut alice = server.guest().await;
    for (body, code) in [
        (
            json!({ "variant": "shogi", "clock": null }),
            "unknown_variant",
        ),
        (
            json!({ "variant": "suicide", "clock": { "minutes": -3, "increment": 0 } }),
            "invalid_clock",
        ),
        // Shorter than the shortest clock: a quarter of a minute, or an increment alone.
        (
            json!({ "variant": "suicide", "clock": { "minutes": 0.0001, "increment": 0 } }),
            "invalid_clock",
        ),
        (
            json!({ "variant": "suicide", "clock": { "minutes": 0.2, "increment": 3 } }),
            "invalid_clock",
        ),
        (
            json!({ "variant": "suicide", "clock": { "minutes": 0, "increment": 0 } }),
            "invalid_clock",
        ),
        (
            json!({ "variant": "suicide", "clock": null, "color": "green" }),
            "invalid_color",
        ),
    ] {
        let response = alice
            .client
            .post("/api/games", &body)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(response.json()["error"], code, "{body}");
    }
    for shortest in [
        json!({ "minutes": 0.25, "increment": 0 }),
        json!({ "minutes": 0, "increment": 1 }),
    ] {
        alice.create_game("suicide", shortest, "random").await;
    }
    let game_id = alice
        .create_game("suicide", json!({ "minutes": 3, "increment": 2 }), "random")
        .await;
    let own = alice
        .client
        .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(own.json()["error"], "own_game");
    let mut bob = server.guest().await;
    bob.accept(&game_id).await;
    let mut carol = server.guest().await;
    let late = carol
        .client
        .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(late.json()["error"], "game_already_started");
    // An undecided game's result is `*`, as in its export.
    let record = carol
        .client
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(
        (&record["status"], &record["result"]),
        (&json!("active"), &json!("*")),
        "{record}"
    );

    // History lists games the user played: open challenges nobody accepted do not count.
    alice.create_game("chazz", Value::Null, "white").await;
    for _ in 0..3 {
        let id = alice.create_game("chazz", Value::Null, "white").await;
        bob.accept(&id).await;
    }
    let page = anonymous
        .get(&format!("/api/users/{}/games?per_page=2", alice.name))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(page["games"].as_array().map(Vec::len), Some(2), "{page}");
    let second = anonymous
        .get(&format!(
            "/api/users/{}/games?per_page=3&page=2",
            alice.name
        ))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(
        second["games"].as_array().map(Vec::len),
        Some(1),
        "{second}"
    );
    // A page past the end, however far, is empty rather than an overflow.
    let far = anonymous
        .get(&format!(
            "/api/users/{}/games?page={}",
            alice.name,
            i64::MAX
        ))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(far.status, 200, "{}", far.json());
    assert_eq!(far.json()["games"].as_array().map(Vec::len), Some(0));
    let suicide_only = anonymous
        .get(&format!("/api/users/{}/games?variant=suicide", alice.name))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(
        suicide_only["games"].as_array().map(Vec::len),
        Some(1),
        "{suicide_only}"
    );
    assert_eq!(suicide_only["games"][0]["game_id"], game_id.as_str());
    let missing = anonymous
        .get("/api/users/nobody_here/games")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(missing.status, 404);
    let health = anonymous
        .get("/healthz")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(health.status, 200);
    let metrics = anonymous
        .get("/metrics")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        metrics.body.contains("oddboard_games_in_progress 4"),
        "{}",
        metrics.body
    );
    assert!(metrics.body.contains("oddboard_commit_batch_size_count"));
    // The games' creations and starts were committed, so some commit took some time.
    let commits_timed = metrics
        .body
        .lines()
        .find_map(|line| line.strip_prefix("oddboard_commit_seconds_count "))
        .and_then(|count| count.parse::<u64>().ok());
    assert!(commits_timed.is_some_and(|n| n > 0), "{}", metrics.body);
    server.stop().await;
}

/// Sends one raw HTTP/1.1 request on a new connection and returns the status and the body
/// parsed as JSON (Null if it is not JSON).
async fn raw_request(addr: &str, head: &str, body: &[u8]) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let mut request = format!(
        "{head}\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    // The server may answer (413) before reading the whole body and close: a failed write
    // of the rest is expected then.
    let _ = stream.write_all(&request).await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let text = String::from_utf8_lossy(&answer);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let json = text
        .split_once("\r\n\r\n")
        .and_then(|(_, body)| serde_json::from_str(body).ok())
        .unwrap_or(Value::Null);
    (status, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_json_errors_with_stable_codes() {
    let server = TestServer::start(fast_settings()).await;
    let mut client = server.client();
    let me = client.guest().await.unwrap_or_else(|e| panic!("{e}"));
    let name = me["username"].as_str().unwrap_or_default().to_string();

    // A field of the wrong type or range.
    let answer = client
        .post(
            "/api/games",
            &json!({ "variant": "suicide", "clock": { "minutes": 3, "increment": -1 } }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert_eq!(answer.json()["error"], "bad_body");
    assert!(
        answer.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("increment")),
        "{}",
        answer.body
    );
    // A game id that is not a UUID names no game, on the API and the socket alike.
    for path in ["/api/games/xyz", "/games/xyz/export", "/ws/game/xyz"] {
        let answer = client.get(path).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
        assert_eq!(answer.json()["error"], "game_not_found", "{path}");
    }
    // A query string that does not parse.
    let answer = client
        .get(&format!("/api/users/{name}/games?page=first"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert_eq!(answer.json()["error"], "bad_query");
    let answer = client
        .get(&format!("/api/users/{name}/games?result=won"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        answer.json()["error"],
        "bad_query",
        "only win, loss or draw"
    );
    let answer = client
        .get(&format!("/api/users/{name}/games?result=win"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let results = client
        .get(&format!("/api/users/{name}/results"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(results, json!({ "user": name, "results": [] }));
    let unknown = client
        .get("/api/users/nobody_here/results")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unknown.json()["error"], "user_not_found");

    let cookie = client.cookie.clone().unwrap_or_default();
    let head = |extra: &str| format!("POST /api/games HTTP/1.1\r\nCookie: {cookie}{extra}");
    // Not JSON at all.
    let (status, body) = raw_request(
        &server.addr,
        &head("\r\nContent-Type: application/json"),
        b"{not json",
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (422, Some("bad_body")));
    // JSON not declared as such.
    let (status, body) = raw_request(&server.addr, &head(""), br#"{"variant":"suicide"}"#).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (415, Some("json_required"))
    );
    // Over the 64 KiB every body is held to.
    let big = format!(r#"{{"variant":"{}"}}"#, "x".repeat(70 * 1024));
    let (status, body) = raw_request(
        &server.addr,
        &head("\r\nContent-Type: application/json"),
        big.as_bytes(),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (413, Some("body_too_large"))
    );
    // A browser posting from another site's page is refused; from this site's, served.
    let game = br#"{"variant":"suicide","clock":null}"#;
    let json_from =
        |origin: &str| format!("\r\nContent-Type: application/json\r\nOrigin: {origin}");
    let (status, body) =
        raw_request(&server.addr, &head(&json_from("http://evil.example")), game).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("cross_origin"))
    );
    let own = format!("http://{}", server.addr);
    let (status, body) = raw_request(&server.addr, &head(&json_from(&own)), game).await;
    assert_eq!(status, 201, "{body}");
    let (status, _) = raw_request(
        &server.addr,
        "POST /api/auth/logout HTTP/1.1\r\nOrigin: http://evil.example",
        b"",
    )
    .await;
    assert_eq!(status, 403, "a cross-site form cannot log a visitor out");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_out_closes_the_sockets_of_that_session_only() {
    let server = TestServer::start(fast_settings()).await;
    // One account signed in twice (a laptop and a phone), and a visitor who is not.
    let mut laptop = server.client();
    let credentials = json!({ "username": "Carol", "password": "correct horse" });
    let register = laptop
        .post("/api/auth/register", &credentials)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(register.status, 200, "{}", register.body);
    let mut phone = server.client();
    let login = phone
        .post("/api/auth/login", &credentials)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(login.status, 200, "{}", login.body);
    let created = laptop
        .post(
            "/api/games",
            &json!({ "variant": "chazz", "clock": null, "color": "white" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let game_id = created.json()["game_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", created.body))
        .to_string();
    let mut sockets = Vec::new();
    for client in [&laptop, &phone, &server.client()] {
        let game = client
            .connect_game(&game_id, None)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        // The visitor has no session, so the lobby refuses it.
        sockets.push((game, client.connect_lobby().await.ok()));
    }
    let mut sockets = sockets.into_iter();
    let (
        Some((mut laptop_game, Some(mut laptop_lobby))),
        Some((mut phone_game, Some(mut phone_lobby))),
        Some((mut visitor_game, None)),
    ) = (sockets.next(), sockets.next(), sockets.next())
    else {
        panic!("the two sessions should have opened both sockets, the visitor only the game's");
    };

    // What a second tab of the laptop still sends: the cookie from before the logout.
    let stale_tab = laptop.clone();
    let logout = laptop
        .post("/api/auth/logout", &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(logout.status, 200, "{}", logout.body);
    for socket in [&mut laptop_game, &mut laptop_lobby] {
        let reason = socket.closed(WAIT).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(reason, "logged_out");
    }
    // The phone's session and the visitor are untouched: their sockets still answer.
    for socket in [&mut phone_game, &mut phone_lobby, &mut visitor_game] {
        socket
            .send(&json!({ "t": "ping" }))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        socket
            .wait_for(WAIT, |m| m["t"] == "pong")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // A socket opened with the logged-out cookie is only a visitor's.
    let mut late = stale_tab
        .connect_game(&game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let snapshot = late
        .wait_for(WAIT, |m| m["t"] == "snapshot")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(snapshot["game"]["you"], Value::Null, "{snapshot}");
    server.stop().await;
}

/// Asks for a WebSocket upgrade of `path` as a browser on the page `origin` would (with the
/// session cookie, if any) and returns the status and the body parsed as JSON (Null if it is
/// not JSON, as after 101). Only the answer's head and body are read: an accepted socket is
/// dropped at once.
async fn upgrade(
    addr: &str,
    path: &str,
    cookie: Option<&str>,
    origin: Option<&str>,
) -> (u16, Value) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    let mut stream = tokio::io::BufReader::new(stream);
    let mut request = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    );
    if let Some(cookie) = cookie {
        request.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    if let Some(origin) = origin {
        request.push_str(&format!("Origin: {origin}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .get_mut()
        .write_all(request.as_bytes())
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let mut status = 0;
    let mut length = 0;
    loop {
        let mut line = String::new();
        let read = tokio::time::timeout(WAIT, stream.read_line(&mut line))
            .await
            .unwrap_or_else(|_| panic!("no answer to the upgrade of {path}"))
            .unwrap_or_else(|e| panic!("read: {e}"));
        let line = line.trim_end();
        if read == 0 || line.is_empty() {
            break;
        }
        if let Some(rest) = line.strip_prefix("HTTP/1.1 ") {
            status = rest.get(..3).and_then(|s| s.parse().ok()).unwrap_or(0);
        } else if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    if status != 101 {
        stream
            .read_exact(&mut body)
            .await
            .unwrap_or_else(|e| panic!("read: {e}"));
    }
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_refused_to_pages_of_other_origins() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let game_id = alice.create_game("suicide", Value::Null, "white").await;
    let cookie = alice.client.cookie.clone().unwrap_or_default();
    // Another site, and another port of this very host (the same site to a browser, which
    // sends it the cookie).
    let port = server.addr.rsplit(':').next().unwrap_or_default();
    let other_port = if port == "1" { "2" } else { "1" };
    let foreign = [
        "http://evil.example".to_string(),
        format!("http://127.0.0.1:{other_port}"),
        "null".to_string(),
    ];
    let own = format!("http://{}", server.addr);
    for path in [
        format!("/ws/game/{game_id}"),
        "/ws/games".into(),
        "/ws/lobby".into(),
    ] {
        for origin in &foreign {
            let (status, body) = upgrade(&server.addr, &path, Some(&cookie), Some(origin)).await;
            assert_eq!(
                (status, body["error"].as_str()),
                (403, Some("cross_origin")),
                "{path} from {origin}: {body}"
            );
        }
        // This site's pages, and programs, which name no origin.
        for origin in [Some(own.as_str()), None] {
            let (status, body) = upgrade(&server.addr, &path, Some(&cookie), origin).await;
            assert_eq!(status, 101, "{path} from {origin:?}: {body}");
        }
    }
    // The refused lobby socket posted nothing, and the refused game socket did not resign.
    let record = alice
        .client
        .get(&format!("/api/games/{game_id}"))
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    assert_eq!(record["status"], "waiting", "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_the_hardening_headers_and_errors_have_their_shape() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let game_id = alice.create_game("chazz", Value::Null, "white").await;
    let client = &mut alice.client;
    let get = |path: String| {
        let mut client = client.clone();
        async move {
            client
                .get(&path)
                .await
                .unwrap_or_else(|e| panic!("{path}: {e}"))
        }
    };
    for path in [
        "/",
        "/static/style.css",
        "/api/variants",
        "/nowhere",
        "/api/nowhere",
    ] {
        let answer = get(path.to_string()).await;
        let csp = answer.header("content-security-policy").unwrap_or_default();
        for directive in [
            "script-src 'self'",
            "style-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{path}: {csp}");
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
        for (name, value) in [
            ("x-frame-options", "DENY"),
            ("x-content-type-options", "nosniff"),
            ("referrer-policy", "same-origin"),
        ] {
            assert_eq!(answer.header(name), Some(value), "{path}: {name}");
        }
        assert!(
            answer
                .header("permissions-policy")
                .is_some_and(|p| p.contains("camera=()")),
            "{path}"
        );
    }

    // Pages: served for a game that exists, a small page saying so for one that does not.
    let missing = uuid::Uuid::new_v4();
    for (path, status, says) in [
        (format!("/game/{game_id}"), 200, "data-game-id"),
        (format!("/replay/{game_id}"), 200, "data-game-id"),
        (format!("/game/{missing}"), 404, "No such game"),
        (format!("/replay/{missing}"), 404, "No such game"),
        ("/game/not-a-game".to_string(), 404, "No such game"),
        ("/game/%3Cb%3E".to_string(), 404, "No such game"),
        ("/nowhere".to_string(), 404, "Not found"),
        ("/static/nothing.js".to_string(), 404, "Not found"),
    ] {
        let answer = get(path.clone()).await;
        assert_eq!(answer.status, status, "{path}: {}", answer.body);
        assert!(answer.body.contains(says), "{path}: {}", answer.body);
        assert!(
            answer
                .header("content-type")
                .is_some_and(|t| t.starts_with("text/html")),
            "{path}"
        );
        assert!(!answer.body.contains("<b>"), "{path} echoes its input");
        if status == 404 {
            assert!(answer.body.contains("href=\"/\""), "{path}: no link home");
        }
    }
    // The API and the sockets answer in JSON.
    for path in ["/api/nowhere", "/api", "/ws/nowhere", "/api/users/x/y/z"] {
        let answer = get(path.to_string()).await;
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
        assert_eq!(
            answer.json()["error"],
            "not_found",
            "{path}: {}",
            answer.body
        );
        assert!(answer.json()["message"].is_string(), "{path}");
    }
    // A method a route does not take: JSON under /api, a page elsewhere, both saying which
    // methods it takes.
    for (method, path, json) in [
        ("DELETE", "/api/games", true),
        ("PUT", "/api/me", true),
        ("GET", "/api/auth/logout", true),
        ("POST", "/", false),
        ("DELETE", "/static/style.css", false),
    ] {
        let answer = client
            .request(method, path, None)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(answer.status, 405, "{method} {path}: {}", answer.body);
        assert!(answer.header("allow").is_some(), "{method} {path}");
        if json {
            assert_eq!(
                answer.json()["error"],
                "method_not_allowed",
                "{method} {path}"
            );
        } else {
            assert!(
                answer.body.contains("Method not allowed"),
                "{method} {path}"
            );
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_sessions_and_guests_that_cannot_come_back_are_purged() {
    let settings = GameSettings {
        housekeeping_interval: Duration::from_millis(200),
        guest_purge_age: Duration::from_secs(1),
        ..fast_settings()
    };
    let server = TestServer::start(settings).await;
    let mut leaving = server.guest().await;
    let mut staying = server.guest().await;
    server
        .execute(&format!(
            "insert into session (token_hash, user_id, expires_at) \
             select sha256('expired'::bytea), user_id, now() - interval '1 hour' \
             from app_user where username = '{}';",
            staying.name
        ))
        .await;
    let logout = leaving
        .client
        .post("/api/auth/logout", &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(logout.status, 200, "{}", logout.body);

    // The guest who logged out can never sign in again: once old enough, the account goes.
    let accounts = |name: &str| format!("select count(*) from app_user where username = '{name}'");
    let deadline = tokio::time::Instant::now() + WAIT;
    while server.fetch_number(&accounts(&leaving.name)).await > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the guest was not purged"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let expired = "select count(*) from session where expires_at <= now()";
    assert_eq!(server.fetch_number(expired).await, 0);
    // The guest still signed in stays.
    assert_eq!(server.fetch_number(&accounts(&staying.name)).await, 1);
    let me = staying
        .client
        .get("/api/me")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(me.status, 200, "{}", me.body);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_document_is_served_and_names_what_the_server_answers() {
    let server = TestServer::start(fast_settings()).await;
    let mut client = server.client();
    let document = client
        .get("/api/openapi.json")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(document.status, 200, "{}", document.body);
    assert!(document
        .header("content-type")
        .is_some_and(|t| t.starts_with("application/json")));
    let document = document.json();
    assert!(
        document["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "{document}"
    );
    // The answer of an operation has the fields its schema names, and no others.
    let variants = client
        .get("/api/variants")
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .json();
    let schema = &document["components"]["schemas"]["VariantInfo"];
    let mut documented: Vec<&str> = schema["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut answered: Vec<&str> = variants["variants"][0]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    documented.sort_unstable();
    answered.sort_unstable();
    assert_eq!(documented, answered, "{schema} against {variants}");
    // An error answer's code is among those its operation lists.
    let missing = client
        .get("/api/games/00000000-0000-0000-0000-000000000000")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(missing.status, 404);
    let listed = document["paths"]["/api/games/{id}"]["get"]["responses"]["404"]["description"]
        .as_str()
        .unwrap_or_default();
    let code = missing.json()["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        listed.contains(&format!("`{code}`")),
        "{code} not in {listed}"
    );
    server.stop().await;
}
