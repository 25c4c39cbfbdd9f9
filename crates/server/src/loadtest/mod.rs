//! `oddboard loadtest`: plays many concurrent games against a running server with real
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
//! for the whole run. A run lasts its `--seconds`, or (for tests, [`run_until_finished`]) until
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

use crate::client::{expect_ok, Client, ClientError, GameSocket};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod scan;

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub addr: String,
    pub games: usize,
    pub duration: Duration,
    /// Total moves per second to aim at; None runs flat out.
    pub rate: Option<f64>,
    pub variant: String,
    /// Extra spectator connections to open and hold.
    pub idle: usize,
    /// Games each player's socket carries: 1 opens one `/ws/game/{id}` socket per player and
    /// game; more pairs the players up, each with one multiplexed `/ws/games` socket
    /// carrying this many games against the same opponent (a bot's way of playing).
    pub games_per_socket: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            addr: "127.0.0.1:8080".into(),
            games: 100,
            duration: Duration::from_secs(20),
            rate: None,
            variant: "chad".into(),
            idle: 0,
            games_per_socket: 1,
        }
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

/// `oddboard loadtest`'s flags (`oddboard loadtest --help`).
#[derive(Clone, Debug, clap::Args)]
pub struct LoadArgs {
    /// The server to load.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    pub addr: String,
    /// Games played at once.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Length of the measured run.
    #[arg(long, default_value_t = 20.0, value_name = "S", value_parser = positive_number)]
    pub seconds: f64,
    /// Total moves per second to aim at; without it the games run flat out.
    #[arg(long, value_name = "MOVES_PER_S", value_parser = positive_number)]
    pub rate: Option<f64>,
    /// Variant id.
    #[arg(long, default_value = "chad", value_name = "ID")]
    pub variant: String,
    /// Extra spectator connections to open and hold.
    #[arg(long, default_value_t = 0, value_name = "CONNECTIONS")]
    pub idle: u64,
    /// Games each player's socket carries (more than 1: multiplexed sockets), at most what
    /// the server lets one socket watch.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub games_per_socket: u64,
}

/// A finite number above zero (a NaN or infinite duration would panic the tool).
fn positive_number(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(number) if number.is_finite() && number > 0.0 => Ok(number),
        _ => Err(format!("`{text}` is not a number above 0")),
    }
}

impl From<LoadArgs> for LoadOptions {
    fn from(args: LoadArgs) -> LoadOptions {
        let most_per_socket = crate::web::mux::MAX_WATCHED as u64;
        LoadOptions {
            addr: args.addr,
            games: usize::try_from(args.games).unwrap_or(usize::MAX),
            duration: Duration::from_secs_f64(args.seconds.clamp(0.1, 1e9)),
            rate: args.rate.map(|rate| rate.max(0.1)),
            variant: args.variant,
            idle: usize::try_from(args.idle).unwrap_or(usize::MAX),
            games_per_socket: args.games_per_socket.min(most_per_socket) as usize,
        }
    }
}

/// Reads the flags after `oddboard loadtest`.
///
/// # Errors
/// An unknown flag or a bad value: clap's message.
pub fn parse_args(args: &[String]) -> Result<LoadOptions, String> {
    #[derive(clap::Parser)]
    #[command(name = "oddboard loadtest")]
    struct LoadtestOnly {
        #[command(flatten)]
        args: LoadArgs,
    }
    use clap::Parser;
    let words = std::iter::once("loadtest").chain(args.iter().map(String::as_str));
    LoadtestOnly::try_parse_from(words)
        .map(|parsed| parsed.args.into())
        .map_err(|e| e.to_string())
}

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

/// The parts of a server message the load tool reads, borrowed from the frame
/// ([`scan::Reader`] steps over the rest: pieces, boards, clocks).
#[derive(Default)]
struct Incoming<'a> {
    t: &'a str,
    /// The game a multiplexed socket's message is about.
    gid: Option<&'a str>,
    /// The code of an error message.
    code: Option<&'a str>,
    kind: Option<&'a str>,
    ply: Option<u64>,
    /// The whole rules snapshot (a `started` event).
    rules: Option<RulesPart<'a>>,
    /// What changed in it (an `action` event): turn, legal actions and outcome come whole.
    update: Option<RulesPart<'a>>,
    game: Option<GamePart<'a>>,
    messages: Vec<Incoming<'a>>,
}

