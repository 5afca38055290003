//! String-list functions: `stringList*` over delimited strings such as `"a, b, c"`.

use std::collections::HashSet;

use super::strings::is_c_space;
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "stringListSize",
        f: size,
    },
    Builtin {
        name: "stringListSum",
        f: sum,
    },
    Builtin {
        name: "stringListAvg",
        f: avg,
    },
    Builtin {
        name: "stringListMin",
        f: min,
    },
    Builtin {
        name: "stringListMax",
        f: max,
    },
    Builtin {
        name: "stringListMember",
        f: member,
    },
    Builtin {
        name: "stringListIMember",
        f: imember,
    },
    Builtin {
        name: "stringListSubsetMatch",
        f: subset_match,
    },
    Builtin {
        name: "stringListISubsetMatch",
        f: isubset_match,
    },
    Builtin {
        name: "stringListsIntersect",
        f: intersect,
    },
    Builtin {
        name: "stringList_regexpMember",
        f: regexp_member,
    },
];

/// The delimiters of most stringList functions when none are given.
const DEFAULT_DELIMS: &str = ", ";

/// HTCondor's `StringTokenIterator`: items are separated by any delimiter character; blanks
/// and delimiters before an item are skipped, blanks after it trimmed; no item is empty.
pub fn tokens(s: &str, delims: &str) -> Vec<String> {
    let (s, d) = (s.as_bytes(), delims.as_bytes());
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        while s.get(i).is_some_and(|c| d.contains(c) || is_c_space(*c)) {
            i += 1;
        }
        let start = i;
        while s.get(i).is_some_and(|c| !d.contains(c)) {
            i += 1;
        }
        let mut end = i;
        while end > start && s.get(end - 1).copied().is_some_and(is_c_space) {
            end -= 1;
        }
        if end > start {
            out.push(String::from_utf8_lossy(s.get(start..end).unwrap_or_default()).into_owned());
        }
    }
    out
}

/// Evaluate a list argument and an optional delimiter argument; both must be strings.
fn list_and_delims(ev: &mut Evaluator, args: &[Expr]) -> Option<(String, String)> {
    if !(1..=2).contains(&args.len()) {
        return None;
    }
    let vals = super::strict_args(ev, args);
    let list = vals.first()?.as_str()?.to_string();
    let delims = match vals.get(1) {
        Some(v) => v.as_str()?.to_string(),
        None => DEFAULT_DELIMS.to_string(),
    };
    Some((list, delims))
}

fn size(ev: &mut Evaluator, args: &[Expr]) -> Value {
    match list_and_delims(ev, args) {
        Some((l, d)) => Value::Int(tokens(&l, &d).len() as i64),
        None => Value::Error,
    }
}

#[derive(Clone, Copy)]
enum Summary {
    Sum,
    Avg,
    Min,
    Max,
}

/// Sum, average, minimum or maximum of the numbers of a string list. The result is an
/// integer unless some item has a character outside `+-0123456789`. As in HTCondor, min
/// starts from FLT_MAX and max from FLT_MIN (a tiny positive number), so the maximum of
/// negative integers is 0.
fn summarize(ev: &mut Evaluator, args: &[Expr], kind: Summary) -> Value {
    let Some((l, d)) = list_and_delims(ev, args) else {
        return Value::Error;
    };
    let items = tokens(&l, &d);
    let mut acc = match kind {
        Summary::Sum | Summary::Avg => 0.0,
        Summary::Min => f64::from(f32::MAX),
        Summary::Max => f64::from(f32::MIN_POSITIVE),
    };
    let mut is_real = false;
    for item in &items {
        let Some(x) = scan_double(item.as_bytes()) else {
            return Value::Error;
        };
        is_real |= !item.bytes().all(|c| b"+-0123456789".contains(&c));
        acc = match kind {
            Summary::Sum | Summary::Avg => acc + x,
            Summary::Min if x < acc => x,
            Summary::Max if x > acc => x,
            _ => acc,
        };
    }
    if items.is_empty() {
        return match kind {
            Summary::Sum | Summary::Avg => Value::Real(0.0),
            _ => Value::Undefined,
        };
    }
    if let Summary::Avg = kind {
        acc /= items.len() as f64;
    }
    if is_real {
        Value::Real(acc)
    } else {
        Value::Int(c_double_to_i64(acc))
    }
}

