//! The browser client's static files (`static/`): where they come from, their version, the
//! modules each page preloads, and how `/static` serves them; also the compression of every
//! other text response.
//!
//! The files are built into the binary ([`embedded`]), so the server carries its whole client
//! and runs from any directory. `STATIC_DIR` (`--static-dir`) overrides that for development:
//! the files are then read from that directory on each request, so an edited script is
//! served without a rebuild (the version stays the one taken at start, so a browser sees the
//! edit on a reload that bypasses its cache).
//!
//! Once at start the server hashes every file's path and contents into a version
//! ([`version_of`]); the pages load their scripts and styles from `/static/<version>/…`,
//! served with `Cache-Control: public, max-age=31536000, immutable`, since a change to any
//! file changes the version and so every URL. The ES modules import each other by relative
//! paths, so every module a page loads lives under the same versioned prefix. The plain
//! `/static/…` still serves the same files, with `no-cache` (the browser asks again each time
//! and gets a 304 while the file is unchanged: by `ETag` for the built-in files, by
//! `Last-Modified` for `STATIC_DIR`'s). A version other than the current one is not found:
//! the pages (`no-store`) always name the current one.

mod embedded;
mod negotiate;

use axum::body::Body;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderValue, Response, StatusCode};
use axum::Router;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

/// Hex digits of the files' SHA-256 kept in the version: 64 bits, far more than enough to
/// tell one deployment's files from another's.
const VERSION_DIGITS: usize = 16;

/// For files under a versioned URL, which never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// For the plain `/static/…` URLs: use the copy only once the server says it is current.
const REVALIDATE: &str = "no-cache";

/// The static files by path (relative to the directory, with `/`), in path order, which
/// the version is taken in.
pub type Files = BTreeMap<String, Cow<'static, [u8]>>;

/// Where the static files come from, with what the pages need to name them.
#[derive(Clone, Debug)]
pub struct StaticFiles {
    /// `STATIC_DIR`: served from this directory; None: the copy built into the binary.
    dir: Option<PathBuf>,
    /// The version in the files' URLs ([`version_of`]).
    pub version: Arc<str>,
    /// The modules each module imports ([`module_preloads`]).
    pub preloads: Arc<Preloads>,
}

impl StaticFiles {
    /// The files of `dir` (`STATIC_DIR`) when given, else the built-in ones; their version
    /// and preloads are worked out here, once. The built-in ones are the same for every
    /// server of the process, so they are worked out (compressed copies included) once per
    /// process.
    pub fn load(dir: Option<&Path>) -> StaticFiles {
        match dir {
            Some(dir) => {
                let files = read_dir(dir);
                StaticFiles {
                    dir: Some(dir.to_path_buf()),
                    version: version_of(&files).into(),
                    preloads: Arc::new(module_preloads(&files)),
                }
            }
            None => {
                embedded::prepare();
                StaticFiles {
                    dir: None,
                    version: embedded::version(),
                    preloads: embedded::preloads(),
                }
            }
        }
    }

    /// `/static/<version>/…` (immutable) and `/static/…` (revalidated). The built-in files
    /// carry their own compressed copies; `STATIC_DIR`'s are compressed per request, as a
    /// developer's edits would make stored copies stale.
    pub fn router(&self) -> Router {
        let versioned = versioned_prefix(&self.version);
        match &self.dir {
            Some(dir) => Router::new()
                .nest_service(&versioned, dir_files(dir, IMMUTABLE))
                .nest_service("/static", dir_files(dir, REVALIDATE))
                .layer(compression()),
            None => Router::new()
                .nest_service(&versioned, embedded::router(IMMUTABLE))
                .nest_service("/static", embedded::router(REVALIDATE)),
        }
    }
}

/// The version of `files`: a hash of every file's path and contents, in path order.
pub fn version_of(files: &Files) -> String {
    let mut hasher = Sha256::new();
    for (relative, contents) in files {
        // Lengths keep `a` + `bc` apart from `ab` + `c`.
        hasher.update((relative.len() as u64).to_le_bytes());
        hasher.update(relative.as_bytes());
        hasher.update((contents.len() as u64).to_le_bytes());
        hasher.update(contents);
    }
    let mut version = hex::encode(hasher.finalize());
    version.truncate(VERSION_DIGITS);
    version
}

