//! Built-in functions: conversions (int, real, string, bool) and the value conversions they share.

use super::Builtin;
use crate::ast::Expr;
use crate::calendar::c_cast_i64;
use crate::eval::Evaluator;
use crate::timefmt::{format_abstime, format_reltime};
use crate::unparse::unparse_value;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "int",
        f: int,
    },
    Builtin {
        name: "real",
        f: real,
    },
    Builtin {
        name: "string",
        f: string,
    },
    Builtin {
        name: "bool",
        f: boolean,
    },
];

/// The value of the only argument; None when the call has another number of arguments.
pub(super) fn one_arg(ev: &mut Evaluator, args: &[Expr]) -> Option<Value> {
    match args {
        [a] => Some(ev.eval(a)),
        _ => None,
    }
}

/// A relative time as HTCondor reads it into a `time_t`: truncated to whole seconds.
fn reltime_secs(d: f64) -> i64 {
    c_cast_i64(d)
}

/// HTCondor's convertValueToRealValue: the real, or the value to answer instead
/// (UNDEFINED for UNDEFINED, ERROR for everything that does not convert).
pub(super) fn to_real(v: &Value) -> Result<f64, Value> {
    match v {
        Value::Undefined => Err(Value::Undefined),
        Value::Error | Value::List(_) | Value::Ad(_) => Err(Value::Error),
        Value::Str(s) => strtod(s).ok_or(Value::Error),
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::Int(i) => Ok(*i as f64),
        Value::Real(r) => Ok(*r),
        Value::AbsTime { secs, .. } => Ok(*secs as f64),
        Value::RelTime(d) => Ok(reltime_secs(*d) as f64),
    }
}

/// HTCondor's convertValueToIntegerValue: strings go through strtod, reals are truncated.
pub(super) fn to_int(v: &Value) -> Result<i64, Value> {
    match v {
        Value::Undefined => Err(Value::Undefined),
        Value::Error | Value::List(_) | Value::Ad(_) => Err(Value::Error),
        Value::Str(s) => strtod(s).map(c_cast_i64).ok_or(Value::Error),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Int(i) => Ok(*i),
        Value::Real(r) => Ok(c_cast_i64(*r)),
        Value::AbsTime { secs, .. } => Ok(*secs),
        Value::RelTime(d) => Ok(reltime_secs(*d)),
    }
}

/// HTCondor's convertValueToStringValue: strings as they are, times in their text form,
/// everything else unparsed.
pub(super) fn to_string_value(v: &Value) -> Value {
    match v {
        Value::Undefined | Value::Error | Value::Str(_) => v.clone(),
        Value::AbsTime { secs, offset } => Value::string(format_abstime(*secs, *offset)),
        Value::RelTime(d) => Value::string(format_reltime(reltime_secs(*d) as f64)),
        _ => Value::string(unparse_value(v)),
    }
}

fn int(ev: &mut Evaluator, args: &[Expr]) -> Value {
    match one_arg(ev, args) {
        Some(v) => to_int(&v).map_or_else(|e| e, Value::Int),
        None => Value::Error,
    }
}

fn real(ev: &mut Evaluator, args: &[Expr]) -> Value {
    match one_arg(ev, args) {
        Some(v) => to_real(&v).map_or_else(|e| e, Value::Real),
        None => Value::Error,
    }
}

fn string(ev: &mut Evaluator, args: &[Expr]) -> Value {
    one_arg(ev, args).map_or(Value::Error, |v| to_string_value(&v))
}

fn boolean(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let Some(v) = one_arg(ev, args) else {
        return Value::Error;
    };
    match v {
        Value::Undefined => Value::Undefined,
        Value::Bool(_) => v,
        Value::Int(i) => Value::Bool(i != 0),
        Value::Real(r) => Value::Bool(r != 0.0),
        Value::RelTime(d) => Value::Bool(reltime_secs(d) != 0),
        // Only the words true and false, in any case; anything else is not a boolean.
        Value::Str(s) if s.eq_ignore_ascii_case("true") => Value::Bool(true),
        Value::Str(s) if s.eq_ignore_ascii_case("false") => Value::Bool(false),
        Value::Str(_) => Value::Undefined,
        _ => Value::Error,
    }
}

/// C's strtod on the start of `s`: leading white space, a sign, then a decimal or hex number,
/// `inf`/`infinity` or `nan`. Trailing text is ignored; None when no number starts the text.
pub(crate) fn strtod(s: &str) -> Option<f64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, t.get(1..).unwrap_or("")),
        Some(b'+') => (false, t.get(1..).unwrap_or("")),
        _ => (false, t),
    };
    let starts = |p: &str| {
        body.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    };
    let mag = if starts("inf") {
        f64::INFINITY
    } else if starts("nan") {
        f64::NAN
    } else if let Some(h) = parse_hex(body) {
        h
    } else {
        parse_decimal(body)?
    };
    Some(if neg { -mag } else { mag })
}