/// C's `(long long)x` on x86-64: out of range and NaN give the minimum integer.
fn c_double_to_i64(x: f64) -> i64 {
    // 2^63 is exactly representable; the valid range is [-2^63, 2^63).
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if !(-TWO_63..TWO_63).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// `sscanf("%lf")`: the number at the start of `s` (decimal, hex, inf, nan), if any.
fn scan_double(s: &[u8]) -> Option<f64> {
    let mut i = s.iter().take_while(|c| is_c_space(**c)).count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let rest = s.get(i..).unwrap_or_default();
    let lower: Vec<u8> = rest.iter().take(3).map(u8::to_ascii_lowercase).collect();
    let x = if lower == b"inf" {
        f64::INFINITY
    } else if lower == b"nan" {
        f64::NAN
    } else if lower.starts_with(b"0x") {
        // glibc's scanf, unlike strtod, fails on a `0x` without hex digits.
        scan_hex(rest.get(2..).unwrap_or_default())?
    } else {
        scan_decimal(rest)?
    };
    Some(if neg { -x } else { x })
}

/// The longest decimal-number prefix of `s`, parsed.
fn scan_decimal(s: &[u8]) -> Option<f64> {
    let digits = |from: usize| {
        s.iter()
            .skip(from)
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let int = digits(0);
    let mut end = int;
    let mut frac = 0;
    if s.get(end) == Some(&b'.') {
        frac = digits(end + 1);
        end += 1 + frac;
    }
    if int + frac == 0 {
        return None;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(s.get(end + 1), Some(b'+' | b'-')));
        let exp = digits(end + 1 + sign);
        if exp > 0 {
            end += 1 + sign + exp;
        }
    }
    std::str::from_utf8(s.get(..end)?).ok()?.parse().ok()
}

/// Hex digits `h[.h][p[+-]d]` after `0x`; None when there is no hex digit.
fn scan_hex(s: &[u8]) -> Option<f64> {
    let mut v = 0.0f64;
    let (mut i, mut scale, mut seen, mut in_frac) = (0, 0i32, false, false);
    while let Some(&c) = s.get(i) {
        if c == b'.' && !in_frac {
            in_frac = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            v = v * 16.0 + f64::from(d);
            seen = true;
            scale -= if in_frac { 4 } else { 0 };
        } else {
            break;
        }
        i += 1;
    }
    if !seen {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let tail = s.get(i + 1..).unwrap_or_default();
        let sign = usize::from(matches!(tail.first(), Some(b'+' | b'-')));
        let n = tail
            .iter()
            .skip(sign)
            .take_while(|c| c.is_ascii_digit())
            .count();
        if n > 0 {
            let e: i32 = std::str::from_utf8(tail.get(sign..sign + n)?)
                .ok()?
                .parse()
                .unwrap_or(i32::MAX);
            scale = scale.saturating_add(if tail.first() == Some(&b'-') { -e } else { e });
        }
    }
    Some(v * 2f64.powi(scale))
}

fn sum(ev: &mut Evaluator, args: &[Expr]) -> Value {
    summarize(ev, args, Summary::Sum)
}

fn avg(ev: &mut Evaluator, args: &[Expr]) -> Value {
    summarize(ev, args, Summary::Avg)
}

fn min(ev: &mut Evaluator, args: &[Expr]) -> Value {
    summarize(ev, args, Summary::Min)
}

fn max(ev: &mut Evaluator, args: &[Expr]) -> Value {
    summarize(ev, args, Summary::Max)
}

/// The arguments of the member/subset functions: item(s), list, optional delimiters. Each
/// may be UNDEFINED, which reads as the empty string (or the default delimiters); anything
/// else but a string is an error. Both first arguments UNDEFINED gives UNDEFINED.
fn member_args(ev: &mut Evaluator, args: &[Expr]) -> Result<(String, String, String), Value> {
    if !(2..=3).contains(&args.len()) {
        return Err(Value::Error);
    }
    let vals = super::strict_args(ev, args);
    let text = |v: Option<&Value>, default: &str| match v {
        None | Some(Value::Undefined) => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(_) => Err(Value::Error),
    };
    let item = text(vals.first(), "")?;
    let list = text(vals.get(1), "")?;
    let delims = text(vals.get(2), ", \t\r\n")?;
    if vals.iter().take(2).all(Value::is_undefined) {
        return Err(Value::Undefined);
    }
    Ok((item, list, delims))
}

fn member_of(ev: &mut Evaluator, args: &[Expr], ci: bool) -> Value {
    match member_args(ev, args) {
        Ok((item, list, d)) => Value::Bool(tokens(&list, &d).iter().any(|t| {
            if ci {
                t.eq_ignore_ascii_case(&item)
            } else {
                *t == item
            }
        })),
        Err(e) => e,
    }
}

fn member(ev: &mut Evaluator, args: &[Expr]) -> Value {
    member_of(ev, args, false)
}

fn imember(ev: &mut Evaluator, args: &[Expr]) -> Value {
    member_of(ev, args, true)
}

/// Every item of the first list is in the second; the empty string is a subset of anything,
/// but a non-empty string with no items is not.
fn subset_of(ev: &mut Evaluator, args: &[Expr], ci: bool) -> Value {
    let (items, list, d) = match member_args(ev, args) {
        Ok(t) => t,
        Err(e) => return e,
    };
    if items.is_empty() {
        return Value::Bool(true);
    }
    let key = |s: &str| {
        if ci {
            s.to_ascii_lowercase()
        } else {
            s.to_string()
        }
    };
    let set: HashSet<String> = tokens(&list, &d).iter().map(|t| key(t)).collect();
    let wanted = tokens(&items, &d);
    Value::Bool(!wanted.is_empty() && wanted.iter().all(|t| set.contains(&key(t))))
}

fn subset_match(ev: &mut Evaluator, args: &[Expr]) -> Value {
    subset_of(ev, args, false)
}

fn isubset_match(ev: &mut Evaluator, args: &[Expr]) -> Value {
    subset_of(ev, args, true)
}

/// The plain splitter of the ClassAd library's own `stringListsIntersect`: any delimiter
/// character ends an item, empty items are dropped, nothing is trimmed.
fn raw_split<'a>(s: &'a str, delims: &str) -> impl Iterator<Item = &'a str> + 'a {
    let d: Vec<char> = if delims.is_empty() {
        vec![' ', ',']
    } else {
        delims.chars().collect()
    };
    s.split(move |c: char| d.contains(&c))
        .filter(|t| !t.is_empty())
}

