//! Accounts and sessions: registration and login with argon2id password hashes (hashed on
//! the blocking pool, never on the async runtime), guest accounts, logout, and the
//! extractors that turn the session cookie into a user.
//!
//! The cookie holds a random 256-bit token; the database stores only its SHA-256, so a
//! leaked database does not leak sessions.
//!
//! Every request and socket upgrade of a signed-in player names its session, so sessions
//! found in the database are kept in memory for a minute ([`SessionCache`]): starting a game
//! takes four of them (create, accept, two sockets), each otherwise a database round trip.
//!
//! A logout also closes the game and lobby sockets opened with its session
//! ([`SessionCache::logout_signal`]), so a signed-out browser tab cannot go on playing.
//!
//! Guests, registrations and logins are rate-limited per client address, and logins also per
//! username (`web::limits`). A login does the same argon2 work whether or not the name exists
//! (an unknown name is checked against [`dummy_hash`]), so its time does not tell which
//! names do.

use super::error::{ApiError, ErrorBody};
use super::extract::JsonBody;
use super::limits::Action;
use super::proxy::{ClientInfo, Site};
use super::AppState;
use crate::store::User;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use axum::extract::{FromRequestParts, State};
use axum::http::header::{COOKIE, ORIGIN, SET_COOKIE, UPGRADE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rand::Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "oddboard_session";
/// How long a session lasts.
const SESSION_DAYS: i64 = 30;

/// Names nobody may register: they would impersonate the site or collide with routes.
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "root",
    "system",
    "oddboard",
    "server",
    "api",
    "guest",
    "anonymous",
    "moderator",
    "mod",
    "support",
    "null",
    "undefined",
    "lobby",
    "game",
    "games",
    "user",
    "users",
    "login",
    "logout",
    "register",
    "me",
];

/// A validated username: 3–20 characters, ASCII letters, digits, `_` and `-`, starting with a
/// letter, not reserved, and not starting with `guest` (guest names are handed out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    /// # Errors
    /// The name breaks one of the rules above; the error says which.
    pub fn parse(name: &str) -> Result<Username, ApiError> {
        // Refused, not trimmed: the name registered would not be the name typed.
        if name.trim() != name {
            return Err(ApiError::invalid(
                "invalid_username",
                "a username has no spaces around it",
            ));
        }
        if !(3..=20).contains(&name.chars().count()) {
            return Err(ApiError::invalid(
                "invalid_username",
                "a username has 3 to 20 characters",
            ));
        }
        if !name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            return Err(ApiError::invalid(
                "invalid_username",
                "a username starts with a letter",
            ));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(ApiError::invalid(
                "invalid_username",
                "a username has only letters, digits, _ and -",
            ));
        }
        let lower = name.to_ascii_lowercase();
        if RESERVED.contains(&lower.as_str()) || lower.starts_with("guest") {
            return Err(ApiError::invalid(
                "reserved_username",
                "that username is reserved",
            ));
        }
        Ok(Username(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn validate_password(password: &str) -> Result<(), ApiError> {
    let length = password.chars().count();
    if !(8..=128).contains(&length) {
        return Err(ApiError::invalid(
            "invalid_password",
            "a password has 8 to 128 characters",
        ));
    }
    Ok(())
}

/// How many password hashes may run at once. Each argon2id hash holds 19 MiB and a core for
/// tens of milliseconds; without a bound, a burst of logins would fill the blocking pool
/// (hundreds of threads, gigabytes of memory) and starve everything else that uses it.
/// Requests beyond the bound wait their turn.
const CONCURRENT_PASSWORD_HASHES: usize = 4;

static PASSWORD_HASHING: tokio::sync::Semaphore =
    tokio::sync::Semaphore::const_new(CONCURRENT_PASSWORD_HASHES);

/// Runs password work off the async runtime, at most [`CONCURRENT_PASSWORD_HASHES`] at a time.
async fn password_work<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = PASSWORD_HASHING
        .acquire()
        .await
        .map_err(|e| ApiError::Internal(format!("password hashing closed: {e}")))?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::Internal(format!("password task failed: {e}")))?
}

