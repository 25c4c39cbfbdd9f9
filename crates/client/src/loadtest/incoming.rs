//! What the load tool reads of a server message: the few fields a player tracks, borrowed
//! from the frame and picked out by [`scan::Reader`], which steps over the rest (pieces,
//! boards, clocks). Public so that the server's tests can hold the server's real messages to
//! what serde_json reads of them.

use super::scan;
use crate::ClientError;

/// The parts of a server message the load tool reads, borrowed from the frame
/// ([`scan::Reader`] steps over the rest: pieces, boards, clocks).
#[derive(Default)]
pub struct Incoming<'a> {
    pub t: &'a str,
    /// The game a multiplexed socket's message is about.
    pub gid: Option<&'a str>,
    /// The code of an error message.
    pub code: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub ply: Option<u64>,
    /// The whole rules snapshot (a `started` event).
    pub rules: Option<RulesPart<'a>>,
    /// What changed in it (an `action` event): turn, legal actions and outcome come whole.
    pub update: Option<RulesPart<'a>>,
    pub game: Option<GamePart<'a>>,
    pub messages: Vec<Incoming<'a>>,
}

impl<'a> Incoming<'a> {
    /// Reads one whole message.
    pub fn parse(frame: &'a str) -> Result<Incoming<'a>, ClientError> {
        let mut reader = scan::Reader::new(frame);
        match Incoming::read(&mut reader) {
            Some(message) if reader.at_end() => Ok(message),
            _ => Err(ClientError(format!(
                "malformed server message near byte {}: {frame}",
                reader.offset()
            ))),
        }
    }

    fn read(reader: &mut scan::Reader<'a>) -> Option<Incoming<'a>> {
        let mut message = Incoming::default();
        reader.object(|r, key| {
            match key {
                "t" => message.t = r.string()?,
                "gid" => message.gid = nullable(r, scan::Reader::string)?,
                "code" => message.code = nullable(r, scan::Reader::string)?,
                "kind" => message.kind = nullable(r, scan::Reader::string)?,
                "ply" => message.ply = nullable(r, scan::Reader::u64)?,
                "rules" => message.rules = nullable(r, RulesPart::read)?,
                "update" => message.update = nullable(r, RulesPart::read)?,
                "game" => message.game = nullable(r, GamePart::read)?,
                "messages" => {
                    nullable(r, |r| {
                        r.array(|r| {
                            message.messages.push(Incoming::read(r)?);
                            Some(())
                        })
                    })?;
                }
                _ => r.skip()?,
            }
            Some(())
        })?;
        Some(message)
    }
}

/// A value that may be `null`: `Some(None)` for a null, `None` if it is neither null nor read.
fn nullable<'a, T>(
    reader: &mut scan::Reader<'a>,
    read: impl FnOnce(&mut scan::Reader<'a>) -> Option<T>,
) -> Option<Option<T>> {
    if reader.null() {
        Some(None)
    } else {
        read(reader).map(Some)
    }
}

#[derive(Default)]
pub struct RulesPart<'a> {
    pub turn: &'a str,
    /// The list's JSON text, borrowed from the frame: only the side to move reads it
    /// ([`legal_literals`]). Parsed into strings, the hundred-odd actions of a Chad position
    /// were two fifths of the load tool's work, for both players on every move.
    pub legal_actions: Option<&'a str>,
    /// Whether the game is over.
    pub outcome: bool,
}

impl<'a> RulesPart<'a> {
    fn read(reader: &mut scan::Reader<'a>) -> Option<RulesPart<'a>> {
        let mut rules = RulesPart::default();
        reader.object(|r, key| {
            match key {
                "turn" => rules.turn = nullable(r, scan::Reader::string)?.unwrap_or_default(),
                "legal_actions" => rules.legal_actions = nullable(r, scan::Reader::raw)?,
                "outcome" => rules.outcome = nullable(r, scan::Reader::skip)?.is_some(),
                _ => r.skip()?,
            }
            Some(())
        })?;
        Some(rules)
    }
}

/// The string literals of a JSON array of strings (`["a1a2","b\"c"]`), as byte ranges of
/// `array` with their quotes and escapes kept: each is already the JSON text of its action,
/// which is all the load tool ever does with one. None if `array` is not an array of strings.
pub(super) fn legal_literals(array: &str, ranges: &mut Vec<std::ops::Range<usize>>) -> Option<()> {
    scan::Reader::new(array).array(|r| {
        ranges.push(r.string_literal()?);
        Some(())
    })
}

#[derive(Default)]
pub struct GamePart<'a> {
    /// How many moves have been played.
    pub moves: u64,
    pub rules: RulesPart<'a>,
    pub outcome: bool,
}

impl<'a> GamePart<'a> {
    fn read(reader: &mut scan::Reader<'a>) -> Option<GamePart<'a>> {
        let mut game = GamePart::default();
        reader.object(|r, key| {
            match key {
                "moves" => r.array(|r| {
                    game.moves += 1;
                    r.skip()
                })?,
                "rules" => game.rules = RulesPart::read(r)?,
                "outcome" => game.outcome = nullable(r, scan::Reader::skip)?.is_some(),
                _ => r.skip()?,
            }
            Some(())
        })?;
        Some(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_literals_are_the_quoted_actions() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            (r#"["a1a2","b1c3"]"#, Some(&[r#""a1a2""#, r#""b1c3""#])),
            (
                r#" [ "e7e8q" , "pass" ] "#,
                Some(&[r#""e7e8q""#, r#""pass""#]),
            ),
            (r#"["a\"b","c\\"]"#, Some(&[r#""a\"b""#, r#""c\\""#])),
            ("[]", Some(&[])),
            ("[ ]", Some(&[])),
            (r#"["a1a2",3]"#, None),
            (r#"["a1a2""#, None),
            (r#"["a1a2" "b"]"#, None),
            (r#"{"a":1}"#, None),
            (r#"["unterminated\"]"#, None),
        ];
        for &(array, expected) in cases {
            let mut ranges = Vec::new();
            let found = legal_literals(array, &mut ranges)
                .map(|()| ranges.iter().map(|r| &array[r.clone()]).collect::<Vec<_>>());
            assert_eq!(found.as_deref(), expected, "{array}");
            // Every literal is the JSON text of a string.
            for literal in found.unwrap_or_default() {
                assert!(serde_json::from_str::<String>(literal).is_ok(), "{literal}");
            }
        }
    }

    #[test]
    fn malformed_messages_are_errors() {
        for frame in [
            "",
            "{",
            r#"{"t":"event""#,
            r#"{"t":"event"} x"#,
            r#"{"ply":"x"}"#,
            "[]",
        ] {
            assert!(Incoming::parse(frame).is_err(), "{frame:?}");
        }
        let Ok(error) = Incoming::parse(r#"{"t":"error","code":"duplicate_action","message":"x"}"#)
        else {
            panic!("an error message is not read");
        };
        assert_eq!((error.t, error.code), ("error", Some("duplicate_action")));
    }

    #[test]
    fn snapshots_and_multiplexed_events_are_read() {
        let snapshot = r#"{"t":"snapshot","game":{"moves":["e2e3","e7e6"],"clock":null,
            "rules":{"turn":"white","legal_actions":["a2a3","b2b3"],"outcome":null},"outcome":null}}"#;
        let Ok(read) = Incoming::parse(snapshot) else {
            panic!("the snapshot is not read");
        };
        let Some(game) = read.game else {
            panic!("no game in the snapshot");
        };
        assert_eq!((game.moves, game.rules.turn), (2, "white"));
        assert_eq!(game.rules.legal_actions, Some(r#"["a2a3","b2b3"]"#));
        assert!(!game.outcome && !game.rules.outcome);
        let event = r#"{"t":"event","gid":"g1","kind":"action","ply":3,
            "update":{"turn":"black","legal_actions":null,"outcome":{"winner":"white"}}}"#;
        let Ok(read) = Incoming::parse(event) else {
            panic!("the event is not read");
        };
        assert_eq!(
            (read.gid, read.kind, read.ply),
            (Some("g1"), Some("action"), Some(3))
        );
        let Some(update) = read.update else {
            panic!("no update in the event");
        };
        assert_eq!(
            (update.turn, update.legal_actions, update.outcome),
            ("black", None, true)
        );
    }
}
