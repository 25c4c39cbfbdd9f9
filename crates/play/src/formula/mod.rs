//! FICS-style formulas: a user's screen on the challenges and seeks they are offered
//! (`set formula rating > 1400 && !rated`) and their nine helper expressions `f1`..`f9`.
//!
//! This module owns the language (tokens, precedence, variables) and its evaluator; `parse`
//! holds the tokenizer and parser, `tests` the unit tests. Text is parsed once, when the user
//! sets it ([`Formula::parse`]); a challenge is judged by evaluating the stored trees against
//! a [`ChallengeContext`].
//!
//! The language, as in FICS `help formula`:
//! - integers, variables (see [`Var`]), `maxtime(n)` / `mymaxtime(n)`, `f1`..`f9`, parentheses;
//!   `N minutes` multiplies N by 60; `#` starts a comment that runs to the end of the line;
//! - operators, tightest first: `!` `-` `+` (unary); `*` `/`; `+` `-`;
//!   `<` `<=` `=<` `>` `>=` `=>`; `=` `==`; `!=` `<>`; `&` `&&` `and`; `|` `||` `or`.
//!   Comparisons and logic give 1 or 0; any non-zero value is true;
//! - integer arithmetic that saturates instead of overflowing; dividing by 0 divides by
//!   0.001 (multiplies by 1000), as FICS does.
//!
//! **f-variable direction.** `fN` may refer only to `f1`..`f(N-1)` (the FICS help's rule:
//! "f5 can refer to f2 but f5 cannot refer to f8"); the `formula` itself may refer to any of
//! them. Every reference points to a lower number, so a cycle cannot be built, and
//! `set f3 f3 + 1` or `set f2 f5` are refused with the position of the offending name. An
//! f-variable that is not set counts as true (like an empty formula).
//!
//! **Bounds.** Text over [`MAX_LEN`] bytes, more than [`MAX_NODES`] tree nodes or nesting
//! deeper than [`MAX_DEPTH`] is refused when set; numbers must fit in an `i64`. Evaluation
//! stops after [`MAX_STEPS`] nodes (f-variables are evaluated where they are used, so a chain
//! `f2 = f1+f1`, `f3 = f2+f2`… multiplies work); a formula that runs out of steps does not
//! accept the challenge. No input can make parsing or evaluation slow or deep.

mod parse;
#[cfg(test)]
mod tests;

use crate::rules::{Color, Variant};
use std::fmt;

/// Longest formula text, in bytes.
pub const MAX_LEN: usize = 1024;
/// Deepest nesting of parentheses and unary operators.
pub const MAX_DEPTH: usize = 32;
/// Most nodes in one parsed expression.
pub const MAX_NODES: usize = 512;
/// Most nodes visited in one evaluation, f-variables included.
pub const MAX_STEPS: u32 = 20_000;

/// The facts a formula is evaluated against: a proposed game seen by the formula's owner
/// ("me") against an opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChallengeContext {
    pub variant: Variant,
    pub rated: bool,
    /// Initial time in minutes (0 with 0 increment: no clock).
    pub time: i64,
    /// Increment in seconds.
    pub inc: i64,
    /// The opponent's rating in this variant (0 for guests, as on FICS).
    pub rating: i64,
    /// The owner's rating in this variant.
    pub myrating: i64,
    /// Whether the opponent has a registered account.
    pub registered: bool,
    /// The colour the owner would play, if one was asked for.
    pub my_color: Option<Color>,
}

/// The variables a formula can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Var {
    /// The opponent's rating.
    Rating,
    /// The formula owner's rating.
    MyRating,
    /// `rating - myrating`.
    RatingDiff,
    /// 1 for a rated game.
    Rated,
    /// 1 for an unrated game.
    Unrated,
    /// Initial minutes.
    Time,
    /// Increment seconds.
    Inc,
    /// 1 if the opponent is registered (not a guest).
    Registered,
    /// 1 for a game without a clock.
    Untimed,
    /// FICS speed classes by expected minutes `time + 2/3 inc`: lightning < 3 ≤ blitz < 15 ≤
    /// standard; an untimed game is none of them.
    Lightning,
    Blitz,
    Standard,
    /// 1 if the owner would play White, Black, or no colour was asked for.
    White,
    Black,
    NoColor,
    /// 1 if the game is of this variant (`suicide`, `chazz`, `duel`, `drehs`, `chad`).
    Variant(Variant),
}

