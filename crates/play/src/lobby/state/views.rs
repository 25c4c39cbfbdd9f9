//! What clients see of the state: seeks and challenges as views, a user's snapshot, the
//! seek lists, and how many players are online.

use super::{Challenge, LobbyState, Seek};
use crate::wire::lobby::{ChallengeView, LobbyEvent, SeekView, You};
use std::collections::HashSet;
use uuid::Uuid;

impl LobbyState {
    pub(super) fn seek_view(&self, seek: &Seek) -> SeekView {
        let (rating, provisional) = self
            .users
            .get(&seek.owner)
            .map_or((None, false), |u| u.shown_rating(seek.terms.variant));
        SeekView {
            id: seek.id,
            user: self.name(seek.owner),
            rating,
            provisional,
            variant: seek.terms.variant,
            time: seek.terms.time,
            inc: seek.terms.inc,
            rated: seek.terms.rated,
            color: seek.color,
            manual: seek.manual,
            formula: seek.formula,
            min: seek.min,
            max: seek.max,
        }
    }

    pub(super) fn seek_view_of(&self, id: u32) -> Option<SeekView> {
        self.seeks.get(&id).map(|s| self.seek_view(s))
    }

    pub(super) fn challenge_view(&self, c: &Challenge) -> ChallengeView {
        let rating = |id: Uuid| {
            self.users
                .get(&id)
                .and_then(|u| u.shown_rating(c.terms.variant).0)
        };
        ChallengeView {
            id: c.id,
            from: self.name(c.from),
            to: self.name(c.to),
            from_rating: rating(c.from),
            to_rating: rating(c.to),
            variant: c.terms.variant,
            time: c.terms.time,
            inc: c.terms.inc,
            rated: c.terms.rated,
            color: c.color,
            seek: c.seek,
        }
    }

    /// What a user's connection starts with: who they are, the seeks they see live and
    /// their challenges.
    pub fn snapshot(&self, user_id: Uuid) -> LobbyEvent {
        let Some(info) = self.users.get(&user_id) else {
            return LobbyEvent::Notice {
                text: String::new(),
                seeks: Vec::new(),
            };
        };
        let seeks = self
            .seeks
            .values()
            .filter(|s| self.shown_live(s, user_id))
            .map(|s| self.seek_view(s))
            .collect();
        let challenges = self
            .challenges
            .values()
            .filter(|c| c.from == user_id || c.to == user_id)
            .map(|c| self.challenge_view(c))
            .collect();
        LobbyEvent::Lobby {
            you: You {
                name: info.user.name.clone(),
                registered: info.user.registered,
            },
            seeks,
            challenges,
        }
    }

    /// Sends a user a fresh snapshot: what they see has changed wholesale.
    pub(super) fn resend_snapshot(&mut self, user_id: Uuid) {
        if self.is_connected(user_id) {
            let snapshot = self.snapshot(user_id);
            self.send(vec![user_id], snapshot);
        }
    }

    /// The seeks a (loaded) viewer is eligible for, or every seek.
    pub fn sought(&self, viewer: Uuid, all: bool) -> Vec<SeekView> {
        self.seeks
            .values()
            .filter(|s| all || self.eligible(s, viewer))
            .map(|s| self.seek_view(s))
            .collect()
    }

    /// Every open seek, for a viewer who is not signed in.
    pub fn all_seeks(&self) -> Vec<SeekView> {
        self.seeks.values().map(|s| self.seek_view(s)).collect()
    }

    /// How many distinct players are online: those with a lobby connection open, and those
    /// `seated` in a game in progress (the caller's list, which may repeat them).
    pub fn players_online(&self, seated: &HashSet<Uuid>) -> usize {
        let connected = self
            .users
            .iter()
            .filter(|(id, u)| u.connections > 0 && !seated.contains(id))
            .count();
        connected + seated.len()
    }
}
