//! The server's settings: one plain struct, read from the command line with clap, each
//! setting falling back to its environment variable and then to its default.
//!
//! | flag | variable | default |
//! | --- | --- | --- |
//! | `--bind` | `BIND_ADDR` | `0.0.0.0:8080` |
//! | `--database-url` | `DATABASE_URL` | `postgres://postgres@localhost:5432/oddboard` |
//! | `--static-dir` | `STATIC_DIR` | none: the browser client built into the binary |
//! | | `RUST_LOG` | `info` (read by [`crate::telemetry`]) |
//! | `--public-url` | `PUBLIC_URL` | none: the URL people reach the site at, e.g. `https://chess.example.org` |
//! | `--trusted-proxies` | `TRUSTED_PROXIES` | `127.0.0.0/8,::1`: addresses or CIDRs whose `X-Forwarded-*` headers count (`none`: nobody's) |
//! | `--rate-limit-exempt` | `RATE_LIMIT_EXEMPT` | `127.0.0.0/8,::1`: client addresses no rate limit applies to (`none`: none) |
//! | `--rate-limit-guests` | `RATE_LIMIT_GUESTS` | `30/1h`: guest accounts per client address |
//! | `--rate-limit-registrations` | `RATE_LIMIT_REGISTRATIONS` | `10/1h`: registrations per client address |
//! | `--rate-limit-logins` | `RATE_LIMIT_LOGINS` | `40/10m`: login attempts per client address |
//! | `--rate-limit-login-failures` | `RATE_LIMIT_LOGIN_FAILURES` | `5`: wrong passwords for one username before its back-off |
//! | `--rate-limit-games` | `RATE_LIMIT_GAMES` | `60/10m`: games and challenges created per client address |
//! | `--rate-limit-lobby` | `RATE_LIMIT_LOBBY` | `120/1m`: lobby commands per client address (HTTP and socket) |
//! | `--rate-limit-game-frames` | `RATE_LIMIT_GAME_FRAMES` | `60/10s`: frames per `/ws/game/{id}` socket |
//! | `--rate-limit-mux-frames` | `RATE_LIMIT_MUX_FRAMES` | `1000/10s`: frames per multiplexed `/ws/games` socket |
//! | `--rate-limit-lobby-frames` | `RATE_LIMIT_LOBBY_FRAMES` | `60/10s`: frames per `/ws/lobby` socket |
//! | `--rate-limit-sockets` | `RATE_LIMIT_SOCKETS` | `100`: WebSockets open at once per client address |
//! | `--engine-threads` | `ENGINE_THREADS` | one per core: threads the computer's searches and analyses run on |
//!
//! A rate is `N/PERIOD`: a burst of N at once, and N again over each PERIOD (`30s`, `10m`,
//! `1h`, as `humantime` reads them), one every PERIOD/N. `docs/operations.md` ("Behind a
//! reverse proxy", "Rate limits") says what each one is for. A value that does not parse stops
//! the server at start with the setting's name, rather than running with a limit nobody set.
//!
//! A new setting is one more field with its `#[arg(long, env = "…")]` attribute (and its
//! default in `impl Default`, which a test holds to clap's); `docs/operations.md` lists them
//! all. An empty variable counts as unset (`crate::command::unset_empty_settings`).

use ipnet::IpNet;
use std::fmt;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

pub const DEFAULT_BIND: &str = "0.0.0.0:8080";
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@localhost:5432/oddboard";
/// The machine itself: the default trusted proxy, and the default exempt from rate limits.
const LOOPBACK: &str = "127.0.0.0/8,::1";

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
    /// For development: serve the browser client's scripts and styles from this directory
    /// (`crates/server/static`) instead of the copy built into the binary, read at each
    /// request, so an edited file is served without a rebuild. Unset: the built-in copy.
    #[arg(long, env = "STATIC_DIR", value_name = "DIR")]
    pub static_dir: Option<PathBuf>,
    /// Where people reach the site (fixes the expected Origin; https also makes the session
    /// cookie Secure and turns on HSTS). Unset: wherever each request's `Host` says.
    #[arg(long, env = "PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<PublicUrl>,
    /// Peers whose `X-Forwarded-For`, `-Proto` and `-Host` are believed (addresses or CIDRs,
    /// comma-separated, or `none`).
    // The full path keeps clap from reading the list as repeated flags: one value is the list.
    #[arg(long, env = "TRUSTED_PROXIES", default_value = LOOPBACK, value_name = "CIDRS",
          value_parser = parse_networks)]
    pub trusted_proxies: ::std::vec::Vec<IpNet>,
    #[command(flatten)]
    pub rate_limits: RateLimits,
    /// Worker processes the computer's searches and game analyses run in (each in a session
    /// of its own at the lowest priority, so they take only CPU nothing else wants). Unset:
    /// one per core.
    #[arg(long, env = "ENGINE_THREADS", value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub engine_threads: Option<u16>,
    /// Several nodes (docs/operations.md, "Several nodes"): the NATS server (with JetStream)
    /// the nodes share. Unset: this node runs alone, as one server always did.
    #[arg(long, env = "NATS_URL", value_name = "URL")]
    pub nats_url: Option<String>,
    /// This node's name among several (letters, digits, `-`). Unset: the host's name and a
    /// random suffix, new at each start.
    #[arg(long, env = "NODE_ID", value_name = "NAME", value_parser = parse_node_id)]
    pub node_id: Option<String>,
}

