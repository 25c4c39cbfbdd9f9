//! What clients send on the game sockets: on `/ws/game/{id}` ([`ClientMsg`]) and on the
//! multiplexed `/ws/games` ([`MuxClientMsg`], which wraps the same messages), and their parsing.

use crate::wire::parse_tagged;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Messages a client sends on `/ws/game/{id}`.
///
/// A message without fields is an empty struct variant (`Resign {}`), not a unit variant:
/// serde ignores `deny_unknown_fields` on the unit variants of an internally tagged enum
/// (serde-rs/serde#2123), so `{"t":"resign","x":1}` would resign, where the protocol refuses
/// any unknown field as `bad_message`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Play an action; `ply` is the ply it is meant to become (the number of actions played
    /// so far plus one), which makes a retry idempotent.
    Act {
        ply: u32,
        action: String,
    },
    Resign {},
    DrawOffer {},
    DrawAccept {},
    DrawDecline {},
    Abort {},
    RematchOffer {},
    RematchAccept {},
    RematchDecline {},
    ClaimVictory {},
    ClaimDraw {},
    /// Ask the opponent to take back the sender's last action (and the opponent's reply to
    /// it, if any): back to the sender's turn.
    TakebackOffer {},
    TakebackAccept {},
    TakebackDecline {},
    /// Give the opponent 15 seconds more.
    MoreTime {},
    /// A line of chat, in the sender's room (`super::ChatRoom`).
    Chat {
        text: String,
    },
    /// Catch up after the given version: the missed events, or a snapshot.
    Sync {
        v: u64,
    },
    Ping {},
}

