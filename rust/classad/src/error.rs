//! SyntaxError: the crate's one error type, a kind plus the byte offset where it was found.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxKind {
    /// `"abc` — a string literal with no closing quote.
    UnterminatedString,
    /// `'abc` — a quoted attribute name with no closing quote.
    UnterminatedName,
    /// `/* abc` — a block comment with no end.
    UnterminatedComment,
    /// `"\0"` — a NUL byte inside a string.
    NulInString,
    /// `@`, `` ` `` — a character that starts no token.
    BadChar(char),
    /// `010`, `1.`, `1e+`, `0x1F` — a malformed number.
    BadNumber,
    /// `1 +` — the parser wanted something else here.
    Expected(&'static str),
    /// `relTime("abc")` — a literal time that does not parse.
    BadTimeLiteral,
    /// `((((...` — nesting deeper than the parser allows.
    TooDeep,
    /// `A = 1` old-syntax line without `=`.
    BadOldLine,
}

/// A syntax error at a byte offset; `line` and `column` are computed when it is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxKind,
    pub offset: usize,
    /// 1-based line and column of `offset` in the text that was parsed.
    pub line: usize,
    pub column: usize,
    /// The attribute being parsed, when the text was an ad.
    pub attribute: Option<String>,
}

impl SyntaxError {
    pub fn new(kind: SyntaxKind, offset: usize, text: &str) -> SyntaxError {
        let (line, column) = line_col(text, offset);
        SyntaxError {
            kind,
            offset,
            line,
            column,
            attribute: None,
        }
    }

    pub fn message(&self) -> String {
        match &self.kind {
            SyntaxKind::UnterminatedString => "unterminated string literal".into(),
            SyntaxKind::UnterminatedName => "unterminated quoted attribute name".into(),
            SyntaxKind::UnterminatedComment => "unterminated /* comment".into(),
            SyntaxKind::NulInString => "NUL character (\\0) in string literal".into(),
            SyntaxKind::BadChar(c) => format!("unexpected character {c:?}"),
            SyntaxKind::BadNumber => "malformed number".into(),
            SyntaxKind::Expected(what) => format!("expected {what}"),
            SyntaxKind::BadTimeLiteral => "invalid time literal".into(),
            SyntaxKind::TooDeep => "expression nested too deeply".into(),
            SyntaxKind::BadOldLine => "expected `Name = expression`".into(),
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line,
            self.column,
            self.message()
        )?;
        if let Some(a) = &self.attribute {
            write!(f, " (in attribute {a})")?;
        }
        Ok(())
    }
}

impl std::error::Error for SyntaxError {}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}
