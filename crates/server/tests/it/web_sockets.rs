//! Sockets and sessions against a real server: a logout closes the sockets of that session
//! only, and socket upgrades from pages of other origins are refused.

use crate::server::{fast_settings, TestServer, WAIT};
use serde_json::{json, Value};

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
