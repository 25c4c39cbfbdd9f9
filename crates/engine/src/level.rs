//! Levels 0–8 of the computer opponent. Level 0 plays a uniformly random legal action; from
//! level 1 (one ply, heavy noise) up to 8 (as deep as its time allows, no noise) a level
//! searches deeper, on more nodes and with less deliberate noise than the one below.
//!
//! Levels 1–7 end their search on a node cap; their time limit is only a guard for a slow or
//! busy machine, so their play is deterministic for a seed and fast (levels 1–3 well under
//! 0.3 s a move). Level 8 thinks up to [`TOP_MILLIS`] in real play, by time alone; the ladder
//! (and anything else that needs reproducible games) plays it on [`TOP_FIXED_NODES`] instead,
//! through [`Level::fixed_limits`].

use crate::search::{Limits, Style};
use oddboard_rules::Variant;
use std::time::Duration;

/// Davey Drehs' noise by level, in centipawns, on the root actions' scores
/// ([`Style::root_noise`]). Its dice decide so much that a few plies more hardly set levels
/// apart (depth 3 scored 61% against depth 1, depth 4 52% against 3), and noise on every
/// evaluation is averaged away by the dice and the plies. At the root it is not, and each
/// step here costs about 90 Elo: over 1,000 games a pair between depth-2 searches, none
/// scored 62.8% against ±450, ±450 62.5% against ±1,500, ±1,500 61.9% against ±4,500 and
/// ±4,500 64.5% against ±10,000. Below level 5 each level also searches a ply or two less,
/// which counts for more there: over 200 games, depth 3 at ±10,000 scored 69.0% against
/// depth 2 at ±16,000, which scored 73.2% against depth 1 at ±30,000. Levels 3 and 4 share
/// ±10,000: level 4's deeper search alone scored 65.0% (60 games), and at ±7,000 level 5
/// scored only 52.5% against it. Level 1's ±30,000 pushes many root scores to the clamp at
/// the mate bound, where the first in the search's order (attacks first) wins the tie: at
/// depth 1 it scored 90.0% against random play over 1,000 games, while depth 2 at ±20,000,
/// which reaches the clamp less, scored only 58.3% against that level 1 (60 games).
const DREHS_NOISE: [i32; 9] = [0, 30_000, 16_000, 10_000, 10_000, 4_500, 1_500, 450, 0];

/// Level 8's time per move in real play.
pub const TOP_MILLIS: u64 = 3_000;
/// Level 8's node cap where games must be reproducible: twice level 7's.
pub const TOP_FIXED_NODES: u64 = 320_000;

/// A playing strength, 0 (random) to 8 (strongest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// One level's settings: depth, nodes (None: time alone), time and noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Settings {
    depth: u32,
    nodes: Option<u64>,
    millis: u64,
    noise: i32,
}

const fn settings(depth: u32, nodes: u64, millis: u64, noise: i32) -> Settings {
    Settings {
        depth,
        nodes: Some(nodes),
        millis,
        noise,
    }
}

const SETTINGS: [Settings; 9] = [
    // Level 0 does not search; its row is never read.
    settings(0, 0, 0, 0),
    settings(1, 1_000, 100, 200),
    settings(2, 4_000, 150, 100),
    settings(3, 10_000, 250, 50),
    settings(5, 20_000, 500, 25),
    settings(8, 40_000, 1_000, 10),
    settings(64, 80_000, 1_500, 5),
    settings(64, 160_000, 2_500, 0),
    Settings {
        depth: 64,
        nodes: None,
        millis: TOP_MILLIS,
        noise: 0,
    },
];

impl Level {
    pub const MIN: Level = Level(0);
    pub const MAX: Level = Level(8);

    /// The level `n`, capped at [`Level::MAX`].
    pub fn new(n: u8) -> Level {
        Level(n.min(Level::MAX.0))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// Whether this level plays at random instead of searching.
    pub fn is_random(self) -> bool {
        self.0 == 0
    }

    fn settings(self) -> Settings {
        SETTINGS[usize::from(self.0.min(Level::MAX.0))]
    }

    /// The search limits of this level in real play: its depth and node caps, and its time.
    pub fn limits(self) -> Limits {
        let settings = self.settings();
        Limits {
            depth: Some(settings.depth.max(1)),
            nodes: settings.nodes,
            time: Some(Duration::from_millis(settings.millis)),
        }
    }

    /// The search limits of this level without a clock, so that a game between levels is the
    /// same on any machine: its depth and node caps, level 8 on [`TOP_FIXED_NODES`].
    pub fn fixed_limits(self) -> Limits {
        let settings = self.settings();
        Limits {
            depth: Some(settings.depth.max(1)),
            nodes: Some(settings.nodes.unwrap_or(TOP_FIXED_NODES)),
            time: None,
        }
    }

    /// The search style of this level in `variant` with `seed`: Davey Drehs' noise is on
    /// the root actions' scores, the other variants' on every evaluation.
    pub fn style(self, variant: Variant, seed: u64) -> Style {
        let noise = self.noise(variant);
        match variant {
            Variant::Drehs => Style {
                root_noise: noise,
                seed,
                ..Style::default()
            },
            _ => Style {
                noise,
                seed,
                ..Style::default()
            },
        }
    }

    /// The most centipawns this level's noise adds to or takes from a score.
    pub fn noise(self, variant: Variant) -> i32 {
        let level = usize::from(self.0.min(Level::MAX.0));
        match variant {
            Variant::Drehs => DREHS_NOISE[level],
            _ => self.settings().noise,
        }
    }
}
