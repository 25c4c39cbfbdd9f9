//! Duel Chess's Main board as bitmaps, for the move search and the king-safety tests.
//!
//! Every snapshot lists the side to move's legal actions, and every candidate move that may
//! uncover the king is tried and tested for check: walking the [`Mailbox`] for that (every
//! enemy man, then its rays) was a fifth of the server's work on a Duel Chess move. Here each
//! colour and each role is a `u64` of cell indexes (`rank * 5 + file`, as the mailbox's; the
//! hole's bit is never set), the leaps and pawn captures of each square are tables, and a
//! square is tested for attack from the square outwards: the leapers' tables against the
//! enemy's men of that role, and each ray to its first man.
//!
//! The tables are built from the same board shape and step lists as [`super::moves`], which
//! the Duel board and the explanations of illegal actions still use. A unit test checks every
//! square's attacks against walking the board with it over random games, and the rules tests'
//! independent reference generator checks the legal lists.

use super::moves::{dabbabah_landing, pawn_forward, Landing, DABBABAH_LEAPS};
use super::{main_shape, Man, MAIN_CELLS, MAIN_SQUARES};
use crate::geometry::{set_bits, Coord, Mailbox, DIAGONAL, KING_STEPS, KNIGHT_LEAPS, ORTHOGONAL};
use crate::types::{Color, Piece, Role};
use std::sync::LazyLock;

/// Cells of the Main board's rectangle (the hole's included), numbered by [`MAIN_SQUARES`].
const CELLS: usize = MAIN_CELLS;
/// The Main board's files: a cell's index is `rank * FILES + file`.
const FILES: usize = 5;
/// The longest ray on a 5x7 board (a1 to a7).
const MAX_RAY: usize = 6;

/// The squares a slider passes from one square in one direction, nearest first, up to the
/// edge or the hole.
#[derive(Clone, Copy, Default)]
struct Ray {
    cells: [u8; MAX_RAY],
    len: u8,
}

impl Ray {
    fn cells(&self) -> &[u8] {
        self.cells.get(..usize::from(self.len)).unwrap_or_default()
    }
}

/// Each square's leaps, pawn steps and rays, computed once.
struct Tables {
    knight: [u64; CELLS],
    king: [u64; CELLS],
    dabbabah: [u64; CELLS],
    /// By colour (White first): the squares a pawn on the square captures on.
    pawn_captures: [[u64; CELLS]; 2],
    /// By colour: the square a pawn on the square steps to (a single bit, or none).
    pawn_step: [[u64; CELLS]; 2],
    /// The rook's four lines from the square, in [`ORTHOGONAL`]'s order.
    orthogonal_rays: [[Ray; 4]; CELLS],
    /// The bishop's four lines from the square, in [`DIAGONAL`]'s order.
    diagonal_rays: [[Ray; 4]; CELLS],
    /// Every square of the board.
    board: u64,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let shape = main_shape();
    let leaps = |from: Coord, steps: &[(i8, i8)]| {
        steps
            .iter()
            .filter_map(|&(df, dr)| shape.step(from, df, dr))
            .fold(0u64, |bits, to| bits | bit(shape.index(to)))
    };
    let mut tables = Tables {
        knight: [0; CELLS],
        king: [0; CELLS],
        dabbabah: [0; CELLS],
        pawn_captures: [[0; CELLS]; 2],
        pawn_step: [[0; CELLS]; 2],
        orthogonal_rays: [[Ray::default(); 4]; CELLS],
        diagonal_rays: [[Ray::default(); 4]; CELLS],
        board: 0,
    };
    for from in shape.squares() {
        let cell = shape.index(from);
        tables.board |= bit(cell);
        let (Some(knight), Some(king), Some(dabbabah), Some(orthogonal), Some(diagonal)) = (
            tables.knight.get_mut(cell),
            tables.king.get_mut(cell),
            tables.dabbabah.get_mut(cell),
            tables.orthogonal_rays.get_mut(cell),
            tables.diagonal_rays.get_mut(cell),
        ) else {
            continue;
        };
        *knight = leaps(from, &KNIGHT_LEAPS);
        *king = leaps(from, &KING_STEPS);
        *dabbabah = DABBABAH_LEAPS
            .iter()
            .filter_map(|&(df, dr)| dabbabah_landing(&shape, from, df, dr))
            .fold(0, |bits, to| bits | bit(shape.index(to)));
        let lines = orthogonal
            .iter_mut()
            .zip(ORTHOGONAL.iter())
            .chain(diagonal.iter_mut().zip(DIAGONAL.iter()));
        for (ray, &(df, dr)) in lines {
            for (slot, to) in ray.cells.iter_mut().zip(shape.ray(from, df, dr)) {
                *slot = shape.index(to) as u8;
                ray.len += 1;
            }
        }
        for color in Color::ALL {
            let forward = pawn_forward(color);
            let side = color.index();
            if let Some(captures) = tables
                .pawn_captures
                .get_mut(side)
                .and_then(|t| t.get_mut(cell))
            {
                *captures = leaps(from, &[(-1, forward), (1, forward)]);
            }
            if let Some(step) = tables.pawn_step.get_mut(side).and_then(|t| t.get_mut(cell)) {
                *step = leaps(from, &[(0, forward)]);
            }
        }
    }
    tables
});

