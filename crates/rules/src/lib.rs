//! The pure rules engine: what is legal, what an action does and how a game ends, for every
//! Oddboard variant.
//!
//! Each variant is a module under [`variant`] with its own position type implementing
//! [`Rules`]; [`AnyGame`] dispatches over them by [`Variant`] id, so nothing above this layer
//! matches on a concrete variant. The engine does no I/O, reads no clock and owns no global
//! randomness: Davey Drehs' dice are an input derived from a seed the caller supplies.
//!
//! Layers above talk to the engine in text: position notation in and out, actions in each
//! variant's machine notation (and a human form for move lists), and a JSON [`Snapshot`].

pub mod bitboard;
pub mod dice;
pub mod error;
pub mod geometry;
pub mod history;
pub mod outcome;
#[cfg(feature = "openapi")]
pub mod schema;
pub mod snapshot;
pub mod types;
pub mod variant;

pub use error::{ActionError, IllegalAction, ParseActionError, ParsePositionError, PlayError};
pub use outcome::{EndReason, Outcome};
pub use snapshot::{Snapshot, SnapshotUpdate};
pub use types::{Color, Piece, Role};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The variants Oddboard knows. The string ids are stable: they are stored in the database and
/// used in the API, the CLI and URLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Suicide Chess, FICS rules.
    Suicide,
    /// Do-Or-Die Chazz (David Moeser), 8x5.
    Chazz,
    /// Duel Chess (Erez Schatz): 5x7 board with a hole plus a 3x3 Duel board.
    Duel,
    /// Davey Drehs' dice-combat chess ("Execute! the Game").
    Drehs,
    /// Chad (Christian Freeling), 12x12 with castles and walls.
    Chad,
}

impl Variant {
    /// Every variant, in a fixed order.
    pub const ALL: [Variant; 5] = [
        Variant::Suicide,
        Variant::Chazz,
        Variant::Duel,
        Variant::Drehs,
        Variant::Chad,
    ];

