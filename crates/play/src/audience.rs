//! What a game actor broadcasts: each message with the audience it is for ([`Outgoing`]).
//!
//! One broadcast channel per game carries everything live, in order; most messages (events,
//! the spectator count) are for every connection, but a chat line is for one room only. Each
//! connection knows its viewer and keeps what [`Outgoing::reaches`] them. The audience names
//! the players by account at the moment the line is sent, rather than each connection
//! remembering whether it is a player's, because a spectator of an open challenge becomes a
//! player when they accept it, on the same connection.

use std::sync::Arc;
use uuid::Uuid;

/// Who a broadcast message is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audience {
    /// Every connection to the game.
    Everyone,
    /// Only connections of these accounts (the players' chat room).
    Only(Arc<[Uuid]>),
    /// Every connection but those of these accounts, anonymous viewers included (the
    /// spectators' chat room).
    AllBut(Arc<[Uuid]>),
}

/// One message on a game's broadcast channel.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub audience: Audience,
    /// The message, serialized once for everyone it reaches.
    pub text: Arc<str>,
}

impl Outgoing {
    /// A message for every connection.
    pub fn everyone(text: Arc<str>) -> Outgoing {
        Outgoing {
            audience: Audience::Everyone,
            text,
        }
    }

    /// Whether a connection of `viewer` (None: not signed in) gets this message.
    pub fn reaches(&self, viewer: Option<Uuid>) -> bool {
        match &self.audience {
            Audience::Everyone => true,
            Audience::Only(accounts) => viewer.is_some_and(|v| accounts.contains(&v)),
            Audience::AllBut(accounts) => !viewer.is_some_and(|v| accounts.contains(&v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_audience_reaches_its_own_viewers_only() {
        let (ann, bob, eve) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let players: Arc<[Uuid]> = Arc::from([ann, bob]);
        let text: Arc<str> = Arc::from("{}");
        let to_players = Outgoing {
            audience: Audience::Only(players.clone()),
            text: text.clone(),
        };
        let to_spectators = Outgoing {
            audience: Audience::AllBut(players),
            text: text.clone(),
        };
        let to_all = Outgoing::everyone(text);
        for viewer in [Some(ann), Some(bob)] {
            assert!(to_players.reaches(viewer));
            assert!(!to_spectators.reaches(viewer));
            assert!(to_all.reaches(viewer));
        }
        for viewer in [Some(eve), None] {
            assert!(!to_players.reaches(viewer));
            assert!(to_spectators.reaches(viewer));
            assert!(to_all.reaches(viewer));
        }
    }
}