/// `stringListsIntersect(a, b [, delims])`: ERROR first, then UNDEFINED, then type checks.
fn intersect(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !(2..=3).contains(&args.len()) {
        return Value::Error;
    }
    let vals = super::strict_args(ev, args);
    if let Some(e) = super::exceptional(&vals) {
        return e;
    }
    let delims = match vals.get(2) {
        Some(Value::Str(s)) => s.to_string(),
        Some(_) => return Value::Error,
        None => String::new(),
    };
    let (Some(Value::Str(a)), Some(Value::Str(b))) = (vals.first(), vals.get(1)) else {
        return Value::Error;
    };
    let set: HashSet<&str> = raw_split(b, &delims).collect();
    let hit = raw_split(a, &delims).any(|t| set.contains(t));
    Value::Bool(hit)
}

/// `stringList_regexpMember(pattern, list [, delims [, options]])`: UNDEFINED for an empty list.
fn regexp_member(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if !(2..=4).contains(&args.len()) {
        return Value::Error;
    }
    let vals = super::strict_args(ev, args);
    let strs: Option<Vec<&str>> = vals.iter().map(Value::as_str).collect();
    let Some(strs) = strs else {
        return Value::Error;
    };
    let (pattern, list) = (
        strs.first().copied().unwrap_or(""),
        strs.get(1).copied().unwrap_or(""),
    );
    let delims = strs.get(2).copied().unwrap_or(DEFAULT_DELIMS);
    // HTCondor's Regex class reads its option letters in either case.
    let opts = strs.get(3).copied().unwrap_or("").to_ascii_lowercase();
    let flags = super::regex::Flags::parse(&opts).for_match();
    let Some(re) = super::regex::compile(pattern, flags) else {
        return Value::Error;
    };
    let items = tokens(list, delims);
    if items.is_empty() {
        return Value::Undefined;
    }
    Value::Bool(items.iter().any(|t| re.is_match(t.as_bytes())))
}

#[cfg(test)]
mod tests {
    use crate::testing::ev;
    use crate::value::Value;

    #[test]
    fn tokenizer_trims_and_skips_empty() {
        assert_eq!(super::tokens(" a ,, b\t;c ", ","), vec!["a", "b\t;c"]);
        assert!(matches!(
            ev("stringListSize(\"a;b c\", \"\")"),
            Value::Int(1)
        ));
    }

    #[test]
    fn summaries() {
        assert!(matches!(ev("stringListSum(\"1,2,3\")"), Value::Int(6)));
        assert!(matches!(ev("stringListAvg(\"1,2\")"), Value::Int(1)));
        assert!(matches!(ev("stringListSum(\"1,2.5\")"), Value::Real(r) if r == 3.5));
        assert!(matches!(ev("stringListMax(\"-5,-3\")"), Value::Int(0)));
        assert!(ev("stringListMin(\"\")").is_undefined());
        assert!(ev("stringListSum(\"abc\")").is_error());
    }

    #[test]
    fn membership() {
        assert!(matches!(
            ev("stringListIMember(\"A\", \"a,b\")"),
            Value::Bool(true)
        ));
        assert!(matches!(
            ev("stringListMember(undefined, \"a\")"),
            Value::Bool(false)
        ));
        assert!(ev("stringListMember(undefined, undefined)").is_undefined());
        assert!(matches!(
            ev("stringListSubsetMatch(\"\", \"b\")"),
            Value::Bool(true)
        ));
        assert!(matches!(
            ev("stringListsIntersect(\"a; b\", \"b\", \";\")"),
            Value::Bool(false)
        ));
        assert!(matches!(
            ev("stringList_regexpMember(\"^A\", \"ab\", \", \", \"I\")"),
            Value::Bool(true)
        ));
    }
}
