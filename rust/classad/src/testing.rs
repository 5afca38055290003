//! Helpers shared by the unit tests of every module: evaluate a text, read a string back.

use crate::{eval_standalone, parse_expr, Value};

/// The value of `text` evaluated with no ad in scope.
pub fn ev(text: &str) -> Value {
    eval_standalone(&parse_expr(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

/// The string that `text` evaluates to (the test fails on any other value).
pub fn string(text: &str) -> String {
    match ev(text) {
        Value::Str(s) => s.to_string(),
        v => panic!("{text}: {v:?}"),
    }
}
