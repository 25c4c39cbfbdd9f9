//! The server's settings: one plain struct, read from the command line with clap, each
//! setting falling back to its environment variable and then to its default.
//!
//! | flag | variable | default |
//! | --- | --- | --- |
//! | `--bind` | `BIND_ADDR` | `0.0.0.0:8080` |
//! | `--database-url` | `DATABASE_URL` | `postgres://postgres@localhost:5432/oddboard` |
//! | `--static-dir` | `STATIC_DIR` | `static` |
//! | | `RUST_LOG` | `info` (read by [`crate::telemetry`]) |
//!
//! A new setting is one more field with its `#[arg(long, env = "…")]` attribute (and its
//! default in `impl Default`); `docs/operations.md` lists them all. An empty variable counts
//! as unset (`crate::command::unset_empty_settings`).

use std::fmt;
use std::path::PathBuf;

pub const DEFAULT_BIND: &str = "0.0.0.0:8080";
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@localhost:5432/oddboard";
pub const DEFAULT_STATIC_DIR: &str = "static";

#[derive(Clone, clap::Args)]
pub struct Config {
    /// Address and port the server listens on.
    #[arg(long = "bind", env = "BIND_ADDR", default_value = DEFAULT_BIND, value_name = "ADDR")]
    pub bind_addr: String,
    /// PostgreSQL URL; the database is created if missing and migrated at start.
    // `hide_env_values`: `--help` must not print a password taken from the environment.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL, value_name = "URL",
          hide_env_values = true)]
    pub database_url: String,
    /// Directory of the browser client's scripts and styles.
    #[arg(long, env = "STATIC_DIR", default_value = DEFAULT_STATIC_DIR, value_name = "DIR")]
    pub static_dir: PathBuf,
}

impl Default for Config {
    /// The defaults of the table above, without reading the environment (tests start here
    /// and change what they need).
    fn default() -> Config {
        Config {
            bind_addr: DEFAULT_BIND.to_string(),
            database_url: DEFAULT_DATABASE_URL.to_string(),
            static_dir: PathBuf::from(DEFAULT_STATIC_DIR),
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
