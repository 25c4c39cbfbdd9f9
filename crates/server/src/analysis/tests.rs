//! The analysis service against a real engine pool and real searches, with small budgets.

use super::*;
use crate::rules::{AnyGame, Color, EndReason, Outcome};
use crate::store::{ActionRecord, ColorChoice, GameRecord, GameStatus};
use evaluate::WhiteScore;

/// A small budget: the tests run unoptimised.
fn settings(games_at_once: usize) -> AnalysisSettings {
    AnalysisSettings {
        nodes: 2_000,
        games_at_once,
        ..AnalysisSettings::default()
    }
}

/// A Suicide game from `start` (the standard start if None) with `plies` played, in `status`.
fn record(status: GameStatus, start: Option<&str>, plies: &[&str]) -> GameRecord {
    let actions = plies
        .iter()
        .zip(1..)
        .map(|(machine, ply)| ActionRecord {
            ply,
            machine: (*machine).into(),
            human: (*machine).into(),
            white_ms: None,
            black_ms: None,
            rolls: None,
            created_at: chrono::Utc::now(),
        })
        .collect();
    let (white, black) = (Uuid::new_v4(), Uuid::new_v4());
    GameRecord {
        game_id: Uuid::new_v4(),
        variant: Variant::Suicide,
        creator_id: white,
        white_id: Some(white),
        black_id: Some(black),
        white_name: Some("alice".into()),
        black_name: Some("bob".into()),
        creator_name: "alice".into(),
        color_choice: ColorChoice::White,
        clock: None,
        rated: false,
        status,
        restarts: 0,
        outcome: status
            .is_over()
            .then(|| Outcome::win(Color::White, EndReason::Resignation)),
        start_position: start.map(str::to_string),
        dice_commitment: None,
        dice_seed: None,
        created_at: chrono::Utc::now(),
        started_at: None,
        ended_at: None,
        actions,
        adjustments: Vec::new(),
    }
}

const OPENING: [&str; 4] = ["e2e3", "b7b5", "f1b5", "c7c6"];