/// The run of ASCII digits (in `radix`) at the start of `b`.
fn digit_run(b: &[u8], radix: u32) -> usize {
    b.iter()
        .take_while(|c| char::from(**c).is_digit(radix))
        .count()
}

/// A decimal number at the start of `body`: digits, an optional fraction and exponent.
fn parse_decimal(body: &str) -> Option<f64> {
    let b = body.as_bytes();
    let int_len = digit_run(b, 10);
    let mut end = int_len;
    let mut frac_len = 0;
    if b.get(end) == Some(&b'.') {
        frac_len = digit_run(b.get(end + 1..).unwrap_or(&[]), 10);
        end += 1 + frac_len;
    }
    if int_len + frac_len == 0 {
        return None;
    }
    // An exponent counts only when digits follow the `e` and its sign.
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp_len = digit_run(b.get(end + 1 + sign..).unwrap_or(&[]), 10);
        if exp_len > 0 {
            end += 1 + sign + exp_len;
        }
    }
    let text = body.get(..end)?;
    // Rust's parser wants a digit before the point; C does not.
    let fixed = if int_len == 0 {
        format!("0{text}")
    } else {
        text.to_string()
    };
    fixed.parse::<f64>().ok()
}

/// A C99 hex float (`0x1.8p3`) at the start of `body`; None when there is none.
fn parse_hex(body: &str) -> Option<f64> {
    let b = body.as_bytes();
    if !matches!(b.get(..2), Some([b'0', b'x' | b'X'])) {
        return None;
    }
    let rest = b.get(2..)?;
    let int_len = digit_run(rest, 16);
    let mut end = int_len;
    let mut frac_len = 0;
    if rest.get(end) == Some(&b'.') {
        frac_len = digit_run(rest.get(end + 1..).unwrap_or(&[]), 16);
        end += 1 + frac_len;
    }
    if int_len + frac_len == 0 {
        return None;
    }
    let mut mant = 0.0f64;
    let digits = rest
        .iter()
        .take(end)
        .filter_map(|c| char::from(*c).to_digit(16));
    for d in digits {
        mant = mant * 16.0 + f64::from(d);
    }
    let mut exp = -4 * frac_len as i64;
    if matches!(rest.get(end), Some(b'p' | b'P')) {
        let neg = rest.get(end + 1) == Some(&b'-');
        let sign = usize::from(matches!(rest.get(end + 1), Some(b'+' | b'-')));
        let from = end + 1 + sign;
        let len = digit_run(rest.get(from..).unwrap_or(&[]), 10);
        if len > 0 {
            let text = std::str::from_utf8(rest.get(from..from + len)?).ok()?;
            let e = text.parse::<i64>().unwrap_or(i64::MAX / 2).min(100_000);
            exp += if neg { -e } else { e };
        }
    }
    Some(mant * 2f64.powi(exp.clamp(-100_000, 100_000) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ev;

    #[test]
    fn strtod_prefixes() {
        assert_eq!(strtod(" 42 "), Some(42.0));
        assert_eq!(strtod("3abc"), Some(3.0));
        assert_eq!(strtod(".5"), Some(0.5));
        assert_eq!(strtod("1e"), Some(1.0));
        assert_eq!(strtod("0x10"), Some(16.0));
        assert_eq!(strtod("0x1p3"), Some(8.0));
        assert_eq!(strtod("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(strtod("nan(1)").is_some_and(f64::is_nan));
        assert_eq!(strtod("+.e1"), None);
        assert_eq!(strtod("  "), None);
    }

    #[test]
    fn int_quirks() {
        assert!(matches!(ev("int(-3.7)"), Value::Int(-3)));
        assert!(matches!(ev("int(\"1e3\")"), Value::Int(1000)));
        assert!(matches!(ev("int(-1e30)"), Value::Int(i64::MIN)));
        assert!(matches!(ev("int(real(\"INF\"))"), Value::Int(i64::MIN)));
        assert!(matches!(ev("int(\"abc\")"), Value::Error));
        assert!(matches!(ev("int(undefined)"), Value::Undefined));
    }

    #[test]
    fn string_and_bool() {
        assert_eq!(ev("string(1.5)").as_str(), Some("1.500000000000000E+00"));
        assert_eq!(ev("string({3, 1, 2})").as_str(), Some("{ 3,1,2 }"));
        // relTime() belongs to the time family; test the conversion itself.
        let rel = to_string_value(&Value::RelTime(-5.5));
        assert_eq!(rel.as_str(), Some("-05"));
        assert!(matches!(ev("bool(\"True\")"), Value::Bool(true)));
        assert!(matches!(ev("bool(\"yes\")"), Value::Undefined));
        assert!(matches!(ev("bool([a = 1])"), Value::Error));
        assert!(matches!(ev("real(\"nan\")"), Value::Real(r) if r.is_nan()));
    }
}