/// Every file under `dir` (`STATIC_DIR`). A missing or unreadable directory or file is left
/// out, and the log says so: its URLs then answer 404.
fn read_dir(dir: &Path) -> Files {
    let mut paths = Vec::new();
    collect_files(dir, dir, &mut paths);
    let mut files = Files::new();
    for (relative, path) in paths {
        match std::fs::read(&path) {
            Ok(contents) => {
                files.insert(relative, Cow::Owned(contents));
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), cause = %e, "cannot read a static file of STATIC_DIR")
            }
        }
    }
    files
}

/// Every file under `dir`, as (path relative to `root` with `/`, full path).
fn collect_files(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            tracing::warn!(dir = %dir.display(), cause = %e, "cannot read the static files of STATIC_DIR");
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

/// [`Preloads`] of `files`, worked out once at start as the version is. Only static imports
/// with relative specifiers (`from './x.js'`, `import '../y.js'`) count: they are all the
/// client uses. A file that is not UTF-8 imports nothing.
pub fn module_preloads(files: &Files) -> Preloads {
    let direct: HashMap<&str, Vec<String>> = files
        .iter()
        .filter(|(relative, _)| relative.ends_with(".js"))
        .map(|(relative, contents)| {
            let text = std::str::from_utf8(contents).unwrap_or_default();
            (relative.as_str(), relative_imports(relative, text))
        })
        .collect();
    direct
        .keys()
        .map(|&module| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![module];
            while let Some(next) = stack.pop() {
                for import in direct.get(next).into_iter().flatten() {
                    if import != module && seen.insert(import.clone()) {
                        stack.push(import);
                    }
                }
            }
            (module.to_string(), seen.into_iter().collect())
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

/// `dir`'s files (`STATIC_DIR`) with `cache_control` on every answer that carries one (200,
/// 206, 304): never on a 404, which must not be cached for a year. A missing file, or a method
/// other than GET or HEAD, is answered as any path no route serves (`web::fallback`), not
/// with `ServeDir`'s empty 404 and 405.
fn dir_files(dir: &Path, cache_control: &'static str) -> Router {
    Router::new()
        .fallback_service(
            ServeDir::new(dir)
                .call_fallback_on_method_not_allowed(true)
                .fallback(super::fallback::StaticMiss),
        )
        .layer(cache_control_layer(cache_control))
}

/// Sets `cache_control` on the answers that carry a file or say it is unchanged.
fn cache_control_layer(
    cache_control: &'static str,
) -> SetResponseHeaderLayer<impl Fn(&Response<Body>) -> Option<HeaderValue> + Clone> {
    let header = move |response: &Response<Body>| {
        let status = response.status();
        (status.is_success() || status == StatusCode::NOT_MODIFIED)
            .then(|| HeaderValue::from_static(cache_control))
    };
    SetResponseHeaderLayer::overriding(CACHE_CONTROL, header)
}

/// Compresses responses with brotli or gzip, as the client accepts: text (pages, JSON,
/// metrics, `STATIC_DIR`'s files), not images or bodies too small to gain, and never a
/// WebSocket upgrade, whose 101 answer has no body to compress and must not claim an
/// encoding. The built-in static files are outside it: they carry their own compressed
/// copies ([`embedded`]).
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

    /// The version of `STATIC_DIR`'s files as the server works it out at start.
    fn version_of_dir(dir: &Path) -> String {
        version_of(&read_dir(dir))
    }

    #[test]
    fn the_version_follows_every_file() {
        let dir = temp_dir();
        let write = |name: &str, text: &str| {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{e}"))
        };
        write("a.js", "export const a = 1;");
        write("sub/b.js", "import './../a.js';");
        let first = version_of_dir(&dir);
        assert_eq!(first.len(), VERSION_DIGITS);
        assert_eq!(first, version_of_dir(&dir), "stable");
        write("sub/b.js", "import '../a.js';");
        let second = version_of_dir(&dir);
        assert_ne!(first, second, "a change in a subdirectory");
        write("c.css", "");
        assert_ne!(second, version_of_dir(&dir), "a new empty file");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            version_of_dir(&dir).len(),
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
        let preloads = module_preloads(&read_dir(&dir));
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
