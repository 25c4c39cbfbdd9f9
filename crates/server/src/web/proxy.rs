//! Who is asking, and where they think they are: the client's address, and the scheme and host
//! its request was made to, as the connection shows them or, when the connection comes from a
//! trusted reverse proxy (`TRUSTED_PROXIES`), as its `X-Forwarded-For`, `-Proto` and `-Host`
//! say. Anyone else's `X-Forwarded-*` headers are ignored: believing them would let a client
//! pick its own address and step around every rate limit.
//!
//! A trusted proxy that names no client (no `X-Forwarded-For`, an empty one, or one that does
//! not parse) leaves the client unknown: [`UNKNOWN_CLIENT`], which rate limits count as one
//! client and never exempt (`limits.rs`). Taking the proxy's own address instead would exempt
//! every client of a proxy on the machine itself (loopback is exempt by default) as soon as the
//! proxy forgets the header. The first such request is logged as a warning, once, so that the
//! misconfiguration is seen without flooding the log.
//!
//! It also owns the site's public URL (`PUBLIC_URL`), which fixes the origin a state-changing
//! request must come from (`auth::same_origin`), makes the session cookie `Secure` and turns
//! on HSTS when it is https.

use super::AppState;
use crate::config::PublicUrl;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::HOST;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use ipnet::IpNet;
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};

/// How long browsers are told to use only https for the site (a year, as is usual).
pub const HSTS: &str = "max-age=31536000";

/// The address rate limits count a client by when nobody can name it: a trusted proxy sent
/// no usable `X-Forwarded-For`, or the connection's address is unknown.
///
/// Every such request shares this one key rather than being keyed by the proxy's address:
/// the proxy's address is usually exempt (loopback by default), so keying by it would need an
/// address that is exempt except when it is not, and a client that a proxy does name as that
/// address (`X-Forwarded-For: 127.0.0.1` from a local tool) would share the unnamed clients'
/// allowance. `0.0.0.0` is nobody's address (a connection cannot come from it, and an
/// `X-Forwarded-For` entry naming it is refused as unusable), so the key collides with no real
/// client, and it is the key the connection's unknown address already had.
pub const UNKNOWN_CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

/// The site as the world reaches it: its public URL and the proxies in front of it.
#[derive(Debug, Default)]
pub struct Site {
    public_url: Option<PublicUrl>,
    trusted_proxies: Vec<IpNet>,
    /// Whether a trusted proxy's request without a usable `X-Forwarded-For` has been logged:
    /// one warning tells the operator; one per request would bury the log.
    warned_unnamed_client: AtomicBool,
}

/// The client of one request, as far as the site can tell (see the module header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientInfo {
    /// The address rate limits are keyed by: [`UNKNOWN_CLIENT`] when nobody could name it.
    pub ip: IpAddr,
    /// The scheme the request was made with, when a trusted proxy said (`http` or `https`);
    /// None for a request straight from the client.
    pub forwarded_https: Option<bool>,
    /// The host (and port) the request was made to: a trusted proxy's `X-Forwarded-Host`, or
    /// else the `Host` header.
    pub host: Option<String>,
}

impl ClientInfo {
    /// Whether nobody could name this client (see [`UNKNOWN_CLIENT`]).
    pub fn is_unknown(&self) -> bool {
        self.ip == UNKNOWN_CLIENT
    }
}

impl Site {
    pub fn new(public_url: Option<PublicUrl>, trusted_proxies: Vec<IpNet>) -> Site {
        Site {
            public_url,
            trusted_proxies,
            warned_unnamed_client: AtomicBool::new(false),
        }
    }

    pub fn public_url(&self) -> Option<&PublicUrl> {
        self.public_url.as_ref()
    }

    /// Whether browsers are to reach the site over https only: its public URL is https.
    pub fn sends_hsts(&self) -> bool {
        self.public_url.as_ref().is_some_and(PublicUrl::is_https)
    }

    /// Whether the session cookie may travel over https only: the site's public URL is https,
    /// or a trusted proxy says this request came over https.
    pub fn secure_cookies(&self, client: &ClientInfo) -> bool {
        self.sends_hsts() || client.forwarded_https == Some(true)
    }

