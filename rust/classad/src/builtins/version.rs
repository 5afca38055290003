//! Version comparison: versioncmp, versionLT/LE/GT/GE/EQ, version_in_range.

use super::strings::{compare_text, to_text};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "versioncmp",
        f: versioncmp,
    },
    Builtin {
        name: "versionLT",
        f: version_lt,
    },
    Builtin {
        name: "versionLE",
        f: version_le,
    },
    Builtin {
        name: "versionGT",
        f: version_gt,
    },
    Builtin {
        name: "versionGE",
        f: version_ge,
    },
    Builtin {
        name: "versionEQ",
        f: version_eq,
    },
    Builtin {
        name: "version_in_range",
        f: version_in_range,
    },
];

/// HTCondor's `natural_cmp` (strverscmp-like): digit runs compare as numbers, and the result
/// is the same C difference of characters (plain `char` is signed) that HTCondor returns.
pub fn natural_cmp(a: &[u8], b: &[u8]) -> i64 {
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    let digit = |s: &[u8], i: usize| at(s, i).is_ascii_digit();
    let mut i = 0;
    while at(a, i) != 0 && at(a, i) == at(b, i) {
        i += 1;
    }
    let diff = i64::from(at(a, i) as i8) - i64::from(at(b, i) as i8);
    if at(a, i) == at(b, i) {
        return 0;
    }
    let mut nb = i;
    while nb > 0 && digit(a, nb - 1) {
        nb -= 1;
    }
    if nb == i && !(digit(a, i) && digit(b, i)) {
        return diff;
    }
    let zeros_end = |s: &[u8]| {
        let mut z = nb;
        while at(s, z) == b'0' {
            z += 1;
        }
        // A final zero of the number is not a leading zero.
        if z > nb && !digit(s, z) {
            z -= 1;
        }
        z
    };
    let (z1, z2) = (zeros_end(a), zeros_end(b));
    if z1 != z2 {
        return z2 as i64 - z1 as i64;
    }
    if z1 > nb {
        return diff;
    }
    let digits_end = |s: &[u8], mut e: usize| {
        while digit(s, e) {
            e += 1;
        }
        e
    };
    let (e1, e2) = (digits_end(a, z1), digits_end(b, z2));
    if e1 != e2 {
        e1 as i64 - e2 as i64
    } else {
        diff
    }
}

fn version_compare(ev: &mut Evaluator, args: &[Expr], f: fn(i64) -> Value) -> Value {
    match compare_text(ev, args, natural_cmp) {
        Value::Int(r) => f(r),
        other => other,
    }
}

fn versioncmp(ev: &mut Evaluator, args: &[Expr]) -> Value {
    version_compare(ev, args, Value::Int)
}

fn version_lt(ev: &mut Evaluator, args: &[Expr]) -> Value {
    version_compare(ev, args, |r| Value::Bool(r < 0))
}

fn version_le(ev: &mut Evaluator, args: &[Expr]) -> Value {
    version_compare(ev, args, |r| Value::Bool(r <= 0))
}

fn version_gt(ev: &mut Evaluator, args: &[Expr]) -> Value {
    version_compare(ev, args, |r| Value::Bool(r > 0))
}

fn version_ge(ev: &mut Evaluator, args: &[Expr]) -> Value {
    version_compare(ev, args, |r| Value::Bool(r >= 0))
}

fn version_eq(ev: &mut Evaluator, args: &[Expr]) -> Value {
    version_compare(ev, args, |r| Value::Bool(r == 0))
}

/// `version_in_range(v, min, max)`: only an UNDEFINED bound gives UNDEFINED (an UNDEFINED
/// `v` cannot become text, so it gives ERROR, as in HTCondor).
fn version_in_range(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [t, lo, hi] = args else {
        return Value::Error;
    };
    let (t, lo, hi) = (ev.eval(t), ev.eval(lo), ev.eval(hi));
    if lo.is_undefined() || hi.is_undefined() {
        return Value::Undefined;
    }
    match (to_text(&t), to_text(&lo), to_text(&hi)) {
        (Ok(t), Ok(lo), Ok(hi)) => Value::Bool(
            natural_cmp(lo.as_bytes(), t.as_bytes()) <= 0
                && natural_cmp(t.as_bytes(), hi.as_bytes()) <= 0,
        ),
        _ => Value::Error,
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::ev;
    use crate::Value;

    #[test]
    fn versions_compare_digit_runs_as_numbers() {
        assert!(matches!(ev(r#"versioncmp("1.2", "1.10")"#), Value::Int(-1)));
        assert!(matches!(ev(r#"versioncmp("020", "08")"#), Value::Int(-6)));
        assert!(matches!(ev(r#"versioncmp("", "1")"#), Value::Int(-49)));
        assert!(matches!(
            ev(r#"versionLE("8.9.10", "8.10.9")"#),
            Value::Bool(true)
        ));
        assert!(matches!(
            ev(r#"version_in_range("2.0", "1.0", "2.0")"#),
            Value::Bool(true)
        ));
        assert!(matches!(
            ev(r#"versionEQ(undefined, "1")"#),
            Value::Undefined
        ));
    }
}
