//! Unit tests of the lobby's state, with no server, store or clock: users are added as the
//! actor would load them, commands are text lines, time is an `Instant` the test moves, and
//! every assertion reads the state's replies, decisions and outbox.

mod challenge;
mod presence;
mod seek;
mod settings;

use super::{Delivery, LobbyState, PendingGame, Step, UserInfo};
use crate::lobby::command::parse_line;
use crate::lobby::{LobbyCmd, LobbyRefusal, LobbyReply, LobbySettings, LobbyUser};
use crate::rating::Glicko;
use crate::record::UserSettings;
use crate::rules::Variant;
use crate::wire::lobby::LobbyEvent;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// A lobby with FICS's timings, and the test's clock.
struct Lobby {
    state: LobbyState,
    now: Instant,
}

/// A rating that is no longer provisional.
fn established(rating: f64) -> Glicko {
    Glicko {
        rating,
        deviation: 60.0,
        volatility: 0.06,
    }
}

impl Lobby {
    fn new() -> Lobby {
        let now = Instant::now();
        let settings = LobbySettings {
            forget_after: Duration::from_secs(5),
            seek_number_reuse: Duration::from_secs(90),
            join_limit: Duration::from_secs(15),
            missed_notice_keep: Duration::from_secs(3600),
        };
        Lobby {
            state: LobbyState::new(settings, now),
            now,
        }
    }

    /// Loads a user with these Suicide rating (if any) and settings, not connected.
    fn load(&mut self, name: &str, registered: bool, rating: Option<f64>) -> Uuid {
        let user = LobbyUser {
            user_id: Uuid::new_v4(),
            name: name.to_string(),
            registered,
        };
        let id = user.user_id;
        let ratings: HashMap<Variant, Glicko> = rating
            .map(|r| (Variant::Suicide, established(r)))
            .into_iter()
            .collect();
        let (info, broken) = UserInfo::new(user, ratings, UserSettings::default(), HashSet::new());
        assert!(broken.is_empty());
        self.state.add_user(info, self.now);
        id
    }

    /// A connected user, its snapshot taken.
    fn join(&mut self, name: &str, registered: bool, rating: Option<f64>) -> Uuid {
        let id = self.load(name, registered, rating);
        let snapshot = self.state.connect(id);
        assert!(matches!(snapshot, LobbyEvent::Lobby { .. }), "{snapshot:?}");
        id
    }

    fn guest(&mut self, name: &str) -> Uuid {
        self.join(name, false, None)
    }

    fn player(&mut self, name: &str, rating: f64) -> Uuid {
        self.join(name, true, Some(rating))
    }

    fn advance(&mut self, by: Duration) {
        self.now += by;
    }

    fn run(&mut self, who: Uuid, line: &str) -> Result<Step, LobbyRefusal> {
        let command = parse_line(line).unwrap_or_else(|e| panic!("`{line}`: {e}"));
        self.command(who, command)
    }

    fn command(&mut self, who: Uuid, command: LobbyCmd) -> Result<Step, LobbyRefusal> {
        self.state.command(who, command, self.now)
    }

    /// A command that must be answered without a game.
    fn ok(&mut self, who: Uuid, line: &str) -> LobbyReply {
        match self.run(who, line) {
            Ok(Step::Done(reply)) => reply,
            other => panic!("`{line}`: {other:?}"),
        }
    }

    /// A command that must decide on a game.
    fn pairs(&mut self, who: Uuid, line: &str) -> PendingGame {
        match self.run(who, line) {
            Ok(Step::Start(game)) => game,
            other => panic!("`{line}`: {other:?}"),
        }
    }

    /// A command that must be refused; its code.
    fn fails(&mut self, who: Uuid, line: &str) -> &'static str {
        match self.run(who, line) {
            Err(e) => e.code(),
            Ok(step) => panic!("`{line}` went through: {step:?}"),
        }
    }

    /// Posts a seek that must not pair; its number.
    fn seek(&mut self, who: Uuid, args: &str) -> u32 {
        let reply = self.ok(who, &format!("seek {args}"));
        match reply.data {
            crate::wire::lobby::ReplyData::SeekPosted { seek, .. } => seek.id,
            other => panic!("seek {args}: {other:?}"),
        }
    }

    /// Carries out a pending game as the actor would (`a` white unless it asked), with a
    /// fresh game id.
    fn create(&mut self, game: &PendingGame) -> LobbyReply {
        let a_color = game.a_color.unwrap_or(crate::rules::Color::White);
        self.state
            .game_created(game, a_color, Uuid::new_v4(), self.now)
    }

    /// The events sent so far, each once.
    fn outbox(&mut self) -> Vec<Delivery> {
        self.state.take_outbox()
    }

    /// The events sent so far to `who`.
    fn events_for(&mut self, who: Uuid) -> Vec<LobbyEvent> {
        self.outbox()
            .into_iter()
            .filter(|d| d.to.contains(&who))
            .map(|d| d.event)
            .collect()
    }

    fn seek_ids(&self, viewer: Uuid, all: bool) -> Vec<u32> {
        self.state
            .sought(viewer, all)
            .iter()
            .map(|s| s.id)
            .collect()
    }
}
