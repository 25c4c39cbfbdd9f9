//! Bitboards and attack tables for 8x8 boards: the Suicide engine's position, and Davey
//! Drehs' move search.
//!
//! A bitboard is a `u64` with bit `rank * 8 + file` set for each square of a set (a1 = bit 0,
//! h1 = bit 7, h8 = bit 63). Leaper tables (knight, king, pawn) are `const`, computed at compile
//! time. Sliding attacks use "fancy" magic bitboards: the relevant blockers of a square are
//! multiplied by a magic number whose top bits index a per-square slice of one shared table.
//! The magic numbers below were found by `tests::find_magics` (run it with `--ignored` to
//! regenerate them); the table itself is filled once, on first use, behind a
//! [`std::sync::OnceLock`], because filling ~107,000 entries is too slow for `const` evaluation.

use crate::geometry::{DIAGONAL, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL};
use std::sync::OnceLock;

/// The a-file.
pub const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The h-file.
pub const FILE_H: u64 = FILE_A << 7;
/// Rank 1.
pub const RANK_1: u64 = 0xff;
/// Rank 8.
pub const RANK_8: u64 = RANK_1 << 56;
/// Rank 3: where White's pawns stand after a single step, ready for the second one.
pub const RANK_3: u64 = RANK_1 << 16;
/// Rank 6: the same for Black.
pub const RANK_6: u64 = RANK_1 << 40;

/// The bitboard of one square.
#[inline(always)]
pub const fn bit(square: u8) -> u64 {
    1u64 << square
}

/// Mirrors a bitboard in the a1-h8 diagonal: the bit of (file f, rank r) moves to (file r,
/// rank f), so iterating the result lowest first visits the original squares file by file.
pub fn flip_diagonal(mut bits: u64) -> u64 {
    let mut t = 0x0f0f_0f0f_0000_0000 & (bits ^ (bits << 28));
    bits ^= t ^ (t >> 28);
    t = 0x3333_0000_3333_0000 & (bits ^ (bits << 14));
    bits ^= t ^ (t >> 14);
    t = 0x5500_5500_5500_5500 & (bits ^ (bits << 7));
    bits ^ t ^ (t >> 7)
}

/// Iterates over the squares of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub struct Squares(pub u64);

impl Iterator for Squares {
    type Item = u8;

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let square = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(square)
    }
}

/// Attacks of a leaper from `square`, given its `(file, rank)` steps.
const fn leaper(square: u8, steps: &[(i8, i8)]) -> u64 {
    let file = (square % 8) as i8;
    let rank = (square / 8) as i8;
    let mut attacks = 0;
    let mut i = 0;
    while i < steps.len() {
        let f = file + steps[i].0;
        let r = rank + steps[i].1;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            attacks |= 1u64 << (r * 8 + f);
        }
        i += 1;
    }
    attacks
}

const fn leaper_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        table[square] = leaper(square as u8, steps);
        square += 1;
    }
    table
}

/// Knight attacks from each square.
pub const KNIGHT_ATTACKS: [u64; 64] = leaper_table(&KNIGHT_LEAPS);
/// King attacks from each square.
pub const KING_ATTACKS: [u64; 64] = leaper_table(&KING_STEPS);
/// Pawn capture targets from each square, White's (index 0) then Black's (index 1).
pub const PAWN_ATTACKS: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

/// The squares a slider on `square` reaches along `directions`, each ray stopping at the
/// first square `stop` says yes to (that square included) or at the edge.
fn rays(square: u8, directions: &[(i8, i8)], stop: impl Fn(i16, i16) -> bool) -> u64 {
    let mut reached = 0;
    for &(df, dr) in directions {
        let mut file = i16::from(square % 8);
        let mut rank = i16::from(square / 8);
        loop {
            file += i16::from(df);
            rank += i16::from(dr);
            if !(0..8).contains(&file) || !(0..8).contains(&rank) {
                break;
            }
            reached |= 1u64 << (rank * 8 + file);
            if stop(file, rank) {
                break;
            }
        }
    }
    reached
}

