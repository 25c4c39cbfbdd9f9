//! The changes the store must hold before anyone hears of them: a game's start, an action,
//! its end. Each is proposed against copies (nothing changes), committed by the actor, then
//! adopted.

use super::{Adoption, Effects, GameState, MoveView, PlayedAction, Proposal};
use crate::event::GameEvent;
use crate::record::{
    ColorChoice, GameChange, GameEnd, GameStart, GameStatus, JsonText, NewAction, RatedSeats,
};
use crate::rules::{Color, EndReason, Outcome};
use crate::{GameNotice, Refusal, Seat};
use std::time::Duration;
use uuid::Uuid;

impl GameState {
    /// The seats once `joiner` takes the free one of this open challenge, the creator
    /// playing `creator_color`.
    ///
    /// # Errors
    /// The game has started, or the joiner created it.
    pub fn propose_start(&self, joiner: Seat, creator_color: Color) -> Result<Proposal, Refusal> {
        if self.status != GameStatus::Waiting {
            return Err(Refusal::AlreadyStarted);
        }
        if joiner.user_id == self.creator.user_id {
            return Err(Refusal::OwnGame);
        }
        let (white, black) = match creator_color {
            Color::White => (self.creator.clone(), joiner),
            Color::Black => (joiner, self.creator.clone()),
        };
        Ok(Proposal {
            change: GameChange::Start(GameStart {
                game_id: self.id,
                white_id: white.user_id,
                black_id: black.user_id,
                started_at: (self.wall_clock)(),
            }),
            adoption: Adoption::Start {
                seats: [Some(white), Some(black)],
            },
        })
    }

    /// The colour the creator of this open challenge plays, by their choice; `coin` decides
    /// a random choice.
    pub fn creator_color(&self, coin: bool) -> Color {
        match self.color_choice {
            ColorChoice::White => Color::White,
            ColorChoice::Black => Color::Black,
            ColorChoice::Random if coin => Color::White,
            ColorChoice::Random => Color::Black,
        }
    }

    /// The action the store holds for the next ply (committed, but its answer lost), to be
    /// taken in as if just played at `now`.
    ///
    /// # Errors
    /// It does not play.
    pub fn propose_stored(&self, machine: &str, now: u64) -> Result<Proposal, Refusal> {
        let forced = self.game.forced_action().as_deref() == Some(machine);
        self.propose_play(self.game.turn(), machine, now, forced)
    }

    /// The first checks on an action `user_id` sends for `ply`, before the actor settles
    /// with the store: the game has started and they play in it.
    ///
    /// # Errors
    /// Not started, or not a player.
    pub fn mover(&self, user_id: Uuid) -> Result<Color, Refusal> {
        if self.status == GameStatus::Waiting {
            return Err(Refusal::NotStarted);
        }
        self.seat_of(user_id).ok_or(Refusal::NotAPlayer)
    }

    /// An action `color` sends for `ply` at `now`: a retry of one already played is told
    /// so, then the game must be on, the ply the next one and the turn theirs.
    ///
    /// # Errors
    /// Why the action is refused; nothing changed.
    pub fn propose_action(
        &self,
        color: Color,
        ply: u32,
        action: &str,
        now: u64,
    ) -> Result<Proposal, Refusal> {
        // A retry of an action already played is told so, also when that action ended the
        // game. The client may have written it in either notation the variant reads.
        let already = ply
            .checked_sub(1)
            .and_then(|i| self.moves.get(i as usize))
            .is_some_and(|m| m.machine == action || m.human == action);
        if already {
            return Err(Refusal::Duplicate { ply });
        }
        if self.status != GameStatus::Active {
            return Err(Refusal::GameOver);
        }
        let expected = self.ply() + 1;
        if ply != expected {
            return Err(Refusal::WrongPly { expected });
        }
        if self.game.turn() != color {
            return Err(Refusal::NotYourTurn);
        }
        self.propose_play(color, action, now, false)
    }

    /// The action the rules force on the side to move at `now` (a Chazz pass), if any.
    pub fn propose_forced(&self, now: u64) -> Option<Result<Proposal, Refusal>> {
        if self.status != GameStatus::Active {
            return None;
        }
        let action = self.game.forced_action()?;
        Some(self.propose_play(self.game.turn(), &action, now, true))
    }

