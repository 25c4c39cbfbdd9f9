//! The game sockets' messages, `/ws/game/{id}` and the multiplexed `/ws/games`: what clients
//! send ([`client`]), what the server sends ([`server`]), the events of a game ([`event`])
//! and the views of a game those carry ([`view`]); a game's chat and spectator count,
//! which are not versioned events ([`chat`]).

pub mod chat;
pub mod client;
pub mod event;
pub mod server;
pub mod view;

pub use chat::{
    chat_message, spectators_message, ChatLine, ChatMsg, ChatRoom, GameChat, SpectatorsMsg,
};
pub use client::{parse_client_msg, parse_mux_msg, ClientMsg, MuxClientMsg};
pub use event::GameEvent;
pub use server::{
    batch_message, tag_with_gid, unwatched_message, BatchMsg, EventMsg, GameServerMsg, GidTagged,
    MuxServerMsg, SnapshotMsg, Unwatched,
};
pub use view::{ClockView, GameView, MoveView, SeatTimes};
