//! One user's HTTP session with the server: requests on hyper's HTTP/1.1 client
//! (`hyper::client::conn::http1`) over a connection kept between requests, as a browser keeps
//! it; the session cookie the server sets; and shortcuts for the API calls the load tool and
//! the tests make (sign-in as a guest, lobby commands, opening the sockets).

use crate::socket::{GameSocket, LobbySocket};
use crate::{err, ClientError};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, COOKIE, HOST, SET_COOKIE};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

/// The sending half of one HTTP/1.1 connection; hyper drives the connection itself in a task
/// of its own ([`connect`]).
type Connection = SendRequest<Full<Bytes>>;

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

    /// The first value of a header (`name` in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Fails unless the status is 2xx.
///
/// # Errors
/// Any other status, with the body.
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

/// A client of one server, holding one user's session cookie and the connection of its last
/// request while the server keeps it open.
#[derive(Debug)]
pub struct Client {
    /// `host:port`.
    pub addr: String,
    pub cookie: Option<String>,
    connection: Option<Connection>,
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
    /// idle) before the answer's head came is replaced by a new one and the request sent
    /// again, as browsers do.
    ///
    /// # Errors
    /// Connection failures, a method, path or header that HTTP cannot carry, and unreadable
    /// responses.
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<HttpResponse, ClientError> {
        self.request_with_headers(method, path, body, &[]).await
    }

    /// [`Client::request`] with more headers (`name`, `value`), sent after the client's own.
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
        let outgoing = Outgoing::new(self, method, path, body, headers)?;
        let response = self.send(&outgoing).await?;
        self.remember_cookie(&response);
        Ok(response)
    }

    /// Sends on the kept connection, or on a new one if there is none or the kept one turns
    /// out to be closed.
    async fn send(&mut self, outgoing: &Outgoing) -> Result<HttpResponse, ClientError> {
        if let Some(mut kept) = self.connection.take() {
            match exchange(&mut kept, outgoing.request()).await {
                Ok(response) => {
                    self.keep(kept);
                    return Ok(response);
                }
                Err(Failure::Unanswered(_)) => {}
                // Part of an answer came: the server may have acted on the request, so it is
                // not sent again.
                Err(Failure::Broken(e)) => return Err(e),
            }
        }
        let mut fresh = connect(&self.addr).await?;
        let response = exchange(&mut fresh, outgoing.request())
            .await
            .map_err(Failure::into_error)?;
        self.keep(fresh);
        Ok(response)
    }

    /// Keeps a connection for the next request unless hyper has already seen it closed (the
    /// server said `Connection: close`, or the answer ran to the end of the stream).
    fn keep(&mut self, connection: Connection) {
        if !connection.is_closed() {
            self.connection = Some(connection);
        }
    }

    /// Takes the session cookie a response sets; an emptied one signs out.
    fn remember_cookie(&mut self, response: &HttpResponse) {
        let Some(set) = response.header(SET_COOKIE.as_str()) else {
            return;
        };
        if let Some(pair) = set.split(';').next() {
            if pair.ends_with('=') {
                self.cookie = None;
            } else {
                self.cookie = Some(pair.trim().to_string());
            }
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

    /// Opens the lobby WebSocket (needs a session).
    pub async fn connect_lobby(&self) -> Result<LobbySocket, ClientError> {
        self.connect_socket("/ws/lobby").await
    }

    /// Opens one of the server's sockets, with the session cookie if there is one.
    async fn connect_socket(&self, path: &str) -> Result<GameSocket, ClientError> {
        GameSocket::connect(&format!("ws://{}{path}", self.addr), self.cookie.as_deref()).await
    }

    /// Runs a lobby text command through `POST /api/command` and returns the JSON answer
    /// (`reply`, `data`); a refused command is an error naming its status and body.
    pub async fn command(&mut self, line: &str) -> Result<Value, ClientError> {
        let response = self
            .post("/api/command", &serde_json::json!({ "line": line }))
            .await?;
        expect_ok(&response)?;
        Ok(response.json())
    }
}

/// Named by hand: the `http` crate has no constant for it.
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// A request checked and built once, to be sent again whole on a new connection.
struct Outgoing {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
}

impl Outgoing {
    fn new(
        client: &Client,
        method: &str,
        path: &str,
        body: Option<&Value>,
        extra: &[(&str, &str)],
    ) -> Result<Outgoing, ClientError> {
        let mut headers = HeaderMap::new();
        // hyper's connection-level client leaves the `Host` header to its caller.
        headers.insert(HOST, HeaderValue::from_str(&client.addr).map_err(err)?);
        if let Some(me) = crate::self_named(&client.addr) {
            headers.insert(X_FORWARDED_FOR, HeaderValue::from_static(me));
        }
        if body.is_some() {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        if let Some(cookie) = &client.cookie {
            headers.insert(COOKIE, HeaderValue::from_str(cookie).map_err(err)?);
        }
        // Appended after the client's own: an `X-Forwarded-For` of the caller's reads as a
        // hop nearer the server, which is what a test standing in for a proxy means.
        for (name, value) in extra {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).map_err(err)?,
                HeaderValue::from_str(value).map_err(err)?,
            );
        }
        Ok(Outgoing {
            method: Method::from_bytes(method.as_bytes()).map_err(err)?,
            uri: path.parse().map_err(err)?,
            headers,
            body: body.map(|b| Bytes::from(b.to_string())).unwrap_or_default(),
        })
    }

    fn request(&self) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(self.body.clone()));
        *request.method_mut() = self.method.clone();
        *request.uri_mut() = self.uri.clone();
        *request.headers_mut() = self.headers.clone();
        request
    }
}

