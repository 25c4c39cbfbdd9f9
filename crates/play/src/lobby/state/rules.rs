//! The rules every command group shares: the terms of a game and their validation, which
//! colours pair, rating ranges, formulas and noplay lists between two users, and which seeks
//! a user may answer or pair with (see the module doc of `state`).

use super::{LobbyState, Seek};
use crate::clock::TimeControl;
use crate::formula::ChallengeContext;
use crate::lobby::{LobbyRefusal, MAX_INC, MAX_TIME};
use crate::rules::{Color, Variant};
use uuid::Uuid;

/// Rating range bounds, as on FICS (the lobby page's range inputs use the same constant).
pub(super) use crate::lobby::MAX_RATING;

/// The terms two seeks must share to pair: the single comparable key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Terms {
    pub variant: Variant,
    pub rated: bool,
    /// Minutes.
    pub time: u32,
    /// Seconds.
    pub inc: u32,
}

impl Terms {
    /// `0 0` is a game without a clock, as on FICS.
    pub fn time_control(self) -> Option<TimeControl> {
        (self.time > 0 || self.inc > 0).then(|| TimeControl {
            initial_ms: u64::from(self.time) * 60_000,
            increment_ms: u64::from(self.inc) * 1000,
        })
    }

    pub(super) fn text(self) -> String {
        format!(
            "{} {} {} {}",
            if self.rated { "rated" } else { "unrated" },
            self.variant,
            self.time,
            self.inc
        )
    }
}

/// Terms as asked, before the user's defaults fill the gaps.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AskedTerms {
    pub time: Option<u32>,
    pub inc: Option<u32>,
    pub rated: Option<bool>,
    pub variant: Option<Variant>,
}

pub(super) fn colors_compatible(a: Option<Color>, b: Option<Color>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x != y,
        _ => false,
    }
}

impl LobbyState {
    /// The context in which `owner`'s formula judges a game against `opponent`.
    fn context(
        &self,
        owner: Uuid,
        opponent: Uuid,
        terms: Terms,
        owner_color: Option<Color>,
    ) -> Option<ChallengeContext> {
        let me = self.users.get(&owner)?;
        let them = self.users.get(&opponent)?;
        Some(ChallengeContext {
            variant: terms.variant,
            rated: terms.rated,
            time: i64::from(terms.time),
            inc: i64::from(terms.inc),
            rating: them.rating(terms.variant),
            myrating: me.rating(terms.variant),
            registered: them.user.registered,
            my_color: owner_color,
        })
    }

    /// Whether `owner`'s formula accepts playing `opponent` on these terms.
    pub(super) fn formula_accepts(
        &self,
        owner: Uuid,
        opponent: Uuid,
        terms: Terms,
        owner_color: Option<Color>,
    ) -> bool {
        match (
            self.users.get(&owner),
            self.context(owner, opponent, terms, owner_color),
        ) {
            (Some(info), Some(ctx)) => info.formulas.accepts(&ctx),
            _ => false,
        }
    }

    /// Who blocks whom between a and b: Some(true) if a has b on their noplay list,
    /// Some(false) if b has a, None if neither.
    pub(super) fn noplay_between(&self, a: Uuid, b: Uuid) -> Option<bool> {
        if self.users.get(&a).is_some_and(|u| u.noplay.contains(&b)) {
            Some(true)
        } else if self.users.get(&b).is_some_and(|u| u.noplay.contains(&a)) {
            Some(false)
        } else {
            None
        }
    }

    pub(super) fn in_range(&self, user: Uuid, seek: &Seek) -> bool {
        self.users
            .get(&user)
            .is_some_and(|u| (seek.min..=seek.max).contains(&u.rating(seek.terms.variant)))
    }

    /// Whether `viewer` may answer `seek` (what `sought` lists): not their own, registered for
    /// a rated seek, no noplay, inside the range, passing the seeker's formula for an `f`
    /// seek, and passing the viewer's own formula.
    pub(super) fn eligible(&self, seek: &Seek, viewer: Uuid) -> bool {
        let Some(info) = self.users.get(&viewer) else {
            return false;
        };
        seek.owner != viewer
            && (!seek.terms.rated || info.user.registered)
            && self.noplay_between(seek.owner, viewer).is_none()
            && self.in_range(viewer, seek)
            && (!seek.formula || self.formula_accepts(seek.owner, viewer, seek.terms, seek.color))
            && self.formula_accepts(viewer, seek.owner, seek.terms, seek.color.map(Color::other))
    }

    /// What the live list shows a viewer: their own seeks and those they are eligible for.
    pub(super) fn shown_live(&self, seek: &Seek, viewer: Uuid) -> bool {
        seek.owner == viewer || self.eligible(seek, viewer)
    }

    /// Whether a new seek by `a` pairs with the open seek `t` (see the module doc).
    pub(super) fn seeks_pair(&self, a: Uuid, new: &Seek, t: &Seek) -> bool {
        let b = t.owner;
        b != a
            && t.terms == new.terms
            && colors_compatible(new.color, t.color)
            && self.noplay_between(a, b).is_none()
            && self.in_range(a, t)
            && self.in_range(b, new)
            && self.formula_accepts(b, a, t.terms, t.color)
            && self.formula_accepts(a, b, new.terms, new.color)
    }

    /// Terms from what was asked and `me`'s defaults, validated.
    pub(super) fn terms(
        &self,
        me: Uuid,
        asked: AskedTerms,
        rated_default: bool,
    ) -> Result<Terms, LobbyRefusal> {
        let info = self.info(me)?;
        let settings = &info.settings;
        let time = asked
            .time
            .unwrap_or(u32::try_from(settings.time_minutes).unwrap_or(5));
        let inc = asked
            .inc
            .unwrap_or(u32::try_from(settings.increment_seconds).unwrap_or(0));
        if time > MAX_TIME || inc > MAX_INC {
            return Err(LobbyRefusal::InvalidValue(format!(
                "Time must be 0-{MAX_TIME} minutes and increment 0-{MAX_INC} seconds."
            )));
        }
        let variant = asked.variant.unwrap_or(settings.variant);
        if !variant.is_playable() {
            return Err(LobbyRefusal::InvalidValue(format!(
                "{variant} is not playable yet."
            )));
        }
        let rated = asked.rated.unwrap_or(rated_default);
        if rated && !info.user.registered {
            return Err(LobbyRefusal::GuestRated);
        }
        let terms = Terms {
            variant,
            rated,
            time,
            inc,
        };
        // The games API's clock rule. Whole minutes always meet its shortest time, but the
        // rule is one, wherever a game is made.
        if let Some(control) = terms.time_control() {
            control.checked().map_err(LobbyRefusal::InvalidValue)?;
        }
        Ok(terms)
    }
}