/// Slider attacks found by walking rays square by square: the slow reference used to fill
/// the magic tables (and to test them).
pub fn slide(square: u8, occupied: u64, directions: &[(i8, i8)]) -> u64 {
    rays(square, directions, |file, rank| {
        occupied & (1u64 << (rank * 8 + file)) != 0
    })
}

/// The squares whose occupancy matters for a slider on `square`: its rays without the last
/// square of each (a piece on the board edge blocks nothing further).
pub fn relevant_blockers(square: u8, directions: &[(i8, i8)]) -> u64 {
    let mut mask = 0;
    for &direction in directions {
        let ray = rays(square, &[direction], |_, _| false);
        // The edge square is the ray's last: the highest bit for rays going up the board
        // (or along rank 1 eastwards), the lowest for the others.
        let edge = if direction.1 > 0 || (direction.1 == 0 && direction.0 > 0) {
            ray.checked_ilog2().map_or(0, |i| 1u64 << i)
        } else {
            ray & ray.wrapping_neg()
        };
        mask |= ray & !edge;
    }
    mask
}

/// Magic multipliers for rook attacks, per square (see `tests::find_magics`).
const ROOK_MAGICS: [u64; 64] = [
    0x2080_0020_8040_0010,
    0x00c0_0020_0140_1000,
    0x2100_1100_0840_2002,
    0x0880_0800_8104_1000,
    0x0200_0200_2004_1008,
    0x2300_0400_0801_0012,
    0x0c00_2830_0400_8201,
    0x0180_0100_0040_7a80,
    0x0168_8000_8040_0020,
    0x0010_4000_4020_1000,
    0x1001_0020_0100_1048,
    0x1001_0024_0810_0100,
    0x0801_0004_0801_0012,
    0x4001_0002_0900_0400,
    0x08a2_0004_c802_0001,
    0x2002_8011_4500_2280,
    0x0080_8600_2100_4200,
    0x0010_00c0_0940_2002,
    0x00b0_0020_0400_2800,
    0x100a_8080_1002_0800,
    0x8101_0100_0800_0410,
    0x0244_0080_0200_0480,
    0x0000_0400_1081_0208,
    0x2000_0200_0044_8534,
    0x4104_4004_8000_8033,
    0x0000_8101_0020_4000,
    0x0440_4309_0020_0010,
    0x4600_2409_0010_0100,
    0x0060_0800_8004_0080,
    0x0001_0003_0008_0400,
    0x0004_0844_0001_1002,
    0x0023_0402_0000_8041,
    0x0580_0500_4300_2080,
    0x0400_8040_0280_2008,
    0x0001_0020_0100_4010,
    0x1000_2009_0100_1000,
    0x4410_8008_0180_0c00,
    0xa012_0038_0600_1004,
    0x0020_1001_0400_8802,
    0x0004_8084_0200_0041,
    0x0010_4001_7089_8000,
    0x0080_5000_2000_4004,
    0x1040_4080_1202_0020,
    0x8010_0400_0800_4040,
    0x2001_0801_0011_0004,
    0x0000_0200_0400_8080,
    0x0021_0108_1004_0002,
    0x0800_008c_4302_0024,
    0x0000_8000_2100_5100,
    0x0070_2010_4000_8080,
    0x0000_d042_8200_6a00,
    0x0010_0144_0008_0240,
    0x0001_0801_1005_0100,
    0x0012_0008_1024_0600,
    0x0402_0008_0104_0200,
    0x0281_0010_8a00_4100,
    0x0050_8003_0010_2045,
    0x8208_2100_4012_0882,
    0x8010_6001_0118_3441,
    0x020b_0009_1000_6045,
    0x0241_0010_0248_0005,
    0x0081_0004_0088_0241,
    0x0000_0090_0802_4124,
    0x0048_1229_8041_0402,
];