/// A node id: 1 to 64 letters, digits or `-`, as it goes into NATS subjects and keys.
fn parse_node_id(text: &str) -> Result<String, String> {
    let ok = !text.is_empty()
        && text.len() <= 64
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "`{text}`: a node id is 1 to 64 letters, digits or `-`"
        ))
    }
}

/// The rate limits (see the module header for the flags, variables and defaults).
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct RateLimits {
    /// Client addresses no limit applies to: by default the machine itself, whose clients
    /// are its operator's (the load tool opens thousands of games from one address).
    #[arg(long = "rate-limit-exempt", env = "RATE_LIMIT_EXEMPT", default_value = LOOPBACK,
          value_name = "CIDRS", value_parser = parse_networks)]
    pub exempt: ::std::vec::Vec<IpNet>,
    /// Guest accounts per client address (N/PERIOD).
    #[arg(
        long = "rate-limit-guests",
        env = "RATE_LIMIT_GUESTS",
        default_value = "30/1h",
        value_name = "RATE"
    )]
    pub guests: Rate,
    /// Registrations per client address.
    #[arg(
        long = "rate-limit-registrations",
        env = "RATE_LIMIT_REGISTRATIONS",
        default_value = "10/1h",
        value_name = "RATE"
    )]
    pub registrations: Rate,
    /// Login attempts per client address.
    #[arg(
        long = "rate-limit-logins",
        env = "RATE_LIMIT_LOGINS",
        default_value = "40/10m",
        value_name = "RATE"
    )]
    pub logins: Rate,
    /// Wrong passwords in a row for one username before each further attempt must wait,
    /// twice as long each time.
    #[arg(
        long = "rate-limit-login-failures",
        env = "RATE_LIMIT_LOGIN_FAILURES",
        default_value_t = 5,
        value_name = "N"
    )]
    pub login_failures: u32,
    /// `POST /api/games`, and the lobby's `seek` and `match`, per client address.
    #[arg(
        long = "rate-limit-games",
        env = "RATE_LIMIT_GAMES",
        default_value = "60/10m",
        value_name = "RATE"
    )]
    pub games: Rate,
    /// Lobby commands per client address (HTTP and socket).
    #[arg(
        long = "rate-limit-lobby",
        env = "RATE_LIMIT_LOBBY",
        default_value = "120/1m",
        value_name = "RATE"
    )]
    pub lobby_commands: Rate,
    /// Frames per `/ws/game/{id}` socket.
    #[arg(
        long = "rate-limit-game-frames",
        env = "RATE_LIMIT_GAME_FRAMES",
        default_value = "60/10s",
        value_name = "RATE"
    )]
    pub game_frames: Rate,
    /// Frames per multiplexed `/ws/games` socket.
    #[arg(
        long = "rate-limit-mux-frames",
        env = "RATE_LIMIT_MUX_FRAMES",
        default_value = "1000/10s",
        value_name = "RATE"
    )]
    pub mux_frames: Rate,
    /// Frames per `/ws/lobby` socket.
    #[arg(
        long = "rate-limit-lobby-frames",
        env = "RATE_LIMIT_LOBBY_FRAMES",
        default_value = "60/10s",
        value_name = "RATE"
    )]
    pub lobby_frames: Rate,
    /// WebSockets open at once per client address.
    #[arg(
        long = "rate-limit-sockets",
        env = "RATE_LIMIT_SOCKETS",
        default_value_t = 100,
        value_name = "N"
    )]
    pub sockets_per_address: u32,
}

impl Default for RateLimits {
    fn default() -> RateLimits {
        let rate = |count: u32, per_seconds: u64| Rate {
            count: NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN),
            per: Duration::from_secs(per_seconds),
        };
        RateLimits {
            exempt: loopback(),
            guests: rate(30, 3600),
            registrations: rate(10, 3600),
            logins: rate(40, 600),
            login_failures: 5,
            games: rate(60, 600),
            lobby_commands: rate(120, 60),
            game_frames: rate(60, 10),
            mux_frames: rate(1000, 10),
            lobby_frames: rate(60, 10),
            sockets_per_address: 100,
        }
    }
}

/// `127.0.0.0/8` and `::1`.
fn loopback() -> Vec<IpNet> {
    vec![
        IpNet::V4(ipnet::Ipv4Net::new_assert(
            std::net::Ipv4Addr::new(127, 0, 0, 0),
            8,
        )),
        IpNet::from(IpAddr::from(std::net::Ipv6Addr::LOCALHOST)),
    ]
}

/// A rate: a burst of `count` at once, then `count` more over each `per` (`N/PERIOD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub count: NonZeroU32,
    pub per: Duration,
}

impl Rate {
    /// How long one unit of the allowance takes to come back.
    pub fn replenish_interval(&self) -> Duration {
        self.per / self.count.get()
    }
}

