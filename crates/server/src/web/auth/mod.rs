//! Accounts and sessions: registration and login with argon2id password hashes (hashed on
//! the blocking pool, never on the async runtime), guest accounts, logout, and the
//! extractors that turn the session cookie into a user.
//!
//! The cookie holds a random 256-bit token; the database stores only its SHA-256, so a
//! leaked database does not leak sessions.
//!
//! Every request and socket upgrade of a signed-in player names its session, so sessions
//! found in the database are kept in memory for a minute ([`SessionCache`]): starting a game
//! takes four of them (create, accept, two sockets), each otherwise a database round trip.
//!
//! A logout also closes the game and lobby sockets opened with its session
//! ([`SessionCache::logout_signal`]), so a signed-out browser tab cannot go on playing.
//!
//! Guests, registrations and logins are rate-limited per client address, and logins also per
//! username (`web::limits`). A login does the same argon2 work whether or not the name exists
//! (an unknown name is checked against [`credentials::dummy_hash`]), so its time does not tell
//! which names do.
//!
//! [`credentials`] holds the name and password rules and the hashing, [`session`] the cookie,
//! the cache and the extractors, [`accounts`] the endpoints, [`origin`] the same-origin check.

pub(super) mod accounts;
mod credentials;
mod origin;
mod session;
#[cfg(test)]
mod tests;

pub use accounts::router;
pub use credentials::Username;
pub(crate) use credentials::{has_name_characters, is_computer_name};
pub use origin::{refuse_cross_origin, same_origin};
pub use session::{socket_logout_signal, CurrentUser, LogoutSignal, MaybeUser, SessionCache};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "oddboard_session";
/// How long a session lasts.
const SESSION_DAYS: i64 = 30;
