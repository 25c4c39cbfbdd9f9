//! Sessions: the cookie's token (only its SHA-256 is stored), the in-memory cache of sessions
//! recently found in the database ([`SessionCache`]), the logout signal that closes a
//! session's sockets ([`LogoutSignal`]), and the extractors that turn the cookie into a user.

use super::SESSION_COOKIE;
use crate::store::User;
use crate::web::error::ApiError;
use crate::web::AppState;
use axum::extract::FromRequestParts;
use axum::http::header::COOKIE;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

pub(super) fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

pub(super) fn session_token(headers: &HeaderMap) -> Option<String> {
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
    pub(super) fn get(
        &self,
        token_hash: &[u8],
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<User> {
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

    pub(super) fn insert(&self, token_hash: Vec<u8>, session: crate::store::Session) {
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

    pub(super) fn logouts(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, watch::Sender<bool>>> {
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
