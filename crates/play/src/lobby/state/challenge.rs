//! Challenges: `match` (and the rematch's terms), `accept`, `decline`, `withdraw` and
//! `pending`; a challenge replaces an earlier one between the same players in the same
//! direction, and two equivalent challenges that cross start the game.

use super::games::PendingGame;
use super::rules::{colors_compatible, AskedTerms, Terms};
use super::{Challenge, LobbyState, Step};
use crate::lobby::command::{challenge_text, rating_text};
use crate::lobby::{LobbyRefusal, LobbyReply, Which};
use crate::record::LastGame;
use crate::rules::Color;
use crate::wire::lobby::{ChallengeView, LobbyEvent, MatchRequest, RemovedReason, ReplyData};
use std::fmt::Write;
use uuid::Uuid;

/// The `match` a `rematch` stands for: the last game's terms, colours swapped, against
/// `opponent` (the last game's other player).
///
/// # Errors
/// The last game's time control is not whole minutes and seconds: rounded it would be
/// another game (0.5 + 0 would become no clock at all).
pub fn rematch_request(
    me: Uuid,
    last: &LastGame,
    opponent: String,
) -> Result<MatchRequest, LobbyRefusal> {
    let my_old_color = if last.white_id == me {
        Color::White
    } else {
        Color::Black
    };
    let (time, inc) = match last.clock_ms {
        None => (0, 0),
        Some((initial, increment)) if initial % 60_000 == 0 && increment % 1000 == 0 => (
            u32::try_from(initial / 60_000).unwrap_or(u32::MAX),
            u32::try_from(increment / 1000).unwrap_or(u32::MAX),
        ),
        Some(_) => {
            return Err(LobbyRefusal::InvalidValue(
                "the last game's time control is not in whole minutes and seconds; \
                 use the game page's rematch, or match with a time control"
                    .into(),
            ))
        }
    };
    Ok(MatchRequest {
        user: opponent,
        time: Some(time),
        inc: Some(inc),
        rated: Some(last.rated),
        color: Some(my_old_color.other()),
        variant: Some(last.variant),
    })
}

impl LobbyState {
    /// Records a challenge (replacing an earlier one between the same players in the same
    /// direction) and tells both.
    pub(super) fn create_challenge(
        &mut self,
        from: Uuid,
        to: Uuid,
        terms: Terms,
        color: Option<Color>,
        seek: Option<u32>,
    ) -> ChallengeView {
        let earlier: Vec<u32> = self
            .challenges
            .values()
            .filter(|c| c.from == from && c.to == to)
            .map(|c| c.id)
            .collect();
        for id in earlier {
            self.remove_challenge(id, RemovedReason::Replaced);
        }
        self.last_challenge += 1;
        let challenge = Challenge {
            id: self.last_challenge,
            from,
            to,
            terms,
            color,
            seek,
        };
        let view = self.challenge_view(&challenge);
        self.challenges.insert(challenge.id, challenge);
        let text = challenge_text(&view);
        let event = LobbyEvent::Challenge {
            challenge: view.clone(),
            text,
        };
        self.send(vec![from, to], event);
        view
    }

    /// Takes a challenge down and tells both sides why.
    pub(super) fn remove_challenge(&mut self, id: u32, reason: RemovedReason) -> Option<Challenge> {
        let challenge = self.challenges.remove(&id)?;
        let event = LobbyEvent::ChallengeRemoved { id, reason };
        self.send(vec![challenge.from, challenge.to], event);
        Some(challenge)
    }

    /// `match`: the named user must be loaded (the actor loads them).
    pub(super) fn challenge(
        &mut self,
        me: Uuid,
        request: &MatchRequest,
    ) -> Result<Step, LobbyRefusal> {
        let them = self
            .user_named(&request.user)
            .ok_or_else(|| LobbyRefusal::UnknownUser(request.user.clone()))?;
        if them == me {
            return Err(LobbyRefusal::SelfChallenge);
        }
        let their_name = self.name(them);
        if !self.is_connected(them) {
            return Err(LobbyRefusal::NotOnline(their_name));
        }
        let both_registered = self.info(me)?.user.registered && self.info(them)?.user.registered;
        let asked = AskedTerms {
            time: request.time,
            inc: request.inc,
            rated: request.rated,
            variant: request.variant,
        };
        let terms = self.terms(me, asked, both_registered)?;
        if terms.rated && !both_registered {
            return Err(LobbyRefusal::GuestRated);
        }
        if let Some(yours) = self.noplay_between(me, them) {
            return Err(LobbyRefusal::Noplay {
                user: their_name,
                yours,
            });
        }
        if let Some(game) = self.crossing(me, them, terms, request.color) {
            return Ok(Step::Start(game));
        }
        if !self.formula_accepts(them, me, terms, request.color.map(Color::other)) {
            let (rating, provisional) = self.info(me)?.shown_rating(terms.variant);
            let text = format!(
                "Ignoring (formula): {} ({}) {}",
                self.name(me),
                rating_text(rating, provisional),
                terms.text()
            );
            self.send(
                vec![them],
                LobbyEvent::Notice {
                    text,
                    seeks: Vec::new(),
                },
            );
            return Err(LobbyRefusal::FormulaRejected { user: their_name });
        }
        let challenge = self.create_challenge(me, them, terms, request.color, None);
        let text = format!("Issuing: {}", challenge_text(&challenge));
        Ok(Self::reply(text, ReplyData::ChallengeSent { challenge }))
    }

