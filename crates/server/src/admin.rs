//! `oddboard migrate` and `oddboard admin …`: operators' commands, run against the database
//! directly (no running server needed). `admin` changes no schema: it wants a database that
//! `migrate` (or a server) brought up to date. Each change is made by the store together with a
//! notice that running servers act on at once (`store::admin`, `web::admin_notices`).
//!
//! Output is plain text, one line per item, for people and for `grep`/`awk` alike.

use crate::command::{AdminArgs, AdminCommand};
use crate::store::{Store, StoreError};
use std::io::Write;

/// Why an admin command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// The account or game named does not exist (or, for a game, is already over).
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

impl AdminError {
    /// The process's exit status: 1 for a name or id that matches nothing, 2 otherwise.
    pub fn exit_status(&self) -> u8 {
        match self {
            AdminError::NotFound(_) => 1,
            AdminError::Store(_) | AdminError::Output(_) => 2,
        }
    }
}

/// Creates the database if missing and brings its schema up to date; returns the newest
/// migration applied.
///
/// # Errors
/// PostgreSQL cannot be reached, or a migration fails.
pub async fn migrate(database_url: &str) -> Result<i64, StoreError> {
    let store = Store::connect(database_url).await?;
    store.schema_version().await
}

/// Runs one `oddboard admin` command, writing what it did to `out`.
///
/// # Errors
/// See [`AdminError`].
pub async fn run(args: &AdminArgs, out: &mut dyn Write) -> Result<(), AdminError> {
    let store = Store::connect_migrated(&args.database.database_url).await?;
    run_on(&store, &args.command, out).await
}

/// [`run`] on a store already connected (tests).
///
/// # Errors
/// See [`AdminError`].
pub async fn run_on(
    store: &Store,
    command: &AdminCommand,
    out: &mut dyn Write,
) -> Result<(), AdminError> {
    let no_account = |name: &str| AdminError::NotFound(format!("no account is named {name}"));
    match command {
        AdminCommand::DisableAccount { username } => {
            let (account, sessions) = match store.disable_account(username).await {
                Err(StoreError::NotFound) => return Err(no_account(username)),
                other => other?,
            };
            writeln!(
                out,
                "disabled {} ({}); sessions closed: {sessions}",
                account.username, account.user_id
            )?;
        }
        AdminCommand::EnableAccount { username } => {
            let account = match store.enable_account(username).await {
                Err(StoreError::NotFound) => return Err(no_account(username)),
                other => other?,
            };
            writeln!(out, "enabled {} ({})", account.username, account.user_id)?;
        }
        AdminCommand::AbortGame { game_id } => {
            match store.abort_game(*game_id).await {
                Err(StoreError::NotFound) => {
                    return Err(AdminError::NotFound(format!(
                        "no game {game_id} is waiting or in progress"
                    )))
                }
                other => other?,
            }
            writeln!(out, "aborted {game_id}")?;
        }
        AdminCommand::Sessions { user, limit } => {
            let sessions = store
                .live_sessions(user.as_deref(), *limit, chrono::Utc::now())
                .await?;
            writeln!(out, "session_id\tusername\tguest\tcreated_at\texpires_at")?;
            for session in sessions {
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}",
                    session.session_id,
                    session.username,
                    session.is_guest,
                    session.created_at.to_rfc3339(),
                    session.expires_at.to_rfc3339()
                )?;
            }
        }
    }
    Ok(())
}