impl Var {
    fn from_name(name: &str) -> Option<Var> {
        Some(match name {
            "rating" => Var::Rating,
            "myrating" => Var::MyRating,
            "ratingdiff" => Var::RatingDiff,
            "rated" => Var::Rated,
            "unrated" => Var::Unrated,
            "time" => Var::Time,
            "inc" => Var::Inc,
            "registered" => Var::Registered,
            "untimed" => Var::Untimed,
            "lightning" => Var::Lightning,
            "blitz" => Var::Blitz,
            "standard" => Var::Standard,
            "white" => Var::White,
            "black" => Var::Black,
            "nocolor" => Var::NoColor,
            other => return other.parse().ok().map(Var::Variant),
        })
    }

    fn value(self, ctx: &ChallengeContext) -> i64 {
        let untimed = ctx.time == 0 && ctx.inc == 0;
        // FICS's expected length, time + 2/3 inc minutes, in whole seconds: 60·time + 40·inc.
        let expected_s = ctx
            .time
            .saturating_mul(60)
            .saturating_add(ctx.inc.saturating_mul(40));
        let flag = |b: bool| i64::from(b);
        match self {
            Var::Rating => ctx.rating,
            Var::MyRating => ctx.myrating,
            Var::RatingDiff => ctx.rating.saturating_sub(ctx.myrating),
            Var::Rated => flag(ctx.rated),
            Var::Unrated => flag(!ctx.rated),
            Var::Time => ctx.time,
            Var::Inc => ctx.inc,
            Var::Registered => flag(ctx.registered),
            Var::Untimed => flag(untimed),
            Var::Lightning => flag(!untimed && expected_s < 180),
            Var::Blitz => flag(!untimed && (180..900).contains(&expected_s)),
            Var::Standard => flag(!untimed && expected_s >= 900),
            Var::White => flag(ctx.my_color == Some(Color::White)),
            Var::Black => flag(ctx.my_color == Some(Color::Black)),
            Var::NoColor => flag(ctx.my_color.is_none()),
            Var::Variant(v) => flag(ctx.variant == v),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinOp {
    Mul,
    Div,
    Add,
    Sub,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Expr {
    Num(i64),
    Var(Var),
    /// `maxtime(n)`: the most seconds a player can spend on n moves: 60·time + n·inc.
    MaxTime(Box<Expr>),
    /// `fN` (1-based).
    F(u8),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

/// Why a formula was refused: what, and where (1-based character position in the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormulaError {
    pub position: usize,
    pub message: String,
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error at position {}: {}", self.position, self.message)
    }
}

impl std::error::Error for FormulaError {}

/// Which slot a formula is set in: the `formula` itself (0) or `f1`..`f9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot(u8);

impl Slot {
    /// The `formula` variable.
    pub const FORMULA: Slot = Slot(0);

    /// `fN` for N in 1..=9.
    pub fn f(n: u8) -> Option<Slot> {
        (1..=9).contains(&n).then_some(Slot(n))
    }

    /// 0 for the formula, N for `fN`.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The highest f-variable this slot may refer to.
    fn max_reference(self) -> u8 {
        if self.0 == 0 {
            9
        } else {
            self.0 - 1
        }
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            f.write_str("formula")
        } else {
            write!(f, "f{}", self.0)
        }
    }
}

/// A parsed formula (or f-variable) with the text it came from. The empty text is the
/// formula that accepts everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formula {
    text: String,
    expr: Option<Expr>,
}

impl Formula {
    /// Parses `text` for `slot`, which decides the f-variables it may use.
    ///
    /// # Errors
    /// The text is malformed, too long, too deep, too big, or refers to an f-variable the
    /// slot may not use; the error gives the position.
    pub fn parse(text: &str, slot: Slot) -> Result<Formula, FormulaError> {
        if text.len() > MAX_LEN {
            return Err(FormulaError {
                position: MAX_LEN + 1,
                message: format!("a formula has at most {MAX_LEN} characters"),
            });
        }
        let expr = parse::parse_expr(text, slot)?;
        Ok(Formula {
            text: text.trim().to_string(),
            expr,
        })
    }

    /// The text as set (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether this is the empty formula (accepts everything).
    pub fn is_empty(&self) -> bool {
        self.expr.is_none()
    }
}

/// A user's `formula` and `f1`..`f9`, parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormulaSet {
    formula: Option<Formula>,
    f: [Option<Formula>; 9],
}

/// What a formula evaluation concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Reject,
    /// Evaluation ran out of steps; counts as a rejection.
    TooComplex,
}

