//! Seeks: `seek` (pairing at once with an auto seek, challenging manual seekers, or
//! posting), `unseek`, `sought`, `play`, and the seek numbers, which rest before they are
//! handed out again.

use super::games::PendingGame;
use super::rules::{AskedTerms, Terms, MAX_RATING};
use super::{LobbyState, Seek, Step};
use crate::lobby::command::{challenge_text, seek_announcement, sought_text};
use crate::lobby::PlayTarget;
use crate::lobby::{LobbyRefusal, MAX_SEEKS};
use crate::rules::Color;
use crate::wire::lobby::{LobbyEvent, ReplyData, SeekRequest};
use std::fmt::Write;
use uuid::Uuid;

impl LobbyState {
    /// The seek `me` asks for, validated, before it is numbered.
    fn new_seek(&self, me: Uuid, request: &SeekRequest) -> Result<Seek, LobbyRefusal> {
        let registered = self.info(me)?.user.registered;
        let asked = AskedTerms {
            time: request.time,
            inc: request.inc,
            rated: request.rated,
            variant: request.variant,
        };
        let terms = self.terms(me, asked, registered)?;
        let (min, max) = (request.min.unwrap_or(0), request.max.unwrap_or(MAX_RATING));
        if !(0..=MAX_RATING).contains(&min) || !(0..=MAX_RATING).contains(&max) || min > max {
            return Err(LobbyRefusal::InvalidValue(format!(
                "A rating range is min-max with 0 <= min <= max <= {MAX_RATING}."
            )));
        }
        let new = Seek {
            id: 0,
            owner: me,
            terms,
            color: request.color,
            manual: request.manual,
            formula: request.formula,
            min,
            max,
            seq: self.seq + 1,
        };
        let mine: Vec<&Seek> = self.seeks.values().filter(|s| s.owner == me).collect();
        let same = |s: &&Seek| {
            s.terms == new.terms
                && s.color == new.color
                && s.manual == new.manual
                && s.formula == new.formula
                && (s.min, s.max) == (new.min, new.max)
        };
        if mine.iter().any(same) {
            return Err(LobbyRefusal::DuplicateSeek);
        }
        if mine.len() >= MAX_SEEKS {
            return Err(LobbyRefusal::TooManySeeks);
        }
        Ok(new)
    }

    pub(super) fn seek(&mut self, me: Uuid, request: &SeekRequest) -> Result<Step, LobbyRefusal> {
        let new = self.new_seek(me, request)?;
        let mut matching: Vec<&Seek> = self
            .seeks
            .values()
            .filter(|t| self.seeks_pair(me, &new, t))
            .collect();
        matching.sort_by_key(|t| t.seq);
        if let Some(t) = matching.iter().find(|t| !t.manual) {
            return Ok(Step::Start(PendingGame {
                a: me,
                b: t.owner,
                terms: new.terms,
                a_color: new.color.or(t.color.map(Color::other)),
                accepted: None,
                intro: format!("Your seek matches one posted by {}.", self.name(t.owner)),
            }));
        }
        let manual: Vec<(Uuid, u32)> = matching.iter().map(|t| (t.owner, t.id)).collect();
        let (terms, color) = (new.terms, new.color);
        let id = self.post_seek(new);
        let seen = self.announce_seek(me, id);
        let mut text =
            format!("Your seek has been posted with index {id}.\n({seen} player(s) saw the seek.)");
        let mut challenges = Vec::new();
        for (owner, seek_id) in manual {
            let challenge = self.create_challenge(me, owner, terms, color, Some(seek_id));
            let _ = write!(
                text,
                "\nYour seek matches a manual seek by {}: issuing a match request.\n{}",
                challenge.to,
                challenge_text(&challenge)
            );
            challenges.push(challenge);
        }
        let seek = self.seek_view_of(id).ok_or(LobbyRefusal::NoSuchSeek)?;
        Ok(Self::reply(
            text,
            ReplyData::SeekPosted { seek, challenges },
        ))
    }

    /// Numbers a seek and puts it up.
    fn post_seek(&mut self, seek: Seek) -> u32 {
        self.seq += 1;
        let id = self.allocate_number();
        self.seeks.insert(id, Seek { id, ..seek });
        id
    }

    /// Tells every connected user who would see a new seek; returns how many besides its
    /// owner did.
    fn announce_seek(&mut self, owner: Uuid, id: u32) -> usize {
        let Some(view) = self.seek_view_of(id) else {
            return 0;
        };
        let shown: Vec<Uuid> = self
            .connected_users()
            .into_iter()
            .filter(|user| {
                self.seeks
                    .get(&id)
                    .is_some_and(|s| self.shown_live(s, *user))
            })
            .collect();
        let seen = shown.iter().filter(|user| **user != owner).count();
        let text = seek_announcement(&view);
        self.send(shown, LobbyEvent::SeekAdded { seek: view, text });
        seen
    }

