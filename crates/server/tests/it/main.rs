//! The server's one integration-test binary (one link for all of them, which matters on a
//! 2-core machine): real PostgreSQL, real HTTP and WebSocket clients, the real server binary
//! for the crash test. Needs `DATABASE_URL` pointing at a running PostgreSQL (each test
//! creates its own database from it); `scripts/test.sh` sets both up.

mod browser;
mod cli;
mod crash;
mod limits;
mod loadtest;
mod lobby;
mod mux;
mod ops;
mod outage;
mod server;
mod store;
mod store_commit;
mod web;
mod webdriver;
mod ws_game;
