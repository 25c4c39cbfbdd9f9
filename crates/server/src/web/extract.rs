//! Request extractors that answer malformed input the API's way. axum's own `Json`, `Query`
//! and `Path` reject with plain-text bodies; the API promises every error as JSON with a
//! stable code (`docs/protocol.md`), so handlers take these instead, whose rejections are
//! [`ApiError`]s (the mappings are in `error.rs`).

use super::error::ApiError;
use axum::extract::{FromRequest, FromRequestParts, Path};
use axum::http::request::Parts;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
use uuid::Uuid;

/// A JSON request body. Rejected with `bad_body` (422), `json_required` (415) or
/// `body_too_large` (413).
#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct JsonBody<T>(pub T);

/// A query string. Rejected with `bad_query` (422).
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct QueryParams<T>(pub T);

/// A path segment. Rejected with `not_found` (404): a path that does not parse names nothing.
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct PathParam<T>(pub T);

/// A game id in the path (`/api/games/{id}`, `/ws/game/{id}` …). One that is not a UUID
/// names no game: `game_not_found` (404), as for an id nobody has.
pub struct GameIdPath(pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for GameIdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(game_id) = Path::<Uuid>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::NotFound("game_not_found"))?;
        Ok(GameIdPath(game_id))
    }
}

impl utoipa::IntoParams for GameIdPath {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        vec![super::openapi::path_parameter(
            "id",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid))),
            "A game's id (a UUID; any other text names no game: 404 `game_not_found`).",
        )]
    }
}