fn bit(cell: usize) -> u64 {
    1u64 << cell
}

/// A role's place among the bitmaps: its declaration order, below `Role::ALL.len()`.
fn role_index(role: Role) -> usize {
    role as usize
}

/// A Main board as bitmaps: who stands where, by colour and by role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MainBits {
    by_color: [u64; 2],
    by_role: [u64; Role::ALL.len()],
    /// Pawns that came back from the Duel board (they never double-step).
    returned: u64,
}

impl MainBits {
    const EMPTY: MainBits = MainBits {
        by_color: [0; 2],
        by_role: [0; Role::ALL.len()],
        returned: 0,
    };

    pub fn of(board: &Mailbox<Man>) -> MainBits {
        let mut bits = MainBits::EMPTY;
        for (cell, man) in board.cells().iter().enumerate().take(CELLS) {
            if let Some(man) = man {
                bits.put(cell, man.piece);
                if man.returned {
                    bits.returned |= bit(cell);
                }
            }
        }
        bits
    }

    fn put(&mut self, cell: usize, piece: Piece) {
        if let Some(color) = self.by_color.get_mut(piece.color.index()) {
            *color |= bit(cell);
        }
        if let Some(role) = self.by_role.get_mut(role_index(piece.role)) {
            *role |= bit(cell);
        }
    }

    /// Empties `cell`, whatever stood there.
    fn clear(&mut self, cell: usize) {
        let mask = !bit(cell);
        for bits in self.by_color.iter_mut().chain(self.by_role.iter_mut()) {
            *bits &= mask;
        }
    }

    fn color(&self, color: Color) -> u64 {
        self.by_color.get(color.index()).copied().unwrap_or(0)
    }

    fn role(&self, role: Role) -> u64 {
        self.by_role.get(role_index(role)).copied().unwrap_or(0)
    }

    fn occupied(&self) -> u64 {
        self.by_color.iter().fold(0, |all, bits| all | bits)
    }

    fn men(&self, color: Color, role: Role) -> u64 {
        self.color(color) & self.role(role)
    }

    /// The cell of `color`'s king, if it has one.
    pub fn king(&self, color: Color) -> Option<usize> {
        set_bits(self.men(color, Role::King)).next()
    }

