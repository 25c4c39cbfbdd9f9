//! Rate limits: how often one client address may create guests, register, log in, create
//! games and send lobby commands, how many sockets it may hold open, and how many frames one
//! socket may send. Every limit is a setting (`config::RateLimits`); addresses in
//! `RATE_LIMIT_EXEMPT` are never limited, but the unknown client (`proxy::UNKNOWN_CLIENT`: a
//! trusted proxy named nobody) always is, as one client.
//!
//! Every limiter here lives in this process's memory: behind a load balancer each node counts
//! only the requests it serves (`docs/operations.md`). The login back-off too, on a node alone;
//! on a node of a cluster it is kept in PostgreSQL instead ([`super::login_backoff`]), so that
//! wrong passwords sent to one node slow the attempts on all of them.
//!
//! The limiters are governor's GCRA: a burst of N, then one more every PERIOD/N. Clients are
//! keyed by address ([`ClientInfo::ip`], so the forwarded one only from a trusted proxy), an
//! IPv6 client by its /64, the block one subscriber is handed. Keyed state lives only while
//! it differs from a fresh key's: [`Limiters::sweep`], run every [`SWEEP_EVERY`] by the task
//! [`Limiters::spawn_sweeper`] starts, drops the rest, so memory follows the addresses seen
//! within the slowest limit's period rather than every address ever seen.
//!
//! Logins are also limited per username, with a back-off that doubles with each wrong
//! password past `RATE_LIMIT_LOGIN_FAILURES` ([`LoginBackoff`]), whether or not the name
//! exists, so the back-off says nothing about which names do.
//!
//! Over a limit, HTTP answers 429 `rate_limited` with `Retry-After`; a socket answers the
//! frame with an `error` event `rate_limited` and drops it, and closes (1008, reason
//! `rate_limited`) a socket that keeps going over ([`FrameGate`]).

use super::error::ApiError;
use super::login_backoff::SharedBackoff;
use super::proxy::ClientInfo;
use crate::config::{Rate, RateLimits};
use crate::store::Store;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use ipnet::IpNet;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// How often idle keys are dropped from the keyed limiters and the login back-off.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Frames a socket may have refused before it is closed: a burst of this many refusals,
/// one more allowed every [`STRIKE_PERIOD`] / `STRIKES`. A client that slips over its limit
/// now and then hears `rate_limited`; one that keeps sending at twice its rate is closed
/// within seconds.
const STRIKES: u32 = 20;
const STRIKE_PERIOD: Duration = Duration::from_secs(20);

/// The first wait after `RATE_LIMIT_LOGIN_FAILURES` wrong passwords; each further one
/// doubles it, up to [`LOGIN_BACKOFF_MAX`].
const LOGIN_BACKOFF_FIRST: Duration = Duration::from_secs(2);
const LOGIN_BACKOFF_MAX: Duration = Duration::from_secs(15 * 60);
/// A username's wrong passwords are forgotten this long after the last one.
pub(super) const LOGIN_FAILURES_FORGOTTEN: Duration = Duration::from_secs(60 * 60);
/// Usernames whose failures are remembered at most; past it the oldest half is forgotten.
/// (Each is a short string and two numbers: a few MiB at most.)
pub(super) const LOGIN_BACKOFF_CAPACITY: usize = 100_000;
/// Bytes of a username kept as a back-off key: real names are shorter (20 characters).
const LOGIN_KEY_BYTES: usize = 64;

/// A refusal: how long until the same request would pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimited {
    pub retry_after: Duration,
}

impl RateLimited {
    /// The `Retry-After` value: whole seconds, rounded up, at least one.
    pub fn retry_after_seconds(&self) -> u64 {
        let seconds = self.retry_after.as_secs() + u64::from(self.retry_after.subsec_nanos() > 0);
        seconds.max(1)
    }

    /// What the refusal says to people.
    pub fn message(&self) -> String {
        format!(
            "too many requests: try again in {} s",
            self.retry_after_seconds()
        )
    }

    /// The socket error event for a refused frame.
    pub fn socket_error(&self) -> String {
        crate::play::wire::ErrorEvent::new("rate_limited", &self.message()).to_json()
    }
}

