//! The JSON snapshot every variant produces for clients: the boards with their shapes and
//! special squares, the pieces (with per-piece stats where a variant has them), whose turn it
//! is, the last action, pieces waiting off the board, the legal actions and the outcome.
//!
//! The browser client draws any variant from this alone, so everything a renderer needs is
//! data here, never a variant-specific rule in JavaScript.
//!
//! After each action a live game sends a [`SnapshotUpdate`] instead of a whole snapshot: the
//! boards never change during a game and most pieces stay where they were, so an update is a
//! tenth of the size, and a client brings its copy up to date by replacing data
//! ([`Snapshot::apply`]), still without any rule of its own.

use super::geometry::Coord;
use super::outcome::Outcome;
use super::types::{Color, Role};
use super::Variant;
use serde::{Deserialize, Serialize};
use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

/// The name of a board or square in a snapshot: usually static text shared by every snapshot
/// (`main`, `e4`: see [`crate::geometry::Coord::label`]), so naming each piece's square
/// on every move allocates nothing. A borrowed label is always the server's own text and needs
/// no JSON escape (no control character, `"` or `\`): the live game's event writer copies it
/// as it is, and checks this in debug builds. Anything spelled at run time is `Owned`.
pub type Label = Cow<'static, str>;

/// Everything a client needs to draw and play a position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub variant: Variant,
    /// The position in the variant's position notation.
    pub position: String,
    /// Every board of the variant, the main board first. The boards of a variant never
    /// change, so every snapshot shares one copy ([`shared_boards`]) instead of describing
    /// them afresh on each move.
    pub boards: Arc<[BoardSpec]>,
    /// Every piece on any board.
    pub pieces: Vec<PlacedPiece>,
    pub turn: Color,
    /// Plies played since the position this game started from.
    pub ply: u32,
    /// Shared with the game that made the snapshot, which keeps its last action behind the
    /// same `Arc`: a live game copies its state and takes a snapshot on every move, and each
    /// copy of the action's texts and squares was several allocations.
    pub last_action: Option<Arc<LastAction>>,
    /// Pieces that belong to the game but stand on no board (captured pieces waiting to
    /// return, pieces that may come back later…). Empty for most variants.
    pub off_board: Vec<OffBoardPiece>,
    /// Squares of kings that are in check now.
    pub check: Vec<SquareRef>,
    /// The legal actions of the side to move, in machine notation, sorted by byte order.
    pub legal_actions: Vec<Label>,
    /// Set once the game is over.
    pub outcome: Option<Outcome>,
}

/// One board: its size, labels, holes and marked zones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSpec {
    /// `main` for the main board; other boards have their own id (`duel`).
    pub id: String,
    pub files: u8,
    pub ranks: u8,
    /// Labels of the files, left to right from White's side (`a`, `b`, …).
    pub file_labels: Vec<Label>,
    /// Labels of the ranks, bottom to top from White's side (`1`, `2`, …).
    pub rank_labels: Vec<Label>,
    /// Squares inside the rectangle that do not exist.
    pub holes: Vec<String>,
    /// Squares with a special meaning, such as Chad's castles and walls.
    pub zones: Vec<Zone>,
    /// Whether squares alternate in colour (Chad's board is uncheckered).
    pub checkered: bool,
}

impl BoardSpec {
    /// A plain rectangular board with files from `a` and ranks from 1, checkered, no holes.
    pub fn rectangle(id: &str, files: u8, ranks: u8) -> BoardSpec {
        BoardSpec {
            id: id.to_string(),
            files,
            ranks,
            // Shared text: every move's snapshot describes its boards.
            file_labels: (0..files).map(Coord::file_label).collect(),
            rank_labels: (0..ranks).map(Coord::rank_label).collect(),
            holes: Vec::new(),
            zones: Vec::new(),
            checkered: true,
        }
    }
}

/// The boards of a variant, built by `build` on first use and shared by every snapshot after
/// that: a variant keeps them in a `static` cell of its own.
pub fn shared_boards(
    cell: &'static OnceLock<Arc<[BoardSpec]>>,
    build: impl FnOnce() -> Vec<BoardSpec>,
) -> Arc<[BoardSpec]> {
    Arc::clone(cell.get_or_init(|| build().into()))
}

/// Sorts action texts (owned strings or labels) by byte order, as `sort_unstable` on the
/// strings would, but comparing each text's first eight bytes as one precomputed number and
/// the whole texts only when those tie. Actions are short (`e2e4`, `l10l12`), and a snapshot
/// sorts every legal action of the position on every move of a live game: on Chad's board,
/// string comparisons were a sixth of the server's work.
pub fn sort_action_texts<T: AsRef<str>>(actions: &mut Vec<T>) {
    let mut keyed: Vec<(u64, T)> = actions
        .drain(..)
        .map(|text| (leading_bytes(text.as_ref()), text))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.as_ref().cmp(b.1.as_ref())));
    actions.extend(keyed.into_iter().map(|(_, text)| text));
}

