//! The lobby as plain state: every open seek, every pending challenge, the seek numbers and
//! what the lobby knows of the users it deals with (ratings, settings, parsed formulas,
//! noplay lists, how many connections they have). No task, no store, no clock: the actor
//! (the server's `game::lobby` actor) loads users in, passes the time in, and carries out what the state
//! decides — the events in [`LobbyState::take_outbox`] and the games of [`Step::Start`].
//!
//! Presence: a user's seeks and challenges last only while they have a lobby connection.
//! When their last one closes, every seek of theirs and every challenge to or from them goes
//! at once (the others are told), and the seeks are kept, bounded, to be named in a `notice`
//! on the user's next connection. A user with no lobby connection cannot post a seek or a
//! challenge (`not_in_lobby`): it would have nobody to outlive. So a seek or a challenge
//! always belongs to users who are connected, and the lobby never pairs anyone with an owner
//! who is gone.
//!
//! One file per group of commands: `seek` (seek, unseek, sought, play, seek numbers),
//! `challenge` (match, accept, decline, withdraw, pending, rematch terms), `settings` (set,
//! noplay), `games` (starting games, game notices, ratings); `rules` holds the matching rules
//! they share and `views` what clients see.
//!
//! The matching rules (FICS, as FatICS implements them; `docs/protocol.md` has the list):
//! a new seek pairs at once with the oldest compatible *auto* seek of another user; otherwise
//! every compatible *manual* seek's owner gets a challenge and the seek is posted.
//! Compatible: same terms (variant, rated, time, inc), both colours open or opposite, neither
//! user on the other's noplay list, each rating inside the other seek's range, and each
//! user's formula accepting the other (neither chose this opponent, so both screens apply).
//! `play` checks the seek's range and, for an `f` seek, the seeker's formula, never the
//! responder's own.

mod challenge;
mod games;
mod rules;
mod seek;
mod settings;
mod views;

#[cfg(test)]
mod tests;

pub use challenge::rematch_request;
pub use games::alternate_colors;
pub use games::PendingGame;
pub use settings::noplay_reply;

use rules::Terms;

use super::{
    LobbyCmd, LobbyRefusal, LobbyReply, LobbySettings, LobbyUser, PlayTarget, ReplyData, MAX_SEEKS,
};
use crate::formula::{FormulaError, FormulaSet, Slot};
use crate::rating::Glicko;
use crate::record::UserSettings;
use crate::rules::Variant;
use crate::wire::lobby::{LobbyEvent, RemovedReason, SeekView};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;
use uuid::Uuid;

/// The rating of a registered player who has not played the variant rated.
const UNRATED: i64 = 1500;

/// At most this many users' lists of seeks that went when they left are kept for their
/// return; beyond it the oldest list is dropped. With at most [`crate::lobby::MAX_SEEKS`]
/// seeks each, this bounds the lists' memory.
pub const MAX_MISSED_NOTICES: usize = 10_000;

/// An event and the users it is for.
#[derive(Clone, Debug, PartialEq)]
pub struct Delivery {
    pub to: Vec<Uuid>,
    pub event: LobbyEvent,
}

/// What a command asks of the actor.
#[derive(Debug)]
pub enum Step {
    /// Nothing more: here is the reply.
    Done(LobbyReply),
    /// Create this game, then report it with [`LobbyState::game_created`].
    Start(PendingGame),
}

struct Seek {
    id: u32,
    owner: Uuid,
    terms: Terms,
    /// The colour the owner wants.
    color: Option<crate::rules::Color>,
    manual: bool,
    formula: bool,
    min: i64,
    max: i64,
    /// Posting order, for "the oldest".
    seq: u64,
}

struct Challenge {
    id: u32,
    from: Uuid,
    to: Uuid,
    terms: Terms,
    /// The colour the challenger plays.
    color: Option<crate::rules::Color>,
    seek: Option<u32>,
}

/// The seeks that went when a user left the lobby, waiting for their next connection.
struct Missed {
    since: Instant,
    seeks: Vec<SeekView>,
}

