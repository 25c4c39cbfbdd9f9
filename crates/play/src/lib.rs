//! Oddboard's pure game core: everything about a game and the lobby that holds on any server,
//! with no I/O. The server (`crates/server`) wraps it in actors that read the clock, draw
//! random seeds, store and send; this crate only decides.
//!
//! - [`wire`]: the contract with clients, every message a client sends ([`wire::game`],
//!   [`wire::lobby`]) and every message a server sends, typed.
//! - [`record`]: games as the store keeps them (records, changes, ratings, chat lines).
//! - [`state`]: one live game ([`state::GameState`]): proposals checked against the rules and
//!   clock, adopted once committed; offers, claims, takebacks, chat, spectators.
//! - [`lobby`]: seeks, challenges, pairing and presence ([`lobby::LobbyState`]), the FICS
//!   commands ([`lobby::command`]) and [`formula`]s.
//! - [`replay`]: one way to rebuild a game from its record ([`replay::Replay`]), and the
//!   record formats beside it: the PGN-like export ([`replay::pgn`]) and Davey Drehs' dice
//!   record ([`replay::dice`]).
//! - [`clock`], [`event`] (the versioned event log), [`rating`] (Glicko-2),
//!   [`settings`] (the limits a server plays games under), [`terms`] (seats and terms),
//!   [`audience`] (who a broadcast is for), [`refusal`] (why a game says no).
//!
//! Nothing here reads the wall clock, draws a random number, spawns a task or opens a
//! socket: time comes in as milliseconds (`now`) or as a [`WallClock`] a server passes in, and
//! a dice seed comes from the caller. The crate's dependency tree holds no async runtime,
//! database or web crate (`scripts/test.sh` checks it), so its unit tests build and run
//! without any of them.

pub use oddboard_rules as rules;

pub mod audience;
pub mod clock;
pub mod event;
pub mod formula;
pub mod lobby;
pub mod rating;
pub mod record;
pub mod refusal;
pub mod replay;
pub mod settings;
pub mod state;
pub mod terms;
pub mod wire;

pub use audience::{Audience, Outgoing};
pub use refusal::{PlayerRequest, Refusal, MAX_OPEN_CHALLENGES};
pub use settings::GameSettings;
pub use terms::{GameNotice, GameTerms, Seat};

/// Reads the wall clock, for the times a game records (its start, its end, a chat line's).
/// A server passes `chrono::Utc::now`; tests pass fixed times. An input, as scalachess's
/// `Timestamper` is, so that the state never reads a clock of its own.
pub type WallClock = fn() -> chrono::DateTime<chrono::Utc>;
