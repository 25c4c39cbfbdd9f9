//! The formula language's text side: the tokenizer and the precedence-climbing parser that
//! turns a formula's text into an expression tree, refusing text that is malformed, too deep
//! or too big, or that refers to an f-variable its slot may not use.

use super::{BinOp, Expr, FormulaError, Slot, Var, MAX_DEPTH, MAX_NODES};

/// Parses `text` for `slot`: None for text with no tokens (the empty formula).
pub(super) fn parse_expr(text: &str, slot: Slot) -> Result<Option<Expr>, FormulaError> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
        nodes: 0,
        slot,
        end: text.chars().count() + 1,
    };
    if parser.tokens.is_empty() {
        return Ok(None);
    }
    let expr = parser.expr()?;
    if let Some(token) = parser.tokens.get(parser.at) {
        return Err(FormulaError {
            position: token.position,
            message: format!("unexpected `{}`", token.kind.text()),
        });
    }
    Ok(Some(expr))
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