/// What the lobby knows about a user it deals with.
pub struct UserInfo {
    user: LobbyUser,
    ratings: HashMap<Variant, Glicko>,
    settings: UserSettings,
    formulas: FormulaSet,
    noplay: HashSet<Uuid>,
    /// How many lobby connections the user has open.
    connections: usize,
    /// Since when the user has had no lobby connection (they are forgotten some time after).
    gone_since: Option<Instant>,
}

impl UserInfo {
    /// A user as loaded from the store; also the stored formulas that no longer parse.
    pub fn new(
        user: LobbyUser,
        ratings: HashMap<Variant, Glicko>,
        settings: UserSettings,
        noplay: HashSet<Uuid>,
    ) -> (UserInfo, Vec<(Slot, FormulaError)>) {
        let (formulas, broken) = FormulaSet::from_texts(&settings.formula, &settings.f);
        let info = UserInfo {
            user,
            ratings,
            settings,
            formulas,
            noplay,
            connections: 0,
            gone_since: None,
        };
        (info, broken)
    }

    /// The rating used by ranges and formulas: 0 for guests (FICS), 1500 before any rated game.
    fn rating(&self, variant: Variant) -> i64 {
        if !self.user.registered {
            return 0;
        }
        self.ratings.get(&variant).map_or(UNRATED, Glicko::rounded)
    }

    /// The rating as shown: None for guests.
    fn shown_rating(&self, variant: Variant) -> (Option<i64>, bool) {
        if !self.user.registered {
            return (None, false);
        }
        let provisional = self
            .ratings
            .get(&variant)
            .is_none_or(Glicko::is_provisional);
        (Some(self.rating(variant)), provisional)
    }
}

/// The lobby's state; see the module doc.
pub struct LobbyState {
    settings: LobbySettings,
    users: HashMap<Uuid, UserInfo>,
    seeks: BTreeMap<u32, Seek>,
    challenges: BTreeMap<u32, Challenge>,
    /// Per user who left with seeks up, those seeks (see [`MAX_MISSED_NOTICES`]).
    missed: HashMap<Uuid, Missed>,
    /// Seek numbers given back, with the moment each may be handed out again.
    resting_numbers: BTreeMap<u32, Instant>,
    highest_number: u32,
    last_challenge: u32,
    seq: u64,
    /// The time of the input being handled.
    now: Instant,
    outbox: Vec<Delivery>,
}

impl LobbyState {
    pub fn new(settings: LobbySettings, now: Instant) -> LobbyState {
        LobbyState {
            settings,
            users: HashMap::new(),
            seeks: BTreeMap::new(),
            challenges: BTreeMap::new(),
            missed: HashMap::new(),
            resting_numbers: BTreeMap::new(),
            highest_number: 0,
            last_challenge: 0,
            seq: 0,
            now,
            outbox: Vec::new(),
        }
    }

    /// The events decided since the last call, in order.
    pub fn take_outbox(&mut self) -> Vec<Delivery> {
        std::mem::take(&mut self.outbox)
    }

    fn send(&mut self, to: Vec<Uuid>, event: LobbyEvent) {
        if !to.is_empty() {
            self.outbox.push(Delivery { to, event });
        }
    }

    // ----- users and presence -----

    /// Whether the user is loaded.
    pub fn knows(&self, user_id: Uuid) -> bool {
        self.users.contains_key(&user_id)
    }

    /// Refreshes a loaded user's name and account kind; false if not loaded.
    pub fn refresh_user(&mut self, user: &LobbyUser) -> bool {
        match self.users.get_mut(&user.user_id) {
            Some(info) => {
                info.user = user.clone();
                true
            }
            None => false,
        }
    }

    /// Adds a loaded user. Not connected: they can answer seeks and challenges but post
    /// none, and are forgotten after a while unless they connect.
    pub fn add_user(&mut self, mut info: UserInfo, now: Instant) {
        info.connections = 0;
        info.gone_since = Some(now);
        self.users.insert(info.user.user_id, info);
    }

