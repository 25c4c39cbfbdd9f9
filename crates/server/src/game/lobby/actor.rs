//! The lobby actor: the one task that owns the [`LobbyState`] and the lobby connections. It
//! takes one message at a time, so each pairing decision sees the state every earlier one
//! left; its own work is I/O only: loading users from the store, saving settings and noplay
//! lists, creating the games the state decides on (with the join limit of a pairing), and
//! sending the state's events.
//!
//! On a node of a cluster the actor runs on the node that holds the lobby's lease, and some
//! of its connections belong to sockets on other nodes (`super::cluster`): those nodes say
//! every second or so which are still open, and a connection not confirmed for
//! [`REMOTE_GONE`] is dropped, as its node died.

use super::{
    LobbyCmd, LobbyConnection, LobbyError, LobbyMsg, LobbyReply, LobbySettings, LobbyUser,
};
use crate::game::{GameNotice, Games, Seat};
use crate::play::lobby::state::{
    alternate_colors, Delivery, LobbyState, PendingGame, Step, UserInfo,
};
use crate::play::lobby::LobbyRefusal;
use crate::play::rating::Glicko;
use crate::play::wire::lobby::GameStartedView;
use crate::rules::{Color, Variant};
use crate::store::Store;
use rand::Rng;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::time::Instant;
use uuid::Uuid;

/// Events buffered per lobby connection; a connection that falls this far behind is dropped
/// (its socket closes and the client reconnects to a fresh snapshot).
const CONNECTION_BUFFER: usize = 256;
/// How many past games colour alternation looks at.
const COLOR_HISTORY: i64 = 20;

/// One open lobby connection.
struct Connection {
    user_id: Uuid,
    tx: mpsc::Sender<Arc<str>>,
    /// For a socket on another node: when its node last said it is open.
    remote_seen: Option<Instant>,
}

/// How long a connection of another node's socket lasts without its node confirming it.
const REMOTE_GONE: std::time::Duration = std::time::Duration::from_secs(10);
/// How often the remote connections are looked over.
const REMOTE_SWEEP: std::time::Duration = std::time::Duration::from_secs(2);

/// What the actor is started with.
pub(super) struct Setup {
    pub games: Games,
    pub settings: LobbySettings,
    pub rx: mpsc::Receiver<LobbyMsg>,
    /// Every game start and end (on a node of a cluster, every node's); the actor stops
    /// when this ends.
    pub notices: mpsc::UnboundedReceiver<GameNotice>,
    /// Where connection ids come from (shared with the node's other lobby parts).
    pub connection_ids: Arc<AtomicU64>,
    /// Count players and games over every node (from the store), not this node's alone.
    pub count_every_node: bool,
}

struct LobbyActor {
    games: Games,
    store: Store,
    state: LobbyState,
    connections: HashMap<u64, Connection>,
    connection_ids: Arc<AtomicU64>,
    count_every_node: bool,
    /// How long the players of a game the lobby paired have to open it.
    join_limit: std::time::Duration,
    /// The last counts and when they were taken: anyone may ask for them, as often as they
    /// like, and counting walks every user and game, so one count serves for a while.
    stats: Option<(Instant, super::LobbyStats)>,
}

/// How long one count of the players online and games in play is served.
const STATS_FOR: std::time::Duration = std::time::Duration::from_secs(1);

fn now() -> std::time::Instant {
    Instant::now().into_std()
}

