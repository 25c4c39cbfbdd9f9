//! Server configuration from the environment (and `--bind` on the command line).
//!
//! | variable | default |
//! | --- | --- |
//! | `BIND_ADDR` | `0.0.0.0:8080` |
//! | `DATABASE_URL` | `postgres://postgres@localhost:5432/oddboard` |
//! | `STATIC_DIR` | `static` |
//! | `RUST_LOG` | `info` (read by [`crate::telemetry`]) |

use std::fmt;
use std::path::PathBuf;

pub const DEFAULT_BIND: &str = "0.0.0.0:8080";
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@localhost:5432/oddboard";

#[derive(Clone)]
pub struct Config {
    pub bind_addr: String,
    pub database_url: String,
    pub static_dir: PathBuf,
}

impl Default for Config {
    /// The defaults of the table above, without reading the environment (tests start here
    /// and change what they need).
    fn default() -> Config {
        Config {
            bind_addr: DEFAULT_BIND.to_string(),
            database_url: DEFAULT_DATABASE_URL.to_string(),
            static_dir: PathBuf::from("static"),
        }
    }
}

impl Config {
    /// Reads the environment; `bind_override` (from `--bind`) wins over `BIND_ADDR`.
    pub fn from_env(bind_override: Option<String>) -> Config {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Config {
            bind_addr: bind_override
                .or_else(|| var("BIND_ADDR"))
                .unwrap_or_else(|| DEFAULT_BIND.to_string()),
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string()),
            static_dir: var("STATIC_DIR").map_or_else(|| PathBuf::from("static"), PathBuf::from),
        }
    }
}

/// The URL without its password, for logs and error messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("bind_addr", &self.bind_addr)
            .field("database_url", &redact_url(&self.database_url))
            .field("static_dir", &self.static_dir)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("postgres://app:secret@db:5432/oddboard"),
            "postgres://app:***@db:5432/oddboard"
        );
        assert_eq!(redact_url(DEFAULT_DATABASE_URL), DEFAULT_DATABASE_URL);
    }
}