    /// A loaded user by name, any case.
    pub fn user_named(&self, name: &str) -> Option<Uuid> {
        self.users
            .values()
            .find(|u| u.user.name.eq_ignore_ascii_case(name))
            .map(|u| u.user.user_id)
    }

    fn info(&self, id: Uuid) -> Result<&UserInfo, LobbyRefusal> {
        self.users
            .get(&id)
            .ok_or_else(|| LobbyRefusal::UnknownUser(id.to_string()))
    }

    fn name(&self, id: Uuid) -> String {
        self.users
            .get(&id)
            .map(|u| u.user.name.clone())
            .unwrap_or_default()
    }

    fn is_connected(&self, id: Uuid) -> bool {
        self.users.get(&id).is_some_and(|u| u.connections > 0)
    }

    fn connected_users(&self) -> Vec<Uuid> {
        self.users
            .iter()
            .filter(|(_, u)| u.connections > 0)
            .map(|(id, _)| *id)
            .collect()
    }

    /// A (loaded) user opened a connection: its first event, the snapshot.
    pub fn connect(&mut self, user_id: Uuid) -> LobbyEvent {
        if let Some(info) = self.users.get_mut(&user_id) {
            info.connections += 1;
            info.gone_since = None;
        }
        self.snapshot(user_id)
    }

    /// A connection closed (or fell too far behind). With the user's last one, their seeks
    /// and challenges go at once (everyone concerned is told), and the seeks are kept for the
    /// `notice` of their next connection.
    pub fn disconnect(&mut self, user_id: Uuid, now: Instant) {
        let Some(info) = self.users.get_mut(&user_id) else {
            return;
        };
        info.connections = info.connections.saturating_sub(1);
        if info.connections > 0 || info.gone_since.is_some() {
            return;
        }
        info.gone_since = Some(now);
        self.now = now;
        let seeks: Vec<SeekView> = self
            .seeks
            .values()
            .filter(|s| s.owner == user_id)
            .map(|s| self.seek_view(s))
            .collect();
        self.clear_user(user_id, RemovedReason::Gone);
        if !seeks.is_empty() {
            self.keep_missed(user_id, seeks, now);
        }
    }

    /// Keeps the seeks a user lost by leaving, within [`MAX_MISSED_NOTICES`] users: expired
    /// lists go first, then the oldest.
    fn keep_missed(&mut self, user_id: Uuid, seeks: Vec<SeekView>, now: Instant) {
        if self.missed.len() >= MAX_MISSED_NOTICES && !self.missed.contains_key(&user_id) {
            let keep = self.settings.missed_notice_keep;
            self.missed.retain(|_, m| m.since + keep > now);
            if self.missed.len() >= MAX_MISSED_NOTICES {
                let oldest = self.missed.iter().min_by_key(|(_, m)| m.since);
                if let Some(oldest) = oldest.map(|(id, _)| *id) {
                    self.missed.remove(&oldest);
                }
            }
        }
        let entry = self.missed.entry(user_id).or_insert(Missed {
            since: now,
            seeks: Vec::new(),
        });
        entry.since = now;
        entry.seeks.extend(seeks);
        // A user can only lose the seeks they had at once, but stay bounded regardless.
        let excess = entry.seeks.len().saturating_sub(MAX_SEEKS);
        entry.seeks.drain(..excess);
    }

    /// The `notice` for a user's new connection naming the seeks that went when they last
    /// left, if any went and the list is not too old; given once.
    pub fn missed_notice(&mut self, user_id: Uuid, now: Instant) -> Option<LobbyEvent> {
        let missed = self.missed.remove(&user_id)?;
        if missed.since + self.settings.missed_notice_keep <= now {
            return None;
        }
        let lines: Vec<String> = missed
            .seeks
            .iter()
            .map(|s| {
                let rated = if s.rated { "rated" } else { "unrated" };
                format!("{} {} {rated} {}", s.time, s.inc, s.variant)
            })
            .collect();
        let text = format!(
            "While you were away from the lobby, your seek(s) were removed: {}. Seek again to play.",
            lines.join("; ")
        );
        Some(LobbyEvent::Notice {
            text,
            seeks: missed.seeks,
        })
    }

