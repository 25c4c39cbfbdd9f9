//! The search, generic over a variant's [`Rules`] (with its [`Evaluate`]): iterative
//! deepening negamax with alpha-beta (a null-window scout of every action after the
//! first), a transposition table, move ordering (table action, captures, killers, history),
//! a depth-bounded quiescence over captures, and limits by depth, nodes, time and
//! cancellation. Davey Drehs' dice actions are chance nodes: the variant groups their rolls
//! into a few outcomes with exact chances ([`Evaluate::outcomes`]), and the search averages
//! the outcomes' scores by them (an expectimax), so the game's own dice are never read.
//! At the frontier a chance action the variant can reckon ([`Evaluate::expected_after`]) is
//! worth its expectation instead, and actions the variant calls skippable
//! ([`Evaluate::is_skippable`]) are left out once another has been searched: with both, a
//! Davey Drehs search reaches four plies where it reached two.

use crate::eval::Evaluate;
use crate::rng::XorShift;
use crate::score::{from_table, to_table, INFINITY, MATE, MATE_BOUND};
use crate::table::{Bound, Entry, Table};
use oddboard_rules::{Color, Outcome};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// No line is searched deeper than this many plies from the root.
pub const MAX_PLY: usize = 64;
/// Quiescence looks at most this many captures deep: Suicide's forced captures could
/// otherwise chain on for the whole game.
const QUIESCENCE_PLIES: u32 = 6;
/// Quiet actions searched at full depth before later ones are searched a ply or two shallower
/// first (late move reductions).
const LATE_MOVES: usize = 3;
/// Nodes between two looks at the clock and the cancel flag.
const CHECK_EVERY: u64 = 1024;
/// The game id the engine's own dice are derived with.
const DICE_GAME_ID: &str = "oddboard-engine";

/// When a search must stop. Unset limits do not apply; with none at all, the search goes
/// to [`MAX_PLY`] unless cancelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }
}

/// A flag another thread sets to stop a search; the search then answers with the best
/// action of its last finished iteration.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every search holding this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How a search plays, beyond its limits: the levels' knobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Deliberate noise: up to this many centipawns added to or taken from each evaluation,
    /// fixed by the seed and the position.
    pub noise: i32,
    /// Deliberate noise at the root: up to this many centipawns added to or taken from each
    /// root action's score, fixed by the seed, the position and the action. Unlike the
    /// evaluation's, it is not averaged away by a deeper search or by dice.
    pub root_noise: i32,
    /// Seeds the noise (and the dice of a chance action whose outcomes are not grouped).
    pub seed: u64,
}

/// What a typed search found.
#[derive(Clone, Debug)]
pub struct Found<A> {
    /// None only when the position has no legal action.
    pub best: Option<A>,
    /// For the side to act, in the search's internal scale (see [`crate::score`]).
    pub score: i32,
    /// The last iteration that finished.
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<A>,
}

/// Told of each finished iteration, for progress output (UCI's `info` lines).
pub type Report<'a, A> = &'a mut dyn FnMut(&Found<A>);

/// One search's working state.
pub struct Searcher<'a, R: Evaluate> {
    table: &'a mut Table,
    report: Option<Report<'a, R::Action>>,
    limits: Limits,
    cancel: &'a Cancel,
    style: Style,
    started: Instant,
    nodes: u64,
    stopped: bool,
    killers: Vec<[Option<R::Action>; 2]>,
    history: Vec<i32>,
    pv: Vec<Vec<R::Action>>,
    /// The root's best action of the last iteration, tried first in the next.
    root_best: Option<usize>,
    /// The score of the best root action of the current iteration so far.
    root_score: i32,
    /// The depth of the current iteration, which bounds the forced-reply extensions.
    iteration: usize,
}

