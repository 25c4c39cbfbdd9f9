//! `GET /api/games/{id}/analysis` against a real server: games played to their end over the
//! WebSocket, refused while in progress, then analysed ply by ply until done.

use crate::server::{fast_settings, TestServer, WAIT};
use crate::ws_game::{play_until, start_game, stored_record_once};
use oddboard_client::Client;
use serde_json::{json, Value};
use std::time::Duration;

/// Polls the analysis about once a second, as the page does, until it is done.
pub(crate) async fn analysis_when_done(client: &mut Client, game_id: &str) -> Value {
    // Each position is a bounded search; an unoptimised build may take seconds for each.
    let deadline = tokio::time::Instant::now() + WAIT * 12;
    loop {
        let response = client
            .get(&format!("/api/games/{game_id}/analysis"))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(response.status, 200, "{}", response.body);
        let report = response.json();
        if report["status"] == "done" {
            return report;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the analysis is not done: {report}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// What every finished report holds: one entry per position, each with its ply and a score,
/// a best action and its line except where the rules ended the game, and drops that point at
/// real plies.
fn check_report(report: &Value, game_id: &str, actions: usize) {
    assert_eq!(report["game_id"], game_id);
    let plies = report["plies"].as_array().cloned().unwrap_or_default();
    assert_eq!(plies.len(), actions + 1, "one entry per position: {report}");
    assert_eq!(report["analysed"], actions + 1);
    for (n, ply) in plies.iter().enumerate() {
        assert_eq!(ply["ply"], n, "{ply}");
        let score = &ply["score"];
        let kinds: Vec<&String> = score
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert!(
            matches!(kinds.as_slice(), [k] if ["cp", "mate", "result"].contains(&k.as_str())),
            "ply {n}: {score}"
        );
        if score.get("result").is_none() {
            assert!(
                ply["best"].is_string() && ply["best_machine"].is_string(),
                "{ply}"
            );
            assert!(
                ply["pv"].as_array().is_some_and(|pv| !pv.is_empty()),
                "{ply}"
            );
            assert!(
                ply["nodes"].as_u64() <= report["nodes_per_position"].as_u64().map(|n| n + 1024)
            );
        }
    }
    let drops = report["drops"].as_array().cloned().unwrap_or_default();
    assert!(drops.len() <= 5, "{report}");
    for pair in drops.windows(2) {
        assert!(
            pair[0]["loss"].as_i64() >= pair[1]["loss"].as_i64(),
            "{report}"
        );
    }
    for drop in &drops {
        let ply = drop["ply"].as_u64().unwrap_or(0) as usize;
        assert!(
            (1..=actions).contains(&ply) && drop["loss"].as_i64() > Some(0),
            "{drop}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_analysed_ply_by_ply_and_a_game_in_progress_is_not() {
    let server = TestServer::start(fast_settings()).await;
    let mut alice = server.guest().await;
    let mut bob = server.guest().await;
    let mut client = server.client();

    let unknown = uuid::Uuid::new_v4();
    let missing = client.get(&format!("/api/games/{unknown}/analysis")).await;
    let missing = missing.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (missing.status, missing.json()["error"].clone()),
        (404, json!("game_not_found"))
    );

    for (variant, plies) in [("suicide", 5), ("drehs", 2)] {
        let game_id = start_game(&mut alice, &mut bob, variant, Value::Null).await;
        let mut white = alice.watch(&game_id).await;
        let mut black = bob.watch(&game_id).await;
        play_until(&mut [&mut white, &mut black], &mut [], plies).await;

        // In progress: refused, and nothing computed.
        let refused = client.get(&format!("/api/games/{game_id}/analysis")).await;
        let refused = refused.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(refused.status, 409, "{}", refused.body);
        assert_eq!(refused.json()["error"], "game_in_progress");

        let loser = if white.is_my_turn() {
            &mut white
        } else {
            &mut black
        };
        loser.send(json!({ "t": "resign" })).await;
        white.read_until(|w| w.outcome.is_some()).await;
        let record = stored_record_once(&server, &game_id, |r| r["status"] == "finished").await;
        let actions = record["actions"].as_array().map_or(0, Vec::len);
        assert!(actions >= plies as usize, "{variant}: {record}");

        let report = analysis_when_done(&mut client, &game_id).await;
        assert_eq!(report["variant"], variant);
        check_report(&report, &game_id, actions);

        // Asked again, by anyone: the same answer, without starting anything.
        let again = analysis_when_done(&mut server.client(), &game_id).await;
        assert_eq!(again, report);
    }
    server.stop().await;
}
