//! The account endpoints: register, log in, a new guest, log out, and who is signed in. Each
//! sign-in starts a session and answers with its cookie.

use super::credentials::{hash_password, validate_password, verify_password, Username};
use super::session::{session_token, token_hash, CurrentUser};
use super::{SESSION_COOKIE, SESSION_DAYS};
use crate::store::User;
use crate::web::error::{ApiError, ErrorBody};
use crate::web::extract::JsonBody;
use crate::web::limits::Action;
use crate::web::proxy::{ClientInfo, Site};
use crate::web::AppState;
use axum::extract::State;
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rand::Rng;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, utoipa::ToSchema)]
struct Credentials {
    #[schema(example = "alice")]
    username: String,
    #[schema(example = "correct horse")]
    password: String,
}

/// What the API says about the signed-in user.
#[derive(Serialize, utoipa::ToSchema)]
struct Me {
    user_id: uuid::Uuid,
    username: String,
    is_guest: bool,
}

impl From<&User> for Me {
    fn from(user: &User) -> Self {
        Me {
            user_id: user.user_id,
            username: user.username.clone(),
            is_guest: user.is_guest,
        }
    }
}

/// The session cookie's attributes: `Secure` when the site is reached over https
/// ([`Site::secure_cookies`]), so the token never travels in clear.
fn cookie_attributes(site: &Site, client: &ClientInfo) -> &'static str {
    if site.secure_cookies(client) {
        "Path=/; HttpOnly; SameSite=Lax; Secure"
    } else {
        "Path=/; HttpOnly; SameSite=Lax"
    }
}

/// Starts a session for `user` and answers with the cookie and the user.
async fn start_session(
    state: &AppState,
    client: &ClientInfo,
    user: &User,
) -> Result<Response, ApiError> {
    let token = hex::encode(rand::thread_rng().gen::<[u8; 32]>());
    let expires = chrono::Utc::now() + chrono::Duration::days(SESSION_DAYS);
    state
        .store
        .create_session(user.user_id, &token_hash(&token), expires)
        .await?;
    let cookie = format!(
        "{SESSION_COOKIE}={token}; {}; Max-Age={}",
        cookie_attributes(&state.site, client),
        SESSION_DAYS * 86_400
    );
    let mut response = Json(Me::from(user)).into_response();
    let value = HeaderValue::from_str(&cookie).map_err(|e| ApiError::Internal(e.to_string()))?;
    response.headers_mut().insert(SET_COOKIE, value);
    Ok(response)
}

/// Creates an account and signs in to it.
#[utoipa::path(
    post,
    path = "/api/auth/register",
    tag = "accounts",
    request_body = Credentials,
    responses(
        (status = 200, description = "Signed in to the new account.", body = Me, headers(("Set-Cookie" = String, description = "The session cookie."))),
        (status = 409, description = "`username_taken`.", body = ErrorBody),
        (status = 422, description = "`invalid_username`, `reserved_username`, `invalid_password`, `bad_body`.", body = ErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    client: ClientInfo,
    JsonBody(body): JsonBody<Credentials>,
) -> Result<Response, ApiError> {
    let username = Username::parse(&body.username)?;
    validate_password(&body.password)?;
    // After validation, so that a typo costs nothing; before the hashing it would waste.
    state.limits.check(Action::Register, &client)?;
    let hash = hash_password(body.password).await?;
    let user = state
        .store
        .create_user(username.as_str(), Some(&hash), false)
        .await?;
    start_session(&state, &client, &user).await
}

/// Signs in with a username and password.
#[utoipa::path(
    post,
    path = "/api/auth/login",
    tag = "accounts",
    request_body = Credentials,
    responses(
        (status = 200, description = "Signed in.", body = Me, headers(("Set-Cookie" = String, description = "The session cookie."))),
        (status = 401, description = "`bad_credentials`.", body = ErrorBody),
        (status = 422, description = "`bad_body`.", body = ErrorBody),
    )
)]
async fn login(
    State(state): State<AppState>,
    client: ClientInfo,
    JsonBody(body): JsonBody<Credentials>,
) -> Result<Response, ApiError> {
    let name = body.username.trim();
    state.limits.login_attempt(name, &client).await?;
    let user = state.store.user_by_name(name).await?;
    let hash = match &user {
        Some(user) => state.store.password_hash(user.user_id).await?,
        None => None,
    };
    let verified = verify_password(body.password, hash).await?;
    let user = match user {
        Some(user) if verified => user,
        _ => {
            state.limits.login_failed(name, &client).await?;
            return Err(ApiError::BadCredentials);
        }
    };
    state.limits.login_succeeded(name).await?;
    // Only after the password: whether an account is disabled is nobody else's business.
    if state.store.is_disabled(user.user_id).await? {
        return Err(ApiError::Refused {
            status: axum::http::StatusCode::FORBIDDEN,
            code: "account_disabled",
            message: "this account is disabled".into(),
        });
    }
    start_session(&state, &client, &user).await
}

/// Creates a guest account (`Guest1234`) and signs in to it.
#[utoipa::path(
    post,
    path = "/api/auth/guest",
    tag = "accounts",
    responses((status = 200, description = "Signed in as a new guest.", body = Me, headers(("Set-Cookie" = String, description = "The session cookie."))))
)]
async fn guest(State(state): State<AppState>, client: ClientInfo) -> Result<Response, ApiError> {
    state.limits.check(Action::CreateGuest, &client)?;
    // Four digits first, more if the short names run out.
    for attempt in 0..8u32 {
        let digits = 4 + attempt / 2;
        let number = rand::thread_rng().gen_range(0..10u64.pow(digits));
        let name = format!("Guest{number:0width$}", width = digits as usize);
        match state.store.create_user(&name, None, true).await {
            Ok(user) => return start_session(&state, &client, &user).await,
            Err(crate::store::StoreError::UsernameTaken) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::Internal("no free guest name".into()))
}

/// The answer to a logout.
#[derive(Serialize, utoipa::ToSchema)]
struct LoggedOut {
    /// Always true.
    ok: bool,
}

/// Ends the session: the cookie is cleared and the session's sockets are closed.
#[utoipa::path(
    post,
    path = "/api/auth/logout",
    tag = "accounts",
    responses((status = 200, description = "Signed out (also without a session).", body = LoggedOut, headers(("Set-Cookie" = String, description = "The session cookie."))))
)]
async fn logout(
    State(state): State<AppState>,
    client: ClientInfo,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(token) = session_token(&headers) {
        let hash = token_hash(&token);
        state.sessions.forget(&hash);
        state.store.delete_session(&hash).await?;
    }
    let mut response = Json(LoggedOut { ok: true }).into_response();
    let cookie = format!(
        "{SESSION_COOKIE}=; {}; Max-Age=0",
        cookie_attributes(&state.site, &client)
    );
    let value = HeaderValue::from_str(&cookie).map_err(|e| ApiError::Internal(e.to_string()))?;
    response.headers_mut().insert(SET_COOKIE, value);
    Ok(response)
}

/// The signed-in user.
#[utoipa::path(
    get,
    path = "/api/me",
    tag = "accounts",
    responses(
        (status = 200, description = "The signed-in user.", body = Me),
        (status = 401, description = "`not_logged_in`.", body = ErrorBody),
    )
)]
async fn me(CurrentUser(user): CurrentUser) -> Json<Me> {
    Json(Me::from(&user))
}

/// The account and session routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/auth/register", post(register))
        .route("/api/auth/login", post(login))
        .route("/api/auth/guest", post(guest))
        .route("/api/auth/logout", post(logout))
        .route("/api/me", get(me))
}
