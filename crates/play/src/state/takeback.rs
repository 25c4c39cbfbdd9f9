//! Takebacks and more time.
//!
//! A player may ask to take back their last action; once the opponent accepts, the game
//! goes back to the proposer's turn (one ply, or two when the opponent has replied, as on
//! lichess). The rules engine is pure and keeps no history to undo, so the game is rebuilt
//! from its start by replaying the actions that remain: exactly what loading the stored
//! record (whose taken-back rows the same commit deletes) does, for every variant.
//!
//! Dice: an action that rolled dice cannot be taken back (`takeback_after_roll`). Dice once
//! rolled are final (taking one back to roll again would be a free retry), and it keeps the
//! dice numbering whole: a taken-back action rolled nothing, so the rebuilt game's next roll
//! has the index it had, the same a replay of the stored record reaches, and crash recovery
//! and the dice verification agree with the game.
//!
//! More time: a player gives the opponent [`MORE_TIME_MS`] in an active game with a clock.
//! Both are committed before anyone hears of them, like actions.

use super::{founded_game, Adoption, Decision, Effects, GameState, Proposal};
use crate::clock::Clock;
use crate::event::GameEvent;
use crate::record::{GameChange, GameRecord, NewMoreTime, NewTakeback, TakenBackAction};
use crate::rules::{AnyGame, Color, Snapshot};
use crate::{PlayerRequest, Refusal};
use std::time::Duration;

/// What a gift of more time adds to the opponent's clock.
pub const MORE_TIME_MS: u64 = 15_000;

/// A takeback played on a rebuilt copy of the game, waiting for its commit.
#[derive(Debug)]
pub struct TakenBack {
    game: AnyGame,
    rules: Snapshot,
    /// How many actions remain.
    kept: usize,
    by: Color,
    /// The clock stopped at the moment of the takeback; the adoption starts it again.
    clock: Option<Clock>,
}

impl GameState {
    /// A takeback offer, acceptance or refusal by `color` at `now` (the game is active).
    pub(super) fn takeback(
        &mut self,
        color: Color,
        request: PlayerRequest,
        now: u64,
    ) -> Result<Decision, Refusal> {
        match request {
            PlayerRequest::OfferTakeback => {
                if self.takeback_offer.is_some() {
                    return Err(Refusal::NotAllowed("takeback_already_offered"));
                }
                // Refused now rather than when the opponent accepts.
                self.rebuilt_before_last_action_of(color)?;
                self.takeback_offer = Some(color);
                Ok(self.told(&GameEvent::TakebackOffered { by: color }))
            }
            PlayerRequest::AcceptTakeback => {
                if self.takeback_offer != Some(color.other()) {
                    return Err(Refusal::NotAllowed("no_takeback_offer"));
                }
                if let Some(flag) = self.flag_down(now) {
                    return Ok(Decision::Commit(flag));
                }
                self.propose_takeback(color.other(), now)
                    .map(Decision::Commit)
            }
            _ => {
                if self.takeback_offer != Some(color.other()) {
                    return Err(Refusal::NotAllowed("no_takeback_offer"));
                }
                self.takeback_offer = None;
                Ok(self.told(&GameEvent::TakebackDeclined { by: color }))
            }
        }
    }

    /// The takeback of `by`'s last action at `now`, on copies.
    ///
    /// # Errors
    /// `by` has no action to take back, or one to take back rolled dice.
    pub fn propose_takeback(&self, by: Color, now: u64) -> Result<Proposal, Refusal> {
        let (game, kept) = self.rebuilt_before_last_action_of(by)?;
        let mut clock = self.clock.clone();
        if let Some(clock) = clock.as_mut() {
            // Time used so far stays used, as on lichess; the proposer's time runs again
            // from the adoption.
            clock.stop(now);
        }
        let readings = clock.as_ref().map(|c| c.view(now));
        let taken_back = (self.moves.get(kept..).unwrap_or_default().iter())
            .map(|m| TakenBackAction {
                ply: ply_number(m.ply),
                machine: m.machine.clone(),
                human: m.human.clone(),
            })
            .collect();
        let change = GameChange::Takeback(NewTakeback {
            game_id: self.id,
            by,
            ply: i32::try_from(kept).unwrap_or(i32::MAX),
            taken_back,
            white_ms: readings.map(|c| bigint(c.white_ms)),
            black_ms: readings.map(|c| bigint(c.black_ms)),
        });
        let rules = game.snapshot();
        Ok(Proposal {
            change,
            adoption: Adoption::Takeback(Box::new(TakenBack {
                game,
                rules,
                kept,
                by,
                clock,
            })),
        })
    }