    /// The client of a request from `peer` (None when the connection's address is unknown)
    /// with `headers`.
    pub fn client(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> ClientInfo {
        let peer = peer.map_or(UNKNOWN_CLIENT, |ip| ip.to_canonical());
        let direct_host = || header_text(headers, HOST.as_str()).map(str::to_string);
        if !self.trusts(peer) {
            return ClientInfo {
                ip: peer,
                forwarded_https: None,
                host: direct_host(),
            };
        }
        let hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','));
        let forwarded_https =
            first_entry(headers, "x-forwarded-proto").and_then(|proto| {
                match proto.to_ascii_lowercase().as_str() {
                    "https" => Some(true),
                    "http" => Some(false),
                    _ => None,
                }
            });
        let host = first_entry(headers, "x-forwarded-host")
            .filter(|host| is_host(host))
            .map(str::to_string)
            .or_else(direct_host);
        let ip = self.forwarded_client(hops).unwrap_or_else(|| {
            self.warn_unnamed_client(peer);
            UNKNOWN_CLIENT
        });
        ClientInfo {
            ip,
            forwarded_https,
            host,
        }
    }

    /// Logs, the first time only, that the trusted proxy `proxy` sent a request naming no
    /// client.
    fn warn_unnamed_client(&self, proxy: IpAddr) {
        if !self.warned_unnamed_client.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                %proxy,
                "a trusted proxy sent a request without a usable X-Forwarded-For (or a \
                 client connected straight from a trusted proxy's address): such requests \
                 are rate limited as one unknown client, never exempt; make the proxy send \
                 X-Forwarded-For (docs/operations.md, Rate limits). Logged once"
            );
        }
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|net| net.contains(&ip))
    }

    /// The client behind a trusted peer, from the `X-Forwarded-For` entries (`hops`, the
    /// client first, each proxy appending the address it heard from): the last entry that is
    /// not a trusted proxy, read from the right, since entries left of it were written by
    /// whoever the client is and prove nothing; when every entry is a trusted address, the
    /// first (a trusted proxy named it as the client: a tool on the machine itself, say).
    ///
    /// None when the walk reaches no usable entry: there is none, or the entry a trusted hop
    /// wrote is empty or does not parse. That hop is a proxy that could not name its client,
    /// so the client is unknown; falling back to the hop's own address would make every
    /// client of a proxy on an exempt address exempt.
    fn forwarded_client<'a>(&self, hops: impl Iterator<Item = &'a str>) -> Option<IpAddr> {
        let hops: Vec<&str> = hops.collect();
        let mut client = None;
        for hop in hops.iter().rev() {
            let ip = parse_hop(hop)?;
            client = Some(ip);
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// An `X-Forwarded-For` entry: an address, maybe with a port (`192.0.2.1:4711`,
/// `[2001:db8::1]:4711`). None for anything else, and for the unspecified address (`0.0.0.0`,
/// `::`), which is nobody's and is [`UNKNOWN_CLIENT`]'s key.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim().trim_matches('"');
    let ip = hop
        .parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| {
            hop.strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .and_then(|h| h.parse().ok())
        })?
        .to_canonical();
    (!ip.is_unspecified()).then_some(ip)
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The first entry of a comma-separated header: the one the proxy nearest the client wrote.
fn first_entry<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    header_text(headers, name)
        .and_then(|value| value.split(',').next())
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
}

/// A host as a `Host` header holds it: a name or an address, maybe with a port.
fn is_host(text: &str) -> bool {
    text.len() <= 255
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
}

