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
use std::collections::{BTreeSet, HashMap};
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

/// Each ES module of the static files with every module it imports, directly or through
/// others (paths relative to the directory, with `/`, sorted). A page names these in
/// `<link rel="modulepreload">` beside its module, so the browser fetches the whole import
/// tree at once instead of one level per round trip (on a phone's network, each level costs
/// hundreds of milliseconds before the page can open its socket).
pub type Preloads = HashMap<String, Vec<String>>;

/// [`Preloads`] of the files under `dir`, read once at start as the version is. Only static
/// imports with relative specifiers (`from './x.js'`, `import '../y.js'`) count: they are
/// all the client uses. A file that cannot be read imports nothing.
pub fn module_preloads(dir: &Path) -> Preloads {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files);
    let direct: HashMap<String, Vec<String>> = files
        .iter()
        .filter(|(relative, _)| relative.ends_with(".js"))
        .map(|(relative, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            (relative.clone(), relative_imports(relative, &text))
        })
        .collect();
    direct
        .keys()
        .map(|module| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![module.as_str()];
            while let Some(next) = stack.pop() {
                for import in direct.get(next).into_iter().flatten() {
                    if import != module && seen.insert(import.clone()) {
                        stack.push(import);
                    }
                }
            }
            (module.clone(), seen.into_iter().collect())
        })
        .collect()
}

/// The modules `text` (the module at `relative`) imports statically, resolved to paths
/// relative to the static directory; specifiers that leave it are dropped.
fn relative_imports(relative: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for keyword in ["from", "import"] {
        let mut rest = text;
        while let Some(at) = rest.find(keyword) {
            rest = &rest[at + keyword.len()..];
            let after = rest.trim_start();
            let Some(quote) = after.chars().next().filter(|c| *c == '\'' || *c == '"') else {
                continue;
            };
            let Some(end) = after[1..].find(quote) else {
                continue;
            };
            let specifier = &after[1..1 + end];
            if specifier.starts_with("./") || specifier.starts_with("../") {
                if let Some(path) = resolve(relative, specifier) {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// `specifier` resolved against the directory of `relative`, or None when it climbs out.
fn resolve(relative: &str, specifier: &str) -> Option<String> {
    let mut parts: Vec<&str> = relative.split('/').collect();
    parts.pop();
    for part in specifier.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
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

    #[test]
    fn preloads_follow_every_relative_static_import() {
        let dir = temp_dir();
        std::fs::create_dir_all(dir.join("game")).unwrap_or_else(|e| panic!("{e}"));
        let write = |name: &str, text: &str| {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{e}"))
        };
        write(
            "game.js",
            "import { a } from './common.js';\nimport './game/chat.js';\n// from 'x'\nconst m = import('./lazy.js');",
        );
        write("common.js", "export const a = 1;");
        write(
            "game/chat.js",
            "export { a } from \"../common.js\";\nimport '../../outside.js';\nimport './sound.js';",
        );
        write("game/sound.js", "import './chat.js';");
        write("lobby.js", "import { a } from './common.js';");
        write("style.css", "@import './x.css';");
        let preloads = module_preloads(&dir);
        assert_eq!(
            preloads["game.js"],
            ["common.js", "game/chat.js", "game/sound.js"],
            "through game/chat.js, without the dynamic import or the one leaving the directory"
        );
        assert_eq!(
            preloads["game/sound.js"],
            ["common.js", "game/chat.js"],
            "a cycle"
        );
        assert_eq!(preloads["common.js"], Vec::<String>::new());
        assert!(!preloads.contains_key("style.css"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
