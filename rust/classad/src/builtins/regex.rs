//! Built-in functions: regex family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
