//! Rate limits, the public URL and trusted proxies over real HTTP and WebSockets, each test
//! on a server whose limits are low and whose loopback address is not exempt.

use crate::server::{fast_settings, TestServer, WAIT};
use oddboard::config::{parse_networks, Config, Rate, RateLimits};
use oddboard_client::{Client, HttpResponse};
use serde_json::{json, Value};
use std::num::NonZeroU32;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `count` per hour: nothing comes back within a test.
fn per_hour(count: u32) -> Rate {
    Rate {
        count: NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN),
        per: Duration::from_secs(3600),
    }
}

/// The default limits, with loopback no longer exempt and no proxy trusted.
pub(crate) fn limited(config: &mut Config) {
    config.rate_limits.exempt = Vec::new();
    config.trusted_proxies = Vec::new();
}

/// An answer to [`send`].
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// A request with headers of the test's choosing (`Origin`, `X-Forwarded-*`, a cookie), on a
/// connection of its own that the server closes after answering.
async fn send(
    server: &TestServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> Answer {
    let payload = body.to_string();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        server.addr,
        payload.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&payload);
    let mut stream = tokio::net::TcpStream::connect(&server.addr)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"));
    stream
        .write_all(request.as_bytes())
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut raw))
        .await
        .unwrap_or_else(|_| panic!("no answer to {method} {path}"))
        .unwrap_or_else(|e| panic!("read: {e}"));
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

fn assert_rate_limited(answer: &Answer) {
    assert_eq!(answer.status, 429, "{}", answer.body);
    assert_eq!(answer.json()["error"], "rate_limited", "{}", answer.body);
    let retry_after: u64 = answer
        .header("retry-after")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    assert!(
        retry_after >= 1,
        "Retry-After: {:?}",
        answer.header("retry-after")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_are_limited_per_address_and_forwarded_addresses_only_from_trusted_proxies() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        limited(config);
        config.rate_limits.guests = per_hour(2);
        config.trusted_proxies = parse_networks("127.0.0.1").unwrap_or_default();
    })
    .await;
    for _ in 0..2 {
        assert_eq!(guest_from(&server, "198.51.100.1").await.status, 200);
    }
    let refused = guest_from(&server, "198.51.100.1").await;
    assert_rate_limited(&refused);
    // Refused means nothing was made: two guests in the database.
    assert_eq!(
        server
            .fetch_number("select count(*) from app_user where is_guest")
            .await,
        2
    );
    // Another client behind the same proxy has its own allowance; a forged entry on the
    // left of the proxy's does not buy a new one.
    assert_eq!(guest_from(&server, "198.51.100.2").await.status, 200);
    let forged = guest_from(&server, "203.0.113.5, 198.51.100.1").await;
    assert_rate_limited(&forged);
    server.stop().await;

    // From a peer that is not a trusted proxy the header counts for nothing: the peer's own
    // address is limited, whatever it claims.
    let server = TestServer::start_configured(fast_settings(), |config| {
        limited(config);
        config.rate_limits.guests = per_hour(1);
    })
    .await;
    let first = guest_from(&server, "198.51.100.1").await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_rate_limited(&guest_from(&server, "198.51.100.2").await);
    server.stop().await;
}

/// A new guest, asked for with `X-Forwarded-For: forwarded`.
async fn guest_from(server: &TestServer, forwarded: &str) -> Answer {
    let headers = [("X-Forwarded-For", forwarded)];
    send(server, "POST", "/api/auth/guest", &headers, &Value::Null).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_back_off_per_username_whether_or_not_it_exists() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        limited(config);
        config.rate_limits.login_failures = 2;
    })
    .await;
    register_alice(&mut server.client()).await;
    let mut retry_after = 0;
    for name in ["alice_1", "nobody_here"] {
        let mut client = server.client();
        wrong_passwords(&mut client, name, 2).await;
        // Now the name waits, the right password too, and an unknown name just the same.
        let waiting = log_in(&mut client, name, "correct horse").await;
        retry_after = backoff_wait(&waiting, name);
        assert_eq!(retry_after, 2, "the first wait is two seconds");
    }
    // Once the wait is over the right password works, and starts the name afresh. A fixed
    // wait, as long as the server said (`Retry-After`, counted from its answer): asking
    // again and again whether the wait is over would spend the address's login attempts
    // (40 per 10 minutes), which the limit counts refused or not.
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let right = log_in(&mut server.client(), "alice_1", "correct horse").await;
    assert_eq!(right.status, 200, "{}", right.body);
    server.stop().await;
}