    /// Plays `action` for `color` on copies. A mover whose time ran out loses on time
    /// instead: the proposal is then that end, flagged as the mover's.
    pub(super) fn propose_play(
        &self,
        color: Color,
        action: &str,
        now: u64,
        forced: bool,
    ) -> Result<Proposal, Refusal> {
        if let Some(clock) = &self.clock {
            if clock.is_running() && clock.is_flagged(color, now) {
                return self.propose_flag(color, now, true).ok_or(Refusal::GameOver);
            }
        }
        let mut game = self.game.clone();
        let played = game.play(action)?;
        let ply = self.ply() + 1;
        let mut clock = self.clock.clone();
        if let Some(clock) = clock.as_mut() {
            // The clock starts once both sides have moved. (A mover out of time was flagged
            // above, so the move completes.)
            clock.complete_move(color, now, ply >= 2);
        }
        let clock_view = clock.as_ref().map(|c| c.view(now));
        let rules = game.snapshot();
        let rolls = rules
            .last_action
            .as_ref()
            .filter(|a| !a.rolls.is_empty() || !a.effects.is_empty())
            .and_then(|a| JsonText::of(a).ok());
        // An action that ends the game is committed with the game's end (and its rating):
        // one commit, and no moment at which the last move is stored but the game still
        // looks unfinished. The snapshot already holds the outcome; asking the game again
        // would repeat its search for a legal move on every move.
        let end = rules.outcome.map(|outcome| self.end_of(outcome));
        let row = NewAction {
            game_id: self.id,
            ply: i32::try_from(ply).unwrap_or(i32::MAX),
            machine: played.machine.clone(),
            human: played.human.clone(),
            white_ms: clock_view.map(|c| i64::try_from(c.white_ms).unwrap_or(i64::MAX)),
            black_ms: clock_view.map(|c| i64::try_from(c.black_ms).unwrap_or(i64::MAX)),
            rolls,
        };
        Ok(Proposal {
            change: GameChange::Act(row, end),
            adoption: Adoption::Action(Box::new(PlayedAction {
                game,
                clock,
                rules,
                ply,
                machine: played.machine,
                human: played.human,
                color,
                forced,
                at: now,
            })),
        })
    }

    /// Ends the game without an action (resignation, flag, agreement, abort…). None if it is
    /// over already.
    pub(super) fn propose_end(&self, outcome: Outcome, now: u64, mover: bool) -> Option<Proposal> {
        if self.is_over() {
            return None;
        }
        Some(Proposal {
            change: GameChange::End(self.end_of(outcome)),
            adoption: Adoption::End {
                outcome,
                flagged_mover: mover,
                at: now,
            },
        })
    }

    /// The stored end for `outcome`, rating both players if the game is rated and was played.
    fn end_of(&self, outcome: Outcome) -> GameEnd {
        let rated = match (&self.seats[0], &self.seats[1]) {
            (Some(white), Some(black))
                if self.rated
                    && self.status == GameStatus::Active
                    && outcome.reason != EndReason::Aborted =>
            {
                Some(RatedSeats {
                    variant: self.game.variant(),
                    white_id: white.user_id,
                    black_id: black.user_id,
                })
            }
            _ => None,
        };
        GameEnd {
            game_id: self.id,
            outcome,
            ended_at: (self.wall_clock)(),
            rated,
        }
    }

    /// Takes in a committed proposal at `now` (after the commit).
    pub fn adopt(&mut self, adoption: Adoption, now: u64) -> Effects {
        match adoption {
            Adoption::Start { seats } => self.adopt_start(seats, now),
            Adoption::Action(played) => self.adopt_action(*played, now),
            Adoption::End { outcome, at, .. } => self.conclude(outcome, at),
            Adoption::Takeback(taken) => self.adopt_takeback(*taken, now),
            Adoption::MoreTime { by, to, ms, clock } => {
                self.adopt_more_time(by, to, ms, clock, now)
            }
        }
    }

