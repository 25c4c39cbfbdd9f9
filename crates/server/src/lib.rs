//! Oddboard: a live server for five unusual chess variants.
//!
//! This crate is the I/O around two pure ones, re-exported here: [`rules`], the rules engine
//! (`oddboard-rules`, `crates/rules`), and [`play`], the game core (`oddboard-play`,
//! `crates/play`: the wire contract, game and lobby state, clocks, formulas, the event log,
//! Glicko-2, the records and their replay). Neither depends on an async runtime, database, web
//! framework or clock (`scripts/test.sh` checks both); this crate reads the clock, draws the
//! random numbers, stores and sends for them.
//!
//! Layers, and the only directions in which they may depend on each other:
//! - [`rules`] → nothing of ours; [`play`] → [`rules`].
//! - [`cli`]: the `oddboard rules …` command, a thin text front end to [`rules`];
//!   [`engine_cli`]: `oddboard rules analyse` and `oddboard engine ladder`, on the crate
//!   `oddboard-engine` (`crates/engine`, the computer opponent);
//!   [`command`]: the whole command line (clap), which `src/main.rs` runs.
//! - `admin` → `store`: `oddboard migrate` and `oddboard admin …`.
//! - `store` → `play` (records, ratings), `rules` (ids only), `histogram`: all SQL,
//!   migrations, the group-commit writer (which rates a rated game in the commit that ends it).
//! - `evaluation` → `rules`, `oddboard-engine`: one position's evaluation from White's view.
//! - `engine_worker` → `evaluation`: the `oddboard engine-worker` process, one search at a
//!   time; `engine_pool` → `engine_worker`: the worker processes every search runs in.
//! - `game` → `play`, `rules`, `store`, `engine_pool`: one actor per live game around its
//!   `GameState`, its store a seam ([`game::actor::GameStore`]); the lobby actor around the
//!   `LobbyState`; the registry of live games and the housekeeping task.
//! - `analysis` → `play` (the replay), `store`, `engine_pool`, `evaluation`: a finished
//!   game's evaluation.
//! - `web` → `game`, `analysis`, `store`, `play`, `rules`: axum routes, auth, the one socket
//!   loop of every WebSocket, the browser client built into the binary.
//! - `app`, `config`, `telemetry`, `metrics`: wiring; `histogram`: the fixed-bucket duration
//!   histogram of `metrics` and the writer.
//!
//! The client and load tool are the crate `oddboard-client` (`crates/client`): they speak to
//! the server only over the wire, and `oddboard loadtest` runs the load tool.

pub mod cli;
pub mod command;
pub mod engine_cli;
/// The pure game core (`crates/play`): the wire contract, game and lobby state, clocks,
/// formulas, the event log, Glicko-2 and the records.
pub use oddboard_play as play;
pub use oddboard_rules as rules;

pub mod admin;
pub mod analysis;
pub mod app;
pub mod cluster;
pub mod config;
pub mod engine_pool;
pub mod engine_worker;
pub mod evaluation;
pub mod game;
pub mod histogram;
pub mod metrics;
pub mod store;
pub mod telemetry;
pub mod web;