impl FromRequestParts<AppState> for ClientInfo {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        // Served with `into_make_service_with_connect_info` (`app.rs`), every request has it.
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        Ok(state.site.client(peer, &parts.headers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_networks;
    use axum::http::HeaderValue;

    fn site(public_url: Option<&str>, trusted: &str) -> Site {
        Site::new(
            public_url.map(|url| url.parse().unwrap_or_else(|e| panic!("{e}"))),
            parse_networks(trusted).unwrap_or_else(|e| panic!("{e}")),
        )
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn forwarded_headers_count_only_from_a_trusted_proxy() {
        let site = site(None, "10.0.0.0/8");
        let sent = headers(&[
            ("host", "internal:8080"),
            ("x-forwarded-for", "198.51.100.7"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "chess.example.org"),
        ]);
        let proxied = site.client(Some(ip("10.1.2.3")), &sent);
        assert_eq!(proxied.ip, ip("198.51.100.7"));
        assert_eq!(proxied.forwarded_https, Some(true));
        assert_eq!(proxied.host.as_deref(), Some("chess.example.org"));
        assert!(site.secure_cookies(&proxied));
        // The same headers from anyone else change nothing.
        let direct = site.client(Some(ip("203.0.113.9")), &sent);
        assert_eq!(direct.ip, ip("203.0.113.9"));
        assert_eq!(direct.forwarded_https, None);
        assert_eq!(direct.host.as_deref(), Some("internal:8080"));
        assert!(!site.secure_cookies(&direct));
    }

    /// (peer, its `X-Forwarded-For` headers, the client's address) behind trusted proxies
    /// `10.0.0.0/8` and `2001:db8::/32`, and on a loopback that is trusted, as it is by
    /// default. `UNKNOWN` is [`UNKNOWN_CLIENT`].
    const CLIENTS: &[(&str, &[&str], &str)] = &[
        // A direct client is its own address, whatever it sends; an IPv4 peer on an IPv6
        // socket is the IPv4 address.
        ("203.0.113.9", &[], "203.0.113.9"),
        ("203.0.113.9", &["198.51.100.7"], "203.0.113.9"),
        ("203.0.113.9", &[""], "203.0.113.9"),
        ("::ffff:192.0.2.1", &[], "192.0.2.1"),
        // A trusted proxy names its client: the rightmost untrusted entry, so a forgery left
        // of it stays there and garbage left of it is never read; several headers in order,
        // ports and brackets dropped.
        ("10.0.0.1", &["198.51.100.7"], "198.51.100.7"),
        (
            "10.0.0.1",
            &["1.1.1.1, 198.51.100.7, 10.0.0.2"],
            "198.51.100.7",
        ),
        ("10.0.0.1", &["unknown, 198.51.100.7"], "198.51.100.7"),
        (
            "10.0.0.1",
            &["1.1.1.1", "[2001:db9::5]:4711, 10.0.0.2:80"],
            "2001:db9::5",
        ),
        // Every entry trusted: the first, as a trusted proxy named it (the machine itself).
        ("10.0.0.1", &["10.9.9.9, 10.0.0.2"], "10.9.9.9"),
        ("127.0.0.1", &["127.0.0.1"], "127.0.0.1"),
        // A trusted proxy that names nobody, loopback included (which would be exempt): no
        // header, an empty or blank one, garbage, the unspecified address, or garbage from a
        // trusted hop further on.
        ("10.0.0.1", &[], "UNKNOWN"),
        ("127.0.0.1", &[], "UNKNOWN"),
        ("::1", &[], "UNKNOWN"),
        ("::ffff:127.0.0.1", &[], "UNKNOWN"),
        ("10.0.0.1", &[""], "UNKNOWN"),
        ("10.0.0.1", &[" , "], "UNKNOWN"),
        ("10.0.0.1", &["198.51.100.7, "], "UNKNOWN"),
        ("10.0.0.1", &["unknown"], "UNKNOWN"),
        ("10.0.0.1", &["0.0.0.0"], "UNKNOWN"),
        ("10.0.0.1", &["[::]:80"], "UNKNOWN"),
        ("10.0.0.1", &["unknown, 10.0.0.2"], "UNKNOWN"),
        ("127.0.0.1", &["garbage, 127.0.0.1"], "UNKNOWN"),
    ];

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop_or_unknown() {
        let site = site(None, "10.0.0.0/8, 2001:db8::/32, 127.0.0.0/8, ::1");
        for (peer, forwarded, expected) in CLIENTS {
            let mut sent = HeaderMap::new();
            for value in *forwarded {
                sent.append("x-forwarded-for", HeaderValue::from_static(value));
            }
            let client = site.client(Some(ip(peer)), &sent);
            let expected = match *expected {
                "UNKNOWN" => UNKNOWN_CLIENT,
                address => ip(address),
            };
            assert_eq!(client.ip, expected, "{peer} {forwarded:?}");
            assert_eq!(client.is_unknown(), expected == UNKNOWN_CLIENT);
        }
        // A connection whose address is unknown is the unknown client too.
        assert!(site.client(None, &HeaderMap::new()).is_unknown());
    }

    /// A log writer that keeps what is written, for the test below.
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl Captured {
        fn text(&self) -> String {
            let bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
            String::from_utf8_lossy(&bytes).into_owned()
        }
    }

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let mut bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
            bytes.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
        type Writer = Captured;

        fn make_writer(&'a self) -> Captured {
            self.clone()
        }
    }

    #[test]
    fn a_trusted_proxy_that_names_nobody_is_warned_about_once() {
        let site = site(None, "127.0.0.1, 10.0.0.0/8");
        let log = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(log.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            // Named clients and direct ones are nothing to warn about.
            let named = headers(&[("x-forwarded-for", "198.51.100.7")]);
            site.client(Some(ip("127.0.0.1")), &named);
            site.client(Some(ip("203.0.113.9")), &HeaderMap::new());
            site.client(None, &HeaderMap::new());
            assert_eq!(log.text(), "");
            for peer in ["127.0.0.1", "10.0.0.1", "127.0.0.1"] {
                site.client(Some(ip(peer)), &HeaderMap::new());
            }
        });
        let text = log.text();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains("WARN"), "{text}");
        assert!(text.contains("proxy=127.0.0.1"), "{text}");
        assert!(text.contains("X-Forwarded-For"), "{text}");
    }

    #[test]
    fn odd_forwarded_scheme_and_host_are_ignored() {
        let site = site(None, "127.0.0.1");
        let sent = headers(&[
            ("host", "localhost:8080"),
            ("x-forwarded-proto", "gopher"),
            ("x-forwarded-host", "evil.example/<script>"),
        ]);
        let client = site.client(Some(ip("127.0.0.1")), &sent);
        assert_eq!(client.forwarded_https, None);
        assert_eq!(client.host.as_deref(), Some("localhost:8080"));
    }

    #[test]
    fn an_https_public_url_makes_cookies_secure_and_sends_hsts() {
        let client = ClientInfo {
            ip: ip("192.0.2.1"),
            forwarded_https: None,
            host: None,
        };
        let https = site(Some("https://chess.example.org"), "");
        assert!(https.sends_hsts() && https.secure_cookies(&client));
        let http = site(Some("http://localhost:8080"), "");
        assert!(!http.sends_hsts() && !http.secure_cookies(&client));
        assert!(!site(None, "").sends_hsts());
    }
}