/// The actor's loop: messages, game notices and presence deadlines, one at a time.
pub(super) async fn run(setup: Setup) {
    let Setup {
        games,
        settings,
        mut rx,
        mut notices,
        connection_ids,
        count_every_node,
    } = setup;
    let mut actor = LobbyActor {
        store: games.store().clone(),
        games,
        join_limit: settings.join_limit,
        state: LobbyState::new(settings, now()),
        connections: HashMap::new(),
        connection_ids,
        count_every_node,
        stats: None,
    };
    let mut sweeps = tokio::time::interval(REMOTE_SWEEP);
    sweeps.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let deadline = actor.state.next_presence_deadline().map(Instant::from_std);
        tokio::select! {
            // Game notices first: a command that arrives after a game started or ended must
            // see its effects (seeks gone, ratings reloaded).
            biased;
            notice = notices.recv() => match notice {
                Some(notice) => actor.on_notice(notice).await,
                // Another listener took the notices over, or this node gave the lobby up.
                None => break,
            },
            message = rx.recv() => match message {
                Some(message) => actor.handle(message).await,
                None => break,
            },
            () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                actor.state.expire_presence(now());
                actor.flush();
            }
            _ = sweeps.tick() => actor.drop_gone_remotes(),
        }
    }
}

impl LobbyActor {
    #[tracing::instrument(name = "lobby", skip_all)]
    async fn handle(&mut self, message: LobbyMsg) {
        match message {
            LobbyMsg::Connect {
                user,
                remote,
                reply,
            } => {
                let result = self.connect(user, remote).await;
                let _ = reply.send(result);
            }
            LobbyMsg::Disconnect {
                user_id,
                connection,
            } => {
                if self.connections.remove(&connection).is_some() {
                    self.state.disconnect(user_id, now());
                    self.flush();
                }
            }
            LobbyMsg::Command {
                user,
                command,
                reply,
            } => {
                let result = self.command(&user, command).await;
                self.flush();
                let _ = reply.send(result);
            }
            LobbyMsg::Stats { reply } => {
                let _ = reply.send(self.stats().await);
            }
            LobbyMsg::Alive { connections, reply } => {
                let seen = Instant::now();
                let known = connections
                    .into_iter()
                    .filter(|id| match self.connections.get_mut(id) {
                        Some(connection) if connection.remote_seen.is_some() => {
                            connection.remote_seen = Some(seen);
                            true
                        }
                        _ => false,
                    })
                    .collect();
                let _ = reply.send(Ok(known));
            }
            LobbyMsg::Seeks { viewer, all, reply } => {
                let result = match viewer {
                    Some(viewer) => match self.ensure_user(&viewer).await {
                        Ok(()) => Ok(self.state.sought(viewer.user_id, all)),
                        Err(e) => Err(e),
                    },
                    None => Ok(self.state.all_seeks()),
                };
                let _ = reply.send(result);
            }
        }
    }

    /// Drops the connections of other nodes' sockets whose node has not confirmed them for
    /// [`REMOTE_GONE`]: that node died or lost NATS, and its sockets are gone with it.
    fn drop_gone_remotes(&mut self) {
        let now_instant = Instant::now();
        let gone: Vec<(u64, Uuid)> = self
            .connections
            .iter()
            .filter(|(_, c)| {
                c.remote_seen
                    .is_some_and(|seen| now_instant.duration_since(seen) > REMOTE_GONE)
            })
            .map(|(id, c)| (*id, c.user_id))
            .collect();
        if gone.is_empty() {
            return;
        }
        for (id, user_id) in gone {
            self.connections.remove(&id);
            self.state.disconnect(user_id, now());
        }
        self.flush();
    }

    /// The players online and games in play, counted at most once per [`STATS_FOR`].
    async fn stats(&mut self) -> Result<super::LobbyStats, LobbyError> {
        let now = Instant::now();
        if let Some((taken, stats)) = self.stats {
            if now.duration_since(taken) < STATS_FOR {
                return Ok(stats);
            }
        }
        let (seated, games_in_play) = if self.count_every_node {
            self.games.in_play_everywhere().await?
        } else {
            self.games.in_play()
        };
        let stats = super::LobbyStats {
            players_online: self.state.players_online(&seated),
            games_in_play,
        };
        self.stats = Some((now, stats));
        Ok(stats)
    }