impl<'a, R: Evaluate> Searcher<'a, R> {
    pub fn new(table: &'a mut Table, limits: Limits, cancel: &'a Cancel, style: Style) -> Self {
        Searcher {
            table,
            report: None,
            limits,
            cancel,
            style,
            started: Instant::now(),
            nodes: 0,
            stopped: false,
            killers: vec![[None, None]; MAX_PLY + 1],
            history: vec![0; 1 << 16],
            pv: vec![Vec::new(); MAX_PLY + 2],
            root_best: None,
            root_score: 0,
            iteration: 0,
        }
    }

    /// Calls `report` with the result of every iteration that finishes.
    pub fn reporting(mut self, report: Report<'a, R::Action>) -> Self {
        self.report = Some(report);
        self
    }

    /// Iterative deepening from `root` until a limit, cancellation or a forced result.
    pub fn run(mut self, root: &R) -> Found<R::Action> {
        let actions = root.legal_actions();
        let mut found = Found {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
        let Some(first) = actions.first() else {
            return found;
        };
        found.best = Some(first.clone());
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32)
            .clamp(1, MAX_PLY as u32);
        for depth in 1..=max_depth {
            self.iteration = depth as usize;
            let score = self.negamax(root, depth as i32, -INFINITY, INFINITY, 0);
            if self.stopped {
                // Every root action that became best in the unfinished iteration was searched
                // to the end and beat the previous best, which is searched first.
                if let Some(partial) = self.pv[0].first() {
                    found.best = Some(partial.clone());
                    found.pv = self.pv[0].clone();
                    found.score = self.root_score;
                }
                break;
            }
            found.pv = self.pv[0].clone();
            found.best = found.pv.first().cloned().or(found.best);
            self.root_best = found
                .best
                .as_ref()
                .and_then(|best| actions.iter().position(|a| a == best));
            found.score = score;
            found.depth = depth;
            if let Some(report) = self.report.as_mut() {
                found.nodes = self.nodes;
                report(&found);
            }
            if score.abs() > MATE_BOUND && (MATE - score.abs()) <= depth as i32 {
                break;
            }
        }
        found.nodes = self.nodes;
        found
    }

    /// Counts a node and says whether the search must stop now.
    fn tick(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.limits.nodes.is_some_and(|max| self.nodes >= max) {
            self.stopped = true;
        } else if self.nodes.is_multiple_of(CHECK_EVERY) {
            let late = self
                .limits
                .time
                .is_some_and(|time| self.started.elapsed() >= time);
            self.stopped = late || self.cancel.is_cancelled();
        }
        self.stopped
    }

    /// The static evaluation with the style's noise.
    fn evaluate(&self, game: &R) -> i32 {
        self.noisy(game, game.evaluate())
    }

    /// [`Searcher::evaluate`] given the position's actions and their tactical weights.
    fn evaluate_with(&self, game: &R, actions: &[R::Action], tactical: &[i32]) -> i32 {
        self.noisy(game, game.evaluate_with(actions, tactical))
    }

    /// Stores a searched node in the table: its score as a bound of the window it was
    /// searched with, and its best action.
    fn remember_node(
        &mut self,
        key: u64,
        depth: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
        (best_score, best_index): (i32, Option<usize>),
    ) {
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // A root score with the root noise in it is no position's worth.
        if ply > 0 || self.style.root_noise == 0 {
            self.table.store(Entry {
                key,
                depth,
                score: to_table(best_score, ply as i32),
                bound,
                best: best_index.and_then(|i| u16::try_from(i).ok()),
            });
        }
    }

    /// What the style's root noise adds to the score of the root action `action`, fixed by
    /// the seed, the position and the action's squares.
    fn root_bias(&self, game: &R, action: &R::Action) -> i32 {
        let noise = self.style.root_noise;
        if noise <= 0 {
            return 0;
        }
        let key = u64::from(game.action_key(action)) << 48;
        let mut rng = XorShift::new(game.hash() ^ self.style.seed ^ key);
        let span = 2 * noise as u64 + 1;
        (rng.next_u64() % span) as i32 - noise
    }