async fn hash_password(password: String) -> Result<String, ApiError> {
    password_work(move || {
        let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::Internal(format!("hashing failed: {e}")))
    })
    .await
}

/// A hash of a password nobody knows, made once with the same parameters as every stored one:
/// a login for a name that does not exist (or a guest, who has no password) is checked
/// against it, so it costs what a wrong password for a real name costs.
fn dummy_hash() -> Result<String, ApiError> {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if let Some(hash) = DUMMY.get() {
        return Ok(hash.clone());
    }
    let salt = SaltString::generate(&mut argon2::password_hash::rand_core::OsRng);
    let unknowable = hex::encode(rand::thread_rng().gen::<[u8; 32]>());
    let hash = Argon2::default()
        .hash_password(unknowable.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| ApiError::Internal(format!("hashing failed: {e}")))?;
    Ok(DUMMY.get_or_init(|| hash).clone())
}

/// Checks `password` against `hash`, or against [`dummy_hash`] when there is none (and then
/// answers false).
async fn verify_password(password: String, hash: Option<String>) -> Result<bool, ApiError> {
    password_work(move || {
        let (hash, real) = match hash {
            Some(hash) => (hash, true),
            None => (dummy_hash()?, false),
        };
        let parsed = PasswordHash::new(&hash)
            .map_err(|e| ApiError::Internal(format!("bad stored hash: {e}")))?;
        let matches = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        Ok(real && matches)
    })
    .await
}

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.to_string())
}

/// How long a session found in the database is trusted without asking again. Logging out
/// through this server forgets it at once and sessions carry their own expiry, so this only
/// bounds how long a session deleted behind the server's back (by hand, or by another server
/// sharing the database) still works.
const SESSION_CACHE_TTL: Duration = Duration::from_secs(60);
/// Sessions kept at most; past that the cache starts afresh (it refills from the database).
const SESSION_CACHE_CAPACITY: usize = 100_000;

/// Sessions recently found in the database, by token hash; and, per session with open
/// sockets, the signal its logout raises.
#[derive(Debug, Default)]
pub struct SessionCache {
    entries: Mutex<HashMap<Vec<u8>, CacheSlot>>,
    /// Set to true at the session's logout. An entry lives while a socket of the session
    /// holds a receiver ([`LogoutSignal`] removes it with the last one).
    logouts: Mutex<HashMap<Vec<u8>, watch::Sender<bool>>>,
}

#[derive(Debug)]
enum CacheSlot {
    Found(CachedSession),
    /// Logged out at that moment. A request that read the session from the database just
    /// before the logout deleted it may come to store it after the logout: for as long as
    /// an entry could live, that late copy is not taken.
    LoggedOut(Instant),
}

impl CacheSlot {
    /// Whether this marks a logout recent enough that a late copy of the session could
    /// still arrive.
    fn is_recent_logout(&self) -> bool {
        matches!(self, CacheSlot::LoggedOut(at) if at.elapsed() < SESSION_CACHE_TTL)
    }
}

#[derive(Debug)]
struct CachedSession {
    user: User,
    expires_at: chrono::DateTime<chrono::Utc>,
    found_at: Instant,
}

impl SessionCache {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, CacheSlot>> {
        // The map holds plain data: a panic elsewhere cannot leave it inconsistent.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The user of a session found within the last [`SESSION_CACHE_TTL`] and not expired.
    fn get(&self, token_hash: &[u8], now: chrono::DateTime<chrono::Utc>) -> Option<User> {
        let mut entries = self.entries();
        match entries.get(token_hash)? {
            CacheSlot::Found(entry)
                if entry.expires_at > now && entry.found_at.elapsed() < SESSION_CACHE_TTL =>
            {
                return Some(entry.user.clone());
            }
            slot if slot.is_recent_logout() => return None,
            _ => {}
        }
        entries.remove(token_hash);
        None
    }

