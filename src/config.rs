//! Server configuration from the environment (and `--bind` on the command line).
//!
//! | variable | default |
//! | --- | --- |
//! | `BIND_ADDR` | `0.0.0.0:8080` |
//! | `DATABASE_URL` | `postgres://postgres@localhost:5432/oddboard` |
//! | `STATIC_DIR` | `static` |
//! | `RUST_LOG` | `info` (read by [`crate::telemetry`]) |
//! | `PUBLIC_URL` | none: the URL people reach the site at, e.g. `https://chess.example.org` |
//! | `TRUSTED_PROXIES` | `127.0.0.0/8,::1`: addresses or CIDRs whose `X-Forwarded-*` headers count (`none`: nobody's) |
//! | `RATE_LIMIT_EXEMPT` | `127.0.0.0/8,::1`: client addresses no rate limit applies to (`none`: none) |
//! | `RATE_LIMIT_GUESTS` | `30/1h`: guest accounts per client address |
//! | `RATE_LIMIT_REGISTRATIONS` | `10/1h`: registrations per client address |
//! | `RATE_LIMIT_LOGINS` | `40/10m`: login attempts per client address |
//! | `RATE_LIMIT_LOGIN_FAILURES` | `5`: wrong passwords for one username before its back-off |
//! | `RATE_LIMIT_GAMES` | `60/10m`: games and challenges created per client address |
//! | `RATE_LIMIT_LOBBY` | `120/1m`: lobby commands per client address (HTTP and socket) |
//! | `RATE_LIMIT_GAME_FRAMES` | `60/10s`: frames per `/ws/game/{id}` socket |
//! | `RATE_LIMIT_MUX_FRAMES` | `1000/10s`: frames per multiplexed `/ws/games` socket |
//! | `RATE_LIMIT_LOBBY_FRAMES` | `60/10s`: frames per `/ws/lobby` socket |
//! | `RATE_LIMIT_SOCKETS` | `100`: WebSockets open at once per client address |
//!
//! A rate is `N/PERIOD`: a burst of N at once, and N again over each PERIOD (`30s`, `10m`,
//! `1h`, as `humantime` reads them), one every PERIOD/N. `docs/operations.md` ("Behind a
//! reverse proxy", "Rate limits") says what each one is for. A value that does not parse stops
//! the server at start with the variable's name, rather than running with a limit nobody set.

use ipnet::IpNet;
use std::fmt;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

pub const DEFAULT_BIND: &str = "0.0.0.0:8080";
pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@localhost:5432/oddboard";

#[derive(Clone)]
pub struct Config {
    pub bind_addr: String,
    pub database_url: String,
    pub static_dir: PathBuf,
    /// Where people reach the site; None: wherever each request's `Host` says.
    pub public_url: Option<PublicUrl>,
    /// Peers whose `X-Forwarded-For`, `-Proto` and `-Host` are believed.
    pub trusted_proxies: Vec<IpNet>,
    pub rate_limits: RateLimits,
}

/// The rate limits (see the module header for the variables and defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// Client addresses no limit applies to: by default the machine itself, whose clients
    /// are its operator's (the load tool opens thousands of games from one address).
    pub exempt: Vec<IpNet>,
    pub guests: Rate,
    pub registrations: Rate,
    pub logins: Rate,
    /// Wrong passwords in a row for one username before each further attempt must wait,
    /// twice as long each time.
    pub login_failures: u32,
    /// `POST /api/games`, and the lobby's `seek` and `match`.
    pub games: Rate,
    pub lobby_commands: Rate,
    pub game_frames: Rate,
    pub mux_frames: Rate,
    pub lobby_frames: Rate,
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

/// A setting that did not parse: the variable and why.
#[derive(Debug, thiserror::Error)]
#[error("{variable}: {problem}")]
pub struct ConfigError {
    pub variable: &'static str,
    pub problem: String,
}

impl Default for Config {
    /// The defaults of the table above, without reading the environment (tests start here
    /// and change what they need).
    fn default() -> Config {
        Config {
            bind_addr: DEFAULT_BIND.to_string(),
            database_url: DEFAULT_DATABASE_URL.to_string(),
            static_dir: PathBuf::from("static"),
            public_url: None,
            trusted_proxies: loopback(),
            rate_limits: RateLimits::default(),
        }
    }
}

impl Config {
    /// Reads the environment; `bind_override` (from `--bind`) wins over `BIND_ADDR`.
    ///
    /// # Errors
    /// A variable of the table above holds something that does not parse.
    pub fn from_env(bind_override: Option<String>) -> Result<Config, ConfigError> {
        let defaults = RateLimits::default();
        Ok(Config {
            bind_addr: bind_override
                .or_else(|| var("BIND_ADDR"))
                .unwrap_or_else(|| DEFAULT_BIND.to_string()),
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string()),
            static_dir: var("STATIC_DIR").map_or_else(|| PathBuf::from("static"), PathBuf::from),
            public_url: var("PUBLIC_URL")
                .map(|text| setting("PUBLIC_URL", text.parse()))
                .transpose()?,
            trusted_proxies: parsed(
                var("TRUSTED_PROXIES"),
                "TRUSTED_PROXIES",
                loopback(),
                parse_networks,
            )?,
            rate_limits: RateLimits {
                exempt: parsed(
                    var("RATE_LIMIT_EXEMPT"),
                    "RATE_LIMIT_EXEMPT",
                    defaults.exempt,
                    parse_networks,
                )?,
                guests: from_var("RATE_LIMIT_GUESTS", defaults.guests)?,
                registrations: from_var("RATE_LIMIT_REGISTRATIONS", defaults.registrations)?,
                logins: from_var("RATE_LIMIT_LOGINS", defaults.logins)?,
                login_failures: from_var("RATE_LIMIT_LOGIN_FAILURES", defaults.login_failures)?,
                games: from_var("RATE_LIMIT_GAMES", defaults.games)?,
                lobby_commands: from_var("RATE_LIMIT_LOBBY", defaults.lobby_commands)?,
                game_frames: from_var("RATE_LIMIT_GAME_FRAMES", defaults.game_frames)?,
                mux_frames: from_var("RATE_LIMIT_MUX_FRAMES", defaults.mux_frames)?,
                lobby_frames: from_var("RATE_LIMIT_LOBBY_FRAMES", defaults.lobby_frames)?,
                sockets_per_address: from_var("RATE_LIMIT_SOCKETS", defaults.sockets_per_address)?,
            },
        })
    }
}

/// A variable's parsed value, or `default` when it is unset.
fn parsed<T>(
    value: Option<String>,
    variable: &'static str,
    default: T,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, ConfigError> {
    value.map_or(Ok(default), |text| setting(variable, parse(&text)))
}

/// The variable `variable` as its type reads it, or `default` when it is unset.
fn from_var<T: FromStr>(variable: &'static str, default: T) -> Result<T, ConfigError>
where
    T::Err: fmt::Display,
{
    parsed(var(variable), variable, default, |text| {
        text.parse().map_err(|e: T::Err| e.to_string())
    })
}

/// A variable's value; an empty one counts as unset.
fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
fn setting<T>(variable: &'static str, parsed: Result<T, String>) -> Result<T, ConfigError> {
    parsed.map_err(|problem| ConfigError { variable, problem })
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