    fn adopt_start(&mut self, seats: [Option<Seat>; 2], now: u64) -> Effects {
        let mut effects = Effects::default();
        let (Some(white), Some(black)) = (seats[0].clone(), seats[1].clone()) else {
            return effects;
        };
        self.seats = seats;
        effects.challenge_closed = Some(self.creator.user_id);
        self.status = GameStatus::Active;
        effects.in_progress_delta = 1;
        self.resume_timers(now);
        for color in Color::ALL {
            let here = self.connections(color) > 0;
            self.joined[color.index()] = here;
            if !here && !self.is_resident(color) {
                self.gone_since[color.index()] = Some(now);
            }
        }
        let event = GameEvent::Started {
            white: white.name.clone(),
            black: black.name.clone(),
            rules: Box::new(self.game.snapshot()),
        };
        self.announce(&mut effects, &event);
        effects.notices.push(GameNotice::Started {
            game_id: self.id,
            white,
            black,
            terms: self.terms(),
        });
        effects
    }

    fn adopt_action(&mut self, played: PlayedAction, now: u64) -> Effects {
        let PlayedAction {
            game,
            mut clock,
            rules,
            ply,
            machine,
            human,
            color,
            forced,
            at,
        } = played;
        // What the players are told: the clock as the action left it.
        let clock_view = clock.as_ref().map(|c| c.view(at));
        // The opponent's time runs from now, when the action can first be seen: the
        // commit's wait is charged to neither side.
        if let Some(clock) = clock.as_mut().filter(|c| c.is_running()) {
            clock.start(color.other(), now);
        }
        let outcome = rules.outcome;
        let (update, pieces) = rules.into_update(&self.pieces);
        self.pieces = pieces;
        self.game = game;
        self.clock = clock;
        self.moves.push(MoveView {
            ply,
            machine: machine.clone(),
            human: human.clone(),
        });
        if self.draw_offer == Some(color.other()) && !forced {
            // Moving instead of answering declines the offer, as on lichess; an action the
            // rules forced was no answer.
            self.draw_offer = None;
        }
        if !forced {
            // A takeback offer is for the position it was made in: any action that is not
            // forced lapses it (the opponent moving instead of answering declines it).
            self.takeback_offer = None;
        }
        self.first_move_deadline = None;
        if ply < 2 {
            self.first_move_deadline =
                Some(at + super::timers::millis(self.settings.first_move_limit));
        }
        self.set_idle_deadline(now, Duration::ZERO);
        let mut effects = Effects::default();
        let event = GameEvent::Action {
            ply,
            machine,
            human,
            by: color,
            forced,
            clock: clock_view,
            update: Box::new(update),
        };
        self.announce(&mut effects, &event);
        if let Some(outcome) = outcome {
            effects.absorb(self.conclude(outcome, at));
        }
        effects
    }

    /// Everything after the end is stored (or found stored): stops the clock at `now`,
    /// reveals the dice seed and announces the end. Nothing if the game is over already.
    pub fn conclude(&mut self, outcome: Outcome, now: u64) -> Effects {
        let mut effects = Effects::default();
        if self.is_over() {
            return effects;
        }
        if let Some(clock) = self.clock.as_mut() {
            clock.stop(now);
        }
        let was_active = self.status == GameStatus::Active;
        if was_active {
            effects.in_progress_delta = -1;
        }
        if self.status == GameStatus::Waiting {
            effects.challenge_closed = Some(self.creator.user_id);
        }
        effects.released_places = self.players();
        self.status = if outcome.reason == EndReason::Aborted {
            GameStatus::Aborted
        } else {
            GameStatus::Finished
        };
        self.outcome = Some(outcome);
        self.first_move_deadline = None;
        self.draw_offer = None;
        self.takeback_offer = None;
        self.ended_at = Some(now);
        // The lobby hears of the end before anyone else, so a command sent after seeing the
        // end finds the ratings (stored with the end) already reloaded.
        if let (true, Some(white), Some(black)) = (was_active, &self.seats[0], &self.seats[1]) {
            effects.notices.push(GameNotice::Ended {
                game_id: self.id,
                white: white.clone(),
                black: black.clone(),
                rated: self.rated,
                outcome,
            });
        }
        let event = GameEvent::Ended {
            outcome,
            clock: self.clock.as_ref().map(|c| c.view(now)),
            dice_seed: self.dice.as_ref().map(|d| hex::encode(d.seed)),
        };
        self.announce(&mut effects, &event);
        // Lingering costs memory only: late viewers get a snapshot, and no update follows.
        self.log.keep_last(super::EVENTS_KEPT_AFTER_END);
        self.pieces = Vec::new();
        effects
    }
}