/// What one client address may do, as often as the settings allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    CreateGuest,
    Register,
    LogIn,
    /// `POST /api/games`, and the lobby's `seek`, `match` and `rematch`.
    CreateGame,
    LobbyCommand,
    /// Starting the engine analysis of a finished game (`GET /api/games/{id}/analysis` when
    /// the cache cannot answer it whole); [`ANALYSES`] per address.
    StartAnalysis,
    /// A move on a variant page's try board (`POST /api/variants/{id}/lessons/{lesson}/try`);
    /// [`LESSON_TRIES`] per address.
    TryLesson,
}

/// Analyses an address may start: each is up to a few seconds of an engine thread, and
/// polls, or analyses the cache answers, are not counted.
pub const ANALYSES: Rate = Rate {
    count: match std::num::NonZeroU32::new(30) {
        Some(count) => count,
        None => std::num::NonZeroU32::MIN,
    },
    per: Duration::from_secs(10 * 60),
};

/// Try-board moves an address may send: each replays at most a few actions on a small
/// position, and a person clicking through every lesson of a page sends a few dozen.
pub const LESSON_TRIES: Rate = Rate {
    count: match std::num::NonZeroU32::new(120) {
        Some(count) => count,
        None => std::num::NonZeroU32::MIN,
    },
    per: Duration::from_secs(60),
};

/// Which of the server's sockets a frame limit is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketKind {
    Game,
    Multiplexed,
    Lobby,
}

/// Every limiter of one server.
pub struct Limiters {
    exempt: Vec<IpNet>,
    guests: DefaultKeyedRateLimiter<IpAddr>,
    registrations: DefaultKeyedRateLimiter<IpAddr>,
    logins: DefaultKeyedRateLimiter<IpAddr>,
    games: DefaultKeyedRateLimiter<IpAddr>,
    lobby_commands: DefaultKeyedRateLimiter<IpAddr>,
    analyses: DefaultKeyedRateLimiter<IpAddr>,
    lesson_tries: DefaultKeyedRateLimiter<IpAddr>,
    login_backoff: Mutex<LoginBackoff>,
    /// On a node of a cluster, the login back-off in PostgreSQL, used instead of
    /// `login_backoff` ([`Limiters::sharing_login_backoff`]).
    shared_backoff: Option<SharedBackoff>,
    /// Sockets open per address; an address leaves the map with its last socket.
    sockets: Mutex<HashMap<IpAddr, u32>>,
    sockets_per_address: u32,
    game_frames: Quota,
    mux_frames: Quota,
    lobby_frames: Quota,
    clock: DefaultClock,
}

fn quota(rate: Rate) -> Quota {
    // `Rate` refuses a zero interval, which is the only way `with_period` says None.
    Quota::with_period(rate.replenish_interval())
        .unwrap_or_else(|| Quota::per_second(rate.count))
        .allow_burst(rate.count)
}

/// The key of an address: an IPv6 address by its /64.
fn key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(prefix.into())
        }
    }
}

impl Limiters {
    pub fn new(settings: &RateLimits) -> Limiters {
        let keyed = |rate: Rate| RateLimiter::keyed(quota(rate));
        Limiters {
            exempt: settings.exempt.clone(),
            guests: keyed(settings.guests),
            registrations: keyed(settings.registrations),
            logins: keyed(settings.logins),
            games: keyed(settings.games),
            lobby_commands: keyed(settings.lobby_commands),
            analyses: keyed(ANALYSES),
            lesson_tries: keyed(LESSON_TRIES),
            login_backoff: Mutex::new(LoginBackoff::new(settings.login_failures)),
            shared_backoff: None,
            sockets: Mutex::new(HashMap::new()),
            sockets_per_address: settings.sockets_per_address,
            game_frames: quota(settings.game_frames),
            mux_frames: quota(settings.mux_frames),
            lobby_frames: quota(settings.lobby_frames),
            clock: DefaultClock::default(),
        }
    }

    /// These limiters with the login back-off kept in `store` rather than in memory: for a
    /// node of a cluster, whose nodes must all see each name's wrong passwords.
    pub fn sharing_login_backoff(self, store: Store) -> Limiters {
        let free_failures = self.backoff().free_failures;
        Limiters {
            shared_backoff: Some(SharedBackoff::new(store, free_failures)),
            ..self
        }
    }

