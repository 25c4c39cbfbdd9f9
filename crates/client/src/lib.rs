//! A real client of the Oddboard API and the load tool built on it. It talks to a running
//! server only over the wire, exactly as a browser would, and depends on nothing of the
//! server's.
//!
//! - [`http`]: [`Client`], one user's HTTP session (hyper's HTTP/1.1 client on a kept
//!   connection, the session cookie) and its shortcuts for the API.
//! - [`socket`]: [`GameSocket`], the game, multiplexed and lobby WebSockets.
//! - [`loadtest`]: many concurrent games through the two, and what they measured (the
//!   `oddboard loadtest` command runs it).
//!
//! The server's integration tests drive the server through the same client.
//!
//! To a server on the machine itself the client names itself in `X-Forwarded-For`
//! ([`self_named`]), as a proxy on the machine would: the server trusts loopback as a proxy by
//! default, and a request from a trusted proxy that names no client is one unknown client to
//! its rate limits, never exempt. Named, the machine is the client the default
//! `RATE_LIMIT_EXEMPT` exempts, as the load tool needs (`docs/operations.md`, "Rate limits").

pub mod http;
pub mod loadtest;
pub mod socket;

pub use http::{expect_ok, Client, HttpResponse};
pub use socket::{GameSocket, LobbySocket};

/// A failed request: transport trouble, or an answer we could not read.
#[derive(Debug)]
pub struct ClientError(pub String);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientError {}

/// A [`ClientError`] saying what went wrong.
fn err(e: impl std::fmt::Display) -> ClientError {
    ClientError(e.to_string())
}

/// The `X-Forwarded-For` value the client sends to the server at `addr` (`host:port`): the
/// machine's own address when the server is on the machine itself (a loopback address or
/// `localhost`, so the connection comes from loopback too), None for any other server, which
/// sees the client's own address and ignores the header from anyone it does not trust.
fn self_named(addr: &str) -> Option<&'static str> {
    let ip = match addr.parse::<std::net::SocketAddr>() {
        Ok(socket) => socket.ip(),
        Err(_) => {
            let name = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
            if !name.eq_ignore_ascii_case("localhost") {
                return None;
            }
            std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
        }
    };
    if !ip.is_loopback() {
        return None;
    }
    Some(if ip.is_ipv4() { "127.0.0.1" } else { "::1" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_client_names_itself_only_to_a_server_on_the_machine() {
        // (the server's address, what the client names itself)
        let cases: &[(&str, Option<&str>)] = &[
            ("127.0.0.1:8080", Some("127.0.0.1")),
            ("127.0.0.5:8080", Some("127.0.0.1")),
            ("[::1]:8080", Some("::1")),
            ("localhost:8080", Some("127.0.0.1")),
            ("LocalHost:8080", Some("127.0.0.1")),
            ("localhost", Some("127.0.0.1")),
            ("192.0.2.1:8080", None),
            ("[2001:db8::1]:8080", None),
            ("chess.example.org:80", None),
            ("localhost.example.org:80", None),
            ("", None),
        ];
        for (addr, named) in cases {
            assert_eq!(super::self_named(addr), *named, "{addr}");
        }
    }
}
