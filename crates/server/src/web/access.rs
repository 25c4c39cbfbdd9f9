//! Request ids and the access log.
//!
//! Every request gets an id: the client's own `x-request-id` when it is a short plain token
//! (1–64 characters of letters, digits, `.`, `_`, `-` and `:`, as proxies and load balancers
//! make them), a new time-ordered UUID otherwise. It is answered back in the response's
//! `x-request-id` and named in the request's log lines, so a user's report, a proxy's log and
//! the server's log can be matched.
//!
//! Each request is logged at `info` once its response is ready: the span `request` with
//! `method`, `path` and `request_id`, and the event with `status` and `latency_ms`. The
//! query string is left out: it may carry secrets, and paths are what the log is read for.
//! A WebSocket's line comes when it is upgraded (status 101).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Response};
use axum::Router;
use std::time::Duration;
use tower::ServiceBuilder;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;
use tracing::Span;

/// The header that carries the request id both ways.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest request id taken from a client.
const MAX_CLIENT_ID: usize = 64;

/// Mints request ids: UUID version 7, so ids sort by time like the log.
#[derive(Clone, Copy, Default)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, _request: &Request<B>) -> Option<RequestId> {
        HeaderValue::from_str(&uuid::Uuid::now_v7().to_string())
            .ok()
            .map(RequestId::new)
    }
}

/// Whether a client's request id is fit to be logged and answered back as it is.
fn usable_client_id(id: &HeaderValue) -> bool {
    let bytes = id.as_bytes();
    (1..=MAX_CLIENT_ID).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'))
}

/// Drops a client's request id that is not [`usable_client_id`] (or given twice), so a new
/// one is made in its place.
fn keep_usable_client_id(mut request: Request) -> Request {
    let headers = request.headers_mut();
    let mut given = headers.get_all(&REQUEST_ID).iter();
    let usable = matches!((given.next(), given.next()), (Some(id), None) if usable_client_id(id));
    if !usable {
        headers.remove(&REQUEST_ID);
    }
    request
}

fn request_span(request: &Request<Body>) -> Span {
    let request_id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|id| id.to_str().ok())
        .unwrap_or("");
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        request_id,
    )
}

fn log_response(response: &Response<Body>, latency: Duration, _span: &Span) {
    tracing::info!(
        status = response.status().as_u16(),
        // To the microsecond: more digits are noise, and would print as such.
        latency_ms = (latency.as_secs_f64() * 1_000_000.0).round() / 1000.0,
        "request"
    );
}

/// Wraps the whole application: request ids, then the access log around everything else.
pub fn wrap(router: Router) -> Router {
    router.layer(
        ServiceBuilder::new()
            .map_request(keep_usable_client_id)
            .layer(SetRequestIdLayer::new(REQUEST_ID, NewRequestId))
            .layer(PropagateRequestIdLayer::new(REQUEST_ID))
            .layer(
                TraceLayer::new_for_http()
                    .make_span_with(request_span)
                    .on_request(())
                    .on_response(log_response)
                    // A failure is a response too: `log_response` has logged its status.
                    .on_failure(()),
            ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_plain_client_ids_are_kept() {
        for good in ["abc", "0190b7c4-7000-8000", "req:1.2_3", &"a".repeat(64)] {
            let value = HeaderValue::from_str(good);
            assert!(value.is_ok_and(|v| usable_client_id(&v)), "{good}");
        }
        for bad in ["", "a b", "x\"y", "é", &"a".repeat(65)] {
            let value = HeaderValue::from_bytes(bad.as_bytes());
            assert!(value.map_or(true, |v| !usable_client_id(&v)), "{bad}");
        }
    }

    #[test]
    fn a_second_or_unusable_id_is_dropped() {
        let request = |ids: &[&str]| {
            let mut builder = Request::builder();
            for id in ids {
                builder = builder.header(&REQUEST_ID, *id);
            }
            builder.body(Body::empty()).unwrap_or_default()
        };
        let kept = keep_usable_client_id(request(&["abc"]));
        assert_eq!(
            kept.headers().get(&REQUEST_ID).map(|v| v.as_bytes()),
            Some(&b"abc"[..])
        );
        for ids in [&["abc", "def"][..], &["a b"]] {
            let dropped = keep_usable_client_id(request(ids));
            assert!(dropped.headers().get(&REQUEST_ID).is_none(), "{ids:?}");
        }
    }
}
