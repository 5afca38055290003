//! Built-in functions: lists family (size, sum, avg, min, max, member, anyCompare, ...).

use super::convert::one_arg;
use super::Builtin;
use crate::ast::{BinOp, Expr};
use crate::eval::Evaluator;
use crate::ops;
use crate::value::{ListValue, Value};

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "size",
        f: size,
    },
    Builtin {
        name: "sum",
        f: sum,
    },
    Builtin {
        name: "avg",
        f: avg,
    },
    Builtin {
        name: "min",
        f: min,
    },
    Builtin {
        name: "max",
        f: max,
    },
    Builtin {
        name: "member",
        f: member,
    },
    Builtin {
        name: "identicalMember",
        f: identical_member,
    },
    Builtin {
        name: "anyCompare",
        f: any_compare,
    },
    Builtin {
        name: "allCompare",
        f: all_compare,
    },
];

/// The number of items of a list, attributes of an ad, or bytes of a string.
fn size(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let n = match one_arg(ev, args) {
        Some(Value::Undefined) => return Value::Undefined,
        Some(Value::List(l)) => l.items.len(),
        Some(Value::Ad(a)) => a.ad.len(),
        Some(Value::Str(s)) => s.len(),
        _ => return Value::Error,
    };
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The one argument, which must be a list: Err holds the answer when it is not
/// (UNDEFINED for UNDEFINED, else ERROR).
fn list_arg(ev: &mut Evaluator, args: &[Expr]) -> Result<ListValue, Value> {
    match one_arg(ev, args) {
        Some(Value::List(l)) => Ok(l),
        Some(Value::Undefined) => Err(Value::Undefined),
        _ => Err(Value::Error),
    }
}

/// The numbers of a list, UNDEFINED items left out; ERROR when an item is not a number
/// (booleans count as numbers).
fn numbers(ev: &mut Evaluator, l: &ListValue) -> Result<Vec<Value>, Value> {
    let mut out = Vec::new();
    for v in ev.arg_items(l) {
        match v {
            Value::Undefined => {}
            Value::Int(_) | Value::Real(_) | Value::Bool(_) => out.push(v),
            _ => return Err(Value::Error),
        }
    }
    Ok(out)
}

/// The sum with `+`'s semantics (the first item as it is, so sum({true}) is true), and the
/// number of items summed.
fn total(ev: &mut Evaluator, args: &[Expr]) -> Result<(Value, usize), Value> {
    let l = list_arg(ev, args)?;
    let nums = numbers(ev, &l)?;
    let n = nums.len();
    let mut it = nums.into_iter();
    let first = it.next().unwrap_or(Value::Int(0));
    Ok((it.fold(first, |acc, v| ops::binary(BinOp::Add, acc, v)), n))
}

fn sum(ev: &mut Evaluator, args: &[Expr]) -> Value {
    total(ev, args).map_or_else(|e| e, |(s, _)| s)
}

fn avg(ev: &mut Evaluator, args: &[Expr]) -> Value {
    match total(ev, args) {
        // With no numbers the average is the empty sum, integer 0.
        Ok((s, 0)) => s,
        Ok((s, n)) => ops::binary(BinOp::Div, s, Value::Real(n as f64)),
        Err(e) => e,
    }
}

/// HTCondor's comparison operators convert their operands in place to a common numeric type
/// (booleans to integers, both to reals when one is real), and min, max, member and
/// anyCompare keep using the converted values afterwards.
fn promote(a: &mut Value, b: &mut Value) {
    let as_int = |v: &Value| match v {
        Value::Bool(x) => Some(Value::Int(i64::from(*x))),
        Value::Int(_) => Some(v.clone()),
        _ => None,
    };
    let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
        return;
    };
    if matches!(a, Value::Real(_)) || matches!(b, Value::Real(_)) {
        *a = Value::Real(x);
        *b = Value::Real(y);
    } else if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        *a = x;
        *b = y;
    }
}

/// The smallest (`op` is `<`) or largest (`>`) number of the list argument.
fn bound(ev: &mut Evaluator, args: &[Expr], op: BinOp) -> Value {
    let nums = match list_arg(ev, args).and_then(|l| numbers(ev, &l)) {
        Ok(n) => n,
        Err(e) => return e,
    };
    let mut it = nums.into_iter();
    let Some(mut best) = it.next() else {
        return Value::Undefined;
    };
    for mut v in it {
        promote(&mut v, &mut best);
        if ops::binary(op, v.clone(), best.clone()).is_true() {
            best = v;
        }
    }
    best
}

fn min(ev: &mut Evaluator, args: &[Expr]) -> Value {
    bound(ev, args, BinOp::Lt)
}

fn max(ev: &mut Evaluator, args: &[Expr]) -> Value {
    bound(ev, args, BinOp::Gt)
}