    pub(super) fn unseek(
        &mut self,
        me: Uuid,
        id: Option<u32>,
    ) -> Result<crate::lobby::LobbyReply, LobbyRefusal> {
        let ids: Vec<u32> = match id {
            Some(id) => {
                if self.seeks.get(&id).is_none_or(|s| s.owner != me) {
                    return Err(LobbyRefusal::NoSuchSeek);
                }
                vec![id]
            }
            None => self
                .seeks
                .values()
                .filter(|s| s.owner == me)
                .map(|s| s.id)
                .collect(),
        };
        for id in &ids {
            self.remove_seek(*id);
        }
        let text = if ids.is_empty() {
            "You have no active seeks.".to_string()
        } else {
            ids.iter()
                .map(|id| format!("Your seek {id} has been removed."))
                .collect::<Vec<_>>()
                .join("\n")
        };
        Ok(crate::lobby::LobbyReply {
            text,
            data: ReplyData::Unseeked { ids },
        })
    }

    pub(super) fn sought_reply(&self, me: Uuid, all: bool) -> crate::lobby::LobbyReply {
        let seeks = self.sought(me, all);
        crate::lobby::LobbyReply {
            text: sought_text(&seeks),
            data: ReplyData::Seeks { seeks },
        }
    }

    /// The seek `play` means: by number, or the oldest of the named (loaded) user's.
    fn play_target(&self, me: Uuid, target: &PlayTarget) -> Result<&Seek, LobbyRefusal> {
        match target {
            PlayTarget::Seek(n) => self.seeks.get(n),
            PlayTarget::User(name) => {
                let owner = self
                    .user_named(name)
                    .ok_or_else(|| LobbyRefusal::UnknownUser(name.clone()))?;
                if owner == me {
                    return Err(LobbyRefusal::OwnSeek);
                }
                self.seeks
                    .values()
                    .filter(|s| s.owner == owner)
                    .min_by_key(|s| s.seq)
            }
        }
        .ok_or(LobbyRefusal::NoSuchSeek)
    }

    pub(super) fn play(&mut self, me: Uuid, target: PlayTarget) -> Result<Step, LobbyRefusal> {
        let seek = self.play_target(me, &target)?;
        let (b, terms, color, manual, id) =
            (seek.owner, seek.terms, seek.color, seek.manual, seek.id);
        let owner_name = self.name(b);
        if b == me {
            return Err(LobbyRefusal::OwnSeek);
        }
        if terms.rated && !self.info(me)?.user.registered {
            return Err(LobbyRefusal::GuestRated);
        }
        if let Some(yours) = self.noplay_between(me, b) {
            return Err(LobbyRefusal::Noplay {
                user: owner_name,
                yours,
            });
        }
        if !self.in_range(me, seek) {
            return Err(LobbyRefusal::RatingOutOfRange { user: owner_name });
        }
        // The responder's own formula is not checked: answering accepts the terms.
        if seek.formula && !self.formula_accepts(b, me, terms, color) {
            return Err(LobbyRefusal::FormulaRejected { user: owner_name });
        }
        let my_color = color.map(Color::other);
        if manual {
            // The answer is a challenge, which needs its sender in the lobby.
            self.ensure_present(me)?;
            let challenge = self.create_challenge(me, b, terms, my_color, Some(id));
            let text = format!(
                "Issuing match request since the seek was set to manual.\n{}",
                challenge_text(&challenge)
            );
            return Ok(Self::reply(text, ReplyData::ChallengeSent { challenge }));
        }
        Ok(Step::Start(PendingGame {
            a: me,
            b,
            terms,
            a_color: my_color,
            accepted: None,
            intro: String::new(),
        }))
    }

    /// The lowest rested number, or a new one: numbers stay with their seek and are
    /// handed out again only after the reuse delay.
    fn allocate_number(&mut self) -> u32 {
        let now = self.now;
        let rested = self
            .resting_numbers
            .iter()
            .find(|(_, ready)| **ready <= now)
            .map(|(n, _)| *n);
        if let Some(n) = rested {
            self.resting_numbers.remove(&n);
            return n;
        }
        self.highest_number += 1;
        self.highest_number
    }

    /// Takes a seek down and tells every connected user.
    pub(super) fn remove_seek(&mut self, id: u32) -> Option<Terms> {
        let seek = self.seeks.remove(&id)?;
        let ready = self.now + self.settings.seek_number_reuse;
        self.resting_numbers.insert(id, ready);
        let everyone = self.connected_users();
        self.send(everyone, LobbyEvent::SeekRemoved { id });
        Some(seek.terms)
    }
}
