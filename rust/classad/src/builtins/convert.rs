//! Built-in functions: conversions (int, real, string, bool).

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
