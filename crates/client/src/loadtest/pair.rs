//! The load tool's bot-like way of playing: players in pairs, each with one multiplexed socket
//! (`/ws/games`) carrying many games against the same opponent. One task per pair sends the
//! next action of every game whose last one both players have seen, in one write per socket,
//! then reads whatever has come.

use super::incoming::Incoming;
use super::view::View;
use super::{create_game, first_turn, next_pick, turn_interval, two_guests, LoadOptions, Shared};
use crate::{Client, ClientError, GameSocket};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
pub(super) struct MuxPair {
    white: Client,
    black: Client,
    white_socket: GameSocket,
    black_socket: GameSocket,
    games: std::collections::HashMap<String, MuxGame>,
}

impl MuxPair {
    /// Signs in both players, opens their sockets and starts `games` games, each watched by
    /// both and read up to its snapshot.
    pub(super) async fn set_up(
        options: &LoadOptions,
        games: usize,
        index: usize,
    ) -> Result<MuxPair, ClientError> {
        let (white, black) = two_guests(options.addr_of(index)).await?;
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
    /// Queues the next action of every game whose last one both players have seen and, in a
    /// paced run, whose turn has come; adds the games that have ended to `ended`. Returns the
    /// earliest time a game that waits only for its turn may move.
    async fn feed_due_actions(
        &mut self,
        interval: Option<Duration>,
        rng: &mut u64,
        ended: &mut Vec<String>,
    ) -> Result<Option<Instant>, ClientError> {
        let now = Instant::now();
        let mut next_due: Option<Instant> = None;
        for (gid, game) in &mut self.games {
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
                (&game.white, &mut self.white_socket)
            } else {
                (&game.black, &mut self.black_socket)
            };
            if !mover.can_move() {
                ended.push(gid.clone());
                continue;
            }
            let frame = mover.act_frame(next_pick(rng), Some(gid));
            let ply = mover.ply;
            socket.feed_text(frame).await?;
            game.in_flight = Some(InFlight {
                ply,
                by_white,
                sent: Instant::now(),
                delivered: false,
            });
        }
        Ok(next_due)
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
pub(super) async fn drive_pair(
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
        let next_due = pair
            .feed_due_actions(interval, &mut rng, &mut ended)
            .await?;
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
