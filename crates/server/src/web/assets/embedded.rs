//! The static files built into the binary (`static/` as it was at build time), their version
//! and preloads, each text file's brotli and gzip copies, and the answers `/static` gives from
//! them.
//!
//! Everything here is worked out once per process, the first time a server is built: the
//! compressed copies too, so no request compresses a file. Each copy has its own strong
//! `ETag` (the contents' hash, with `-br` or `-gzip` for a compressed copy), which
//! `If-None-Match` is checked against for a 304. Every answer of a compressible file says
//! `Vary: Accept-Encoding`, so caches keep the copies apart.

use super::negotiate::{self, Encoding};
use super::{cache_control_layer, module_preloads, version_of, Files, Preloads};
use crate::web::fallback::static_miss;
use axum::body::{Body, Bytes};
use axum::http::header::{
    ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use include_dir::{include_dir, Dir, File};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, LazyLock};

/// `static/` at build time. include_dir embeds in debug builds as in release ones, so the
/// tests serve exactly what a release binary serves. `build.rs` makes cargo rebuild when a
/// file is added (the macro alone notices only changes to the files it saw).
static CLIENT: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/static");

/// Brotli's quality: 9, the last before its slow modes. For the whole client in a debug
/// build, 10 and 11 took 9 and 16 times as long (up to ten seconds, which every test process
/// would pay) for 6% and 9% less; 9 took 0.6 s, about as long as 5 for a slightly better
/// result.
const BROTLI_QUALITY: i32 = 9;
/// Brotli's window (log2 of its bytes): 4 MiB, more than any of the files.
const BROTLI_WINDOW: i32 = 22;
/// Hex digits of a file's SHA-256 in its `ETag`.
const TAG_DIGITS: usize = 16;

/// Everything worked out from the built-in files, once per process.
static EMBEDDED: LazyLock<Embedded> = LazyLock::new(Embedded::new);

struct Embedded {
    /// By path relative to `static/`, with `/`.
    files: HashMap<String, EmbeddedFile>,
    version: Arc<str>,
    preloads: Arc<Preloads>,
}

struct EmbeddedFile {
    contents: &'static [u8],
    content_type: HeaderValue,
    /// Text (scripts, styles, SVG, JSON): worth compressing.
    compressible: bool,
    /// The contents' hash, the stem of each copy's `ETag`.
    hash: String,
    /// The compressed copies; None when compressing did not make the file smaller.
    brotli: Option<Bytes>,
    gzip: Option<Bytes>,
}

impl Embedded {
    fn new() -> Embedded {
        let mut all = Vec::new();
        every_file(&CLIENT, &mut all);
        let listing: Files = all
            .iter()
            .map(|file| (relative_path(file), Cow::Borrowed(file.contents())))
            .collect();
        let files = all
            .iter()
            .map(|file| (relative_path(file), EmbeddedFile::new(file)))
            .collect();
        Embedded {
            files,
            version: version_of(&listing).into(),
            preloads: Arc::new(module_preloads(&listing)),
        }
    }
}

/// Every file under `dir`, subdirectories included.
fn every_file(dir: &'static Dir<'static>, files: &mut Vec<&'static File<'static>>) {
    files.extend(dir.files());
    for sub in dir.dirs() {
        every_file(sub, files);
    }
}

/// A file's path relative to `static/`, with `/` (the key its URL is looked up by).
fn relative_path(file: &File<'_>) -> String {
    file.path()
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

impl EmbeddedFile {
    fn new(file: &'static File<'static>) -> EmbeddedFile {
        // The types `ServeDir` gives the same files from `STATIC_DIR`.
        let content_type = mime_guess::from_path(file.path())
            .first_raw()
            .unwrap_or("application/octet-stream");
        let compressible = content_type.starts_with("text/")
            || ["javascript", "json", "xml", "svg"]
                .iter()
                .any(|kind| content_type.contains(kind));
        let mut hash = hex::encode(Sha256::digest(file.contents()));
        hash.truncate(TAG_DIGITS);
        let copy = |encoding| {
            compressible
                .then(|| compress(encoding, file.contents()))
                .flatten()
        };
        EmbeddedFile {
            contents: file.contents(),
            content_type: HeaderValue::from_str(content_type)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            compressible,
            hash,
            brotli: copy(Encoding::Brotli),
            gzip: copy(Encoding::Gzip),
        }
    }

    /// The body to send to a client that wants `wanted`, and the encoding it is in: the
    /// file as it is when that copy does not pay.
    fn body(&self, wanted: Encoding) -> (Encoding, Bytes) {
        let copy = match wanted {
            Encoding::Identity => None,
            Encoding::Gzip => self.gzip.clone(),
            Encoding::Brotli => self.brotli.clone(),
        };
        match copy {
            Some(bytes) => (wanted, bytes),
            None => (Encoding::Identity, Bytes::from_static(self.contents)),
        }
    }

    /// The `ETag` of the copy in `encoding`: each copy is its own representation.
    fn etag(&self, encoding: Encoding) -> String {
        match encoding.token() {
            Some(token) => format!("\"{}-{token}\"", self.hash),
            None => format!("\"{}\"", self.hash),
        }
    }
}

/// `contents` compressed with `encoding`, or None when that fails or does not make it smaller.
fn compress(encoding: Encoding, contents: &[u8]) -> Option<Bytes> {
    let compressed = match encoding {
        Encoding::Identity => None,
        Encoding::Brotli => {
            let params = brotli::enc::BrotliEncoderParams {
                quality: BROTLI_QUALITY,
                lgwin: BROTLI_WINDOW,
                size_hint: contents.len(),
                ..Default::default()
            };
            let mut out = Vec::new();
            brotli::BrotliCompress(&mut &contents[..], &mut out, &params)
                .ok()
                .map(|_| out)
        }
        Encoding::Gzip => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            encoder
                .write_all(contents)
                .and_then(|()| encoder.finish())
                .ok()
        }
    };
    compressed
        .filter(|out| out.len() < contents.len())
        .map(Bytes::from)
}