    /// The role of the man on `cell`, if any.
    fn role_at(&self, cell: usize) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|&role| self.role(role) & bit(cell) != 0)
    }

    /// Every Main-board move of `us` that does not leave its king (on `king`, which
    /// `in_check` tells whether it is attacked now) attacked, as `emit(from, to, landing)`.
    /// `en_passant` is the square a pawn may take en passant on.
    pub fn legal_moves(
        &self,
        us: Color,
        en_passant: Option<Coord>,
        king: Option<usize>,
        in_check: bool,
        mut emit: impl FnMut(Coord, Coord, Landing),
    ) {
        for from in set_bits(self.color(us)) {
            let Some(role) = self.role_at(from) else {
                continue;
            };
            let (quiet, captures, en_passant) = self.destinations(from, role, us, en_passant);
            let moves = set_bits(quiet)
                .map(|to| (to, Landing::Quiet))
                .chain(set_bits(captures).map(|to| (to, Landing::Capture)))
                .chain(en_passant.map(|to| (to, Landing::EnPassant)));
            for (to, landing) in moves {
                let needs_check = in_check
                    || role == Role::King
                    || king.is_some_and(|king| {
                        super::Duel::may_uncover(
                            MAIN_SQUARES.square(king),
                            MAIN_SQUARES.square(from),
                            landing,
                        )
                    });
                let mover = Piece::new(us, role);
                if needs_check && self.exposes_king(from, to, landing, mover, king) {
                    continue;
                }
                emit(MAIN_SQUARES.square(from), MAIN_SQUARES.square(to), landing);
            }
        }
    }

    /// Where the man of `us` with `role` on `from` may move, king safety aside: the empty
    /// cells, the cells of enemy men other than the king (which a legal position never
    /// leaves en prise), and the en-passant cell if a pawn may take there.
    fn destinations(
        &self,
        from: usize,
        role: Role,
        us: Color,
        en_passant: Option<Coord>,
    ) -> (u64, u64, Option<usize>) {
        let tables = &*TABLES;
        let at = |table: &[u64; CELLS]| table.get(from).copied().unwrap_or(0);
        let occupied = self.occupied();
        let prey = self.color(us.other()) & !self.role(Role::King);
        let side = us.index();
        let leap = |targets: u64| (targets & !occupied, targets & prey, None);
        match role {
            Role::Knight => leap(at(&tables.knight)),
            Role::King => leap(at(&tables.king)),
            Role::Dabbabah => leap(at(&tables.dabbabah)),
            Role::Pawn => {
                let steps = tables.pawn_step.get(side);
                let step = |from: usize| steps.map_or(0, |t| t.get(from).copied().unwrap_or(0));
                let mut quiet = step(from) & !occupied;
                let start_rank = match us {
                    Color::White => 1,
                    Color::Black => 5,
                };
                if quiet != 0 && self.returned & bit(from) == 0 && from / FILES == start_rank {
                    quiet |= step(quiet.trailing_zeros() as usize) & !occupied;
                }
                let captures_from = tables.pawn_captures.get(side).map_or(0, at);
                let en_passant = en_passant
                    .and_then(|square| MAIN_SQUARES.of(square))
                    .filter(|&ep| captures_from & bit(ep) & !occupied != 0);
                (quiet, captures_from & prey, en_passant)
            }
            Role::Bishop | Role::Rook | Role::Queen => {
                let (mut quiet, mut captures) = (0, 0);
                let orthogonal = tables.orthogonal_rays.get(from);
                let diagonal = tables.diagonal_rays.get(from);
                let rays = orthogonal
                    .filter(|_| role != Role::Bishop)
                    .into_iter()
                    .chain(diagonal.filter(|_| role != Role::Rook))
                    .flatten();
                for ray in rays {
                    for &to in ray.cells() {
                        let to = bit(usize::from(to));
                        if to & occupied == 0 {
                            quiet |= to;
                            continue;
                        }
                        captures |= to & prey;
                        break;
                    }
                }
                (quiet, captures, None)
            }
        }
    }

    /// Whether moving `mover` from `from` to `to` (taking en passant if `landing` says so)
    /// leaves its king, on `king` before the move, attacked.
    fn exposes_king(
        &self,
        from: usize,
        to: usize,
        landing: Landing,
        mover: Piece,
        king: Option<usize>,
    ) -> bool {
        let victim = match landing {
            // The victim stands beside the start square, on the target's file.
            Landing::EnPassant => from - from % FILES + to % FILES,
            _ => to,
        };
        let mut after = *self;
        after.clear(victim);
        after.clear(from);
        after.put(to, mover);
        let king = if mover.role == Role::King {
            Some(to)
        } else {
            king
        };
        king.is_some_and(|king| after.attacked(king, mover.color.other()))
    }

    /// The empty squares, in cell order.
    pub fn empty_squares(&self) -> impl Iterator<Item = Coord> {
        let board = TABLES.board;
        set_bits(board & !self.occupied()).map(|cell| MAIN_SQUARES.square(cell))
    }

    /// A board with `piece` added on the empty cell of `square` (unchanged for a square off
    /// the board).
    pub fn with(&self, square: Coord, piece: Piece) -> MainBits {
        let mut after = *self;
        if let Some(cell) = MAIN_SQUARES.of(square) {
            after.put(cell, piece);
        }
        after
    }

    /// Whether any man of `by` attacks `target`.
    pub fn attacked(&self, target: usize, by: Color) -> bool {
        self.attacked_through(target, by, self.occupied())
    }

    /// Whether `color`'s king stands attacked (false without a king).
    pub fn king_attacked(&self, color: Color) -> bool {
        self.king(color)
            .is_some_and(|king| self.attacked(king, color.other()))
    }

    /// Whether `piece` put on the empty `square` would attack the enemy king, this board's
    /// men blocking its lines.
    pub fn drop_gives_check(&self, square: Coord, piece: Piece) -> bool {
        let Some(king) = self.king(piece.color.other()) else {
            return false;
        };
        let Some(from) = MAIN_SQUARES.of(square) else {
            return false;
        };
        let mut lone = MainBits::EMPTY;
        lone.put(from, piece);
        lone.attacked_through(king, piece.color, self.occupied() | bit(from))
    }

    /// Whether a man of `by` on this board attacks `target`, with `occupied` stopping the
    /// sliders. Each kind of attack is looked for from the target: the leaps and pawn
    /// captures are symmetric (a pawn of `by` captures on `target` from where a pawn of the
    /// other colour on `target` would capture).
    fn attacked_through(&self, target: usize, by: Color, occupied: u64) -> bool {
        let tables = &*TABLES;
        let at = |table: &[u64; CELLS]| table.get(target).copied().unwrap_or(0);
        let pawn_sources = tables.pawn_captures.get(by.other().index()).map_or(0, at);
        if at(&tables.knight) & self.men(by, Role::Knight) != 0
            || at(&tables.king) & self.men(by, Role::King) != 0
            || at(&tables.dabbabah) & self.men(by, Role::Dabbabah) != 0
            || pawn_sources & self.men(by, Role::Pawn) != 0
        {
            return true;
        }
        let queens = self.men(by, Role::Queen);
        let orthogonal = self.men(by, Role::Rook) | queens;
        let diagonal = self.men(by, Role::Bishop) | queens;
        if orthogonal | diagonal == 0 {
            return false;
        }
        let seen_along = |rays: &[[Ray; 4]; CELLS], sliders: u64| {
            sliders != 0
                && rays.get(target).is_some_and(|rays| {
                    rays.iter()
                        .any(|ray| first_man(ray, occupied) & sliders != 0)
                })
        };
        seen_along(&tables.orthogonal_rays, orthogonal)
            || seen_along(&tables.diagonal_rays, diagonal)
    }
}

/// The bit of the first occupied cell along `ray`, or 0.
fn first_man(ray: &Ray, occupied: u64) -> u64 {
    ray.cells()
        .iter()
        .map(|&c| bit(usize::from(c)))
        .find(|&b| b & occupied != 0)
        .unwrap_or(0)
}
