//! The lessons of the variant pages: for each rule a page explains, a real position in the
//! variant's own notation that the rules engine sets up, what the visitor is asked to try on
//! it, and how to tell that what they played shows the rule.
//!
//! A try is stateless: the client sends every action played since the lesson's start, and
//! [`try_lesson`] replays them all on a fresh game from the lesson's position. So the server
//! keeps nothing per visitor, a refused action changes nothing (the client keeps its list),
//! and Davey Drehs' dice come out the same on every replay: a position read from text plays
//! with the engine's public dice (`docs/rules/drehs.md`, "Dice"), starting at the roll index
//! the lesson's position names, so a try shows the same rolls each time. Nothing here knows
//! a rule: the engine decides what is legal; a lesson only reads the action it played.

use crate::rules::{AnyGame, Played, Snapshot, Variant};

/// At most this many actions in one try: every lesson makes its point in one or two, and a
/// replay of this many stays cheap in every variant.
pub const MAX_ACTIONS: usize = 16;

/// The longest action text a try accepts (every variant's longest machine action, a Davey
/// Drehs pawn declaring three pairs of pawns, is well under it).
pub const MAX_ACTION_LEN: usize = 64;

/// One action as it was played: what a lesson's test reads.
pub struct Step<'a> {
    pub machine: &'a str,
    pub human: &'a str,
    /// The engine's lines saying what the action did beyond its move (dice, placements…).
    pub effects: &'a [String],
}

/// One lesson: a position, a task, and the test that the task was done.
pub struct Lesson {
    pub variant: Variant,
    /// Stable within its variant: it is part of the try URL.
    pub id: &'static str,
    pub title: &'static str,
    /// What to try, shown beside the board.
    pub task: &'static str,
    /// The set-up, in the variant's position notation (`docs/rules/<variant>.md`).
    pub position: &'static str,
    /// An action that makes the lesson's point (its unit test plays it).
    pub example: &'static str,
    /// Whether an action played makes the point.
    pub shows: fn(&Step) -> bool,
    /// What the page says once the point is made.
    pub success: &'static str,
}

fn any_capture(step: &Step) -> bool {
    step.human.contains('x')
}

fn suicide_king_promotion(step: &Step) -> bool {
    step.machine.ends_with('k')
}

/// Black's capture of White's last man (Black's only legal move there).
fn suicide_last_man_taken(step: &Step) -> bool {
    step.machine == "b5a4"
}

fn chazz_backward(step: &Step) -> bool {
    step.machine == "d3d2"
}

fn chazz_pass(step: &Step) -> bool {
    step.machine == "pass"
}

fn chazz_self_destruct(step: &Step) -> bool {
    step.machine == "a1a0"
}

/// A promotion names its piece after the two squares: `e4e5r`.
fn chazz_promotion(step: &Step) -> bool {
    step.human.contains('=')
}

fn duel_dabbabah(step: &Step) -> bool {
    step.human.starts_with('D')
}

/// A Main-board capture names the Duel square its victim goes to after `@`.
fn duel_placement(step: &Step) -> bool {
    step.machine.contains('@')
}

/// A Duel-board capture names the Main square its capturer returns to after `>`.
fn duel_return(step: &Step) -> bool {
    step.machine.contains('>')
}

fn chad_king_move(step: &Step) -> bool {
    step.human.starts_with('K')
}

fn chad_promotion(step: &Step) -> bool {
    step.human.contains("=Q")
}

/// Where the piece that acts stands: the first square of a machine action.
fn after_first_square(machine: &str) -> &str {
    let mut chars = machine.char_indices().skip(1);
    let end = chars
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(machine.len(), |(i, _)| i);
    &machine[end..]
}

/// An attack with the dice: `d1xd7`, not a teleport (`g1@d6xe8`) or a cannon shot (`a1^a5`).
fn drehs_attack(step: &Step) -> bool {
    after_first_square(step.machine).starts_with('x')
}

fn drehs_teleport(step: &Step) -> bool {
    after_first_square(step.machine).starts_with('@')
}

fn drehs_cannon(step: &Step) -> bool {
    after_first_square(step.machine).starts_with('^')
}

/// A heal that gave life points back (a heal with nothing to heal only passes the turn).
fn drehs_heal(step: &Step) -> bool {
    step.machine.starts_with("heal:") && step.effects.iter().any(|e| e.contains("LP"))
}

fn drehs_return(step: &Step) -> bool {
    step.machine.starts_with("return:")
}

