//! The load tool (`oddboard loadtest` runs it): plays many concurrent games against a running server with real
//! WebSocket clients and reports committed moves per second, move latency (from the mover
//! sending an action to the opponent receiving it) at p50/p99/p99.9, connections held and the
//! server's memory.
//!
//! Each game is a task driving both players' sockets: the side to move sends an action, the
//! task waits until the opponent's socket delivers it (which the server does only after the
//! commit), then the other side moves. With `--rate` the games pace themselves to a total
//! number of moves per second; without it they run flat out (saturation). Every game's
//! players and first game are set up before the measured run starts (reported as
//! `setup_seconds`), so the burst of hundreds of sign-ins and game creations is not counted as
//! move latency; games that end during the run are replaced by new ones between the same
//! players, inside the measured run. `--idle N` also opens N spectator sockets and holds them
//! for the whole run; `--computer-games N` keeps N games against the computer going beside
//! the measured ones ([`computer`]), so its searches run throughout. A run lasts its `--seconds`, or (for tests, [`run_until_finished`]) until
//! a number of games have ended: the run's end is what its coordinator decides, after it has
//! sampled the server, so what the sample sees does not depend on the machine's speed.
//!
//! With `--games-per-socket K` (K > 1) the players are paired instead, each player with one
//! multiplexed socket (`/ws/games`) carrying K games against the same opponent, as a bot
//! plays: one task per pair sends the next action of every game whose last one both players
//! have seen, in one write per socket, then reads whatever has come. `--rate` paces these
//! games too, each at its own turn.
//!
//! Beside its own latencies the tool reads the server's (`oddboard_move_latency_seconds`, from
//! receipt to broadcast, commit included) before and after the run, and reports the bucket
//! holding each percentile of the moves in between: the rest of a tail is the delivery and the
//! clients' own turn on the CPU, which the tool and the server share on one machine.
//!
//! This module sets a run up, coordinates it and gathers its report; [`slot`] plays a game
//! per pair of sockets, [`pair`] many games per multiplexed socket, [`view`] keeps what each
//! player knows of a game, [`incoming`] and [`scan`] read the server's messages, [`figures`]
//! turns latencies and the server's `/metrics` into the report's figures. The flags are the
//! server's command line's (`oddboard loadtest --help`); [`LoadOptions`] is what they become.

use crate::{expect_ok, Client, ClientError, GameSocket};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod computer;
mod figures;
pub mod incoming;
mod pair;
mod scan;
mod slot;
mod view;

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// The server the run's figures are read from (`/metrics`), and the first node.
    pub addr: String,
    /// Several nodes of one cluster: every node's address, `addr` among them; slot `i`'s
    /// players and games are on node `i mod n` (the node that makes a game runs it). Empty:
    /// `addr` alone.
    pub nodes: Vec<String>,
    /// Several nodes: each slot's sockets on the next node rather than the one that runs its
    /// games, so that every move is forwarded (the cost of forwarding).
    pub play_elsewhere: bool,
    pub games: usize,
    pub duration: Duration,
    /// Total moves per second to aim at; None runs flat out.
    pub rate: Option<f64>,
    pub variant: String,
    /// Extra spectator connections to open and hold.
    pub idle: usize,
    /// Games each player's socket carries: 1 opens one `/ws/game/{id}` socket per player and
    /// game; more pairs the players up, each with one multiplexed `/ws/games` socket
    /// carrying this many games against the same opponent (a bot's way of playing). At most
    /// what the server lets one socket watch: it refuses the watches beyond that
    /// (`oddboard loadtest` caps the flag).
    pub games_per_socket: usize,
    /// Games against the computer kept going beside the measured ones, so that the engine
    /// searches throughout the run ([`computer`]); 0 for none.
    pub computer_games: usize,
    /// The computer's level in those games (0–8).
    pub computer_level: u8,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            addr: "127.0.0.1:8080".into(),
            nodes: Vec::new(),
            play_elsewhere: false,
            games: 100,
            duration: Duration::from_secs(20),
            rate: None,
            variant: "chad".into(),
            idle: 0,
            games_per_socket: 1,
            computer_games: 0,
            computer_level: 8,
        }
    }
}

impl LoadOptions {
    /// The node slot `slot`'s players use.
    pub fn addr_of(&self, slot: usize) -> &str {
        match self.nodes.len() {
            0 => &self.addr,
            n => &self.nodes[slot % n],
        }
    }