    /// When the next user with no lobby connection is to be forgotten.
    pub fn next_presence_deadline(&self) -> Option<Instant> {
        self.users
            .values()
            .filter_map(|u| u.gone_since)
            .min()
            .map(|t| t + self.settings.forget_after)
    }

    /// Forgets the users who have had no lobby connection for `forget_after` (they have no
    /// seek or challenge: those went when they left); returns who was forgotten.
    pub fn expire_presence(&mut self, now: Instant) -> Vec<Uuid> {
        self.now = now;
        let after = self.settings.forget_after;
        let gone: Vec<Uuid> = self
            .users
            .iter()
            .filter(|(_, u)| u.gone_since.is_some_and(|t| t + after <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in &gone {
            self.users.remove(id);
        }
        gone
    }

    /// Refuses an offer (a seek, a challenge) from a user with no lobby connection.
    fn ensure_present(&self, me: Uuid) -> Result<(), LobbyRefusal> {
        if self.is_connected(me) {
            Ok(())
        } else {
            Err(LobbyRefusal::NotInLobby)
        }
    }

    /// Removes every seek of a user and every challenge to or from them.
    fn clear_user(&mut self, user: Uuid, reason: RemovedReason) {
        let seeks: Vec<u32> = self
            .seeks
            .values()
            .filter(|s| s.owner == user)
            .map(|s| s.id)
            .collect();
        for id in seeks {
            self.remove_seek(id);
        }
        let challenges: Vec<u32> = self
            .challenges
            .values()
            .filter(|c| c.from == user || c.to == user)
            .map(|c| c.id)
            .collect();
        for id in challenges {
            self.remove_challenge(id, reason);
        }
    }

    // ----- commands -----

    /// Runs a command that needs nothing from outside the state. `me` must be loaded; so
    /// must the users a command names (`play <user>`, `match`): the actor loads them first.
    ///
    /// # Errors
    /// The command is refused: see [`LobbyRefusal`].
    pub fn command(
        &mut self,
        me: Uuid,
        command: LobbyCmd,
        now: Instant,
    ) -> Result<Step, LobbyRefusal> {
        self.now = now;
        match command {
            LobbyCmd::Seek(request) => {
                self.ensure_present(me)?;
                self.seek(me, &request)
            }
            LobbyCmd::Unseek(id) => self.unseek(me, id).map(Step::Done),
            LobbyCmd::Sought { all } => Ok(Step::Done(self.sought_reply(me, all))),
            LobbyCmd::Play(target) => self.play(me, target),
            LobbyCmd::Match(request) => {
                self.ensure_present(me)?;
                self.challenge(me, &request)
            }
            LobbyCmd::Accept(which) => self.accept(me, which.as_ref()),
            LobbyCmd::Decline(which) => self.remove_offers(me, which.as_ref(), true),
            LobbyCmd::Withdraw(which) => self.remove_offers(me, which.as_ref(), false),
            LobbyCmd::Pending => Ok(Step::Done(self.pending(me))),
            LobbyCmd::Set(None) => self.show_settings(me).map(Step::Done),
            // The rest need the store: the actor carries them out around the state.
            LobbyCmd::Set(Some(_))
            | LobbyCmd::Noplay(_)
            | LobbyCmd::Rematch
            | LobbyCmd::Games
            | LobbyCmd::History(_)
            | LobbyCmd::Finger(_)
            | LobbyCmd::Help => Err(LobbyRefusal::BadCommand(
                "not a command of the lobby's state".into(),
            )),
        }
    }

    /// The user a `play`, `match` or `noplay` names, if the actor has to load them first.
    pub fn named_user(command: &LobbyCmd) -> Option<&str> {
        match command {
            LobbyCmd::Play(PlayTarget::User(name)) | LobbyCmd::Noplay(Some((name, _))) => {
                Some(name)
            }
            LobbyCmd::Match(request) => Some(&request.user),
            _ => None,
        }
    }

    fn reply(text: String, data: ReplyData) -> Step {
        Step::Done(LobbyReply { text, data })
    }
}
