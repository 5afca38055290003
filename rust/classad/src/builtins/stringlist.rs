//! Built-in functions: stringlist family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