    /// The game rebuilt from its start up to just before `by`'s last action that the rules
    /// did not force, and how many actions that leaves.
    fn rebuilt_before_last_action_of(&self, by: Color) -> Result<(AnyGame, usize), Refusal> {
        let variant = self.game.variant();
        let start = self.start_position.as_deref();
        let mut game = founded_game(variant, start, self.dice.as_ref(), self.id)?;
        let mut before: Option<(AnyGame, usize)> = None;
        for (index, action) in self.moves.iter().enumerate() {
            let forced = game.forced_action().as_deref() == Some(action.machine.as_str());
            if game.turn() == by && !forced {
                before = Some((game.clone(), index));
            }
            game.play(&action.machine)?;
        }
        let (rebuilt, kept) = before.ok_or(Refusal::NotAllowed("nothing_to_take_back"))?;
        if variant.has_dice() {
            let mut replay = rebuilt.clone();
            for action in self.moves.get(kept..).unwrap_or_default() {
                replay.play(&action.machine)?;
                let rolled = (replay.snapshot().last_action).is_some_and(|a| !a.rolls.is_empty());
                if rolled {
                    return Err(Refusal::NotAllowed("takeback_after_roll"));
                }
            }
        }
        Ok((rebuilt, kept))
    }

    pub(super) fn adopt_takeback(&mut self, taken: TakenBack, now: u64) -> Effects {
        let TakenBack {
            game,
            rules,
            kept,
            by,
            clock,
        } = taken;
        let plies = u32::try_from(self.moves.len().saturating_sub(kept)).unwrap_or(u32::MAX);
        self.game = game;
        self.pieces = rules.pieces.clone();
        self.moves.truncate(kept);
        self.clock = clock;
        self.takeback_offer = None;
        // The first-move limit again before both sides have moved, the proposer's clock
        // otherwise; the idle limit counts from now.
        self.resume_timers(now);
        self.set_idle_deadline(now, Duration::ZERO);
        let mut effects = Effects::default();
        let event = GameEvent::Takeback {
            by,
            plies,
            rules: Box::new(rules),
            clock: self.clock.as_ref().map(|c| c.view(now)),
        };
        self.announce(&mut effects, &event);
        effects
    }

    /// `by` gives the opponent [`MORE_TIME_MS`] at `now` (the game is active).
    pub(super) fn give_more_time(&self, by: Color, now: u64) -> Result<Decision, Refusal> {
        let mut clock = self.clock.clone().ok_or(Refusal::NotAllowed("no_clock"))?;
        if let Some(flag) = self.flag_down(now) {
            return Ok(Decision::Commit(flag));
        }
        let to = by.other();
        clock.add(to, MORE_TIME_MS);
        let readings = clock.view(now);
        Ok(Decision::Commit(Proposal {
            change: GameChange::MoreTime(NewMoreTime {
                game_id: self.id,
                by,
                to,
                ms: bigint(MORE_TIME_MS),
                ply: ply_number(self.ply()),
                white_ms: Some(bigint(readings.white_ms)),
                black_ms: Some(bigint(readings.black_ms)),
            }),
            adoption: Adoption::MoreTime {
                by,
                to,
                ms: MORE_TIME_MS,
                clock,
            },
        }))
    }

    pub(super) fn adopt_more_time(
        &mut self,
        by: Color,
        to: Color,
        ms: u64,
        clock: Clock,
        now: u64,
    ) -> Effects {
        let view = clock.view(now);
        self.clock = Some(clock);
        let mut effects = Effects::default();
        let event = GameEvent::MoreTime {
            by,
            to,
            ms,
            clock: Some(view),
        };
        self.announce(&mut effects, &event);
        effects
    }
}

impl GameState {
    /// The loss on time of the side whose flag is down at `now` (its deadline has passed but
    /// the actor has not yet woken for it): neither a takeback nor more time may rescue a
    /// side whose time has run out.
    fn flag_down(&self, now: u64) -> Option<Proposal> {
        let (side, at) = self.clock.as_ref()?.flag_deadline()?;
        if now < at {
            return None;
        }
        self.propose_flag(side, now, false)
    }
}

fn bigint(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

fn ply_number(ply: u32) -> i32 {
    i32::try_from(ply).unwrap_or(i32::MAX)
}

impl GameState {
    /// The takeback the store holds when memory still has the longer line (its commit went
    /// through but the answer was lost): the same takeback proposed again, to adopt without
    /// committing. None if the record has no such takeback.
    pub fn stored_takeback(&self, record: &GameRecord, now: u64) -> Option<Proposal> {
        if record.actions.len() >= self.moves.len() {
            return None;
        }
        let last = record.adjustments.last().filter(|a| a.kind == "takeback")?;
        let by = Color::ALL.into_iter().find(|c| c.as_str() == last.by)?;
        let proposal = self.propose_takeback(by, now).ok()?;
        match &proposal.adoption {
            Adoption::Takeback(taken) if taken.kept == record.actions.len() => Some(proposal),
            _ => None,
        }
    }
}