/// Polls until the analysis is no longer running (each poll counts as one, as a page's),
/// for at most two minutes: an analysis that never ends fails the test instead of hanging it.
async fn finished(analyses: &Analyses, game_id: Uuid) -> AnalysisReport {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        match analyses.existing(game_id) {
            Some(report) if report.status == Status::Running => {}
            Some(report) => return report,
            None => panic!("the analysis of {game_id} stopped"),
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the analysis of {game_id} still runs after two minutes"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn never<T>() -> Result<(), T> {
    panic!("admit was asked, but nothing needed to start")
}

#[test]
fn a_game_in_progress_has_no_positions_to_analyse() {
    for status in [GameStatus::Waiting, GameStatus::Active] {
        let game = record(status, None, &OPENING);
        assert_eq!(positions(&game).err(), Some(PositionsError::NotOver));
    }
    let over = positions(&record(GameStatus::Finished, None, &OPENING));
    let over = over.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(over.len(), OPENING.len() + 1);
    assert_eq!(over[1].played.as_ref().map(|p| p.0.as_str()), Some("e2e3"));
    assert_eq!((over[0].turn, over[1].turn), (Color::White, Color::Black));
    let broken = record(GameStatus::Finished, None, &["e2e5"]);
    assert!(matches!(positions(&broken), Err(PositionsError::Replay(_))));
}

#[test]
fn evaluations_are_deterministic_and_from_whites_view() {
    let game = AnyGame::start(Variant::Suicide).unwrap_or_else(|e| panic!("{e}"));
    let text = game.position();
    let first = evaluate(Variant::Suicide, &text, 3_000);
    assert_eq!(first, evaluate(Variant::Suicide, &text, 3_000));
    let first = first.unwrap_or_else(|e| panic!("{e}"));
    assert!(first.best.is_some() && first.nodes > 0 && !first.pv.is_empty());
    assert!(evaluate(Variant::Suicide, "not a position", 100).is_err());

    assert_eq!(
        WhiteScore::from_side(oddboard_engine::Score::Cp(40), Color::Black),
        WhiteScore::Cp(-40)
    );
    assert_eq!(
        WhiteScore::from_side(oddboard_engine::Score::Mate(-3), Color::Black),
        WhiteScore::Mate(3)
    );
    assert_eq!(WhiteScore::Mate(-2).clamped(), -evaluate::CLAMP);
    assert_eq!(WhiteScore::Cp(5000).clamped(), evaluate::CLAMP);
    assert_eq!(WhiteScore::Result("1/2-1/2".into()).clamped(), 0);
}

fn scored(cp: i32, best: &str) -> Option<Evaluation> {
    Some(Evaluation {
        score: WhiteScore::Cp(cp),
        best: Some(best.to_uppercase()),
        best_machine: Some(best.into()),
        pv: vec![best.to_uppercase()],
        depth: 1,
        nodes: 1,
    })
}

#[test]
fn drops_are_the_movers_largest_losses() {
    let game = record(GameStatus::Finished, None, &OPENING);
    let list = positions(&game).unwrap_or_else(|e| panic!("{e}"));
    // White's e2e3 loses 300 (the engine preferred a2a3); Black's b7b5 loses 500 (from
    // -300 to 200); White's f1b5 is the engine's own choice, never a drop; c7c6 is a gain
    // for Black; the last position is not evaluated yet.
    let evaluations = vec![
        scored(0, "a2a3"),
        scored(-300, "g7g5"),
        scored(200, "f1b5"),
        scored(100, "x"),
        None,
    ];
    let found = drops(&list, &evaluations, 5);
    let summary: Vec<(u32, Color, i32, &str)> = found
        .iter()
        .map(|d| (d.ply, d.side, d.loss, d.played.as_str()))
        .collect();
    assert_eq!(
        summary,
        vec![(2, Color::Black, 500, "b5"), (1, Color::White, 300, "e3")]
    );
    assert_eq!(found[0].best.as_deref(), Some("G7G5"));
    assert_eq!((found[0].before, found[0].after), (-300, 200));
    assert_eq!(drops(&list, &evaluations, 1).len(), 1);
}

#[tokio::test]
async fn a_game_is_analysed_once_and_its_positions_cost_nothing_again() {
    let pool = EnginePool::in_process(1, 8);
    let analyses = Analyses::new(settings(2));
    let game = record(GameStatus::Finished, None, &OPENING);
    let list = positions(&game).unwrap_or_else(|e| panic!("{e}"));
    let admitted = std::cell::Cell::new(0);
    let admit = || -> Result<(), ()> {
        admitted.set(admitted.get() + 1);
        Ok(())
    };
    let first = analyses.start(game.game_id, game.variant, list.clone(), &pool, admit);
    assert!(matches!(first, Ok(ref r) if r.status == Status::Running && r.plies.len() == 5));
    // A second request while it runs joins the same analysis.
    let again = analyses.start(game.game_id, game.variant, list.clone(), &pool, never::<()>);
    assert!(matches!(again, Ok(ref r) if r.status == Status::Running));
    assert_eq!(admitted.get(), 1);
    let done = finished(&analyses, game.game_id).await;
    assert_eq!((done.status, done.analysed), (Status::Done, 5));
    for (n, ply) in done.plies.iter().enumerate() {
        let ply = ply.as_ref().unwrap_or_else(|| panic!("ply {n} missing"));
        assert_eq!(ply.ply as usize, n);
        assert!(ply.evaluation.best.is_some() && ply.evaluation.nodes <= 2_000 + 1_024);
    }
    let (entries, _, misses) = analyses.cache_stats();
    assert_eq!((entries, misses), (5, 5 + 5));

    // Another game through the same positions is answered from the cache, at once, without
    // asking the rate limit or the pool.
    let other = Uuid::new_v4();
    let cached = analyses.start(other, game.variant, list, &pool, never::<()>);
    let cached = cached.unwrap_or_else(|_| panic!("refused"));
    assert_eq!((cached.status, cached.analysed), (Status::Done, 5));
    assert_eq!(
        serde_json::to_value(&cached.plies).ok(),
        serde_json::to_value(&done.plies).ok()
    );
    assert_eq!(analyses.cache_stats().1, 5);
}

#[tokio::test]
async fn games_past_the_cap_are_busy_and_a_refusal_starts_nothing() {
    let pool = EnginePool::in_process(1, 8);
    let analyses = Analyses::new(settings(1));
    // The pool's one thread is held by a long search, so the first analysis cannot finish.
    let hold = oddboard_engine::Cancel::new();
    let held = tokio::spawn({
        let (holder, hold) = (pool.clone(), hold.clone());
        async move {
            holder
                .best_move(crate::engine_pool::testing::long_move(), hold)
                .await
        }
    });
    crate::engine_pool::testing::taken(&pool, 1).await;
    let first = record(GameStatus::Finished, None, &OPENING);
    let second = record(GameStatus::Finished, None, &OPENING[..3]);
    let start = |game: &GameRecord, admit: Result<(), &'static str>| {
        let list = positions(game).unwrap_or_else(|e| panic!("{e}"));
        analyses.start(game.game_id, game.variant, list, &pool, || admit)
    };
    // A refused start leaves nothing behind: no slot taken, no analysis.
    assert!(matches!(
        start(&first, Err("limited")),
        Err(StartError::Refused("limited"))
    ));
    assert_eq!(analyses.running(), 0);
    assert!(analyses.existing(first.game_id).is_none());

    let short = Analyses::new(AnalysisSettings {
        max_positions: OPENING.len(),
        ..settings(1)
    });
    let list = positions(&first).unwrap_or_else(|e| panic!("{e}"));
    let long = short.start(first.game_id, first.variant, list, &pool, never::<()>);
    assert!(matches!(long, Err(StartError::TooLong)));

    let running = start(&first, Ok(())).unwrap_or_else(|_| panic!("refused"));
    assert_eq!((running.status, analyses.running()), (Status::Running, 1));
    let busy = start(&second, Err("the limit is not asked when nothing starts"));
    let busy = busy.unwrap_or_else(|_| panic!("refused"));
    assert_eq!((busy.status, busy.analysed), (Status::Busy, 0));
    assert!(
        analyses.existing(second.game_id).is_none(),
        "busy is not kept running"
    );

    hold.cancel();
    assert!(matches!(held.await, Ok(Ok(Some(_)))));
    assert_eq!(
        finished(&analyses, first.game_id).await.status,
        Status::Done
    );
    while analyses.running() > 0 {
        tokio::task::yield_now().await;
    }
    // The slot is free again: the second game starts, most of it from the cache already.
    let resumed = start(&second, Ok(())).unwrap_or_else(|_| panic!("refused"));
    assert!(matches!(resumed.status, Status::Running | Status::Done));
    assert_eq!(finished(&analyses, second.game_id).await.analysed, 4);
}

