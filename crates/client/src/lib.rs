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
