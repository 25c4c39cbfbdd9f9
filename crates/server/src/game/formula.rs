//! FICS-style formulas: a user's screen on the challenges and seeks they are offered
//! (`set formula rating > 1400 && !rated`) and their nine helper expressions `f1`..`f9`.
//!
//! This module owns the language (tokens, precedence, variables), its parser and its
//! evaluator. Text is parsed once, when the user sets it ([`Formula::parse`]); a challenge is
//! judged by evaluating the stored trees against a [`ChallengeContext`].
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
        let tokens = tokenize(text)?;
        let mut parser = Parser {
            tokens,
            at: 0,
            depth: 0,
            nodes: 0,
            slot,
            end: text.chars().count() + 1,
        };
        let expr = if parser.tokens.is_empty() {
            None
        } else {
            let expr = parser.expr()?;
            if let Some(token) = parser.tokens.get(parser.at) {
                return Err(FormulaError {
                    position: token.position,
                    message: format!("unexpected `{}`", token.kind.text()),
                });
            }
            Some(expr)
        };
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

#[derive(Clone, Debug, PartialEq, Eq)]
enum TokenKind {
    Num(i64),
    Ident(String),
    Op(&'static str),
    Open,
    Close,
}

impl TokenKind {
    fn text(&self) -> String {
        match self {
            TokenKind::Num(n) => n.to_string(),
            TokenKind::Ident(s) => s.clone(),
            TokenKind::Op(s) => (*s).to_string(),
            TokenKind::Open => "(".into(),
            TokenKind::Close => ")".into(),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    kind: TokenKind,
    /// 1-based character position.
    position: usize,
}

/// Operators, longest first so `<=` wins over `<`.
const OPERATORS: [&str; 19] = [
    "&&", "||", "<=", "=<", ">=", "=>", "==", "!=", "<>", "<", ">", "=", "!", "*", "/", "+", "-",
    "&", "|",
];

fn tokenize(text: &str) -> Result<Vec<Token>, FormulaError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let position = i + 1;
        if c == '#' {
            // A comment runs to the end of the line.
            while chars.get(i).is_some_and(|&c| c != '\n') {
                i += 1;
            }
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let kind = if c.is_ascii_digit() {
            let start = i;
            while chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            let n = digits.parse::<i64>().map_err(|_| FormulaError {
                position,
                message: "number too large".into(),
            })?;
            TokenKind::Num(n)
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while chars
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            TokenKind::Ident(chars[start..i].iter().collect::<String>().to_lowercase())
        } else if c == '(' {
            i += 1;
            TokenKind::Open
        } else if c == ')' {
            i += 1;
            TokenKind::Close
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
                return Err(FormulaError {
                    position,
                    message: format!("unexpected character `{c}`"),
                });
            };
            i += op.chars().count();
            TokenKind::Op(op)
        };
        tokens.push(Token { kind, position });
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
    nodes: usize,
    slot: Slot,
    /// The position just past the text, for "unexpected end" errors.
    end: usize,
}

/// Binary precedence levels, loosest first, with the spellings of each operator.
const LEVELS: [&[(&str, BinOp)]; 7] = [
    &[("||", BinOp::Or), ("|", BinOp::Or), ("or", BinOp::Or)],
    &[("&&", BinOp::And), ("&", BinOp::And), ("and", BinOp::And)],
    &[("!=", BinOp::Ne), ("<>", BinOp::Ne)],
    &[("==", BinOp::Eq), ("=", BinOp::Eq)],
    &[
        ("<", BinOp::Lt),
        ("<=", BinOp::Le),
        ("=<", BinOp::Le),
        (">", BinOp::Gt),
        (">=", BinOp::Ge),
        ("=>", BinOp::Ge),
    ],
    &[("+", BinOp::Add), ("-", BinOp::Sub)],
    &[("*", BinOp::Mul), ("/", BinOp::Div)],
];

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn position(&self) -> usize {
        self.peek().map_or(self.end, |t| t.position)
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T, FormulaError> {
        Err(FormulaError {
            position: self.position(),
            message: message.into(),
        })
    }

    fn node(&mut self, expr: Expr) -> Result<Expr, FormulaError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return self.error(format!("a formula has at most {MAX_NODES} terms"));
        }
        Ok(expr)
    }