/// Magic multipliers for bishop attacks, per square (see `tests::find_magics`).
const BISHOP_MAGICS: [u64; 64] = [
    0x0848_0208_2204_0013,
    0x8010_a400_8582_1200,
    0x0008_0084_3084_0822,
    0x0808_0481_0804_0000,
    0x1304_0421_0000_8104,
    0x5001_0120_1020_4023,
    0x8104_8801_b820_0420,
    0x200a_0080_8401_2000,
    0x0040_1020_0104_2084,
    0x840a_5050_4242_8020,
    0x0000_7001_0220_2920,
    0x4410_1c0c_1080_0002,
    0x0040_0404_2200_0000,
    0x0180_0208_0209_0202,
    0x4020_0208_1104_1202,
    0x0001_0430_8c04_2000,
    0x4140_6610_0242_4400,
    0x0028_0120_0801_0460,
    0x0188_0621_0200_2a00,
    0x0014_0048_4010_2008,
    0x0105_0002_9040_0002,
    0x8001_0222_0041_0400,
    0x104a_0419_1801_3446,
    0x008a_0000_8200_8238,
    0x04a0_0600_0810_0430,
    0x0008_2200_0882_0801,
    0x2508_0412_0800_5010,
    0x4008_0802_0020_2020,
    0x2441_0010_1300_4000,
    0x0030_0080_6040_7000,
    0x4008_1080_0042_0800,
    0x0012_0210_5029_0100,
    0x0210_0804_8220_0500,
    0xcc01_1120_4810_0480,
    0x0020_4028_0650_0440,
    0x0004_8e00_8058_0080,
    0x0040_1020_2002_0080,
    0x0028_0104_4008_0807,
    0x4601_0411_0800_8800,
    0x8040_810e_0410_4200,
    0x9012_1011_0400_088a,
    0xa003_0802_1208_1050,
    0x00c1_0040_4840_1004,
    0x9000_00a0_1440_0800,
    0x0008_0210_4040_5401,
    0x4020_0082_0600_2090,
    0x0004_1904_2403_0100,
    0x0424_008a_0202_6250,
    0x8004_0882_5090_0040,
    0x1c00_4300_88a0_4200,
    0x0001_0200_9404_0001,
    0x8040_2100_2088_0061,
    0x2010_0404_5044_2032,
    0x0800_8408_5004_4001,
    0x0004_0408_0214_0004,
    0x0004_080a_0422_2020,
    0x8088_8021_1002_2000,
    0x1081_a104_1611_4400,
    0x0205_010a_2406_0820,
    0x0000_0007_2041_1080,
    0x1008_0002_0843_0400,
    0x580c_0260_2881_0840,
    0x8020_2044_1020_a110,
    0x12c0_0224_0102_0018,
];

/// Where one square's slice of the shared slider table lives and how to index it.
#[derive(Clone, Copy, Debug, Default)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