/// The first eight bytes of `text`, zero-padded, as a big-endian number: ordered as the texts
/// are whenever they differ within those bytes (zero sorts first, as a shorter text does).
fn leading_bytes(text: &str) -> u64 {
    // Shifted in byte by byte: copying a short text into an array compiled to a call to
    // memcpy per action, an eighth of a Chad snapshot's time.
    let bytes = text.as_bytes();
    (0..8).fold(0, |word, i| {
        (word << 8) | u64::from(bytes.get(i).copied().unwrap_or(0))
    })
}

/// A named set of squares on one board, optionally owned by a colour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    /// What the zone is: `castle`, `wall`, …
    pub kind: String,
    pub color: Option<Color>,
    pub squares: Vec<String>,
}

/// A square on a particular board.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SquareRef {
    pub board: Label,
    pub square: Label,
}

impl SquareRef {
    /// A square of the main board.
    pub fn main(square: impl Into<Label>) -> SquareRef {
        SquareRef {
            board: Cow::Borrowed("main"),
            square: square.into(),
        }
    }
}

/// A piece standing on a board.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlacedPiece {
    pub board: Label,
    pub square: Label,
    pub color: Color,
    pub role: Role,
    /// Life points, armor and so on, for variants whose pieces have them.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stats: Option<PieceStats>,
    /// Extra marks a renderer may show: `frozen`, `returned`, `black_necklace`, `dyad`…
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub marks: Vec<Label>,
}

/// Combat figures of a piece (Davey Drehs).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PieceStats {
    pub life: u32,
    pub max_life: u32,
    /// Armor as it stands now (dyads and the king's absorbed armor included).
    pub armor: u32,
    /// Ear necklaces: added to every to-hit roll.
    pub ears: u32,
    /// The weapon dice, such as `d4` or `2d6`.
    pub weapon: Label,
}

/// A piece of the game that stands on no board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffBoardPiece {
    pub color: Color,
    pub role: Role,
    /// Why it is off the board: `dead`, `waiting`, …
    pub state: String,
}

/// The action that led to this position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LastAction {
    pub machine: String,
    pub human: String,
    /// Squares a renderer highlights (from, to, placement squares…).
    pub squares: Vec<SquareRef>,
    /// Dice rolled during the action, in order (Davey Drehs).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub rolls: Vec<Roll>,
    /// What the action did beyond moving a piece, one readable line each.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub effects: Vec<String>,
}

/// One die roll and what it was for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    /// What the roll decided: `to_hit`, `damage`, `counter_to_hit`, … (labels, like the
    /// squares: the game is copied, its last action with it, for every move tried.)
    pub purpose: Label,
    /// The dice: `d20`, `2d4`, …
    pub dice: Label,
    /// The total rolled.
    pub value: u32,
}

/// How one snapshot differs from the one before it in the same game: every field of
/// [`Snapshot`] except `variant` and `boards` (fixed for a game) and `pieces`, which come as
/// the squares that were emptied and the pieces that were placed or changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotUpdate {
    pub position: String,
    pub turn: Color,
    pub ply: u32,
    pub last_action: Option<Arc<LastAction>>,
    pub off_board: Vec<OffBoardPiece>,
    pub check: Vec<SquareRef>,
    pub legal_actions: Vec<Label>,
    pub outcome: Option<Outcome>,
    /// Squares that held a piece and are empty now.
    pub removed: Vec<SquareRef>,
    /// Pieces on squares that were empty or held something else before (another piece, or
    /// the same piece with other stats or marks). Each replaces whatever stood on its square.
    pub placed: Vec<PlacedPiece>,
}

/// The key a piece is found by: one piece stands on a square of a board.
fn square_of(piece: &PlacedPiece) -> (&str, &str) {
    (&piece.board, &piece.square)
}

/// [`square_of`] order, compared without a call to `memcmp` per label: labels are a few
/// bytes long (`main`, `e4`) and usually the very same static text, and sorting a position's
/// pieces on every move of a live game compares them a few hundred times.
fn square_order(a: &PlacedPiece, b: &PlacedPiece) -> Ordering {
    label_order(&a.board, &b.board).then_with(|| label_order(&a.square, &b.square))
}

