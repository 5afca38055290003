//! Operator semantics: strict operators, `is`/`isnt`, and three-valued `&&` and `||`.

use std::cmp::Ordering;

use crate::ast::{BinOp, UnOp};
use crate::value::Value;

pub fn unary(op: UnOp, v: Value) -> Value {
    match (op, v) {
        (_, Value::Error) => Value::Error,
        (_, Value::Undefined) => Value::Undefined,
        (UnOp::Neg, Value::Int(i)) => Value::Int(i.wrapping_neg()),
        (UnOp::Neg, Value::Real(r)) => Value::Real(-r),
        (UnOp::Neg, Value::RelTime(r)) => Value::RelTime(-r),
        (UnOp::Plus, v @ (Value::Int(_) | Value::Real(_) | Value::RelTime(_))) => v,
        (UnOp::Not, v) => match v.truth() {
            Some(b) => Value::Bool(!b),
            None => Value::Error,
        },
        (UnOp::BitNot, Value::Int(i)) => Value::Int(!i),
        _ => Value::Error,
    }
}

/// `&&` after its left operand: Some(result) when the right one need not be evaluated.
pub fn and_left(l: &Value) -> Option<Value> {
    logic_left(l, false)
}

pub fn and(l: Value, r: Value) -> Value {
    logic(l, r, false)
}

/// `||` after its left operand: Some(result) when the right one need not be evaluated.
pub fn or_left(l: &Value) -> Option<Value> {
    logic_left(l, true)
}

pub fn or(l: Value, r: Value) -> Value {
    logic(l, r, true)
}

/// The left operand of `&&` (`absorbing` false) or `||` (true): the absorbing value
/// (false for `&&`, true for `||`) decides at once, as does ERROR or a non-boolean.
fn logic_left(l: &Value, absorbing: bool) -> Option<Value> {
    match l {
        Value::Error => Some(Value::Error),
        Value::Undefined => None,
        _ => match l.truth() {
            Some(b) if b == absorbing => Some(Value::Bool(b)),
            Some(_) => None,
            None => Some(Value::Error),
        },
    }
}

/// Both operands known: the right one's truth, except that UNDEFINED on the left stays
/// UNDEFINED unless the right one is the absorbing value.
fn logic(l: Value, r: Value, absorbing: bool) -> Value {
    let rt = match r {
        Value::Error => return Value::Error,
        Value::Undefined => return Value::Undefined,
        _ => match r.truth() {
            Some(b) => b,
            None => return Value::Error,
        },
    };
    match l {
        Value::Undefined if rt != absorbing => Value::Undefined,
        _ => Value::Bool(rt),
    }
}

pub fn binary(op: BinOp, l: Value, r: Value) -> Value {
    match op {
        BinOp::Is => is_identical(&l, &r).map_or(Value::Error, Value::Bool),
        BinOp::Isnt => is_identical(&l, &r).map_or(Value::Error, |b| Value::Bool(!b)),
        BinOp::And => and(l, r),
        BinOp::Or => or(l, r),
        _ => {
            if l.is_error() || r.is_error() {
                return Value::Error;
            }
            if l.is_undefined() || r.is_undefined() {
                return Value::Undefined;
            }
            match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => arith(op, l, r),
                BinOp::BitAnd
                | BinOp::BitOr
                | BinOp::BitXor
                | BinOp::Shl
                | BinOp::Shr
                | BinOp::UShr => bitwise(op, l, r),
                _ => compare(op, &l, &r),
            }
        }
    }
}

/// `=?=`: same type and same value (strings case-sensitively). Two lists of the same kind
/// or two ads cannot be compared (None, which is ERROR); a list written as a literal and
/// one built at run time are different types, so that pair is false, as in HTCondor.
pub fn is_identical(l: &Value, r: &Value) -> Option<bool> {
    Some(match (l, r) {
        (Value::List(a), Value::List(b)) if a.computed != b.computed => false,
        (Value::List(_), Value::List(_)) | (Value::Ad(_), Value::Ad(_)) => return None,
        (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Real(a), Value::Real(b)) => a == b,
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::AbsTime { secs: a, .. }, Value::AbsTime { secs: b, .. }) => a == b,
        (Value::RelTime(a), Value::RelTime(b)) => a == b,
        _ => false,
    })
}

enum Num {
    I(i64),
    R(f64),
}

fn num(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::I(*i)),
        Value::Real(r) => Some(Num::R(*r)),
        Value::Bool(b) => Some(Num::I(i64::from(*b))),
        _ => None,
    }
}

/// A real result; HTCondor reports +infinity from arithmetic as ERROR (but not -infinity).
fn real_result(r: f64) -> Value {
    if r == f64::INFINITY {
        Value::Error
    } else {
        Value::Real(r)
    }
}

fn arith(op: BinOp, l: Value, r: Value) -> Value {
    if let Some(v) = time_arith(op, &l, &r) {
        return v;
    }
    let (Some(a), Some(b)) = (num(&l), num(&r)) else {
        return Value::Error;
    };
    match (a, b) {
        (Num::I(a), Num::I(b)) => int_arith(op, a, b),
        (a, b) => {
            let (x, y) = (as_f(a), as_f(b));
            match op {
                BinOp::Add => real_result(x + y),
                BinOp::Sub => real_result(x - y),
                BinOp::Mul => real_result(x * y),
                BinOp::Div => real_result(x / y),
                _ => Value::Error,
            }
        }
    }
}

