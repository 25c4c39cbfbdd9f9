//! A small real client of the Oddboard API: HTTP/1.1 requests over plain TCP that keep the
//! session cookie and, as a browser does, the connection between requests; the game
//! WebSocket through tokio-tungstenite; the lobby socket and command endpoint. The load tool
//! and the integration tests use it to talk to a running server exactly as a browser would.

use futures_util::{FutureExt, SinkExt, StreamExt};
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A failed request: transport trouble, or an answer we could not read.
#[derive(Debug)]
pub struct ClientError(pub String);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientError {}

fn err(e: impl std::fmt::Display) -> ClientError {
    ClientError(e.to_string())
}

/// An HTTP response: status, headers as (lower-case name, value), body text.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// The body parsed as JSON (Null when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A client of one server, holding one user's session cookie and the connection of its last
/// request while the server keeps it open.
#[derive(Debug)]
pub struct Client {
    /// `host:port`.
    pub addr: String,
    pub cookie: Option<String>,
    connection: Option<TcpStream>,
}

/// A copy shares the cookie, not the connection: it opens its own on its first request.
impl Clone for Client {
    fn clone(&self) -> Client {
        Client {
            addr: self.addr.clone(),
            cookie: self.cookie.clone(),
            connection: None,
        }
    }
}

impl Client {
    pub fn new(addr: impl Into<String>) -> Client {
        Client {
            addr: addr.into(),
            cookie: None,
            connection: None,
        }
    }

    /// Sends a request and reads the whole response; remembers a session cookie it sets.
    ///
    /// The connection is kept for the next request unless the server closes it. A kept
    /// connection that turns out to be closed (the server restarted, or dropped it while
    /// idle) before any byte of the answer came is replaced by a new one and the request sent
    /// again, as browsers do.
    ///
    /// # Errors
    /// Connection failures and unreadable responses.
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<HttpResponse, ClientError> {
        self.request_with_headers(method, path, body, &[]).await
    }

    /// [`Client::request`] with more header lines (`name`, `value`), sent as given.
    ///
    /// # Errors
    /// As [`Client::request`].
    pub async fn request_with_headers(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Result<HttpResponse, ClientError> {
        let payload = body.map(|b| b.to_string()).unwrap_or_default();
        let mut message = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.addr,
            payload.len()
        );
        if body.is_some() {
            message.push_str("Content-Type: application/json\r\n");
        }
        if let Some(cookie) = &self.cookie {
            message.push_str(&format!("Cookie: {cookie}\r\n"));
        }
        for (name, value) in headers {
            message.push_str(&format!("{name}: {value}\r\n"));
        }
        message.push_str("\r\n");
        message.push_str(&payload);
        let (response, keep) = match self.connection.take() {
            Some(mut kept) => match exchange(&mut kept, message.as_bytes()).await {
                Ok(Exchange::Answered(response, keep)) => (response, keep.then_some(kept)),
                Ok(Exchange::Closed) => self.exchange_anew(message.as_bytes()).await?,
                // Part of an answer came: the server may have acted on the request, so it is
                // not sent again.
                Err(err) => return Err(err),
            },
            None => self.exchange_anew(message.as_bytes()).await?,
        };
        self.connection = keep;
        if let Some(set) = response.header("set-cookie") {
            if let Some(pair) = set.split(';').next() {
                if pair.ends_with('=') {
                    self.cookie = None;
                } else {
                    self.cookie = Some(pair.trim().to_string());
                }
            }
        }
        Ok(response)
    }

    /// One request on a new connection, returned with the response if the server keeps it.
    async fn exchange_anew(
        &self,
        message: &[u8],
    ) -> Result<(HttpResponse, Option<TcpStream>), ClientError> {
        let mut stream = TcpStream::connect(&self.addr).await.map_err(err)?;
        stream.set_nodelay(true).map_err(err)?;
        match exchange(&mut stream, message).await? {
            Exchange::Answered(response, keep) => Ok((response, keep.then_some(stream))),
            Exchange::Closed => Err(ClientError("the server closed the connection".into())),
        }
    }