impl Magic {
    #[inline(always)]
    fn index(&self, occupied: u64) -> usize {
        self.offset + ((occupied & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

/// The slider tables: one [`Magic`] per square and piece kind, and the shared attack table.
pub struct SliderTables {
    rook: [Magic; 64],
    bishop: [Magic; 64],
    attacks: Vec<u64>,
}

impl SliderTables {
    /// Rook attacks from `square` with the given occupancy.
    #[inline(always)]
    pub fn rook(&self, square: u8, occupied: u64) -> u64 {
        self.attacks[self.rook[usize::from(square)].index(occupied)]
    }

    /// Bishop attacks from `square` with the given occupancy.
    #[inline(always)]
    pub fn bishop(&self, square: u8, occupied: u64) -> u64 {
        self.attacks[self.bishop[usize::from(square)].index(occupied)]
    }

    /// Queen attacks from `square` with the given occupancy.
    #[inline(always)]
    pub fn queen(&self, square: u8, occupied: u64) -> u64 {
        self.rook(square, occupied) | self.bishop(square, occupied)
    }

    fn build() -> SliderTables {
        let mut attacks = Vec::with_capacity(108_000);
        let rook = fill(&mut attacks, &ROOK_MAGICS, &ORTHOGONAL);
        let bishop = fill(&mut attacks, &BISHOP_MAGICS, &DIAGONAL);
        SliderTables {
            rook,
            bishop,
            attacks,
        }
    }
}

/// Appends the attack slices of one slider kind to `attacks` and returns the per-square
/// indexing data.
fn fill(attacks: &mut Vec<u64>, magics: &[u64; 64], directions: &[(i8, i8)]) -> [Magic; 64] {
    let mut out = [Magic::default(); 64];
    for (square, entry) in (0u8..64).zip(out.iter_mut()) {
        let mask = relevant_blockers(square, directions);
        let bits = mask.count_ones();
        *entry = Magic {
            mask,
            magic: magics[usize::from(square)],
            shift: 64 - bits,
            offset: attacks.len(),
        };
        attacks.resize(attacks.len() + (1usize << bits), 0);
        // Walk every subset of the mask (the carry-rippler trick).
        let mut subset = 0u64;
        loop {
            let index = entry.index(subset);
            attacks[index] = slide(square, subset, directions);
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
    }
    out
}

/// The slider tables, built on first use.
pub fn sliders() -> &'static SliderTables {
    static TABLES: OnceLock<SliderTables> = OnceLock::new();
    TABLES.get_or_init(SliderTables::build)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_diagonal_swaps_file_and_rank() {
        for square in 0..64u32 {
            let (file, rank) = (square % 8, square / 8);
            assert_eq!(
                flip_diagonal(1 << square),
                1 << (file * 8 + rank),
                "{square}"
            );
        }
        assert_eq!(flip_diagonal(u64::MAX), u64::MAX);
    }

    /// A xorshift generator for the magic search: deterministic, so reruns print the same
    /// numbers.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn sparse(&mut self) -> u64 {
            self.next() & self.next() & self.next()
        }
    }

    fn magic_for(square: u8, directions: &[(i8, i8)], rng: &mut XorShift) -> u64 {
        let mask = relevant_blockers(square, directions);
        let bits = mask.count_ones();
        let mut subsets = Vec::new();
        let mut subset = 0u64;
        loop {
            subsets.push((subset, slide(square, subset, directions)));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }
        let mut used = vec![0u64; 1 << bits];
        'search: loop {
            let magic = rng.sparse();
            if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                continue;
            }
            used.iter_mut().for_each(|u| *u = 0);
            for &(occupied, attacks) in &subsets {
                let index = (occupied.wrapping_mul(magic) >> (64 - bits)) as usize;
                if used[index] == 0 {
                    used[index] = attacks;
                } else if used[index] != attacks {
                    continue 'search;
                }
            }
            return magic;
        }
    }

    #[test]
    #[ignore = "prints the magic numbers; run by hand to regenerate the constants"]
    fn find_magics() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for (name, directions) in [("ROOK", ORTHOGONAL), ("BISHOP", DIAGONAL)] {
            println!("const {name}_MAGICS: [u64; 64] = [");
            for square in 0..64 {
                println!("    {:#018x},", magic_for(square, &directions, &mut rng));
            }
            println!("];");
        }
    }

    #[test]
    fn magic_lookups_match_ray_walking_for_many_occupancies() {
        let tables = sliders();
        let mut rng = XorShift(12345);
        for square in 0..64u8 {
            for _ in 0..200 {
                let occupied = rng.next() & rng.next();
                assert_eq!(
                    tables.rook(square, occupied),
                    slide(square, occupied, &ORTHOGONAL)
                );
                assert_eq!(
                    tables.bishop(square, occupied),
                    slide(square, occupied, &DIAGONAL)
                );
            }
        }
    }

    #[test]
    fn leaper_tables_have_the_expected_sizes() {
        assert_eq!(KNIGHT_ATTACKS[0].count_ones(), 2);
        assert_eq!(KNIGHT_ATTACKS[27].count_ones(), 8);
        assert_eq!(KING_ATTACKS[0].count_ones(), 3);
        assert_eq!(PAWN_ATTACKS[0][8], bit(17));
        assert_eq!(PAWN_ATTACKS[1][15], bit(6));
        assert_eq!(Squares(0b1010).collect::<Vec<_>>(), [1, 3]);
    }
}