impl FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Rate, String> {
        let (count, per) = text
            .split_once('/')
            .ok_or_else(|| format!("`{text}` is not N/PERIOD (e.g. 30/10m)"))?;
        let count = count
            .trim()
            .parse::<NonZeroU32>()
            .map_err(|_| format!("`{count}` is not a positive whole number"))?;
        let per = humantime::parse_duration(per.trim())
            .map_err(|e| format!("`{per}` is not a period (e.g. 30s, 10m, 1h): {e}"))?;
        let rate = Rate { count, per };
        if rate.replenish_interval().is_zero() {
            return Err(format!("`{text}` is faster than the clock can count"));
        }
        Ok(rate)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.count, humantime::format_duration(self.per))
    }
}

/// The site's public URL: an `http` or `https` origin, nothing after the host but `/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicUrl {
    /// `scheme://host[:port]`, the port only when it is not the scheme's default: what
    /// browsers send as `Origin`.
    origin: String,
    https: bool,
}

impl PublicUrl {
    /// What browsers on the site's pages send as `Origin`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn is_https(&self) -> bool {
        self.https
    }
}

impl FromStr for PublicUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<PublicUrl, String> {
        let url = url::Url::parse(text.trim()).map_err(|e| format!("`{text}`: {e}"))?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            other => {
                return Err(format!(
                    "`{text}`: the scheme is {other}, not http or https"
                ))
            }
        };
        if url.host_str().is_none() || url.path() != "/" || url.query().is_some() {
            return Err(format!(
                "`{text}` is not a site's root URL (scheme://host[:port])"
            ));
        }
        Ok(PublicUrl {
            origin: url.origin().ascii_serialization(),
            https,
        })
    }
}

/// A comma-separated list of addresses and CIDRs (`10.0.0.0/8, 192.0.2.7, ::1`), or `none`
/// (an empty variable counts as unset, so it cannot say none).
///
/// # Errors
/// An entry that is neither, named.
pub fn parse_networks(text: &str) -> Result<Vec<IpNet>, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            entry
                .parse::<IpNet>()
                .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("`{entry}` is not an address or a CIDR"))
        })
        .collect()
}

impl Default for Config {
    /// The defaults of the table above, without reading the environment (tests start here
    /// and change what they need).
    fn default() -> Config {
        Config {
            bind_addr: DEFAULT_BIND.to_string(),
            database_url: DEFAULT_DATABASE_URL.to_string(),
            static_dir: None,
            public_url: None,
            trusted_proxies: loopback(),
            rate_limits: RateLimits::default(),
            engine_threads: None,
            nats_url: None,
            node_id: None,
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
            .field("public_url", &self.public_url)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("rate_limits", &self.rate_limits)
            .field("nats_url", &self.nats_url.as_deref().map(redact_url))
            .field("node_id", &self.node_id)
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

    #[test]
    fn the_defaults_are_claps_defaults() {
        use clap::{Args, FromArgMatches};
        // Without the variables, which other tests of the process may be setting.
        let command = Config::augment_args(clap::Command::new("serve"))
            .mut_args(|arg| arg.env(None::<&'static str>));
        let matches = command
            .try_get_matches_from(["serve"])
            .unwrap_or_else(|e| panic!("{e}"));
        let parsed = Config::from_arg_matches(&matches).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format!("{parsed:?}"), format!("{:?}", Config::default()));
    }

    #[test]
    fn rates_parse_as_a_count_over_a_period() {
        let rate: Rate = "30/10m".parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rate.count.get(), 30);
        assert_eq!(rate.per, Duration::from_secs(600));
        assert_eq!(rate.replenish_interval(), Duration::from_secs(20));
        assert_eq!(rate.to_string(), "30/10m");
        for bad in ["", "30", "0/1m", "-1/1m", "x/1m", "30/", "30/soon", "5/0s"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_public_url_is_an_origin() {
        let url: PublicUrl = "https://Chess.Example.org/"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(url.origin(), "https://chess.example.org");
        assert!(url.is_https());
        let url: PublicUrl = "http://localhost:8080"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(url.origin(), "http://localhost:8080");
        assert!(!url.is_https());
        // The default port is not part of what browsers send.
        let url: PublicUrl = "https://example.org:443"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(url.origin(), "https://example.org");
        for bad in [
            "example.org",
            "ftp://example.org",
            "https://example.org/play",
            "https://example.org/?x=1",
        ] {
            assert!(bad.parse::<PublicUrl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn networks_are_addresses_or_cidrs() {
        let networks = parse_networks(" 10.0.0.0/8, 192.0.2.7 ,::1,").unwrap_or_default();
        assert_eq!(networks.len(), 3);
        assert!(networks[1].contains(&IpAddr::from([192, 0, 2, 7])));
        assert!(!networks[1].contains(&IpAddr::from([192, 0, 2, 8])));
        assert_eq!(parse_networks("").map(|n| n.len()), Ok(0));
        assert_eq!(parse_networks(" None ").map(|n| n.len()), Ok(0));
        assert!(parse_networks("10.0.0.0/33").is_err());
        assert!(parse_networks("proxy.example.org").is_err());
    }
}
