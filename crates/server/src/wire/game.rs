//! The game sockets' messages: what clients send on `/ws/game/{id}` ([`ClientMsg`]) and on
//! the multiplexed `/ws/games` ([`MuxClientMsg`], which wraps the same messages).

use super::parse_tagged;
use serde::Deserialize;
use uuid::Uuid;

/// Messages a client sends on `/ws/game/{id}`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Play an action; `ply` is the ply it is meant to become (the number of actions played
    /// so far plus one), which makes a retry idempotent.
    Act {
        ply: u32,
        action: String,
    },
    Resign,
    DrawOffer,
    DrawAccept,
    DrawDecline,
    Abort,
    RematchOffer,
    RematchAccept,
    RematchDecline,
    ClaimVictory,
    ClaimDraw,
    /// Catch up after the given version: the missed events, or a snapshot.
    Sync {
        v: u64,
    },
    Ping,
}

/// Messages a client sends on `/ws/games`, the socket that carries many games at once.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum MuxClientMsg {
    /// Start receiving a game's messages (after version `v` if given, as `?v=` does on
    /// `/ws/game/{id}`); also counts the player as present in it.
    Watch {
        gid: Uuid,
        v: Option<u64>,
    },
    /// Stop receiving a game's messages.
    Unwatch {
        gid: Uuid,
    },
    /// A `/ws/game/{id}` message for a watched game.
    Game {
        gid: Uuid,
        msg: ClientMsg,
    },
    Ping,
}

/// Parses a client frame, naming the problem when it is not a message we know.
pub fn parse_client_msg(text: &str) -> Result<ClientMsg, (&'static str, String)> {
    parse_tagged(text)
}

/// Parses a frame of the multiplexed socket, naming the problem as [`parse_client_msg`] does
/// (in a `game` message, the problem with the game message it carries, if that is where it
/// lies).
pub fn parse_mux_msg(text: &str) -> Result<MuxClientMsg, (&'static str, String)> {
    parse_tagged(text).map_err(|outer| {
        let inner = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .filter(|value| value["t"] == "game")
            .and_then(|value| parse_client_msg(&value.get("msg")?.to_string()).err());
        inner.unwrap_or(outer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_parse() {
        assert_eq!(
            parse_client_msg(r#"{"t":"act","ply":3,"action":"e2e4"}"#),
            Ok(ClientMsg::Act {
                ply: 3,
                action: "e2e4".into()
            })
        );
        assert_eq!(parse_client_msg(r#"{"t":"resign"}"#), Ok(ClientMsg::Resign));
        assert_eq!(
            parse_client_msg(r#"{"t":"sync","v":7}"#),
            Ok(ClientMsg::Sync { v: 7 })
        );
    }

    #[test]
    fn bad_messages_are_named() {
        let code = |text: &str| parse_client_msg(text).err().map(|(c, _)| c);
        assert_eq!(code("nonsense"), Some("bad_message"));
        assert_eq!(code(r#"{"x":1}"#), Some("bad_message"));
        assert_eq!(code(r#"{"t":"fly"}"#), Some("unknown_message"));
        assert_eq!(
            code(r#"{"t":"act","ply":"x","action":"e2e4"}"#),
            Some("bad_message")
        );
        assert_eq!(
            code(r#"{"t":"act","ply":-1,"action":"e2e4"}"#),
            Some("bad_message")
        );
        assert_eq!(code(r#"{"t":"act","action":"e2e4"}"#), Some("bad_message"));
    }

    #[test]
    fn multiplexed_messages_parse_and_bad_ones_are_named() {
        let gid = "0190a5e8-0000-7000-8000-000000000001";
        let id = Uuid::parse_str(gid).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            parse_mux_msg(&format!(r#"{{"t":"watch","gid":"{gid}","v":4}}"#)),
            Ok(MuxClientMsg::Watch {
                gid: id,
                v: Some(4)
            })
        );
        assert_eq!(
            parse_mux_msg(&format!(r#"{{"t":"unwatch","gid":"{gid}"}}"#)),
            Ok(MuxClientMsg::Unwatch { gid: id })
        );
        assert_eq!(
            parse_mux_msg(&format!(
                r#"{{"t":"game","gid":"{gid}","msg":{{"t":"act","ply":1,"action":"a2a3"}}}}"#
            )),
            Ok(MuxClientMsg::Game {
                gid: id,
                msg: ClientMsg::Act {
                    ply: 1,
                    action: "a2a3".into()
                }
            })
        );
        let code = |text: &str| parse_mux_msg(text).err().map(|(c, _)| c);
        assert_eq!(code(r#"{"t":"watch","gid":"nope"}"#), Some("bad_message"));
        assert_eq!(
            code(r#"{"t":"act","ply":1,"action":"a2a3"}"#),
            Some("unknown_message")
        );
        let inner = parse_mux_msg(&format!(
            r#"{{"t":"game","gid":"{gid}","msg":{{"t":"fly"}}}}"#
        ));
        assert_eq!(
            inner,
            Err(("unknown_message", "unknown message type `fly`".into()))
        );
        assert_eq!(
            code(&format!(
                r#"{{"t":"game","gid":"{gid}","msg":{{"t":"act"}}}}"#
            )),
            Some("bad_message")
        );
        assert_eq!(
            code(r#"{"t":"game","msg":{"t":"resign"}}"#),
            Some("bad_message")
        );
    }
}
