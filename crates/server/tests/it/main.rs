//! The server's one integration-test binary (one link for all of them, which matters on a
//! 2-core machine): real PostgreSQL, real HTTP and WebSocket clients, the real server binary
//! for the crash test. Needs `DATABASE_URL` pointing at a running PostgreSQL (each test
//! creates its own database from it); `scripts/test.sh` sets both up.

mod analysis;
mod axe;
mod browser;
mod browser_analysis;
mod browser_board;
mod browser_computer;
mod browser_dice;
mod browser_game;
mod browser_glance;
mod browser_hints;
mod browser_lobby;
mod browser_marks;
mod browser_phone;
mod browser_profile;
mod browser_seek_form;
mod browser_site;
mod browser_small;
mod browser_turn;
mod browser_variants;
mod built_in_client;
mod cli;
mod cluster_leases;
mod computer;
mod crash;
mod limits;
mod loadtest;
mod lobby;
mod lobby_presence;
mod lobby_protocol;
mod lobby_ratings;
mod mux;
mod nats;
mod ops;
mod outage;
mod server;
mod store;
mod store_adjustments;
mod store_changes;
mod store_chat;
mod store_commit;
mod store_fence;
mod store_games;
mod store_leaderboard;
mod store_lobby;
mod store_writer;
mod web;
mod web_hardening;
mod web_sockets;
mod webdriver;
mod ws_chat;
mod ws_game;
mod ws_game_ends;
mod ws_takeback;
