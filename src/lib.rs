//! Oddboard: a live server for five unusual chess variants.
//!
//! Layers, and the only directions in which they may depend on each other:
//! - [`rules`]: the pure rules engine. Depends on nothing else in the crate; no async, I/O,
//!   clocks or global randomness.
//! - [`cli`]: the `oddboard rules …` command, a thin text front end to [`rules`].
//! - `store` (server feature): persistence in PostgreSQL, the only module with SQL. Depends
//!   on [`rules`] for its stable ids only (variant, outcome, end reason).
//!
//! The server layers (`game` → `rules`, `store` → `rules`, `web` → `game`/`store`/`rules`)
//! are built with the default `server` feature.

pub mod cli;
pub mod rules;
#[cfg(feature = "server")]
pub mod store;