#[tokio::test]
async fn a_position_the_rules_ended_is_its_result() {
    // Black must take White's last piece: White has none left and wins.
    let start = "8/8/8/8/8/8/p7/1R6 b - - 0 1";
    let game = AnyGame::from_position(Variant::Suicide, start).unwrap_or_else(|e| panic!("{e}"));
    let take = game
        .legal_actions()
        .into_iter()
        .find(|a| a.starts_with("a2b1"));
    let take = take.unwrap_or_else(|| panic!("no capture in {:?}", game.legal_actions()));
    let stored = record(GameStatus::Finished, Some(start), &[&take]);
    let list = positions(&stored).unwrap_or_else(|e| panic!("{e}"));
    let last = list.last().and_then(|p| p.outcome);
    assert_eq!(last.map(|o| o.winner), Some(Some(Color::White)));
    let analyses = Analyses::new(settings(1));
    let pool = EnginePool::in_process(1, 1);
    let report = analyses.start(stored.game_id, stored.variant, list, &pool, || {
        Ok::<(), ()>(())
    });
    let report = report.unwrap_or_else(|_| panic!("refused"));
    let end = report.plies[1].as_ref().map(|p| p.evaluation.score.clone());
    assert_eq!(end, Some(WhiteScore::Result("1-0".into())));
}

#[test]
fn starts_are_rate_limited_per_address_and_the_machine_is_exempt() {
    use crate::web::limits::{Action, Limiters, ANALYSES};
    use crate::web::proxy::ClientInfo;
    let limiters = Limiters::new(&crate::config::RateLimits::default());
    let client = |ip: &str| ClientInfo {
        ip: ip.parse().unwrap_or_else(|e| panic!("{e}")),
        forwarded_https: None,
        host: None,
    };
    let (stranger, other, machine) = (
        client("203.0.113.7"),
        client("198.51.100.1"),
        client("127.0.0.1"),
    );
    for _ in 0..ANALYSES.count.get() {
        assert!(limiters.check(Action::StartAnalysis, &stranger).is_ok());
    }
    let refused = limiters.check(Action::StartAnalysis, &stranger);
    assert!(refused.is_err_and(|r| r.retry_after_seconds() >= 1));
    // Other limits and other addresses are not touched.
    assert!(limiters.check(Action::CreateGame, &stranger).is_ok());
    assert!(limiters.check(Action::StartAnalysis, &other).is_ok());
    for _ in 0..=ANALYSES.count.get() {
        assert!(limiters.check(Action::StartAnalysis, &machine).is_ok());
    }
}

#[tokio::test]
async fn an_analysis_nobody_polls_stops_and_a_poll_resumes_it() {
    let pool = EnginePool::in_process(1, 8);
    // Never polled recently enough: the task stops before its first search.
    let analyses = Analyses::new(AnalysisSettings {
        idle_stop: Duration::ZERO,
        ..settings(1)
    });
    let game = record(GameStatus::Finished, None, &OPENING);
    let list = positions(&game).unwrap_or_else(|e| panic!("{e}"));
    let start = |admit: Result<(), ()>| {
        analyses.start(game.game_id, game.variant, list.clone(), &pool, || admit)
    };
    let first = start(Ok(())).unwrap_or_else(|_| panic!("refused"));
    assert_eq!(first.status, Status::Running);
    while analyses.running() > 0 {
        tokio::task::yield_now().await;
    }
    assert!(analyses.existing(game.game_id).is_none(), "it stopped");
    assert_eq!(analyses.cache_stats().0, 0, "nothing was searched");
    // Asked again, it starts again (and counts as a new start).
    assert!(matches!(start(Err(())), Err(StartError::Refused(()))));
    let again = start(Ok(())).unwrap_or_else(|_| panic!("refused"));
    assert_eq!(again.status, Status::Running);
}
