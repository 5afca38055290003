//! Lexer: ClassAd text to tokens, each with its byte span and whether space preceded it.

use crate::error::{SyntaxError, SyntaxKind};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Int(i64),
    /// `010` or `0x1F`: only legal right after a minus (`-010`), see the parser.
    ZeroInt(String),
    Real(f64),
    Str(String),
    /// An attribute or function name; `quoted` when written `'like this'`.
    Name {
        text: String,
        quoted: bool,
    },
    True,
    False,
    Undefined,
    Error,
    Is,
    Isnt,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Dot,
    Question,
    Colon,
    Assign,
    Eq,
    Ne,
    MetaEq,
    MetaNe,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    UShr,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Not,
    Tilde,
    BitAnd,
    And,
    BitOr,
    Or,
    Caret,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
    /// Whitespace or a comment came right before this token (`- 5` is not the literal -5).
    pub spaced: bool,
}

/// Which ClassAd syntax is being read; they differ only in string literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `[ a = "x\ty"; ... ]`: C-style escapes, adjacent strings join.
    New,
    /// `a = "C:\dir"` lines: a backslash is literal except before a quote.
    Old,
}

#[derive(Clone)]
pub struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    syntax: Syntax,
}

type LexResult<T> = Result<T, SyntaxError>;

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Lexer<'a> {
        Lexer::with_syntax(text, Syntax::New)
    }

    pub fn with_syntax(text: &'a str, syntax: Syntax) -> Lexer<'a> {
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            syntax,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn skip_to(&mut self, offset: usize) {
        self.pos = offset.min(self.bytes.len());
    }

    fn peek(&self, k: usize) -> u8 {
        self.bytes.get(self.pos + k).copied().unwrap_or(0)
    }

    fn err(&self, kind: SyntaxKind, at: usize) -> SyntaxError {
        SyntaxError::new(kind, at, self.text)
    }

    /// Skip whitespace and comments; true when anything was skipped.
    fn skip_trivia(&mut self) -> LexResult<bool> {
        let start = self.pos;
        loop {
            let c = self.peek(0);
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.peek(0) != b'\n' {
                    self.pos += 1;
                }
            } else if c == b'/' && self.peek(1) == b'*' {
                let at = self.pos;
                match self.text.get(self.pos + 2..).and_then(|s| s.find("*/")) {
                    Some(i) => self.pos += 2 + i + 2,
                    None => return Err(self.err(SyntaxKind::UnterminatedComment, at)),
                }
            } else {
                return Ok(self.pos != start);
            }
        }
    }

    pub fn next_token(&mut self) -> LexResult<Token> {
        let spaced = self.skip_trivia()?;
        let start = self.pos;
        let tok = self.scan()?;
        Ok(Token {
            tok,
            start,
            end: self.pos,
            spaced,
        })
    }

    fn scan(&mut self) -> LexResult<Tok> {
        let c = self.peek(0);
        if self.pos >= self.bytes.len() {
            return Ok(Tok::Eof);
        }
        if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_ascii_digit()) {
            return self.number();
        }
        // HTCondor's lexer takes `..` as one selection operator (`a..b` is `a.b`), and
        // `..5` as a malformed real that converts to 0.
        // HTCondor refuses a text with a NUL in it, inside a string literal or not.
        if c == 0 {
            return Err(self.err(SyntaxKind::BadChar('\0'), self.pos));
        }
        if c == b'.' && self.peek(1) == b'.' {
            self.pos += 2;
            if self.peek(0).is_ascii_digit() {
                let at = self.pos - 1;
                self.pos = at;
                let _ = self.number()?;
                return Ok(Tok::Real(0.0));
            }
            return Ok(Tok::Dot);
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            return Ok(self.word());
        }
        match c {
            b'"' => self.string(),
            b'\'' => self.quoted_name(),
            _ => self.operator(),
        }
    }

    fn operator(&mut self) -> LexResult<Tok> {
        let (tok, len) = match (self.peek(0), self.peek(1), self.peek(2)) {
            (b'=', b'?', b'=') => (Tok::MetaEq, 3),
            (b'=', b'!', b'=') => (Tok::MetaNe, 3),
            (b'>', b'>', b'>') => (Tok::UShr, 3),
            (b'=', b'=', _) => (Tok::Eq, 2),
            (b'!', b'=', _) => (Tok::Ne, 2),
            (b'<', b'=', _) => (Tok::Le, 2),
            (b'>', b'=', _) => (Tok::Ge, 2),
            (b'<', b'<', _) => (Tok::Shl, 2),
            (b'>', b'>', _) => (Tok::Shr, 2),
            (b'&', b'&', _) => (Tok::And, 2),
            (b'|', b'|', _) => (Tok::Or, 2),
            (b'(', _, _) => (Tok::LParen, 1),
            (b')', _, _) => (Tok::RParen, 1),
            (b'[', _, _) => (Tok::LBracket, 1),
            (b']', _, _) => (Tok::RBracket, 1),
            (b'{', _, _) => (Tok::LBrace, 1),
            (b'}', _, _) => (Tok::RBrace, 1),
            (b',', _, _) => (Tok::Comma, 1),
            (b';', _, _) => (Tok::Semi, 1),
            (b'.', _, _) => (Tok::Dot, 1),
            (b'?', _, _) => (Tok::Question, 1),
            (b':', _, _) => (Tok::Colon, 1),
            (b'=', _, _) => (Tok::Assign, 1),
            (b'<', _, _) => (Tok::Lt, 1),
            (b'>', _, _) => (Tok::Gt, 1),
            (b'+', _, _) => (Tok::Plus, 1),
            (b'-', _, _) => (Tok::Minus, 1),
            (b'*', _, _) => (Tok::Star, 1),
            (b'/', _, _) => (Tok::Slash, 1),
            (b'%', _, _) => (Tok::Percent, 1),
            (b'!', _, _) => (Tok::Not, 1),
            (b'~', _, _) => (Tok::Tilde, 1),
            (b'&', _, _) => (Tok::BitAnd, 1),
            (b'|', _, _) => (Tok::BitOr, 1),
            (b'^', _, _) => (Tok::Caret, 1),
            _ => {
                let ch = self
                    .text
                    .get(self.pos..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('?');
                return Err(self.err(SyntaxKind::BadChar(ch), self.pos));
            }
        };
        self.pos += len;
        Ok(tok)
    }

    fn word(&mut self) -> Tok {
        let start = self.pos;
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.pos += 1;
        }
        let w = self.text.get(start..self.pos).unwrap_or("");
        match w.len() {
            2 if w.eq_ignore_ascii_case("is") => Tok::Is,
            4 if w.eq_ignore_ascii_case("true") => Tok::True,
            4 if w.eq_ignore_ascii_case("isnt") => Tok::Isnt,
            5 if w.eq_ignore_ascii_case("false") => Tok::False,
            5 if w.eq_ignore_ascii_case("error") => Tok::Error,
            9 if w.eq_ignore_ascii_case("undefined") => Tok::Undefined,
            _ => Tok::Name {
                text: w.to_string(),
                quoted: false,
            },
        }
    }

    /// Decimal integers (no leading zeros), and reals `1.5`, `.5`, `1e3`, `1.5E-3`.
    fn number(&mut self) -> LexResult<Tok> {
        let start = self.pos;
        let digits = |lx: &mut Lexer| {
            let s = lx.pos;
            while lx.peek(0).is_ascii_digit() {
                lx.pos += 1;
            }
            lx.pos - s
        };
        if self.peek(0) == b'0'
            && matches!(self.peek(1), b'x' | b'X')
            && self.peek(2).is_ascii_hexdigit()
        {
            self.pos += 2;
            while self.peek(0).is_ascii_hexdigit() {
                self.pos += 1;
            }
            if self.peek(0) == b'.' {
                return Err(self.err(SyntaxKind::BadNumber, start));
            }
            let text = self.text.get(start..self.pos).unwrap_or("0");
            return Ok(Tok::ZeroInt(text.to_string()));
        }
        let int_len = digits(self);
        let mut is_real = false;
        if self.peek(0) == b'.' {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.err(SyntaxKind::BadNumber, start));
            }
            is_real = true;
        }
        if matches!(self.peek(0), b'e' | b'E') {
            self.pos += 1;
            if matches!(self.peek(0), b'+' | b'-') {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.err(SyntaxKind::BadNumber, start));
            }
            is_real = true;
        }
        // A letter right after a number starts the next token, as in HTCondor's lexer:
        // `1is 1` is `1 is 1`, and in old syntax `a = 0b101` is 0 (the rest is ignored).
        let text = self.text.get(start..self.pos).unwrap_or("0");
        if is_real {
            return Ok(Tok::Real(text.parse::<f64>().unwrap_or(0.0)));
        }
        if int_len > 1 && text.starts_with('0') {
            if text.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return Ok(Tok::ZeroInt(text.to_string()));
            }
            return Err(self.err(SyntaxKind::BadNumber, start));
        }
        Ok(Tok::Int(parse_int_literal(text, false)))
    }

    fn string(&mut self) -> LexResult<Tok> {
        let mut out = String::new();
        if self.syntax == Syntax::Old {
            return self.old_string();
        }
        self.string_body(b'"', &mut out, SyntaxKind::UnterminatedString)?;
        // Adjacent string literals join: "a" "b" is "ab".
        loop {
            let save = self.pos;
            self.skip_trivia()?;
            if self.peek(0) == b'"' {
                self.string_body(b'"', &mut out, SyntaxKind::UnterminatedString)?;
            } else {
                self.pos = save;
                return Ok(Tok::Str(out));
            }
        }
    }

    fn quoted_name(&mut self) -> LexResult<Tok> {
        let mut out = String::new();
        self.string_body(b'\'', &mut out, SyntaxKind::UnterminatedName)?;
        loop {
            let save = self.pos;
            self.skip_trivia()?;
            if self.peek(0) == b'\'' {
                self.string_body(b'\'', &mut out, SyntaxKind::UnterminatedName)?;
            } else {
                self.pos = save;
                return Ok(Tok::Name {
                    text: out,
                    quoted: true,
                });
            }
        }
    }

    /// An old-syntax string: `\"` is a quote, any other backslash is kept with the byte
    /// after it (`"C:\dir"` is what it says), and adjacent strings do not join.
    fn old_string(&mut self) -> LexResult<Tok> {
        let start = self.pos;
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            match self.peek(0) {
                _ if self.pos >= self.bytes.len() => {
                    return Err(self.err(SyntaxKind::UnterminatedString, start))
                }
                b'"' => {
                    self.pos += 1;
                    break;
                }
                // `\"` is a quote; any other backslash stays, with the byte after it.
                b'\\' if self.peek(1) == b'"' => {
                    bytes.push(b'"');
                    self.pos += 2;
                }
                b'\\' if self.pos + 1 < self.bytes.len() => {
                    bytes.push(b'\\');
                    bytes.push(self.peek(1));
                    self.pos += 2;
                }
                c => {
                    bytes.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(Tok::Str(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// The body of a quoted literal starting at the opening quote, escapes decoded.
    fn string_body(
        &mut self,
        quote: u8,
        out: &mut String,
        unterminated: SyntaxKind,
    ) -> LexResult<()> {
        let start = self.pos;
        self.pos += 1;
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            if self.pos >= self.bytes.len() {
                return Err(self.err(unterminated, start));
            }
            let c = self.peek(0);
            if c == 0 {
                return Err(self.err(SyntaxKind::BadChar('\0'), self.pos));
            }
            self.pos += 1;
            if c == quote {
                break;
            }
            if c != b'\\' {
                bytes.push(c);
                continue;
            }
            if self.pos >= self.bytes.len() {
                return Err(self.err(unterminated, start));
            }
            let at = self.pos - 1;
            let e = self.peek(0);
            self.pos += 1;
            let b = match e {
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'b' => 8,
                b'f' => 12,
                b'v' => 11,
                b'a' => 7,
                b'0'..=b'7' => {
                    let max = if e <= b'3' { 3 } else { 2 };
                    let mut v = u32::from(e - b'0');
                    let mut n = 1;
                    while n < max && (b'0'..=b'7').contains(&self.peek(0)) {
                        v = v * 8 + u32::from(self.peek(0) - b'0');
                        self.pos += 1;
                        n += 1;
                    }
                    if v == 0 {
                        return Err(self.err(SyntaxKind::NulInString, at));
                    }
                    v as u8
                }
                other => other,
            };
            bytes.push(b);
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
        Ok(())
    }
}

/// An integer literal as HTCondor reads it: out of the 64-bit range it is 0.
pub fn parse_int_literal(text: &str, negative: bool) -> i64 {
    let digits: i128 = match text.parse::<i128>() {
        Ok(v) => v,
        Err(_) => return 0,
    };
    let v = if negative { -digits } else { digits };
    i64::try_from(v).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut lx = Lexer::new(s);
        let mut v = vec![];
        loop {
            let t = lx.next_token().unwrap();
            if t.tok == Tok::Eof {
                return v;
            }
            v.push(t.tok);
        }
    }

    #[test]
    fn numbers_and_strings() {
        assert_eq!(
            toks("42 .5 1e3"),
            vec![Tok::Int(42), Tok::Real(0.5), Tok::Real(1000.0)]
        );
        assert_eq!(toks(r#""a\tb" "c""#), vec![Tok::Str("a\tbc".into())]);
        assert_eq!(toks(r#""\1234""#), vec![Tok::Str("S4".into())]);
        // `010` is only legal after a glued minus, which the parser decides.
        assert_eq!(toks("010"), vec![Tok::ZeroInt("010".into())]);
        assert!(crate::parser::parse_expr("010").is_err());
        assert!(crate::parser::parse_expr("1 - 010").is_err());
        assert!(crate::parser::parse_expr("-08").is_err());
        assert!(crate::parser::parse_expr("undefined ?: !1").is_err());
        assert!(crate::parser::parse_expr("\"a\0b\"").is_err());
        assert!(Lexer::new("1.").next_token().is_err());
        assert!(Lexer::new(r#""\0""#).next_token().is_err());
    }

    #[test]
    fn operators() {
        assert_eq!(
            toks("=?= =!= >>> >> >="),
            vec![Tok::MetaEq, Tok::MetaNe, Tok::UShr, Tok::Shr, Tok::Ge]
        );
        assert_eq!(
            toks("a IsNt b"),
            vec![
                Tok::Name {
                    text: "a".into(),
                    quoted: false
                },
                Tok::Isnt,
                Tok::Name {
                    text: "b".into(),
                    quoted: false
                },
            ]
        );
    }
}
