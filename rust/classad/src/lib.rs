//! The HTCondor ClassAd language: lexer, parser, evaluator, unparser and built-in functions.
//!
//! ```
//! use std::sync::Arc;
//! use condorx_classad::{parse_ad, parse_expr, eval_expr, Value};
//!
//! let slot = Arc::new(parse_ad(r#"[ Memory = 4096; Arch = "X86_64" ]"#).unwrap());
//! let req = parse_expr(r#"Memory >= 2048 && Arch == "x86_64""#).unwrap();
//! assert!(matches!(eval_expr(&req, Some(&slot), None), Value::Bool(true)));
//! ```

// The public surface: the types and functions re-exported below, and the modules other
// crates build on (the syntax tree, names, sharing, matching, checks, fingerprints, the
// built-in table, JSON and unparsing helpers). Evaluation, values, old syntax, errors
// and the time and calendar helpers are reached through the re-exports only.
pub mod ast;
pub mod builtins;
mod calendar;
pub mod check;
pub mod classad;
pub mod compare;
mod error;
mod eval;
pub mod fingerprint;
pub mod json;
pub mod lexer;
pub mod matching;
pub mod name;
mod old;
mod ops;
pub mod parser;
pub mod share;
mod stack;
mod strftime;
#[cfg(test)]
mod testing;
mod timefmt;
pub mod unparse;
pub mod usermaps;
mod value;

pub use ast::Expr;
pub use classad::ClassAd;
pub use error::{SyntaxError, SyntaxKind};
pub use eval::{eval_attr, eval_expr, eval_standalone, EvalBuffer, Evaluator, Scope};
pub use matching::{matches, symmetric_match};
pub use name::Name;
pub use old::{parse_old_ad, parse_old_ads, parse_old_line};
pub use parser::{parse_ad, parse_expr, parse_next_ad};
pub use unparse::{unparse, unparse_ad, unparse_ad_old, unparse_value};
pub use value::{AdValue, ListValue, Value};
