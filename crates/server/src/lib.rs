//! Oddboard: a live server for five unusual chess variants.
//!
//! Layers, and the only directions in which they may depend on each other:
//! - [`rules`]: the pure rules engine, the crate `oddboard-rules` (`crates/rules`) re-exported:
//!   its own dependencies hold no async runtime, database, web framework or clock.
//! - [`cli`]: the `oddboard rules …` command, a thin text front end to [`rules`];
//!   [`engine_cli`]: `oddboard rules analyse` and `oddboard engine ladder`, on the crate
//!   `oddboard-engine` (`crates/engine`, the computer opponent);
//!   [`command`]: the whole command line (clap), which `src/main.rs` runs.
//! - `admin` → `store`: `oddboard migrate` and `oddboard admin …`.
//! - [`rating`] → `rules` (colours only): Glicko-2 arithmetic, pure.
//! - `store` → `rules` (ids only), `rating`, `histogram`: all SQL, migrations, the
//!   group-commit writer (which rates a rated game in the commit that ends it).
//! - `game` → `rules`, `store`, `rating`: one pure state and one actor per live game, clocks,
//!   event log; the lobby actor (seeks, challenges, pairing) and FICS formulas.
//! - `web` → `game`, `store`, `rules`: axum routes, auth, the WebSocket protocol.
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
pub mod config;
pub mod engine_pool;
pub mod game;
pub mod histogram;
pub mod metrics;
pub mod store;
pub mod telemetry;
pub mod web;
