//! String functions: strcat, join, substr, case, comparison, split.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::unparse::unparse_value;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "strcat",
        f: strcat,
    },
    Builtin {
        name: "join",
        f: join,
    },
    Builtin {
        name: "toUpper",
        f: to_upper,
    },
    Builtin {
        name: "toLower",
        f: to_lower,
    },
    Builtin {
        name: "substr",
        f: substr,
    },
    Builtin {
        name: "strcmp",
        f: strcmp,
    },
    Builtin {
        name: "stricmp",
        f: stricmp,
    },
    Builtin {
        name: "split",
        f: split,
    },
    Builtin {
        name: "splitUserName",
        f: split_user_name,
    },
    Builtin {
        name: "splitSlotName",
        f: split_slot_name,
    },
];

/// HTCondor's `convertValueToStringValue`: the text of any value, as strcat and friends see
/// it. Reals, lists and ads print as their unparse; times print without the `absTime(...)`
/// wrapper. UNDEFINED and ERROR come back as `Err` with themselves.
pub fn to_text(v: &Value) -> Result<Cow<'_, str>, Value> {
    match v {
        Value::Undefined => Err(Value::Undefined),
        Value::Error => Err(Value::Error),
        Value::Str(s) => Ok(Cow::Borrowed(s)),
        Value::AbsTime { secs, offset } => {
            Ok(crate::timefmt::format_abstime(*secs, *offset).into())
        }
        Value::RelTime(d) => Ok(crate::timefmt::format_reltime(*d).into()),
        other => Ok(unparse_value(other).into()),
    }
}

/// C's `isspace` in the "C" locale.
pub fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Bytes back to a string value; a cut through a multi-byte character becomes U+FFFD.
fn bytes_value(b: &[u8]) -> Value {
    Value::string(String::from_utf8_lossy(b).into_owned())
}

fn strcat(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let mut buf = String::new();
    for a in args {
        // HTCondor stops at the first UNDEFINED or ERROR argument and returns it.
        match to_text(&ev.eval(a)) {
            Ok(s) => buf.push_str(&s),
            Err(e) => return e,
        }
    }
    Value::string(buf)
}

/// `join(sep, a, b, ...)`, `join(sep, list)` and `join(list)`.
fn join(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let mut vals: Vec<Value> = Vec::with_capacity(args.len());
    if let (1..=2, Some(last)) = (args.len(), args.last()) {
        let lv = ev.eval(last);
        if let Value::List(l) = &lv {
            let sep = match args.first() {
                Some(first) if args.len() == 2 => ev.eval(first),
                _ => Value::str(""),
            };
            vals.push(sep);
            vals.extend(ev.arg_items(l));
            return join_values(&vals);
        }
        if let Some(first) = args.first().filter(|_| args.len() == 2) {
            vals.push(ev.eval(first));
        }
        vals.push(lv);
    } else {
        vals = super::strict_args(ev, args);
    }
    join_values(&vals)
}

/// The first value is the separator; UNDEFINED items are skipped, and the result is UNDEFINED
/// only when no item was defined.
fn join_values(vals: &[Value]) -> Value {
    let (mut sep, mut buf) = (String::new(), String::new());
    let (mut undef, mut def) = (false, false);
    for (i, v) in vals.iter().enumerate() {
        let s = match to_text(v) {
            Ok(s) => s,
            Err(Value::Undefined) => {
                undef = true;
                continue;
            }
            Err(_) => return Value::Error,
        };
        if i == 0 {
            sep = s.into_owned();
            continue;
        }
        // HTCondor puts the separator only after a non-empty prefix.
        if !buf.is_empty() {
            buf.push_str(&sep);
        }
        def = true;
        buf.push_str(&s);
    }
    if undef && !def {
        Value::Undefined
    } else {
        Value::string(buf)
    }
}

fn change_case(ev: &mut Evaluator, args: &[Expr], upper: bool) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    match to_text(&ev.eval(a)) {
        // C's toupper/tolower in the "C" locale: ASCII letters only.
        Ok(s) if upper => Value::string(s.to_ascii_uppercase()),
        Ok(s) => Value::string(s.to_ascii_lowercase()),
        Err(e) => e,
    }
}

fn to_upper(ev: &mut Evaluator, args: &[Expr]) -> Value {
    change_case(ev, args, true)
}

fn to_lower(ev: &mut Evaluator, args: &[Expr]) -> Value {
    change_case(ev, args, false)
}

/// An integer argument as the C++ `int` it is read into (the high bits are dropped).
fn c_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(i64::from(*i as i32)),
        _ => None,
    }
}

/// `substr(s, offset [, length])`, Perl-like: negative values count from the end.
fn substr(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !(2..=3).contains(&args.len()) {
        return Value::Error;
    }
    let vals = super::strict_args(ev, args);
    if vals.iter().any(Value::is_undefined) {
        return Value::Undefined;
    }
    let (Some(Value::Str(s)), Some(off)) = (vals.first(), vals.get(1).and_then(c_int)) else {
        return Value::Error;
    };
    let len = match vals.get(2) {
        Some(v) => match c_int(v) {
            Some(l) => Some(l),
            None => return Value::Error,
        },
        None => None,
    };
    let bytes = s.as_bytes();
    let (start, n) = substr_range(bytes.len() as i64, off, len);
    bytes_value(bytes.get(start..start + n).unwrap_or_default())
}

/// Start and length of `substr` on a string of `alen` bytes, clamped as HTCondor does.
fn substr_range(alen: i64, off: i64, len: Option<i64>) -> (usize, usize) {
    let off = if off < 0 {
        (alen + off).max(0)
    } else {
        off.min(alen)
    };
    let given = len.unwrap_or(0);
    let mut n = if given <= 0 {
        (alen - off + given).max(0)
    } else {
        given.min(alen - off)
    };
    if len == Some(0) {
        n = 0;
    }
    (off as usize, n as usize)
}

