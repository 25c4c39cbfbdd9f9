//! The load tool's plain way of playing: a slot per game, both players with a game socket of
//! their own (`/ws/game/{id}`); the side to move sends an action and the slot waits until the
//! opponent's socket delivers it, which the server does only after the commit.

use super::incoming::Incoming;
use super::view::{Side, View};
use super::{create_game, first_turn, next_pick, turn_interval, two_guests, LoadOptions, Shared};
use crate::{Client, ClientError};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Starts a game between the two and opens both players' sockets on it, each read up to
/// its snapshot.
pub(super) async fn new_game(
    white: &mut Client,
    black: &mut Client,
    variant: &str,
    elsewhere: Option<&str>,
) -> Result<(Side, Side), ClientError> {
    let game_id = create_game(white, black, variant).await?;
    let mut sides = Vec::new();
    for (client, color) in [(&*white, "white"), (&*black, "black")] {
        // Several nodes: the sockets on another node than the one that made (and runs) the
        // game, so that every move is forwarded.
        let mut client = client.clone();
        if let Some(addr) = elsewhere {
            client.addr = addr.to_string();
        }
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

/// One game slot ready to play: both players signed in as guests, their first game started
/// and both sockets open.
pub(super) struct Slot {
    white: Client,
    black: Client,
    game: (Side, Side),
}

/// Signs in both players of a slot and starts their first game (before the clock starts, so
/// that setting up hundreds of games at once is not measured as move latency).
pub(super) async fn set_up(options: &LoadOptions, index: usize) -> Result<Slot, ClientError> {
    let (mut white, mut black) = two_guests(options.addr_of(index)).await?;
    let game = new_game(
        &mut white,
        &mut black,
        &options.variant,
        options.elsewhere_of(index),
    )
    .await?;
    Ok(Slot { white, black, game })
}

/// Plays the slot's games until the deadline, starting a new one whenever one ends (those
/// set-ups happen during the measured run, as they would on a live server).
pub(super) async fn drive_game(
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
            None => {
                new_game(
                    &mut white,
                    &mut black,
                    &options.variant,
                    options.elsewhere_of(index),
                )
                .await?
            }
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
