//! The running server's side of `oddboard admin`: listens for the store's
//! [`AdminNotice`]s and applies each to what the server holds in memory. A disabled
//! account's sessions are forgotten and their sockets closed (as at a logout, `logged_out`);
//! an aborted game's actor ends the game for its players. The change itself is already in
//! the database (see `store::admin`), so a notice missed while the connection was down
//! costs only this: a cached session of the account works until the cache's minute is up
//! (then the database refuses it), its open sockets stay open, and an aborted game's actor
//! plays on in memory, none of which it can store any more but its moves.

use super::AppState;
use crate::store::{AdminNotice, Heard};
use std::time::Duration;

/// How long to wait before listening again after PostgreSQL could not be reached.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Listens until the server shuts down.
pub async fn listen(state: AppState) {
    let shutting_down = state.shutting_down();
    tokio::pin!(shutting_down);
    let mut notices = loop {
        match state.store.admin_notices().await {
            Ok(notices) => break notices,
            Err(e) => tracing::warn!(cause = %e, "cannot listen for admin notices yet"),
        }
        tokio::select! {
            () = &mut shutting_down => return,
            () = tokio::time::sleep(RETRY_AFTER) => {}
        }
    };
    loop {
        let heard = tokio::select! {
            () = &mut shutting_down => return,
            heard = notices.next() => heard,
        };
        match heard {
            Ok(Heard::Notice(notice)) => apply(&state, notice).await,
            Ok(Heard::Reconnecting) => {
                tracing::warn!("admin notices: connection lost, listening again");
            }
            Err(e) => {
                tracing::warn!(cause = %e, "admin notices: cannot listen");
                tokio::select! {
                    () = &mut shutting_down => return,
                    () = tokio::time::sleep(RETRY_AFTER) => {}
                }
            }
        }
    }
}

async fn apply(state: &AppState, notice: AdminNotice) {
    match notice {
        AdminNotice::AccountDisabled { user_id, sessions } => {
            let mut closed = 0;
            for session in &sessions {
                if let Ok(token_hash) = hex::decode(session) {
                    state.sessions.forget(&token_hash);
                    closed += 1;
                }
            }
            tracing::info!(%user_id, sessions = closed, "account disabled by an operator");
        }
        AdminNotice::GameAborted { game_id } => {
            if let Some(game) = state.games.get(game_id) {
                game.aborted_in_store().await;
            }
            tracing::info!(%game_id, "game aborted by an operator");
        }
    }
}