/// member (`==`, strict in its first argument) and identicalMember (`is`).
fn test_member(ev: &mut Evaluator, args: &[Expr], identical: bool) -> Value {
    let [a, b] = args else {
        return Value::Error;
    };
    let mut x = ev.eval(a);
    let lv = ev.eval(b);
    if lv.is_undefined() || (!identical && x.is_undefined()) {
        return Value::Undefined;
    }
    let Value::List(l) = lv else {
        return Value::Error;
    };
    if matches!(x, Value::List(_) | Value::Ad(_)) || (!identical && x.is_error()) {
        return Value::Error;
    }
    let op = if identical { BinOp::Is } else { BinOp::Eq };
    for mut item in ev.arg_items(&l) {
        if !identical {
            promote(&mut item, &mut x);
        }
        if ops::binary(op, item, x.clone()).is_true() {
            return Value::Bool(true);
        }
    }
    Value::Bool(false)
}

fn member(ev: &mut Evaluator, args: &[Expr]) -> Value {
    test_member(ev, args, false)
}

fn identical_member(ev: &mut Evaluator, args: &[Expr]) -> Value {
    test_member(ev, args, true)
}

/// The operator named by anyCompare's first argument (exact spelling only).
fn compare_op(name: &str) -> Option<BinOp> {
    Some(match name {
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        "!=" => BinOp::Ne,
        "==" => BinOp::Eq,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "is" => BinOp::Is,
        "isnt" => BinOp::Isnt,
        _ => return None,
    })
}

/// anyCompare (`all` false) and allCompare (`all` true): `item op value` over the list.
/// An UNDEFINED comparison ends the walk: allCompare answers false, anyCompare what it has.
fn list_compare(ev: &mut Evaluator, args: &[Expr], all: bool) -> Value {
    let [o, l, x] = args else {
        return Value::Error;
    };
    let op = match ev.eval(o) {
        Value::Undefined => return Value::Undefined,
        Value::Str(s) => match compare_op(&s) {
            Some(op) => op,
            None => return Value::Error,
        },
        _ => return Value::Error,
    };
    let l = match ev.eval(l) {
        Value::List(l) => l,
        Value::Undefined => return Value::Undefined,
        _ => return Value::Error,
    };
    let mut x = ev.eval(x);
    for mut item in ev.arg_items(&l) {
        if !matches!(op, BinOp::Is | BinOp::Isnt) {
            promote(&mut item, &mut x);
        }
        match ops::binary(op, item, x.clone()) {
            Value::Bool(b) if b != all => return Value::Bool(b),
            Value::Bool(_) => {}
            Value::Undefined => return Value::Bool(false),
            _ => return Value::Error,
        }
    }
    Value::Bool(all)
}

fn any_compare(ev: &mut Evaluator, args: &[Expr]) -> Value {
    list_compare(ev, args, false)
}

fn all_compare(ev: &mut Evaluator, args: &[Expr]) -> Value {
    list_compare(ev, args, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ev;

    #[test]
    fn sizes() {
        assert!(matches!(ev("size(\"abc\")"), Value::Int(3)));
        assert!(matches!(ev("size({1, 2})"), Value::Int(2)));
        assert!(matches!(ev("size([a = 1; b = 2])"), Value::Int(2)));
        assert!(matches!(ev("size(1)"), Value::Error));
    }

    #[test]
    fn aggregates() {
        assert!(matches!(ev("sum({})"), Value::Int(0)));
        assert!(matches!(ev("sum({1, undefined, 2.5})"), Value::Real(r) if r == 3.5));
        assert!(matches!(ev("sum({1e308, 1e308})"), Value::Error));
        assert!(matches!(ev("avg({1, 2})"), Value::Real(r) if r == 1.5));
        assert!(matches!(ev("min({1, 1.0})"), Value::Real(r) if r == 1.0));
        assert!(matches!(ev("max({false, true})"), Value::Int(1)));
        assert!(matches!(ev("max({})"), Value::Undefined));
        assert!(matches!(ev("min({\"a\", 1})"), Value::Error));
    }

    #[test]
    fn membership_and_compare() {
        assert!(ev("member(\"a\", {\"A\"})").is_true());
        assert!(matches!(ev("member(1, {error})"), Value::Bool(false)));
        assert!(ev("identicalMember(undefined, {undefined})").is_true());
        assert!(matches!(ev("anyCompare(\"=?=\", {1.0}, 1)"), Value::Error));
        assert!(matches!(
            ev("anyCompare(\"<=\", {undefined, 1}, 1)"),
            Value::Bool(false)
        ));
        assert!(ev("allCompare(\"<\", {}, 2)").is_true());
        assert!(matches!(
            ev("allCompare(\">\", {2, undefined}, 1)"),
            Value::Bool(false)
        ));
    }
}
