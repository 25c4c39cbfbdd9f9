//! Oddboard: a live server for five unusual chess variants.
//!
//! Layers, and the only directions in which they may depend on each other:
//! - [`rules`]: the pure rules engine. Depends on nothing else in the crate; no async, I/O,
//!   clocks or global randomness (checked by `scripts/test.sh`).
//! - [`cli`]: the `oddboard rules …` command, a thin text front end to [`rules`];
//!   [`command`]: the whole command line (clap), which `src/main.rs` runs.
//! - `admin` → `store`: `oddboard migrate` and `oddboard admin …`.
//! - `store` → `rules` (ids only), `histogram`: all SQL, migrations, the group-commit writer.
//! - `game` → `rules`, `store`: one actor per live game, clocks, event log; the lobby actor
//!   (seeks, challenges, pairing), FICS formulas and Glicko-2 ratings.
//! - `web` → `game`, `store`, `rules`: axum routes, auth, the WebSocket protocol.
//! - `app`, `config`, `telemetry`, `metrics`: wiring; `histogram`: the fixed-bucket duration
//!   histogram of `metrics` and the writer; `client`: a real API client for the load tool and
//!   the tests.
//!
//! Everything but `rules` and `cli` is built with the default `server` feature.

pub mod cli;
pub mod command;
pub mod rules;

#[cfg(feature = "server")]
pub mod admin;
#[cfg(feature = "server")]
pub mod app;
#[cfg(feature = "server")]
pub mod client;
#[cfg(feature = "server")]
pub mod config;
#[cfg(feature = "server")]
pub mod game;
#[cfg(feature = "server")]
pub mod histogram;
#[cfg(feature = "server")]
pub mod loadtest;
#[cfg(feature = "server")]
pub mod metrics;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "server")]
pub mod telemetry;
#[cfg(feature = "server")]
pub mod web;
