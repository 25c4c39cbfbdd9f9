//! HTTP hardening tests against a real server: malformed requests get JSON errors with
//! stable codes, cross-site posts are refused, and every answer carries the hardening
//! headers; pages, the API and wrong methods say what went wrong in their own form.

use crate::server::{fast_settings, Player, TestServer};
use serde_json::{json, Value};

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
    let mut guest = server.guest().await;
    assert_bad_fields_paths_and_queries_are_refused(&mut guest).await;
    let cookie = guest.client.cookie.clone().unwrap_or_default();
    assert_bad_bodies_and_origins_are_refused(&server.addr, &cookie).await;
    server.stop().await;
}

/// A field of the wrong type or range, a game id that is not one and a query string that
/// does not parse are each refused with their code; good queries are answered.
async fn assert_bad_fields_paths_and_queries_are_refused(guest: &mut Player) {
    let name = guest.name.clone();
    let client = &mut guest.client;
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
}

/// Raw requests to `addr` with the session `cookie`: a body that is not JSON, not declared
/// JSON or too large is refused, and so is a browser's post from another site's page.
async fn assert_bad_bodies_and_origins_are_refused(addr: &str, cookie: &str) {
    let head = |extra: &str| format!("POST /api/games HTTP/1.1\r\nCookie: {cookie}{extra}");
    // Not JSON at all.
    let (status, body) = raw_request(
        addr,
        &head("\r\nContent-Type: application/json"),
        b"{not json",
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (422, Some("bad_body")));
    // JSON not declared as such.
    let (status, body) = raw_request(addr, &head(""), br#"{"variant":"suicide"}"#).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (415, Some("json_required"))
    );
    // Over the 64 KiB every body is held to.
    let big = format!(r#"{{"variant":"{}"}}"#, "x".repeat(70 * 1024));
    let (status, body) = raw_request(
        addr,
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
    let (status, body) = raw_request(addr, &head(&json_from("http://evil.example")), game).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("cross_origin"))
    );
    let own = format!("http://{}", addr);
    let (status, body) = raw_request(addr, &head(&json_from(&own)), game).await;
    assert_eq!(status, 201, "{body}");
    let (status, _) = raw_request(
        addr,
        "POST /api/auth/logout HTTP/1.1\r\nOrigin: http://evil.example",
        b"",
    )
    .await;
    assert_eq!(status, 403, "a cross-site form cannot log a visitor out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_has_the_hardening_headers_and_errors_have_their_shape() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let game_id = alice.create_game("chazz", Value::Null, "white").await;
    assert_hardening_headers(&mut alice).await;
    assert_pages_say_what_they_found(&mut alice, &game_id).await;
    assert_api_and_socket_errors_are_json(&mut alice).await;
    assert_wrong_methods_say_which_are_taken(&mut alice).await;
    server.stop().await;
}

/// Pages, files, the API and unknown paths all carry the content security policy and the
/// other hardening headers.
async fn assert_hardening_headers(player: &mut Player) {
    let client = &mut player.client;
    for path in [
        "/",
        "/static/style.css",
        "/api/variants",
        "/nowhere",
        "/api/nowhere",
    ] {
        let answer = client
            .get(path)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
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
}

/// Pages: served for a game that exists, a small page saying so for one that does not.
async fn assert_pages_say_what_they_found(player: &mut Player, game_id: &str) {
    let client = &mut player.client;
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
        let answer = client
            .get(&path)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
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
}

/// The API and the sockets answer in JSON.
async fn assert_api_and_socket_errors_are_json(player: &mut Player) {
    let client = &mut player.client;
    for path in ["/api/nowhere", "/api", "/ws/nowhere", "/api/users/x/y/z"] {
        let answer = client
            .get(path)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
        assert_eq!(
            answer.json()["error"],
            "not_found",
            "{path}: {}",
            answer.body
        );
        assert!(answer.json()["message"].is_string(), "{path}");
    }
}

/// A method a route does not take: JSON under /api, a page elsewhere, both saying which
/// methods it takes.
async fn assert_wrong_methods_say_which_are_taken(player: &mut Player) {
    let client = &mut player.client;
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
}
