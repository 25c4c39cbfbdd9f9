//! The lobby actor: the one task that owns every open seek, every pending challenge, the
//! seek numbers, the lobby connections and a cache of the users it deals with (ratings,
//! settings, parsed formulas, noplay lists). It takes one message at a time, so each
//! pairing decision sees the state every earlier one left.
//!
//! The matching rules (FICS, as FatICS implements them; `docs/protocol.md` has the list):
//! a new seek pairs at once with the oldest compatible *auto* seek of another user; otherwise
//! every compatible *manual* seek's owner gets a challenge and the seek is posted.
//! Compatible: same terms (variant, rated, time, inc), both colours open or opposite, neither
//! user on the other's noplay list, each rating inside the other seek's range, and each
//! user's formula accepting the other (neither chose this opponent, so both screens apply).
//! `play` checks the seek's range and, for an `f` seek, the seeker's formula, never the
//! responder's own.

use super::command::{challenge_text, rating_text, seek_announcement, sought_text};
use super::{
    ChallengeView, GameStartedView, LobbyCmd, LobbyConnection, LobbyError, LobbyMsg, LobbyReply,
    LobbySettings, LobbyUser, MatchRequest, PlayTarget, ReplyData, SeekRequest, SeekView,
    SettingName, Which, MAX_INC, MAX_SEEKS, MAX_TIME,
};
use crate::game::clock::TimeControl;
use crate::game::formula::{ChallengeContext, Formula, FormulaSet, Slot};
use crate::game::rating::Glicko;
use crate::game::{GameNotice, GameTerms, Games, Seat};
use crate::rules::{Color, Variant};
use crate::store::{Store, UserSettings};
use rand::Rng;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

/// Events buffered per lobby connection; a connection that falls this far behind is dropped
/// (its socket closes and the client reconnects to a fresh snapshot).
const CONNECTION_BUFFER: usize = 256;
/// How many past games colour alternation looks at.
const COLOR_HISTORY: i64 = 20;
/// Rating range bounds, as on FICS.
const MAX_RATING: i64 = 9999;
/// The rating of a registered player who has not played the variant rated.
const UNRATED: i64 = 1500;

/// The terms two seeks must share to pair: the single comparable key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Terms {
    variant: Variant,
    rated: bool,
    /// Minutes.
    time: u32,
    /// Seconds.
    inc: u32,
}

impl Terms {
    /// `0 0` is a game without a clock, as on FICS.
    fn time_control(self) -> Option<TimeControl> {
        (self.time > 0 || self.inc > 0).then(|| TimeControl {
            initial_ms: u64::from(self.time) * 60_000,
            increment_ms: u64::from(self.inc) * 1000,
        })
    }

    fn text(self) -> String {
        format!(
            "{} {} {} {}",
            if self.rated { "rated" } else { "unrated" },
            self.variant,
            self.time,
            self.inc
        )
    }
}

struct Seek {
    id: u32,
    owner: Uuid,
    terms: Terms,
    /// The colour the owner wants.
    color: Option<Color>,
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
    color: Option<Color>,
    seek: Option<u32>,
}

/// What the lobby knows about a user it deals with.
struct UserInfo {
    user: LobbyUser,
    ratings: HashMap<Variant, Glicko>,
    settings: UserSettings,
    formulas: FormulaSet,
    noplay: HashSet<Uuid>,
    connections: HashMap<u64, mpsc::Sender<Arc<str>>>,
    /// Since when the user has had no lobby connection.
    gone_since: Option<Instant>,
}

impl UserInfo {
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

/// Server → client lobby messages (`"t"`-tagged JSON; see `docs/protocol.md`).
#[derive(Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum LobbyEvent<'a> {
    Lobby {
        you: You<'a>,
        seeks: Vec<SeekView>,
        challenges: Vec<ChallengeView>,
    },
    SeekAdded {
        seek: &'a SeekView,
        /// The FICS announcement, for consoles.
        text: String,
    },
    SeekRemoved {
        id: u32,
    },
    Challenge {
        challenge: &'a ChallengeView,
        text: String,
    },
    ChallengeRemoved {
        id: u32,
        reason: &'static str,
    },
    GameStarted {
        game: &'a GameStartedView,
        text: String,
    },
    Notice {
        text: &'a str,
    },
}

#[derive(Serialize)]
struct You<'a> {
    name: &'a str,
    registered: bool,
}

impl LobbyEvent<'_> {
    fn to_json(&self) -> Arc<str> {
        serde_json::to_string(self)
            .unwrap_or_else(|_| "{\"t\":\"error\",\"code\":\"internal\"}".to_string())
            .into()
    }
}

struct LobbyActor {
    games: Games,
    store: Store,
    settings: LobbySettings,
    users: HashMap<Uuid, UserInfo>,
    seeks: BTreeMap<u32, Seek>,
    challenges: BTreeMap<u32, Challenge>,
    /// Seek numbers given back, with the moment each may be handed out again.
    resting_numbers: BTreeMap<u32, Instant>,
    highest_number: u32,
    last_challenge: u32,
    last_connection: u64,
    seq: u64,
}

