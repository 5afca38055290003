//! Built-in functions: lists family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