impl<'a> Incoming<'a> {
    /// Reads one whole message.
    fn parse(frame: &'a str) -> Result<Incoming<'a>, ClientError> {
        let mut reader = scan::Reader::new(frame);
        match Incoming::read(&mut reader) {
            Some(message) if reader.at_end() => Ok(message),
            _ => Err(ClientError(format!(
                "malformed server message near byte {}: {frame}",
                reader.offset()
            ))),
        }
    }

    fn read(reader: &mut scan::Reader<'a>) -> Option<Incoming<'a>> {
        let mut message = Incoming::default();
        reader.object(|r, key| {
            match key {
                "t" => message.t = r.string()?,
                "gid" => message.gid = nullable(r, scan::Reader::string)?,
                "code" => message.code = nullable(r, scan::Reader::string)?,
                "kind" => message.kind = nullable(r, scan::Reader::string)?,
                "ply" => message.ply = nullable(r, scan::Reader::u64)?,
                "rules" => message.rules = nullable(r, RulesPart::read)?,
                "update" => message.update = nullable(r, RulesPart::read)?,
                "game" => message.game = nullable(r, GamePart::read)?,
                "messages" => {
                    nullable(r, |r| {
                        r.array(|r| {
                            message.messages.push(Incoming::read(r)?);
                            Some(())
                        })
                    })?;
                }
                _ => r.skip()?,
            }
            Some(())
        })?;
        Some(message)
    }
}

/// A value that may be `null`: `Some(None)` for a null, `None` if it is neither null nor read.
fn nullable<'a, T>(
    reader: &mut scan::Reader<'a>,
    read: impl FnOnce(&mut scan::Reader<'a>) -> Option<T>,
) -> Option<Option<T>> {
    if reader.null() {
        Some(None)
    } else {
        read(reader).map(Some)
    }
}

#[derive(Default)]
struct RulesPart<'a> {
    turn: &'a str,
    /// The list's JSON text, borrowed from the frame: only the side to move reads it
    /// ([`legal_literals`]). Parsed into strings, the hundred-odd actions of a Chad position
    /// were two fifths of the load tool's work, for both players on every move.
    legal_actions: Option<&'a str>,
    /// Whether the game is over.
    outcome: bool,
}

impl<'a> RulesPart<'a> {
    fn read(reader: &mut scan::Reader<'a>) -> Option<RulesPart<'a>> {
        let mut rules = RulesPart::default();
        reader.object(|r, key| {
            match key {
                "turn" => rules.turn = nullable(r, scan::Reader::string)?.unwrap_or_default(),
                "legal_actions" => rules.legal_actions = nullable(r, scan::Reader::raw)?,
                "outcome" => rules.outcome = nullable(r, scan::Reader::skip)?.is_some(),
                _ => r.skip()?,
            }
            Some(())
        })?;
        Some(rules)
    }
}

/// The string literals of a JSON array of strings (`["a1a2","b\"c"]`), as byte ranges of
/// `array` with their quotes and escapes kept: each is already the JSON text of its action,
/// which is all the load tool ever does with one. None if `array` is not an array of strings.
fn legal_literals(array: &str, ranges: &mut Vec<std::ops::Range<usize>>) -> Option<()> {
    scan::Reader::new(array).array(|r| {
        ranges.push(r.string_literal()?);
        Some(())
    })
}

#[derive(Default)]
struct GamePart<'a> {
    /// How many moves have been played.
    moves: u64,
    rules: RulesPart<'a>,
    outcome: bool,
}

impl<'a> GamePart<'a> {
    fn read(reader: &mut scan::Reader<'a>) -> Option<GamePart<'a>> {
        let mut game = GamePart::default();
        reader.object(|r, key| {
            match key {
                "moves" => r.array(|r| {
                    game.moves += 1;
                    r.skip()
                })?,
                "rules" => game.rules = RulesPart::read(r)?,
                "outcome" => game.outcome = nullable(r, scan::Reader::skip)?.is_some(),
                _ => r.skip()?,
            }
            Some(())
        })?;
        Some(game)
    }
}

/// The rules state one player tracks from the server's messages about one game.
struct View {
    /// `white` or `black`.
    color: &'static str,
    ply: u64,
    /// The legal actions while it is this side's turn (empty otherwise: only the side to move
    /// keeps a copy), as ranges of `legal_text`, the list's JSON text: each range is one
    /// action's JSON string literal, quotes included. One buffer reused from move to move
    /// instead of a string per action.
    legal: Vec<std::ops::Range<usize>>,
    legal_text: String,
    turn: String,
    over: bool,
    /// Whether a snapshot or a game's start has been read (a multiplexed game is played only
    /// once both players' views are).
    synced: bool,
}

impl View {
    fn new(color: &'static str) -> View {
        View {
            color,
            ply: 0,
            legal: Vec::new(),
            legal_text: String::new(),
            turn: String::new(),
            over: false,
            synced: false,
        }
    }

    fn to_move(&self) -> bool {
        self.turn == self.color
    }

    fn absorb(&mut self, message: Incoming<'_>) {
        match message.t {
            "snapshot" => {
                if let Some(game) = message.game {
                    self.synced = true;
                    self.ply = game.moves;
                    self.over = game.outcome;
                    self.absorb_rules(game.rules);
                }
            }
            "event" => match message.kind {
                Some("started") | Some("action") => {
                    if let Some(ply) = message.ply {
                        self.ply = ply;
                    }
                    self.synced = true;
                    if let Some(rules) = message.rules.or(message.update) {
                        self.absorb_rules(rules);
                    }
                }
                Some("ended") => self.over = true,
                _ => {}
            },
            "batch" => {
                for m in message.messages {
                    self.absorb(m);
                }
            }
            _ => {}
        }
    }