    /// Whether no limit applies to `client`: its address is in `RATE_LIMIT_EXEMPT`, and it is
    /// known. An unknown client ([`ClientInfo::is_unknown`]) is never exempt, whatever the
    /// setting covers (`0.0.0.0/0` does cover its key): it may be anyone behind a proxy that
    /// sends no `X-Forwarded-For`, and exempting it would exempt all of them.
    fn is_exempt(&self, client: &ClientInfo) -> bool {
        !client.is_unknown() && self.exempt.iter().any(|net| net.contains(&client.ip))
    }

    /// Counts one `action` by `client`.
    ///
    /// # Errors
    /// The client has done it too often lately.
    pub fn check(&self, action: Action, client: &ClientInfo) -> Result<(), RateLimited> {
        if self.is_exempt(client) {
            return Ok(());
        }
        let limiter = match action {
            Action::CreateGuest => &self.guests,
            Action::Register => &self.registrations,
            Action::LogIn => &self.logins,
            Action::CreateGame => &self.games,
            Action::LobbyCommand => &self.lobby_commands,
            Action::StartAnalysis => &self.analyses,
            Action::TryLesson => &self.lesson_tries,
        };
        limiter
            .check_key(&key(client.ip))
            .map_err(|not_until| RateLimited {
                retry_after: not_until.wait_time_from(self.clock.now()),
            })
    }

    /// Whether `client` may try a password for `username` now (its back-off is over), and
    /// counts the attempt against the client's login limit.
    ///
    /// # Errors
    /// [`ApiError::RateLimited`]: the client or the username must wait; on a node of a
    /// cluster, [`ApiError::Store`] if the back-off cannot be read.
    pub async fn login_attempt(&self, username: &str, client: &ClientInfo) -> Result<(), ApiError> {
        self.check(Action::LogIn, client)?;
        if self.is_exempt(client) {
            return Ok(());
        }
        match &self.shared_backoff {
            None => Ok(self.backoff().check(username, Instant::now())?),
            Some(shared) => shared.check(username).await,
        }
    }

    /// A wrong password (or an unknown name) for `username`.
    ///
    /// # Errors
    /// On a node of a cluster, [`ApiError::Store`] if the failure cannot be counted.
    pub async fn login_failed(&self, username: &str, client: &ClientInfo) -> Result<(), ApiError> {
        if self.is_exempt(client) {
            return Ok(());
        }
        match &self.shared_backoff {
            None => {
                self.backoff().failed(username, Instant::now());
                Ok(())
            }
            Some(shared) => shared.failed(username).await,
        }
    }

    /// The right password: the username's back-off starts over.
    ///
    /// # Errors
    /// On a node of a cluster, [`ApiError::Store`] if the back-off cannot be cleared.
    pub async fn login_succeeded(&self, username: &str) -> Result<(), ApiError> {
        match &self.shared_backoff {
            None => {
                self.backoff().succeeded(username);
                Ok(())
            }
            Some(shared) => shared.succeeded(username).await,
        }
    }

    fn backoff(&self) -> MutexGuard<'_, LoginBackoff> {
        // Plain counters: a panic elsewhere cannot leave them half-changed.
        self.login_backoff.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn socket_counts(&self) -> MutexGuard<'_, HashMap<IpAddr, u32>> {
        self.sockets.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a socket of `client`: it holds one of the address's sockets until the returned
    /// gate is dropped, and its frames pass the gate's limit.
    ///
    /// # Errors
    /// The address has [`RateLimits::sockets_per_address`](crate::config::RateLimits) open.
    pub fn open_socket(
        self: &Arc<Self>,
        client: &ClientInfo,
        kind: SocketKind,
    ) -> Result<FrameGate, RateLimited> {
        if self.is_exempt(client) {
            return Ok(FrameGate::unlimited());
        }
        let address = key(client.ip);
        {
            let mut counts = self.socket_counts();
            let open = counts.entry(address).or_insert(0);
            if *open >= self.sockets_per_address {
                // A socket closing is what frees a place, and nobody can tell when.
                return Err(RateLimited {
                    retry_after: Duration::from_secs(10),
                });
            }
            *open += 1;
        }
        let frames = match kind {
            SocketKind::Game => self.game_frames,
            SocketKind::Multiplexed => self.mux_frames,
            SocketKind::Lobby => self.lobby_frames,
        };
        Ok(FrameGate {
            limit: Some(FrameLimit {
                frames: RateLimiter::direct(frames),
                strikes: RateLimiter::direct(strikes_quota()),
            }),
            slot: Some(SocketSlot {
                limiters: Arc::downgrade(self),
                address,
            }),
        })
    }

