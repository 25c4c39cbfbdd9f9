//! A JSON reader made for the load tool: it walks a server message once, picks out the few
//! fields a player tracks and steps over the rest at a few instructions per byte. The load tool
//! shares the two cores with the server it measures, and serde_json skipping the parts it did
//! not need (pieces, clocks, the legal actions of the side not to move) was three quarters of
//! its own work per move.
//!
//! It checks the structure of what it reads (strings, brackets, commas and colons between
//! fields); of what it skips, only that strings close and brackets balance (not that they
//! pair up) and not the spelling of numbers and literals: the server's messages are held to
//! serde's output by the server's own tests. Strings come back as their raw text between the
//! quotes, escapes kept; the fields read here are identifiers (`event`, `white`) that never
//! need one.

use std::ops::Range;

/// A position in one message's text.
pub struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(text: &'a str) -> Reader<'a> {
        Reader { text, at: 0 }
    }

    /// Where reading stopped, in bytes (for error messages).
    pub fn offset(&self) -> usize {
        self.at
    }

    /// Whether only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.space();
        self.at == self.text.len()
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Consumes `byte` (after whitespace) if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    /// Consumes a `null` if one comes next.
    pub fn null(&mut self) -> bool {
        self.space();
        let found = self.text.as_bytes().get(self.at..self.at + 4) == Some(b"null");
        if found {
            self.at += 4;
        }
        found
    }

    /// Where a string's literal lies in the text, its quotes included.
    pub fn string_literal(&mut self) -> Option<Range<usize>> {
        self.space();
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at;
        self.at = string_end(self.text.as_bytes(), start + 1)?;
        Some(start..self.at)
    }

    /// A string's text between its quotes, escapes kept.
    pub fn string(&mut self) -> Option<&'a str> {
        let literal = self.string_literal()?;
        // The quotes are ASCII, so the slice falls on character boundaries.
        self.text.get(literal.start + 1..literal.end - 1)
    }

    /// A non-negative integer.
    pub fn u64(&mut self) -> Option<u64> {
        self.space();
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut value: u64 = 0;
        while let Some(digit) = bytes.get(self.at).filter(|b| b.is_ascii_digit()) {
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
            self.at += 1;
        }
        (self.at > start).then_some(value)
    }

    /// Steps over one value of any kind.
    pub fn skip(&mut self) -> Option<()> {
        self.space();
        match self.peek()? {
            b'"' => self.string_literal().map(drop),
            b'{' | b'[' => self.skip_container(),
            b',' | b':' | b']' | b'}' => None,
            _ => {
                // A number, `true`, `false` or `null`: up to the next delimiter.
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b']' | b'}') && !b.is_ascii_whitespace())
                {
                    self.at += 1;
                }
                (self.at > start).then_some(())
            }
        }
    }

    /// Steps over an object or array, nested ones and strings included, counting brackets.
    fn skip_container(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        let mut at = self.at;
        let mut depth = 0usize;
        loop {
            at = next_in(&STRUCTURAL, bytes, at)?;
            match bytes.get(at)? {
                b'"' => {
                    at = string_end(bytes, at + 1)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                _ => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        self.at = at + 1;
                        return Some(());
                    }
                }
            }
            at += 1;
        }
    }

    /// One value of any kind, as its JSON text.
    pub fn raw(&mut self) -> Option<&'a str> {
        self.space();
        let start = self.at;
        self.skip()?;
        self.text.get(start..self.at)
    }

    /// An object: `field` is called with each key and must read or skip its value.
    pub fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            let key = self.string()?;
            if !self.eat(b':') {
                return None;
            }
            field(self, key)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(());
        }
    }

    /// An array: `item` is called for each element and must read or skip it.
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b']').then_some(());
        }
    }
}

/// The bytes a skipped container's structure turns on: quotes and brackets.
static STRUCTURAL: [bool; 256] = byte_set(b"\"[]{}");
/// The bytes that end a run of plain string content: the closing quote and escapes.
static STRING_SPECIAL: [bool; 256] = byte_set(b"\"\\");

const fn byte_set(members: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < members.len() {
        set[members[i] as usize] = true;
        i += 1;
    }
    set
}

/// Where the first byte of `set` at or after `at` is. A `position` over a table compiles to a
/// tight loop: most of a message's bytes are crossed here.
fn next_in(set: &[bool; 256], bytes: &[u8], at: usize) -> Option<usize> {
    let run = bytes.get(at..)?.iter().position(|&b| set[usize::from(b)])?;
    Some(at + run)
}

/// Just past the closing quote of the string whose content starts at `start`, or `None` if it
/// is not closed.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    loop {
        at = next_in(&STRING_SPECIAL, bytes, at)?;
        match bytes.get(at)? {
            b'"' => return Some(at + 1),
            // An escape: the next byte belongs to it, even a quote.
            _ => at += 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_asked_for_and_skips_the_rest() {
        let text = r#" {"skip":{"a":[1,-2.5e3,true,null,{"b":"]}\"["}],"c":"x\\"},
            "n": 42 , "s":"plain","list":["a\"b", "c"],"z":false} "#;
        let mut reader = Reader::new(text);
        let (mut n, mut s, mut list) = (None, None, None);
        reader
            .object(|r, key| {
                match key {
                    "n" => n = r.u64(),
                    "s" => s = r.string(),
                    "list" => list = r.raw(),
                    _ => r.skip()?,
                }
                Some(())
            })
            .unwrap_or_default();
        assert!(reader.at_end());
        assert_eq!(n, Some(42));
        assert_eq!(s, Some("plain"));
        assert_eq!(list, Some(r#"["a\"b", "c"]"#));
    }

    #[test]
    fn arrays_nulls_and_empty_containers() {
        let mut count = 0;
        let mut reader = Reader::new(r#"[{}, [], null, "x", {"k":[]}]"#);
        let read = reader.array(|r| {
            count += 1;
            r.skip()
        });
        assert_eq!(read, Some(()));
        assert_eq!(count, 5);
        let mut reader = Reader::new("null");
        assert!(reader.null() && reader.at_end());
    }

    #[test]
    fn malformed_text_is_refused_without_panicking() {
        let cases = [
            "",
            "{",
            "{\"a\"",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\":1 \"b\":2}",
            "[1,]",
            "[1 2]",
            "{\"a\":\"unterminated}",
            "{\"a\":[1,2}",
            "{\"a\":\"\\",
            "]",
            "{\"a\":]}",
            "{1:2}",
        ];
        for text in cases {
            let mut reader = Reader::new(text);
            let read = reader.object(|r, _| r.skip());
            assert!(read.is_none() || !reader.at_end(), "{text:?} was accepted");
        }
    }
}