    /// With [`LoadOptions::play_elsewhere`], the node slot `slot`'s sockets use.
    pub fn elsewhere_of(&self, slot: usize) -> Option<&str> {
        (self.play_elsewhere && self.nodes.len() > 1).then(|| self.addr_of(slot + 1))
    }
}

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Time taken to sign in the players and start the first game of every slot, before the
    /// measured run.
    pub setup_seconds: f64,
    pub moves: u64,
    pub seconds: f64,
    pub moves_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    pub games_finished: u64,
    pub errors: u64,
    pub connections_held: i64,
    pub server_rss_bytes: Option<u64>,
    /// The server's own latency percentiles over the run, each as the upper bound (ms) of the
    /// histogram bucket that holds it; None if the server's histogram could not be read.
    pub server_p50_ms_at_most: Option<f64>,
    pub server_p99_ms_at_most: Option<f64>,
    pub server_p999_ms_at_most: Option<f64>,
    /// Actions the computer played during the run in the `--computer-games` games.
    pub computer_actions: u64,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "setup_seconds: {:.1}", self.setup_seconds)?;
        writeln!(f, "moves: {}", self.moves)?;
        writeln!(f, "seconds: {:.1}", self.seconds)?;
        writeln!(f, "moves_per_second: {:.0}", self.moves_per_second)?;
        writeln!(f, "latency_p50_ms: {:.2}", self.p50_ms)?;
        writeln!(f, "latency_p99_ms: {:.2}", self.p99_ms)?;
        writeln!(f, "latency_p99.9_ms: {:.2}", self.p999_ms)?;
        writeln!(f, "latency_max_ms: {:.2}", self.max_ms)?;
        writeln!(f, "games_finished: {}", self.games_finished)?;
        writeln!(f, "errors: {}", self.errors)?;
        writeln!(f, "connections_held: {}", self.connections_held)?;
        match self.server_rss_bytes {
            Some(bytes) => writeln!(f, "server_rss_mib: {:.1}", bytes as f64 / 1_048_576.0)?,
            None => writeln!(f, "server_rss_mib: unknown")?,
        }
        writeln!(f, "computer_actions: {}", self.computer_actions)?;
        for (name, bound) in [
            ("p50", self.server_p50_ms_at_most),
            ("p99", self.server_p99_ms_at_most),
            ("p99.9", self.server_p999_ms_at_most),
        ] {
            match bound {
                Some(ms) => writeln!(f, "server_latency_{name}_ms_at_most: {ms}")?,
                None => writeln!(f, "server_latency_{name}_ms_at_most: unknown")?,
            }
        }
        Ok(())
    }
}

/// What every game and pair of a run shares: the counts and latencies of the report, and the
/// signal to stop.
struct Shared {
    latencies_us: std::sync::Mutex<Vec<u32>>,
    moves: AtomicU64,
    /// Games played to their end; watched by a run that ends after a number of them.
    finished: tokio::sync::watch::Sender<u64>,
    errors: AtomicU64,
    /// Raised by the run's coordinator when the run is over: every game and pair stops at
    /// its next turn.
    stop: AtomicBool,
}

impl Shared {
    fn new() -> Shared {
        Shared {
            latencies_us: std::sync::Mutex::new(Vec::new()),
            moves: AtomicU64::new(0),
            finished: tokio::sync::watch::Sender::new(0),
            errors: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        }
    }