/// Registers `Alice_1`, whose password is `correct horse`, signing `client` in.
pub(crate) async fn register_alice(client: &mut Client) -> HttpResponse {
    let register = client
        .post(
            "/api/auth/register",
            &json!({ "username": "Alice_1", "password": "correct horse" }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(register.status, 200, "{}", register.body);
    register
}

/// `times` wrong passwords for `name`, each answered as such.
pub(crate) async fn wrong_passwords(client: &mut Client, name: &str, times: usize) {
    for _ in 0..times {
        let wrong = log_in(client, name, "wrong password").await;
        assert_eq!(wrong.json()["error"], "bad_credentials", "{}", wrong.body);
    }
}

pub(crate) async fn log_in(client: &mut Client, name: &str, password: &str) -> HttpResponse {
    client
        .post(
            "/api/auth/login",
            &json!({ "username": name, "password": password }),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The `Retry-After` of a login refused for its name's back-off.
pub(crate) fn backoff_wait(refused: &HttpResponse, name: &str) -> u64 {
    assert_eq!(refused.status, 429, "{name}: {}", refused.body);
    assert_eq!(refused.json()["error"], "rate_limited", "{}", refused.body);
    refused
        .header("retry-after")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_games_and_lobby_commands_are_limited() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        limited(config);
        config.rate_limits.registrations = per_hour(1);
        config.rate_limits.games = per_hour(1);
        config.rate_limits.lobby_commands = per_hour(3);
    })
    .await;
    let mut client = server.client();
    assert_one_registration_per_address(&server, &mut client).await;
    assert_one_game_per_address(&mut client).await;
    assert_lobby_commands_share_an_allowance(&mut client).await;
    server.stop().await;
}

/// One registration an hour: a second is refused, but a name that fails validation is
/// refused for that and not counted. `client` is signed in to the first account after.
async fn assert_one_registration_per_address(server: &TestServer, client: &mut Client) {
    let register = |name: &'static str| json!({ "username": name, "password": "long enough" });
    let first = client
        .post("/api/auth/register", &register("First_1"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.status, 200, "{}", first.body);
    // A name that fails validation is refused for that, not counted.
    let invalid = client
        .post("/api/auth/register", &register("ab"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(invalid.json()["error"], "invalid_username");
    let second = send(
        server,
        "POST",
        "/api/auth/register",
        &[],
        &register("Second_2"),
    )
    .await;
    assert_rate_limited(&second);
}

/// One game an hour: a second game is refused, and so is a seek, which can start one.
async fn assert_one_game_per_address(client: &mut Client) {
    let game = json!({ "variant": "suicide", "clock": { "minutes": 5, "increment": 0 } });
    let created = client
        .post("/api/games", &game)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(created.status, 201, "{}", created.body);
    let again = client
        .post("/api/games", &game)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.status, 429, "{}", again.body);
    assert_eq!(again.json()["error"], "rate_limited");
    // A seek can start a game: it counts as one too.
    let seek = client
        .post("/api/command", &json!({ "line": "seek 5 0" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seek.status, 429, "{}", seek.body);
}

/// Lobby commands over HTTP and on the socket share the address's allowance of three (the
/// refused seek took one of them).
async fn assert_lobby_commands_share_an_allowance(client: &mut Client) {
    let answer = client
        .post("/api/command", &json!({ "line": "games" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let mut lobby = client
        .connect_lobby()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let command = |n: u64| json!({ "t": "command", "line": "games", "ref": n });
    lobby
        .send(&command(1))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let reply = lobby
        .wait_for(WAIT, |m| m["ref"] == 1)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply["t"], "reply", "{reply}");
    lobby
        .send(&command(2))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = lobby
        .wait_for(WAIT, |m| m["ref"] == 2)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused["t"], "error", "{refused}");
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    let over_http = client
        .post("/api/lobby", &json!({ "t": "command", "line": "games" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(over_http.status, 429, "{}", over_http.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_limited_per_address_and_frames_per_socket() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        limited(config);
        config.rate_limits.sockets_per_address = 2;
        config.rate_limits.mux_frames = per_hour(3);
    })
    .await;
    let client = server.client();
    let first = client
        .connect_games()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut second = client
        .connect_games()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let third = client.connect_games().await;
    let refusal = third.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refusal.contains("429"), "a third socket: {refusal}");
    // A socket closed gives its place back.
    first.close().await;
    let mut reopened = None;
    let deadline = tokio::time::Instant::now() + WAIT;
    while reopened.is_none() && tokio::time::Instant::now() < deadline {
        match client.connect_games().await {
            Ok(socket) => reopened = Some(socket),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(
        reopened.is_some(),
        "the closed socket's place never came back"
    );

    // Three frames pass, the next ones are refused, and a socket that keeps on is closed.
    for _ in 0..3 {
        second
            .send(&json!({ "t": "ping" }))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let pong = second.next(WAIT).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pong["t"], "pong", "{pong}");
    }
    second
        .send(&json!({ "t": "ping" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = second.next(WAIT).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused["t"], "error", "{refused}");
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    for _ in 0..50 {
        // The server may close before all are sent.
        let _ = second.send(&json!({ "t": "ping" })).await;
    }
    let reason = second.closed(WAIT).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reason, "rate_limited");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_sockets_answer_rate_limited_past_their_frames() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        limited(config);
        config.rate_limits.game_frames = per_hour(1);
    })
    .await;
    let mut player = server.guest().await;
    let game_id = player
        .create_game("suicide", json!({ "minutes": 5, "increment": 0 }), "white")
        .await;
    let mut socket = player
        .client
        .connect_game(&game_id, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    socket
        .send(&json!({ "t": "ping" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    socket
        .wait_for(WAIT, |m| m["t"] == "pong")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    socket
        .send(&json!({ "t": "ping" }))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = socket
        .wait_for(WAIT, |m| m["t"] == "error")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    server.stop().await;
}

/// A server with the default proxies and exemptions (loopback is both a trusted proxy and
/// exempt) and `guests` guests an hour per client.
async fn default_proxies_with_guests(guests: u32) -> TestServer {
    TestServer::start_configured(fast_settings(), |config| {
        config.rate_limits = RateLimits {
            guests: per_hour(guests),
            ..RateLimits::default()
        };
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxy_that_names_no_client_is_limited_as_one_unknown_client() {
    let server = default_proxies_with_guests(2).await;
    // A proxy on the machine that sends no usable `X-Forwarded-For`. Taken as the proxy's own
    // loopback address, each request would be exempt; they are one unknown client, with one
    // allowance between them.
    let unnamed: [&[(&str, &str)]; 4] = [
        &[],
        &[("X-Forwarded-For", "")],
        &[("X-Forwarded-For", "unknown")],
        &[],
    ];
    let mut statuses = Vec::new();
    for headers in unnamed {
        let answer = send(&server, "POST", "/api/auth/guest", headers, &Value::Null).await;
        if answer.status == 429 {
            assert_rate_limited(&answer);
        }
        statuses.push(answer.status);
    }
    assert_eq!(statuses, [200, 200, 429, 429]);
    // A client the proxy does name keeps its own allowance, and the machine named as the
    // client (as the load tool names itself) is still exempt.
    assert_eq!(guest_from(&server, "198.51.100.1").await.status, 200);
    for _ in 0..3 {
        assert_eq!(guest_from(&server, "127.0.0.1").await.status, 200);
    }
    server.stop().await;
}

/// The machine itself, as the project's client names it to a server on the machine
/// (`X-Forwarded-For: 127.0.0.1`, see `oddboard_client`), is exempt by default: the load tool
/// runs unlimited against a local server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_is_exempt_by_default() {
    let server = default_proxies_with_guests(1).await;
    for _ in 0..3 {
        server.guest().await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_url_fixes_the_origin_and_an_https_one_secures_the_cookie() {
    let server = TestServer::start_configured(fast_settings(), |config| {
        config.public_url = "https://chess.example.org".parse().ok();
    })
    .await;
    // A proxy passed the request on with its own `Host`: the page's origin still counts.
    let from_page = send(
        &server,
        "POST",
        "/api/auth/guest",
        &[("Origin", "https://chess.example.org")],
        &Value::Null,
    )
    .await;
    assert_eq!(from_page.status, 200, "{}", from_page.body);
    let cookie = from_page.header("set-cookie").unwrap_or_default();
    assert!(cookie.contains("; Secure"), "{cookie}");
    assert_eq!(
        from_page.header("strict-transport-security"),
        Some("max-age=31536000")
    );
    // The host the request was sent to is no longer an origin of the site.
    let origin = format!("http://{}", server.addr);
    let elsewhere = send(
        &server,
        "POST",
        "/api/auth/guest",
        &[("Origin", &origin)],
        &Value::Null,
    )
    .await;
    assert_eq!(elsewhere.status, 403, "{}", elsewhere.body);
    assert_eq!(elsewhere.json()["error"], "cross_origin");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxy_names_the_scheme_and_host_the_browser_used() {
    let forwarded = [
        ("Origin", "https://chess.example.org"),
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Host", "chess.example.org"),
    ];
    // Loopback is a trusted proxy by default.
    let server = TestServer::start(fast_settings()).await;
    let answer = send(&server, "POST", "/api/auth/guest", &forwarded, &Value::Null).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let cookie = answer.header("set-cookie").unwrap_or_default();
    assert!(cookie.contains("; Secure"), "{cookie}");
    // Without a public URL there is no HSTS.
    assert_eq!(answer.header("strict-transport-security"), None);
    // Plain HTTP to this server: no Secure cookie, as before.
    let plain = send(&server, "POST", "/api/auth/guest", &[], &Value::Null).await;
    let cookie = plain.header("set-cookie").unwrap_or_default();
    assert!(!cookie.contains("Secure"), "{cookie}");
    server.stop().await;

    // Not from a trusted proxy, the headers are ignored and the origin is foreign.
    let server = TestServer::start_configured(fast_settings(), |config| {
        config.trusted_proxies = Vec::new();
    })
    .await;
    let answer = send(&server, "POST", "/api/auth/guest", &forwarded, &Value::Null).await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(answer.json()["error"], "cross_origin");
    server.stop().await;
}
