//! The action event's fields written as JSON by hand: byte for byte what serde writes for
//! them (the parent module's tests hold every variant's events to that), without serde's
//! general path. A live game writes one action event per move, and serde's per-field and
//! per-string work on the update's pieces, squares and dice took a quarter to two fifths of
//! that message's time (the `action_event` benchmark; Chad's message, mostly legal actions,
//! gained least).
//!
//! Only the types an action event carries are here. Rarer events, and the rare values
//! (an outcome), still go through serde.

use crate::rules::snapshot::{LastAction, OffBoardPiece, PieceStats, PlacedPiece, Roll, SquareRef};
use crate::rules::{Color, Role};
use crate::wire::game::ClockView;
use std::borrow::Cow;
use std::sync::Arc;

/// A value written into a JSON text exactly as serde_json writes it.
pub(super) trait WriteJson {
    fn write_json(&self, out: &mut Vec<u8>);
}

/// Appends `key` (the JSON text before a value: separator, name, colon) and `value`.
pub(super) fn field<T: WriteJson + ?Sized>(out: &mut Vec<u8>, key: &[u8], value: &T) {
    out.extend_from_slice(key);
    value.write_json(out);
}

impl WriteJson for str {
    /// A text with nothing JSON escapes (control characters, `"` and `\`), which is every
    /// notation, label and square name, is copied between quotes; any other goes through
    /// serde's escaping. Inlined: a move writes a few hundred of these, most of them the legal
    /// actions, and a call for each cost more than serde's own path had.
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) {
        if !needs_escape(self) {
            let bytes = self.as_bytes();
            out.push(b'"');
            out.extend_from_slice(bytes);
            out.push(b'"');
        } else {
            write_escaped(out, self);
        }
    }
}

/// The rare text that needs escapes, as serde writes it.
#[cold]
#[inline(never)]
fn write_escaped(out: &mut Vec<u8>, text: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

impl WriteJson for String {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_str().write_json(out);
    }
}

impl WriteJson for Cow<'static, str> {
    /// A borrowed label is static text of the server's own: an action text from a variant's
    /// table, a square, board or mark name. None of those needs an escape, so it is copied
    /// without looking at its bytes (a move's event writes a hundred-odd legal actions, and the
    /// test was a third of writing each). Debug builds, which the tests run, check the claim.
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Cow::Borrowed(text) => {
                debug_assert!(!needs_escape(text), "static label {text:?} needs escaping");
                out.push(b'"');
                out.extend_from_slice(text.as_bytes());
                out.push(b'"');
            }
            Cow::Owned(text) => text.as_str().write_json(out),
        }
    }
}

/// Whether JSON escapes anything in `text`: a control character, `"` or `\`.
fn needs_escape(text: &str) -> bool {
    text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

impl WriteJson for u64 {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(itoa::Buffer::new().format(*self).as_bytes());
    }
}

impl WriteJson for u32 {
    fn write_json(&self, out: &mut Vec<u8>) {
        u64::from(*self).write_json(out);
    }
}

impl WriteJson for Color {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_str().write_json(out);
    }
}

impl WriteJson for Role {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_str().write_json(out);
    }
}

impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Some(value) => value.write_json(out),
            None => out.extend_from_slice(b"null"),
        }
    }
}

impl<T: WriteJson> WriteJson for Arc<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        T::write_json(self, out);
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.write_json(out);
        }
        out.push(b']');
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut Vec<u8>) {
        self.as_slice().write_json(out);
    }
}

impl WriteJson for ClockView {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"white_ms\":", &self.white_ms);
        field(out, b",\"black_ms\":", &self.black_ms);
        field(out, b",\"running\":", &self.running);
        out.push(b'}');
    }
}

impl WriteJson for SquareRef {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"board\":", &self.board);
        field(out, b",\"square\":", &self.square);
        out.push(b'}');
    }
}

impl WriteJson for PlacedPiece {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"board\":", &self.board);
        field(out, b",\"square\":", &self.square);
        field(out, b",\"color\":", &self.color);
        field(out, b",\"role\":", &self.role);
        // Skipped when empty, as the type's serde attributes say.
        if let Some(stats) = &self.stats {
            field(out, b",\"stats\":", stats);
        }
        if !self.marks.is_empty() {
            field(out, b",\"marks\":", &self.marks);
        }
        out.push(b'}');
    }
}

impl WriteJson for PieceStats {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"life\":", &self.life);
        field(out, b",\"max_life\":", &self.max_life);
        field(out, b",\"armor\":", &self.armor);
        field(out, b",\"ears\":", &self.ears);
        field(out, b",\"weapon\":", &self.weapon);
        out.push(b'}');
    }
}

