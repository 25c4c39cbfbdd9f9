//! What players ask besides playing: resigning, aborting, draw and rematch offers, claims
//! against an absent opponent; and who is connected, which those claims depend on.

use super::{Decision, Effects, GameState};
use crate::event::GameEvent;
use crate::record::GameStatus;
use crate::rules::{Color, EndReason, Outcome};
use crate::{PlayerRequest, Refusal};
use uuid::Uuid;

impl GameState {
    /// What `user_id`'s `request` at `now` leads to.
    ///
    /// # Errors
    /// Why it is refused; nothing changed.
    pub fn request(
        &mut self,
        user_id: Uuid,
        request: PlayerRequest,
        now: u64,
    ) -> Result<Decision, Refusal> {
        // The creator of an open challenge, who has no seat until someone accepts, may
        // withdraw it.
        if self.status == GameStatus::Waiting
            && request == PlayerRequest::Abort
            && user_id == self.creator.user_id
        {
            return self.end_by(Outcome::draw(EndReason::Aborted), now);
        }
        let color = self.seat_of(user_id).ok_or(Refusal::NotAPlayer)?;
        match request {
            PlayerRequest::OfferRematch
            | PlayerRequest::AcceptRematch
            | PlayerRequest::DeclineRematch => {
                if !self.is_over() {
                    return Err(Refusal::NotAllowed("game_not_over"));
                }
                self.rematch(color, request)
            }
            _ if self.is_over() => Err(Refusal::GameOver),
            _ if self.status == GameStatus::Waiting => Err(Refusal::NotStarted),
            PlayerRequest::Resign => {
                self.end_by(Outcome::win(color.other(), EndReason::Resignation), now)
            }
            PlayerRequest::Abort => {
                if self.ply() >= 2 {
                    return Err(Refusal::NotAllowed("too_late_to_abort"));
                }
                self.end_by(Outcome::draw(EndReason::Aborted), now)
            }
            PlayerRequest::OfferDraw => self.offer_draw(color, now),
            PlayerRequest::AcceptDraw => {
                if self.draw_offer != Some(color.other()) {
                    return Err(Refusal::NotAllowed("no_draw_offer"));
                }
                self.end_by(Outcome::draw(EndReason::Agreement), now)
            }
            PlayerRequest::DeclineDraw => {
                if self.draw_offer != Some(color.other()) {
                    return Err(Refusal::NotAllowed("no_draw_offer"));
                }
                self.draw_offer = None;
                Ok(self.told(&GameEvent::DrawDeclined { by: color }))
            }
            PlayerRequest::ClaimVictory => self.claim(color, Some(color), now),
            PlayerRequest::ClaimDraw => self.claim(color, None, now),
            PlayerRequest::OfferTakeback
            | PlayerRequest::AcceptTakeback
            | PlayerRequest::DeclineTakeback => self.takeback(color, request, now),
            PlayerRequest::GiveMoreTime => self.give_more_time(color, now),
        }
    }

    fn end_by(&self, outcome: Outcome, now: u64) -> Result<Decision, Refusal> {
        self.propose_end(outcome, now, false)
            .map(Decision::Commit)
            .ok_or(Refusal::GameOver)
    }

    /// An event that changes only memory, announced.
    pub(super) fn told(&mut self, event: &GameEvent) -> Decision {
        let mut effects = Effects::default();
        self.announce(&mut effects, event);
        Decision::Done(effects)
    }

    fn offer_draw(&mut self, color: Color, now: u64) -> Result<Decision, Refusal> {
        match self.draw_offer {
            Some(by) if by == color.other() => {
                self.end_by(Outcome::draw(EndReason::Agreement), now)
            }
            Some(_) => Err(Refusal::NotAllowed("draw_already_offered")),
            None => {
                self.draw_offer = Some(color);
                Ok(self.told(&GameEvent::DrawOffered { by: color }))
            }
        }
    }

