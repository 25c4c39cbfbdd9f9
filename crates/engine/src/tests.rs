//! The engine's behaviour through its public API: wins found, legality, levels, determinism,
//! limits and cancellation, Davey Drehs' dice kept out of sight.

use super::*;
use std::time::Duration;

fn game(variant: Variant, position: &str) -> AnyGame {
    match AnyGame::from_position(variant, position) {
        Ok(game) => game,
        Err(e) => panic!("{variant} position {position}: {e}"),
    }
}

fn start(variant: Variant) -> AnyGame {
    match AnyGame::start(variant) {
        Ok(game) => game,
        Err(e) => panic!("{variant}: {e}"),
    }
}

/// Plays `actions` (machine notation) on a copy of `game`.
fn after(game: &AnyGame, actions: &[&str]) -> AnyGame {
    let mut next = game.clone();
    for action in actions {
        if let Err(e) = next.play(action) {
            panic!("{action} in {}: {e}", next.position());
        }
    }
    next
}

/// Positions where the side to act wins at once (Suicide: by forcing its last man to be
/// taken), with that winning action.
const WINS: [(Variant, &str, &str); 6] = [
    // Pushing to e4 forces the knight to take the last white man.
    (Variant::Suicide, "8/8/3n4/8/8/8/4P3/8 w - - 0 1", "e2e4"),
    (Variant::Chazz, "7k/P7/6PP/8/K7 w - - 0 1", "a4a5r"),
    (Variant::Chazz, "k7/8/1pp5/3p4/K7 b - - 0 1", "d2d1r"),
    (
        Variant::Duel,
        "2k2/p4/5/2*2/5/5/R3K n2/3/3 w - - 0 1",
        "a1a6",
    ),
    (Variant::Drehs, "4k3/4Q3/8/8/8/8/8/4K3 w - e7=12e2", "e7xe8"),
    (
        Variant::Chad,
        "12/12/7rrr2/7rkr2/7rrr2/8R3/12/12/3K8/12/12/8R3 w - - 0 1",
        "i7i8",
    ),
];

#[test]
fn finds_the_win_in_every_variant() {
    for (variant, position, winning) in WINS {
        let game = game(variant, position);
        let mover = game.turn();
        let result = Engine::new(variant).search(&game, &Limits::depth(3), &Cancel::new());
        let best = result.best.clone().unwrap_or_default();
        assert!(
            best.starts_with(winning),
            "{variant} {position}: {result:?}"
        );
        assert_eq!(result.pv.first(), result.best.as_ref(), "{variant}");
        if variant == Variant::Drehs {
            // The attack may miss: it is the best chance, not a forced win.
            continue;
        }
        assert!(
            matches!(result.score, Score::Mate(n) if n > 0),
            "{variant}: {result:?}"
        );
        let mut end = after(&game, &[&best]);
        if variant == Variant::Suicide {
            let reply = end.legal_actions();
            end = after(&end, &[&reply[0]]);
        }
        assert_eq!(
            end.outcome().and_then(|o| o.winner),
            Some(mover),
            "{variant}"
        );
    }
}

#[test]
fn a_mated_side_sees_its_loss() {
    let game = game(Variant::Chazz, "7k/P7/6PP/8/K7 w - - 0 1");
    let lost = after(&game, &["a4a5r"]);
    let result = Engine::new(Variant::Chazz).search(&lost, &Limits::depth(2), &Cancel::new());
    assert_eq!(result.best, None);
    assert!(result.pv.is_empty());
}

#[test]
fn self_play_only_ever_chooses_legal_actions() {
    for variant in Variant::ALL {
        let mut game = start(variant);
        let mut engine = Engine::new(variant);
        for _ in 0..8 {
            let result = engine.search(&game, &Limits::nodes(300), &Cancel::new());
            let Some(best) = result.best else { break };
            assert!(game.legal_actions().contains(&best), "{variant}: {best}");
            let mut line = game.clone();
            for action in &result.pv {
                assert!(line.play(action).is_ok(), "{variant} pv {:?}", result.pv);
            }
            game = after(&game, &[&best]);
        }
    }
}

#[test]
fn level_zero_plays_random_legal_actions() {
    for variant in Variant::ALL {
        let game = start(variant);
        let legal = game.legal_actions();
        let chosen: Vec<String> = (0..12)
            .filter_map(|seed| choose(Level::MIN, &game, seed))
            .collect();
        assert_eq!(chosen.len(), 12, "{variant}");
        assert!(chosen.iter().all(|a| legal.contains(a)), "{variant}");
        let first = &chosen[0];
        assert!(
            chosen.iter().any(|a| a != first),
            "{variant}: always {first}"
        );
    }
}

#[test]
fn the_same_seed_and_node_limit_give_the_same_action() {
    for variant in Variant::ALL {
        let game = after(&start(variant), &[]);
        let limits = Limits::nodes(400);
        let pick = |seed| choose_within(Level::new(3), &game, seed, &limits, &Cancel::new());
        assert_eq!(pick(5), pick(5), "{variant}");
        let a = Engine::new(variant).search(&game, &limits, &Cancel::new());
        let b = Engine::new(variant).search(&game, &limits, &Cancel::new());
        assert_eq!(a, b, "{variant}");
        assert_eq!(a.nodes, 400, "{variant}");
    }
}

