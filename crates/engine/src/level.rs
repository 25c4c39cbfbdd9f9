//! Levels 0–8 of the computer opponent. Level 0 plays a uniformly random legal action; from
//! level 1 (one ply, heavy noise) up to 8 (as deep as its time allows, no noise) a level
//! searches deeper, longer and with less deliberate noise than the one below. Each level's
//! depth and node caps make it deterministic for a seed whenever its time is not the limit
//! that bites.

use crate::search::{Limits, Style};
use std::time::Duration;

/// A playing strength, 0 (random) to 8 (strongest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// One level's settings: depth, nodes, time and noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Settings {
    depth: u32,
    nodes: u64,
    millis: u64,
    noise: i32,
}

const SETTINGS: [Settings; 9] = [
    // Level 0 does not search; its row is never read.
    Settings {
        depth: 0,
        nodes: 0,
        millis: 0,
        noise: 0,
    },
    Settings {
        depth: 1,
        nodes: 2_000,
        millis: 50,
        noise: 250,
    },
    Settings {
        depth: 2,
        nodes: 10_000,
        millis: 100,
        noise: 120,
    },
    Settings {
        depth: 3,
        nodes: 40_000,
        millis: 200,
        noise: 60,
    },
    Settings {
        depth: 4,
        nodes: 150_000,
        millis: 400,
        noise: 30,
    },
    Settings {
        depth: 6,
        nodes: 500_000,
        millis: 800,
        noise: 15,
    },
    Settings {
        depth: 8,
        nodes: 1_500_000,
        millis: 1_500,
        noise: 5,
    },
    Settings {
        depth: 12,
        nodes: 5_000_000,
        millis: 3_000,
        noise: 0,
    },
    Settings {
        depth: 64,
        nodes: u64::MAX,
        millis: 6_000,
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

    /// The search limits of this level.
    pub fn limits(self) -> Limits {
        let settings = self.settings();
        Limits {
            depth: Some(settings.depth.max(1)),
            nodes: (settings.nodes != u64::MAX).then_some(settings.nodes),
            time: Some(Duration::from_millis(settings.millis)),
        }
    }

    /// The search style of this level with `seed`.
    pub fn style(self, seed: u64) -> Style {
        Style {
            noise: self.settings().noise,
            seed,
            ..Style::default()
        }
    }
}