/// Two arguments: UNDEFINED if either is, else both as text, compared by `cmp`.
pub(crate) fn compare_text(
    ev: &mut Evaluator,
    args: &[Expr],
    cmp: fn(&[u8], &[u8]) -> i64,
) -> Value {
    let [a, b] = args else {
        return Value::Error;
    };
    let (va, vb) = (ev.eval(a), ev.eval(b));
    if va.is_undefined() || vb.is_undefined() {
        return Value::Undefined;
    }
    match (to_text(&va), to_text(&vb)) {
        (Ok(x), Ok(y)) => Value::Int(cmp(x.as_bytes(), y.as_bytes())),
        _ => Value::Error,
    }
}

fn ordering_int(o: Ordering) -> i64 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn strcmp(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_text(ev, args, |a, b| ordering_int(a.cmp(b)))
}

fn stricmp(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_text(ev, args, |a, b| {
        let lower = |s: &[u8]| s.iter().map(u8::to_ascii_lowercase).collect::<Vec<_>>();
        ordering_int(lower(a).cmp(&lower(b)))
    })
}

fn string_list(items: Vec<Value>) -> Value {
    Value::list_of(items.into_iter().map(Expr::Lit).collect())
}

/// `split(s [, separators])`: separators default to comma and blanks; whitespace runs and a
/// single separator mixed with whitespace count once, but `a,,b` has an empty middle item.
fn split(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !(1..=2).contains(&args.len()) {
        return Value::Error;
    }
    let vals = super::strict_args(ev, args);
    let seps = match vals.get(1) {
        None => ", \t",
        Some(Value::Str(s)) => s,
        Some(_) => return Value::Error,
    };
    match vals.first() {
        Some(Value::Str(s)) => string_list(split_items(s.as_bytes(), seps.as_bytes())),
        _ => Value::Error,
    }
}

fn split_items(s: &[u8], seps: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut last = 0;
    // The last non-blank separator seen: a repeat of it right after makes an empty item.
    let mut prev: Option<u8> = None;
    if !seps.is_empty() {
        for (ix, &c) in s.iter().enumerate().filter(|(_, c)| seps.contains(c)) {
            if ix > last {
                out.push(bytes_value(s.get(last..ix).unwrap_or_default()));
            } else if prev == Some(c) {
                out.push(Value::str(""));
            }
            if !is_c_space(c) {
                prev = Some(c);
            }
            last = ix + 1;
        }
    }
    if s.len() > last {
        out.push(bytes_value(s.get(last..).unwrap_or_default()));
    }
    out
}

/// `user@domain` / `slot@machine` at the first `@`; without one, the whole string is the
/// user (splitUserName) or the machine (splitSlotName).
fn split_at(ev: &mut Evaluator, args: &[Expr], whole_first: bool) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    let Value::Str(s) = ev.eval(a) else {
        return Value::Error;
    };
    let (first, second) = match s.split_once('@') {
        Some((x, y)) => (x, y),
        None if whole_first => (&*s, ""),
        None => ("", &*s),
    };
    string_list(vec![Value::str(first), Value::str(second)])
}

fn split_user_name(ev: &mut Evaluator, args: &[Expr]) -> Value {
    split_at(ev, args, true)
}

fn split_slot_name(ev: &mut Evaluator, args: &[Expr]) -> Value {
    split_at(ev, args, false)
}

#[cfg(test)]
mod tests {
    use crate::testing::ev;
    use crate::value::Value;

    fn text(v: Value) -> String {
        crate::unparse_value(&v)
    }

    #[test]
    fn strcat_converts_like_htcondor() {
        assert_eq!(
            text(ev("strcat(\"a\", 1, 1.5, true)")),
            "\"a11.500000000000000E+00true\""
        );
        assert!(ev("strcat(\"a\", undefined, error)").is_undefined());
        assert!(ev("strcat(\"a\", error, undefined)").is_error());
    }

    #[test]
    fn join_forms() {
        assert_eq!(text(ev("join(\",\", {\"a\", 1, undefined})")), "\"a,1\"");
        assert_eq!(text(ev("join({\"a\", \"b\"})")), "\"ab\"");
        assert!(ev("join(\",\", undefined)").is_undefined());
    }

    #[test]
    fn substr_clamps() {
        assert_eq!(text(ev("substr(\"hello\", -2)")), "\"lo\"");
        assert_eq!(text(ev("substr(\"hello\", 1, -1)")), "\"ell\"");
        assert_eq!(text(ev("substr(\"hello\", -10, 2)")), "\"he\"");
        assert!(ev("substr(\"hello\", 1.5)").is_error());
    }

    #[test]
    fn compare_and_versions() {
        assert!(matches!(ev("stricmp(\"ABC\", \"abd\")"), Value::Int(-1)));
        assert!(matches!(ev("versioncmp(\"020\", \"08\")"), Value::Int(-6)));
        assert!(matches!(
            ev("versionLT(\"1.2\", \"1.10\")"),
            Value::Bool(true)
        ));
    }

    #[test]
    fn splits() {
        assert_eq!(
            text(ev("split(\"a ; ; b\", \"; \")")),
            "{ \"a\",\"\",\"b\" }"
        );
        assert_eq!(text(ev("splitSlotName(\"host\")")), "{ \"\",\"host\" }");
        assert_eq!(text(ev("splitUserName(\"a@b@c\")")), "{ \"a\",\"b@c\" }");
    }
}
