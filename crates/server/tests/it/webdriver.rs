//! A small WebDriver client for the browser tests: starts Debian's `chromedriver` on a free
//! port, opens headless Chromium sessions with fresh profiles, and speaks the W3C WebDriver
//! JSON-over-HTTP protocol through the same HTTP client as the other tests
//! ([`oddboard_client::Client`], on one kept connection per session). Only what the tests
//! use: navigation, script execution, element lookup and clicks, typing, pointer actions
//! (clicks and drags at element centres) and screenshots.

use base64::Engine;
use oddboard_client::Client;
use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The W3C key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian installs the driver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A running chromedriver; killed when dropped.
pub struct Driver {
    child: Child,
    addr: String,
}

impl Driver {
    /// Starts chromedriver on a free port and waits until it answers.
    pub async fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or_else(|e| panic!("no free port: {e}"));
        // Its own process group, so that dropping the driver also ends the Chromium processes
        // it started: killing chromedriver alone leaves them running, orphaned, after a test
        // that panicked before quitting its sessions.
        let child = Command::new(CHROMEDRIVER)
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {CHROMEDRIVER} (apt-get install chromium chromium-driver): {e}"
                )
            });
        let driver = Driver {
            child,
            addr: format!("127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let mut client = Client::new(driver.addr.clone());
            if let Ok(r) = client.get("/status").await {
                if r.json()["value"]["ready"] == json!(true) {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        driver
    }

    /// A new headless Chromium session with its own empty profile.
    pub async fn session(&self, profile: &std::path::Path) -> Browser {
        let mut client = Client::new(self.addr.clone());
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", "--disable-sync", "--disable-dev-shm-usage",
                    "--window-size=1100,900",
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        }}});
        let response = client
            .post("/session", &capabilities)
            .await
            .unwrap_or_else(|e| panic!("new session: {e}"));
        let session = response.json()["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {}", response.body))
            .to_string();
        Browser { client, session }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The whole group: chromedriver and every browser it started (see `start`).
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser session.
pub struct Browser {
    client: Client,
    session: String,
}

impl Browser {
    async fn call(&mut self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_call(method, path, body)
            .await
            .unwrap_or_else(|refusal| panic!("{refusal}"))
    }

    /// A WebDriver command; a refusal (any status but 200) as its text.
    async fn try_call(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let path = format!("/session/{}{path}", self.session);
        let response = tokio::time::timeout(
            Duration::from_secs(60),
            self.client.request(method, &path, body.as_ref()),
        )
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer from chromedriver"))
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        if response.status != 200 {
            return Err(format!(
                "{method} {path}: {} {}",
                response.status,
                response.body.chars().take(600).collect::<String>()
            ));
        }
        Ok(response.json()["value"].clone())
    }

