//! What a username and a password must be, and the argon2id password hashing, run on the
//! blocking pool (never on the async runtime) a few at a time. A login with an unknown name
//! is checked against [`dummy_hash`], so its time does not tell which names exist.

use crate::web::error::ApiError;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::Rng;

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
        if !has_name_characters(name) {
            return Err(ApiError::invalid(
                "invalid_username",
                "a username has only letters, digits, _ and -",
            ));
        }
        let lower = name.to_ascii_lowercase();
        // Guests and the computer's accounts are named by the server.
        if RESERVED.contains(&lower.as_str())
            || lower.starts_with("guest")
            || is_computer_name(&lower)
        {
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

pub(super) fn validate_password(password: &str) -> Result<(), ApiError> {
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

pub(super) async fn hash_password(password: String) -> Result<String, ApiError> {
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
pub(super) fn dummy_hash() -> Result<String, ApiError> {
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
pub(super) async fn verify_password(
    password: String,
    hash: Option<String>,
) -> Result<bool, ApiError> {
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

/// Whether every character of a name is one a username may have: letters, digits, `_`, `-`.
pub(crate) fn has_name_characters(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether a name (in lower case) is of the kind the server gives the computer's accounts.
pub(crate) fn is_computer_name(lower: &str) -> bool {
    lower.starts_with("computer")
}
