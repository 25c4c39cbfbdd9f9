//! The answers to requests no handler takes: a path no route serves, a method the path does
//! not allow, a static file that is not there. Under `/api/` and `/ws/` they are the API's
//! JSON errors (`not_found`, `method_not_allowed`), as every other answer there; elsewhere a
//! person followed a link or typed an address, so they get a small HTML page
//! ([`super::pages::error_page`]). Path parameters that do not parse are answered by their
//! extractors the same way (`web::extract`, and the pages' handlers).

use super::error::ApiError;
use super::pages::error_page;
use axum::extract::Request;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::future::{ready, Ready};
use std::task::{Context, Poll};

/// Whether a path belongs to the programs' side of the server, which answers in JSON.
fn is_api(path: &str) -> bool {
    ["/api", "/ws"].iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// The router's fallback: no route has this path.
pub async fn not_found(uri: Uri) -> Response {
    answer_not_found(uri.path())
}

/// The answer for a route that exists, to a method it does not allow. axum adds the `Allow`
/// header with the methods it does.
pub async fn method_not_allowed(uri: Uri) -> Response {
    answer_method_not_allowed(uri.path())
}

fn answer_not_found(path: &str) -> Response {
    if is_api(path) {
        ApiError::NotFound("not_found").into_response()
    } else {
        not_found_page()
    }
}

fn answer_method_not_allowed(path: &str) -> Response {
    if is_api(path) {
        ApiError::Refused {
            status: StatusCode::METHOD_NOT_ALLOWED,
            code: "method_not_allowed",
            message: "this address does not take that method".into(),
        }
        .into_response()
    } else {
        method_not_allowed_page()
    }
}

fn not_found_page() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "Not found",
        "There is nothing at this address.",
    )
}

fn method_not_allowed_page() -> Response {
    error_page(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method not allowed",
        "This address does not take that kind of request.",
    )
}

/// What the static files (`web::assets`) answer for a file they cannot serve: a missing file
/// is not found; a method other than GET or HEAD is not allowed. Always a page: `/static`
/// holds no API (and the path it sees has lost its `/static`).
pub fn static_miss(method: &Method) -> Response {
    if matches!(*method, Method::GET | Method::HEAD) {
        not_found_page()
    } else {
        let mut answer = method_not_allowed_page();
        answer.headers_mut().insert(
            axum::http::header::ALLOW,
            axum::http::HeaderValue::from_static("GET,HEAD"),
        );
        answer
    }
}

/// [`static_miss`] as the fallback of `STATIC_DIR`'s `ServeDir`.
#[derive(Clone, Copy, Debug)]
pub struct StaticMiss;

impl tower::Service<Request> for StaticMiss {
    type Response = Response;
    type Error = Infallible;
    type Future = Ready<Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        ready(Ok(static_miss(request.method())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_and_socket_paths_are_told_from_pages() {
        for api in ["/api", "/api/", "/api/nothing", "/ws/game/x", "/ws"] {
            assert!(is_api(api), "{api}");
        }
        for page in [
            "/",
            "/apis",
            "/wsx/y",
            "/game/x",
            "/static/api/x",
            "/player/api",
        ] {
            assert!(!is_api(page), "{page}");
        }
    }
}