    /// The stable id.
    pub fn key(self) -> &'static str {
        match self {
            Variant::Suicide => "suicide",
            Variant::Chazz => "chazz",
            Variant::Duel => "duel",
            Variant::Drehs => "drehs",
            Variant::Chad => "chad",
        }
    }

    /// The name shown to people.
    pub fn display_name(self) -> &'static str {
        match self {
            Variant::Suicide => "Suicide Chess",
            Variant::Chazz => "Do-Or-Die Chazz",
            Variant::Duel => "Duel Chess",
            Variant::Drehs => "Davey Drehs",
            Variant::Chad => "Chad",
        }
    }

    /// Whether the variant rolls dice (and so takes a seed through [`AnyGame::set_dice`]).
    pub fn has_dice(self) -> bool {
        matches!(self, Variant::Drehs)
    }

    /// Whether the engine can play this variant in this build.
    pub fn is_playable(self) -> bool {
        AnyGame::start(self).is_ok()
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A variant id that is not one of [`Variant::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Variant::ALL.iter().map(|v| v.key()).collect();
        write!(
            f,
            "unknown variant `{}` (known: {})",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.key() == s)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// The rules of one variant, implemented by its position type.
///
/// A value is a whole game state: the position plus whatever history the rules need
/// (repetition counts, move counters, Davey Drehs' dice). [`Rules::legal_actions`] is the
/// single source of truth: every other question about legality is answered from it.
pub trait Rules: Clone + fmt::Debug + Send + Sync + 'static {
    /// One complete action: a move, a capture-and-place, an attack, a pass…
    type Action: Clone + PartialEq + fmt::Debug + Send;

    /// Which variant this is.
    const VARIANT: Variant;

    /// The standard start position.
    fn start() -> Self;

    /// Reads the variant's position notation.
    ///
    /// # Errors
    /// Text that is not a valid position of the variant.
    fn from_position(notation: &str) -> Result<Self, ParsePositionError>;

    /// Writes the variant's position notation.
    fn position(&self) -> String;

    /// The side to act.
    fn turn(&self) -> Color;

    /// Plies played since the start of the game (derived from the move counters of the
    /// position notation when the game started from one).
    fn ply(&self) -> u32;

    /// Every legal action of the side to act; empty once the game is over.
    fn legal_actions(&self) -> Vec<Self::Action>;

    /// Whether `action` is legal now: membership in [`Rules::legal_actions`].
    fn is_legal(&self, action: &Self::Action) -> bool {
        self.legal_actions().contains(action)
    }

    /// Plays `action`, or explains why it is illegal and leaves `self` unchanged.
    ///
    /// # Errors
    /// The action is not legal in this position.
    fn apply(&mut self, action: &Self::Action) -> Result<(), IllegalAction>;

    /// Plays `action` on an owned position, handing the position back unchanged on error.
    ///
    /// # Errors
    /// The action is not legal in this position.
    fn play(mut self, action: &Self::Action) -> Result<Self, PlayError<Self>> {
        match self.apply(action) {
            Ok(()) => Ok(self),
            Err(reason) => Err(PlayError {
                position: self,
                reason,
            }),
        }
    }

    /// The human notation of the action [`Rules::apply`] played last, as
    /// [`Rules::action_to_human`] wrote it in the position before (every variant works it out
    /// while applying, for its snapshot's last action, so a live game's move has it worked
    /// out once). None before the first action.
    fn last_action_human(&self) -> Option<String>;

    /// How the game ended, if it has.
    fn outcome(&self) -> Option<Outcome>;

    /// Reads an action in the variant's machine notation (variants may also accept the human
    /// form). Parsing checks syntax only; legality is [`Rules::apply`]'s business.
    ///
    /// # Errors
    /// Text that is not an action of the notation.
    fn parse_action(&self, text: &str) -> Result<Self::Action, ParseActionError>;

    /// The machine notation of an action.
    fn action_to_machine(&self, action: &Self::Action) -> String;

    /// The human notation of an action, read in this position (before it is played).
    fn action_to_human(&self, action: &Self::Action) -> String;

    /// The JSON snapshot for clients.
    fn snapshot(&self) -> Snapshot;

    /// Whether `color` could still possibly win (has mating material, or whatever the
    /// variant's win condition needs). Decides a flag fall: when the opponent of the flagged
    /// side cannot win, the game is drawn, as on FICS.
    fn can_win(&self, color: Color) -> bool {
        let _ = color;
        true
    }

    /// An action the server should play by itself because the rules force it and it involves
    /// no choice (Do-Or-Die Chazz's pass).
    fn forced_action(&self) -> Option<Self::Action> {
        None
    }

    /// A hash of the position, the same for equal positions in every run and build of the
    /// same code: search engines key their tables by it. The default hashes the position
    /// notation (FNV-1a, no random key); variants that keep a Zobrist key return it instead.
    fn hash(&self) -> u64 {
        fnv1a(self.position().as_bytes())
    }

    /// Sets the secret dice seed and the game id every later roll derives from (see
    /// [`dice`]). Variants without dice ignore it.
    fn set_dice(&mut self, _seed: [u8; 32], _game_id: &str) {}

    /// Plays an action taken from [`Rules::legal_actions`] of this very position. Variants
    /// override it to skip the legality check and the bookkeeping for clients (last action,
    /// notation) that [`Rules::apply`] does; the default simply applies.
    fn play_unchecked(&mut self, action: &Self::Action) {
        // An action from the legal list cannot be refused; if it were, the position is
        // unchanged and the perft count merely misses that branch.
        let _ = self.apply(action);
    }

    /// Counts the leaves of the legal-action tree `depth` plies deep. A finished position has
    /// no children. Variants may override this with something faster.
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let actions = self.legal_actions();
        if depth == 1 {
            return actions.len() as u64;
        }
        actions
            .iter()
            .map(|action| {
                let mut child = self.clone();
                child.play_unchecked(action);
                child.perft(depth - 1)
            })
            .sum()
    }
}

/// The 64-bit FNV-1a hash of `bytes`: fixed constants, so it is deterministic everywhere.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// An action that was played, in both notations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    pub machine: String,
    pub human: String,
}

/// A variant that exists but that this build of the engine cannot play yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedVariant(pub Variant);

impl fmt::Display for UnsupportedVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variant `{}` is not playable yet", self.0)
    }
}

impl std::error::Error for UnsupportedVariant {}

/// Why a game could not be set up from a variant id and a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    Unsupported(UnsupportedVariant),
    Position(ParsePositionError),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Unsupported(e) => e.fmt(f),
            SetupError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SetupError {}

/// Declares [`AnyGame`], one arm per playable variant, with methods that forward to the
/// variant's [`Rules`] implementation. Adding a variant is one line in the invocation below.
macro_rules! any_game {
    ($($name:ident => $ty:ty),* $(,)?) => {
        /// A game of any playable variant: the enum the layers above hold.
        // Variants differ in size, but a game is created once and then mutated in place
        // inside its actor, so boxing would only add an indirection to every call.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $($name($ty),)*
        }

        impl AnyGame {
            /// The start position of `variant`.
            ///
            /// # Errors
            /// The variant is not playable in this build.
            #[allow(unreachable_patterns)]
            pub fn start(variant: Variant) -> Result<AnyGame, UnsupportedVariant> {
                match variant {
                    $(Variant::$name => Ok(AnyGame::$name(<$ty as Rules>::start())),)*
                    _ => Err(UnsupportedVariant(variant)),
                }
            }

            /// A game of `variant` from a position in its notation.
            ///
            /// # Errors
            /// The variant is not playable, or the text is not a valid position.
            #[allow(unreachable_patterns)]
            pub fn from_position(variant: Variant, notation: &str) -> Result<AnyGame, SetupError> {
                match variant {
                    $(Variant::$name => <$ty as Rules>::from_position(notation)
                        .map(AnyGame::$name)
                        .map_err(SetupError::Position),)*
                    _ => Err(SetupError::Unsupported(UnsupportedVariant(variant))),
                }
            }

            /// Which variant this game is.
            pub fn variant(&self) -> Variant {
                match *self {
                    $(AnyGame::$name(_) => <$ty as Rules>::VARIANT,)*
                }
            }

            /// The position notation.
            pub fn position(&self) -> String {
                match *self {
                    $(AnyGame::$name(ref g) => g.position(),)*
                }
            }

            /// The side to act.
            pub fn turn(&self) -> Color {
                match *self {
                    $(AnyGame::$name(ref g) => g.turn(),)*
                }
            }

            /// Plies played since the start.
            pub fn ply(&self) -> u32 {
                match *self {
                    $(AnyGame::$name(ref g) => g.ply(),)*
                }
            }

            /// The legal actions in machine notation, sorted by byte order.
            pub fn legal_actions(&self) -> Vec<String> {
                let mut out: Vec<String> = match *self {
                    $(AnyGame::$name(ref g) => g
                        .legal_actions()
                        .iter()
                        .map(|a| g.action_to_machine(a))
                        .collect(),)*
                };
                snapshot::sort_action_texts(&mut out);
                out
            }

            /// Parses and plays an action; on error the game is unchanged.
            ///
            /// # Errors
            /// The text does not parse, or the action is illegal here.
            pub fn play(&mut self, text: &str) -> Result<Played, ActionError> {
                match *self {
                    $(AnyGame::$name(ref mut g) => {
                        let action = g.parse_action(text)?;
                        let machine = g.action_to_machine(&action);
                        g.apply(&action)?;
                        let human = g.last_action_human().unwrap_or_else(|| machine.clone());
                        Ok(Played { machine, human })
                    })*
                }
            }

            /// The human notation of an action, read in this position (before it is played);
            /// the machine notation for an action that is not legal here.
            ///
            /// # Errors
            /// The text does not parse.
            pub fn human_notation(&self, text: &str) -> Result<String, ParseActionError> {
                match *self {
                    $(AnyGame::$name(ref g) => {
                        let action = g.parse_action(text)?;
                        Ok(g.action_to_human(&action))
                    })*
                }
            }

            /// The end of the game, if reached.
            pub fn outcome(&self) -> Option<Outcome> {
                match *self {
                    $(AnyGame::$name(ref g) => g.outcome(),)*
                }
            }

            /// The JSON snapshot for clients.
            pub fn snapshot(&self) -> Snapshot {
                match *self {
                    $(AnyGame::$name(ref g) => g.snapshot(),)*
                }
            }

            /// Whether `color` could still possibly win.
            pub fn can_win(&self, color: Color) -> bool {
                match *self {
                    $(AnyGame::$name(ref g) => g.can_win(color),)*
                }
            }

            /// An action the rules force with no choice, in machine notation.
            pub fn forced_action(&self) -> Option<String> {
                match *self {
                    $(AnyGame::$name(ref g) => g.forced_action().map(|a| g.action_to_machine(&a)),)*
                }
            }

            /// Sets the dice seed and game id (a no-op for variants without dice).
            pub fn set_dice(&mut self, seed: [u8; 32], game_id: &str) {
                match *self {
                    $(AnyGame::$name(ref mut g) => g.set_dice(seed, game_id),)*
                }
            }

            /// Leaf count of the legal-action tree.
            pub fn perft(&self, depth: u32) -> u64 {
                match *self {
                    $(AnyGame::$name(ref g) => g.perft(depth),)*
                }
            }

            /// Leaf counts below each root action, sorted by the action's machine notation.
            pub fn perft_divide(&self, depth: u32) -> Vec<(String, u64)> {
                let mut out: Vec<(String, u64)> = match *self {
                    $(AnyGame::$name(ref g) => g
                        .legal_actions()
                        .iter()
                        .map(|a| {
                            let mut child = g.clone();
                            let count = match child.apply(a) {
                                Ok(()) => child.perft(depth.saturating_sub(1)),
                                Err(_) => 0,
                            };
                            (g.action_to_machine(a), count)
                        })
                        .collect(),)*
                };
                out.sort_unstable();
                out
            }
        }
    };
}

// One line per playable variant, in `Variant::ALL` order.
any_game! {
    Suicide => variant::suicide::Suicide,
    Chazz => variant::chazz::Chazz,
    Duel => variant::duel::Duel,
    Drehs => variant::drehs::Drehs,
    Chad => variant::chad::Chad,
}
