//! Value: what an expression evaluates to. UNDEFINED and ERROR are ordinary values.

use std::sync::Arc;

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::eval::Scope;

/// A list value: the unevaluated items of a list, with the scope they were written in,
/// so that `{a, b + 1}` taken out of an ad still evaluates its items against that ad.
#[derive(Clone, Debug)]
pub struct ListValue {
    pub items: Arc<Vec<Expr>>,
    pub scope: Scope,
    /// Built at run time (by `split`, `a.b` over a list, ...) rather than written as a
    /// literal. HTCondor gives the two different value types, which `is` tells apart.
    pub computed: bool,
}

/// A nested ClassAd value, with the scope it was written in (its `parent`).
#[derive(Clone, Debug)]
pub struct AdValue {
    pub ad: Arc<ClassAd>,
    pub parent: Scope,
}

#[derive(Clone, Debug)]
pub enum Value {
    Undefined,
    Error,
    Bool(bool),
    Int(i64),
    Real(f64),
    Str(Arc<str>),
    List(ListValue),
    Ad(AdValue),
    /// Seconds since the epoch and the zone offset (seconds east of UTC) it is shown in.
    AbsTime {
        secs: i64,
        offset: i32,
    },
    /// A duration in seconds.
    RelTime(f64),
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }

    pub fn string(s: String) -> Value {
        Value::Str(Arc::from(s))
    }

    pub fn list_of(items: Vec<Expr>) -> Value {
        Value::List(ListValue {
            items: Arc::new(items),
            scope: Scope::None,
            computed: true,
        })
    }

    pub fn ad(ad: ClassAd) -> Value {
        Value::Ad(AdValue {
            ad: Arc::new(ad),
            parent: Scope::None,
        })
    }

    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined)
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error)
    }

    /// ERROR or UNDEFINED: the values that strict operators pass through.
    pub fn is_exceptional(&self) -> bool {
        matches!(self, Value::Undefined | Value::Error)
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Real(_))
    }

    /// The type name HTCondor uses in messages and in `typeOf`-like contexts.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undefined => "undefined",
            Value::Error => "error",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Real(_) => "real",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Ad(_) => "classad",
            Value::AbsTime { .. } => "absolute time",
            Value::RelTime(_) => "relative time",
        }
    }

    /// A number as f64 (booleans count 1/0), as Rank and arithmetic want it.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Real(r) => Some(*r),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    /// Truth of a value in a boolean context: booleans and numbers (non-zero is true).
    pub fn truth(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            Value::Int(i) => Some(*i != 0),
            Value::Real(r) => Some(*r != 0.0),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// True when the value is `true` exactly (Requirements and START need this).
    pub fn is_true(&self) -> bool {
        matches!(self, Value::Bool(true))
    }
}
