//! The computer opponent of Oddboard's five variants.
//!
//! [`Engine`] searches a game ([`search`]) over the rules crate's own legal actions, with an
//! evaluation per variant ([`eval`]); [`choose`] picks an action at a [`Level`]. Everything
//! the layers above see is text: actions and principal variations in the variant's machine
//! notation, positions in its position notation. The typed search is generic over
//! [`oddboard_rules::Rules`] and dispatched once per search by variant.

pub mod eval;
pub mod ladder;
pub mod level;
pub mod rng;
pub mod score;
pub mod search;
pub mod table;
pub mod uci;
pub mod versus;

#[cfg(test)]
mod tests;

pub use level::Level;
pub use score::Score;
pub use search::{Cancel, Limits, Style};

use eval::Evaluate;
use oddboard_rules::{AnyGame, Rules, SetupError, Variant};
use rng::XorShift;
use search::{Found, Searcher};
use table::Table;

/// Entries of an engine's transposition table, as a power of two (2^18 entries, a few MB).
pub(crate) const TABLE_BITS: u32 = 18;

/// What a search found, in text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The best action in machine notation; None when the game has no legal action.
    pub best: Option<String>,
    /// For the side to act.
    pub score: Score,
    /// The deepest iteration that finished (0 if none did).
    pub depth: u32,
    pub nodes: u64,
    /// The principal variation in machine notation, `best` first.
    pub pv: Vec<String>,
}

/// A searcher for one variant that keeps its transposition table between searches (a game,
/// or an analysis, moves by moves).
#[derive(Clone, Debug)]
pub struct Engine {
    variant: Variant,
    table: Table,
}

impl Engine {
    pub fn new(variant: Variant) -> Engine {
        Engine::with_table_bits(variant, TABLE_BITS)
    }

    /// An engine whose table has 2^`bits` entries (at most 2^26).
    pub fn with_table_bits(variant: Variant, bits: u32) -> Engine {
        Engine {
            variant,
            table: Table::new(bits),
        }
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Forgets what earlier searches learned (a new game).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Searches `game` within `limits` until done or `cancel` is set. A game of another
    /// variant than the engine's is searched all the same, with the table cleared first.
    pub fn search(&mut self, game: &AnyGame, limits: &Limits, cancel: &Cancel) -> SearchResult {
        self.search_styled(game, limits, cancel, Style::default())
    }

    /// [`Engine::search`] from a position in the variant's notation.
    ///
    /// # Errors
    /// The text is not a position of the engine's variant.
    pub fn search_position(
        &mut self,
        position: &str,
        limits: &Limits,
        cancel: &Cancel,
    ) -> Result<SearchResult, SetupError> {
        let game = AnyGame::from_position(self.variant, position)?;
        Ok(self.search(&game, limits, cancel))
    }

    /// [`Engine::search`] with a level's noise and seed.
    pub fn search_styled(
        &mut self,
        game: &AnyGame,
        limits: &Limits,
        cancel: &Cancel,
        style: Style,
    ) -> SearchResult {
        self.search_reporting(game, limits, cancel, style, &mut |_| {})
    }

    /// [`Engine::search_styled`] that tells `report` the result of every iteration that
    /// finishes (depth, score, nodes so far, line), as it finishes.
    pub fn search_reporting(
        &mut self,
        game: &AnyGame,
        limits: &Limits,
        cancel: &Cancel,
        style: Style,
        report: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        if game.variant() != self.variant {
            self.variant = game.variant();
            self.table.clear();
        }
        match game {
            AnyGame::Suicide(g) => self.run(g, limits, cancel, style, report),
            AnyGame::Chazz(g) => self.run(g, limits, cancel, style, report),
            AnyGame::Duel(g) => self.run(g, limits, cancel, style, report),
            AnyGame::Drehs(g) => self.run(g, limits, cancel, style, report),
            AnyGame::Chad(g) => self.run(g, limits, cancel, style, report),
        }
    }

    fn run<R: Evaluate>(
        &mut self,
        game: &R,
        limits: &Limits,
        cancel: &Cancel,
        style: Style,
        report: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        let mut typed = |found: &Found<R::Action>| report(&describe(game, found.clone()));
        let found = Searcher::new(&mut self.table, *limits, cancel, style)
            .reporting(&mut typed)
            .run(game);
        describe(game, found)
    }
}

/// A typed result in text: each action of the line written in the position it is played in.
fn describe<R: Rules>(game: &R, found: Found<R::Action>) -> SearchResult {
    let mut pv = Vec::with_capacity(found.pv.len());
    let mut position = game.clone();
    for action in &found.pv {
        if !position.is_legal(action) {
            break;
        }
        pv.push(position.action_to_machine(action));
        position.play_unchecked(action);
    }
    SearchResult {
        best: found.best.map(|a| game.action_to_machine(&a)),
        score: Score::from_internal(found.score),
        depth: found.depth,
        nodes: found.nodes,
        pv,
    }
}

/// The action the computer plays at `level` in `game`, in machine notation, or None when the
/// game has no legal action. The same seed, level and game give the same action whenever the
/// level's depth or node cap, not its time, ends the search.
pub fn choose(level: Level, game: &AnyGame, seed: u64) -> Option<String> {
    choose_within(level, game, seed, &level.limits(), &Cancel::new())
}

/// [`choose`] within other limits than the level's own (a clock, a test's node budget).
pub fn choose_within(
    level: Level,
    game: &AnyGame,
    seed: u64,
    limits: &Limits,
    cancel: &Cancel,
) -> Option<String> {
    if level.is_random() {
        let actions = game.legal_actions();
        let mut rng = XorShift::new(seed ^ oddboard_rules::fnv1a(game.position().as_bytes()));
        return actions.get(rng.below(actions.len())).cloned();
    }
    let mut engine = Engine::new(game.variant());
    engine
        .search_styled(game, limits, cancel, level.style(game.variant(), seed))
        .best
}