    /// Two equivalent challenges between the same players meet: the game starts.
    fn crossing(
        &self,
        me: Uuid,
        them: Uuid,
        terms: Terms,
        color: Option<Color>,
    ) -> Option<PendingGame> {
        let c = self.challenges.values().find(|c| {
            c.from == them && c.to == me && c.terms == terms && colors_compatible(c.color, color)
        })?;
        Some(PendingGame {
            a: them,
            b: me,
            terms,
            a_color: c.color,
            accepted: Some(c.id),
            intro: format!("Your challenge intercepts {}'s challenge.", self.name(them)),
        })
    }

    /// The challenges to (`incoming`) or from `me` that `which` picks.
    fn pick(&self, me: Uuid, which: Option<&Which>, incoming: bool) -> Vec<u32> {
        self.challenges
            .values()
            .filter(|c| if incoming { c.to == me } else { c.from == me })
            .filter(|c| match which {
                None | Some(Which::All) => true,
                Some(Which::Id(n)) => c.id == *n,
                Some(Which::User(name)) => {
                    let other = if incoming { c.from } else { c.to };
                    self.name(other).eq_ignore_ascii_case(name)
                }
            })
            .map(|c| c.id)
            .collect()
    }

    pub(super) fn accept(&mut self, me: Uuid, which: Option<&Which>) -> Result<Step, LobbyRefusal> {
        let ids = self.pick(me, which, true);
        let id = match ids.as_slice() {
            [] => return Err(LobbyRefusal::NoChallenge),
            [id] => *id,
            _ => return Err(LobbyRefusal::Ambiguous),
        };
        let c = self.challenges.get(&id).ok_or(LobbyRefusal::NoChallenge)?;
        Ok(Step::Start(PendingGame {
            a: c.from,
            b: me,
            terms: c.terms,
            a_color: c.color,
            accepted: Some(id),
            intro: format!("You accept the match offer from {}.", self.name(c.from)),
        }))
    }

    pub(super) fn remove_offers(
        &mut self,
        me: Uuid,
        which: Option<&Which>,
        incoming: bool,
    ) -> Result<Step, LobbyRefusal> {
        let ids = self.pick(me, which, incoming);
        if ids.is_empty() {
            return Err(LobbyRefusal::NoChallenge);
        }
        if which.is_none() && ids.len() > 1 {
            return Err(LobbyRefusal::Ambiguous);
        }
        let reason = if incoming {
            RemovedReason::Declined
        } else {
            RemovedReason::Withdrawn
        };
        let mut lines = Vec::new();
        for id in &ids {
            if let Some(c) = self.remove_challenge(*id, reason) {
                lines.push(if incoming {
                    format!("You decline the match offer from {}.", self.name(c.from))
                } else {
                    format!("You withdraw the match offer to {}.", self.name(c.to))
                });
            }
        }
        Ok(Self::reply(
            lines.join("\n"),
            ReplyData::ChallengesRemoved { ids },
        ))
    }

    pub(super) fn pending(&self, me: Uuid) -> LobbyReply {
        let views = |incoming: bool| -> Vec<ChallengeView> {
            self.challenges
                .values()
                .filter(|c| if incoming { c.to == me } else { c.from == me })
                .map(|c| self.challenge_view(c))
                .collect()
        };
        let (incoming, outgoing) = (views(true), views(false));
        let mut text = String::new();
        if outgoing.is_empty() {
            text.push_str("There are no offers pending TO other players.");
        } else {
            text.push_str("Offers TO other players:");
            for c in &outgoing {
                let _ = write!(text, "\n  {}", challenge_text(c));
            }
        }
        if incoming.is_empty() {
            text.push_str("\nThere are no offers pending FROM other players.");
        } else {
            text.push_str("\nOffers FROM other players:");
            for c in &incoming {
                let _ = write!(text, "\n  {}", challenge_text(c));
            }
        }
        LobbyReply {
            text,
            data: ReplyData::Pending { incoming, outgoing },
        }
    }
}