    fn absorb_rules(&mut self, rules: RulesPart<'_>) {
        self.turn.clear();
        self.turn.push_str(rules.turn);
        self.legal.clear();
        self.legal_text.clear();
        if let (true, Some(list)) = (self.to_move(), rules.legal_actions) {
            self.legal_text.push_str(list);
            if legal_literals(&self.legal_text, &mut self.legal).is_none() {
                // Not a list of strings: nothing this side can play.
                self.legal.clear();
            }
        }
        if rules.outcome {
            self.over = true;
        }
    }

    /// The JSON string literal of the `index`th legal action of the side to move (empty if
    /// there is none).
    fn legal_action(&self, index: usize) -> &str {
        self.legal
            .get(index)
            .and_then(|range| self.legal_text.get(range.clone()))
            .unwrap_or_default()
    }

    /// Whether this side is to move with something to play.
    fn can_move(&self) -> bool {
        !self.over && !self.legal.is_empty()
    }

    /// Handles an error message about this game: the ones a player can meet in a game it
    /// plays correctly are absorbed, any other is returned as an error.
    fn absorb_error(&mut self, message: &Incoming<'_>, frame: &str) -> Result<(), ClientError> {
        match message.code {
            // The server plays forced actions itself (a Do-Or-Die Chazz pass): the same
            // action sent for that ply is refused as a duplicate, and the ply's event
            // arrives as usual.
            Some("duplicate_action") => Ok(()),
            // Likewise when that forced action ended the game.
            Some("game_over") => {
                self.over = true;
                Ok(())
            }
            _ => Err(ClientError(format!("server refused: {frame}"))),
        }
    }

