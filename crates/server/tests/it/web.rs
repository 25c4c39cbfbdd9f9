//! HTTP API tests against a real server: accounts and sessions, game creation and
//! validation, history paging, the housekeeping purge and the API document. Malformed
//! requests and the hardening headers are in `web_hardening`, the sockets' sessions and
//! origins in `web_sockets`.

use crate::server::{fast_settings, Player, TestServer, WAIT};
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

    let register = crate::limits::register_alice(&mut client).await;
    let cookie = register
        .header("set-cookie")
        .unwrap_or_default()
        .to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let mut alice = Player {
        name: "Alice_1".into(),
        client,
    };
    assert_signed_in_as(&mut alice).await;

    assert_bad_registrations_are_refused(&server).await;
    assert_logout_ends_the_session_and_login_starts_one(&mut alice).await;

    let mut guest = server.client();
    let me = guest.guest().await.unwrap_or_else(|e| panic!("{e}"));
    let name = me["username"].as_str().unwrap_or_default();
    assert!(name.starts_with("Guest") && name.len() >= 9, "{name}");
    assert_eq!(me["is_guest"], true);
    server.stop().await;
}

/// `/api/me` names `player`.
async fn assert_signed_in_as(player: &mut Player) {
    let me = player
        .client
        .get("/api/me")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(me.json()["username"], player.name.as_str(), "{}", me.body);
}

/// Usernames are unique without regard to case, and validated; so are passwords.
async fn assert_bad_registrations_are_refused(server: &TestServer) {
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
}

/// Logout ends the session, even for a client that kept the cookie (the server had the
/// session in memory from the request before); login starts a new one; a wrong password
/// does not. `alice` is registered as `Alice_1` with the password `correct horse`.
async fn assert_logout_ends_the_session_and_login_starts_one(alice: &mut Player) {
    let client = &mut alice.client;
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
    assert_signed_in_as(alice).await;
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
    assert_bad_games_are_refused(&mut alice).await;
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

    assert_history_is_paged_and_filtered(&server, &mut alice, &mut bob, &game_id).await;
    assert_health_and_metrics(&server).await;
    server.stop().await;
}

/// A game of an unknown variant, with a bad clock or colour, is refused with its code.
async fn assert_bad_games_are_refused(alice: &mut Player) {
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
}

/// History lists games the user played: open challenges nobody accepted do not count. Adds
/// a Chazz challenge and three Chazz games of `alice` against `bob` to her Suicide `game_id`.
async fn assert_history_is_paged_and_filtered(
    server: &TestServer,
    alice: &mut Player,
    bob: &mut Player,
    game_id: &str,
) {
    let mut anonymous = server.client();
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
    assert_eq!(suicide_only["games"][0]["game_id"], game_id);
    let missing = anonymous
        .get("/api/users/nobody_here/games")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(missing.status, 404);
}

/// The health check answers, and the metrics count the games in progress and the commits.
async fn assert_health_and_metrics(server: &TestServer) {
    let mut anonymous = server.client();
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
