//! The kinds of a game's versioned events ([`GameEvent`]): everything that happens in a live
//! game, sent to every player and spectator as `{"t":"event","v":N,"kind":…}`
//! ([`super::EventMsg`]).

use super::ClockView;
use crate::rules::{Color, Outcome, Snapshot, SnapshotUpdate};
use serde::Serialize;
use uuid::Uuid;

/// Something that happened in a game, as sent to clients.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameEvent {
    /// Both seats are taken; the game has begun.
    Started {
        white: String,
        black: String,
        rules: Box<Snapshot>,
    },
    /// An action was committed and played. `update` turns the rules snapshot of the previous
    /// event (or of the snapshot the client started from) into the new one.
    Action {
        ply: u32,
        machine: String,
        human: String,
        by: Color,
        /// The server played it for `by`, who had no other (a Do-Or-Die Chazz pass); the
        /// field is left out otherwise.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        forced: bool,
        clock: Option<ClockView>,
        update: Box<SnapshotUpdate>,
    },
    DrawOffered {
        by: Color,
    },
    DrawDeclined {
        by: Color,
    },
    RematchOffered {
        by: Color,
    },
    RematchDeclined {
        by: Color,
    },
    /// A rematch was agreed: the new game's id.
    Rematch {
        game_id: Uuid,
    },
    TakebackOffered {
        by: Color,
    },
    /// `by` declined the standing takeback offer.
    TakebackDeclined {
        by: Color,
    },
    /// A takeback was accepted: `plies` actions were removed (back to `by`'s turn, `by`
    /// being the side whose takeback it was), `rules` is the whole rules snapshot after it
    /// (a client pops `plies` moves off its list and takes `rules` as is).
    Takeback {
        by: Color,
        plies: u32,
        rules: Box<Snapshot>,
        clock: Option<ClockView>,
    },
    /// `by` gave `to` `ms` more on the clock.
    MoreTime {
        by: Color,
        to: Color,
        ms: u64,
        clock: Option<ClockView>,
    },
    /// A player's last connection closed; the opponent may claim after the delay.
    PlayerGone {
        color: Color,
        claim_after_ms: u64,
    },
    PlayerBack {
        color: Color,
    },
    /// The game is over. For dice variants the seed is revealed now.
    Ended {
        outcome: Outcome,
        clock: Option<ClockView>,
        dice_seed: Option<String>,
    },
}
