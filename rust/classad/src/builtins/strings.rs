//! Built-in functions: strings family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