    /// `base` with the style's noise, fixed by the seed and the position.
    fn noisy(&self, game: &R, base: i32) -> i32 {
        let base = base.clamp(-MATE_BOUND + 1, MATE_BOUND - 1);
        let noise = self.style.noise;
        if noise <= 0 {
            return base;
        }
        let mut rng = XorShift::new(game.hash() ^ self.style.seed);
        let span = 2 * noise as u64 + 1;
        base + (rng.next_u64() % span) as i32 - noise
    }

    fn negamax(&mut self, game: &R, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.tick() {
            return 0;
        }
        if let Some(outcome) = game.outcome() {
            return terminal(outcome, game.turn(), ply);
        }
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiesce(game, alpha, beta, ply, 0);
        }
        let key = game.hash();
        let entry = self.table.probe(key);
        if let Some(cut) = entry.and_then(|e| table_cutoff(e, depth, alpha, beta, ply)) {
            return cut;
        }
        let actions = game.legal_actions();
        if actions.is_empty() {
            return self.evaluate(game);
        }
        let hint = if ply == 0 {
            self.root_best
        } else {
            entry.and_then(|e| e.best).map(usize::from)
        };
        let order = self.order(game, &actions, hint, ply);
        // A forced reply costs nothing to look past: Suicide's compulsory captures chain.
        let next = if actions.len() == 1 && ply < 2 * self.iteration {
            depth
        } else {
            depth - 1
        };
        let original_alpha = alpha;
        let (mut best_score, mut best_index) = (-INFINITY, None);
        for (searched, (index, tactical)) in order.into_iter().enumerate() {
            let action = &actions[index];
            if searched > 0 && (ply > 0 || self.iteration > 1) && game.is_skippable(action) {
                continue;
            }
            let score = self.action_score(
                game,
                action,
                (searched, tactical),
                next,
                depth,
                alpha,
                beta,
                ply,
            );
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_index = Some(index);
            }
            if score > alpha {
                alpha = score;
                self.extend_pv(game, ply, action);
                if ply == 0 {
                    self.root_score = score;
                }
            }
            if alpha >= beta {
                if tactical == 0 {
                    self.remember_quiet(game, action, depth, ply);
                }
                break;
            }
        }
        self.remember_node(
            key,
            depth,
            ply,
            (original_alpha, beta),
            (best_score, best_index),
        );
        best_score
    }

    /// The score of `action`, the `searched`-th of its node with its tactical weight: the
    /// first with the full window, later ones scouted; at the root, with the style's root
    /// noise, which shifts the action's whole score and so its window.
    #[allow(clippy::too_many_arguments)]
    fn action_score(
        &mut self,
        game: &R,
        action: &R::Action,
        (searched, tactical): (usize, i32),
        next: i32,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let bias = if ply == 0 {
            self.root_bias(game, action)
        } else {
            0
        };
        let (low, high) = (alpha - bias, beta - bias);
        let score = if searched == 0 {
            self.child_score(game, action, next, low, high, ply)
        } else {
            let reduction = self.reduction(action, searched, tactical, depth, ply);
            self.scout(game, action, next, reduction, low, high, ply)
        };
        if bias == 0 {
            score
        } else {
            // Kept inside the bounds, so that noise neither ends the root's loop as a cutoff
            // nor passes for a mate.
            (score + bias).clamp(-MATE_BOUND, MATE_BOUND)
        }
    }

    /// A later action's score, first with a null window (does it beat alpha?) and
    /// `reduction` plies shallower, then again at full depth when a reduced probe beats
    /// alpha, and with the full window only when the full-depth probe does: most actions
    /// after the first do not.
    #[allow(clippy::too_many_arguments)]
    fn scout(
        &mut self,
        game: &R,
        action: &R::Action,
        depth: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if game.is_chance(action) {
            // Chance nodes search every sample with a full window anyway.
            return self.child_score(game, action, depth, alpha, beta, ply);
        }
        let mut probe = self.child_score(game, action, depth - reduction, alpha, alpha + 1, ply);
        if reduction > 0 && probe > alpha && !self.stopped {
            probe = self.child_score(game, action, depth, alpha, alpha + 1, ply);
        }
        if probe > alpha && probe < beta && !self.stopped {
            self.child_score(game, action, depth, alpha, beta, ply)
        } else {
            probe
        }
    }

    /// The score of playing `action` in `game`, for the side to act there.
    fn child_score(
        &mut self,
        game: &R,
        action: &R::Action,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if !game.is_chance(action) {
            let mut child = game.clone();
            child.play_unchecked(action);
            return -self.negamax(&child, depth, -beta, -alpha, ply + 1);
        }
        if depth <= 0 && ply > 0 {
            if let Some(expected) = game.expected_after(action) {
                self.tick();
                return self.noisy(game, expected);
            }
        }
        // A chance node: the average over its outcomes weighted by their chances, each searched
        // with a full window, since a bound on the average says nothing about one outcome.
        let outcomes = game.outcomes(action);
        if !outcomes.is_empty() {
            let (mut total, mut weight) = (0i64, 0i64);
            for (chance, child) in outcomes {
                let score = -self.negamax(&child, depth, -INFINITY, INFINITY, ply + 1);
                if self.stopped {
                    return 0;
                }
                total += i64::from(chance) * i64::from(score);
                weight += i64::from(chance);
            }
            return mean_score(total, weight.max(1));
        }
        // A variant that cannot group the outcomes: one roll of the engine's own dice.
        let mut child = game.clone();
        child.set_dice(self.dice_seed(game), DICE_GAME_ID);
        child.play_unchecked(action);
        -self.negamax(&child, depth, -INFINITY, INFINITY, ply + 1)
    }

    /// A dice seed of the engine's own for a chance action in `game`.
    fn dice_seed(&self, game: &R) -> [u8; 32] {
        let mut rng = XorShift::new(self.style.seed ^ game.hash() ^ 1);
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        seed
    }

    fn quiesce(&mut self, game: &R, mut alpha: i32, beta: i32, ply: usize, depth: u32) -> i32 {
        self.pv[ply].clear();
        if self.tick() {
            return 0;
        }
        if let Some(outcome) = game.outcome() {
            return terminal(outcome, game.turn(), ply);
        }
        if depth >= QUIESCENCE_PLIES || ply >= MAX_PLY {
            return self.evaluate(game);
        }
        let actions = game.legal_actions();
        let tactical = game.tactical(&actions);
        let stand = self.evaluate_with(game, &actions, &tactical);
        let may_stand = game.may_stand_pat(&tactical);
        let mut best = -INFINITY;
        if may_stand {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        let mut captures: Vec<(usize, i32)> = tactical
            .iter()
            .enumerate()
            .filter(|&(i, &t)| t > 0 && !game.is_chance(&actions[i]))
            .map(|(i, &t)| (i, t))
            .collect();
        if captures.is_empty() {
            return stand;
        }
        captures.sort_by_key(|&(i, t)| (std::cmp::Reverse(t), i));
        for (index, _) in captures {
            let mut child = game.clone();
            child.play_unchecked(&actions[index]);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, depth + 1);
            if self.stopped {
                return 0;
            }
            best = best.max(score);
            if score > alpha {
                alpha = score;
                self.extend_pv(game, ply, &actions[index]);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The principal variation at `ply` becomes `action` followed by the child's, or
    /// `action` alone when it is a chance action of `game`: what follows depends on its dice.
    fn extend_pv(&mut self, game: &R, ply: usize, action: &R::Action) {
        let chance = game.is_chance(action);
        let (here, below) = self.pv.split_at_mut(ply + 1);
        if let (Some(line), Some(child)) = (here.last_mut(), below.first()) {
            line.clear();
            line.push(action.clone());
            if !chance {
                line.extend(child.iter().cloned());
            }
        }
    }

    /// Plies a later action is first searched shallower by: none for the first few, for
    /// captures and for killers, one for the other quiet actions, two for the latest ones in
    /// deep searches.
    fn reduction(
        &self,
        action: &R::Action,
        searched: usize,
        tactical: i32,
        depth: i32,
        ply: usize,
    ) -> i32 {
        let late = tactical == 0 && searched >= LATE_MOVES && depth >= 3;
        if !late || self.is_killer(ply, action) {
            0
        } else if searched >= 2 * LATE_MOVES && depth >= 5 {
            2
        } else {
            1
        }
    }

    fn is_killer(&self, ply: usize, action: &R::Action) -> bool {
        self.killers
            .get(ply)
            .is_some_and(|k| k.iter().any(|killer| killer.as_ref() == Some(action)))
    }

    /// A quiet action that refuted a line: a killer at its ply and credit in the history.
    fn remember_quiet(&mut self, game: &R, action: &R::Action, depth: i32, ply: usize) {
        if let Some(slots) = self.killers.get_mut(ply) {
            if slots[0].as_ref() != Some(action) {
                slots[1] = slots[0].take();
                slots[0] = Some(action.clone());
            }
        }
        if let Some(credit) = self.history.get_mut(usize::from(game.action_key(action))) {
            *credit = (*credit + depth * depth).min(1 << 20);
        }
    }

    /// The order to try the actions in, with each one's tactical weight: the hinted (table
    /// or previous iteration's) action, captures by weight, killers, then by history.
    fn order(
        &self,
        game: &R,
        actions: &[R::Action],
        hint: Option<usize>,
        ply: usize,
    ) -> Vec<(usize, i32)> {
        let tactical = game.tactical(actions);
        let killers = self.killers.get(ply);
        let mut keyed: Vec<(i64, usize, i32)> = actions
            .iter()
            .enumerate()
            .map(|(i, action)| {
                let weight = tactical.get(i).copied().unwrap_or(0);
                let rank = if hint == Some(i) {
                    1 << 40
                } else if weight > 0 {
                    (1 << 32) + i64::from(weight)
                } else if killers.is_some_and(|k| k[0].as_ref() == Some(action)) {
                    1 << 31
                } else if killers.is_some_and(|k| k[1].as_ref() == Some(action)) {
                    (1 << 31) - 1
                } else {
                    let key = usize::from(game.action_key(action));
                    i64::from(self.history.get(key).copied().unwrap_or(0))
                };
                (rank, i, weight)
            })
            .collect();
        keyed.sort_by_key(|&(rank, i, _)| (std::cmp::Reverse(rank), i));
        keyed.into_iter().map(|(_, i, w)| (i, w)).collect()
    }
}

/// The mean of scores summing to `total` over `weight`: averaged mates are not mates at a
/// known distance, so they are kept just inside the bound.
fn mean_score(total: i64, weight: i64) -> i32 {
    (total / weight).clamp(i64::from(-MATE_BOUND), i64::from(MATE_BOUND)) as i32
}

/// The score of a finished game for `turn`, the side that would act.
fn terminal(outcome: Outcome, turn: Color, ply: usize) -> i32 {
    match outcome.winner {
        Some(winner) if winner == turn => MATE - ply as i32,
        Some(_) => -(MATE - ply as i32),
        None => 0,
    }
}

/// The table's answer when it settles this node without a search.
fn table_cutoff(entry: Entry, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    if ply == 0 || entry.depth < depth {
        return None;
    }
    let score = from_table(entry.score, ply as i32);
    match entry.bound {
        Bound::Exact => Some(score),
        Bound::Lower if score >= beta => Some(score),
        Bound::Upper if score <= alpha => Some(score),
        _ => None,
    }
}