/// Why a request on a connection got no whole answer.
enum Failure {
    /// The connection was closed before the answer's head came: the request may be sent again
    /// on another.
    Unanswered(ClientError),
    /// The connection broke during the answer, or the answer was not HTTP.
    Broken(ClientError),
}

impl Failure {
    fn into_error(self) -> ClientError {
        match self {
            Failure::Unanswered(e) | Failure::Broken(e) => e,
        }
    }
}

/// Opens a connection to `addr`, Nagle's algorithm off (requests are small and
/// latency-bound), and hands its I/O to a task of its own, which ends when the server closes
/// the connection or the client drops it.
async fn connect(addr: &str) -> Result<Connection, ClientError> {
    let stream = TcpStream::connect(addr).await.map_err(err)?;
    stream.set_nodelay(true).map_err(err)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(err)?;
    tokio::spawn(async move {
        // A connection's failure reaches the request it breaks through `sender`.
        let _ = connection.await;
    });
    Ok(sender)
}

/// Sends one request and reads its whole answer.
async fn exchange(
    connection: &mut Connection,
    request: Request<Full<Bytes>>,
) -> Result<HttpResponse, Failure> {
    connection
        .ready()
        .await
        .map_err(|e| Failure::Unanswered(err(e)))?;
    let response = match connection.try_send_request(request).await {
        Ok(response) => response,
        // Given back unsent, or sent with the connection closed before the answer's head
        // (hyper does not say whether part of a head had come; a server that sends part of
        // one and then closes is broken in any case).
        Err(e) if e.message().is_some() || e.error().is_incomplete_message() => {
            return Err(Failure::Unanswered(err(e.into_error())))
        }
        Err(e) => return Err(Failure::Broken(err(e.into_error()))),
    };
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_string(), value)
        })
        .collect();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| Failure::Broken(err(e)))?
        .to_bytes();
    Ok(HttpResponse {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
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
    const UNSIZED: &str = "HTTP/1.1 200 OK\r\n\r\nto the end";

    /// Each case: what the server answers, how many answers it gives per connection, and
    /// the body the client must read and the connections it must open over three requests.
    #[tokio::test]
    async fn kept_connections_are_reused_replaced_and_read_whole() -> TestResult {
        let cases = [
            ("a kept connection is reused", SIZED, 3, "ok", 1),
            ("one found closed is replaced", SIZED, 1, "ok", 3),
            ("chunked answers are read whole", CHUNKED, 3, "abcde", 1),
            (
                "an unsized answer runs to the close",
                UNSIZED,
                1,
                "to the end",
                3,
            ),
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

    #[tokio::test]
    async fn the_session_cookie_is_kept_and_an_emptied_one_signs_out() -> TestResult {
        const SETS: &str =
            "HTTP/1.1 200 OK\r\nset-cookie: session=abc; Path=/; HttpOnly\r\ncontent-length: 0\r\n\r\n";
        const CLEARS: &str =
            "HTTP/1.1 200 OK\r\nset-cookie: session=; Max-Age=0\r\ncontent-length: 0\r\n\r\n";
        let (sets, _) = fake_server(SETS, 1).await?;
        let mut client = Client::new(sets);
        let response = client.get("/").await?;
        assert_eq!(
            response.header("set-cookie"),
            Some("session=abc; Path=/; HttpOnly")
        );
        assert_eq!(client.cookie.as_deref(), Some("session=abc"));
        let (clears, _) = fake_server(CLEARS, 1).await?;
        client.addr = clears;
        client.get("/").await?;
        assert_eq!(client.cookie, None);
        Ok(())
    }

    #[tokio::test]
    async fn unanswered_and_unsendable_requests_are_errors() -> TestResult {
        // A server that closes every connection without answering.
        let (addr, accepted) = fake_server("", 1).await?;
        let mut client = Client::new(addr);
        assert!(client.get("/").await.is_err());
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            1,
            "a new connection is not retried"
        );
        let mut client = Client::new("127.0.0.1:1");
        assert!(client.get("/").await.is_err(), "nothing listens");
        let (addr, _) = fake_server(SIZED, 3).await?;
        let mut client = Client::new(addr);
        assert!(client.request("BAD METHOD", "/", None).await.is_err());
        assert!(client
            .request_with_headers("GET", "/", None, &[("x", "a\nb")])
            .await
            .is_err());
        let response = expect_ok(&HttpResponse {
            status: 404,
            headers: Vec::new(),
            body: "gone".into(),
        });
        assert!(response.is_err_and(|e| e.0 == "HTTP 404: gone"));
        Ok(())
    }
}