#[test]
fn a_depth_limited_search_reports_that_depth() {
    for variant in [Variant::Suicide, Variant::Chazz, Variant::Duel] {
        let result =
            Engine::new(variant).search(&start(variant), &Limits::depth(3), &Cancel::new());
        assert_eq!(result.depth, 3, "{variant}");
        assert!(matches!(result.score, Score::Cp(_)), "{variant}");
        assert!(
            !result.pv.is_empty() && result.pv.len() <= 3 + 6,
            "{variant}"
        );
    }
}

#[test]
fn a_cancelled_search_stops_and_still_answers() {
    let game = start(Variant::Chad);
    let cancel = Cancel::new();
    cancel.cancel();
    let result = Engine::new(Variant::Chad).search(&game, &Limits::default(), &cancel);
    assert!(result.nodes <= 1024, "{result:?}");
    let best = result.best.unwrap_or_default();
    assert!(game.legal_actions().contains(&best));
}

#[test]
fn cancelling_from_another_thread_ends_an_unlimited_search() {
    let game = start(Variant::Suicide);
    let cancel = Cancel::new();
    let searching = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            Engine::new(Variant::Suicide).search(&game, &Limits::default(), &cancel)
        })
    };
    std::thread::sleep(Duration::from_millis(50));
    cancel.cancel();
    let result = match searching.join() {
        Ok(result) => result,
        Err(_) => panic!("the search thread panicked"),
    };
    assert!(result.best.is_some());
    assert!(result.depth < 64, "{result:?}");
}

#[test]
fn drehs_search_never_depends_on_the_games_dice_seed() {
    let mut one = game(Variant::Drehs, "4k3/4Q3/8/8/8/8/8/4K3 w - e7=12e2");
    let mut two = one.clone();
    one.set_dice([1; 32], "one");
    two.set_dice([2; 32], "two");
    let limits = Limits::nodes(2_000);
    let a = Engine::new(Variant::Drehs).search(&one, &limits, &Cancel::new());
    let b = Engine::new(Variant::Drehs).search(&two, &limits, &Cancel::new());
    assert_eq!(a, b);
}

#[test]
fn drehs_levels_put_their_noise_on_the_root_actions() {
    // Davey Drehs' levels below 8 add their noise to the root actions' scores only; the
    // other variants' to every evaluation.
    for n in 1..8 {
        let style = Level::new(n).style(Variant::Drehs, 0);
        assert!(
            style.root_noise > 0 && style.noise == 0,
            "level {n}: {style:?}"
        );
        let style = Level::new(n).style(Variant::Chazz, 0);
        assert!(style.root_noise == 0, "level {n}: {style:?}");
    }
    assert_eq!(Level::MAX.style(Variant::Drehs, 0), Style::default());
    // Without noise the queen strikes the bare king (fourteen faces of twenty win); with
    // noise far above the other actions' scores, the seed picks among them.
    let game = game(Variant::Drehs, "4k3/4Q3/8/8/8/8/8/4K3 w - - - 0 1 0");
    let pick = |root_noise: i32, seed: u64| {
        let style = Style {
            root_noise,
            seed,
            ..Style::default()
        };
        Engine::new(Variant::Drehs)
            .search_styled(&game, &Limits::depth(2), &Cancel::new(), style)
            .best
    };
    assert!((0..16).all(|seed| pick(0, seed).as_deref() == Some("e7xe8")));
    let noisy: std::collections::BTreeSet<_> = (0..16).map(|seed| pick(20_000, seed)).collect();
    assert!(noisy.len() >= 4, "{noisy:?}");
}

#[test]
fn levels_grow_in_depth_nodes_and_time_and_lose_their_noise() {
    for n in 1..8 {
        let (low, high) = (Level::new(n), Level::new(n + 1));
        assert!(low.limits().depth <= high.limits().depth, "level {n}");
        assert!(low.limits().time < high.limits().time, "level {n}");
        for variant in Variant::ALL {
            assert!(
                low.noise(variant) >= high.noise(variant),
                "{variant} level {n}"
            );
        }
        assert!(
            low.fixed_limits().nodes < high.fixed_limits().nodes,
            "level {n}"
        );
        // Real play caps nodes below level 8 and the clock only guards them.
        assert_eq!(low.limits().nodes, low.fixed_limits().nodes, "level {n}");
        assert!(low.limits().time.is_some() && low.fixed_limits().time.is_none());
    }
    // People wait little: the beginner levels are quick, the strongest thinks 3 s at most.
    for n in 1..=3 {
        assert!(Level::new(n).limits().time <= Some(Duration::from_millis(300)));
    }
    let top = Level::MAX.limits();
    assert_eq!(top.nodes, None);
    assert!(top.time <= Some(Duration::from_secs(3)));
    assert_eq!(
        Level::MAX.fixed_limits().nodes,
        Some(level::TOP_FIXED_NODES)
    );
    assert_eq!(Level::new(200), Level::MAX);
    assert_eq!(Score::from_internal(score::MATE - 1), Score::Mate(1));
    assert_eq!(Score::from_internal(score::MATE - 3), Score::Mate(2));
    assert_eq!(Score::from_internal(-(score::MATE - 2)), Score::Mate(-1));
    assert_eq!(Score::from_internal(37), Score::Cp(37));
}