    /// `color` claims the game (`winner` theirs) or a draw (`winner` None) against an
    /// opponent whose connections have all been closed for the claim delay.
    fn claim(&self, color: Color, winner: Option<Color>, now: u64) -> Result<Decision, Refusal> {
        let opponent = color.other();
        let claimable = self.connections(opponent) == 0
            && self.claim_allowed_at(opponent).is_some_and(|t| now >= t);
        if !claimable {
            return Err(Refusal::NotAllowed("opponent_present"));
        }
        // Before both sides have moved the game can still be aborted, unrated, and the
        // first-move limit aborts it anyway: an absent opponent is no win yet (as on
        // lichess).
        if self.ply() < 2 {
            return Err(Refusal::NotAllowed("abort_instead"));
        }
        let outcome = match winner {
            Some(winner) => Outcome::win(winner, EndReason::Abandoned),
            None => Outcome::draw(EndReason::Abandoned),
        };
        self.end_by(outcome, now)
    }

    fn rematch(&mut self, color: Color, request: PlayerRequest) -> Result<Decision, Refusal> {
        if self.rematch_game.is_some() {
            return Err(Refusal::NotAllowed("rematch_already_started"));
        }
        match (request, self.rematch_offer) {
            (PlayerRequest::DeclineRematch, Some(by)) if by != color => {
                self.rematch_offer = None;
                Ok(self.told(&GameEvent::RematchDeclined { by: color }))
            }
            (PlayerRequest::OfferRematch, None) => {
                self.rematch_offer = Some(color);
                Ok(self.told(&GameEvent::RematchOffered { by: color }))
            }
            (PlayerRequest::OfferRematch, Some(by)) if by == color => {
                Err(Refusal::NotAllowed("rematch_already_offered"))
            }
            (PlayerRequest::OfferRematch | PlayerRequest::AcceptRematch, Some(by))
                if by != color =>
            {
                let (Some(white), Some(black)) = (self.seats[0].clone(), self.seats[1].clone())
                else {
                    return Err(Refusal::NotAllowed("no_players"));
                };
                // Colours swap in the rematch.
                Ok(Decision::Rematch {
                    white: black,
                    black: white,
                    terms: self.terms(),
                })
            }
            _ => Err(Refusal::NotAllowed("no_rematch_offer")),
        }
    }

    /// The rematch was created as `game_id`.
    pub fn rematch_started(&mut self, game_id: Uuid) -> Effects {
        self.rematch_offer = None;
        self.rematch_game = Some(game_id);
        let mut effects = Effects::default();
        self.announce(&mut effects, &GameEvent::Rematch { game_id });
        effects
    }

    /// A connection of `viewer` (None: anonymous) opened or closed at `now`. The players
    /// are told when a seated player's last connection closes or the first opens again.
    pub fn presence(&mut self, viewer: Option<Uuid>, open: bool, now: u64) -> Effects {
        let effects = self.count_viewer(viewer, open, now);
        let watched = self.anonymous_viewers > 0 || !self.viewers.is_empty();
        if watched {
            self.unwatched_since = None;
        } else if self.unwatched_since.is_none() {
            self.unwatched_since = Some(now);
        }
        effects
    }

    fn count_viewer(&mut self, viewer: Option<Uuid>, open: bool, now: u64) -> Effects {
        let step = |count: u32| {
            if open {
                count.saturating_add(1)
            } else {
                count.saturating_sub(1)
            }
        };
        let mut effects = Effects::default();
        let Some(viewer) = viewer else {
            self.anonymous_viewers = step(self.anonymous_viewers);
            return effects;
        };
        let count = self.viewers.entry(viewer).or_insert(0);
        *count = step(*count);
        let now_connected = *count;
        if now_connected == 0 {
            self.viewers.remove(&viewer);
        }
        let Some(color) = self.seat_of(viewer) else {
            return effects;
        };
        if self.status != GameStatus::Active {
            return effects;
        }
        if open {
            self.joined[color.index()] = true;
        }
        if open && now_connected == 1 {
            if self.gone_since[color.index()].take().is_some() {
                self.announce(&mut effects, &GameEvent::PlayerBack { color });
            }
        } else if !open && now_connected == 0 {
            self.gone_since[color.index()] = Some(now);
            let claim_after_ms = self.claim_delay_ms();
            self.announce(
                &mut effects,
                &GameEvent::PlayerGone {
                    color,
                    claim_after_ms,
                },
            );
        }
        effects
    }
}