/// The built-in files' version ([`super::version_of`]).
pub fn version() -> Arc<str> {
    EMBEDDED.version.clone()
}

/// The built-in modules' preloads ([`super::module_preloads`]).
pub fn preloads() -> Arc<Preloads> {
    EMBEDDED.preloads.clone()
}

/// Works out everything about the built-in files now, rather than at the first request
/// (the compressed copies take a moment: under a second in a debug build, far less in a
/// release one). Later calls find it done.
pub fn prepare() {
    LazyLock::force(&EMBEDDED);
}

/// The built-in files with `cache_control` on every answer that carries one (200, 304).
pub fn router(cache_control: &'static str) -> Router {
    Router::new()
        .fallback(serve)
        .layer(cache_control_layer(cache_control))
}

/// One file (the path is what follows the `/static` or `/static/<version>` prefix), in the
/// best encoding the client accepts, or 304 when the client's copy is that one.
async fn serve(method: Method, uri: Uri, request_headers: HeaderMap) -> Response {
    if !matches!(method, Method::GET | Method::HEAD) {
        return static_miss(&method);
    }
    let Some(file) = EMBEDDED.files.get(uri.path().trim_start_matches('/')) else {
        return static_miss(&method);
    };
    let header = |name| {
        request_headers
            .get(name)
            .and_then(|value: &HeaderValue| value.to_str().ok())
    };
    let wanted = if file.compressible {
        negotiate::preferred(header(ACCEPT_ENCODING))
    } else {
        Encoding::Identity
    };
    let (encoding, body) = file.body(wanted);
    let etag = file.etag(encoding);
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(ETAG, value);
    }
    if file.compressible {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    if header(IF_NONE_MATCH).is_some_and(|tags| negotiate::none_match_hits(tags, &etag)) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    headers.insert(CONTENT_TYPE, file.content_type.clone());
    if let Some(token) = encoding.token() {
        headers.insert(CONTENT_ENCODING, HeaderValue::from_static(token));
    }
    (headers, Body::from(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_built_in_with_its_modules() {
        let files = &EMBEDDED.files;
        for path in [
            "lobby.js",
            "game.js",
            "common.js",
            "style.css",
            "game/chat.js",
        ] {
            let file = files.get(path).unwrap_or_else(|| panic!("{path} missing"));
            assert!(!file.contents.is_empty(), "{path}");
            assert!(file.compressible, "{path}");
        }
        assert_eq!(
            files["lobby.js"].content_type,
            mime_guess::from_path("lobby.js")
                .first_raw()
                .unwrap_or_default()
        );
        assert_eq!(files["style.css"].content_type, "text/css");
        assert_eq!(EMBEDDED.version.len(), super::super::VERSION_DIGITS);
        assert!(EMBEDDED.preloads["game.js"]
            .iter()
            .any(|m| m == "common.js"));
    }

    #[test]
    fn compressed_copies_are_smaller_and_decode_to_the_file() {
        use std::io::Read;
        let file = &EMBEDDED.files["board.js"];
        let (Some(brotli), Some(gzip)) = (&file.brotli, &file.gzip) else {
            panic!("no compressed copies");
        };
        assert!(brotli.len() < gzip.len() && gzip.len() < file.contents.len());
        let mut decoded = Vec::new();
        brotli::Decompressor::new(&brotli[..], 4096)
            .read_to_end(&mut decoded)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(decoded, file.contents);
        decoded.clear();
        flate2::read::GzDecoder::new(&gzip[..])
            .read_to_end(&mut decoded)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(decoded, file.contents);
        assert_eq!(
            file.body(Encoding::Brotli),
            (Encoding::Brotli, brotli.clone())
        );
        assert_eq!(file.body(Encoding::Identity).0, Encoding::Identity);
        assert_eq!(compress(Encoding::Gzip, b"x"), None, "no smaller");
        let tiny = compress(Encoding::Brotli, b"x");
        assert_eq!(tiny, None, "no smaller");
    }

    #[test]
    fn each_copy_has_its_own_etag() {
        let file = &EMBEDDED.files["board.js"];
        let tags = [Encoding::Identity, Encoding::Gzip, Encoding::Brotli].map(|e| file.etag(e));
        assert_eq!(tags[0], format!("\"{}\"", file.hash));
        assert_eq!(tags[2], format!("\"{}-br\"", file.hash));
        assert!(tags[0] != tags[1] && tags[1] != tags[2]);
    }
}