    fn insert(&self, token_hash: Vec<u8>, session: crate::store::Session) {
        let mut entries = self.entries();
        if entries
            .get(&token_hash)
            .is_some_and(CacheSlot::is_recent_logout)
        {
            return;
        }
        if entries.len() >= SESSION_CACHE_CAPACITY {
            entries.clear();
        }
        entries.insert(
            token_hash,
            CacheSlot::Found(CachedSession {
                user: session.user,
                expires_at: session.expires_at,
                found_at: Instant::now(),
            }),
        );
    }

    /// Forgets a session at logout, refuses late copies of it for a while, and closes the
    /// sockets opened with it.
    pub(crate) fn forget(&self, token_hash: &[u8]) {
        {
            let mut entries = self.entries();
            if entries.len() >= SESSION_CACHE_CAPACITY {
                entries.clear();
            }
            entries.insert(token_hash.to_vec(), CacheSlot::LoggedOut(Instant::now()));
        }
        if let Some(signal) = self.logouts().remove(token_hash) {
            signal.send_replace(true);
        }
    }

    fn logouts(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, watch::Sender<bool>>> {
        // Plain data, as for `entries`.
        self.logouts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The signal a socket opened with the session `token_hash` waits on: it is raised when
    /// that session logs out (already raised if it did so moments ago).
    pub fn logout_signal(self: &Arc<Self>, token_hash: Vec<u8>) -> LogoutSignal {
        let receiver = self
            .logouts()
            .entry(token_hash.clone())
            .or_insert_with(|| watch::Sender::new(false))
            .subscribe();
        let mut signal = LogoutSignal {
            receiver: Some(receiver),
            cache: Arc::clone(self),
            token_hash,
        };
        // A logout between the socket's sign-in and this subscription raised no signal it
        // could see, but it left its mark in `entries` first.
        let marked = self
            .entries()
            .get(&signal.token_hash)
            .is_some_and(CacheSlot::is_recent_logout);
        if marked {
            signal.unsubscribe();
        }
        signal
    }
}

/// Held by a socket for its life: [`LogoutSignal::logged_out`] completes once the session the
/// socket was opened with logs out.
#[derive(Debug)]
pub struct LogoutSignal {
    /// None once the session is known to have logged out.
    receiver: Option<watch::Receiver<bool>>,
    cache: Arc<SessionCache>,
    token_hash: Vec<u8>,
}

impl LogoutSignal {
    /// Completes at the session's logout.
    pub async fn logged_out(&mut self) {
        if let Some(receiver) = self.receiver.as_mut() {
            // The sender goes only at logout (after raising the signal), so an error means
            // logged out too.
            let _ = receiver.wait_for(|&out| out).await;
        }
    }

    /// Stops listening, and forgets the session's signal if nobody else listens. The
    /// receiver is dropped under the lock that every subscription and count is taken
    /// under: two sockets of a session closing at once each see the other's receiver
    /// gone or not, never a count that is about to drop.
    fn unsubscribe(&mut self) {
        let mut logouts = self.cache.logouts();
        drop(self.receiver.take());
        if logouts
            .get(&self.token_hash)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            logouts.remove(&self.token_hash);
        }
    }
}

impl Drop for LogoutSignal {
    fn drop(&mut self) {
        if self.receiver.is_some() {
            self.unsubscribe();
        }
    }
}

/// The logout signal for a socket being opened with the request's session cookie, if any.
pub fn socket_logout_signal(state: &AppState, headers: &HeaderMap) -> Option<LogoutSignal> {
    let token = session_token(headers)?;
    Some(state.sessions.logout_signal(token_hash(&token)))
}

/// The signed-in user, or 401 `not_logged_in`.
#[derive(Clone, Debug)]
pub struct CurrentUser(pub User);

/// The signed-in user, if any.
#[derive(Clone, Debug)]
pub struct MaybeUser(pub Option<User>);

impl FromRequestParts<AppState> for MaybeUser {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let Some(token) = session_token(&parts.headers) else {
            return Ok(MaybeUser(None));
        };
        let hash = token_hash(&token);
        let now = chrono::Utc::now();
        if let Some(user) = state.sessions.get(&hash, now) {
            return Ok(MaybeUser(Some(user)));
        }
        let Some(session) = state.store.session(&hash, now).await? else {
            return Ok(MaybeUser(None));
        };
        let user = session.user.clone();
        state.sessions.insert(hash, session);
        Ok(MaybeUser(Some(user)))
    }
}

impl FromRequestParts<AppState> for CurrentUser {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        match MaybeUser::from_request_parts(parts, state).await? {
            MaybeUser(Some(user)) => Ok(CurrentUser(user)),
            MaybeUser(None) => Err(ApiError::NotLoggedIn),
        }
    }
}

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
    state.limits.login_attempt(name, &client)?;
    let user = state.store.user_by_name(name).await?;
    let hash = match &user {
        Some(user) => state.store.password_hash(user.user_id).await?,
        None => None,
    };
    let verified = verify_password(body.password, hash).await?;
    let user = match user {
        Some(user) if verified => user,
        _ => {
            state.limits.login_failed(name, &client);
            return Err(ApiError::BadCredentials);
        }
    };
    state.limits.login_succeeded(name);
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
fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
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

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/auth/register", post(register))
        .route("/api/auth/login", post(login))
        .route("/api/auth/guest", post(guest))
        .route("/api/auth/logout", post(logout))
        .route("/api/me", get(me))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;

    #[test]
    fn a_logged_out_session_is_not_cached_again_by_a_late_lookup() {
        let cache = SessionCache::default();
        let now = chrono::Utc::now();
        let session = crate::store::Session {
            user: User {
                user_id: uuid::Uuid::new_v4(),
                username: "alice".into(),
                is_guest: false,
                created_at: now,
            },
            expires_at: now + chrono::Duration::days(1),
        };
        let hash = token_hash("token");
        cache.insert(hash.clone(), session.clone());
        assert_eq!(
            cache.get(&hash, now).map(|u| u.username),
            Some("alice".into())
        );
        cache.forget(&hash);
        assert_eq!(cache.get(&hash, now), None);
        // A lookup that read the database before the logout deleted the session, and
        // stores what it read only now.
        cache.insert(hash.clone(), session);
        assert_eq!(cache.get(&hash, now), None);
    }

    /// Whether `signal` has been raised, without waiting.
    fn raised(signal: &mut LogoutSignal) -> bool {
        let waker = std::task::Waker::noop();
        let mut context = std::task::Context::from_waker(waker);
        let future = std::pin::pin!(signal.logged_out());
        future.poll(&mut context).is_ready()
    }

    #[test]
    fn a_logout_raises_the_signal_of_its_own_sessions_sockets_only() {
        let cache = Arc::new(SessionCache::default());
        let (mine, other) = (token_hash("mine"), token_hash("other"));
        let mut first = cache.logout_signal(mine.clone());
        let mut second = cache.logout_signal(mine.clone());
        let mut elsewhere = cache.logout_signal(other.clone());
        assert!(!raised(&mut first) && !raised(&mut elsewhere));
        cache.forget(&mine);
        assert!(raised(&mut first) && raised(&mut second));
        assert!(!raised(&mut elsewhere));
        // A socket whose sign-in read the session just before the logout, and which asks
        // for its signal only after it: raised at once.
        assert!(raised(&mut cache.logout_signal(mine)));
    }

    #[test]
    fn a_sessions_signal_is_forgotten_with_its_last_socket() {
        let cache = Arc::new(SessionCache::default());
        let hash = token_hash("token");
        let first = cache.logout_signal(hash.clone());
        let second = cache.logout_signal(hash.clone());
        drop(first);
        assert!(cache.logouts().contains_key(&hash));
        drop(second);
        assert!(cache.logouts().is_empty());
        // Also when many sockets of one session close at once.
        let signals: Vec<LogoutSignal> =
            (0..64).map(|_| cache.logout_signal(hash.clone())).collect();
        std::thread::scope(|scope| {
            for signal in signals {
                scope.spawn(move || drop(signal));
            }
        });
        assert!(cache.logouts().is_empty());
        // And a signal asked for after the logout leaves nothing behind.
        cache.forget(&hash);
        drop(cache.logout_signal(hash));
        assert!(cache.logouts().is_empty());
    }

    #[test]
    fn usernames_are_validated() {
        for good in ["alice", "Bob_99", "x-y-z", "abcdefghijklmnopqrst"] {
            assert!(Username::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "ab",
            "1abc",
            "_abc",
            "has space",
            "héllo",
            "abcdefghijklmnopqrstu",
            "admin",
            "Admin",
            "guest",
            "Guest1234",
            "a<b>",
            " alice",
            "alice ",
            "\talice\n",
        ] {
            assert!(Username::parse(bad).is_err(), "{bad}");
        }
    }

    fn origin_headers(origin: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ORIGIN, HeaderValue::from_static(origin));
        headers
    }

    fn client_to(host: &str, forwarded_https: Option<bool>) -> ClientInfo {
        ClientInfo {
            ip: std::net::IpAddr::from([192, 0, 2, 1]),
            forwarded_https,
            host: Some(host.to_string()),
        }
    }

    #[test]
    fn without_a_public_url_the_origin_is_the_host_asked_for() {
        let site = Site::default();
        let local = client_to("LocalHost:8080", None);
        assert!(same_origin(&HeaderMap::new(), &site, &local));
        assert!(same_origin(
            &origin_headers("http://localhost:8080"),
            &site,
            &local
        ));
        assert!(!same_origin(
            &origin_headers("http://localhost:8081"),
            &site,
            &local
        ));
        assert!(!same_origin(
            &origin_headers("http://evil.example"),
            &site,
            &local
        ));
        assert!(!same_origin(&origin_headers("null"), &site, &local));
        // The default port may be named in `Host` and not in `Origin`.
        let default_port = client_to("chess.example.org:443", Some(true));
        assert!(same_origin(
            &origin_headers("https://chess.example.org"),
            &site,
            &default_port
        ));
        // A trusted proxy that says https rules out an http page, and the other way round.
        assert!(!same_origin(
            &origin_headers("http://chess.example.org:443"),
            &site,
            &default_port
        ));
    }

    #[test]
    fn a_public_url_fixes_the_origin_whatever_the_host() {
        let site = Site::new("https://chess.example.org".parse().ok(), Vec::new());
        // A proxy that rewrote `Host` to its upstream's name.
        let rewritten = client_to("127.0.0.1:8080", None);
        assert!(same_origin(
            &origin_headers("https://chess.example.org"),
            &site,
            &rewritten
        ));
        assert!(same_origin(
            &origin_headers("https://Chess.Example.org:443"),
            &site,
            &rewritten
        ));
        assert!(!same_origin(
            &origin_headers("http://chess.example.org"),
            &site,
            &rewritten
        ));
        assert!(!same_origin(
            &origin_headers("http://127.0.0.1:8080"),
            &site,
            &rewritten
        ));
    }

    #[test]
    fn websocket_upgrades_are_told_from_other_requests() {
        let with = |values: &[&'static str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(UPGRADE, HeaderValue::from_static(value));
            }
            is_websocket_upgrade(&headers)
        };
        assert!(with(&["websocket"]) && with(&["WebSocket"]));
        assert!(with(&["h2c, websocket"]) && with(&["h2c", "websocket"]));
        assert!(!with(&[]) && !with(&["h2c"]) && !with(&["websockets"]));
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            HeaderValue::from_static("a=1; oddboard_session=abc123; b=2"),
        );
        assert_eq!(session_token(&headers).as_deref(), Some("abc123"));
        assert_eq!(session_token(&HeaderMap::new()), None);
    }
}
