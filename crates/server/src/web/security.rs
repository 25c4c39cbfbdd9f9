//! The hardening headers every response carries: a Content Security Policy that lets the
//! pages run only the scripts and styles of `/static` (no inline script, no inline style,
//! no `eval`) and talk only to this server, no framing by other sites (clickjacking), no
//! MIME sniffing, no full URL (game ids) in the `Referer` sent to other sites, and no
//! powerful browser features. A handler that sets one of these itself keeps its own.

use axum::http::header::{
    CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderName, HeaderValue};
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// `'self'` in `connect-src` covers the server's own `ws:`/`wss:` sockets (CSP level 3).
/// `img-src data:` is for the layout's empty favicon, which spares a request for one.
const CONTENT_SECURITY_POLICY_VALUE: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The pages use none of these.
const PERMISSIONS_POLICY_VALUE: &str =
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), fullscreen=()";

/// `router` with the headers above added to every response it gives.
pub fn with_security_headers<S>(router: Router<S>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let headers: [(HeaderName, &'static str); 5] = [
        (CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_VALUE),
        // The older spelling of `frame-ancestors 'none'`, for browsers without CSP 2.
        (X_FRAME_OPTIONS, "DENY"),
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (REFERRER_POLICY, "same-origin"),
        (
            HeaderName::from_static("permissions-policy"),
            PERMISSIONS_POLICY_VALUE,
        ),
    ];
    headers.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ))
    })
}