    /// Sockets open from `client`'s address, as counted against its limit.
    pub fn open_sockets(&self, client: &ClientInfo) -> u32 {
        self.socket_counts()
            .get(&key(client.ip))
            .copied()
            .unwrap_or(0)
    }

    /// Keys held across the keyed limiters and the login back-off.
    pub fn keys_held(&self) -> usize {
        self.keyed().map(|limiter| limiter.len()).sum::<usize>() + self.backoff().len()
    }

    fn keyed(&self) -> impl Iterator<Item = &DefaultKeyedRateLimiter<IpAddr>> {
        [
            &self.guests,
            &self.registrations,
            &self.logins,
            &self.games,
            &self.lobby_commands,
            &self.analyses,
            &self.lesson_tries,
        ]
        .into_iter()
    }

    /// Forgets every key whose state is back to a fresh key's.
    pub fn sweep(&self) {
        for limiter in self.keyed() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        self.backoff().forget_old(Instant::now());
    }

    /// Runs [`Limiters::sweep`] every [`SWEEP_EVERY`] for as long as the limiters live, and
    /// on a node of a cluster sweeps the back-off kept in PostgreSQL too.
    pub fn spawn_sweeper(self: &Arc<Self>) {
        let limiters = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SWEEP_EVERY);
            every.tick().await;
            loop {
                every.tick().await;
                let Some(limiters) = limiters.upgrade() else {
                    break;
                };
                limiters.sweep();
                if let Some(shared) = &limiters.shared_backoff {
                    shared.sweep().await;
                }
            }
        });
    }
}

fn strikes_quota() -> Quota {
    quota(Rate {
        count: std::num::NonZeroU32::new(STRIKES).unwrap_or(std::num::NonZeroU32::MIN),
        per: STRIKE_PERIOD,
    })
}

/// One of an address's open sockets; gives its place back when dropped.
struct SocketSlot {
    limiters: Weak<Limiters>,
    address: IpAddr,
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let Some(limiters) = self.limiters.upgrade() else {
            return;
        };
        let mut counts = limiters.socket_counts();
        if let Some(open) = counts.get_mut(&self.address) {
            *open = open.saturating_sub(1);
            if *open == 0 {
                counts.remove(&self.address);
            }
        }
    }
}

/// What becomes of one frame a socket received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    Admit,
    /// Answer with this error event and drop the frame.
    Refuse(String),
    /// The socket keeps going over its limit: close it.
    Close,
}

/// The frame limit of one socket, and its place among its address's sockets; neither for
/// an exempt client.
pub struct FrameGate {
    limit: Option<FrameLimit>,
    slot: Option<SocketSlot>,
}

struct FrameLimit {
    frames: DefaultDirectRateLimiter,
    /// Frames refused: past this limit the socket is closed.
    strikes: DefaultDirectRateLimiter,
}

impl FrameGate {
    fn unlimited() -> FrameGate {
        FrameGate {
            limit: None,
            slot: None,
        }
    }

    /// Counts `frame` if it carries data (text or binary; pings and closes are the
    /// protocol's own).
    pub fn admit_frame(&self, frame: &axum::extract::ws::Message) -> Admission {
        use axum::extract::ws::Message;
        if matches!(frame, Message::Text(_) | Message::Binary(_)) {
            self.admit()
        } else {
            Admission::Admit
        }
    }

    /// Counts one frame.
    pub fn admit(&self) -> Admission {
        let Some(FrameLimit { frames, strikes }) = &self.limit else {
            return Admission::Admit;
        };
        match frames.check() {
            Ok(()) => Admission::Admit,
            Err(not_until) => {
                if strikes.check().is_err() {
                    return Admission::Close;
                }
                let refused = RateLimited {
                    retry_after: not_until.wait_time_from(frames.clock().now()),
                };
                Admission::Refuse(refused.socket_error())
            }
        }
    }