    /// Sends the state's events to every connection of their users; a connection that is
    /// closed or too far behind is dropped, and the events that dropping brings (a user's
    /// last connection: their seeks go) are sent in turn. Each round drops connections, so
    /// it ends.
    fn flush(&mut self) {
        loop {
            let outbox = self.state.take_outbox();
            if outbox.is_empty() {
                break;
            }
            for Delivery { to, event } in outbox {
                let message: Arc<str> = event.to_json().into();
                let mut dropped = Vec::new();
                for (id, connection) in &self.connections {
                    if to.contains(&connection.user_id)
                        && connection.tx.try_send(message.clone()).is_err()
                    {
                        dropped.push((*id, connection.user_id));
                    }
                }
                for (id, user_id) in dropped {
                    self.connections.remove(&id);
                    self.state.disconnect(user_id, now());
                }
            }
        }
    }

    // ----- users -----

    /// Loads a user into the state if needed (ratings, settings, formulas, noplay list).
    async fn ensure_user(&mut self, user: &LobbyUser) -> Result<(), LobbyError> {
        if self.state.refresh_user(user) {
            return Ok(());
        }
        let ratings = self.ratings(user.user_id).await?;
        let settings = self.store.user_settings(user.user_id).await?;
        let noplay = self
            .store
            .noplay_list(user.user_id)
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let (info, broken) = UserInfo::new(user.clone(), ratings, settings, noplay);
        for (slot, error) in broken {
            tracing::warn!(user = %user.name, %slot, %error, "stored formula no longer parses");
        }
        self.state.add_user(info, now());
        Ok(())
    }

    async fn ratings(&self, user_id: Uuid) -> Result<HashMap<Variant, Glicko>, LobbyError> {
        Ok(self
            .store
            .ratings(user_id)
            .await?
            .into_iter()
            .map(|r| (r.variant, Glicko::from(r.values)))
            .collect())
    }

    /// Finds a user by name (any case), loading them.
    async fn user_named(&mut self, name: &str) -> Result<Uuid, LobbyError> {
        if let Some(id) = self.state.user_named(name) {
            return Ok(id);
        }
        let user = super::find_user(&self.store, name).await?;
        let user = LobbyUser {
            user_id: user.user_id,
            name: user.username,
            registered: !user.is_guest,
        };
        self.ensure_user(&user).await?;
        Ok(user.user_id)
    }

