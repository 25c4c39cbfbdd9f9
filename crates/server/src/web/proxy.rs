//! Who is asking, and where they think they are: the client's address, and the scheme and host
//! its request was made to, as the connection shows them or, when the connection comes from a
//! trusted reverse proxy (`TRUSTED_PROXIES`), as its `X-Forwarded-For`, `-Proto` and `-Host`
//! say. Anyone else's `X-Forwarded-*` headers are ignored: believing them would let a client
//! pick its own address and step around every rate limit.
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

/// How long browsers are told to use only https for the site (a year, as is usual).
pub const HSTS: &str = "max-age=31536000";

/// The site as the world reaches it: its public URL and the proxies in front of it.
#[derive(Clone, Debug, Default)]
pub struct Site {
    public_url: Option<PublicUrl>,
    trusted_proxies: Vec<IpNet>,
}

/// The client of one request, as far as the site can tell (see the module header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientInfo {
    /// The address rate limits are keyed by.
    pub ip: IpAddr,
    /// The scheme the request was made with, when a trusted proxy said (`http` or `https`);
    /// None for a request straight from the client.
    pub forwarded_https: Option<bool>,
    /// The host (and port) the request was made to: a trusted proxy's `X-Forwarded-Host`, or
    /// else the `Host` header.
    pub host: Option<String>,
}

impl Site {
    pub fn new(public_url: Option<PublicUrl>, trusted_proxies: Vec<IpNet>) -> Site {
        Site {
            public_url,
            trusted_proxies,
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
        let peer = peer.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ip| ip.to_canonical());
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
        ClientInfo {
            ip: self.forwarded_client(peer, hops),
            forwarded_https,
            host,
        }
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|net| net.contains(&ip))
    }

    /// The client behind the trusted `peer`, from the `X-Forwarded-For` entries (`hops`, the
    /// client first, each proxy appending the address it heard from): the last entry that is
    /// not a trusted proxy, read from the right, since entries left of it were written by
    /// whoever the client is and prove nothing. An entry that does not parse stops the walk
    /// at the hop that wrote it.
    fn forwarded_client<'a>(&self, peer: IpAddr, hops: impl Iterator<Item = &'a str>) -> IpAddr {
        let hops: Vec<&str> = hops.collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Some(ip) = parse_hop(hop) else {
                break;
            };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// An `X-Forwarded-For` entry: an address, maybe with a port (`192.0.2.1:4711`,
/// `[2001:db8::1]:4711`).
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
        })?;
    Some(ip.to_canonical())
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

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop() {
        let site = site(None, "10.0.0.0/8, 2001:db8::/32");
        let client = |peer: &str, sent: HeaderMap| site.client(Some(ip(peer)), &sent).ip;
        // A client that writes its own header gets its forgery kept on the left.
        let forged = headers(&[("x-forwarded-for", "1.1.1.1, 198.51.100.7, 10.0.0.2")]);
        assert_eq!(client("10.0.0.1", forged), ip("198.51.100.7"));
        // Entries from several headers, in order; ports and brackets are dropped.
        let split = headers(&[
            ("x-forwarded-for", "1.1.1.1"),
            ("x-forwarded-for", "[2001:db9::5]:4711, 10.0.0.2:80"),
        ]);
        assert_eq!(client("10.0.0.1", split), ip("2001:db9::5"));
        // Every hop trusted: the first one.
        let internal = headers(&[("x-forwarded-for", "10.9.9.9, 10.0.0.2")]);
        assert_eq!(client("10.0.0.1", internal), ip("10.9.9.9"));
        // Garbage stops the walk at the hop that wrote it.
        let garbage = headers(&[("x-forwarded-for", "unknown, 10.0.0.2")]);
        assert_eq!(client("10.0.0.1", garbage), ip("10.0.0.2"));
        // No header: the proxy itself.
        assert_eq!(client("10.0.0.1", HeaderMap::new()), ip("10.0.0.1"));
        // An IPv4 peer on an IPv6 socket is the IPv4 address.
        assert_eq!(
            client("::ffff:192.0.2.1", HeaderMap::new()),
            ip("192.0.2.1")
        );
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
