//! Unit tests for accounts and sessions: the session cache, the logout signal, usernames,
//! passwords and the same-origin check.

use super::origin::is_websocket_upgrade;
use super::session::{session_token, token_hash};
use super::*;
use crate::store::User;
use crate::web::proxy::{ClientInfo, Site};
use axum::http::header::{COOKIE, ORIGIN, UPGRADE};
use axum::http::{HeaderMap, HeaderValue};
use std::future::Future;
use std::sync::Arc;

#[test]
fn a_logged_out_session_is_not_cached_again_by_a_late_lookup() {
    let cache = SessionCache::default();
    let now = chrono::Utc::now();
    let session = crate::store::Session {
        user: User {
            user_id: uuid::Uuid::new_v4(),
            username: "alice".into(),
            is_guest: false,
            created_at: now,
        },
        expires_at: now + chrono::Duration::days(1),
    };
    let hash = token_hash("token");
    cache.insert(hash.clone(), session.clone());
    assert_eq!(
        cache.get(&hash, now).map(|u| u.username),
        Some("alice".into())
    );
    cache.forget(&hash);
    assert_eq!(cache.get(&hash, now), None);
    // A lookup that read the database before the logout deleted the session, and
    // stores what it read only now.
    cache.insert(hash.clone(), session);
    assert_eq!(cache.get(&hash, now), None);
}

/// Whether `signal` has been raised, without waiting.
fn raised(signal: &mut LogoutSignal) -> bool {
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    let future = std::pin::pin!(signal.logged_out());
    future.poll(&mut context).is_ready()
}

#[test]
fn a_logout_raises_the_signal_of_its_own_sessions_sockets_only() {
    let cache = Arc::new(SessionCache::default());
    let (mine, other) = (token_hash("mine"), token_hash("other"));
    let mut first = cache.logout_signal(mine.clone());
    let mut second = cache.logout_signal(mine.clone());
    let mut elsewhere = cache.logout_signal(other.clone());
    assert!(!raised(&mut first) && !raised(&mut elsewhere));
    cache.forget(&mine);
    assert!(raised(&mut first) && raised(&mut second));
    assert!(!raised(&mut elsewhere));
    // A socket whose sign-in read the session just before the logout, and which asks
    // for its signal only after it: raised at once.
    assert!(raised(&mut cache.logout_signal(mine)));
}

#[test]
fn a_sessions_signal_is_forgotten_with_its_last_socket() {
    let cache = Arc::new(SessionCache::default());
    let hash = token_hash("token");
    let first = cache.logout_signal(hash.clone());
    let second = cache.logout_signal(hash.clone());
    drop(first);
    assert!(cache.logouts().contains_key(&hash));
    drop(second);
    assert!(cache.logouts().is_empty());
    // Also when many sockets of one session close at once.
    let signals: Vec<LogoutSignal> = (0..64).map(|_| cache.logout_signal(hash.clone())).collect();
    std::thread::scope(|scope| {
        for signal in signals {
            scope.spawn(move || drop(signal));
        }
    });
    assert!(cache.logouts().is_empty());
    // And a signal asked for after the logout leaves nothing behind.
    cache.forget(&hash);
    drop(cache.logout_signal(hash));
    assert!(cache.logouts().is_empty());
}

#[test]
fn usernames_are_validated() {
    for good in ["alice", "Bob_99", "x-y-z", "abcdefghijklmnopqrst"] {
        assert!(Username::parse(good).is_ok(), "{good}");
    }
    for bad in [
        "",
        "ab",
        "1abc",
        "_abc",
        "has space",
        "héllo",
        "abcdefghijklmnopqrstu",
        "admin",
        "Admin",
        "guest",
        "Guest1234",
        "Computer-level-8",
        "computerized",
        "a<b>",
        " alice",
        "alice ",
        "\talice\n",
    ] {
        assert!(Username::parse(bad).is_err(), "{bad}");
    }
}

fn origin_headers(origin: &'static str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(ORIGIN, HeaderValue::from_static(origin));
    headers
}

fn client_to(host: &str, forwarded_https: Option<bool>) -> ClientInfo {
    ClientInfo {
        ip: std::net::IpAddr::from([192, 0, 2, 1]),
        forwarded_https,
        host: Some(host.to_string()),
    }
}

#[test]
fn without_a_public_url_the_origin_is_the_host_asked_for() {
    let site = Site::default();
    let local = client_to("LocalHost:8080", None);
    assert!(same_origin(&HeaderMap::new(), &site, &local));
    assert!(same_origin(
        &origin_headers("http://localhost:8080"),
        &site,
        &local
    ));
    assert!(!same_origin(
        &origin_headers("http://localhost:8081"),
        &site,
        &local
    ));
    assert!(!same_origin(
        &origin_headers("http://evil.example"),
        &site,
        &local
    ));
    assert!(!same_origin(&origin_headers("null"), &site, &local));
    // The default port may be named in `Host` and not in `Origin`.
    let default_port = client_to("chess.example.org:443", Some(true));
    assert!(same_origin(
        &origin_headers("https://chess.example.org"),
        &site,
        &default_port
    ));
    // A trusted proxy that says https rules out an http page, and the other way round.
    assert!(!same_origin(
        &origin_headers("http://chess.example.org:443"),
        &site,
        &default_port
    ));
}

#[test]
fn a_public_url_fixes_the_origin_whatever_the_host() {
    let site = Site::new("https://chess.example.org".parse().ok(), Vec::new());
    // A proxy that rewrote `Host` to its upstream's name.
    let rewritten = client_to("127.0.0.1:8080", None);
    assert!(same_origin(
        &origin_headers("https://chess.example.org"),
        &site,
        &rewritten
    ));
    assert!(same_origin(
        &origin_headers("https://Chess.Example.org:443"),
        &site,
        &rewritten
    ));
    assert!(!same_origin(
        &origin_headers("http://chess.example.org"),
        &site,
        &rewritten
    ));
    assert!(!same_origin(
        &origin_headers("http://127.0.0.1:8080"),
        &site,
        &rewritten
    ));
}

#[test]
fn websocket_upgrades_are_told_from_other_requests() {
    let with = |values: &[&'static str]| {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(UPGRADE, HeaderValue::from_static(value));
        }
        is_websocket_upgrade(&headers)
    };
    assert!(with(&["websocket"]) && with(&["WebSocket"]));
    assert!(with(&["h2c, websocket"]) && with(&["h2c", "websocket"]));
    assert!(!with(&[]) && !with(&["h2c"]) && !with(&["websockets"]));
}

#[test]
fn the_session_cookie_is_found_among_others() {
    let mut headers = HeaderMap::new();
    headers.insert(
        COOKIE,
        HeaderValue::from_static("a=1; oddboard_session=abc123; b=2"),
    );
    assert_eq!(session_token(&headers).as_deref(), Some("abc123"));
    assert_eq!(session_token(&HeaderMap::new()), None);
}
