//! A NATS server of the test's own ([`PrivateNats`]): Debian's `nats-server` with JetStream,
//! on a free port, its store in a temporary directory, stopped (by its PID only) when
//! dropped. Tests of several nodes never touch the machine's shared NATS.

use super::crash::free_port;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Where Debian installs it.
const NATS_SERVER: &str = "/usr/sbin/nats-server";

pub struct PrivateNats {
    child: Option<Child>,
    pub port: u16,
    store: PathBuf,
}

impl PrivateNats {
    /// Starts one and waits until it takes connections.
    ///
    /// # Panics
    /// When `nats-server` is missing (`scripts/test.sh` installs it) or does not start.
    pub async fn start() -> PrivateNats {
        let port = free_port();
        let store =
            std::env::temp_dir().join(format!("oddboard-nats-{}", uuid::Uuid::new_v4().simple()));
        let mut nats = PrivateNats {
            child: None,
            port,
            store,
        };
        nats.launch();
        nats.wait_ready().await;
        nats
    }

    fn launch(&mut self) {
        let program = if std::path::Path::new(NATS_SERVER).exists() {
            NATS_SERVER
        } else {
            "nats-server"
        };
        let child = Command::new(program)
            .args([
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-sd",
            ])
            .arg(&self.store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {program} (apt-get install nats-server): {e}"));
        self.child = Some(child);
    }

    async fn wait_ready(&self) {
        let url = self.url();
        super::server::wait_until(
            "the private nats-server to take connections",
            Duration::from_secs(20),
            async || async_nats::connect(&url).await.is_ok(),
        )
        .await;
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Stops it (SIGKILL, by PID) and starts it again on the same port and store.
    pub async fn restart(&mut self) {
        self.kill();
        self.launch();
        self.wait_ready().await;
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for PrivateNats {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.store);
    }
}
