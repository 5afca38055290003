//! Built-in functions: math family (floor, ceiling, round, pow, quantize, random).

use rand::Rng;

use super::convert::{one_arg, to_real};
use super::Builtin;
use crate::ast::Expr;
use crate::calendar::c_cast_i64;
use crate::eval::Evaluator;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "floor",
        f: floor,
    },
    Builtin {
        name: "ceiling",
        f: ceiling,
    },
    Builtin {
        name: "ceil",
        f: ceiling,
    },
    Builtin {
        name: "round",
        f: round,
    },
    Builtin {
        name: "pow",
        f: pow,
    },
    Builtin {
        name: "quantize",
        f: quantize,
    },
    Builtin {
        name: "random",
        f: random,
    },
];

/// An integer stays as it is; anything else converts to a real (UNDEFINED does not: it is
/// ERROR here), is rounded by `op` and cast to an integer the way C casts.
fn round_with(ev: &mut Evaluator, args: &[Expr], op: fn(f64) -> f64) -> Value {
    match one_arg(ev, args) {
        Some(Value::Int(i)) => Value::Int(i),
        Some(v) => to_real(&v).map_or(Value::Error, |r| Value::Int(c_cast_i64(op(r)))),
        None => Value::Error,
    }
}

fn floor(ev: &mut Evaluator, args: &[Expr]) -> Value {
    round_with(ev, args, f64::floor)
}

fn ceiling(ev: &mut Evaluator, args: &[Expr]) -> Value {
    round_with(ev, args, f64::ceil)
}

fn round(ev: &mut Evaluator, args: &[Expr]) -> Value {
    // C's rint in the default rounding mode: halves go to the even neighbour.
    round_with(ev, args, f64::round_ties_even)
}

/// The values of exactly two arguments.
fn two_args(ev: &mut Evaluator, args: &[Expr]) -> Option<(Value, Value)> {
    match args {
        [a, b] => Some((ev.eval(a), ev.eval(b))),
        _ => None,
    }
}

fn pow(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let Some((x, y)) = two_args(ev, args) else {
        return Value::Error;
    };
    match (&x, &y) {
        // HTCondor computes integer powers in doubles and adds 0.5 before truncating,
        // so pow(-2, 3) is -7 and results beyond 2^63 become i64::MIN.
        (Value::Int(a), Value::Int(b)) if *b >= 0 => {
            Value::Int(c_cast_i64((*a as f64).powf(*b as f64) + 0.5))
        }
        _ => match (to_real(&x), to_real(&y)) {
            (Ok(a), Ok(b)) => Value::Real(a.powf(b)),
            _ => Value::Error,
        },
    }
}

/// quantize(x, base): x rounded up to a multiple of base. When base is a list, the first item
/// at least x is the answer as it is, else x is rounded up to multiples of the last item.
fn quantize(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let Some((x, base)) = two_args(ev, args) else {
        return Value::Error;
    };
    let Ok(rx) = to_real(&x) else {
        return Value::Error;
    };
    let base = match base {
        Value::List(l) => {
            // An empty list means no quantizing (a base of 0.0).
            let mut last = Value::Real(0.0);
            for item in ev.arg_items(&l) {
                match to_real(&item) {
                    Ok(r) if r >= rx => return item,
                    Ok(_) => last = item,
                    Err(_) => return Value::Error,
                }
            }
            last
        }
        b => b,
    };
    quantize_to(x, rx, &base)
}

fn quantize_to(x: Value, rx: f64, base: &Value) -> Value {
    if let Value::Int(ib) = *base {
        return match x {
            _ if ib == 0 => x,
            // Integer arithmetic as C does it, wrapping on overflow.
            Value::Int(ix) => Value::Int(
                ix.wrapping_add(ib.wrapping_sub(1))
                    .wrapping_div(ib)
                    .wrapping_mul(ib),
            ),
            _ => Value::Real((rx / ib as f64).ceil() * ib as f64),
        };
    }
    match to_real(base) {
        Ok(rb) if rb.abs() <= 1e-8 => x,
        Ok(rb) => Value::Real((rx / rb).ceil() * rb),
        Err(_) => Value::Error,
    }
}

/// random(): a real in [0, 1); random(n): an integer in [0, n); random(r): a real in [0, r).
fn random(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let limit = match args {
        [] => Value::Real(1.0),
        [a] => ev.eval(a),
        _ => return Value::Error,
    };
    let mut rng = rand::thread_rng();
    match limit {
        // HTCondor reads the limit into a C int, so only its low 32 bits count.
        Value::Int(n) => match n as i32 {
            m if m > 0 => Value::Int(i64::from(rng.gen_range(0..m))),
            _ => Value::Error,
        },
        Value::Real(r) if r > 0.0 => Value::Real(r * rng.gen::<f64>()),
        _ => Value::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ev;

    fn int(s: &str) -> Option<i64> {
        match ev(s) {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    #[test]
    fn rounding() {
        assert_eq!(int("floor(2.5)"), Some(2));
        assert_eq!(int("ceiling(\"2.1\")"), Some(3));
        assert_eq!(int("round(2.5)"), Some(2));
        assert_eq!(int("round(-3.5)"), Some(-4));
        assert_eq!(int("ceiling(-1e30)"), Some(i64::MIN));
        assert!(matches!(ev("floor(undefined)"), Value::Error));
    }

    #[test]
    fn powers() {
        assert_eq!(int("pow(2, 10)"), Some(1024));
        assert_eq!(int("pow(-2, 3)"), Some(-7));
        assert_eq!(int("pow(2, 64)"), Some(i64::MIN));
        assert!(matches!(ev("pow(2, -1)"), Value::Real(r) if r == 0.5));
        assert!(matches!(ev("pow(2, undefined)"), Value::Error));
    }

    #[test]
    fn quantizing() {
        assert_eq!(int("quantize(5, 2)"), Some(6));
        assert_eq!(int("quantize(-3, 2)"), Some(-2));
        assert_eq!(int("quantize(45, {10, 20})"), Some(60));
        assert!(matches!(ev("quantize(3.3, {1, 3, 0.25})"), Value::Real(r) if r == 3.5));
        assert!(matches!(ev("quantize(3, {undefined})"), Value::Error));
    }

    #[test]
    fn randoms() {
        assert!(matches!(ev("random()"), Value::Real(r) if (0.0..1.0).contains(&r)));
        assert!(matches!(ev("random(10)"), Value::Int(i) if (0..10).contains(&i)));
        assert!(matches!(ev("random(0)"), Value::Error));
        assert!(matches!(ev("random(\"a\")"), Value::Error));
    }
}