    fn game_finished(&self) {
        self.finished.send_modify(|finished| *finished += 1);
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// One move's latency, from its sending to the opponent's receipt.
    fn record_latency(&self, latency: Duration) {
        let micros = u32::try_from(latency.as_micros()).unwrap_or(u32::MAX);
        self.latencies_us
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(micros);
    }
}

/// Creates a game without a clock with `white` as White and has `black` accept it; returns
/// its id.
async fn create_game(
    white: &mut Client,
    black: &mut Client,
    variant: &str,
) -> Result<String, ClientError> {
    let created = white
        .post(
            "/api/games",
            &json!({ "variant": variant, "clock": null, "color": "white" }),
        )
        .await?;
    expect_ok(&created)?;
    let game_id = created.json()["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let accepted = black
        .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
        .await?;
    expect_ok(&accepted)?;
    Ok(game_id)
}

/// Two clients of the server at `addr`, each signed in as a new guest.
async fn two_guests(addr: &str) -> Result<(Client, Client), ClientError> {
    let mut first = Client::new(addr);
    let mut second = Client::new(addr);
    first.guest().await?;
    second.guest().await?;
    Ok((first, second))
}

/// In a paced run (`--rate`), the time between two actions of one game: every game moves at
/// the same pace, so that all of them together make the rate. None runs flat out.
fn turn_interval(options: &LoadOptions) -> Option<Duration> {
    options
        .rate
        .map(|rate| Duration::from_secs_f64(options.games as f64 / rate))
}

/// When the `n`th game's first action is due: paced games start spread over one interval,
/// rather than all at once; unpaced ones at once.
fn first_turn(start: Instant, interval: Option<Duration>, n: usize) -> Instant {
    start + interval.map_or(Duration::ZERO, |i| i.mul_f64((n % 97) as f64 / 97.0))
}

/// A per-game pseudo-random choice of action: a fixed rotation would repeat positions and
/// end games early by repetition.
fn next_pick(rng: &mut u64) -> usize {
    *rng = rng
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*rng >> 33) as usize
}

/// Runs the load for `options.duration` and returns what it measured.
///
/// # Errors
/// The server cannot be reached at all.
pub async fn run(options: LoadOptions) -> Result<LoadReport, ClientError> {
    run_to(options, None).await
}

/// Runs the load until `games` games have ended (or `options.duration` has passed, whichever
/// comes first) and returns what it measured. The server is sampled once 80% of those games
/// have ended, while every game and pair still plays: a test reads the same figures at any
/// speed.
///
/// # Errors
/// The server cannot be reached at all.
pub async fn run_until_finished(
    options: LoadOptions,
    games: u64,
) -> Result<LoadReport, ClientError> {
    run_to(options, Some(games)).await
}

/// [`run`], or [`run_until_finished`] with `finish` games.
async fn run_to(options: LoadOptions, finish: Option<u64>) -> Result<LoadReport, ClientError> {
    let options = Arc::new(options);
    let mut probe = Client::new(options.addr.clone());
    expect_ok(&probe.get("/healthz").await?)?;
    let shared = Arc::new(Shared::new());
    let idle = hold_idle_sockets(&options, &shared).await?;

    // Every slot's players and first game are ready before the measured run starts.
    let setup_started = Instant::now();
    let drivers = if options.games_per_socket > 1 {
        set_up_pairs(&options, &shared).await
    } else {
        set_up_slots(&options, &shared).await
    };
    let computer = computer::ComputerLoad::start(&options).await?;
    let setup_seconds = setup_started.elapsed().as_secs_f64();
    let histogram_before = server_histogram(&mut probe).await;

    let started = Instant::now();
    let metrics_text = play(&options, &shared, drivers, finish, &mut probe).await;
    let seconds = started.elapsed().as_secs_f64();
    let computer_actions = computer.stop().await;
    let histogram_after = server_histogram(&mut probe).await;
    let server_percentile =
        |percent| figures::server_percentile_ms(&histogram_before, &histogram_after, percent);
    let mut latencies = std::mem::take(
        &mut *shared
            .latencies_us
            .lock()
            .unwrap_or_else(|e| e.into_inner()),
    );
    latencies.sort_unstable();
    let moves = shared.moves.load(Ordering::Relaxed);
    let report = LoadReport {
        setup_seconds,
        moves,
        seconds,
        moves_per_second: moves as f64 / seconds,
        p50_ms: figures::percentile(&latencies, 50.0),
        p99_ms: figures::percentile(&latencies, 99.0),
        p999_ms: figures::percentile(&latencies, 99.9),
        max_ms: latencies.last().map_or(0.0, |&m| f64::from(m) / 1000.0),
        games_finished: *shared.finished.borrow(),
        errors: shared.errors.load(Ordering::Relaxed),
        connections_held: figures::metric(&metrics_text, "oddboard_connections").unwrap_or(0.0)
            as i64,
        server_rss_bytes: figures::metric(&metrics_text, "process_resident_memory_bytes")
            .map(|b| b as u64),
        server_p50_ms_at_most: server_percentile(50.0),
        server_p99_ms_at_most: server_percentile(99.0),
        server_p999_ms_at_most: server_percentile(99.9),
        computer_actions,
    };
    for socket in idle {
        socket.close().await;
    }
    Ok(report)
}

/// With `--idle N`: one game's two sockets and N spectators on it, held open for the whole
/// run. A spectator that cannot connect is counted as an error.
async fn hold_idle_sockets(
    options: &LoadOptions,
    shared: &Shared,
) -> Result<Vec<GameSocket>, ClientError> {
    let mut idle = Vec::new();
    if options.idle == 0 {
        return Ok(idle);
    }
    let (mut host, mut guest) = two_guests(&options.addr).await?;
    let (w, b) = slot::new_game(&mut host, &mut guest, &options.variant, None).await?;
    idle.push(w.socket);
    idle.push(b.socket);
    let host_name = whoami(&mut host).await?;
    let game_id = host
        .get(&format!("/api/users/{host_name}/games?per_page=1"))
        .await?
        .json()["games"][0]["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let spectator = Client::new(options.addr.clone());
    for _ in 0..options.idle {
        match spectator.connect_game(&game_id, None).await {
            Ok(socket) => idle.push(socket),
            Err(_) => {
                shared.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    Ok(idle)
}

/// The measured run: plays every driver until the run is over (its duration, or `finish`
/// games), then stops them all and waits for them. Returns the server's `/metrics` text,
/// sampled while the load is on, 80% of the way through the run (empty if unreadable).
async fn play(
    options: &Arc<LoadOptions>,
    shared: &Arc<Shared>,
    drivers: Vec<(usize, Driver)>,
    finish: Option<u64>,
    probe: &mut Client,
) -> String {
    let started = Instant::now();
    let deadline = started + options.duration;
    let mut finished = shared.finished.subscribe();
    let mut tasks = Vec::new();
    for (index, driver) in drivers {
        let options = options.clone();
        let shared = shared.clone();
        tasks.push(tokio::spawn(async move {
            let played = match driver {
                Driver::Slot(slot) => slot::drive_game(options, shared.clone(), slot, index).await,
                Driver::Pair(pair) => pair::drive_pair(options, shared.clone(), pair, index).await,
            };
            if let Err(e) = played {
                shared.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("game {index}: {e}");
            }
        }));
    }
    let sample_at = started + options.duration.mul_f64(0.8);
    let sample_after = finish.map(|games| (games * 4 / 5).max(1));
    until_either(sample_at, &mut finished, sample_after).await;
    let metrics_text = probe
        .get("/metrics")
        .await
        .map(|r| r.body)
        .unwrap_or_default();
    until_either(deadline, &mut finished, finish).await;
    shared.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    metrics_text
}

/// Waits until `time`, or until `games` games have ended if that comes first.
async fn until_either(
    time: Instant,
    finished: &mut tokio::sync::watch::Receiver<u64>,
    games: Option<u64>,
) {
    let Some(games) = games else {
        return tokio::time::sleep_until(time.into()).await;
    };
    tokio::select! {
        () = tokio::time::sleep_until(time.into()) => {}
        // An error means the count's sender is gone, which the run itself holds.
        _ = finished.wait_for(|&ended| ended >= games) => {}
    }
}

/// What plays during the run: one game at a time on sockets of its own, or a multiplexed
/// pair's games.
enum Driver {
    Slot(slot::Slot),
    Pair(pair::MuxPair),
}

/// Sets up one slot per game, numbered; a slot that fails is counted as an error.
async fn set_up_slots(options: &Arc<LoadOptions>, shared: &Shared) -> Vec<(usize, Driver)> {
    let mut setups = Vec::new();
    for index in 0..options.games {
        let options = options.clone();
        setups.push(tokio::spawn(
            async move { slot::set_up(&options, index).await },
        ));
    }
    collect_setups(setups, shared, Driver::Slot).await
}

/// Sets up the multiplexed pairs: `games_per_socket` games each, the last one the rest.
async fn set_up_pairs(options: &Arc<LoadOptions>, shared: &Shared) -> Vec<(usize, Driver)> {
    let mut setups = Vec::new();
    let mut left = options.games;
    while left > 0 {
        let games = left.min(options.games_per_socket);
        left -= games;
        let options = options.clone();
        let index = setups.len();
        setups.push(tokio::spawn(async move {
            pair::MuxPair::set_up(&options, games, index).await
        }));
    }
    collect_setups(setups, shared, Driver::Pair).await
}

async fn collect_setups<T>(
    setups: Vec<tokio::task::JoinHandle<Result<T, ClientError>>>,
    shared: &Shared,
    driver: impl Fn(T) -> Driver,
) -> Vec<(usize, Driver)> {
    let mut ready = Vec::new();
    for (index, setup) in setups.into_iter().enumerate() {
        match setup.await {
            Ok(Ok(set_up)) => ready.push((index, driver(set_up))),
            Ok(Err(e)) => {
                shared.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("game {index}: set-up: {e}");
            }
            Err(e) => {
                shared.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("game {index}: set-up task: {e}");
            }
        }
    }
    ready
}

/// The server's move-latency histogram now; empty if `/metrics` cannot be read.
async fn server_histogram(probe: &mut Client) -> Vec<(f64, u64)> {
    match probe.get("/metrics").await {
        Ok(response) => figures::latency_histogram(&response.body),
        Err(_) => Vec::new(),
    }
}

async fn whoami(client: &mut Client) -> Result<String, ClientError> {
    Ok(client.get("/api/me").await?.json()["username"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}
