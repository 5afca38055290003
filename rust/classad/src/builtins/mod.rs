//! The built-in function table: ClassAd name (case-insensitive) to implementation.
//!
//! Each family lives in its own file and exports `FUNCTIONS`, a slice of [`Builtin`] rows.
//! A function receives the evaluator and its unevaluated arguments, so that non-strict
//! functions (`ifThenElse`, `isUndefined`, `unparse`, ...) see their arguments as written;
//! strict ones call [`strict_args`] first.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::Value;

pub mod condor;
pub mod context;
pub mod convert;
pub mod lists;
pub mod math;
pub mod regex;
pub mod stringlist;
pub mod strings;
pub mod time;
pub mod types;
pub mod version;

pub type BuiltinFn = fn(&mut Evaluator, &[Expr]) -> Value;

pub struct Builtin {
    /// The name as the HTCondor manual spells it.
    pub name: &'static str,
    pub f: BuiltinFn,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<builtin {}>", self.name)
    }
}

fn families() -> [&'static [Builtin]; 11] {
    [
        types::FUNCTIONS,
        convert::FUNCTIONS,
        math::FUNCTIONS,
        strings::FUNCTIONS,
        lists::FUNCTIONS,
        stringlist::FUNCTIONS,
        regex::FUNCTIONS,
        time::FUNCTIONS,
        condor::FUNCTIONS,
        version::FUNCTIONS,
        context::FUNCTIONS,
    ]
}

fn table() -> &'static HashMap<String, &'static Builtin> {
    static TABLE: OnceLock<HashMap<String, &'static Builtin>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m = HashMap::new();
        for fam in families() {
            for b in fam {
                m.insert(b.name.to_ascii_lowercase(), b);
            }
        }
        m
    })
}

/// The function called `name` (any case), if there is one.
pub fn lookup(name: &str) -> Option<&'static Builtin> {
    table().get(&name.to_ascii_lowercase()).copied()
}

/// Every function name, for documentation and tests.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<_> = families()
        .iter()
        .flat_map(|f| f.iter().map(|b| b.name))
        .collect();
    v.sort_unstable_by_key(|n| n.to_ascii_lowercase());
    v
}

/// Evaluate every argument, left to right.
pub fn strict_args(ev: &mut Evaluator, args: &[Expr]) -> Vec<Value> {
    args.iter().map(|a| ev.eval(a)).collect()
}

/// The first ERROR, else the first UNDEFINED, among `vals`: what a strict function returns.
pub fn exceptional(vals: &[Value]) -> Option<Value> {
    if vals.iter().any(Value::is_error) {
        return Some(Value::Error);
    }
    vals.iter()
        .any(Value::is_undefined)
        .then_some(Value::Undefined)
}
