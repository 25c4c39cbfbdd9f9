//! Machine calibration for the load figures: a bare axum WebSocket echo server and a client
//! that keeps N connections each doing one round trip at a time, as in issue #5's note that
//! "a bare axum WebSocket echo on this machine class does about 66,000 round trips per second
//! with 16 connections". Machines of the same class differ by up to two times in speed, so
//! `docs/performance.md` reports this figure beside the load tool's.
//!
//! ```text
//! cargo build --release --example ws_echo
//! target/release/examples/ws_echo server 127.0.0.1:8099 &
//! target/release/examples/ws_echo client 127.0.0.1:8099 16 10
//! ```

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::routing::get;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["server", addr] => serve(addr).await,
        ["client", addr, connections, seconds] => {
            client(addr, connections.parse()?, seconds.parse()?).await
        }
        _ => Err("usage: ws_echo server ADDR | ws_echo client ADDR CONNECTIONS SECONDS".into()),
    }
}

async fn serve(addr: &str) -> Result<(), BoxError> {
    let app = Router::new().route(
        "/echo",
        get(|upgrade: WebSocketUpgrade| async { upgrade.on_upgrade(echo) }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await?;
    Ok(())
}

async fn echo(mut socket: WebSocket) {
    while let Some(Ok(message)) = socket.next().await {
        if matches!(message, Message::Text(_)) && socket.send(message).await.is_err() {
            break;
        }
    }
}

async fn client(addr: &str, connections: usize, seconds: u64) -> Result<(), BoxError> {
    let round_trips = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/echo")).await?;
        let round_trips = round_trips.clone();
        tasks.push(tokio::spawn(async move {
            // About the size of a move frame.
            let frame = r#"{"t":"act","ply":12,"action":"e2e4"}"#;
            while Instant::now() < deadline {
                if socket.send(frame.into()).await.is_err() {
                    break;
                }
                match socket.next().await {
                    Some(Ok(_)) => round_trips.fetch_add(1, Ordering::Relaxed),
                    _ => break,
                };
            }
        }));
    }
    let started = Instant::now();
    for task in tasks {
        task.await?;
    }
    let total = round_trips.load(Ordering::Relaxed);
    println!(
        "round_trips_per_second: {:.0}",
        total as f64 / started.elapsed().as_secs_f64()
    );
    Ok(())
}
