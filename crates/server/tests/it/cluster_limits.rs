//! Limits that hold across the nodes of a cluster (issue 49): two nodes in this process over
//! one database and a private NATS. Wrong passwords sent to one node make the name wait on
//! the other (the login back-off in PostgreSQL), and a player at a per-account bound through
//! one node (open challenges, games in progress, games against the computer) is refused by the
//! other, whose memory knows nothing of the games that fill it. The bounds are set low
//! through the game settings, which only an in-process server takes.

use super::limits::{backoff_wait, limited, log_in, register_alice, wrong_passwords};
use super::nats::PrivateNats;
use super::server::{drop_database, fast_settings, Player, TestServer};
use oddboard::config::Config;
use oddboard::game::GameSettings;
use oddboard_client::{Client, HttpResponse};
use serde_json::{json, Value};
use std::time::Duration;

/// Two nodes over one database, and their NATS.
struct TwoNodes {
    a: TestServer,
    b: TestServer,
    database: String,
    _nats: PrivateNats,
}

impl TwoNodes {
    async fn start(settings: GameSettings, configure: impl Fn(&mut Config)) -> TwoNodes {
        let nats = PrivateNats::start().await;
        let database = format!("oddboard_limits_{}", uuid::Uuid::new_v4().simple());
        let node = |name: &'static str| {
            let url = nats.url();
            let configure = &configure;
            move |config: &mut Config| {
                config.nats_url = Some(url);
                config.node_id = Some(name.to_string());
                configure(config);
            }
        };
        let a = TestServer::start_configured_on(&database, settings.clone(), node("node-a")).await;
        let b = TestServer::start_configured_on(&database, settings, node("node-b")).await;
        TwoNodes {
            a,
            b,
            database,
            _nats: nats,
        }
    }

    async fn stop(self) {
        self.b.stop_keeping_database().await;
        self.a.stop_keeping_database().await;
        drop_database(&self.database).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_passwords_on_one_node_make_the_name_wait_on_the_other() {
    let nodes = TwoNodes::start(fast_settings(), |config| {
        limited(config);
        config.rate_limits.login_failures = 2;
    })
    .await;
    let (mut on_a, mut on_b) = (nodes.a.client(), nodes.b.client());
    register_alice(&mut on_a).await;
    let mut retry_after = 0;
    for name in ["alice_1", "nobody_here"] {
        wrong_passwords(&mut on_a, name, 2).await;
        // Node B has seen none of them, and makes the name wait all the same, the right
        // password too, and an unknown name just as a known one.
        let waiting = log_in(&mut on_b, name, "correct horse").await;
        retry_after = backoff_wait(&waiting, name);
        assert_eq!(retry_after, 2, "the first wait is two seconds");
    }
    // Once the wait is over the right password works on B (the wait as long as the server
    // said: asking again and again would spend the address's login attempts).
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let right = log_in(&mut on_b, "alice_1", "correct horse").await;
    assert_eq!(right.status, 200, "{}", right.body);
    // It started the name over on both nodes: one wrong password on B and one on A are two
    // fresh failures, the second answered as such; the next attempt waits, on either node.
    wrong_passwords(&mut on_b, "alice_1", 1).await;
    wrong_passwords(&mut on_a, "alice_1", 1).await;
    let waiting = log_in(&mut on_a, "alice_1", "correct horse").await;
    assert_eq!(backoff_wait(&waiting, "alice_1"), 2);
    nodes.stop().await;
}

/// At most this many games in progress here: the 20 open challenges and two more.
const GAMES_IN_PROGRESS: usize = 22;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_at_a_bound_through_one_node_is_refused_by_the_other() {
    let settings = GameSettings {
        max_games_in_progress: GAMES_IN_PROGRESS,
        max_computer_games_per_player: 1,
        // The games started here wait for their first move for the whole test.
        first_move_limit: Duration::from_secs(600),
        ..fast_settings()
    };
    let nodes = TwoNodes::start(settings, |_| {}).await;

    // Open challenges: twenty made through A, a twenty-first refused by B.
    let alice = nodes.a.guest().await;
    let (mut alice_a, mut alice_b) = (on(&alice, &nodes.a), on(&alice, &nodes.b));
    for _ in 0..20 {
        let made = create_open(&mut alice_a).await;
        assert_eq!(made.status, 201, "{}", made.body);
    }
    assert_refused(&create_open(&mut alice_b).await, "too_many_challenges");

    // Games in progress: Alice takes two of Bob's challenges on B through A (her requests
    // forwarded to the node that runs them); a third, on B itself, would be one too many.
    let bob = nodes.b.guest().await;
    let mut bob_b = on(&bob, &nodes.b);
    let mut bobs = Vec::new();
    for _ in 0..3 {
        let made = create_open(&mut bob_b).await;
        assert_eq!(made.status, 201, "{}", made.body);
        bobs.push(
            made.json()["game_id"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    for game_id in &bobs[..2] {
        let taken = accept(&mut alice_a, game_id).await;
        assert_eq!(taken.status, 200, "{}", taken.body);
    }
    let refused = accept(&mut alice_b, &bobs[2]).await;
    assert_refused(&refused, "too_many_games_in_progress");
    // ... and so would a game against the computer on A, which counts the two games B runs
    // for her beside the twenty it made.
    let refused = play_computer(&mut alice_a).await;
    assert_refused(&refused, "too_many_games_in_progress");

    // Games against the computer: one through A, a second refused by B.
    let carol = nodes.a.guest().await;
    let started = play_computer(&mut on(&carol, &nodes.a)).await;
    assert_eq!(started.status, 201, "{}", started.body);
    let refused = play_computer(&mut on(&carol, &nodes.b)).await;
    assert_refused(&refused, "too_many_computer_games");
    nodes.stop().await;
}

/// `player`'s session on `node`, on a connection of its own (a client keeps its connection,
/// so changing its address alone would go on asking the first node).
fn on(player: &Player, node: &TestServer) -> Client {
    let mut client = player.client.clone();
    client.addr = node.addr.clone();
    client
}

/// An open challenge without a clock.
async fn create_open(client: &mut Client) -> HttpResponse {
    let body = json!({ "variant": "suicide", "clock": null, "color": "white" });
    client
        .post("/api/games", &body)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

async fn accept(client: &mut Client, game_id: &str) -> HttpResponse {
    client
        .post(&format!("/api/games/{game_id}/accept"), &Value::Null)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A game without a clock against the computer's random player, the player White.
async fn play_computer(client: &mut Client) -> HttpResponse {
    let body = json!({ "variant": "suicide", "level": 0, "clock": null, "color": "white" });
    client
        .post("/api/games/computer", &body)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

fn assert_refused(answer: &HttpResponse, code: &str) {
    assert_eq!(answer.status, 409, "{}", answer.body);
    assert_eq!(answer.json()["error"], code, "{}", answer.body);
}
