//! Dice that no one has to trust: every roll of a game is derived from a secret seed, the
//! game id and the roll's position in the game, so after the game anyone can recompute it.
//!
//! The server creates a random 32-byte seed when a game starts, publishes
//! [`commitment`]`(seed)` (hex SHA-256) at once and reveals the seed when the game ends. Roll
//! number `index` (0 for the first die of the game, counting every single die) is
//!
//! ```text
//! mac   = HMAC-SHA256(key = seed, message = game_id (UTF-8 bytes) ‖ index (u64 big-endian))
//! words = the 32 bytes of mac read as four u64 big-endian words
//! value = 1 + (first word w with w < limit) % sides,   limit = 2^64 − (2^64 mod sides)
//! ```
//!
//! Rejecting words at or above `limit` removes the modulo bias. If all four words are
//! rejected (for a d20 that happens with probability below 10^-70), the next 32 bytes come
//! from `HMAC-SHA256(seed, game_id ‖ index ‖ attempt (u32 big-endian))` for attempt 1, 2, …
//!
//! The engine stays pure: a [`DiceSource`] is a value the game carries (seed, game id, next
//! index), never a global generator.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

type HmacSha256 = Hmac<Sha256>;

/// The public seed used when no secret seed was set (the CLI, the generic tests): all zero.
pub const PUBLIC_SEED: [u8; 32] = [0; 32];

/// The game id used with [`PUBLIC_SEED`]: empty.
pub const PUBLIC_GAME_ID: &str = "";

/// Where a game's dice come from: the seed, the game id and the index of the next roll.
#[derive(Clone)]
pub struct DiceSource {
    seed: [u8; 32],
    game_id: String,
    next_index: u64,
    /// HMAC already keyed with the seed, cloned for each roll (saves hashing the key block).
    keyed: Option<HmacSha256>,
}

impl DiceSource {
    /// Dice for `game_id` from `seed`, starting at roll 0.
    pub fn new(seed: [u8; 32], game_id: &str) -> DiceSource {
        DiceSource {
            seed,
            game_id: game_id.to_string(),
            next_index: 0,
            keyed: HmacSha256::new_from_slice(&seed).ok(),
        }
    }

    /// The documented public default: [`PUBLIC_SEED`] and [`PUBLIC_GAME_ID`].
    pub fn public() -> DiceSource {
        DiceSource::new(PUBLIC_SEED, PUBLIC_GAME_ID)
    }

    /// The index the next roll will use.
    pub fn next_index(&self) -> u64 {
        self.next_index
    }

    /// Continues from roll `index` (a game restored from a position).
    pub fn set_next_index(&mut self, index: u64) {
        self.next_index = index;
    }

    /// The seed. Secret while the game runs: show it only once the game is over.
    pub fn seed(&self) -> &[u8; 32] {
        &self.seed
    }

    pub fn game_id(&self) -> &str {
        &self.game_id
    }

    /// Rolls one die of `sides` faces (1..=sides) and moves on to the next index.
    pub fn roll(&mut self, sides: u32) -> u32 {
        let value = match &self.keyed {
            Some(keyed) => draw(keyed, &self.game_id, self.next_index, sides),
            None => roll_at(&self.seed, &self.game_id, self.next_index, sides),
        };
        self.next_index = self.next_index.saturating_add(1);
        value
    }
}

// The seed is secret until the game ends, so Debug output (logs, panics) shows only the
// public commitment.
impl fmt::Debug for DiceSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiceSource")
            .field("commitment", &commitment(&self.seed))
            .field("game_id", &self.game_id)
            .field("next_index", &self.next_index)
            .finish()
    }
}

fn hmac(keyed: &HmacSha256, game_id: &str, index: u64, attempt: u32) -> [u8; 32] {
    let mut mac = keyed.clone();
    mac.update(game_id.as_bytes());
    mac.update(&index.to_be_bytes());
    if attempt > 0 {
        mac.update(&attempt.to_be_bytes());
    }
    mac.finalize().into_bytes().into()
}

/// The value of roll `index` of game `game_id` with `seed`: a die of `sides` faces
/// (1..=sides; a 0-sided die is treated as 1-sided). See the module docs for the formula.
pub fn roll_at(seed: &[u8; 32], game_id: &str, index: u64, sides: u32) -> u32 {
    // HMAC accepts keys of any length, so this cannot fail; the else branch only keeps the
    // function free of panics.
    let Ok(keyed) = HmacSha256::new_from_slice(seed) else {
        return 1;
    };
    draw(&keyed, game_id, index, sides)
}

/// [`roll_at`] with the HMAC already keyed.
fn draw(keyed: &HmacSha256, game_id: &str, index: u64, sides: u32) -> u32 {
    let sides = u64::from(sides.max(1));
    let span = 1u128 << 64;
    let limit = span - span % u128::from(sides);
    let mut attempt = 0u32;
    loop {
        let mac = hmac(keyed, game_id, index, attempt);
        for word in mac.chunks_exact(8) {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(word);
            let w = u64::from_be_bytes(bytes);
            if u128::from(w) < limit {
                // `w % sides` is below `sides`, which came from a u32.
                return (w % sides) as u32 + 1;
            }
        }
        attempt = attempt.wrapping_add(1);
    }
}

/// The public commitment to a seed: lower-case hex of SHA-256(seed).
pub fn commitment(seed: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(seed))
}

/// Whether `seed` is the one `commitment_hex` (hex SHA-256, either case) committed to.
pub fn matches_commitment(seed: &[u8; 32], commitment_hex: &str) -> bool {
    commitment(seed) == commitment_hex.trim().to_ascii_lowercase()
}

/// A seed that is not 64 hex digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSeedError(String);