    pub async fn goto(&mut self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url }))).await;
    }

    /// Runs a script (a function body; `arguments` holds `args`) and returns its value.
    pub async fn js(&mut self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
        .await
    }

    /// Runs a Chrome DevTools Protocol command (chromedriver's `goog/cdp/execute`), such as
    /// `Emulation.setEmulatedMedia` to make the page see a dark system theme.
    pub async fn cdp(&mut self, cmd: &str, params: Value) -> Value {
        self.call(
            "POST",
            "/goog/cdp/execute",
            Some(json!({ "cmd": cmd, "params": params })),
        )
        .await
    }

    /// Waits until `script` returns something truthy, and returns it.
    pub async fn wait_for(&mut self, what: &str, script: &str, args: Value) -> Value {
        // Generous: the browser tests share a small machine with builds and other tests,
        // where a password hash or a page load can take many seconds; a wait that is met
        // returns at once.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let value = self.js(script, args.clone()).await;
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn find(&mut self, css: &str) -> String {
        let value = self
            .call(
                "POST",
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .await;
        value[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string()
    }

    /// Waits for an element to exist.
    pub async fn wait_element(&mut self, css: &str) {
        self.wait_for(
            css,
            "return !!document.querySelector(arguments[0])",
            json!([css]),
        )
        .await;
    }

    /// A WebDriver element click (the element must be what the pointer would hit).
    pub async fn click(&mut self, css: &str) {
        self.wait_element(css).await;
        let id = self.find(css).await;
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})))
            .await;
    }

    pub async fn type_text(&mut self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.call("POST", &format!("/element/{id}/clear"), Some(json!({})))
            .await;
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    /// Presses one key (WebDriver key codes such as `\u{E012}` for the left arrow).
    pub async fn key(&mut self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}
        ]}]});
        self.call("POST", "/actions", Some(actions)).await;
        self.call("DELETE", "/actions", None).await;
    }

    fn origin(id: &str) -> Value {
        json!({ ELEMENT: id })
    }

    /// A mouse click at the centre of the element, as a person would click (whatever lies on
    /// top there receives it). A page may redraw the element between finding it and clicking
    /// (a board drawn again at a new size when a note appears beside it): then it is found
    /// again, as a person's eye would.
    pub async fn pointer_click(&mut self, css: &str) {
        let mut attempts = 0;
        loop {
            let id = self.find(css).await;
            let actions = json!({"actions": [{"type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"}, "actions": [
                {"type": "pointerMove", "duration": 0, "origin": Browser::origin(&id), "x": 0, "y": 0},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0}
            ]}]});
            match self.try_call("POST", "/actions", Some(actions)).await {
                Ok(_) => return,
                Err(refusal) if refusal.contains("stale element reference") && attempts < 3 => {
                    attempts += 1;
                }
                Err(refusal) => panic!("{refusal}"),
            }
        }
    }

    /// A finger's tap at the centre of the element (touch pointer events, as a phone sends).
    pub async fn touch_tap(&mut self, css: &str) {
        let id = self.find(css).await;
        let actions = json!({"actions": [{"type": "pointer", "id": "finger",
            "parameters": {"pointerType": "touch"}, "actions": [
            {"type": "pointerMove", "duration": 0, "origin": Browser::origin(&id), "x": 0, "y": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerUp", "button": 0}
        ]}]});
        self.call("POST", "/actions", Some(actions)).await;
        self.call("DELETE", "/actions", None).await;
    }

    /// Drags from the centre of one element to the centre of another with the mouse.
    pub async fn drag(&mut self, from_css: &str, to_css: &str) {
        let from = self.find(from_css).await;
        let to = self.find(to_css).await;
        let actions = json!({"actions": [{"type": "pointer", "id": "mouse",
            "parameters": {"pointerType": "mouse"}, "actions": [
            {"type": "pointerMove", "duration": 0, "origin": Browser::origin(&from), "x": 0, "y": 0},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerMove", "duration": 60, "origin": Browser::origin(&from), "x": 8, "y": 8},
            {"type": "pointerMove", "duration": 120, "origin": Browser::origin(&to), "x": 0, "y": 0},
            {"type": "pointerUp", "button": 0}
        ]}]});
        self.call("POST", "/actions", Some(actions)).await;
    }

    /// Resizes the window (a phone-sized one, say).
    pub async fn set_window(&mut self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        )
        .await;
    }

    /// Makes the page's viewport exactly `width` x `height` CSS pixels, as a phone's
    /// (`mobile`: overlay scrollbars, the viewport meta tag honoured, touch events) or a
    /// desktop's. A window's size counts its frame, so a phone's screen needs this.
    pub async fn emulate_screen(&mut self, width: u32, height: u32, mobile: bool) {
        self.cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        )
        .await;
        self.cdp(
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": mobile, "maxTouchPoints": if mobile { 5 } else { 1 } }),
        )
        .await;
    }

    /// Back to the window's own viewport after [`Browser::emulate_screen`].
    pub async fn stop_emulating_screen(&mut self) {
        self.cdp("Emulation.clearDeviceMetricsOverride", json!({}))
            .await;
        self.cdp(
            "Emulation.setTouchEmulationEnabled",
            json!({ "enabled": false }),
        )
        .await;
    }

    /// Saves a PNG screenshot of the window.
    pub async fn screenshot(&mut self, path: &std::path::Path) {
        let value = self.call("GET", "/screenshot", None).await;
        let png = base64::engine::general_purpose::STANDARD
            .decode(value.as_str().unwrap_or_default())
            .unwrap_or_else(|e| panic!("the screenshot is not base64: {e}"));
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(path, png).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }

    pub async fn quit(mut self) {
        let path = format!("/session/{}", self.session);
        let _ = self.client.request("DELETE", &path, None).await;
    }
}

/// False (after saying so) when the browser tests are to be skipped; panics when the
/// driver is missing and they are not.
pub fn browser_available() -> bool {
    if std::path::Path::new(CHROMEDRIVER).exists() {
        return true;
    }
    if std::env::var_os("ODDBOARD_SKIP_BROWSER").is_some() {
        eprintln!("skipped: no {CHROMEDRIVER}");
        return false;
    }
    panic!("{CHROMEDRIVER} is missing: apt-get install chromium chromium-driver (scripts/test.sh does), or set ODDBOARD_SKIP_BROWSER=1");
}