/// Byte order of two labels, as `str::cmp` gives it.
fn label_order(a: &str, b: &str) -> Ordering {
    if std::ptr::eq(a, b) {
        return Ordering::Equal;
    }
    for (x, y) in a.bytes().zip(b.bytes()) {
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

/// Puts pieces (or references to them) in [`square_order`] unless they are in it already:
/// the variants list a snapshot's pieces in that order (`squares_in_label_order`), and
/// sorting them anyway moved every piece's hundred-odd bytes about, 3% of the server's work
/// on a Chad move.
fn sort_by_square<P: Borrow<PlacedPiece>>(pieces: &mut [P]) {
    if !in_square_order(pieces) {
        pieces.sort_unstable_by(|a, b| square_order(a.borrow(), b.borrow()));
    }
}

/// Whether `pieces` are in [`square_order`] already.
fn in_square_order<P: Borrow<PlacedPiece>>(pieces: &[P]) -> bool {
    pieces.is_sorted_by(|a, b| square_order(a.borrow(), b.borrow()) != Ordering::Greater)
}

fn square_ref(piece: &PlacedPiece) -> SquareRef {
    SquareRef {
        board: piece.board.clone(),
        square: piece.square.clone(),
    }
}

/// The pieces placed and the squares emptied going from `old` to `new`, both in square order:
/// one merge walk.
fn square_changes<'a>(
    old: impl Iterator<Item = &'a PlacedPiece>,
    new: &[PlacedPiece],
) -> (Vec<PlacedPiece>, Vec<SquareRef>) {
    let mut placed = Vec::new();
    let mut removed = Vec::new();
    let (mut old, mut new) = (old.peekable(), new.iter().peekable());
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(o), Some(n)) => square_order(o, n),
        };
        match order {
            // A square emptied.
            Ordering::Less => removed.extend(old.next().map(square_ref)),
            // A square filled.
            Ordering::Greater => placed.extend(new.next().cloned()),
            Ordering::Equal => {
                if let (Some(o), Some(n)) = (old.next(), new.next()) {
                    if o != n {
                        placed.push(n.clone());
                    }
                }
            }
        }
    }
    (placed, removed)
}

impl Snapshot {
    /// Splits this snapshot into the update from a position whose pieces were `previous`, and
    /// this snapshot's own pieces in square order (the `previous` of the next update).
    ///
    /// Both piece lists are walked once in square order (each is sorted here unless it
    /// already is, as the pieces this returns are): a few dozen string comparisons, cheaper
    /// than hashing every piece on each move of a live game.
    pub fn into_update(mut self, previous: &[PlacedPiece]) -> (SnapshotUpdate, Vec<PlacedPiece>) {
        sort_by_square(&mut self.pieces);
        // The pieces kept from the last update are already in order (every variant lists them
        // so): walked as they are, with no sorted copy.
        let (placed, removed) = if in_square_order(previous) {
            square_changes(previous.iter(), &self.pieces)
        } else {
            let mut before: Vec<&PlacedPiece> = previous.iter().collect();
            sort_by_square(&mut before);
            square_changes(before.into_iter(), &self.pieces)
        };
        let update = SnapshotUpdate {
            position: self.position,
            turn: self.turn,
            ply: self.ply,
            last_action: self.last_action,
            off_board: self.off_board,
            check: self.check,
            legal_actions: self.legal_actions,
            outcome: self.outcome,
            removed,
            placed,
        };
        (update, self.pieces)
    }

    /// Brings this snapshot up to date with the next update of its game (what a client does;
    /// `static/game.js` does the same). Pieces keep their order; placed ones go last.
    pub fn apply(&mut self, update: &SnapshotUpdate) {
        let replaced: HashSet<(&str, &str)> = update
            .removed
            .iter()
            .map(|s| (&*s.board, &*s.square))
            .chain(update.placed.iter().map(square_of))
            .collect();
        self.pieces
            .retain(|piece| !replaced.contains(&square_of(piece)));
        self.pieces.extend(update.placed.iter().cloned());
        self.position.clone_from(&update.position);
        self.turn = update.turn;
        self.ply = update.ply;
        self.last_action.clone_from(&update.last_action);
        self.off_board.clone_from(&update.off_board);
        self.check.clone_from(&update.check);
        self.legal_actions.clone_from(&update.legal_actions);
        self.outcome = update.outcome;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_texts_sort_as_strings_do() {
        let texts = [
            "l12l10",
            "a10a12",
            "a1a2",
            "a2a1",
            "e7e8q",
            "e7e8",
            "pass",
            "return:e1",
            "a",
            "",
            "b1xc3",
            "b1@c3xd4",
            "a1a2a3a4a5",
            "a1a2a3a4a4",
            "a1a2a3a4",
            "x1y2>c3",
            "a\u{0}b",
        ];
        let mut ours: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        let mut expected = ours.clone();
        sort_action_texts(&mut ours);
        expected.sort_unstable();
        assert_eq!(ours, expected);
        // Labels sort the same, borrowed or owned.
        let mut labels: Vec<Label> = texts
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                if i % 2 == 0 {
                    Cow::Borrowed(t)
                } else {
                    Cow::Owned(t.to_string())
                }
            })
            .collect();
        sort_action_texts(&mut labels);
        assert_eq!(labels, expected);
    }

    #[test]
    fn labels_compare_as_their_bytes_do() {
        let labels = [
            "", "a", "a1", "a10", "a2", "b1", "duel", "main", "X", "e4", "castle", "castles",
        ];
        for a in labels {
            for b in labels {
                // A copy, so that equal labels are not always the same text in memory.
                let copy: String = b.chars().collect();
                assert_eq!(label_order(a, &copy), a.cmp(b), "{a} vs {b}");
                assert_eq!(label_order(a, b), a.cmp(b), "{a} vs {b}");
            }
        }
    }
}