impl fmt::Display for ParseSeedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad seed: {}", self.0)
    }
}

impl std::error::Error for ParseSeedError {}

/// Reads a seed written as 64 hex digits.
///
/// # Errors
/// Anything but exactly 32 bytes of hex.
pub fn parse_seed(text: &str) -> Result<[u8; 32], ParseSeedError> {
    let bytes = hex::decode(text.trim()).map_err(|e| ParseSeedError(e.to_string()))?;
    <[u8; 32]>::try_from(bytes.as_slice())
        .map_err(|_| ParseSeedError(format!("expected 32 bytes, got {}", bytes.len())))
}

/// One die as the server stores it with the action that rolled it, and as a game record file
/// lists it: which roll of the game it was, what it decided, the die and the face.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollRecord {
    /// The roll's position in the game: the `index` of the formula.
    pub index: u64,
    /// What the roll decided: `to_hit`, `damage`, `counter_to_hit`, `counter_damage`,
    /// `cannon_to_hit`, `cannon_damage`.
    pub purpose: String,
    /// The die: `d20`, `d6` or `d4` (always one die; `2d4` is two records).
    pub dice: String,
    /// The face rolled.
    pub value: u32,
}

impl RollRecord {
    /// The record of `roll` (one die, as in a snapshot's `last_action.rolls`), which was roll
    /// number `index` of the game.
    pub fn from_roll(index: u64, roll: &super::snapshot::Roll) -> RollRecord {
        RollRecord {
            index,
            purpose: roll.purpose.to_string(),
            dice: roll.dice.to_string(),
            value: roll.value,
        }
    }

    /// The number of faces of the die (`d20` → 20), if the name is one.
    pub fn sides(&self) -> Option<u32> {
        self.dice.strip_prefix('d')?.parse().ok().filter(|s| *s > 0)
    }

    /// Whether the value is what the seed gives for this index.
    pub fn is_consistent_with(&self, seed: &[u8; 32], game_id: &str) -> bool {
        self.sides()
            .is_some_and(|sides| roll_at(seed, game_id, self.index, sides) == self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chi-square statistic of `count` rolls of a `sides`-faced die from one seed.
    fn chi_square(sides: u32, count: u64) -> f64 {
        let seed = [7u8; 32];
        let mut observed = vec![0u64; sides as usize];
        for index in 0..count {
            let value = roll_at(&seed, "chi-square", index, sides);
            assert!((1..=sides).contains(&value));
            observed[(value - 1) as usize] += 1;
        }
        let expected = count as f64 / f64::from(sides);
        observed
            .iter()
            .map(|&o| (o as f64 - expected).powi(2) / expected)
            .sum()
    }

    #[test]
    fn dice_are_uniform_by_chi_square() {
        // Critical values at p = 0.001 for 3, 5 and 19 degrees of freedom.
        for (sides, critical) in [(4, 16.27), (6, 20.52), (20, 43.82)] {
            let statistic = chi_square(sides, 12_000);
            assert!(
                statistic < critical,
                "d{sides}: chi-square {statistic} >= {critical}"
            );
        }
    }

    #[test]
    fn rolls_depend_on_seed_game_and_index_only() {
        let seed = [1u8; 32];
        let mut a = DiceSource::new(seed, "game-1");
        let mut b = DiceSource::new(seed, "game-1");
        let first: Vec<u32> = (0..50).map(|_| a.roll(20)).collect();
        let again: Vec<u32> = (0..50).map(|_| b.roll(20)).collect();
        assert_eq!(first, again);
        assert_eq!(a.next_index(), 50);
        let other: Vec<u32> = (0..50).map(|i| roll_at(&seed, "game-2", i, 20)).collect();
        assert_ne!(first, other);
        assert_eq!(first[17], roll_at(&seed, "game-1", 17, 20));
    }

    #[test]
    fn known_vector_matches_an_independent_hmac() {
        // Computed with Python's hmac module:
        // hmac.new(bytes(32), b"" + (0).to_bytes(8, "big"), "sha256").digest()[:8]
        // = 0xf375180aba928884..., and that word % 20 + 1.
        let word: u64 = 0xf375_180a_ba92_8884;
        assert_eq!(roll_at(&PUBLIC_SEED, "", 0, 20), (word % 20) as u32 + 1);
    }

    #[test]
    fn commitment_is_sha256_hex_and_seeds_parse() {
        assert_eq!(
            commitment(&PUBLIC_SEED),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
        assert!(matches_commitment(
            &PUBLIC_SEED,
            "66687AADF862BD776C8FC18B8E9F8E20089714856EE233B3902A591D0D5F2925"
        ));
        assert_eq!(parse_seed(&"00".repeat(32)), Ok(PUBLIC_SEED));
        assert!(parse_seed("00").is_err());
        assert!(parse_seed(&"zz".repeat(32)).is_err());
    }

    #[test]
    fn debug_output_hides_the_seed() {
        let source = DiceSource::new([0xab; 32], "g");
        let text = format!("{source:?}");
        assert!(!text.contains("abab"), "{text}");
        assert!(text.contains(&commitment(&[0xab; 32])));
    }

    #[test]
    fn roll_records_check_themselves_against_the_seed() {
        let seed = [9u8; 32];
        let value = roll_at(&seed, "g", 3, 6);
        let mut record = RollRecord {
            index: 3,
            purpose: "damage".to_string(),
            dice: "d6".to_string(),
            value,
        };
        assert!(record.is_consistent_with(&seed, "g"));
        record.value = value % 6 + 1;
        assert!(!record.is_consistent_with(&seed, "g"));
        record.dice = "dx".to_string();
        assert!(!record.is_consistent_with(&seed, "g"));
    }
}