    /// Whether this socket counts among its address's open sockets.
    pub fn holds_a_place(&self) -> bool {
        self.slot.is_some()
    }
}

/// The close frame of a socket closed for going over its frame limit again and again.
pub fn rate_limited_close() -> axum::extract::ws::Message {
    axum::extract::ws::Message::Close(Some(axum::extract::ws::CloseFrame {
        code: axum::extract::ws::close_code::POLICY,
        reason: "rate_limited".into(),
    }))
}

/// How long after its last failure a name with `count` wrong passwords must wait, when
/// `free_failures` of them cost nothing.
pub(super) fn backoff_wait(free_failures: u32, count: u32) -> Duration {
    if count < free_failures {
        return Duration::ZERO;
    }
    let doublings = (count - free_failures).min(16);
    LOGIN_BACKOFF_FIRST
        .saturating_mul(1 << doublings)
        .min(LOGIN_BACKOFF_MAX)
}

/// Wrong passwords per username, and the wait they impose (the module header).
#[derive(Debug)]
pub struct LoginBackoff {
    free_failures: u32,
    failures: HashMap<String, Failures>,
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

impl LoginBackoff {
    pub fn new(free_failures: u32) -> LoginBackoff {
        LoginBackoff {
            free_failures,
            failures: HashMap::new(),
        }
    }

    /// Names differing only in case or surrounding spaces are one name, as at login.
    pub(super) fn key(username: &str) -> String {
        let name = username.trim();
        let mut end = name.len().min(LOGIN_KEY_BYTES);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name[..end].to_lowercase()
    }

    /// How long after its last failure a name with `count` failures must wait.
    fn wait(&self, count: u32) -> Duration {
        backoff_wait(self.free_failures, count)
    }

    /// # Errors
    /// `username` is still waiting out its back-off at `now`.
    pub fn check(&self, username: &str, now: Instant) -> Result<(), RateLimited> {
        let Some(failures) = self.failures.get(&LoginBackoff::key(username)) else {
            return Ok(());
        };
        let until = failures.last + self.wait(failures.count);
        match until.checked_duration_since(now) {
            Some(left) if !left.is_zero() => Err(RateLimited { retry_after: left }),
            _ => Ok(()),
        }
    }

    pub fn failed(&mut self, username: &str, now: Instant) {
        if self.failures.len() >= LOGIN_BACKOFF_CAPACITY {
            self.forget_old(now);
        }
        if self.failures.len() >= LOGIN_BACKOFF_CAPACITY {
            self.forget_oldest_half();
        }
        let entry = self
            .failures
            .entry(LoginBackoff::key(username))
            .or_insert(Failures {
                count: 0,
                last: now,
            });
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
    }

    pub fn succeeded(&mut self, username: &str) {
        self.failures.remove(&LoginBackoff::key(username));
    }

    /// Forgets the names whose last failure is [`LOGIN_FAILURES_FORGOTTEN`] old.
    pub fn forget_old(&mut self, now: Instant) {
        self.failures.retain(|_, failures| {
            now.saturating_duration_since(failures.last) < LOGIN_FAILURES_FORGOTTEN
        });
    }

    fn forget_oldest_half(&mut self) {
        let mut lasts: Vec<Instant> = self.failures.values().map(|f| f.last).collect();
        let middle = lasts.len() / 2;
        let (_, cutoff, _) = lasts.select_nth_unstable(middle);
        let cutoff = *cutoff;
        self.failures.retain(|_, failures| failures.last >= cutoff);
    }

    pub fn len(&self) -> usize {
        self.failures.len()
    }

    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    fn client(ip: &str) -> ClientInfo {
        ClientInfo {
            ip: ip.parse().unwrap_or_else(|e| panic!("{ip}: {e}")),
            forwarded_https: None,
            host: None,
        }
    }

    fn rate(count: u32, per: Duration) -> Rate {
        Rate {
            count: NonZeroU32::new(count).unwrap_or(NonZeroU32::MIN),
            per,
        }
    }