    pub async fn get(&mut self, path: &str) -> Result<HttpResponse, ClientError> {
        self.request("GET", path, None).await
    }

    pub async fn post(&mut self, path: &str, body: &Value) -> Result<HttpResponse, ClientError> {
        self.request("POST", path, Some(body)).await
    }

    /// Signs in as a new guest.
    pub async fn guest(&mut self) -> Result<Value, ClientError> {
        let response = self.post("/api/auth/guest", &Value::Null).await?;
        expect_ok(&response)?;
        Ok(response.json())
    }

    /// Opens the game WebSocket, resuming after version `since` if given.
    pub async fn connect_game(
        &self,
        game_id: &str,
        since: Option<u64>,
    ) -> Result<GameSocket, ClientError> {
        let query = since.map(|v| format!("?v={v}")).unwrap_or_default();
        self.connect_socket(&format!("/ws/game/{game_id}{query}"))
            .await
    }

    /// Opens the multiplexed socket (`/ws/games`), which carries any game it is told to watch.
    pub async fn connect_games(&self) -> Result<GameSocket, ClientError> {
        self.connect_socket("/ws/games").await
    }

    /// Opens one of the server's sockets, with the session cookie if there is one.
    async fn connect_socket(&self, path: &str) -> Result<GameSocket, ClientError> {
        let url = format!("ws://{}{path}", self.addr);
        let mut request = url.into_client_request().map_err(err)?;
        if let Some(cookie) = &self.cookie {
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

    /// Opens the lobby WebSocket (needs a session).
    pub async fn connect_lobby(&self) -> Result<LobbySocket, ClientError> {
        self.connect_socket("/ws/lobby").await
    }

    /// Runs a lobby text command through `POST /api/command` and returns the JSON answer
    /// (`ok`, `reply`, `code`, `data`).
    pub async fn command(&mut self, line: &str) -> Result<Value, ClientError> {
        let response = self
            .post("/api/command", &serde_json::json!({ "line": line }))
            .await?;
        expect_ok(&response)?;
        Ok(response.json())
    }
}

/// The lobby socket speaks JSON text frames like the game socket, so it is the same type.
pub type LobbySocket = GameSocket;

/// Fails unless the status is 2xx.
pub fn expect_ok(response: &HttpResponse) -> Result<(), ClientError> {
    if (200..300).contains(&response.status) {
        Ok(())
    } else {
        Err(ClientError(format!(
            "HTTP {}: {}",
            response.status, response.body
        )))
    }
}

/// What came back for one request on a connection.
enum Exchange {
    /// The response, and whether the connection may carry another request.
    Answered(HttpResponse, bool),
    /// The connection was closed before any byte of a response.
    Closed,
}

/// Writes one request and reads its response: the head, then a body of the declared length,
/// a chunked body, or (when neither is declared) everything until the server closes.
async fn exchange(stream: &mut TcpStream, message: &[u8]) -> Result<Exchange, ClientError> {
    if stream.write_all(message).await.is_err() {
        return Ok(Exchange::Closed);
    }
    let mut raw = Vec::with_capacity(1024);
    let mut buffer = [0u8; 4096];
    let mut closed = false;
    loop {
        if let Some(complete) = response_length(&raw)? {
            if raw.len() >= complete {
                raw.truncate(complete);
                break;
            }
        }
        if closed {
            if raw.is_empty() {
                return Ok(Exchange::Closed);
            }
            break;
        }
        match stream.read(&mut buffer).await {
            Ok(0) => closed = true,
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
            Err(_) if raw.is_empty() => return Ok(Exchange::Closed),
            Err(e) => return Err(err(e)),
        }
    }
    let response = parse_response(&raw)?;
    let framed = response.header("content-length").is_some()
        || response
            .header("transfer-encoding")
            .is_some_and(|v| v.contains("chunked"));
    let keep = !closed
        && framed
        && !response
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
    Ok(Exchange::Answered(response, keep))
}

/// The whole length of the response in `raw` once its head is in and says how long it is;
/// None while more must be read (or, for a response without a declared length, until the
/// server closes).
fn response_length(raw: &[u8]) -> Result<Option<usize>, ClientError> {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body_start = split + 4;
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split_whitespace().nth(1));
    if matches!(status, Some("204" | "304")) {
        // Answers that never have a body.
        return Ok(Some(body_start));
    }
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        match name.trim() {
            "content-length" => {
                let length: usize = value.trim().parse().map_err(err)?;
                return Ok(Some(body_start + length));
            }
            "transfer-encoding" if value.contains("chunked") => {
                return Ok(chunked_length(&raw[body_start..]).map(|n| body_start + n));
            }
            _ => {}
        }
    }
    Ok(None)
}

