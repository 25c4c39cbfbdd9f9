//! The server's one integration-test binary (one link on a 2-core machine): real PostgreSQL,
//! real HTTP and WebSocket clients, the real server binary for the crash test.

mod crash;
mod server;
mod web;
mod ws_game;