    async fn connect(
        &mut self,
        user: LobbyUser,
        remote: bool,
    ) -> Result<LobbyConnection, LobbyError> {
        self.ensure_user(&user).await?;
        let id = self.connection_ids.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, events) = mpsc::channel(CONNECTION_BUFFER);
        let snapshot = self.state.connect(user.user_id);
        let _ = tx.try_send(snapshot.to_json().into());
        if let Some(notice) = self.state.missed_notice(user.user_id, now()) {
            let _ = tx.try_send(notice.to_json().into());
        }
        let user_id = user.user_id;
        let remote_seen = remote.then(Instant::now);
        self.connections.insert(
            id,
            Connection {
                user_id,
                tx,
                remote_seen,
            },
        );
        Ok(LobbyConnection { id, events })
    }

    // ----- commands -----

    async fn command(
        &mut self,
        user: &LobbyUser,
        command: LobbyCmd,
    ) -> Result<LobbyReply, LobbyError> {
        self.ensure_user(user).await?;
        let me = user.user_id;
        if matches!(
            command,
            LobbyCmd::Seek(_) | LobbyCmd::Play(_) | LobbyCmd::Match(_) | LobbyCmd::Rematch
        ) {
            // Refused while the user has no room for another game in progress: it could
            // only fail when taken (creating the game asks again, for both players).
            let seat = Seat {
                user_id: me,
                name: user.name.clone(),
            };
            self.games.ensure_room(&seat).await?;
        }
        if let Some(name) = LobbyState::named_user(&command) {
            let name = name.to_string();
            self.user_named(&name).await?;
        }
        let step = match command {
            LobbyCmd::Set(Some((name, value))) => {
                let change = self.state.prepare_setting(me, name, &value)?;
                self.store.save_user_settings(me, &change.settings).await?;
                return Ok(self.state.apply_setting(me, change)?);
            }
            LobbyCmd::Noplay(change) => return self.noplay(me, change).await,
            LobbyCmd::Rematch => {
                let request = self.rematch_request(me).await?;
                self.state.command(me, LobbyCmd::Match(request), now())?
            }
            command => self.state.command(me, command, now())?,
        };
        match step {
            Step::Done(reply) => Ok(reply),
            Step::Start(game) => {
                // The state's events (a replaced challenge…) go before the game's.
                self.flush();
                self.start_game(game).await
            }
        }
    }

    async fn noplay(
        &mut self,
        me: Uuid,
        change: Option<(String, bool)>,
    ) -> Result<LobbyReply, LobbyError> {
        let text = match change {
            None => None,
            Some((name, on)) => {
                let them = self.user_named(&name).await?;
                LobbyState::check_noplay(me, them)?;
                self.store.set_noplay(me, them, on).await?;
                Some(self.state.set_noplay(me, them, on))
            }
        };
        let users = self.store.noplay_list(me).await?;
        let users = users.into_iter().map(|(_, name)| name).collect();
        Ok(crate::play::lobby::state::noplay_reply(text, users))
    }

    /// The `match` a `rematch` stands for, from the user's last game.
    async fn rematch_request(
        &mut self,
        me: Uuid,
    ) -> Result<crate::play::wire::lobby::MatchRequest, LobbyError> {
        let last = self
            .store
            .last_game_of(me)
            .await?
            .ok_or(LobbyRefusal::NoPreviousGame)?;
        let opponent = if last.white_id == me {
            last.black_id
        } else {
            last.white_id
        };
        let opponent = self
            .store
            .user_by_id(opponent)
            .await?
            .ok_or(LobbyRefusal::NoPreviousGame)?;
        let request = crate::play::lobby::state::rematch_request(me, &last, opponent.username)?;
        self.user_named(&request.user).await?;
        Ok(request)
    }

    /// Creates the game the state decided on and tells the state; nothing is removed if the
    /// game cannot be created.
    async fn start_game(&mut self, game: PendingGame) -> Result<LobbyReply, LobbyError> {
        let a_color = match game.a_color {
            Some(color) => color,
            None => self.alternate_colors(game.a, game.b).await,
        };
        let (white, black) = self.state.seats(&game, a_color);
        let game_id = self
            .games
            .create_paired(white, black, game.game_terms(), self.join_limit)
            .await?;
        Ok(self.state.game_created(&game, a_color, game_id, now()))
    }

    async fn alternate_colors(&self, a: Uuid, b: Uuid) -> Color {
        let history = |id| self.store.color_history(id, COLOR_HISTORY);
        let a_history = history(a).await.unwrap_or_default();
        let b_history = history(b).await.unwrap_or_default();
        let coin = if rand::thread_rng().gen::<bool>() {
            Color::White
        } else {
            Color::Black
        };
        alternate_colors(&a_history, &b_history, coin)
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
                let (time, inc) = terms.time_control.map_or((0, 0), |tc| {
                    (
                        u32::try_from(tc.initial_ms / 60_000).unwrap_or(0),
                        u32::try_from(tc.increment_ms / 1000).unwrap_or(0),
                    )
                });
                let view = GameStartedView {
                    game_id,
                    white: white.name.clone(),
                    black: black.name.clone(),
                    variant: terms.variant,
                    rated: terms.rated,
                    time,
                    inc,
                };
                self.state.game_started(&white, &black, view, now());
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
                    if !self.state.knows(seat.user_id) {
                        continue;
                    }
                    match self.ratings(seat.user_id).await {
                        Ok(ratings) => self.state.set_ratings(seat.user_id, ratings),
                        Err(e) => tracing::error!(cause = %e, "could not reload ratings"),
                    }
                }
            }
        }
        self.flush();
    }
}