impl WriteJson for LastAction {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"machine\":", &self.machine);
        field(out, b",\"human\":", &self.human);
        field(out, b",\"squares\":", &self.squares);
        // Skipped when empty, as the type's serde attributes say.
        if !self.rolls.is_empty() {
            field(out, b",\"rolls\":", &self.rolls);
        }
        if !self.effects.is_empty() {
            field(out, b",\"effects\":", &self.effects);
        }
        out.push(b'}');
    }
}

impl WriteJson for Roll {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"purpose\":", &self.purpose);
        field(out, b",\"dice\":", &self.dice);
        field(out, b",\"value\":", &self.value);
        out.push(b'}');
    }
}

impl WriteJson for OffBoardPiece {
    fn write_json(&self, out: &mut Vec<u8>) {
        field(out, b"{\"color\":", &self.color);
        field(out, b",\"role\":", &self.role);
        field(out, b",\"state\":", &self.state);
        out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written<T: WriteJson + serde::Serialize + ?Sized>(value: &T) -> (String, String) {
        let mut ours = Vec::new();
        value.write_json(&mut ours);
        let theirs = serde_json::to_string(value).unwrap_or_default();
        (String::from_utf8(ours).unwrap_or_default(), theirs)
    }

    #[test]
    fn numbers_are_written_as_serde_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 4_294_967_295, u64::MAX - 1, u64::MAX] {
            let (ours, serde) = written(&n);
            assert_eq!(ours, serde);
        }
        let (ours, serde) = written(&u32::MAX);
        assert_eq!(ours, serde);
    }

    #[test]
    fn texts_are_written_as_serde_writes_them() {
        for text in [
            "",
            "e2e4",
            "a\"b",
            "c\\d",
            "tab\there",
            "\u{1}",
            "\u{7f}",
            "é♞",
            "/",
        ] {
            let (ours, serde) = written(text);
            assert_eq!(ours, serde, "{text:?}");
        }
    }

    /// A borrowed label that would need an escape breaks the rule the writer relies on; the
    /// debug builds that run the tests stop at it.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "needs escaping")]
    fn a_borrowed_label_that_needs_an_escape_is_caught() {
        let mut out = Vec::new();
        Cow::Borrowed("a\"b").write_json(&mut out);
    }

    #[test]
    fn every_optional_field_is_written_as_serde_writes_it() {
        let square = |name: &str| SquareRef {
            board: Cow::Owned(format!("b\"{name}")),
            square: Cow::Owned(name.to_string()),
        };
        let pieces = vec![
            PlacedPiece {
                board: Cow::Borrowed("main"),
                square: Cow::Borrowed("e4"),
                color: Color::White,
                role: Role::Knight,
                stats: None,
                marks: Vec::new(),
            },
            PlacedPiece {
                board: Cow::Borrowed("duel"),
                square: Cow::Owned("b\\2".into()),
                color: Color::Black,
                role: Role::King,
                stats: Some(PieceStats {
                    life: 0,
                    max_life: 12,
                    armor: 4_000_000_000,
                    ears: 1,
                    weapon: Cow::Owned("2d4\n".into()),
                }),
                marks: vec![Cow::Borrowed("dyad"), Cow::Owned("\u{1f}".into())],
            },
        ];
        let (ours, serde) = written(&pieces);
        assert_eq!(ours, serde);
        for last in [
            LastAction {
                machine: "e2e4".into(),
                human: "e4".into(),
                squares: vec![],
                rolls: vec![],
                effects: vec![],
            },
            LastAction {
                machine: "x\"y".into(),
                human: "h\\".into(),
                squares: vec![square("a1"), square("h8")],
                rolls: vec![Roll {
                    purpose: Cow::Borrowed("to_hit"),
                    dice: Cow::Owned("d\t20".into()),
                    value: 17,
                }],
                effects: vec!["hit: \"quoted\"".into(), String::new()],
            },
        ] {
            let (ours, serde) = written(&last);
            assert_eq!(ours, serde);
        }
        let off = [OffBoardPiece {
            color: Color::Black,
            role: Role::Bishop,
            state: "dead_may_return".into(),
        }];
        let (ours, serde) = written(&off[..]);
        assert_eq!(ours, serde);
        for running in [None, Some(Color::White)] {
            let clock = Some(ClockView {
                white_ms: 0,
                black_ms: 180_000,
                running,
            });
            let (ours, serde) = written(&clock);
            assert_eq!(ours, serde);
        }
    }
}