fn as_f(n: Num) -> f64 {
    match n {
        Num::I(i) => i as f64,
        Num::R(r) => r,
    }
}

fn int_arith(op: BinOp, a: i64, b: i64) -> Value {
    Value::Int(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => {
            if b == 0 {
                return Value::Error;
            }
            // i64::MIN / -1 overflows; HTCondor answers i64::MAX.
            a.checked_div(b).unwrap_or(i64::MAX)
        }
        BinOp::Mod => {
            if b == 0 {
                return Value::Error;
            }
            a.checked_rem(b).unwrap_or(0)
        }
        _ => return Value::Error,
    })
}

/// Arithmetic on absolute and relative times; None when neither operand is a time.
fn time_arith(op: BinOp, l: &Value, r: &Value) -> Option<Value> {
    let is_time = |v: &Value| matches!(v, Value::AbsTime { .. } | Value::RelTime(_));
    if !is_time(l) && !is_time(r) {
        return None;
    }
    let n = |v: &Value| num(v).map(as_f);
    Some(match (op, l, r) {
        (BinOp::Add, Value::AbsTime { secs, offset }, Value::RelTime(d))
        | (BinOp::Add, Value::RelTime(d), Value::AbsTime { secs, offset }) => Value::AbsTime {
            secs: secs.wrapping_add(*d as i64),
            offset: *offset,
        },
        (BinOp::Sub, Value::AbsTime { secs, offset }, Value::RelTime(d)) => Value::AbsTime {
            secs: secs.wrapping_sub(*d as i64),
            offset: *offset,
        },
        (BinOp::Sub, Value::AbsTime { secs: a, .. }, Value::AbsTime { secs: b, .. }) => {
            Value::RelTime(a.wrapping_sub(*b) as f64)
        }
        (BinOp::Add, Value::RelTime(a), Value::RelTime(b)) => Value::RelTime(a + b),
        (BinOp::Sub, Value::RelTime(a), Value::RelTime(b)) => Value::RelTime(a - b),
        (BinOp::Mul, Value::RelTime(a), x) | (BinOp::Mul, x, Value::RelTime(a)) => match n(x) {
            Some(k) => Value::RelTime(a * k),
            None => Value::Error,
        },
        (BinOp::Div, Value::RelTime(a), x) => match n(x) {
            Some(k) if k != 0.0 => Value::RelTime(a / k),
            _ => Value::Error,
        },
        _ => Value::Error,
    })
}

fn bitwise(op: BinOp, l: Value, r: Value) -> Value {
    let (Value::Int(a), Value::Int(b)) = (l, r) else {
        return Value::Error;
    };
    // Shift counts are taken modulo 64, as the x86 shift instructions do in HTCondor.
    let sh = (b & 63) as u32;
    Value::Int(match op {
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Shl => a.wrapping_shl(sh),
        BinOp::Shr => a.wrapping_shr(sh),
        // HTCondor's logical shift masks the sign-extended result with ~(-1 << (64 - n)),
        // where a shift by 64 is a shift by 0: so `-1 >>> 0` is 0.
        BinOp::UShr if a < 0 => (a >> sh) & !((-1i64).wrapping_shl(64 - sh)),
        BinOp::UShr => a >> sh,
        _ => return Value::Error,
    })
}

fn compare(op: BinOp, l: &Value, r: &Value) -> Value {
    let ord = match (l, r) {
        (Value::Str(a), Value::Str(b)) => Some(cmp_ci(a, b)),
        (Value::AbsTime { secs: a, .. }, Value::AbsTime { secs: b, .. }) => Some(a.cmp(b)),
        (Value::RelTime(a), Value::RelTime(b)) => a.partial_cmp(b),
        _ => match (num(l), num(r)) {
            (Some(Num::I(a)), Some(Num::I(b))) => Some(a.cmp(&b)),
            (Some(a), Some(b)) => as_f(a).partial_cmp(&as_f(b)),
            _ => return Value::Error,
        },
    };
    // NaN compares false with everything, itself included (and != is then true).
    let Some(o) = ord else {
        return Value::Bool(op == BinOp::Ne);
    };
    Value::Bool(match op {
        BinOp::Eq => o == Ordering::Equal,
        BinOp::Ne => o != Ordering::Equal,
        BinOp::Lt => o == Ordering::Less,
        BinOp::Le => o != Ordering::Greater,
        BinOp::Gt => o == Ordering::Greater,
        BinOp::Ge => o != Ordering::Less,
        _ => return Value::Error,
    })
}

/// Case-insensitive (ASCII) string order, as strcasecmp gives it.
pub fn cmp_ci(a: &str, b: &str) -> Ordering {
    let ab = a.bytes().map(|c| c.to_ascii_lowercase());
    let bb = b.bytes().map(|c| c.to_ascii_lowercase());
    ab.cmp(bb)
}
