//! Parser: tokens to expressions and ads (new syntax), by precedence climbing.

use std::sync::Arc;

use crate::ast::{BinOp, Call, Expr, UnOp};
use crate::builtins;
use crate::classad::ClassAd;
use crate::error::{SyntaxError, SyntaxKind};
use crate::lexer::{parse_int_literal, Lexer, Syntax, Tok, Token};
use crate::name::Name;
use crate::value::Value;

/// Deepest nesting accepted. Why: every level is a few native stack frames in the parser,
/// the evaluator and the unparser, and input like 100,000 `(` must be refused, not crash.
pub const MAX_DEPTH: usize = 400;

pub struct Parser<'a> {
    text: &'a str,
    lexer: Lexer<'a>,
    cur: Token,
    depth: usize,
}

type PResult<T> = Result<T, SyntaxError>;

/// A binary operator token: the operator and its precedence level, lowest first (after
/// `?:`): `||`, `&&`, `|`, `^`, `&`, equality, relational, shifts, additive, multiplicative.
fn binary_op(tok: &Tok) -> Option<(BinOp, u8)> {
    Some(match tok {
        Tok::Or => (BinOp::Or, 0),
        Tok::And => (BinOp::And, 1),
        Tok::BitOr => (BinOp::BitOr, 2),
        Tok::Caret => (BinOp::BitXor, 3),
        Tok::BitAnd => (BinOp::BitAnd, 4),
        Tok::Eq => (BinOp::Eq, 5),
        Tok::Ne => (BinOp::Ne, 5),
        Tok::MetaEq | Tok::Is => (BinOp::Is, 5),
        Tok::MetaNe | Tok::Isnt => (BinOp::Isnt, 5),
        Tok::Lt => (BinOp::Lt, 6),
        Tok::Le => (BinOp::Le, 6),
        Tok::Gt => (BinOp::Gt, 6),
        Tok::Ge => (BinOp::Ge, 6),
        Tok::Shl => (BinOp::Shl, 7),
        Tok::Shr => (BinOp::Shr, 7),
        Tok::UShr => (BinOp::UShr, 7),
        Tok::Plus => (BinOp::Add, 8),
        Tok::Minus => (BinOp::Sub, 8),
        Tok::Star => (BinOp::Mul, 9),
        Tok::Slash => (BinOp::Div, 9),
        Tok::Percent => (BinOp::Mod, 9),
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    pub fn new(text: &'a str) -> PResult<Parser<'a>> {
        Self::at(text, 0)
    }

    /// A parser starting at byte `offset` of `text` (positions stay relative to `text`).
    pub fn at(text: &'a str, offset: usize) -> PResult<Parser<'a>> {
        Self::with_syntax(text, offset, Syntax::New)
    }

    pub fn with_syntax(text: &'a str, offset: usize, syntax: Syntax) -> PResult<Parser<'a>> {
        let mut lexer = Lexer::with_syntax(text, syntax);
        lexer.skip_to(offset);
        let cur = lexer.next_token()?;
        Ok(Parser {
            text,
            lexer,
            cur,
            depth: 0,
        })
    }

    /// Byte offset where the current (not yet consumed) token starts.
    pub fn offset(&self) -> usize {
        self.cur.start
    }

    pub fn at_eof(&self) -> bool {
        self.cur.tok == Tok::Eof
    }

    /// Whether the token after the current one is `tok` (one token of extra lookahead).
    fn next_is(&self, tok: &Tok) -> bool {
        let mut lx = self.lexer.clone();
        lx.next_token().is_ok_and(|t| t.tok == *tok)
    }

    fn bump(&mut self) -> PResult<Token> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.cur, next))
    }

    fn err(&self, kind: SyntaxKind) -> SyntaxError {
        SyntaxError::new(kind, self.cur.start, self.text)
    }

    fn expect(&mut self, tok: Tok, what: &'static str) -> PResult<()> {
        if self.cur.tok == tok {
            self.bump()?;
            Ok(())
        } else {
            Err(self.err(SyntaxKind::Expected(what)))
        }
    }

    pub fn expect_eof(&self) -> PResult<()> {
        if self.at_eof() {
            Ok(())
        } else {
            Err(self.err(SyntaxKind::Expected("end of input")))
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(SyntaxKind::TooDeep));
        }
        Ok(())
    }

    pub fn parse_expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let e = crate::stack::guard(|| self.ternary());
        self.depth -= 1;
        e
    }

    fn ternary(&mut self) -> PResult<Expr> {
        let cond = self.binary(0)?;
        if self.cur.tok != Tok::Question {
            return Ok(cond);
        }
        self.bump()?;
        let then = self.parse_expr()?;
        self.expect(Tok::Colon, "`:` of `?:`")?;
        let alt = self.parse_expr()?;
        Ok(Expr::Cond(Box::new((cond, then, alt))))
    }

    /// Precedence climbing: operators of level `min` and above, grouped to the left.
    /// (Recursion is bounded by the number of levels, not by the length of a chain.)
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, level)) = binary_op(&self.cur.tok) {
            if level < min {
                break;
            }
            self.bump()?;
            let rhs = self.binary(level + 1)?;
            lhs = Expr::Binary(op, Box::new((lhs, rhs)));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.cur.tok {
            Tok::Minus => UnOp::Neg,
            Tok::Plus => UnOp::Plus,
            Tok::Not => UnOp::Not,
            Tok::Tilde => UnOp::BitNot,
            _ => return self.postfix(),
        };
        if let Some(lit) = self.negative_literal()? {
            return self.postfix_ops(lit);
        }
        self.bump()?;
        self.enter()?;
        let operand = crate::stack::guard(|| self.unary());
        self.depth -= 1;
        Ok(Expr::Unary(op, Box::new(operand?)))
    }

    /// `-5` written together is the literal -5 (`- 5` is negation of 5): when the current
    /// token is such a minus, consume it and the number.
    // Kept out of line: inlined, its locals would swell the frames of the recursive
    // descent, which must stay small for MAX_DEPTH levels to fit on a thread's stack.
    #[inline(never)]
    fn negative_literal(&mut self) -> PResult<Option<Expr>> {
        if self.cur.tok != Tok::Minus {
            return Ok(None);
        }
        let mut lx = self.lexer.clone();
        let Ok(next) = lx.next_token() else {
            return Ok(None);
        };
        if next.spaced {
            return Ok(None);
        }
        let lit = match next.tok {
            Tok::Int(_) => {
                let text = self.text.get(next.start..next.end).unwrap_or("0");
                Value::Int(parse_int_literal(text, true))
            }
            Tok::Real(r) => Value::Real(-r),
            // HTCondor's lexer reads `-010` as one token and converts it in base 10 (-10),
            // and `-0x1F` as far as base 10 goes (0); unsigned, such numbers are refused.
            Tok::ZeroInt(ref digits) => {
                let dec: String = digits.chars().take_while(char::is_ascii_digit).collect();
                Value::Int(parse_int_literal(&dec, true))
            }
            _ => return Ok(None),
        };
        self.bump()?;
        self.bump()?;
        Ok(Some(Expr::Lit(lit)))
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let base = self.primary()?;
        self.postfix_ops(base)
    }

    fn postfix_ops(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            match self.cur.tok {
                Tok::Dot => {
                    self.bump()?;
                    let name = self.attr_name()?;
                    e = Expr::Select(Box::new(e), name);
                }
                Tok::LBracket => {
                    self.bump()?;
                    let idx = self.parse_expr()?;
                    self.expect(Tok::RBracket, "`]`")?;
                    e = Expr::Index(Box::new((e, idx)));
                }
                // HTCondor binds `a ?: b` tighter than any other operator, unary minus
                // included: `- undefined ?: 4` is -4 and `2 * x ?: 3` is 2 * (x ?: 3).
                // Its right side is a postfix expression: a unary operator there is a
                // syntax error (`a ?: !b`, `a ?: - 1`), but `-1` written together is one
                // literal token in HTCondor's lexer and so is allowed.
                Tok::Question if self.next_is(&Tok::Colon) => {
                    self.bump()?;
                    self.bump()?;
                    self.enter()?;
                    let alt = match self.negative_literal()? {
                        Some(lit) => self.postfix_ops(lit),
                        None => self.postfix(),
                    };
                    self.depth -= 1;
                    e = Expr::Elvis(Box::new((e, alt?)));
                }
                _ => return Ok(e),
            }
        }
    }

    fn attr_name(&mut self) -> PResult<Name> {
        match &self.cur.tok {
            Tok::Name { text, .. } => {
                let n = Name::new(text);
                self.bump()?;
                Ok(n)
            }
            _ => Err(self.err(SyntaxKind::Expected("an attribute name"))),
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.bump()?;
        Ok(match t.tok {
            Tok::Int(i) => Expr::Lit(Value::Int(i)),
            Tok::Real(r) => Expr::Lit(Value::Real(r)),
            Tok::Str(s) => Expr::Lit(Value::str(&s)),
            Tok::True => Expr::Lit(Value::Bool(true)),
            Tok::False => Expr::Lit(Value::Bool(false)),
            Tok::Undefined => Expr::Lit(Value::Undefined),
            Tok::Error => Expr::Lit(Value::Error),
            Tok::Name { text, quoted } => {
                if !quoted && self.cur.tok == Tok::LParen {
                    return self.call(text, t.start);
                }
                Expr::Attr(Name::new(&text))
            }
            Tok::Dot => Expr::Root(self.attr_name()?),
            Tok::LParen => {
                let e = self.parse_expr()?;
                self.expect(Tok::RParen, "`)`")?;
                Expr::Paren(Box::new(e))
            }
            Tok::LBrace => self.list()?,
            Tok::LBracket => Expr::Ad(Arc::new(self.ad_body(false)?)),
            _ => {
                return Err(SyntaxError::new(
                    SyntaxKind::Expected("an expression"),
                    t.start,
                    self.text,
                ))
            }
        })
    }

    fn call(&mut self, name: String, start: usize) -> PResult<Expr> {
        self.bump()?; // (
                      // HTCondor separates arguments with `;` as well as `,`: `strcat("a"; "b")`.
        let args = self.comma_list(Tok::RParen, "`)` or `,` in the argument list")?;
        let func = builtins::lookup(&name);
        let call = Call {
            name: Arc::from(name.as_str()),
            func,
            args,
        };
        fold_time_literal(call)
            .map_err(|_| SyntaxError::new(SyntaxKind::BadTimeLiteral, start, self.text))
    }

    fn comma_list(&mut self, close: Tok, what: &'static str) -> PResult<Vec<Expr>> {
        let mut items = Vec::new();
        if self.cur.tok == close {
            self.bump()?;
            return Ok(items);
        }
        loop {
            items.push(self.parse_expr()?);
            if self.cur.tok == Tok::Comma || (close == Tok::RParen && self.cur.tok == Tok::Semi) {
                self.bump()?;
            } else if self.cur.tok == close {
                self.bump()?;
                return Ok(items);
            } else {
                return Err(self.err(SyntaxKind::Expected(what)));
            }
        }
    }

    fn list(&mut self) -> PResult<Expr> {
        self.enter()?;
        let items = self.comma_list(Tok::RBrace, "`}` or `,` in the list");
        self.depth -= 1;
        Ok(Expr::List(Arc::new(items?)))
    }

    /// The attributes of a new-syntax ad, after its `[`, through its `]`. With `last`, the
    /// text after the `]` is not read at all (so it may be anything).
    fn ad_body(&mut self, last: bool) -> PResult<ClassAd> {
        self.enter()?;
        let mut ad = ClassAd::new();
        loop {
            match &self.cur.tok {
                Tok::RBracket if last => break,
                Tok::RBracket => {
                    self.bump()?;
                    break;
                }
                // `;` ends an attribute; `[a = 1;; b = 2]` is fine but `[;]` is not.
                Tok::Semi if !ad.is_empty() => {
                    self.bump()?;
                }
                Tok::Name { text, .. } => {
                    let name = Name::new(text);
                    self.bump()?;
                    self.expect(Tok::Assign, "`=` after the attribute name")?;
                    let e = self.parse_expr().map_err(|mut e| {
                        e.attribute.get_or_insert_with(|| name.text.to_string());
                        e
                    })?;
                    ad.insert(name, e);
                    if !matches!(self.cur.tok, Tok::Semi | Tok::RBracket) {
                        return Err(
                            self.err(SyntaxKind::Expected("`;` or `]` after the attribute"))
                        );
                    }
                }
                _ => return Err(self.err(SyntaxKind::Expected("an attribute name or `]`"))),
            }
        }
        self.depth -= 1;
        Ok(ad)
    }

    /// A whole new-syntax ad `[ ... ]`.
    pub fn parse_ad(&mut self) -> PResult<ClassAd> {
        self.expect(Tok::LBracket, "`[` to start a ClassAd")?;
        self.ad_body(false)
    }
}