/// Every lesson, by variant in [`Variant::ALL`] order, each in the order its page shows them.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        variant: Variant::Suicide,
        id: "lose-everything",
        title: "Win by losing every man",
        task: "White has one man left, the pawn on a4, and it is Black's turn. Black can take it, so Black must: play the capture.",
        position: "4k3/8/8/1p6/P7/8/8/8 b - - 0 1",
        example: "b5a4",
        shows: suicide_last_man_taken,
        success: "Right: Black had to take White's last man, and a side with no men left has won. White wins.",
    },
    Lesson {
        variant: Variant::Suicide,
        id: "forced-capture",
        title: "You must capture",
        task: "White can take a black pawn, so a capture is all White may play: pick a pawn to take (only the pawn on e4 can move).",
        position: "rnbqkbnr/ppp1p1pp/8/3p1p2/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 3",
        example: "e4d5",
        shows: any_capture,
        success: "Right: a capture was possible, so you had to capture. Play on: whenever the side to move can take something, its board offers captures only.",
    },
    Lesson {
        variant: Variant::Suicide,
        id: "king-promotion",
        title: "A pawn may become a king",
        task: "Push your pawn from a7 to a8 and choose to promote it to a king.",
        position: "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        example: "a7a8k",
        shows: suicide_king_promotion,
        success: "Right: White now has two kings. A king is an ordinary man here: it can be captured, and there is no check.",
    },
    Lesson {
        variant: Variant::Chazz,
        id: "backward-pawn",
        title: "A pawn steps back",
        task: "The black knight on c5 attacks your pawn on d3. Step the pawn straight back to d2.",
        position: "2n1k3/8/3P4/8/4K3 w - - 0 1",
        example: "d3d2",
        shows: chazz_backward,
        success: "Right: a pawn may step one square straight back onto an empty square (it never captures that way), and now the knight no longer attacks it.",
    },
    Lesson {
        variant: Variant::Chazz,
        id: "promotion",
        title: "Promotion without a queen",
        task: "Push your pawn from e4 to e5 and choose what it becomes.",
        position: "k7/4P3/8/8/4K3 w - - 0 1",
        example: "e4e5r",
        shows: chazz_promotion,
        success: "Right: a pawn on the last rank becomes a rook, a bishop or a knight. There are no queens in this game.",
    },
    Lesson {
        variant: Variant::Chazz,
        id: "pass",
        title: "No stalemate: the pass",
        task: "White is not in check but has no move: every king step is attacked or blocked. Press Pass.",
        position: "8/8/6k1/7p/7K w - - 0 1",
        example: "pass",
        shows: chazz_pass,
        success: "Right: with no legal move and no check, White simply passes and Black moves again. In a real game the server plays the pass for you.",
    },
    Lesson {
        variant: Variant::Chazz,
        id: "self-destruct",
        title: "A pawn leaves the board",
        task: "Your pawn stands on a1, its own first rank. Step it backward off the board with the self-destruct button.",
        position: "4k3/8/8/8/P3K3 w - - 0 1",
        example: "a1a0",
        shows: chazz_self_destruct,
        success: "Right: a pawn on its own first rank may step off the board. It is gone for good, and the move counts as your turn.",
    },
    Lesson {
        variant: Variant::Duel,
        id: "dabbabah",
        title: "The Dabbabah jumps two squares",
        task: "Jump your Dabbabah from a1 over its own pawn to a3.",
        position: "dnkbr/pp1pp/5/2*2/5/PP1PP/DNKBR 3/3/3 w - - 0 1",
        example: "a1a3",
        shows: duel_dabbabah,
        success: "Right: the Dabbabah jumps exactly two squares along a rank or a file, over anything in between, but never across the hole at c4.",
    },
    Lesson {
        variant: Variant::Duel,
        id: "placement",
        title: "A capture goes to the Duel board",
        task: "Take the black pawn on a4 with your pawn on b3, then click the empty Duel square where the captured pawn should go.",
        position: "dnkbr/1p1pp/5/p1*2/1P3/P2PP/DNKBR 3/3/3 w - - 0 1",
        example: "b3a4@y2",
        shows: duel_placement,
        success: "Right: the captured pawn is not gone, you placed it on the Duel board. It stays frozen there until a white man joins it.",
    },
    Lesson {
        variant: Variant::Duel,
        id: "duel-capture",
        title: "A Duel-board capture and the return",
        task: "Both colours stand on the Duel board, so its men may move. Take the black pawn on Y3 with your knight on X1, then click the square of the Main board where the knight comes back.",
        position: "dnkbr/1p1pp/5/2*2/5/PP1PP/D1KBR 1p1/3/N2 w - - 0 1",
        example: "x1y3>c3",
        shows: duel_return,
        success: "Right: the pawn taken on the Duel board is dead for good, and your knight came back to the square you chose on the Main board.",
    },
    Lesson {
        variant: Variant::Chad,
        id: "king-castle",
        title: "The king stays in its castle",
        task: "Click your king on c3: it may step like a chess king or leap like a knight, but only onto squares of its own castle (the blue 3x3 square). Move it.",
        position: "12/12/7rrr2/7rkr2/7rrr2/12/12/4R7/12/2K9/12/R11 w - - 0 1",
        example: "c3d5",
        shows: chad_king_move,
        success: "Right: the king moved inside its castle. It can never stand on the wall or anywhere outside.",
    },
    Lesson {
        variant: Variant::Chad,
        id: "wall-capture",
        title: "Capturing from the wall",
        task: "Your rook on g9 stands on Black's wall. Take the black rook on h9, inside Black's castle.",
        position: "12/12/7rrr2/6Rrkr2/7rrr2/12/12/2RR8/2RKR7/2RRR7/12/12 w - - 0 1",
        example: "g9h9",
        shows: any_capture,
        success: "Right: a man on the enemy wall may take a man inside that castle, and your rook ended inside the castle, so it became a queen too.",
    },
    Lesson {
        variant: Variant::Chad,
        id: "promotion",
        title: "Promotion in the enemy castle",
        task: "Move your rook on a10 along the tenth rank into Black's castle, to the empty square h10.",
        position: "11r/12/R7rr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RR8/12/12 w - - 0 1",
        example: "a10h10",
        shows: chad_promotion,
        success: "Right: a rook that ends its move inside the enemy castle becomes a queen, and this one even gives check along the diagonal.",
    },
    Lesson {
        variant: Variant::Drehs,
        id: "attack",
        title: "An attack with the dice",
        task: "Attack the black pawn on d5 with your pawn on e4 and watch the dice.",
        position: "4k3/8/8/3p4/4P3/8/8/4K3 w - - - 0 1 0",
        example: "e4xd5",
        shows: drehs_attack,
        success: "Right: an attack rolls a d20 that must beat the target's armor, then the weapon's dice for damage. A kill moves the attacker in; a survivor strikes back.",
    },
    Lesson {
        variant: Variant::Drehs,
        id: "teleport",
        title: "The knight's teleport",
        task: "Click your knight on g1, switch on its teleport, and send it to any empty square (or teleport and attack at once).",
        position: "4k3/8/8/3p4/8/8/8/4K1N1 w - - - 0 1 0",
        example: "g1@c4",
        shows: drehs_teleport,
        success: "Right: a knight may jump to any empty square, but the jump leaves it with a single life point.",
    },
    Lesson {
        variant: Variant::Drehs,
        id: "cannon",
        title: "The rook's cannon",
        task: "Fire your rook's cannon from a1 at the black pawn on a5 (the move marked as a cannon shot).",
        position: "4k3/8/1n6/p7/8/8/8/R3K3 w - - - 0 1 0",
        example: "a1^a5",
        shows: drehs_cannon,
        success: "Right: the cannon hits from two to five squares away, never kills (the target keeps at least one life point), and splashes one point off every piece around the target.",
    },
    Lesson {
        variant: Variant::Drehs,
        id: "heal",
        title: "The king heals",
        task: "Your pawns on d2 and e2 are wounded. Press the king's heal button.",
        position: "4k3/8/8/8/8/8/3PP3/4K3 w - d2=1,e2=2 - 0 1 0",
        example: "heal:e1",
        shows: drehs_heal,
        success: "Right: the king spent the turn giving four life points back to every friendly piece around it, up to each one's maximum.",
    },
    Lesson {
        variant: Variant::Drehs,
        id: "bishop-return",
        title: "A bishop comes back",
        task: "Your bishop from c1 was killed earlier. Bring it back with its button.",
        position: "4k3/8/8/8/8/8/8/4K3 w - - c1 0 1 0",
        example: "return:c1",
        shows: drehs_return,
        success: "Right: the bishop is back on its home square with 3 life points and a black necklace. It may come back only once.",
    },
];

