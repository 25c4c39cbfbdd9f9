//! The two request headers the built-in static files answer to: `Accept-Encoding` (which of
//! a file's stored copies to send) and `If-None-Match` (whether the client's copy is still
//! current). Pure text functions, so every shape of header a client may send is tested here.

/// A stored form of a file's contents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

impl Encoding {
    /// The `Content-Encoding` token, None for the file as it is.
    pub fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Brotli => Some("br"),
        }
    }
}

/// The encoding to send for an `Accept-Encoding` header (None: the header is absent): the
/// accepted one with the highest weight, brotli before gzip at equal weight (it is the
/// smaller), the file as it is when neither is accepted. `*` stands for any coding the
/// header does not name; `x-gzip` is gzip; a weight that does not parse counts as 1, as
/// tower-http's compression reads it.
pub fn preferred(accept_encoding: Option<&str>) -> Encoding {
    let Some(header) = accept_encoding else {
        return Encoding::Identity;
    };
    let (mut brotli, mut gzip, mut any) = (None, None, None);
    for item in header.split(',') {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let weight = parts
            .filter_map(|param| param.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        match coding.as_str() {
            "br" => brotli = Some(weight),
            "gzip" | "x-gzip" => gzip = Some(weight),
            "*" => any = Some(weight),
            _ => {}
        }
    }
    let brotli = brotli.or(any).unwrap_or(0.0);
    let gzip = gzip.or(any).unwrap_or(0.0);
    if brotli > 0.0 && brotli >= gzip {
        Encoding::Brotli
    } else if gzip > 0.0 {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// Whether an `If-None-Match` header names `etag` (or is `*`): the weak comparison HTTP
/// asks for here, so `W/"x"` matches `"x"`.
pub fn none_match_hits(if_none_match: &str, etag: &str) -> bool {
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_string();
    let wanted = opaque(etag);
    if_none_match
        .split(',')
        .any(|tag| tag.trim() == "*" || opaque(tag) == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_accepted_encoding_is_chosen() {
        for (header, expected) in [
            (None, Encoding::Identity),
            (Some(""), Encoding::Identity),
            (Some("identity"), Encoding::Identity),
            (Some("gzip"), Encoding::Gzip),
            (Some("x-gzip"), Encoding::Gzip),
            (Some("br"), Encoding::Brotli),
            (Some("gzip, deflate, br, zstd"), Encoding::Brotli),
            (Some("GZIP, BR"), Encoding::Brotli),
            (Some("br;q=0.5, gzip"), Encoding::Gzip),
            (Some("br;q=0, gzip;q=0"), Encoding::Identity),
            (Some("br; q=0.8 , gzip;q=0.8"), Encoding::Brotli),
            (Some("*"), Encoding::Brotli),
            (Some("*;q=0.5, br;q=0"), Encoding::Gzip),
            (Some("gzip;q=nonsense"), Encoding::Gzip),
            (Some("deflate"), Encoding::Identity),
        ] {
            assert_eq!(preferred(header), expected, "{header:?}");
        }
    }

    #[test]
    fn if_none_match_compares_weakly() {
        assert!(none_match_hits("\"abc\"", "\"abc\""));
        assert!(none_match_hits("W/\"abc\"", "\"abc\""));
        assert!(none_match_hits("\"x\", \"abc\"", "\"abc\""));
        assert!(none_match_hits("*", "\"abc\""));
        assert!(!none_match_hits("\"abc-br\"", "\"abc\""));
        assert!(!none_match_hits("", "\"abc\""));
    }

    #[test]
    fn encodings_name_their_tokens() {
        assert_eq!(Encoding::Identity.token(), None);
        assert_eq!(Encoding::Gzip.token(), Some("gzip"));
        assert_eq!(Encoding::Brotli.token(), Some("br"));
    }
}
