//! Type predicates, conversions and the evaluation-control functions (ifThenElse, eval, ...).

use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "ifThenElse",
        f: if_then_else,
    },
    Builtin {
        name: "isUndefined",
        f: is_undefined,
    },
    Builtin {
        name: "isError",
        f: is_error,
    },
    Builtin {
        name: "isString",
        f: is_string,
    },
    Builtin {
        name: "isInteger",
        f: is_integer,
    },
    Builtin {
        name: "isReal",
        f: is_real,
    },
    Builtin {
        name: "isBoolean",
        f: is_boolean,
    },
    Builtin {
        name: "isList",
        f: is_list,
    },
    Builtin {
        name: "isClassAd",
        f: is_classad,
    },
    Builtin {
        name: "isAbstime",
        f: is_abstime,
    },
    Builtin {
        name: "isReltime",
        f: is_reltime,
    },
];

fn if_then_else(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [c, t, f] = args else {
        return Value::Error;
    };
    match ev.eval(c) {
        Value::Undefined => Value::Undefined,
        v => match v.truth() {
            Some(true) => ev.eval(t),
            Some(false) => ev.eval(f),
            None => Value::Error,
        },
    }
}

/// One argument, evaluated, tested by `pred`.
fn predicate(ev: &mut Evaluator, args: &[Expr], pred: fn(&Value) -> bool) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    let v = ev.eval(a);
    Value::Bool(pred(&v))
}

fn is_undefined(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Undefined))
}

fn is_error(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Error))
}

fn is_string(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Str(_)))
}

fn is_integer(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Int(_)))
}

fn is_real(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Real(_)))
}

fn is_boolean(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Bool(_)))
}

fn is_list(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::List(_)))
}

fn is_classad(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::Ad(_)))
}

fn is_abstime(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::AbsTime { .. }))
}

fn is_reltime(ev: &mut Evaluator, args: &[Expr]) -> Value {
    predicate(ev, args, |v| matches!(v, Value::RelTime(_)))
}
