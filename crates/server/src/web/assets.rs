//! The browser client's static files (`static/`), their cache headers and the compression
//! of every text response.
//!
//! At start the server hashes the whole directory into a version ([`version_of`]); the pages
//! load their scripts and styles from `/static/<version>/…`, served with
//! `Cache-Control: public, max-age=31536000, immutable`, since a change to any file changes
//! the version and so every URL. The ES modules import each other by relative paths, so
//! every module a page loads lives under the same versioned prefix. The plain `/static/…`
//! still serves the same files, with `no-cache` (the browser asks again each time and gets a
//! 304 while the file is unchanged). A version other than the current one is not found: the
//! pages (`no-store`) always name the current one.

use axum::body::Body;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, Response, StatusCode};
use axum::Router;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

/// Hex digits of the directory's SHA-256 kept in the version: 64 bits, far more than
/// enough to tell one deployment's files from another's.
const VERSION_DIGITS: usize = 16;

/// For files under a versioned URL, which never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// For the plain `/static/…` URLs: use the copy only once the server says it is current.
const REVALIDATE: &str = "no-cache";

/// The version of the files under `dir`: a hash of every file's path (relative, with `/`)
/// and contents, in path order. A missing or unreadable directory hashes as empty (the
/// files then 404 anyway, and the log says why at start).
pub fn version_of(dir: &Path) -> String {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files);
    files.sort();
    let mut hasher = Sha256::new();
    for (relative, path) in &files {
        match std::fs::read(path) {
            Ok(contents) => {
                // Lengths keep `a` + `bc` apart from `ab` + `c`.
                hasher.update((relative.len() as u64).to_le_bytes());
                hasher.update(relative.as_bytes());
                hasher.update((contents.len() as u64).to_le_bytes());
                hasher.update(&contents);
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), cause = %e, "cannot read a static file")
            }
        }
    }
    let mut version = hex::encode(hasher.finalize());
    version.truncate(VERSION_DIGITS);
    version
}

/// Every file under `dir`, as (path relative to `root` with `/`, full path).
fn collect_files(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            tracing::warn!(dir = %dir.display(), cause = %e, "cannot read the static files");
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect_files(root, &path, files),
            Ok(kind) if kind.is_file() => {
                let relative = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                files.push((relative, path));
            }
            _ => {}
        }
    }
}

/// The URL prefix of the files of this version, which the pages use.
pub fn versioned_prefix(version: &str) -> String {
    format!("/static/{version}")
}

/// `dir`'s files with `cache_control` on every answer that carries one (200, 206, 304):
/// never on a 404, which must not be cached for a year. A missing file, or a method other than
/// GET or HEAD, is answered as any path no route serves (`web::fallback`), not with
/// `ServeDir`'s empty 404 and 405.
fn files(dir: &Path, cache_control: &'static str) -> Router {
    let header = move |response: &Response<Body>| {
        let status = response.status();
        (status.is_success() || status == StatusCode::NOT_MODIFIED)
            .then(|| HeaderValue::from_static(cache_control))
    };
    Router::new()
        .fallback_service(
            ServeDir::new(dir)
                .call_fallback_on_method_not_allowed(true)
                .fallback(super::fallback::StaticMiss),
        )
        .layer(SetResponseHeaderLayer::overriding(CACHE_CONTROL, header))
}

/// `/static/<version>/…` (immutable) and `/static/…` (revalidated), both from `dir`.
pub fn router(dir: &Path, version: &str) -> Router {
    Router::new()
        .nest_service(&versioned_prefix(version), files(dir, IMMUTABLE))
        .nest_service("/static", files(dir, REVALIDATE))
}

/// Compresses responses with brotli or gzip, as the client accepts: text (pages, scripts,
/// JSON, metrics), not images or bodies too small to gain, and never a WebSocket upgrade,
/// whose 101 answer has no body to compress and must not claim an encoding.
pub fn compression() -> CompressionLayer<impl Predicate> {
    let not_upgrades =
        |status: StatusCode,
         _: axum::http::Version,
         _: &axum::http::HeaderMap,
         _: &axum::http::Extensions| { status != StatusCode::SWITCHING_PROTOCOLS };
    CompressionLayer::new().compress_when(DefaultPredicate::new().and(not_upgrades))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("oddboard-assets-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(dir.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn the_version_follows_every_file() {
        let dir = temp_dir();
        let write = |name: &str, text: &str| {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{e}"))
        };
        write("a.js", "export const a = 1;");
        write("sub/b.js", "import './../a.js';");
        let first = version_of(&dir);
        assert_eq!(first.len(), VERSION_DIGITS);
        assert_eq!(first, version_of(&dir), "stable");
        write("sub/b.js", "import '../a.js';");
        let second = version_of(&dir);
        assert_ne!(first, second, "a change in a subdirectory");
        write("c.css", "");
        assert_ne!(second, version_of(&dir), "a new empty file");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            version_of(&dir).len(),
            VERSION_DIGITS,
            "a missing directory"
        );
    }
}