    /// The frame of the action to play next: the `pick`th legal action (modulo their number),
    /// for the next ply, with `game` (a game's id) if the socket carries many games.
    fn act_frame(&self, pick: usize, game: Option<&str>) -> String {
        let action = self.legal_action(pick % self.legal.len().max(1));
        let ply = self.ply + 1;
        match game {
            None => format!("{{\"t\":\"act\",\"ply\":{ply},\"action\":{action}}}"),
            Some(gid) => format!(
                "{{\"t\":\"game\",\"gid\":\"{gid}\",\"msg\":{{\"t\":\"act\",\"ply\":{ply},\"action\":{action}}}}}"
            ),
        }
    }
}

/// One player's socket to one game, and what it knows of the game.
struct Side {
    socket: GameSocket,
    view: View,
}

impl Side {
    /// Reads until the game passes `ply` or ends; returns the error code if one came first.
    async fn read_past(&mut self, ply: u64) -> Result<(), ClientError> {
        while self.view.ply <= ply && !self.view.over {
            let frame = self.socket.next_frame(Duration::from_secs(30)).await?;
            let message = Incoming::parse(&frame)?;
            if message.t == "error" {
                self.view.absorb_error(&message, &frame)?;
                continue;
            }
            self.view.absorb(message);
        }
        Ok(())
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

async fn new_game(
    white: &mut Client,
    black: &mut Client,
    variant: &str,
) -> Result<(Side, Side), ClientError> {
    let game_id = create_game(white, black, variant).await?;
    let mut sides = Vec::new();
    for (client, color) in [(&*white, "white"), (&*black, "black")] {
        let mut side = Side {
            socket: client.connect_game(&game_id, None).await?,
            view: View::new(color),
        };
        let first = side.socket.next_frame(Duration::from_secs(30)).await?;
        side.view.absorb(Incoming::parse(&first)?);
        sides.push(side);
    }
    let black_side = sides.pop().ok_or_else(|| ClientError("no socket".into()))?;
    let white_side = sides.pop().ok_or_else(|| ClientError("no socket".into()))?;
    Ok((white_side, black_side))
}

/// Two clients of the server at `addr`, each signed in as a new guest.
async fn two_guests(addr: &str) -> Result<(Client, Client), ClientError> {
    let mut first = Client::new(addr);
    let mut second = Client::new(addr);
    first.guest().await?;
    second.guest().await?;
    Ok((first, second))
}

/// One game slot ready to play: both players signed in as guests, their first game started
/// and both sockets open.
struct Slot {
    white: Client,
    black: Client,
    game: (Side, Side),
}

/// Signs in both players of a slot and starts their first game (before the clock starts, so
/// that setting up hundreds of games at once is not measured as move latency).
async fn set_up(options: &LoadOptions) -> Result<Slot, ClientError> {
    let (mut white, mut black) = two_guests(&options.addr).await?;
    let game = new_game(&mut white, &mut black, &options.variant).await?;
    Ok(Slot { white, black, game })
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

/// Plays the slot's games until the deadline, starting a new one whenever one ends (those
/// set-ups happen during the measured run, as they would on a live server).
async fn drive_game(
    options: Arc<LoadOptions>,
    shared: Arc<Shared>,
    slot: Slot,
    index: usize,
) -> Result<(), ClientError> {
    let Slot {
        mut white,
        mut black,
        game,
    } = slot;
    let mut game = Some(game);
    let interval = turn_interval(&options);
    let mut next_move = first_turn(Instant::now(), interval, index);
    let mut rng = index as u64 ^ 0x9e37_79b9_7f4a_7c15;
    while !shared.stopping() {
        let (mut w, mut b) = match game.take() {
            Some(game) => game,
            None => new_game(&mut white, &mut black, &options.variant).await?,
        };
        loop {
            if shared.stopping() {
                return Ok(());
            }
            let (mover, opponent) = if w.view.to_move() {
                (&mut w, &mut b)
            } else {
                (&mut b, &mut w)
            };
            if !mover.view.can_move() {
                shared.game_finished();
                break;
            }
            if let Some(interval) = interval {
                tokio::time::sleep_until(next_move.into()).await;
                next_move += interval;
                if shared.stopping() {
                    return Ok(());
                }
            }
            let ply = mover.view.ply;
            let frame = mover.view.act_frame(next_pick(&mut rng), None);
            let sent = Instant::now();
            mover.socket.send_text(frame).await?;
            opponent.read_past(ply).await?;
            let latency = sent.elapsed();
            mover.read_past(ply).await?;
            shared.moves.fetch_add(1, Ordering::Relaxed);
            shared.record_latency(latency);
        }
    }
    Ok(())
}

/// An action sent in a multiplexed game and not yet seen by both players.
struct InFlight {
    ply: u64,
    by_white: bool,
    sent: Instant,
    /// Whether the opponent has received it (its latency is taken then).
    delivered: bool,
}

/// One game of a multiplexed pair: both players' views, the action in flight and, in a paced
/// run, when its next action is due.
struct MuxGame {
    white: View,
    black: View,
    in_flight: Option<InFlight>,
    next_move: Instant,
}

/// Two players, each with one multiplexed socket, playing several games against each other
/// (White in all of them is the first).
struct MuxPair {
    white: Client,
    black: Client,
    white_socket: GameSocket,
    black_socket: GameSocket,
    games: std::collections::HashMap<String, MuxGame>,
}

impl MuxPair {
    /// Signs in both players, opens their sockets and starts `games` games, each watched by
    /// both and read up to its snapshot.
    async fn set_up(options: &LoadOptions, games: usize) -> Result<MuxPair, ClientError> {
        let (white, black) = two_guests(&options.addr).await?;
        let mut pair = MuxPair {
            white_socket: white.connect_games().await?,
            black_socket: black.connect_games().await?,
            white,
            black,
            games: std::collections::HashMap::new(),
        };
        for _ in 0..games {
            pair.add_game(&options.variant).await?;
        }
        pair.white_socket.flush().await?;
        pair.black_socket.flush().await?;
        let unsynced = |pair: &MuxPair| {
            pair.games
                .values()
                .any(|game| !game.white.synced || !game.black.synced)
        };
        while unsynced(&pair) {
            pair.read(None).await?;
        }
        Ok(pair)
    }

    /// Starts a new game between the pair and has both sockets watch it (the watch frames
    /// go out with the next flush).
    async fn add_game(&mut self, variant: &str) -> Result<(), ClientError> {
        let gid = create_game(&mut self.white, &mut self.black, variant).await?;
        self.watch_game(gid).await
    }

    /// Has both sockets watch a game just started between the pair (the watch frames go out
    /// with the next flush).
    async fn watch_game(&mut self, gid: String) -> Result<(), ClientError> {
        let watch = format!("{{\"t\":\"watch\",\"gid\":\"{gid}\"}}");
        self.white_socket.feed_text(watch.clone()).await?;
        self.black_socket.feed_text(watch).await?;
        let game = MuxGame {
            white: View::new("white"),
            black: View::new("black"),
            in_flight: None,
            next_move: Instant::now(),
        };
        self.games.insert(gid, game);
        Ok(())
    }

    /// Stops watching an ended game on both sockets.
    async fn drop_game(&mut self, gid: &str) -> Result<(), ClientError> {
        self.games.remove(gid);
        let unwatch = format!("{{\"t\":\"unwatch\",\"gid\":\"{gid}\"}}");
        self.white_socket.feed_text(unwatch.clone()).await?;
        self.black_socket.feed_text(unwatch).await
    }

    /// Waits for a frame on either socket, then takes every frame that has already come.
    async fn read(&mut self, shared: Option<&Shared>) -> Result<(), ClientError> {
        let wait = Duration::from_secs(30);
        let (frame, from_white) = tokio::select! {
            frame = self.white_socket.next_frame(wait) => (frame?, true),
            frame = self.black_socket.next_frame(wait) => (frame?, false),
        };
        self.absorb(&frame, from_white, shared)?;
        while let Some(frame) = self.white_socket.try_next_frame() {
            self.absorb(&frame?, true, shared)?;
        }
        while let Some(frame) = self.black_socket.try_next_frame() {
            self.absorb(&frame?, false, shared)?;
        }
        Ok(())
    }

    /// Applies one frame to its game's view of the player whose socket it came on, and
    /// counts the action in flight once both players have seen it.
    fn absorb(
        &mut self,
        frame: &str,
        from_white: bool,
        shared: Option<&Shared>,
    ) -> Result<(), ClientError> {
        let message = Incoming::parse(frame)?;
        let Some(gid) = message.gid else {
            if message.t == "error" {
                return Err(ClientError(format!("server refused: {frame}")));
            }
            return Ok(());
        };
        // A game just unwatched may still have messages on the way.
        let Some(game) = self.games.get_mut(gid) else {
            return Ok(());
        };
        let view = if from_white {
            &mut game.white
        } else {
            &mut game.black
        };
        match message.t {
            "error" => view.absorb_error(&message, frame)?,
            "unwatched" => view.over = true,
            _ => view.absorb(message),
        }
        let Some(flight) = &mut game.in_flight else {
            return Ok(());
        };
        let ply = flight.ply;
        let seen = |view: &View| view.ply > ply || view.over;
        let (mover, opponent) = if flight.by_white {
            (&game.white, &game.black)
        } else {
            (&game.black, &game.white)
        };
        if !flight.delivered && seen(opponent) {
            flight.delivered = true;
            if let Some(shared) = shared {
                shared.record_latency(flight.sent.elapsed());
            }
        }
        if flight.delivered && seen(mover) {
            game.in_flight = None;
            if let Some(shared) = shared {
                shared.moves.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

/// Starts the pair's replacement games in a task of its own, with copies of the players'
/// clients (same sessions, their own connections). Setting a game up takes two HTTP requests,
/// each answered after a commit; done in the pair's own task, it would hold up the pair's
/// other games for that long and count the wait in their latencies, where a bot would go on
/// playing them.
fn spawn_game_maker(
    pair: &MuxPair,
    variant: String,
) -> (
    tokio::sync::mpsc::UnboundedSender<()>,
    tokio::sync::mpsc::UnboundedReceiver<Result<String, ClientError>>,
) {
    let (order, mut orders) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (made, games) = tokio::sync::mpsc::unbounded_channel();
    let (mut white, mut black) = (pair.white.clone(), pair.black.clone());
    tokio::spawn(async move {
        // Ends when the pair's task drops its sender, or stops reading.
        while orders.recv().await.is_some() {
            let game = create_game(&mut white, &mut black, &variant).await;
            if made.send(game).is_err() {
                break;
            }
        }
    });
    (order, games)
}

/// Plays a pair's games until the deadline: sends the next action of every game whose last
/// one both players have seen (in one write per socket), reads what comes back, and replaces
/// each game that ends with a new one ([`spawn_game_maker`]). In a paced run (`--rate`) each
/// game also waits for its turn, as with a socket per game ([`turn_interval`],
/// [`first_turn`]).
async fn drive_pair(
    options: Arc<LoadOptions>,
    shared: Arc<Shared>,
    mut pair: MuxPair,
    index: usize,
) -> Result<(), ClientError> {
    let mut rng = index as u64 ^ 0x9e37_79b9_7f4a_7c15;
    let interval = turn_interval(&options);
    let start = Instant::now();
    for (n, game) in pair.games.values_mut().enumerate() {
        game.next_move = first_turn(start, interval, index + n);
    }
    let (order_game, mut new_games) = spawn_game_maker(&pair, options.variant.clone());
    let mut ended = Vec::new();
    while !shared.stopping() {
        let now = Instant::now();
        // The earliest time a game that is waiting only for its turn may move.
        let mut next_due: Option<Instant> = None;
        for (gid, game) in &mut pair.games {
            if game.in_flight.is_some() || !game.white.synced || !game.black.synced {
                continue;
            }
            if let Some(interval) = interval {
                if game.next_move > now {
                    next_due = Some(next_due.map_or(game.next_move, |d| d.min(game.next_move)));
                    continue;
                }
                game.next_move += interval;
            }
            let by_white = game.white.to_move();
            let (mover, socket) = if by_white {
                (&game.white, &mut pair.white_socket)
            } else {
                (&game.black, &mut pair.black_socket)
            };
            if !mover.can_move() {
                ended.push(gid.clone());
                continue;
            }
            let frame = mover.act_frame(next_pick(&mut rng), Some(gid));
            let ply = mover.ply;
            socket.feed_text(frame).await?;
            game.in_flight = Some(InFlight {
                ply,
                by_white,
                sent: Instant::now(),
                delivered: false,
            });
        }
        for gid in ended.drain(..) {
            shared.game_finished();
            pair.drop_game(&gid).await?;
            order_game
                .send(())
                .map_err(|_| ClientError("the pair's game maker stopped".into()))?;
        }
        pair.white_socket.flush().await?;
        pair.black_socket.flush().await?;
        let turn_comes = async {
            match next_due {
                Some(due) => tokio::time::sleep_until(due.into()).await,
                None => std::future::pending().await,
            }
        };
        // Each branch is cancel-safe: a frame half read stays in its socket's buffer, and a
        // game made meanwhile stays in the channel.
        tokio::select! {
            read = pair.read(Some(&shared)) => read?,
            () = turn_comes => {}
            made = new_games.recv() => {
                let gid = made.ok_or_else(|| ClientError("the pair's game maker stopped".into()))??;
                // It may move as soon as both players have its snapshot.
                pair.watch_game(gid).await?;
            }
        }
    }
    Ok(())
}

/// A per-game pseudo-random choice of action: a fixed rotation would repeat positions and
/// end games early by repetition.
fn next_pick(rng: &mut u64) -> usize {
    *rng = rng
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*rng >> 33) as usize
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // Nearest-rank percentile: the smallest value with at least p% of samples at or below it.
    let rank = ((p / 100.0) * sorted.len() as f64 - 1e-9).ceil() as usize;
    let index = rank.clamp(1, sorted.len()) - 1;
    f64::from(sorted[index]) / 1000.0
}

fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// The server's move-latency histogram in a `/metrics` text: (upper bound in seconds,
/// cumulative count) per bucket, `+Inf` last. Empty if the text has none.
fn latency_histogram(text: &str) -> Vec<(f64, u64)> {
    const BUCKET: &str = "oddboard_move_latency_seconds_bucket{le=\"";
    text.lines()
        .filter_map(|line| {
            let (bound, count) = line.strip_prefix(BUCKET)?.split_once("\"} ")?;
            let bound = match bound {
                "+Inf" => f64::INFINITY,
                finite => finite.parse().ok()?,
            };
            Some((bound, count.trim().parse().ok()?))
        })
        .collect()
}

/// The upper bound, in ms, of the bucket holding the `percent`th percentile of the moves the
/// server recorded between two readings of its histogram. None if either reading is missing,
/// their buckets differ, or no move was recorded in between.
fn server_percentile_ms(before: &[(f64, u64)], after: &[(f64, u64)], percent: f64) -> Option<f64> {
    let same_buckets =
        before.len() == after.len() && before.iter().zip(after).all(|(b, a)| b.0 == a.0);
    if before.is_empty() || !same_buckets {
        return None;
    }
    let counts: Vec<(f64, u64)> = before
        .iter()
        .zip(after)
        .map(|(&(_, earlier), &(bound, later))| (bound, later.saturating_sub(earlier)))
        .collect();
    let total = counts.last()?.1;
    if total == 0 {
        return None;
    }
    // The tolerance keeps a rank that is whole on paper (99.9% of 1,000) from rounding up.
    let rank = ((percent / 100.0 * total as f64 - 1e-9).ceil() as u64).max(1);
    counts
        .iter()
        .find(|&&(_, cumulative)| cumulative >= rank)
        .map(|&(bound, _)| bound * 1000.0)
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
    let shared = Arc::new(Shared {
        latencies_us: std::sync::Mutex::new(Vec::new()),
        moves: AtomicU64::new(0),
        finished: tokio::sync::watch::Sender::new(0),
        errors: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    });

    // Idle spectators on one game held open for the whole run.
    let mut idle = Vec::new();
    if options.idle > 0 {
        let (mut host, mut guest) = two_guests(&options.addr).await?;
        let (w, b) = new_game(&mut host, &mut guest, &options.variant).await?;
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
    }

    // Every slot's players and first game are ready before the measured run starts.
    let setup_started = Instant::now();
    let drivers = if options.games_per_socket > 1 {
        set_up_pairs(&options, &shared).await
    } else {
        set_up_slots(&options, &shared).await
    };
    let setup_seconds = setup_started.elapsed().as_secs_f64();
    let histogram_before = server_histogram(&mut probe).await;

    let started = Instant::now();
    let deadline = started + options.duration;
    let mut finished = shared.finished.subscribe();
    let mut tasks = Vec::new();
    for (index, driver) in drivers {
        let options = options.clone();
        let shared = shared.clone();
        tasks.push(tokio::spawn(async move {
            let played = match driver {
                Driver::Slot(slot) => drive_game(options, shared.clone(), slot, index).await,
                Driver::Pair(pair) => drive_pair(options, shared.clone(), pair, index).await,
            };
            if let Err(e) = played {
                shared.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("game {index}: {e}");
            }
        }));
    }
    // Sample the server while the load is on, 80% of the way through the run.
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
    let seconds = started.elapsed().as_secs_f64();
    let histogram_after = server_histogram(&mut probe).await;
    let server_percentile =
        |percent| server_percentile_ms(&histogram_before, &histogram_after, percent);
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
        p50_ms: percentile(&latencies, 50.0),
        p99_ms: percentile(&latencies, 99.0),
        p999_ms: percentile(&latencies, 99.9),
        max_ms: latencies.last().map_or(0.0, |&m| f64::from(m) / 1000.0),
        games_finished: *shared.finished.borrow(),
        errors: shared.errors.load(Ordering::Relaxed),
        connections_held: metric(&metrics_text, "oddboard_connections").unwrap_or(0.0) as i64,
        server_rss_bytes: metric(&metrics_text, "process_resident_memory_bytes").map(|b| b as u64),
        server_p50_ms_at_most: server_percentile(50.0),
        server_p99_ms_at_most: server_percentile(99.0),
        server_p999_ms_at_most: server_percentile(99.9),
    };
    for socket in idle {
        socket.close().await;
    }
    Ok(report)
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
    Slot(Slot),
    Pair(MuxPair),
}

/// Sets up one slot per game, numbered; a slot that fails is counted as an error.
async fn set_up_slots(options: &Arc<LoadOptions>, shared: &Shared) -> Vec<(usize, Driver)> {
    let mut setups = Vec::new();
    for _ in 0..options.games {
        let options = options.clone();
        setups.push(tokio::spawn(async move { set_up(&options).await }));
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
        setups.push(tokio::spawn(async move {
            MuxPair::set_up(&options, games).await
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
        Ok(response) => latency_histogram(&response.body),
        Err(_) => Vec::new(),
    }
}

async fn whoami(client: &mut Client) -> Result<String, ClientError> {
    Ok(client.get("/api/me").await?.json()["username"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let args: Vec<String> = [
            "--games",
            "50",
            "--rate",
            "5000",
            "--seconds",
            "10",
            "--variant",
            "suicide",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let options = parse_args(&args).unwrap_or_default();
        assert_eq!(options.games, 50);
        assert_eq!(options.rate, Some(5000.0));
        assert_eq!(options.duration, Duration::from_secs(10));
        assert!(parse_args(&["--bogus".to_string(), "1".to_string()]).is_err());
        assert!(parse_args(&["--games".to_string()]).is_err());
        assert_eq!(options.games_per_socket, 1);
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let multiplexed = parse_args(&args(&["--games-per-socket", "50"])).unwrap_or_default();
        assert_eq!(multiplexed.games_per_socket, 50);
        let capped = parse_args(&args(&["--games-per-socket", "1000"])).unwrap_or_default();
        assert_eq!(capped.games_per_socket, 256, "the server's limit");
        let paced =
            parse_args(&args(&["--games-per-socket", "50", "--rate", "100"])).unwrap_or_default();
        assert_eq!((paced.games_per_socket, paced.rate), (50, Some(100.0)));
    }

    #[test]
    fn legal_literals_are_the_quoted_actions() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            (r#"["a1a2","b1c3"]"#, Some(&[r#""a1a2""#, r#""b1c3""#])),
            (
                r#" [ "e7e8q" , "pass" ] "#,
                Some(&[r#""e7e8q""#, r#""pass""#]),
            ),
            (r#"["a\"b","c\\"]"#, Some(&[r#""a\"b""#, r#""c\\""#])),
            ("[]", Some(&[])),
            ("[ ]", Some(&[])),
            (r#"["a1a2",3]"#, None),
            (r#"["a1a2""#, None),
            (r#"["a1a2" "b"]"#, None),
            (r#"{"a":1}"#, None),
            (r#"["unterminated\"]"#, None),
        ];
        for &(array, expected) in cases {
            let mut ranges = Vec::new();
            let found = legal_literals(array, &mut ranges)
                .map(|()| ranges.iter().map(|r| &array[r.clone()]).collect::<Vec<_>>());
            assert_eq!(found.as_deref(), expected, "{array}");
            // Every literal is the JSON text of a string.
            for literal in found.unwrap_or_default() {
                assert!(serde_json::from_str::<String>(literal).is_ok(), "{literal}");
            }
        }
    }

    /// What serde_json reads from a message, in the shape [`Incoming`] keeps.
    fn by_serde(value: &Value) -> (String, Option<u64>, String, Option<String>, bool) {
        let rules = if value["rules"].is_object() {
            &value["rules"]
        } else {
            &value["update"]
        };
        (
            value["t"].as_str().unwrap_or_default().to_string(),
            value["ply"].as_u64(),
            rules["turn"].as_str().unwrap_or_default().to_string(),
            rules
                .get("legal_actions")
                .filter(|l| !l.is_null())
                .map(|l| l.to_string()),
            !rules["outcome"].is_null(),
        )
    }

    /// Real server events (started, then 60 plies of actions, then the end) of every variant
    /// read by [`Incoming::parse`] give what serde_json gives; whitespace and field order are
    /// the server's own.
    #[test]
    fn incoming_reads_real_events_as_serde_does() {
        use crate::game::event::{sample_action_events, EventLog, GameEvent};
        use crate::rules::{AnyGame, Variant};
        for variant in Variant::ALL.into_iter().filter(|v| v.is_playable()) {
            let Ok(game) = AnyGame::start(variant) else {
                panic!("{variant} does not start");
            };
            let mut log = EventLog::starting_at(0);
            let mut messages = vec![log.push(&GameEvent::Started {
                white: "Guest1".into(),
                black: "Guest\"2".into(),
                rules: Box::new(game.snapshot()),
            })];
            for event in sample_action_events(variant, 60, 5, |_, _| None) {
                messages.push(log.push(&event));
            }
            for message in &messages {
                let Ok(ours) = Incoming::parse(message) else {
                    panic!("{variant}: not read: {message}");
                };
                let rules = ours.rules.as_ref().or(ours.update.as_ref());
                let value: Value = serde_json::from_str(message).unwrap_or_default();
                let read = (
                    ours.t.to_string(),
                    ours.ply,
                    rules.map(|r| r.turn.to_string()).unwrap_or_default(),
                    rules.and_then(|r| r.legal_actions).map(|l| {
                        // Compared as values: serde writes its own spacing.
                        serde_json::from_str::<Value>(l)
                            .unwrap_or_default()
                            .to_string()
                    }),
                    rules.is_some_and(|r| r.outcome),
                );
                assert_eq!(read, by_serde(&value), "{variant}: {message}");
                assert_eq!(ours.kind, value["kind"].as_str(), "{variant}");
            }
            // A catch-up batch holds the same messages, in order.
            let batch = format!(r#"{{"t":"batch","messages":[{}]}}"#, messages.join(","));
            let Ok(read) = Incoming::parse(&batch) else {
                panic!("{variant}: batch not read");
            };
            assert_eq!(read.messages.len(), messages.len(), "{variant}");
        }
    }

    #[test]
    fn malformed_messages_are_errors() {
        for frame in [
            "",
            "{",
            r#"{"t":"event""#,
            r#"{"t":"event"} x"#,
            r#"{"ply":"x"}"#,
            "[]",
        ] {
            assert!(Incoming::parse(frame).is_err(), "{frame:?}");
        }
        let Ok(error) = Incoming::parse(r#"{"t":"error","code":"duplicate_action","message":"x"}"#)
        else {
            panic!("an error message is not read");
        };
        assert_eq!((error.t, error.code), ("error", Some("duplicate_action")));
    }

    #[test]
    fn percentiles_and_metrics() {
        let sorted: Vec<u32> = (1..=1000).collect();
        assert_eq!(percentile(&sorted, 50.0), 0.5);
        assert_eq!(percentile(&sorted, 99.9), 0.999);
        let text = "oddboard_connections 12\noddboard_connections_extra 3\n";
        assert_eq!(metric(text, "oddboard_connections"), Some(12.0));
    }

    /// A `/metrics` text with the latency histogram's cumulative counts at 1 ms, 5 ms, 10 ms
    /// and beyond.
    fn histogram_text(counts: [u64; 4]) -> String {
        format!(
            "# TYPE oddboard_move_latency_seconds histogram\n\
             oddboard_move_latency_seconds_bucket{{le=\"0.001\"}} {}\n\
             oddboard_move_latency_seconds_bucket{{le=\"0.005\"}} {}\n\
             oddboard_move_latency_seconds_bucket{{le=\"0.01\"}} {}\n\
             oddboard_move_latency_seconds_bucket{{le=\"+Inf\"}} {}\n\
             oddboard_move_latency_seconds_sum 1.5\n\
             oddboard_move_latency_seconds_count {}\n",
            counts[0], counts[1], counts[2], counts[3], counts[3]
        )
    }

    #[test]
    fn server_percentiles_come_from_the_buckets_filled_during_the_run() {
        let before = latency_histogram(&histogram_text([500, 500, 500, 500]));
        assert_eq!(
            before,
            [
                (0.001, 500),
                (0.005, 500),
                (0.01, 500),
                (f64::INFINITY, 500)
            ]
        );
        // During the run: 900 moves within 1 ms, 95 more within 5 ms, 4 within 10 ms, 1 beyond.
        let after = latency_histogram(&histogram_text([1400, 1495, 1499, 1500]));
        let at = |percent| server_percentile_ms(&before, &after, percent);
        assert_eq!(at(50.0), Some(1.0));
        assert_eq!(at(90.0), Some(1.0));
        assert_eq!(at(99.0), Some(5.0));
        assert_eq!(at(99.5), Some(5.0));
        assert_eq!(at(99.6), Some(10.0));
        assert_eq!(at(99.9), Some(10.0));
        assert_eq!(at(100.0), Some(f64::INFINITY));
        // The moves before the run do not count: all 500 were within 1 ms.
        assert_eq!(at(95.0), Some(5.0));
        // Nothing to say without both readings, with different buckets, or without moves.
        assert_eq!(server_percentile_ms(&[], &after, 99.0), None);
        assert_eq!(server_percentile_ms(&before, &after[..3], 99.0), None);
        assert_eq!(server_percentile_ms(&before, &before, 99.0), None);
        assert!(latency_histogram("oddboard_connections 3\n").is_empty());
    }
}
