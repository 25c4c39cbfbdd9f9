//! `ApiError`: the web layer's one error type. Every failure becomes a status code and a JSON
//! body `{"error": "<stable_snake_case_code>", "message": "<for people>"}`. Server-side
//! failures are logged with their cause and answered with a generic message.

use super::limits::RateLimited;
use crate::game::{GameError, Refusal};
use crate::store::StoreError;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// The body of every error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A stable snake_case code: programs match on it.
    #[schema(example = "game_not_found")]
    pub error: &'static str,
    /// An explanation for people; its wording may change.
    pub message: String,
}

#[derive(Debug)]
pub enum ApiError {
    /// No valid session.
    NotLoggedIn,
    BadCredentials,
    UsernameTaken,
    /// Input that fails validation: a code and an explanation.
    Invalid {
        code: &'static str,
        message: String,
    },
    NotFound(&'static str),
    /// A request refused before any of its fields is looked at, with its own status: a
    /// body that is not JSON, too large or not declared as JSON, a query string that does
    /// not parse (see `extract.rs`), a state-changing request from another site's page.
    Refused {
        status: StatusCode,
        code: &'static str,
        message: String,
    },
    /// Over a rate limit (`web::limits`): 429 with `Retry-After`.
    RateLimited(RateLimited),
    Game(GameError),
    Store(StoreError),
    /// Anything else that went wrong on our side.
    Internal(String),
}

impl ApiError {
    pub fn invalid(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::Invalid {
            code,
            message: message.into(),
        }
    }

    fn status_code_message(&self) -> (StatusCode, &'static str, String) {
        match self {
            ApiError::NotLoggedIn => (
                StatusCode::UNAUTHORIZED,
                "not_logged_in",
                "log in or play as a guest first".into(),
            ),
            ApiError::BadCredentials => (
                StatusCode::UNAUTHORIZED,
                "bad_credentials",
                "wrong username or password".into(),
            ),
            ApiError::UsernameTaken => (
                StatusCode::CONFLICT,
                "username_taken",
                "that username is taken".into(),
            ),
            ApiError::Invalid { code, message } => {
                (StatusCode::UNPROCESSABLE_ENTITY, code, message.clone())
            }
            ApiError::NotFound(code) => (StatusCode::NOT_FOUND, code, "not found".into()),
            ApiError::Refused {
                status,
                code,
                message,
            } => (*status, code, message.clone()),
            ApiError::RateLimited(limited) => (
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                limited.message(),
            ),
            ApiError::Game(e) => (game_status(e), e.code(), e.to_string()),
            ApiError::Store(StoreError::UsernameTaken) => (
                StatusCode::CONFLICT,
                "username_taken",
                "that username is taken".into(),
            ),
            ApiError::Store(StoreError::NotFound) => {
                (StatusCode::NOT_FOUND, "not_found", "not found".into())
            }
            ApiError::Store(e) if e.is_unavailable() => (
                StatusCode::SERVICE_UNAVAILABLE,
                "store_unavailable",
                "the database is unavailable; try again shortly".into(),
            ),
            ApiError::Store(_) | ApiError::Internal(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "something went wrong on our side".into(),
            ),
        }
    }
}

/// The status of a refusal of the game layer, wherever the API answers one (a lobby command
/// that could not start its game too).
pub(super) fn game_status(error: &GameError) -> StatusCode {
    match error {
        GameError::NotFound => StatusCode::NOT_FOUND,
        GameError::Unavailable
        | GameError::Elsewhere
        | GameError::Refused(Refusal::ComputerBusy)
        | GameError::Store(_) => StatusCode::SERVICE_UNAVAILABLE,
        GameError::Refused(Refusal::NotAPlayer) => StatusCode::FORBIDDEN,
        // Refused by the node that runs the game: the status its code has here.
        GameError::Remote { code, .. } => match *code {
            "game_not_found" => StatusCode::NOT_FOUND,
            "not_a_player" => StatusCode::FORBIDDEN,
            "game_unavailable" | "game_elsewhere" | "store_unavailable" | "storage_failed"
            | "computer_busy" | "game_moved" => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::CONFLICT,
        },
        _ => StatusCode::CONFLICT,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, message) = self.status_code_message();
        if status.is_server_error() {
            tracing::error!(error = ?self, "request failed");
        }
        let mut response = (
            status,
            Json(ErrorBody {
                error: code,
                message,
            }),
        )
            .into_response();
        if let ApiError::RateLimited(limited) = &self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                limited.retry_after_seconds().into(),
            );
        }
        response
    }
}

impl From<RateLimited> for ApiError {
    fn from(limited: RateLimited) -> Self {
        ApiError::RateLimited(limited)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::UsernameTaken => ApiError::UsernameTaken,
            other => ApiError::Store(other),
        }
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> Self {
        ApiError::Game(e)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        let (status, code) = match &rejection {
            JsonRejection::MissingJsonContentType(_) => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "json_required")
            }
            JsonRejection::BytesRejection(_)
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE =>
            {
                (StatusCode::PAYLOAD_TOO_LARGE, "body_too_large")
            }
            // Not JSON, or JSON of the wrong shape: a field missing, of the wrong type or
            // out of its type's range. axum's text names the field.
            _ => (StatusCode::UNPROCESSABLE_ENTITY, "bad_body"),
        };
        ApiError::Refused {
            status,
            code,
            message: rejection.body_text(),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::Refused {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "bad_query",
            message: rejection.body_text(),
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(_: PathRejection) -> Self {
        ApiError::NotFound("not_found")
    }
}