#[test]
fn a_searching_level_beats_random_play_in_every_variant() {
    for variant in Variant::ALL {
        // Davey Drehs' teleports and sampled dice need more nodes for one full ply.
        let (nodes, games) = if variant == Variant::Drehs {
            (3_000, 6)
        } else {
            (300, 2)
        };
        let rules = ladder::MatchRules {
            limits: Some(Limits::nodes(nodes)),
            max_plies: 120,
            threads: 2,
            opening_plies: 0,
        };
        let tally = match ladder::play_match(variant, Level::new(4), Level::MIN, games, rules) {
            Ok(tally) => tally,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(tally.games(), games);
        assert!(
            tally.wins > tally.losses + tally.draws,
            "{variant}: {tally:?}"
        );
    }
}

#[test]
fn equal_positions_hash_alike_and_a_move_changes_the_hash() {
    fn check<R: Rules>(first: &str, second: &str) {
        let start = R::start();
        let again = match R::from_position(&start.position()) {
            Ok(game) => game,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(start.hash(), again.hash(), "{}", R::VARIANT);
        let mut moved = start.clone();
        for text in [first, second] {
            let action = match moved.parse_action(text) {
                Ok(action) => action,
                Err(e) => panic!("{text}: {e}"),
            };
            assert!(moved.apply(&action).is_ok(), "{text}");
            assert_ne!(moved.hash(), start.hash(), "{}", R::VARIANT);
        }
    }
    use oddboard_rules::variant::suicide::Suicide;
    use oddboard_rules::variant::{chad::Chad, chazz::Chazz, drehs::Drehs, duel::Duel};
    check::<Suicide>("g1f3", "g8f6");
    check::<Chazz>("e2e3", "d4d3");
    check::<Duel>("a2a3", "a6a5");
    check::<Drehs>("e2e4", "e7e5");
    check::<Chad>("e5e7", "h8h6");
}

#[test]
fn a_transposition_reaches_the_same_hash() {
    let one = after(&start(Variant::Chad), &["e5e7", "h8h6", "c5c7", "j10j12"]);
    let two = after(&start(Variant::Chad), &["c5c7", "j10j12", "e5e7", "h8h6"]);
    assert_eq!(one.position(), two.position());
    let (AnyGame::Chad(one), AnyGame::Chad(two)) = (one, two) else {
        panic!("not Chad");
    };
    assert_eq!(one.hash(), two.hash());
}

#[test]
fn a_match_is_the_same_on_one_thread_or_several() {
    let rules = |threads, opening_plies| ladder::MatchRules {
        limits: Some(Limits::nodes(300)),
        max_plies: 60,
        threads,
        opening_plies,
    };
    for plies in [0, 2] {
        let one = ladder::play_match(
            Variant::Chazz,
            Level::new(2),
            Level::new(1),
            6,
            rules(1, plies),
        );
        let three = ladder::play_match(
            Variant::Chazz,
            Level::new(2),
            Level::new(1),
            6,
            rules(3, plies),
        );
        assert_eq!(one, three);
        let tally = one.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tally.games(), 6);
    }
}

#[test]
fn suicide_evaluation_terms_are_read_off_the_position() {
    use crate::eval::suicide::{terms, TERMS};
    use crate::eval::Evaluate;
    use oddboard_rules::variant::suicide::Suicide;
    let terms_of = |fen: &str| {
        let game = Suicide::from_position(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let actions = game.legal_actions();
        let tactical = game.tactical(&actions);
        terms(&game, &actions, &tactical)
    };
    let mut start = [0; TERMS];
    start[12..14].copy_from_slice(&[20, 20]);
    start[TERMS - 1] = 1;
    assert_eq!(
        terms_of("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
        start
    );
    // White's knight must take the bishop or the pawn on d2 (five ranks from home); Black
    // would have 18 quiet moves.
    assert_eq!(
        terms_of("8/8/8/4b3/8/5N2/3p4/8 w - - 0 1"),
        [-1, 1, -1, 0, 0, 0, -3, 3, -3, 0, 0, 0, 2, 18, 2, 0, 1, 0, -5, 1]
    );
    // The same from Black's side: the bishop is attacked by the knight.
    assert_eq!(
        terms_of("8/8/8/4b3/8/5N2/3p4/8 b - - 0 1"),
        [1, -1, 1, 0, 0, 0, 3, -3, 3, 0, 0, 0, 18, 2, 0, 2, 0, 1, 5, 1]
    );
}
