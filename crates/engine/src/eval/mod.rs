//! What the search asks of a variant beyond its rules: a static evaluation, which actions
//! are tactical (searched first and in quiescence), which are chance events, and a compact
//! key per action for the history table. One file per variant implements [`Evaluate`] on
//! the rules crate's position type; this module also reads placements out of the position
//! notation, the public state every player sees.

mod chad;
mod chazz;
mod drehs;
mod duel;
pub mod suicide;

use oddboard_rules::geometry::Coord;
use oddboard_rules::{Color, Piece, Role, Rules};

/// A variant as the search sees it.
pub trait Evaluate: Rules {
    /// The position's worth for the side to act, in centipawns of this variant.
    fn evaluate(&self) -> i32;

    /// [`Evaluate::evaluate`] given the legal actions and their tactical weights, which the
    /// search has at hand anyway: variants that read them override this to skip generating
    /// them again.
    fn evaluate_with(&self, actions: &[Self::Action], tactical: &[i32]) -> i32 {
        let _ = (actions, tactical);
        self.evaluate()
    }

    /// For each action, 0 when it is quiet, or a positive ordering weight when it is
    /// tactical (a capture: the more it is likely to win, the higher). One call per node, so
    /// a variant reads its board once.
    fn tactical(&self, actions: &[Self::Action]) -> Vec<i32>;

    /// Whether the side to act may stop capturing in quiescence ("stand pat"): false where
    /// the rules force a capture, as in Suicide.
    fn may_stand_pat(&self, tactical: &[i32]) -> bool {
        let _ = tactical;
        true
    }

    /// Whether the action's result depends on dice (Davey Drehs' attacks).
    fn is_chance(&self, action: &Self::Action) -> bool {
        let _ = action;
        false
    }

    /// The positions the chance action `action` can lead to, each with its chance in parts
    /// of the sum of all of them: a few groups of rolls, each standing for all the rolls that
    /// leave the same kind of result. Empty where the variant cannot tell, and the search
    /// plays the action once with dice of its own.
    fn outcomes(&self, action: &Self::Action) -> Vec<(u32, Self)> {
        let _ = action;
        Vec::new()
    }

    /// For the search's frontier: the worth, for the side to act, of playing the chance
    /// action `action`, reckoned from its dice's odds without rolling them (None where the
    /// variant cannot, and the search looks past the action).
    fn expected_after(&self, action: &Self::Action) -> Option<i32> {
        let _ = action;
        None
    }

    /// Whether the search may leave `action` out once another action of the node has been
    /// searched (at the root, from the second iteration on): an action that is almost never
    /// best and of which there are many, which would keep the search a ply shallower.
    fn is_skippable(&self, action: &Self::Action) -> bool {
        let _ = action;
        false
    }

    /// A small number naming the action's squares, for the history heuristic.
    fn action_key(&self, action: &Self::Action) -> u16;
}

/// Packs a coordinate (boards up to 16 files) into a byte.
pub(crate) fn coord_byte(c: Coord) -> u16 {
    u16::from(c.rank) * 16 + u16::from(c.file)
}

/// The key of a move from `from` to `to`.
pub(crate) fn squares_key(from: Coord, to: Coord) -> u16 {
    (coord_byte(from) << 8) | coord_byte(to)
}

/// The pieces of a board read from a FEN-like placement field.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    pub files: u8,
    pub ranks: u8,
    cells: Vec<Option<Piece>>,
}

impl Grid {
    /// Reads `placement` (ranks from the top, `/` between them, runs of empty squares as
    /// numbers, `*` for a hole) of a board of `files` by `ranks`. Unknown letters are empty.
    pub fn read(placement: &str, files: u8, ranks: u8) -> Grid {
        let mut cells = vec![None; usize::from(files) * usize::from(ranks)];
        for (row, text) in placement.split('/').enumerate() {
            let Some(rank) = usize::from(ranks).checked_sub(row + 1) else {
                break;
            };
            let mut file = 0usize;
            let mut run = 0usize;
            for ch in text.chars() {
                if let Some(digit) = ch.to_digit(10) {
                    run = run * 10 + digit as usize;
                    continue;
                }
                file += run;
                run = 0;
                if let Some(piece) = piece_of(ch) {
                    if file < usize::from(files) {
                        cells[rank * usize::from(files) + file] = Some(piece);
                    }
                }
                file += 1;
            }
        }
        Grid {
            files,
            ranks,
            cells,
        }
    }

    /// The placement field (the first word) of a position text, read.
    pub fn of_position(position: &str, files: u8, ranks: u8) -> Grid {
        Grid::read(position.split(' ').next().unwrap_or_default(), files, ranks)
    }

    pub fn get(&self, c: Coord) -> Option<Piece> {
        if c.file >= self.files || c.rank >= self.ranks {
            return None;
        }
        self.cells
            .get(usize::from(c.rank) * usize::from(self.files) + usize::from(c.file))
            .copied()
            .flatten()
    }

    /// Every piece with its square.
    pub fn pieces(&self) -> impl Iterator<Item = (Coord, Piece)> + '_ {
        let files = usize::from(self.files).max(1);
        self.cells.iter().enumerate().filter_map(move |(i, cell)| {
            let c = Coord::new((i % files) as u8, (i / files) as u8);
            cell.map(|piece| (c, piece))
        })
    }
}

/// The piece a placement letter stands for (upper case White).
fn piece_of(ch: char) -> Option<Piece> {
    let role = match ch.to_ascii_lowercase() {
        'p' => Role::Pawn,
        'n' => Role::Knight,
        'b' => Role::Bishop,
        'r' => Role::Rook,
        'q' => Role::Queen,
        'k' => Role::King,
        'd' => Role::Dabbabah,
        _ => return None,
    };
    let color = if ch.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    Some(Piece { color, role })
}

/// `value` counted for `color`, from the point of view of `side`.
pub(crate) fn signed(value: i32, color: Color, side: Color) -> i32 {
    if color == side {
        value
    } else {
        -value
    }
}

/// A capture's ordering weight: the most valuable victim first, the cheapest attacker first
/// among equal victims (MVV-LVA), always positive.
pub(crate) fn mvv_lva(victim: i32, attacker: i32) -> i32 {
    (victim * 16 - attacker / 16).max(1)
}