/// The lessons of one variant, in page order.
pub fn lessons_of(variant: Variant) -> impl Iterator<Item = &'static Lesson> {
    LESSONS.iter().filter(move |l| l.variant == variant)
}

/// The lesson `id` of `variant`.
pub fn find(variant: Variant, id: &str) -> Option<&'static Lesson> {
    lessons_of(variant).find(|l| l.id == id)
}

/// Why a try was refused. Nothing is kept, so nothing changes either way.
#[derive(Debug, PartialEq, Eq)]
pub enum TryError {
    TooManyActions,
    /// The action at this index (from 0) is longer than [`MAX_ACTION_LEN`].
    ActionTooLong(usize),
    /// The action at this index does not parse or is not legal there: the engine's reason.
    Illegal {
        index: usize,
        code: &'static str,
        message: String,
    },
    /// The lesson's own position does not set up: a fault of ours, which a test rules out.
    Setup(String),
}

/// Where a try ended.
pub struct Tried {
    pub game: AnyGame,
    /// The game's snapshot, taken once: the answer sends it and the lesson's test reads its
    /// last action's effects.
    pub snapshot: Snapshot,
    pub last: Option<Played>,
    /// Whether the last action made the lesson's point.
    pub shown: bool,
}

/// The lesson's start: its position, set up by the engine.
///
/// # Errors
/// The lesson's position does not parse (ruled out by the tests).
pub fn start(lesson: &Lesson) -> Result<AnyGame, TryError> {
    AnyGame::from_position(lesson.variant, lesson.position)
        .map_err(|e| TryError::Setup(e.to_string()))
}

