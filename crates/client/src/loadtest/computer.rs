//! Games against the computer kept going beside a run (`--computer-games N`), so that the
//! server's engine threads search for the whole measured run while the measured games play:
//! what shows whether human games keep their latency while the computer thinks. Each is a
//! guest playing White against the computer without a clock, answering at once whenever it
//! is its turn, and starting a new game when one ends. These games' actions are not counted
//! in the run's figures; the computer's are counted apart, to show the searches ran.

use super::incoming::Incoming;
use super::view::{Side, View};
use super::{next_pick, LoadOptions};
use crate::{expect_ok, Client, ClientError};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The games against the computer, running until [`ComputerLoad::stop`].
pub(super) struct ComputerLoad {
    stop: Arc<AtomicBool>,
    computer_actions: Arc<AtomicU64>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl ComputerLoad {
    /// Signs in `options.computer_games` guests and starts their games; each plays on in a
    /// task of its own.
    ///
    /// # Errors
    /// A guest or game could not be set up.
    pub(super) async fn start(options: &LoadOptions) -> Result<ComputerLoad, ClientError> {
        let mut load = ComputerLoad {
            stop: Arc::new(AtomicBool::new(false)),
            computer_actions: Arc::new(AtomicU64::new(0)),
            tasks: Vec::new(),
        };
        for index in 0..options.computer_games {
            let mut client = Client::new(options.addr.clone());
            client.guest().await?;
            let side = new_game(&client, options).await?;
            let (stop, counted) = (load.stop.clone(), load.computer_actions.clone());
            let options = options.clone();
            load.tasks.push(tokio::spawn(async move {
                if let Err(e) = play(client, side, &options, &stop, &counted, index).await {
                    if !stop.load(Ordering::Relaxed) {
                        eprintln!("a game against the computer stopped: {e}");
                    }
                }
            }));
        }
        Ok(load)
    }

    /// Stops the games; returns how many actions the computer played meanwhile.
    pub(super) async fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        for task in self.tasks {
            task.abort();
            let _ = task.await;
        }
        self.computer_actions.load(Ordering::Relaxed)
    }
}

/// Starts a game against the computer as White and opens its socket, read up to its
/// snapshot.
async fn new_game(client: &Client, options: &LoadOptions) -> Result<Side, ClientError> {
    let mut poster = client.clone();
    let created = poster
        .post(
            "/api/games/computer",
            &json!({
                "variant": options.variant,
                "level": options.computer_level,
                "clock": null,
                "color": "white",
            }),
        )
        .await?;
    expect_ok(&created)?;
    let game_id = created.json()["game_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut side = Side {
        socket: client.connect_game(&game_id, None).await?,
        view: View::new("white"),
    };
    let first = side.socket.next_frame(Duration::from_secs(30)).await?;
    side.view.absorb(Incoming::parse(&first)?);
    Ok(side)
}

/// Plays White's turns at once and waits out the computer's, game after game.
async fn play(
    client: Client,
    mut side: Side,
    options: &LoadOptions,
    stop: &AtomicBool,
    computer_actions: &AtomicU64,
    index: usize,
) -> Result<(), ClientError> {
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64 ^ index as u64;
    while !stop.load(Ordering::Relaxed) {
        if side.view.over {
            side.socket.close().await;
            side = new_game(&client, options).await?;
            continue;
        }
        let ply = side.view.ply;
        let computer_turn = !side.view.to_move();
        if !computer_turn && side.view.can_move() {
            let frame = side.view.act_frame(next_pick(&mut rng), None);
            side.socket.send_text(frame).await?;
        }
        // The computer may think for seconds: its answer, not a timeout, is what comes.
        side.read_past(ply).await?;
        if computer_turn && side.view.ply > ply {
            computer_actions.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}