/// Messages a client sends on `/ws/games`, the socket that carries many games at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum MuxClientMsg {
    /// Start receiving a game's messages (after version `v` if given, as `?v=` does on
    /// `/ws/game/{id}`); also counts the player as present in it, unless `preview`.
    Watch {
        gid: Uuid,
        #[serde(skip_serializing_if = "Option::is_none")]
        v: Option<u64>,
        /// Only follow the game, as a small board on another page does: read what any
        /// spectator reads, count as nobody (not present, not among the spectators) and
        /// send it no game messages.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        preview: bool,
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
    Ping {},
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

    /// Every client message with its documented JSON; the match makes a new message a compile
    /// error here until it has a line.
    fn every_client_message() -> Vec<(ClientMsg, &'static str)> {
        let messages = [
            (
                ClientMsg::Act {
                    ply: 7,
                    action: "e2e4".into(),
                },
                r#"{"t":"act","ply":7,"action":"e2e4"}"#,
            ),
            (ClientMsg::Resign {}, r#"{"t":"resign"}"#),
            (ClientMsg::DrawOffer {}, r#"{"t":"draw_offer"}"#),
            (ClientMsg::DrawAccept {}, r#"{"t":"draw_accept"}"#),
            (ClientMsg::DrawDecline {}, r#"{"t":"draw_decline"}"#),
            (ClientMsg::Abort {}, r#"{"t":"abort"}"#),
            (ClientMsg::RematchOffer {}, r#"{"t":"rematch_offer"}"#),
            (ClientMsg::RematchAccept {}, r#"{"t":"rematch_accept"}"#),
            (ClientMsg::RematchDecline {}, r#"{"t":"rematch_decline"}"#),
            (ClientMsg::ClaimVictory {}, r#"{"t":"claim_victory"}"#),
            (ClientMsg::ClaimDraw {}, r#"{"t":"claim_draw"}"#),
            (ClientMsg::TakebackOffer {}, r#"{"t":"takeback_offer"}"#),
            (ClientMsg::TakebackAccept {}, r#"{"t":"takeback_accept"}"#),
            (ClientMsg::TakebackDecline {}, r#"{"t":"takeback_decline"}"#),
            (ClientMsg::MoreTime {}, r#"{"t":"more_time"}"#),
            (ClientMsg::Sync { v: 12 }, r#"{"t":"sync","v":12}"#),
            (ClientMsg::Ping {}, r#"{"t":"ping"}"#),
        ];
        for (message, _) in &messages {
            match message {
                ClientMsg::Act { .. }
                | ClientMsg::Resign {}
                | ClientMsg::DrawOffer {}
                | ClientMsg::DrawAccept {}
                | ClientMsg::DrawDecline {}
                | ClientMsg::Abort {}
                | ClientMsg::RematchOffer {}
                | ClientMsg::RematchAccept {}
                | ClientMsg::RematchDecline {}
                | ClientMsg::ClaimVictory {}
                | ClientMsg::ClaimDraw {}
                | ClientMsg::TakebackOffer {}
                | ClientMsg::TakebackAccept {}
                | ClientMsg::TakebackDecline {}
                | ClientMsg::MoreTime {}
                | ClientMsg::Chat { .. }
                | ClientMsg::Sync { .. }
                | ClientMsg::Ping {} => {}
            }
        }
        messages.into()
    }

    #[test]
    fn every_client_message_round_trips_through_its_documented_json() {
        let messages = every_client_message();
        assert_eq!(messages.len(), 17);
        for (message, json) in messages {
            assert_eq!(serde_json::to_string(&message).ok().as_deref(), Some(json));
            assert_eq!(parse_client_msg(json), Ok(message.clone()));
            let gid = Uuid::from_u128(7);
            let wrapped = MuxClientMsg::Game { gid, msg: message };
            let text = serde_json::to_string(&wrapped).unwrap_or_default();
            assert_eq!(parse_mux_msg(&text), Ok(wrapped));
        }
    }

    /// `json` with one more field, which no message has.
    fn with_unknown_field(json: &str) -> String {
        format!("{},\"x\":1}}", json.trim_end_matches('}'))
    }

    #[test]
    fn every_client_message_refuses_an_unknown_field() {
        for (_, json) in every_client_message() {
            let extended = with_unknown_field(json);
            assert_eq!(
                parse_client_msg(&extended).map_err(|(code, _)| code),
                Err("bad_message"),
                "{extended} was taken"
            );
            let wrapped = format!(r#"{{"t":"game","gid":"{}","msg":{extended}}}"#, Uuid::nil());
            assert_eq!(
                parse_mux_msg(&wrapped).map_err(|(code, _)| code),
                Err("bad_message"),
                "{wrapped} was taken"
            );
        }
        let gid = Uuid::nil();
        for json in [
            format!(r#"{{"t":"watch","gid":"{gid}"}}"#),
            format!(r#"{{"t":"unwatch","gid":"{gid}"}}"#),
            format!(r#"{{"t":"game","gid":"{gid}","msg":{{"t":"ping"}}}}"#),
            r#"{"t":"ping"}"#.to_string(),
        ] {
            assert!(parse_mux_msg(&json).is_ok(), "{json} was refused");
            let extended = with_unknown_field(&json);
            assert_eq!(
                parse_mux_msg(&extended).map_err(|(code, _)| code),
                Err("bad_message"),
                "{extended} was taken"
            );
        }
    }

    /// The protocol document, which shows client authors these messages.
    const PROTOCOL_DOC: &str = include_str!("../../../../../docs/protocol.md");

    #[test]
    fn the_protocol_document_shows_every_client_message_as_it_is() {
        for (_, json) in every_client_message() {
            assert!(PROTOCOL_DOC.contains(json), "docs/protocol.md lacks {json}");
        }
        let gid = Uuid::from_u128(1);
        let act = ClientMsg::Act {
            ply: 7,
            action: "e2e4".into(),
        };
        let multiplexed = [
            MuxClientMsg::Watch {
                gid,
                v: None,
                preview: false,
            },
            MuxClientMsg::Watch {
                gid,
                v: Some(12),
                preview: false,
            },
            MuxClientMsg::Watch {
                gid,
                v: None,
                preview: true,
            },
            MuxClientMsg::Unwatch { gid },
            MuxClientMsg::Game { gid, msg: act },
            MuxClientMsg::Ping {},
        ];
        for message in multiplexed {
            let json = serde_json::to_string(&message).unwrap_or_default();
            // The document writes an elided id.
            let shown = json.replace(&gid.to_string(), "…");
            assert!(
                PROTOCOL_DOC.contains(&shown),
                "docs/protocol.md lacks {shown}"
            );
        }
    }

    #[test]
    fn every_multiplexed_message_round_trips_through_its_documented_json() {
        let gid = Uuid::from_u128(0x0190_a5e8_0000_7000_8000_0000_0000_0001);
        let id = "0190a5e8-0000-7000-8000-000000000001";
        let messages = [
            (
                MuxClientMsg::Watch {
                    gid,
                    v: None,
                    preview: false,
                },
                format!(r#"{{"t":"watch","gid":"{id}"}}"#),
            ),
            (
                MuxClientMsg::Watch {
                    gid,
                    v: Some(12),
                    preview: false,
                },
                format!(r#"{{"t":"watch","gid":"{id}","v":12}}"#),
            ),
            (
                MuxClientMsg::Watch {
                    gid,
                    v: None,
                    preview: true,
                },
                format!(r#"{{"t":"watch","gid":"{id}","preview":true}}"#),
            ),
            (
                MuxClientMsg::Unwatch { gid },
                format!(r#"{{"t":"unwatch","gid":"{id}"}}"#),
            ),
            (
                MuxClientMsg::Game {
                    gid,
                    msg: ClientMsg::Resign {},
                },
                format!(r#"{{"t":"game","gid":"{id}","msg":{{"t":"resign"}}}}"#),
            ),
            (MuxClientMsg::Ping {}, r#"{"t":"ping"}"#.to_string()),
        ];
        for (message, json) in messages {
            assert_eq!(serde_json::to_string(&message).ok(), Some(json.clone()));
            assert_eq!(parse_mux_msg(&json), Ok(message));
        }
    }

    #[test]
    fn a_chat_line_round_trips_through_its_documented_json() {
        let json = r#"{"t":"chat","text":"good luck"}"#;
        let message = ClientMsg::Chat {
            text: "good luck".into(),
        };
        assert_eq!(serde_json::to_string(&message).ok().as_deref(), Some(json));
        assert_eq!(parse_client_msg(json), Ok(message));
        assert!(PROTOCOL_DOC.contains(json), "docs/protocol.md lacks {json}");
        let code = |text: &str| parse_client_msg(text).err().map(|(c, _)| c);
        assert_eq!(code(r#"{"t":"chat"}"#), Some("bad_message"));
        assert_eq!(code(r#"{"t":"chat","text":3}"#), Some("bad_message"));
        assert_eq!(
            code(r#"{"t":"chat","text":"a","room":"players"}"#),
            Some("bad_message")
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
                v: Some(4),
                preview: false,
            })
        );
        assert_eq!(
            parse_mux_msg(&format!(r#"{{"t":"watch","gid":"{gid}","preview":true}}"#)),
            Ok(MuxClientMsg::Watch {
                gid: id,
                v: None,
                preview: true,
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