/// `absTime("...")` and `relTime("...")` with a literal string become time literals at parse
/// time, as HTCondor does; a literal that is not a valid time is a syntax error.
fn fold_time_literal(call: Call) -> Result<Expr, ()> {
    let is_time =
        call.name.eq_ignore_ascii_case("abstime") || call.name.eq_ignore_ascii_case("reltime");
    let literal = matches!(call.args.as_slice(), [Expr::Lit(Value::Str(_))]);
    if !(is_time && literal) {
        return Ok(Expr::Call(Box::new(call)));
    }
    let e = Expr::Call(Box::new(call));
    match crate::eval::eval_standalone(&e) {
        v @ (Value::AbsTime { .. } | Value::RelTime(_)) => Ok(Expr::Lit(v)),
        _ => Err(()),
    }
}

/// Parse one expression; the whole text must be the expression.
pub fn parse_expr(text: &str) -> PResult<Expr> {
    let mut p = Parser::new(text)?;
    let e = p.parse_expr()?;
    p.expect_eof()?;
    Ok(e)
}

/// Parse one new-syntax ad: the text must start with one; whatever follows its closing `]`
/// is ignored, as HTCondor's `ClassAd(text)` (a parse that is not `full`) does.
pub fn parse_ad(text: &str) -> PResult<ClassAd> {
    let mut p = Parser::new(text)?;
    p.expect(Tok::LBracket, "`[` to start a ClassAd")?;
    p.ad_body(true)
}

/// Parse the next new-syntax ad starting at byte `offset`; returns it and the offset after it,
/// or None when only whitespace and comments remain.
pub fn parse_next_ad(text: &str, offset: usize) -> PResult<Option<(ClassAd, usize)>> {
    let mut p = Parser::at(text, offset)?;
    if p.at_eof() {
        return Ok(None);
    }
    let ad = p.parse_ad()?;
    Ok(Some((ad, p.offset())))
}
