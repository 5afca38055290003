//! Built-in functions: math family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