    fn strict() -> RateLimits {
        let hour = Duration::from_secs(3600);
        RateLimits {
            exempt: crate::config::parse_networks("192.0.2.0/24").unwrap_or_default(),
            guests: rate(2, hour),
            registrations: rate(2, hour),
            logins: rate(100, hour),
            login_failures: 3,
            games: rate(2, hour),
            lobby_commands: rate(2, hour),
            game_frames: rate(2, hour),
            mux_frames: rate(2, hour),
            lobby_frames: rate(2, hour),
            sockets_per_address: 2,
        }
    }

    #[test]
    fn each_address_has_its_own_allowance_and_exempt_ones_none() {
        let limiters = Limiters::new(&strict());
        let (first, second) = (client("198.51.100.1"), client("198.51.100.2"));
        for _ in 0..2 {
            assert_eq!(limiters.check(Action::CreateGuest, &first), Ok(()));
        }
        let refused = limiters.check(Action::CreateGuest, &first);
        let Err(refused) = refused else {
            panic!("a third guest within the hour passed");
        };
        // One guest comes back every half hour.
        assert!(refused.retry_after > Duration::from_secs(1700));
        assert!(refused.retry_after_seconds() <= 1800);
        // Another address, and another action, are untouched.
        assert_eq!(limiters.check(Action::CreateGuest, &second), Ok(()));
        assert_eq!(limiters.check(Action::Register, &first), Ok(()));
        let exempt = client("192.0.2.9");
        for _ in 0..10 {
            assert_eq!(limiters.check(Action::CreateGuest, &exempt), Ok(()));
        }
    }

    #[tokio::test]
    async fn the_unknown_client_is_limited_whatever_is_exempt() {
        use crate::web::proxy::UNKNOWN_CLIENT;
        let unknown = UNKNOWN_CLIENT.to_string();
        // (RATE_LIMIT_EXEMPT, client, exempt)
        let cases: &[(&str, &str, bool)] = &[
            ("127.0.0.0/8,::1", "127.0.0.1", true),
            ("127.0.0.0/8,::1", "198.51.100.1", false),
            ("127.0.0.0/8,::1", &unknown, false),
            ("0.0.0.0/0,::/0", "198.51.100.1", true),
            ("0.0.0.0/0,::/0", &unknown, false),
            ("0.0.0.0/32", &unknown, false),
        ];
        for (exempt, address, is_exempt) in cases {
            let settings = RateLimits {
                exempt: crate::config::parse_networks(exempt).unwrap_or_default(),
                ..strict()
            };
            let limiters = Arc::new(Limiters::new(&settings));
            let who = client(address);
            let case = format!("{address} with {exempt} exempt");
            // strict(): two guests an hour, two sockets, a back-off after three failures.
            let guests: Vec<bool> = (0..3)
                .map(|_| limiters.check(Action::CreateGuest, &who).is_ok())
                .collect();
            assert_eq!(guests, [true, true, *is_exempt], "{case}");
            let socket = limiters.open_socket(&who, SocketKind::Game);
            assert!(
                socket.is_ok_and(|gate| gate.holds_a_place() != *is_exempt),
                "{case}"
            );
            for _ in 0..3 {
                assert!(limiters.login_failed("alice", &who).await.is_ok(), "{case}");
            }
            let attempt = limiters.login_attempt("alice", &who).await;
            assert_eq!(attempt.is_ok(), *is_exempt, "{case}");
        }
    }

    #[test]
    fn an_ipv6_client_is_keyed_by_its_slash_64() {
        let limiters = Limiters::new(&strict());
        for last in 1..=2 {
            let ip = format!("2001:db8:1:2::{last}");
            assert_eq!(limiters.check(Action::CreateGame, &client(&ip)), Ok(()));
        }
        assert!(limiters
            .check(Action::CreateGame, &client("2001:db8:1:2:ffff::3"))
            .is_err());
        assert_eq!(
            limiters.check(Action::CreateGame, &client("2001:db8:1:3::1")),
            Ok(())
        );
    }

