//! The game sockets' messages, `/ws/game/{id}` and the multiplexed `/ws/games`: what clients
//! send ([`client`]), what the server sends ([`server`]), the events of a game ([`event`])
//! and the views of a game those carry ([`view`]).

pub mod client;
pub mod event;
pub mod server;
pub mod view;

pub use client::{parse_client_msg, parse_mux_msg, ClientMsg, MuxClientMsg};
pub use event::GameEvent;
pub use server::{
    batch_message, tag_with_gid, unwatched_message, BatchMsg, EventMsg, GameServerMsg, GidTagged,
    MuxServerMsg, SnapshotMsg, Unwatched,
};
pub use view::{ClockView, GameView, MoveView, SeatTimes};