impl FormulaSet {
    /// Builds a set from stored texts, skipping (and reporting) any that no longer parse.
    pub fn from_texts(formula: &str, f: &[String]) -> (FormulaSet, Vec<(Slot, FormulaError)>) {
        let mut set = FormulaSet::default();
        let mut errors = Vec::new();
        let mut put = |slot: Slot, text: &str, set: &mut FormulaSet| {
            if text.trim().is_empty() {
                return;
            }
            match Formula::parse(text, slot) {
                Ok(parsed) => set.put(slot, Some(parsed)),
                Err(e) => errors.push((slot, e)),
            }
        };
        put(Slot::FORMULA, formula, &mut set);
        for (i, text) in f.iter().take(9).enumerate() {
            let slot = Slot(i as u8 + 1);
            put(slot, text, &mut set);
        }
        (set, errors)
    }

    /// Replaces one slot (None or an empty formula clears it).
    pub fn put(&mut self, slot: Slot, formula: Option<Formula>) {
        let formula = formula.filter(|f| !f.is_empty());
        if slot.0 == 0 {
            self.formula = formula;
        } else if let Some(entry) = self.f.get_mut(usize::from(slot.0 - 1)) {
            *entry = formula;
        }
    }

    /// The text of a slot ("" when unset).
    pub fn text(&self, slot: Slot) -> &str {
        let entry = if slot.0 == 0 {
            self.formula.as_ref()
        } else {
            self.f.get(usize::from(slot.0 - 1)).and_then(Option::as_ref)
        };
        entry.map_or("", Formula::text)
    }

    /// The texts of f1..f9, for storage.
    pub fn f_texts(&self) -> Vec<String> {
        (1..=9).map(|n| self.text(Slot(n)).to_string()).collect()
    }

    /// Whether the `formula` is set (an unset formula accepts everything).
    pub fn has_formula(&self) -> bool {
        self.formula.is_some()
    }

    /// Judges a proposed game by the `formula`.
    pub fn judge(&self, ctx: &ChallengeContext) -> Verdict {
        let Some(formula) = &self.formula else {
            return Verdict::Accept;
        };
        let Some(expr) = &formula.expr else {
            return Verdict::Accept;
        };
        let mut steps = MAX_STEPS;
        match self.eval(expr, ctx, &mut steps) {
            Some(0) => Verdict::Reject,
            Some(_) => Verdict::Accept,
            None => Verdict::TooComplex,
        }
    }

    /// Whether the `formula` accepts the proposed game.
    pub fn accepts(&self, ctx: &ChallengeContext) -> bool {
        self.judge(ctx) == Verdict::Accept
    }

    /// Evaluates one expression; None once the step budget is spent.
    fn eval(&self, expr: &Expr, ctx: &ChallengeContext, steps: &mut u32) -> Option<i64> {
        *steps = steps.checked_sub(1)?;
        Some(match expr {
            Expr::Num(n) => *n,
            Expr::Var(v) => v.value(ctx),
            Expr::MaxTime(n) => {
                let moves = self.eval(n, ctx, steps)?;
                ctx.time
                    .saturating_mul(60)
                    .saturating_add(moves.saturating_mul(ctx.inc))
            }
            Expr::F(n) => {
                let sub = self
                    .f
                    .get(usize::from(n.saturating_sub(1)))
                    .and_then(Option::as_ref)
                    .and_then(|f| f.expr.as_ref());
                match sub {
                    // Unset f-variables are true, like an empty formula.
                    None => 1,
                    Some(sub) => self.eval(sub, ctx, steps)?,
                }
            }
            Expr::Not(e) => i64::from(self.eval(e, ctx, steps)? == 0),
            Expr::Neg(e) => self.eval(e, ctx, steps)?.saturating_neg(),
            Expr::Bin(op, a, b) => {
                let x = self.eval(a, ctx, steps)?;
                let y = self.eval(b, ctx, steps)?;
                let flag = |b: bool| i64::from(b);
                match op {
                    BinOp::Mul => x.saturating_mul(y),
                    BinOp::Div => {
                        if y == 0 {
                            x.saturating_mul(1000)
                        } else {
                            x.checked_div(y).unwrap_or(i64::MAX)
                        }
                    }
                    BinOp::Add => x.saturating_add(y),
                    BinOp::Sub => x.saturating_sub(y),
                    BinOp::Lt => flag(x < y),
                    BinOp::Le => flag(x <= y),
                    BinOp::Gt => flag(x > y),
                    BinOp::Ge => flag(x >= y),
                    BinOp::Eq => flag(x == y),
                    BinOp::Ne => flag(x != y),
                    BinOp::And => flag(x != 0 && y != 0),
                    BinOp::Or => flag(x != 0 || y != 0),
                }
            }
        })
    }
}
