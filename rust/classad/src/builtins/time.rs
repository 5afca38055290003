//! Built-in functions: time family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