/// Plays `actions` from the lesson's start.
///
/// # Errors
/// Too many or too long actions, or one the engine refuses.
pub fn try_lesson(lesson: &Lesson, actions: &[String]) -> Result<Tried, TryError> {
    if actions.len() > MAX_ACTIONS {
        return Err(TryError::TooManyActions);
    }
    if let Some(index) = actions.iter().position(|a| a.len() > MAX_ACTION_LEN) {
        return Err(TryError::ActionTooLong(index));
    }
    let mut game = start(lesson)?;
    let mut last = None;
    for (index, action) in actions.iter().enumerate() {
        let played = game.play(action).map_err(|e| TryError::Illegal {
            index,
            code: e.code(),
            message: e.to_string(),
        })?;
        last = Some(played);
    }
    let snapshot = game.snapshot();
    let shown = last.as_ref().is_some_and(|played| {
        let effects = snapshot
            .last_action
            .as_ref()
            .map_or(&[][..], |a| a.effects.as_slice());
        (lesson.shows)(&Step {
            machine: &played.machine,
            human: &played.human,
            effects,
        })
    });
    Ok(Tried {
        game,
        snapshot,
        last,
        shown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(lesson: &Lesson, actions: &[&str]) -> Tried {
        let actions: Vec<String> = actions.iter().map(|a| a.to_string()).collect();
        try_lesson(lesson, &actions)
            .unwrap_or_else(|e| panic!("{}/{}: {e:?}", lesson.variant, lesson.id))
    }

    #[test]
    fn every_lesson_sets_up_and_its_example_is_legal_and_makes_the_point() {
        for lesson in LESSONS {
            let name = format!("{}/{}", lesson.variant, lesson.id);
            let game = start(lesson).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert!(game.outcome().is_none(), "{name} starts finished");
            assert!(
                game.legal_actions().iter().any(|a| a == lesson.example),
                "{name}: {} is not legal in {}",
                lesson.example,
                lesson.position
            );
            let tried = played(lesson, &[lesson.example]);
            assert!(tried.shown, "{name}: its example does not make its point");
            assert!(tried.last.is_some());
            assert!(!lesson.success.is_empty() && !lesson.task.is_empty());
        }
    }

    #[test]
    fn a_legal_action_that_misses_the_point_is_not_shown() {
        // One ordinary action per lesson where one exists (the pass and the forced capture
        // have none: every legal action makes their point).
        let misses = [
            ("chazz", "backward-pawn", "e1f1"),
            ("chazz", "self-destruct", "a1a2"),
            ("chazz", "promotion", "e1d1"),
            ("suicide", "king-promotion", "a7a8q"),
            ("duel", "dabbabah", "b1c3"),
            ("drehs", "bishop-return", "heal:e1"),
            ("duel", "placement", "e2e3"),
            ("duel", "duel-capture", "x1z2"),
            ("chad", "king-castle", "a1a2"),
            ("chad", "wall-capture", "g9g8"),
            ("chad", "promotion", "a10g10"),
            ("drehs", "attack", "e4e5"),
            ("drehs", "teleport", "g1f3"),
            ("drehs", "cannon", "a1xa5"),
            ("drehs", "heal", "e1f1"),
        ];
        for (variant, id, action) in misses {
            let variant: Variant = variant.parse().unwrap_or_else(|e| panic!("{e}"));
            let lesson = find(variant, id).unwrap_or_else(|| panic!("{variant}/{id}"));
            let tried = played(lesson, &[action]);
            assert!(
                !tried.shown,
                "{variant}/{id}: {action} counted as the point"
            );
        }
    }

    #[test]
    fn the_forced_capture_offers_only_captures_and_refuses_a_quiet_move() {
        let lesson = find(Variant::Suicide, "forced-capture").unwrap_or_else(|| panic!("lesson"));
        let game = start(lesson).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(game.legal_actions(), ["e4d5", "e4f5"]);
        let refused = try_lesson(lesson, &["d2d4".to_string()]).err();
        assert!(
            matches!(
                refused,
                Some(TryError::Illegal {
                    index: 0,
                    code: "must_capture",
                    ..
                })
            ),
            "{refused:?}"
        );
        // Black must answer with a capture as well.
        let tried = played(lesson, &["e4f5"]);
        assert!(tried.game.legal_actions().iter().all(|a| {
            let human = tried.game.human_notation(a).unwrap_or_default();
            human.contains('x')
        }));
    }

    #[test]
    fn the_chazz_pass_is_the_only_action() {
        let lesson = find(Variant::Chazz, "pass").unwrap_or_else(|| panic!("lesson"));
        let game = start(lesson).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(game.legal_actions(), ["pass"]);
        let tried = played(lesson, &["pass"]);
        assert_eq!(tried.game.turn(), crate::rules::Color::Black);
    }

    #[test]
    fn the_chad_king_reaches_only_its_castle() {
        let lesson = find(Variant::Chad, "king-castle").unwrap_or_else(|| panic!("lesson"));
        let game = start(lesson).unwrap_or_else(|e| panic!("{e:?}"));
        let king: Vec<String> = game
            .legal_actions()
            .into_iter()
            .filter(|a| a.starts_with("c3"))
            .collect();
        assert_eq!(king, ["c3c4", "c3d3", "c3d4", "c3d5", "c3e4"]);
    }

    #[test]
    fn the_dice_of_a_try_are_the_same_every_time() {
        let lesson = find(Variant::Drehs, "attack").unwrap_or_else(|| panic!("lesson"));
        let rolls = || {
            let snapshot = played(lesson, &["e4xd5"]).snapshot;
            let last = snapshot
                .last_action
                .unwrap_or_else(|| panic!("no last action"));
            serde_json::to_string(&last.rolls).unwrap_or_default()
        };
        let first = rolls();
        assert!(
            first.contains("to_hit") && first.contains("damage"),
            "{first}"
        );
        assert_eq!(first, rolls());
    }

    #[test]
    fn a_heal_with_nothing_to_heal_is_not_the_point() {
        let lesson = find(Variant::Drehs, "heal").unwrap_or_else(|| panic!("lesson"));
        // After one heal the pawns are whole: the king's next heal (White's next turn) heals nothing.
        let tried = played(lesson, &["heal:e1", "e8d8", "heal:e1"]);
        assert!(!tried.shown);
    }

    #[test]
    fn refusals_name_the_action_and_change_nothing() {
        let lesson = find(Variant::Chazz, "backward-pawn").unwrap_or_else(|| panic!("lesson"));
        let too_many = vec!["pass".to_string(); MAX_ACTIONS + 1];
        assert_eq!(
            try_lesson(lesson, &too_many).err(),
            Some(TryError::TooManyActions)
        );
        let long = vec!["d3d2".to_string(), "x".repeat(MAX_ACTION_LEN + 1)];
        assert_eq!(
            try_lesson(lesson, &long).err(),
            Some(TryError::ActionTooLong(1))
        );
        for bad in ["d3d1", "zz", "", "d3d2q"] {
            let refused = try_lesson(lesson, &["d3d2".to_string(), bad.to_string()]);
            assert!(
                matches!(refused, Err(TryError::Illegal { index: 1, .. })),
                "{bad}: {:?}",
                refused.err()
            );
        }
        // The same try from scratch still works: nothing was kept.
        assert!(played(lesson, &["d3d2"]).shown);
    }

    #[test]
    fn lesson_ids_are_unique_within_a_variant_and_url_safe() {
        for lesson in LESSONS {
            assert_eq!(
                lessons_of(lesson.variant)
                    .filter(|l| l.id == lesson.id)
                    .count(),
                1,
                "{}",
                lesson.id
            );
            assert!(lesson
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'-'));
        }
        for variant in Variant::ALL {
            assert!(lessons_of(variant).count() > 0, "{variant} has no lesson");
        }
    }
}
