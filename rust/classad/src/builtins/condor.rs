//! Built-in functions: condor family.

use super::Builtin;

pub const FUNCTIONS: &[Builtin] = &[];