/// The length of a complete chunked body at the start of `data` (through its last, empty
/// chunk and the line after it), or None if it has not all come yet.
fn chunked_length(data: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let line_end = data[at..].windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&data[at..at + line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        at += line_end + 2;
        if size == 0 {
            // No trailers: the empty line that ends the body.
            return (data.len() >= at + 2).then_some(at + 2);
        }
        // A size no body could have (from a broken server) is never complete.
        at = at.checked_add(size)?.checked_add(2)?;
        if at > data.len() {
            return None;
        }
    }
}

fn parse_response(raw: &[u8]) -> Result<HttpResponse, ClientError> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| ClientError("no end of headers".into()))?;
    let head = String::from_utf8_lossy(&raw[..split]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ClientError("bad status line".into()))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let body_bytes = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        decode_chunked(body_bytes)?
    } else {
        body_bytes.to_vec()
    };
    Ok(HttpResponse {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn decode_chunked(mut data: &[u8]) -> Result<Vec<u8>, ClientError> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| ClientError("bad chunk".into()))?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(err)?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = data
            .get(..size)
            .ok_or_else(|| ClientError("short chunk".into()))?;
        out.extend_from_slice(chunk);
        data = data.get(size + 2..).unwrap_or(&[]);
    }
}

/// A WebSocket of one client (a game's, or the lobby's).
pub struct GameSocket {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl GameSocket {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tokio::net::TcpListener;

    /// A server that answers every request on a connection with `answer`, and closes each
    /// connection after `per_connection` answers. Counts the connections it accepted.
    async fn fake_server(
        answer: &'static str,
        per_connection: usize,
    ) -> std::io::Result<(String, Arc<AtomicUsize>)> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?.to_string();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buffer = [0u8; 1024];
                    for _ in 0..per_connection {
                        // Each test request has no body: it ends with its head.
                        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                            match stream.read(&mut buffer).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => request.extend_from_slice(&buffer[..n]),
                            }
                        }
                        request.clear();
                        if stream.write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Ok((addr, accepted))
    }

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    const SIZED: &str = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
    const CHUNKED: &str =
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";

    #[test]
    fn chunked_lengths_wait_for_the_last_chunk_and_survive_absurd_sizes() {
        let body = &CHUNKED.as_bytes()[CHUNKED.find("\r\n\r\n").unwrap_or(0) + 4..];
        assert_eq!(chunked_length(body), Some(body.len()));
        assert_eq!(chunked_length(&body[..body.len() - 2]), None);
        // A size near usize::MAX must not overflow the arithmetic.
        assert_eq!(chunked_length(b"ffffffffffffffff\r\nabc\r\n"), None);
    }

    /// Each case: what the server answers, how many answers it gives per connection, and
    /// the body the client must read and the connections it must open over three requests.
    #[tokio::test]
    async fn kept_connections_are_reused_replaced_and_read_whole() -> TestResult {
        let cases = [
            ("a kept connection is reused", SIZED, 3, "ok", 1),
            ("one found closed is replaced", SIZED, 1, "ok", 3),
            ("chunked answers are read whole", CHUNKED, 3, "abcde", 1),
        ];
        for (case, answer, per_connection, body, connections) in cases {
            let (addr, accepted) = fake_server(answer, per_connection).await?;
            let mut client = Client::new(addr);
            for _ in 0..3 {
                let response = client.get("/").await?;
                assert_eq!(
                    (response.status, response.body.as_str()),
                    (200, body),
                    "{case}"
                );
            }
            assert_eq!(accepted.load(Ordering::SeqCst), connections, "{case}");
        }
        Ok(())
    }
}