    fn expr(&mut self) -> Result<Expr, FormulaError> {
        self.level(0)
    }

    /// The operator of this level at the cursor, if any.
    fn level_op(&self, level: usize) -> Option<BinOp> {
        let token = self.peek()?;
        let spelled = match &token.kind {
            TokenKind::Op(op) => *op,
            TokenKind::Ident(word) if word == "and" || word == "or" => word.as_str(),
            _ => return None,
        };
        LEVELS
            .get(level)?
            .iter()
            .find(|(text, _)| *text == spelled)
            .map(|(_, op)| *op)
    }

    fn level(&mut self, level: usize) -> Result<Expr, FormulaError> {
        if level >= LEVELS.len() {
            return self.unary();
        }
        let mut left = self.level(level + 1)?;
        while let Some(op) = self.level_op(level) {
            self.at += 1;
            let right = self.level(level + 1)?;
            left = self.node(Expr::Bin(op, Box::new(left), Box::new(right)))?;
        }
        Ok(left)
    }

    fn enter(&mut self) -> Result<(), FormulaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error(format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<Expr, FormulaError> {
        let op = match self.peek().map(|t| &t.kind) {
            Some(TokenKind::Op("!")) => Some(true),
            Some(TokenKind::Op("-")) => Some(false),
            Some(TokenKind::Op("+")) => {
                self.at += 1;
                self.enter()?;
                let inner = self.unary();
                self.depth -= 1;
                return inner;
            }
            _ => None,
        };
        let Some(not) = op else {
            return self.postfix();
        };
        self.at += 1;
        self.enter()?;
        let inner = Box::new(self.unary()?);
        self.depth -= 1;
        self.node(if not {
            Expr::Not(inner)
        } else {
            Expr::Neg(inner)
        })
    }

    fn postfix(&mut self) -> Result<Expr, FormulaError> {
        let mut expr = self.primary()?;
        while let Some(TokenKind::Ident(word)) = self.peek().map(|t| &t.kind) {
            if word != "minutes" && word != "minute" {
                break;
            }
            self.at += 1;
            let sixty = self.node(Expr::Num(60))?;
            expr = self.node(Expr::Bin(BinOp::Mul, Box::new(expr), Box::new(sixty)))?;
        }
        Ok(expr)
    }

    fn primary(&mut self) -> Result<Expr, FormulaError> {
        let Some(token) = self.peek().cloned() else {
            return self.error("the formula ends where a value was expected");
        };
        match token.kind {
            TokenKind::Num(n) => {
                self.at += 1;
                self.node(Expr::Num(n))
            }
            TokenKind::Open => {
                self.at += 1;
                self.enter()?;
                let inner = self.expr()?;
                self.depth -= 1;
                match self.peek().map(|t| &t.kind) {
                    Some(TokenKind::Close) => {
                        self.at += 1;
                        Ok(inner)
                    }
                    _ => self.error("expected `)`"),
                }
            }
            TokenKind::Ident(name) => {
                self.at += 1;
                if name == "maxtime" || name == "mymaxtime" {
                    if self.peek().map(|t| &t.kind) != Some(&TokenKind::Open) {
                        return self.error(format!("expected `(` after {name}"));
                    }
                    self.at += 1;
                    self.enter()?;
                    let moves = self.expr()?;
                    self.depth -= 1;
                    if self.peek().map(|t| &t.kind) != Some(&TokenKind::Close) {
                        return self.error("expected `)`");
                    }
                    self.at += 1;
                    return self.node(Expr::MaxTime(Box::new(moves)));
                }
                if let Some(n) = f_number(&name) {
                    if n > self.slot.max_reference() {
                        let allowed = match self.slot.max_reference() {
                            0 => format!("{} may not refer to any f-variable", self.slot),
                            1 => format!("{} may only refer to f1", self.slot),
                            m => format!("{} may only refer to f1..f{m}", self.slot),
                        };
                        return Err(FormulaError {
                            position: token.position,
                            message: allowed,
                        });
                    }
                    return self.node(Expr::F(n));
                }
                match Var::from_name(&name) {
                    Some(var) => self.node(Expr::Var(var)),
                    None => Err(FormulaError {
                        position: token.position,
                        message: format!("unknown variable `{name}`"),
                    }),
                }
            }
            TokenKind::Close | TokenKind::Op(_) => Err(FormulaError {
                position: token.position,
                message: format!("unexpected `{}`", token.kind.text()),
            }),
        }
    }
}

/// `f1`..`f9` → 1..9.
fn f_number(name: &str) -> Option<u8> {
    let digit = name.strip_prefix('f')?;
    let n: u8 = digit.parse().ok()?;
    (digit.len() == 1 && (1..=9).contains(&n)).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> ChallengeContext {
        ChallengeContext {
            variant: Variant::Suicide,
            rated: true,
            time: 5,
            inc: 2,
            rating: 1600,
            myrating: 1500,
            registered: true,
            my_color: None,
        }
    }

    fn eval_in(text: &str, c: &ChallengeContext) -> Option<i64> {
        let formula = Formula::parse(text, Slot::FORMULA).unwrap_or_else(|e| panic!("{text}: {e}"));
        let set = FormulaSet::default();
        let mut steps = MAX_STEPS;
        set.eval(formula.expr.as_ref()?, c, &mut steps)
    }

    fn eval(text: &str) -> i64 {
        eval_in(text, &ctx()).unwrap_or(i64::MIN)
    }

    fn error(text: &str, slot: Slot) -> FormulaError {
        match Formula::parse(text, slot) {
            Ok(_) => panic!("{text} should not parse"),
            Err(e) => e,
        }
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(eval("1 + 2 * 3"), 7);
        assert_eq!(eval("(1 + 2) * 3"), 9);
        assert_eq!(eval("10 - 4 - 3"), 3, "left associative");
        assert_eq!(eval("20 / 2 / 5"), 2);
        assert_eq!(eval("-3 * -3"), 9);
        assert_eq!(eval("!0 + 1"), 2, "unary binds tightest");
        assert_eq!(eval("!(0 + 1)"), 0);
        assert_eq!(eval("1 + 2 < 4"), 1, "arithmetic before comparison");
        assert_eq!(eval("1 < 2 = 1"), 1, "relational before equality");
        assert_eq!(eval("1 = 1 != 0"), 1, "equality before inequality");
        assert_eq!(eval("2 = 2 <> 1"), 0);
        assert_eq!(eval("1 || 0 && 0"), 1, "and before or");
        assert_eq!(eval("0 && 1 || 1"), 1);
        assert_eq!(eval("1 and 0 or 1"), 1);
        assert_eq!(eval("1 & 1 | 0"), 1);
        assert_eq!(eval("3 =< 3"), 1);
        assert_eq!(eval("3 => 4"), 0);
        assert_eq!(eval("5 <= 4"), 0);
        assert_eq!(eval("5 >= 4"), 1);
        assert_eq!(eval("5 == 5"), 1);
        assert_eq!(eval("+5"), 5);
        assert_eq!(eval("2 minutes"), 120);
        assert_eq!(eval("1 + 2 minutes"), 121);
        assert_eq!(eval("7 # a comment\n + 1"), 8);
    }

    #[test]
    fn variables() {
        assert_eq!(eval("rating"), 1600);
        assert_eq!(eval("myrating"), 1500);
        assert_eq!(eval("ratingdiff"), 100);
        assert_eq!(eval("rated && !unrated"), 1);
        assert_eq!(eval("time * 60 + inc"), 302);
        assert_eq!(eval("maxtime(40)"), 5 * 60 + 40 * 2);
        assert_eq!(eval("maxtime(40) <= 10 minutes"), 1);
        assert_eq!(eval("mymaxtime(0)"), 300);
        assert_eq!(eval("registered"), 1);
        assert_eq!(eval("suicide && !chazz && !duel && !drehs && !chad"), 1);
        assert_eq!(eval("blitz && !lightning && !standard && !untimed"), 1);
        assert_eq!(eval("nocolor && !white && !black"), 1);
        assert_eq!(eval("RATING > 1000"), 1, "names ignore case");
        let c = ChallengeContext {
            time: 0,
            inc: 0,
            my_color: Some(Color::Black),
            variant: Variant::Chad,
            ..ctx()
        };
        assert_eq!(eval_in("untimed && black && chad", &c), Some(1));
        assert_eq!(eval_in("lightning || blitz || standard", &c), Some(0));
        let c = ChallengeContext {
            time: 2,
            inc: 0,
            ..ctx()
        };
        assert_eq!(eval_in("lightning", &c), Some(1));
        let c = ChallengeContext {
            time: 15,
            inc: 0,
            ..ctx()
        };
        assert_eq!(eval_in("standard", &c), Some(1));
    }

    #[test]
    fn hostile_arithmetic_saturates() {
        assert_eq!(eval("9223372036854775807 + 1"), i64::MAX);
        assert_eq!(eval("-9223372036854775807 - 5"), i64::MIN);
        assert_eq!(eval("9223372036854775807 * 9223372036854775807"), i64::MAX);
        assert_eq!(eval("5 / 0"), 5000, "division by zero divides by 0.001");
        assert_eq!(eval("(-9223372036854775807 - 1) / -1"), i64::MAX);
        assert_eq!(eval("maxtime(9223372036854775807)"), i64::MAX);
        assert_eq!(
            error("99999999999999999999", Slot::FORMULA),
            FormulaError {
                position: 1,
                message: "number too large".into()
            }
        );
    }

    #[test]
    fn malformed_formulas_name_the_position() {
        let at = |text: &str| error(text, Slot::FORMULA).position;
        assert_eq!(at("rating >"), 9);
        assert_eq!(at("rating > > 3"), 10);
        assert_eq!(at("(rating > 3"), 12);
        assert_eq!(at("rating > 3)"), 11);
        assert_eq!(at("ratin > 3"), 1);
        assert_eq!(at("rating $ 3"), 8);
        assert_eq!(at("maxtime 3"), 9);
        assert_eq!(at("maxtime(3"), 10);
        assert_eq!(at("3 4"), 3);
        assert_eq!(at(")"), 1);
        assert_eq!(at("f10"), 1);
        assert_eq!(at("rating > 1500 && f0"), 18);
        let e = error("ratin > 3", Slot::FORMULA);
        assert_eq!(
            e.to_string(),
            "error at position 1: unknown variable `ratin`"
        );
        // Positions count characters, not bytes.
        assert_eq!(at("1 + é"), 5);
    }

    #[test]
    fn empty_and_comment_only_formulas_accept_everything() {
        for text in ["", "   ", "# nothing here"] {
            let f = Formula::parse(text, Slot::FORMULA).unwrap_or_else(|e| panic!("{e}"));
            assert!(f.is_empty());
            let mut set = FormulaSet::default();
            set.put(Slot::FORMULA, Some(f));
            assert!(set.accepts(&ctx()));
        }
    }

    #[test]
    fn hostile_sizes_are_refused() {
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(error(&deep, Slot::FORMULA).message.contains("nested"));
        let nots = "!".repeat(200) + "1";
        assert!(error(&nots, Slot::FORMULA).message.contains("nested"));
        let long = "1+".repeat(600) + "1";
        assert_eq!(error(&long, Slot::FORMULA).position, MAX_LEN + 1);
        let many = "1+".repeat(MAX_LEN / 2 - 1) + "1";
        assert!(many.len() <= MAX_LEN);
        assert!(error(&many, Slot::FORMULA).message.contains("terms"));
        // Exactly at the nesting limit still parses.
        let ok = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert!(Formula::parse(&ok, Slot::FORMULA).is_ok());
        // Junk of every kind is refused without panicking.
        for junk in [
            "\u{0}",
            "((((",
            "))))",
            "&&&&",
            "1 ++",
            "f",
            "maxtime()",
            "- -",
            "\"x\"",
        ] {
            assert!(Formula::parse(junk, Slot::FORMULA).is_err(), "{junk}");
        }
    }

    #[test]
    fn f_variables_refer_only_downwards() {
        let f3 = Slot::f(3).unwrap_or(Slot::FORMULA);
        assert!(Formula::parse("f1 && f2", f3).is_ok());
        let e = error("f2 || f3", f3);
        assert_eq!(e.position, 7);
        assert_eq!(e.message, "f3 may only refer to f1..f2");
        assert_eq!(
            error("f5", f3).message,
            "f3 may only refer to f1..f2",
            "no upward reference, so no cycle"
        );
        let f1 = Slot::f(1).unwrap_or(Slot::FORMULA);
        assert_eq!(
            error("f1", f1).message,
            "f1 may not refer to any f-variable"
        );
        assert!(Formula::parse("f9 && f1", Slot::FORMULA).is_ok());
        assert!(Slot::f(0).is_none() && Slot::f(10).is_none());
    }

    #[test]
    fn f_variables_are_evaluated_where_used() {
        let (mut set, errors) = FormulaSet::from_texts(
            "f1 && !f3",
            &[
                "rating > 1400".into(),
                "ratingdiff".into(),
                "f2 > 400".into(),
            ],
        );
        assert!(errors.is_empty());
        assert!(set.accepts(&ctx()));
        let strong = ChallengeContext {
            rating: 2000,
            ..ctx()
        };
        assert!(!set.accepts(&strong), "ratingdiff 500 > 400");
        let weak = ChallengeContext {
            rating: 1300,
            ..ctx()
        };
        assert!(!set.accepts(&weak));
        // Changing f2 changes what f3 means.
        set.put(
            Slot::f(2).unwrap_or(Slot::FORMULA),
            Formula::parse("0", Slot::f(2).unwrap_or(Slot::FORMULA)).ok(),
        );
        assert!(set.accepts(&strong));
        // An unset f-variable is true.
        let (set, _) = FormulaSet::from_texts("f7", &[]);
        assert!(set.accepts(&ctx()));
        assert_eq!(set.text(Slot::FORMULA), "f7");
        assert_eq!(set.f_texts().len(), 9);
    }

    #[test]
    fn stored_texts_that_no_longer_parse_are_reported() {
        let (set, errors) = FormulaSet::from_texts("rating >", &["f2".into()]);
        assert_eq!(errors.len(), 2);
        assert!(!set.has_formula());
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Formula-looking text: tokens of the language glued in any order.
        fn formula_like() -> impl Strategy<Value = String> {
            let token = prop_oneof![
                Just("rating".to_string()),
                Just("f1".to_string()),
                Just("f2".to_string()),
                Just("maxtime(".to_string()),
                Just("minutes".to_string()),
                Just("(".to_string()),
                Just(")".to_string()),
                Just("!".to_string()),
                Just("-".to_string()),
                Just("&&".to_string()),
                Just("||".to_string()),
                Just("<=".to_string()),
                Just("/".to_string()),
                Just("*".to_string()),
                Just("0".to_string()),
                Just("9223372036854775807".to_string()),
                "[0-9]{1,4}",
            ];
            proptest::collection::vec(token, 0..60).prop_map(|t| t.join(" "))
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            /// Any text either parses or is refused with a position inside it (or just past
            /// its end); nothing panics, and evaluating what parses terminates.
            #[test]
            fn hostile_text_never_panics(text in ".{0,300}", glued in formula_like()) {
                for text in [&text, &glued] {
                    match Formula::parse(text, Slot::f(3).unwrap_or(Slot::FORMULA)) {
                        Ok(formula) => {
                            let mut set = FormulaSet::default();
                            set.put(Slot::f(1).unwrap_or(Slot::FORMULA), Formula::parse("rating * rating", Slot::f(1).unwrap_or(Slot::FORMULA)).ok());
                            set.put(Slot::FORMULA, Some(formula));
                            let _ = set.judge(&ctx());
                        }
                        Err(e) => {
                            prop_assert!(e.position >= 1);
                            prop_assert!(e.position <= text.chars().count().max(MAX_LEN) + 1);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn exponential_f_chains_run_out_of_steps() {
        let mut f = vec!["rating + rating".to_string()];
        for n in 2..=9 {
            let prev = n - 1;
            f.push(format!("f{prev} + f{prev} + f{prev} + f{prev}"));
        }
        let (set, errors) = FormulaSet::from_texts("f9 + f9 + f9 + f9 > 0", &f);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(set.judge(&ctx()), Verdict::TooComplex);
        assert!(!set.accepts(&ctx()));
        // A modest chain is fine.
        let (set, _) = FormulaSet::from_texts("f3 > 0", &f);
        assert_eq!(set.judge(&ctx()), Verdict::Accept);
    }
}
