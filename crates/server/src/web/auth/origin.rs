//! The same-origin check: state-changing requests and socket upgrades a browser sends from
//! another site's page are refused before they reach a handler.

use crate::web::error::ApiError;
use crate::web::proxy::{ClientInfo, Site};
use crate::web::AppState;
use axum::extract::State;
use axum::http::header::{ORIGIN, UPGRADE};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses a state-changing request or a WebSocket upgrade a browser sent from another
/// site's page. SameSite=Lax keeps the session cookie off such requests, but not every one
/// needs it: a cross-site form could still log a visitor out, or sign them in as a new guest
/// in place of their session. A WebSocket upgrade is a GET, but it opens a channel that acts
/// for the cookie's owner, and browsers send the cookie with it from any page of the same
/// site (another port of the same host is the same site): refused before the upgrade.
/// Browsers name the page's origin on every POST and every upgrade; programs (the load tool,
/// curl) name none and are let through.
pub async fn refuse_cross_origin(
    State(state): State<AppState>,
    client: ClientInfo,
    request: axum::extract::Request,
    next: Next,
) -> Response {
    let changes_state = !matches!(*request.method(), Method::GET | Method::HEAD);
    let opens_socket = is_websocket_upgrade(request.headers());
    if (changes_state || opens_socket) && !same_origin(request.headers(), &state.site, &client) {
        let message = if opens_socket {
            "sockets must be opened from this site's pages"
        } else {
            "requests that change something must come from this site's pages"
        };
        return ApiError::Refused {
            status: axum::http::StatusCode::FORBIDDEN,
            code: "cross_origin",
            message: message.into(),
        }
        .into_response();
    }
    next.run(request).await
}

/// Whether a request asks to become a WebSocket (`Upgrade: websocket`, in any case, as
/// RFC 6455 allows).
pub(super) fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get_all(UPGRADE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|protocol| protocol.trim().eq_ignore_ascii_case("websocket"))
}

/// True without an `Origin` header, or when it names the site: its public URL's origin when
/// `PUBLIC_URL` is set (whatever `Host` a proxy passes on), else the host the request was
/// made to ([`ClientInfo::host`]: the `Host` header, or a trusted proxy's
/// `X-Forwarded-Host`) with, when a trusted proxy says, its scheme.
pub fn same_origin(headers: &HeaderMap, site: &Site, client: &ClientInfo) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return true;
    };
    let Some(origin) = origin
        .to_str()
        .ok()
        .and_then(|o| url::Url::parse(o).ok())
        .map(|url| url.origin())
        .filter(url::Origin::is_tuple)
    else {
        return false;
    };
    if let Some(public) = site.public_url() {
        return origin.ascii_serialization() == public.origin();
    }
    let serialized = origin.ascii_serialization();
    let Some((scheme, host)) = serialized.split_once("://") else {
        return false;
    };
    let scheme_agrees = match client.forwarded_https {
        Some(https) => https == (scheme == "https"),
        None => true,
    };
    scheme_agrees
        && client
            .host
            .as_deref()
            .is_some_and(|asked| same_host(host, asked, scheme))
}

/// Whether `origin_host` (as an origin serializes it: lower case, no default port) is the
/// `Host` header's `asked`, which may name the default port or use capitals.
fn same_host(origin_host: &str, asked: &str, scheme: &str) -> bool {
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    let asked = asked.to_ascii_lowercase();
    let asked = asked.strip_suffix(default_port).unwrap_or(&asked);
    origin_host == asked
}
