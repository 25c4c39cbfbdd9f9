//! The server's WebSockets as a client sees them: the game socket (`/ws/game/{id}`), the
//! multiplexed one (`/ws/games`) and the lobby's (`/ws/lobby`), all JSON text frames over
//! tokio-tungstenite. Sized for the load tool, which holds thousands at once.

use crate::{err, ClientError};
use futures_util::{FutureExt, SinkExt, StreamExt};
use serde_json::Value;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A WebSocket of one client (a game's, the multiplexed one, or the lobby's).
pub struct GameSocket {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// The lobby socket speaks JSON text frames like the game socket, so it is the same type.
pub type LobbySocket = GameSocket;

impl GameSocket {
    /// Opens the socket at `url` (`ws://host:port/path`), with a session cookie if given.
    ///
    /// # Errors
    /// The connection or the WebSocket handshake failed.
    pub async fn connect(url: &str, cookie: Option<&str>) -> Result<GameSocket, ClientError> {
        let mut request = url.into_client_request().map_err(err)?;
        let me = request
            .uri()
            .authority()
            .and_then(|a| crate::self_named(a.as_str()));
        if let Some(me) = me {
            request
                .headers_mut()
                .insert("x-forwarded-for", HeaderValue::from_static(me));
        }
        if let Some(cookie) = cookie {
            request
                .headers_mut()
                .insert("cookie", HeaderValue::from_str(cookie).map_err(err)?);
        }
        // Small buffers: the library's 128 KiB defaults are zeroed on every read and would
        // dominate the load tool's memory with thousands of sockets. Nagle's algorithm off
        // (the last argument): game messages are small and latency-bound.
        let config = WebSocketConfig::default()
            .read_buffer_size(2048)
            .write_buffer_size(8 * 1024);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(request, Some(config), true)
            .await
            .map_err(err)?;
        Ok(GameSocket { ws })
    }

    /// Sends a JSON message.
    pub async fn send(&mut self, message: &Value) -> Result<(), ClientError> {
        self.send_text(message.to_string()).await
    }

    /// Sends raw text (for tests of malformed input).
    pub async fn send_text(&mut self, text: String) -> Result<(), ClientError> {
        self.ws.send(Message::text(text)).await.map_err(err)
    }

    /// Queues raw text to go out with the next [`GameSocket::flush`] (or once the write
    /// buffer fills): several messages then share one write.
    pub async fn feed_text(&mut self, text: String) -> Result<(), ClientError> {
        self.ws.feed(Message::text(text)).await.map_err(err)
    }

    /// Writes what [`GameSocket::feed_text`] queued.
    pub async fn flush(&mut self) -> Result<(), ClientError> {
        self.ws.flush().await.map_err(err)
    }

    /// The next text frame if one has already arrived (None if none has), without waiting.
    pub fn try_next_frame(&mut self) -> Option<Result<Utf8Bytes, ClientError>> {
        loop {
            match self.ws.next().now_or_never()? {
                Some(Ok(Message::Text(text))) => return Some(Ok(text)),
                Some(Ok(Message::Close(_))) | None => {
                    return Some(Err(ClientError("socket closed".into())))
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Some(Err(err(e))),
            }
        }
    }

    /// The next text frame as it came, or an error after `wait` without one or when the socket
    /// closes.
    pub async fn next_text(&mut self, wait: Duration) -> Result<String, ClientError> {
        Ok(self.next_frame(wait).await?.as_str().to_string())
    }

    /// [`GameSocket::next_text`] without copying the frame (the load tool reads every message
    /// in place).
    pub async fn next_frame(&mut self, wait: Duration) -> Result<Utf8Bytes, ClientError> {
        loop {
            let frame = tokio::time::timeout(wait, self.ws.next())
                .await
                .map_err(|_| ClientError("timed out waiting for a message".into()))?;
            match frame {
                Some(Ok(Message::Text(text))) => return Ok(text),
                Some(Ok(Message::Close(_))) | None => {
                    return Err(ClientError("socket closed".into()))
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(err(e)),
            }
        }
    }

    /// The next JSON message, or an error after `wait` without one or when the socket closes.
    /// A `batch` message is returned as it is.
    pub async fn next(&mut self, wait: Duration) -> Result<Value, ClientError> {
        let text = self.next_text(wait).await?;
        serde_json::from_str(&text).map_err(err)
    }

    /// Reads messages until one satisfies `accept`, returning it.
    pub async fn wait_for(
        &mut self,
        wait: Duration,
        mut accept: impl FnMut(&Value) -> bool,
    ) -> Result<Value, ClientError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let message = self.next(left).await?;
            if accept(&message) {
                return Ok(message);
            }
        }
    }

    /// Reads until the server closes the socket, skipping its messages, and returns the
    /// close frame's reason (empty if it gave none); an error after `wait` or if the
    /// connection dropped without a close frame.
    pub async fn closed(&mut self, wait: Duration) -> Result<String, ClientError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .map_err(|_| ClientError("timed out waiting for the socket to close".into()))?;
            match frame {
                Some(Ok(Message::Close(close))) => {
                    return Ok(close.map(|c| c.reason.to_string()).unwrap_or_default())
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(err(e)),
                None => return Err(ClientError("connection dropped without a close".into())),
            }
        }
    }

    /// Closes the socket politely.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
