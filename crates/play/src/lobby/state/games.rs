//! Games: the pairing decisions the actor carries out ([`PendingGame`]), what the lobby does
//! once a game exists (both players' seeks and challenges go, both hear of it), games
//! started elsewhere (rematches, open challenges), colour alternation and reloaded ratings.

use super::rules::Terms;
use super::LobbyState;
use crate::lobby::command::rating_text;
use crate::lobby::LobbyReply;
use crate::rating::Glicko;
use crate::rules::{Color, Variant};
use crate::wire::lobby::{GameStartedView, LobbyEvent, RemovedReason, ReplyData};
use crate::{GameTerms, Seat};
use std::collections::HashMap;
use uuid::Uuid;

/// A game the state decided on: between `a` and `b` on `terms`, `a` playing `a_color` if
/// anyone asked (else colours alternate by history), `accepted` the challenge that led here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingGame {
    pub a: Uuid,
    pub b: Uuid,
    pub terms: Terms,
    pub a_color: Option<Color>,
    pub accepted: Option<u32>,
    /// The reply's first line, if any.
    pub intro: String,
}

impl PendingGame {
    /// The game's terms as the game layer takes them.
    pub fn game_terms(&self) -> GameTerms {
        GameTerms {
            variant: self.terms.variant,
            time_control: self.terms.time_control(),
            rated: self.terms.rated,
        }
    }
}

/// The colour `a` plays against `b` when neither asked, from each one's colours in their
/// past games (newest first): at the first game where their colours differ (or only one of
/// them played), `a` takes the opposite of what they had then; `coin` if nothing tells them
/// apart.
pub fn alternate_colors(a_history: &[Color], b_history: &[Color], coin: Color) -> Color {
    for i in 0..a_history.len().max(b_history.len()) {
        match (a_history.get(i), b_history.get(i)) {
            (Some(x), Some(y)) if x != y => return x.other(),
            (Some(x), None) => return x.other(),
            (None, Some(y)) => return *y,
            _ => {}
        }
    }
    coin
}

impl LobbyState {
    /// The seats of a pending game once `a`'s colour is known: (white, black).
    pub fn seats(&self, game: &PendingGame, a_color: Color) -> (Seat, Seat) {
        let seat = |id: Uuid| Seat {
            user_id: id,
            name: self.name(id),
        };
        match a_color {
            Color::White => (seat(game.a), seat(game.b)),
            Color::Black => (seat(game.b), seat(game.a)),
        }
    }

    /// The game exists: the accepted challenge and both players' seeks and challenges go.
    /// (Both hear of the start from the game notice that follows.)
    pub fn game_created(
        &mut self,
        game: &PendingGame,
        a_color: Color,
        game_id: Uuid,
        now: std::time::Instant,
    ) -> LobbyReply {
        self.now = now;
        if let Some(id) = game.accepted {
            self.remove_challenge(id, RemovedReason::Accepted);
        }
        self.clear_user(game.a, RemovedReason::GameStarted);
        self.clear_user(game.b, RemovedReason::GameStarted);
        let (white, black) = self.seats(game, a_color);
        let view = GameStartedView {
            game_id,
            white: white.name,
            black: black.name,
            variant: game.terms.variant,
            rated: game.terms.rated,
            time: game.terms.time,
            inc: game.terms.inc,
        };
        let mut text = game.intro.clone();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&self.creating_text(&view));
        LobbyReply {
            text,
            data: ReplyData::GameStarted { game: view },
        }
    }

    /// A game started (by the lobby or elsewhere): the players' seeking ends, and both are
    /// told.
    pub fn game_started(
        &mut self,
        white: &Seat,
        black: &Seat,
        view: GameStartedView,
        now: std::time::Instant,
    ) {
        self.now = now;
        self.clear_user(white.user_id, RemovedReason::GameStarted);
        self.clear_user(black.user_id, RemovedReason::GameStarted);
        let text = self.creating_text(&view);
        let event = LobbyEvent::GameStarted { game: view, text };
        self.send(vec![white.user_id, black.user_id], event);
    }

    /// A loaded user's ratings changed (a rated game ended): what they see may too.
    pub fn set_ratings(&mut self, user_id: Uuid, ratings: HashMap<Variant, Glicko>) {
        if let Some(info) = self.users.get_mut(&user_id) {
            info.ratings = ratings;
            self.resend_snapshot(user_id);
        }
    }

    fn creating_text(&self, game: &GameStartedView) -> String {
        let rating = |name: &str| {
            self.users
                .values()
                .find(|u| u.user.name == name)
                .map(|u| u.shown_rating(game.variant))
                .map_or("++++".to_string(), |(r, p)| rating_text(r, p))
        };
        let rated = if game.rated { "rated" } else { "unrated" };
        format!(
            "Creating: {} ({}) {} ({}) {rated} {} {} {}\n{{Game {} ({} vs. {}) Creating {rated} {} match.}}",
            game.white,
            rating(&game.white),
            game.black,
            rating(&game.black),
            game.variant,
            game.time,
            game.inc,
            game.game_id,
            game.white,
            game.black,
            game.variant
        )
    }
}