/// The actor's loop: messages, game notices and presence deadlines, one at a time.
pub(super) async fn run(games: Games, settings: LobbySettings, mut rx: mpsc::Receiver<LobbyMsg>) {
    let mut notices = games.notices();
    let mut actor = LobbyActor {
        store: games.store().clone(),
        games,
        settings,
        users: HashMap::new(),
        seeks: BTreeMap::new(),
        challenges: BTreeMap::new(),
        resting_numbers: BTreeMap::new(),
        highest_number: 0,
        last_challenge: 0,
        last_connection: 0,
        seq: 0,
    };
    loop {
        let deadline = actor.next_presence_deadline();
        tokio::select! {
            // Game notices first: a command that arrives after a game started or ended must
            // see its effects (seeks gone, ratings reloaded).
            biased;
            notice = notices.recv() => match notice {
                Some(notice) => actor.on_notice(notice).await,
                // Another listener took the notices over.
                None => break,
            },
            message = rx.recv() => match message {
                Some(message) => actor.handle(message).await,
                None => break,
            },
            () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                actor.expire_presence();
            }
        }
    }
}

fn colors_compatible(a: Option<Color>, b: Option<Color>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x != y,
        _ => false,
    }
}

impl LobbyActor {
    #[tracing::instrument(name = "lobby", skip_all)]
    async fn handle(&mut self, message: LobbyMsg) {
        match message {
            LobbyMsg::Connect { user, reply } => {
                let result = self.connect(user).await;
                let _ = reply.send(result);
            }
            LobbyMsg::Disconnect {
                user_id,
                connection,
            } => self.disconnect(user_id, connection),
            LobbyMsg::Command {
                user,
                command,
                reply,
            } => {
                let result = match self.ensure_user(&user).await {
                    Ok(()) => self.command(user.user_id, command).await,
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            LobbyMsg::Seeks { viewer, all, reply } => {
                let result = match viewer {
                    Some(viewer) => match self.ensure_user(&viewer).await {
                        Ok(()) => Ok(self.sought(viewer.user_id, all)),
                        Err(e) => Err(e),
                    },
                    None => Ok(self.seeks.values().map(|s| self.seek_view(s)).collect()),
                };
                let _ = reply.send(result);
            }
        }
    }

    async fn command(&mut self, me: Uuid, command: LobbyCmd) -> Result<LobbyReply, LobbyError> {
        match command {
            LobbyCmd::Seek(request) => self.seek(me, request).await,
            LobbyCmd::Unseek(id) => self.unseek(me, id),
            LobbyCmd::Sought { all } => {
                let seeks = self.sought(me, all);
                Ok(LobbyReply {
                    text: sought_text(&seeks),
                    data: ReplyData::Seeks { seeks },
                })
            }
            LobbyCmd::Play(target) => self.play(me, target).await,
            LobbyCmd::Match(request) => self.challenge(me, request).await,
            LobbyCmd::Accept(which) => self.accept(me, which).await,
            LobbyCmd::Decline(which) => self.remove_offers(me, which, true),
            LobbyCmd::Withdraw(which) => self.remove_offers(me, which, false),
            LobbyCmd::Pending => Ok(self.pending(me)),
            LobbyCmd::Set(setting) => self.set(me, setting).await,
            LobbyCmd::Noplay(change) => self.noplay(me, change).await,
            LobbyCmd::Rematch => self.rematch(me).await,
            // Answered by the handle from the store; never sent here.
            LobbyCmd::Games | LobbyCmd::History(_) | LobbyCmd::Finger(_) | LobbyCmd::Help => {
                Err(LobbyError::BadCommand("not a lobby actor command".into()))
            }
        }
    }

    // ----- users and presence -----

    /// Loads a user into the cache if needed (ratings, settings, formulas, noplay list).
    async fn ensure_user(&mut self, user: &LobbyUser) -> Result<(), LobbyError> {
        if let Some(info) = self.users.get_mut(&user.user_id) {
            info.user = user.clone();
            return Ok(());
        }
        let ratings = self
            .store
            .ratings(user.user_id)
            .await?
            .into_iter()
            .map(|r| (r.variant, Glicko::from(r.values)))
            .collect();
        let settings = self.store.user_settings(user.user_id).await?;
        let (formulas, broken) = FormulaSet::from_texts(&settings.formula, &settings.f);
        for (slot, error) in broken {
            tracing::warn!(user = %user.name, %slot, %error, "stored formula no longer parses");
        }
        let noplay = self
            .store
            .noplay_list(user.user_id)
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        self.users.insert(
            user.user_id,
            UserInfo {
                user: user.clone(),
                ratings,
                settings,
                formulas,
                noplay,
                connections: HashMap::new(),
                // Not connected: anything they post lasts the grace unless they connect.
                gone_since: Some(Instant::now()),
            },
        );
        Ok(())
    }

    /// Finds a user by name (any case), loading them.
    async fn user_named(&mut self, name: &str) -> Result<Uuid, LobbyError> {
        if let Some(info) = self
            .users
            .values()
            .find(|u| u.user.name.eq_ignore_ascii_case(name))
        {
            return Ok(info.user.user_id);
        }
        let user = self
            .store
            .user_by_name(name)
            .await?
            .ok_or_else(|| LobbyError::UnknownUser(name.to_string()))?;
        let user = LobbyUser {
            user_id: user.user_id,
            name: user.username,
            registered: !user.is_guest,
        };
        self.ensure_user(&user).await?;
        Ok(user.user_id)
    }

    fn info(&self, id: Uuid) -> Result<&UserInfo, LobbyError> {
        self.users
            .get(&id)
            .ok_or_else(|| LobbyError::UnknownUser(id.to_string()))
    }

    fn name(&self, id: Uuid) -> String {
        self.users
            .get(&id)
            .map(|u| u.user.name.clone())
            .unwrap_or_default()
    }

    async fn connect(&mut self, user: LobbyUser) -> Result<LobbyConnection, LobbyError> {
        self.ensure_user(&user).await?;
        self.last_connection += 1;
        let id = self.last_connection;
        let (tx, events) = mpsc::channel(CONNECTION_BUFFER);
        let snapshot = self.snapshot(user.user_id);
        let _ = tx.try_send(snapshot);
        if let Some(info) = self.users.get_mut(&user.user_id) {
            info.connections.insert(id, tx);
            info.gone_since = None;
        }
        Ok(LobbyConnection { id, events })
    }

    fn disconnect(&mut self, user_id: Uuid, connection: u64) {
        if let Some(info) = self.users.get_mut(&user_id) {
            info.connections.remove(&connection);
            if info.connections.is_empty() && info.gone_since.is_none() {
                info.gone_since = Some(Instant::now());
            }
        }
    }

    fn next_presence_deadline(&self) -> Option<Instant> {
        self.users
            .values()
            .filter_map(|u| u.gone_since)
            .min()
            .map(|t| t + self.settings.presence_grace)
    }

    /// Users gone for longer than the grace lose their seeks and challenges and leave the
    /// cache.
    fn expire_presence(&mut self) {
        let now = Instant::now();
        let grace = self.settings.presence_grace;
        let gone: Vec<Uuid> = self
            .users
            .iter()
            .filter(|(_, u)| u.gone_since.is_some_and(|t| t + grace <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.clear_user(id, "gone");
            self.users.remove(&id);
        }
    }

    /// Sends a message to every connection of a user; drops connections that are closed or
    /// too far behind.
    fn send_to(&mut self, user_id: Uuid, message: &Arc<str>) {
        let Some(info) = self.users.get_mut(&user_id) else {
            return;
        };
        info.connections
            .retain(|_, tx| tx.try_send(message.clone()).is_ok());
        if info.connections.is_empty() && info.gone_since.is_none() {
            info.gone_since = Some(Instant::now());
        }
    }

    fn connected_users(&self) -> Vec<Uuid> {
        self.users
            .iter()
            .filter(|(_, u)| !u.connections.is_empty())
            .map(|(id, _)| *id)
            .collect()
    }

    fn snapshot(&self, user_id: Uuid) -> Arc<str> {
        let Some(info) = self.users.get(&user_id) else {
            return LobbyEvent::Notice { text: "" }.to_json();
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
                name: &info.user.name,
                registered: info.user.registered,
            },
            seeks,
            challenges,
        }
        .to_json()
    }

    fn resend_snapshot(&mut self, user_id: Uuid) {
        let snapshot = self.snapshot(user_id);
        self.send_to(user_id, &snapshot);
    }

    // ----- views and rules -----

    fn seek_view(&self, seek: &Seek) -> SeekView {
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

    fn challenge_view(&self, c: &Challenge) -> ChallengeView {
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
    fn formula_accepts(
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
    fn noplay_between(&self, a: Uuid, b: Uuid) -> Option<bool> {
        if self.users.get(&a).is_some_and(|u| u.noplay.contains(&b)) {
            Some(true)
        } else if self.users.get(&b).is_some_and(|u| u.noplay.contains(&a)) {
            Some(false)
        } else {
            None
        }
    }

    fn in_range(&self, user: Uuid, seek: &Seek) -> bool {
        self.users
            .get(&user)
            .is_some_and(|u| (seek.min..=seek.max).contains(&u.rating(seek.terms.variant)))
    }

    /// Whether `viewer` may answer `seek` (what `sought` lists): not their own, registered for
    /// a rated seek, no noplay, inside the range, passing the seeker's formula for an `f`
    /// seek, and passing the viewer's own formula.
    fn eligible(&self, seek: &Seek, viewer: Uuid) -> bool {
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
    fn shown_live(&self, seek: &Seek, viewer: Uuid) -> bool {
        seek.owner == viewer || self.eligible(seek, viewer)
    }

    /// Whether a new seek by `a` pairs with the open seek `t` (see the module doc).
    fn seeks_pair(&self, a: Uuid, new: &Seek, t: &Seek) -> bool {
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

    fn sought(&self, viewer: Uuid, all: bool) -> Vec<SeekView> {
        self.seeks
            .values()
            .filter(|s| all || self.eligible(s, viewer))
            .map(|s| self.seek_view(s))
            .collect()
    }

    /// Terms from what was asked and the user's defaults, validated.
    fn terms(
        &self,
        me: Uuid,
        time: Option<u32>,
        inc: Option<u32>,
        rated: Option<bool>,
        variant: Option<Variant>,
        rated_default: bool,
    ) -> Result<Terms, LobbyError> {
        let info = self.info(me)?;
        let settings = &info.settings;
        let time = time.unwrap_or(u32::try_from(settings.time_minutes).unwrap_or(5));
        let inc = inc.unwrap_or(u32::try_from(settings.increment_seconds).unwrap_or(0));
        if time > MAX_TIME || inc > MAX_INC {
            return Err(LobbyError::InvalidValue(format!(
                "Time must be 0-{MAX_TIME} minutes and increment 0-{MAX_INC} seconds."
            )));
        }
        let variant = variant.unwrap_or(settings.variant);
        if !variant.is_playable() {
            return Err(LobbyError::InvalidValue(format!(
                "{variant} is not playable yet."
            )));
        }
        let rated = rated.unwrap_or(rated_default);
        if rated && !info.user.registered {
            return Err(LobbyError::GuestRated);
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
            control.checked().map_err(LobbyError::InvalidValue)?;
        }
        Ok(terms)
    }

    // ----- seek numbers -----

    /// The lowest rested number, or a new one: numbers stay with their seek and are
    /// handed out again only after the reuse delay.
    fn allocate_number(&mut self) -> u32 {
        let now = Instant::now();
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

    fn remove_seek(&mut self, id: u32) -> Option<Seek> {
        let seek = self.seeks.remove(&id)?;
        self.resting_numbers
            .insert(id, Instant::now() + self.settings.seek_number_reuse);
        let message = LobbyEvent::SeekRemoved { id }.to_json();
        for user in self.connected_users() {
            self.send_to(user, &message);
        }
        Some(seek)
    }

    fn remove_challenge(&mut self, id: u32, reason: &'static str) -> Option<Challenge> {
        let challenge = self.challenges.remove(&id)?;
        let message = LobbyEvent::ChallengeRemoved { id, reason }.to_json();
        self.send_to(challenge.from, &message);
        self.send_to(challenge.to, &message);
        Some(challenge)
    }

    /// Removes every seek of a user and every challenge to or from them.
    fn clear_user(&mut self, user: Uuid, reason: &'static str) {
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

    // ----- starting games -----

    /// Refuses a seek or a match request of `me`'s while they have no room for another game
    /// in progress: it could only fail when it is taken (`start_game` asks again, for both
    /// players, as the game is created).
    fn ensure_room(&self, me: Uuid) -> Result<(), LobbyError> {
        let seat = Seat {
            user_id: me,
            name: self.name(me),
        };
        Ok(self.games.ensure_room(&seat)?)
    }

    /// The colour `a` plays against `b` when neither asked: from the newest game backwards,
    /// at the first where their colours differ (or only one of them played), `a` takes the
    /// opposite of what they had then; random if nothing tells them apart.
    async fn alternate_colors(&self, a: Uuid, b: Uuid) -> Color {
        let ha = self
            .store
            .color_history(a, COLOR_HISTORY)
            .await
            .unwrap_or_default();
        let hb = self
            .store
            .color_history(b, COLOR_HISTORY)
            .await
            .unwrap_or_default();
        for i in 0..ha.len().max(hb.len()) {
            match (ha.get(i), hb.get(i)) {
                (Some(x), Some(y)) if x != y => return x.other(),
                (Some(x), None) => return x.other(),
                (None, Some(y)) => return *y,
                _ => {}
            }
        }
        if rand::thread_rng().gen::<bool>() {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Starts a game between `a` and `b` (`a_color`: the colour `a` asked for, if any), then
    /// takes down both players' seeks and challenges (`accepted`, the challenge that led
    /// here, is reported as accepted). Nothing is removed if the game cannot be created.
    async fn start_game(
        &mut self,
        a: Uuid,
        b: Uuid,
        terms: Terms,
        a_color: Option<Color>,
        accepted: Option<u32>,
    ) -> Result<GameStartedView, LobbyError> {
        let a_color = match a_color {
            Some(c) => c,
            None => self.alternate_colors(a, b).await,
        };
        let seat = |id: Uuid| Seat {
            user_id: id,
            name: self.name(id),
        };
        let (white, black) = match a_color {
            Color::White => (seat(a), seat(b)),
            Color::Black => (seat(b), seat(a)),
        };
        let game_id = self
            .games
            .create_started(
                white.clone(),
                black.clone(),
                GameTerms {
                    variant: terms.variant,
                    time_control: terms.time_control(),
                    rated: terms.rated,
                },
            )
            .await?;
        if let Some(id) = accepted {
            self.remove_challenge(id, "accepted");
        }
        self.clear_user(a, "game_started");
        self.clear_user(b, "game_started");
        Ok(GameStartedView {
            game_id,
            white: white.name,
            black: black.name,
            variant: terms.variant,
            rated: terms.rated,
            time: terms.time,
            inc: terms.inc,
        })
    }

    fn creating_text(&self, game: &GameStartedView) -> String {
        let rating = |name: &str| {
            self.users
                .values()
                .find(|u| u.user.name == name)
                .map(|u| u.shown_rating(game.variant))
                .map_or("++++".to_string(), |(r, p)| rating_text(r, p))
        };
        format!(
            "Creating: {} ({}) {} ({}) {} {} {} {}\n{{Game {} ({} vs. {}) Creating {} {} match.}}",
            game.white,
            rating(&game.white),
            game.black,
            rating(&game.black),
            if game.rated { "rated" } else { "unrated" },
            game.variant,
            game.time,
            game.inc,
            game.game_id,
            game.white,
            game.black,
            if game.rated { "rated" } else { "unrated" },
            game.variant
        )
    }

    fn game_reply(&self, intro: String, game: GameStartedView) -> LobbyReply {
        let mut text = intro;
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&self.creating_text(&game));
        LobbyReply {
            text,
            data: ReplyData::GameStarted { game },
        }
    }

    // ----- commands -----

    async fn seek(&mut self, me: Uuid, request: SeekRequest) -> Result<LobbyReply, LobbyError> {
        self.ensure_room(me)?;
        let registered = self.info(me)?.user.registered;
        let terms = self.terms(
            me,
            request.time,
            request.inc,
            request.rated,
            request.variant,
            registered,
        )?;
        let (min, max) = (request.min.unwrap_or(0), request.max.unwrap_or(MAX_RATING));
        if !(0..=MAX_RATING).contains(&min) || !(0..=MAX_RATING).contains(&max) || min > max {
            return Err(LobbyError::InvalidValue(format!(
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
        if mine.iter().any(|s| {
            s.terms == new.terms
                && s.color == new.color
                && s.manual == new.manual
                && s.formula == new.formula
                && s.min == new.min
                && s.max == new.max
        }) {
            return Err(LobbyError::DuplicateSeek);
        }
        if mine.len() >= MAX_SEEKS {
            return Err(LobbyError::TooManySeeks);
        }
        let mut matching: Vec<&Seek> = self
            .seeks
            .values()
            .filter(|t| self.seeks_pair(me, &new, t))
            .collect();
        matching.sort_by_key(|t| t.seq);
        if let Some(t) = matching.iter().find(|t| !t.manual) {
            let (b, t_color) = (t.owner, t.color);
            let a_color = new.color.or(t_color.map(Color::other));
            let intro = format!("Your seek matches one posted by {}.", self.name(b));
            let game = self.start_game(me, b, terms, a_color, None).await?;
            return Ok(self.game_reply(intro, game));
        }
        let manual: Vec<(Uuid, u32)> = matching.iter().map(|t| (t.owner, t.id)).collect();
        self.seq += 1;
        let id = self.allocate_number();
        let seek = Seek { id, ..new };
        let view = self.seek_view(&seek);
        self.seeks.insert(id, seek);
        let added = LobbyEvent::SeekAdded {
            seek: &view,
            text: seek_announcement(&view),
        }
        .to_json();
        let mut saw = 0;
        for user in self.connected_users() {
            let shown = self
                .seeks
                .get(&id)
                .is_some_and(|s| self.shown_live(s, user));
            if shown {
                if user != me {
                    saw += 1;
                }
                self.send_to(user, &added);
            }
        }
        let mut text =
            format!("Your seek has been posted with index {id}.\n({saw} player(s) saw the seek.)");
        let mut challenges = Vec::new();
        for (owner, seek_id) in manual {
            let challenge = self.create_challenge(me, owner, terms, request.color, Some(seek_id));
            let _ = write!(
                text,
                "\nYour seek matches a manual seek by {}: issuing a match request.\n{}",
                challenge.to,
                challenge_text(&challenge)
            );
            challenges.push(challenge);
        }
        Ok(LobbyReply {
            text,
            data: ReplyData::SeekPosted {
                seek: view,
                challenges,
            },
        })
    }

    fn unseek(&mut self, me: Uuid, id: Option<u32>) -> Result<LobbyReply, LobbyError> {
        let ids: Vec<u32> = match id {
            Some(id) => {
                if self.seeks.get(&id).is_none_or(|s| s.owner != me) {
                    return Err(LobbyError::NoSuchSeek);
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
        Ok(LobbyReply {
            text,
            data: ReplyData::Unseeked { ids },
        })
    }

    async fn play(&mut self, me: Uuid, target: PlayTarget) -> Result<LobbyReply, LobbyError> {
        self.ensure_room(me)?;
        let seek = match target {
            PlayTarget::Seek(n) => self.seeks.get(&n),
            PlayTarget::User(name) => {
                let owner = self.user_named(&name).await?;
                if owner == me {
                    return Err(LobbyError::OwnSeek);
                }
                self.seeks
                    .values()
                    .filter(|s| s.owner == owner)
                    .min_by_key(|s| s.seq)
            }
        }
        .ok_or(LobbyError::NoSuchSeek)?;
        let (b, terms, color, manual, id) =
            (seek.owner, seek.terms, seek.color, seek.manual, seek.id);
        let owner_name = self.name(b);
        if b == me {
            return Err(LobbyError::OwnSeek);
        }
        if terms.rated && !self.info(me)?.user.registered {
            return Err(LobbyError::GuestRated);
        }
        if let Some(yours) = self.noplay_between(me, b) {
            return Err(LobbyError::Noplay {
                user: owner_name,
                yours,
            });
        }
        if !self.in_range(me, seek) {
            return Err(LobbyError::RatingOutOfRange { user: owner_name });
        }
        // The responder's own formula is not checked: answering accepts the terms.
        if seek.formula && !self.formula_accepts(b, me, terms, color) {
            return Err(LobbyError::FormulaRejected { user: owner_name });
        }
        let my_color = color.map(Color::other);
        if manual {
            let challenge = self.create_challenge(me, b, terms, my_color, Some(id));
            let text = format!(
                "Issuing match request since the seek was set to manual.\n{}",
                challenge_text(&challenge)
            );
            return Ok(LobbyReply {
                text,
                data: ReplyData::ChallengeSent { challenge },
            });
        }
        let game = self.start_game(me, b, terms, my_color, None).await?;
        Ok(self.game_reply(String::new(), game))
    }

    /// Records a challenge (replacing an earlier one between the same players in the same
    /// direction) and tells both.
    fn create_challenge(
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
            self.remove_challenge(id, "replaced");
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
        let message = LobbyEvent::Challenge {
            challenge: &view,
            text: challenge_text(&view),
        }
        .to_json();
        self.send_to(from, &message);
        self.send_to(to, &message);
        view
    }

    async fn challenge(
        &mut self,
        me: Uuid,
        request: MatchRequest,
    ) -> Result<LobbyReply, LobbyError> {
        self.ensure_room(me)?;
        let them = self.user_named(&request.user).await?;
        if them == me {
            return Err(LobbyError::SelfChallenge);
        }
        let their_name = self.name(them);
        if self.info(them)?.connections.is_empty() {
            return Err(LobbyError::NotOnline(their_name));
        }
        let both_registered = self.info(me)?.user.registered && self.info(them)?.user.registered;
        let terms = self.terms(
            me,
            request.time,
            request.inc,
            request.rated,
            request.variant,
            both_registered,
        )?;
        if terms.rated && !both_registered {
            return Err(LobbyError::GuestRated);
        }
        if let Some(yours) = self.noplay_between(me, them) {
            return Err(LobbyError::Noplay {
                user: their_name,
                yours,
            });
        }
        // Two equivalent challenges between the same players meet: the game starts.
        let crossing = self
            .challenges
            .values()
            .find(|c| {
                c.from == them
                    && c.to == me
                    && c.terms == terms
                    && colors_compatible(c.color, request.color)
            })
            .map(|c| (c.id, c.color));
        if let Some((id, their_color)) = crossing {
            let game = self
                .start_game(them, me, terms, their_color, Some(id))
                .await?;
            let intro = format!("Your challenge intercepts {their_name}'s challenge.");
            return Ok(self.game_reply(intro, game));
        }
        if !self.formula_accepts(them, me, terms, request.color.map(Color::other)) {
            let (rating, provisional) = self.info(me)?.shown_rating(terms.variant);
            let text = format!(
                "Ignoring (formula): {} ({}) {}",
                self.name(me),
                rating_text(rating, provisional),
                terms.text()
            );
            let notice = LobbyEvent::Notice { text: &text }.to_json();
            self.send_to(them, &notice);
            return Err(LobbyError::FormulaRejected { user: their_name });
        }
        let challenge = self.create_challenge(me, them, terms, request.color, None);
        let text = format!("Issuing: {}", challenge_text(&challenge));
        Ok(LobbyReply {
            text,
            data: ReplyData::ChallengeSent { challenge },
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

    async fn accept(&mut self, me: Uuid, which: Option<Which>) -> Result<LobbyReply, LobbyError> {
        let ids = self.pick(me, which.as_ref(), true);
        let id = match ids.as_slice() {
            [] => return Err(LobbyError::NoChallenge),
            [id] => *id,
            _ => return Err(LobbyError::Ambiguous),
        };
        let Some(c) = self.challenges.get(&id) else {
            return Err(LobbyError::NoChallenge);
        };
        let (from, terms, color) = (c.from, c.terms, c.color);
        let intro = format!("You accept the match offer from {}.", self.name(from));
        let game = self.start_game(from, me, terms, color, Some(id)).await?;
        Ok(self.game_reply(intro, game))
    }

    fn remove_offers(
        &mut self,
        me: Uuid,
        which: Option<Which>,
        incoming: bool,
    ) -> Result<LobbyReply, LobbyError> {
        let ids = self.pick(me, which.as_ref(), incoming);
        if ids.is_empty() {
            return Err(LobbyError::NoChallenge);
        }
        if which.is_none() && ids.len() > 1 {
            return Err(LobbyError::Ambiguous);
        }
        let mut lines = Vec::new();
        for id in &ids {
            let reason = if incoming { "declined" } else { "withdrawn" };
            if let Some(c) = self.remove_challenge(*id, reason) {
                lines.push(if incoming {
                    format!("You decline the match offer from {}.", self.name(c.from))
                } else {
                    format!("You withdraw the match offer to {}.", self.name(c.to))
                });
            }
        }
        Ok(LobbyReply {
            text: lines.join("\n"),
            data: ReplyData::ChallengesRemoved { ids },
        })
    }

    fn pending(&self, me: Uuid) -> LobbyReply {
        let incoming: Vec<ChallengeView> = self
            .challenges
            .values()
            .filter(|c| c.to == me)
            .map(|c| self.challenge_view(c))
            .collect();
        let outgoing: Vec<ChallengeView> = self
            .challenges
            .values()
            .filter(|c| c.from == me)
            .map(|c| self.challenge_view(c))
            .collect();
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

    fn settings_reply(&self, me: Uuid, text: String) -> Result<LobbyReply, LobbyError> {
        let info = self.info(me)?;
        Ok(LobbyReply {
            text,
            data: ReplyData::Settings {
                time: info.settings.time_minutes,
                inc: info.settings.increment_seconds,
                variant: info.settings.variant,
                formula: info.formulas.text(Slot::FORMULA).to_string(),
                f: info.formulas.f_texts(),
            },
        })
    }

    async fn set(
        &mut self,
        me: Uuid,
        setting: Option<(SettingName, String)>,
    ) -> Result<LobbyReply, LobbyError> {
        let Some((name, value)) = setting else {
            let info = self.info(me)?;
            let mut text = format!(
                "Variable settings of {}:\n  time={} inc={} variant={}\n  formula: {}",
                info.user.name,
                info.settings.time_minutes,
                info.settings.increment_seconds,
                info.settings.variant,
                info.formulas.text(Slot::FORMULA)
            );
            for n in 1..=9u8 {
                let slot = Slot::f(n).unwrap_or(Slot::FORMULA);
                let f = info.formulas.text(slot);
                if !f.is_empty() {
                    let _ = write!(text, "\n  f{n}: {f}");
                }
            }
            return self.settings_reply(me, text);
        };
        let mut settings = self.info(me)?.settings.clone();
        let mut formulas = self.info(me)?.formulas.clone();
        let number = |value: &str, max: u32, what: &str| -> Result<i32, LobbyError> {
            value
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= max)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| LobbyError::InvalidValue(format!("{what} must be 0-{max}.")))
        };
        let text = match name {
            SettingName::Time => {
                settings.time_minutes = number(&value, MAX_TIME, "Time")?;
                format!("Time set to {}.", settings.time_minutes)
            }
            SettingName::Inc => {
                settings.increment_seconds = number(&value, MAX_INC, "Increment")?;
                format!("Increment set to {}.", settings.increment_seconds)
            }
            SettingName::Variant => {
                let variant: Variant = value.to_ascii_lowercase().parse().map_err(
                    |e: crate::rules::UnknownVariant| LobbyError::InvalidValue(e.to_string()),
                )?;
                settings.variant = variant;
                format!("Variant set to {variant}.")
            }
            SettingName::Formula(n) => {
                let slot = if n == 0 {
                    Slot::FORMULA
                } else {
                    Slot::f(n).ok_or_else(|| LobbyError::InvalidValue("f1..f9 only.".into()))?
                };
                let parsed = Formula::parse(&value, slot).map_err(LobbyError::BadFormula)?;
                let text = if parsed.is_empty() {
                    format!("{slot} unset.")
                } else {
                    format!("{slot} set to {}.", parsed.text())
                };
                formulas.put(slot, Some(parsed));
                settings.formula = formulas.text(Slot::FORMULA).to_string();
                settings.f = formulas.f_texts();
                text
            }
        };
        self.store.save_user_settings(me, &settings).await?;
        if let Some(info) = self.users.get_mut(&me) {
            info.settings = settings;
            info.formulas = formulas;
        }
        if matches!(name, SettingName::Formula(_)) {
            // What the user sees depends on their formula.
            self.resend_snapshot(me);
        }
        self.settings_reply(me, text)
    }

    async fn noplay(
        &mut self,
        me: Uuid,
        change: Option<(String, bool)>,
    ) -> Result<LobbyReply, LobbyError> {
        let text = match change {
            None => String::new(),
            Some((name, on)) => {
                let them = self.user_named(&name).await?;
                if them == me {
                    return Err(LobbyError::InvalidValue(
                        "You can't noplay yourself.".into(),
                    ));
                }
                self.store.set_noplay(me, them, on).await?;
                let their_name = self.name(them);
                if let Some(info) = self.users.get_mut(&me) {
                    if on {
                        info.noplay.insert(them);
                    } else {
                        info.noplay.remove(&them);
                    }
                }
                if on {
                    let between: Vec<u32> = self
                        .challenges
                        .values()
                        .filter(|c| {
                            (c.from == me && c.to == them) || (c.from == them && c.to == me)
                        })
                        .map(|c| c.id)
                        .collect();
                    for id in between {
                        self.remove_challenge(id, "noplay");
                    }
                }
                // Both lists change: neither sees the other's seeks any more (or again).
                self.resend_snapshot(me);
                self.resend_snapshot(them);
                if on {
                    format!("{their_name} added to your noplay list.")
                } else {
                    format!("{their_name} removed from your noplay list.")
                }
            }
        };
        let users: Vec<String> = self
            .store
            .noplay_list(me)
            .await?
            .into_iter()
            .map(|(_, name)| name)
            .collect();
        let text = if text.is_empty() {
            format!(
                "-- noplay list: {} names --\n{}",
                users.len(),
                users.join(" ")
            )
        } else {
            text
        };
        Ok(LobbyReply {
            text,
            data: ReplyData::Noplay { users },
        })
    }

    async fn rematch(&mut self, me: Uuid) -> Result<LobbyReply, LobbyError> {
        let last = self
            .store
            .last_game_of(me)
            .await?
            .ok_or(LobbyError::NoPreviousGame)?;
        let (opponent, my_old_color) = if last.white_id == me {
            (last.black_id, Color::White)
        } else {
            (last.white_id, Color::Black)
        };
        let opponent = self
            .store
            .user_by_id(opponent)
            .await?
            .ok_or(LobbyError::NoPreviousGame)?;
        // The lobby's time controls are whole minutes and seconds, as on FICS; a game made
        // through the API may have had a fraction (0.5 + 0), which rounded down would be
        // rematched as another game (0 + 0 is no clock at all).
        let (time, inc) = match last.clock_ms {
            None => (0, 0),
            Some((initial, increment)) if initial % 60_000 == 0 && increment % 1000 == 0 => (
                u32::try_from(initial / 60_000).unwrap_or(u32::MAX),
                u32::try_from(increment / 1000).unwrap_or(u32::MAX),
            ),
            Some(_) => {
                return Err(LobbyError::InvalidValue(
                    "the last game's time control is not in whole minutes and seconds; \
                     use the game page's rematch, or match with a time control"
                        .into(),
                ))
            }
        };
        self.challenge(
            me,
            MatchRequest {
                user: opponent.username,
                time: Some(time),
                inc: Some(inc),
                rated: Some(last.rated),
                color: Some(my_old_color.other()),
                variant: Some(last.variant),
            },
        )
        .await
    }

    // ----- game notices -----

    async fn on_notice(&mut self, notice: GameNotice) {
        match notice {
            GameNotice::Started {
                game_id,
                white,
                black,
                terms,
            } => {
                // Games the lobby did not start (rematches, open challenges) also end the
                // players' seeking.
                self.clear_user(white.user_id, "game_started");
                self.clear_user(black.user_id, "game_started");
                let (time, inc) = terms.time_control.map_or((0, 0), |tc| {
                    (
                        u32::try_from(tc.initial_ms / 60_000).unwrap_or(0),
                        u32::try_from(tc.increment_ms / 1000).unwrap_or(0),
                    )
                });
                let view = GameStartedView {
                    game_id,
                    white: white.name,
                    black: black.name,
                    variant: terms.variant,
                    rated: terms.rated,
                    time,
                    inc,
                };
                let message = LobbyEvent::GameStarted {
                    game: &view,
                    text: self.creating_text(&view),
                }
                .to_json();
                self.send_to(white.user_id, &message);
                self.send_to(black.user_id, &message);
            }
            GameNotice::Ended {
                white,
                black,
                rated,
                ..
            } => {
                if !rated {
                    return;
                }
                for seat in [white, black] {
                    if !self.users.contains_key(&seat.user_id) {
                        continue;
                    }
                    match self.store.ratings(seat.user_id).await {
                        Ok(ratings) => {
                            if let Some(info) = self.users.get_mut(&seat.user_id) {
                                info.ratings = ratings
                                    .into_iter()
                                    .map(|r| (r.variant, Glicko::from(r.values)))
                                    .collect();
                            }
                            self.resend_snapshot(seat.user_id);
                        }
                        Err(e) => tracing::error!(cause = %e, "could not reload ratings"),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_pair_when_both_open_or_opposite() {
        assert!(colors_compatible(None, None));
        assert!(colors_compatible(Some(Color::White), Some(Color::Black)));
        assert!(!colors_compatible(Some(Color::White), Some(Color::White)));
        assert!(!colors_compatible(Some(Color::White), None));
        assert!(!colors_compatible(None, Some(Color::Black)));
    }

    #[test]
    fn zero_zero_is_untimed() {
        let terms = Terms {
            variant: Variant::Suicide,
            rated: false,
            time: 0,
            inc: 0,
        };
        assert_eq!(terms.time_control(), None);
        let terms = Terms {
            time: 2,
            inc: 1,
            ..terms
        };
        assert_eq!(
            terms.time_control(),
            Some(TimeControl {
                initial_ms: 120_000,
                increment_ms: 1000
            })
        );
    }
}