    #[test]
    fn sockets_per_address_are_counted_until_closed() {
        let limiters = Arc::new(Limiters::new(&strict()));
        let peer = client("198.51.100.1");
        let first = limiters.open_socket(&peer, SocketKind::Game);
        let second = limiters.open_socket(&peer, SocketKind::Lobby);
        assert!(first.is_ok() && second.is_ok());
        assert!(limiters.open_socket(&peer, SocketKind::Game).is_err());
        assert_eq!(limiters.open_sockets(&peer), 2);
        drop(first);
        let third = limiters.open_socket(&peer, SocketKind::Multiplexed);
        assert!(third.is_ok());
        drop((second, third));
        assert_eq!(limiters.open_sockets(&peer), 0);
        assert!(limiters.socket_counts().is_empty());
        let exempt = limiters.open_socket(&client("192.0.2.1"), SocketKind::Game);
        assert!(exempt.is_ok_and(|gate| !gate.holds_a_place()));
    }

    #[test]
    fn a_socket_over_its_frame_limit_is_refused_then_closed() {
        let limiters = Arc::new(Limiters::new(&strict()));
        let gate = limiters
            .open_socket(&client("198.51.100.1"), SocketKind::Game)
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(gate.admit(), Admission::Admit);
        assert_eq!(gate.admit(), Admission::Admit);
        let Admission::Refuse(error) = gate.admit() else {
            panic!("a third frame within the hour passed");
        };
        assert!(error.contains("\"code\":\"rate_limited\""), "{error}");
        let verdicts: Vec<Admission> = (0..STRIKES).map(|_| gate.admit()).collect();
        assert_eq!(verdicts.last(), Some(&Admission::Close));
    }

    #[test]
    fn wrong_passwords_back_off_doubling_per_username() {
        let mut backoff = LoginBackoff::new(3);
        let start = Instant::now();
        for _ in 0..2 {
            backoff.failed("Alice", start);
        }
        assert_eq!(backoff.check("alice", start), Ok(()));
        backoff.failed(" ALICE ", start);
        let wait = |backoff: &LoginBackoff| {
            backoff
                .check("alice", start)
                .err()
                .map_or(Duration::ZERO, |refused| refused.retry_after)
        };
        assert_eq!(wait(&backoff), LOGIN_BACKOFF_FIRST);
        backoff.failed("alice", start);
        assert_eq!(wait(&backoff), LOGIN_BACKOFF_FIRST * 2);
        for _ in 0..40 {
            backoff.failed("alice", start);
        }
        assert_eq!(wait(&backoff), LOGIN_BACKOFF_MAX);
        // Once the wait is over the next attempt may go ahead.
        assert_eq!(backoff.check("alice", start + LOGIN_BACKOFF_MAX), Ok(()));
        // Another name is untouched; the right password starts over.
        assert_eq!(backoff.check("bob", start), Ok(()));
        backoff.succeeded("Alice");
        assert_eq!(backoff.check("alice", start), Ok(()));
        assert!(backoff.is_empty());
    }

    #[test]
    fn old_failures_are_forgotten_and_the_map_stays_bounded() {
        let mut backoff = LoginBackoff::new(3);
        let start = Instant::now();
        backoff.failed("alice", start);
        backoff.forget_old(start + LOGIN_FAILURES_FORGOTTEN);
        assert!(backoff.is_empty());
        for n in 0..LOGIN_BACKOFF_CAPACITY as u64 + 10 {
            backoff.failed(&format!("name{n}"), start + Duration::from_millis(n));
        }
        assert!(backoff.len() <= LOGIN_BACKOFF_CAPACITY);
        // The newest names are the ones kept.
        assert!(backoff.failures.contains_key("name100009"));
    }

    #[test]
    fn a_sweep_forgets_the_addresses_back_to_a_fresh_state() {
        let quick = Duration::from_millis(20);
        let settings = RateLimits {
            guests: rate(1, quick),
            ..strict()
        };
        let limiters = Limiters::new(&settings);
        for n in 0..100 {
            let _ = limiters.check(Action::CreateGuest, &client(&format!("198.51.100.{n}")));
        }
        assert_eq!(limiters.keys_held(), 100);
        // Once the limit's period has passed every address is fresh again, and a sweep forgets
        // them all: swept until it does (the limiters read governor's own clock, which a test
        // cannot move), for at most far longer than the period.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            limiters.sweep();
            if limiters.keys_held() == 0 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{} keys held",
                limiters.keys_held()
            );
            std::thread::sleep(quick);
        }
    }
}
