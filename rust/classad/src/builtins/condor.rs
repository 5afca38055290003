//! Built-in functions: HTCondor's own (`versioncmp`, `userHome`, `userMap`,
//! `mergeEnvironment`, `envV1ToV2`, `listToArgs`, `argsToList`). The evaluation-control
//! ones (`eval`, `unparse`, `evalInEachContext`, ...) are in `context.rs`.

use std::collections::BTreeMap;

use super::{strict_args, Builtin};
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
    Builtin {
        name: "userHome",
        f: user_home,
    },
    Builtin {
        name: "userMap",
        f: user_map,
    },
    Builtin {
        name: "envV1ToV2",
        f: env_v1_to_v2,
    },
    Builtin {
        name: "mergeEnvironment",
        f: merge_environment,
    },
    Builtin {
        name: "listToArgs",
        f: list_to_args,
    },
    Builtin {
        name: "argsToList",
        f: args_to_list,
    },
];

/// A value as HTCondor's string conversion gives it (None for UNDEFINED and ERROR).
pub(crate) fn string_of(v: &Value) -> Option<String> {
    match v {
        Value::Undefined | Value::Error => None,
        Value::Str(s) => Some(s.to_string()),
        Value::AbsTime { secs, offset } => Some(crate::timefmt::format_abstime(*secs, *offset)),
        Value::RelTime(r) => Some(crate::timefmt::format_reltime(*r)),
        v => Some(crate::unparse::unparse_value(v)),
    }
}

// ---------------------------------------------------------------------------------------
// versions
// ---------------------------------------------------------------------------------------

/// HTCondor's `natural_cmp` (strverscmp-like): digit runs compare as numbers, and more
/// leading zeros sort first. Returns the C difference of the deciding characters.
pub fn natural_cmp(a: &[u8], b: &[u8]) -> i64 {
    let g = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    let ch = |c: u8| i64::from(c as i8);
    let mut i = 0;
    while g(a, i) != 0 && g(a, i) == g(b, i) {
        i += 1;
    }
    let (c1, c2) = (g(a, i), g(b, i));
    if c1 == c2 {
        return 0;
    }
    let mut n = i;
    while n > 0 && g(a, n - 1).is_ascii_digit() {
        n -= 1;
    }
    if n == i && (!c1.is_ascii_digit() || !c2.is_ascii_digit()) {
        return ch(c1) - ch(c2);
    }
    let (mut z1, mut z2) = (n, n);
    while g(a, z1) == b'0' {
        z1 += 1;
    }
    while g(b, z2) == b'0' {
        z2 += 1;
    }
    if z1 > n && !g(a, z1).is_ascii_digit() {
        z1 -= 1;
    }
    if z2 > n && !g(b, z2).is_ascii_digit() {
        z2 -= 1;
    }
    if z1 != z2 {
        return (z2 - n) as i64 - (z1 - n) as i64;
    }
    if z1 > n {
        return ch(c1) - ch(c2);
    }
    let (mut e1, mut e2) = (z1, z2);
    while g(a, e1).is_ascii_digit() {
        e1 += 1;
    }
    while g(b, e2).is_ascii_digit() {
        e2 += 1;
    }
    if e1 != e2 {
        e1 as i64 - e2 as i64
    } else {
        ch(c1) - ch(c2)
    }
}

fn compare_versions(ev: &mut Evaluator, args: &[Expr], out: fn(i64) -> Value) -> Value {
    if args.len() != 2 {
        return Value::Error;
    }
    let vals = strict_args(ev, args);
    if vals.iter().any(Value::is_undefined) {
        return Value::Undefined;
    }
    match (
        vals.first().and_then(string_of),
        vals.get(1).and_then(string_of),
    ) {
        (Some(l), Some(r)) => out(natural_cmp(l.as_bytes(), r.as_bytes())),
        _ => Value::Error,
    }
}

fn versioncmp(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_versions(ev, args, Value::Int)
}
fn version_lt(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_versions(ev, args, |r| Value::Bool(r < 0))
}
fn version_le(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_versions(ev, args, |r| Value::Bool(r <= 0))
}
fn version_gt(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_versions(ev, args, |r| Value::Bool(r > 0))
}
fn version_ge(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_versions(ev, args, |r| Value::Bool(r >= 0))
}
fn version_eq(ev: &mut Evaluator, args: &[Expr]) -> Value {
    compare_versions(ev, args, |r| Value::Bool(r == 0))
}

fn version_in_range(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.len() != 3 {
        return Value::Error;
    }
    let vals = strict_args(ev, args);
    if vals.get(1).is_some_and(Value::is_undefined) || vals.get(2).is_some_and(Value::is_undefined)
    {
        return Value::Undefined;
    }
    let s: Vec<Option<String>> = vals.iter().map(string_of).collect();
    match s.as_slice() {
        [Some(test), Some(min), Some(max)] => {
            let l = natural_cmp(min.as_bytes(), test.as_bytes());
            let r = natural_cmp(test.as_bytes(), max.as_bytes());
            Value::Bool(l <= 0 && r <= 0)
        }
        _ => Value::Error,
    }
}

// ---------------------------------------------------------------------------------------
// users
// ---------------------------------------------------------------------------------------

/// The home directory of `user` from the password file.
fn home_of(user: &str) -> Option<String> {
    let text = std::fs::read_to_string("/etc/passwd").ok()?;
    text.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.first() == Some(&user))
            .then(|| fields.get(5).map(|h| h.to_string()))
            .flatten()
    })
}

/// `userHome(user [, default])`: the user's home directory, else the default (a string).
fn user_home(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.is_empty() || args.len() > 2 {
        return Value::Error;
    }
    let vals = strict_args(ev, args);
    let default = match vals.get(1) {
        Some(Value::Str(s)) => Value::Str(s.clone()),
        _ => Value::Undefined,
    };
    match vals.first() {
        Some(Value::Str(u)) if !u.is_empty() => home_of(u).map_or(default, Value::string),
        _ => default,
    }
}

/// `userMap(map, input [, preferred [, default]])`. No user maps are configured here, so
/// the answer is the default when there is one, else UNDEFINED.
fn user_map(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.len() < 2 || args.len() > 4 {
        return Value::Error;
    }
    let mut vals = strict_args(ev, args);
    if vals.iter().take(2).any(Value::is_error) {
        return Value::Error;
    }
    if vals.len() == 4 {
        return vals.pop().unwrap_or(Value::Undefined);
    }
    if vals.iter().any(Value::is_error) {
        return Value::Error;
    }
    Value::Undefined
}

// ---------------------------------------------------------------------------------------
// argument and environment strings
// ---------------------------------------------------------------------------------------

fn is_arg_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// One argument in HTCondor's V2 syntax, appended to `out` (space-separated): whitespace
/// and `'` go inside single quotes, a `'` doubled.
fn append_v2_arg(out: &mut String, arg: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    if arg.is_empty() {
        out.push_str("''");
    }
    for c in arg.chars() {
        if is_arg_space(c) || c == '\'' {
            if out.ends_with('\'') {
                // Join this quoted section with the one just closed.
                out.pop();
            } else {
                out.push('\'');
            }
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
            out.push('\'');
        } else {
            out.push(c);
        }
    }
}

/// Split V2 arguments: whitespace separates, `'...'` quotes (`''` inside is a `'`).
/// None when a quote is not closed.
fn split_v2(s: &str) -> Option<Vec<String>> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut in_arg = false;
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if is_arg_space(c) {
            if in_arg {
                args.push(std::mem::take(&mut cur));
            }
            in_arg = false;
        } else if c == '\'' {
            in_arg = true;
            loop {
                match it.next()? {
                    '\'' if it.peek() == Some(&'\'') => {
                        it.next();
                        cur.push('\'');
                    }
                    '\'' => break,
                    q => cur.push(q),
                }
            }
        } else {
            in_arg = true;
            cur.push(c);
        }
    }
    if in_arg {
        args.push(cur);
    }
    Some(args)
}

/// `NAME=value` into the environment; false when there is no `=` or no name.
fn env_insert(env: &mut BTreeMap<String, String>, entry: &str) -> bool {
    match entry.split_once('=') {
        Some((name, value)) if !name.is_empty() => {
            env.insert(name.to_string(), value.to_string());
            true
        }
        _ => false,
    }
}

fn env_v2_string(env: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (k, v) in env {
        append_v2_arg(&mut out, &format!("{k}={v}"));
    }
    out
}

fn env_v1_to_v2(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    let s = match ev.eval(a) {
        Value::Undefined => return Value::Undefined,
        Value::Str(s) => s,
        _ => return Value::Error,
    };
    let mut env = BTreeMap::new();
    for entry in s.split(';') {
        let entry = entry.trim_start_matches(is_arg_space);
        if !entry.is_empty() && !env_insert(&mut env, entry) {
            return Value::Error;
        }
    }
    Value::string(env_v2_string(&env))
}

fn merge_environment(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let mut env = BTreeMap::new();
    for a in args {
        match ev.eval(a) {
            Value::Undefined => {}
            Value::Str(s) => {
                let Some(entries) = split_v2(&s) else {
                    return Value::Error;
                };
                if !entries.iter().all(|e| env_insert(&mut env, e)) {
                    return Value::Error;
                }
            }
            _ => return Value::Error,
        }
    }
    Value::string(env_v2_string(&env))
}

/// The optional syntax-version argument of listToArgs/argsToList: 1 or 2 (default 2).
fn syntax_version(ev: &mut Evaluator, arg: Option<&Expr>) -> Option<i64> {
    match arg {
        None => Some(2),
        Some(e) => match ev.eval(e) {
            Value::Int(v @ (1 | 2)) => Some(v),
            _ => None,
        },
    }
}

fn list_to_args(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.is_empty() || args.len() > 2 {
        return Value::Error;
    }
    let Some(first) = args.first() else {
        return Value::Error;
    };
    let Value::List(l) = ev.eval(first) else {
        return Value::Error;
    };
    let Some(vers) = syntax_version(ev, args.get(1)) else {
        return Value::Error;
    };
    let mut out = String::new();
    for v in ev.list_items(&l) {
        let Value::Str(s) = v else {
            return Value::Error;
        };
        if vers == 1 {
            if s.contains(is_arg_space) {
                return Value::Error;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&s);
        } else {
            append_v2_arg(&mut out, &s);
        }
    }
    Value::string(out)
}

fn args_to_list(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.is_empty() || args.len() > 2 {
        return Value::Error;
    }
    let Some(first) = args.first() else {
        return Value::Error;
    };
    let Value::Str(s) = ev.eval(first) else {
        return Value::Error;
    };
    let Some(vers) = syntax_version(ev, args.get(1)) else {
        return Value::Error;
    };
    let items = if vers == 1 {
        s.split(is_arg_space)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect()
    } else {
        match split_v2(&s) {
            Some(items) => items,
            None => return Value::Error,
        }
    };
    Value::list_of(items.iter().map(|a| Expr::string(a)).collect())
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::panic)]
mod tests {
    use crate::{eval_standalone, parse_expr, Value};

    fn ev(s: &str) -> Value {
        eval_standalone(&parse_expr(s).expect("parses"))
    }

    fn string(s: &str) -> String {
        match ev(s) {
            Value::Str(x) => x.to_string(),
            v => panic!("{s}: {v:?}"),
        }
    }

    #[test]
    fn versions() {
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

    #[test]
    fn environments_and_args() {
        assert_eq!(string(r#"envV1ToV2("A='x'")"#), "A=''''x''''");
        assert_eq!(string(r#"envV1ToV2("B=1;;A=2")"#), "A=2 B=1");
        assert_eq!(
            string(r#"mergeEnvironment("A='x y'", "B=2")"#),
            "A=x' 'y B=2"
        );
        assert!(matches!(ev(r#"mergeEnvironment("BAD")"#), Value::Error));
        assert_eq!(string(r#"listToArgs({"a", "b c"})"#), "a b' 'c");
        assert!(matches!(ev(r#"argsToList("'unterminated")"#), Value::Error));
        assert_eq!(string(r#"argsToList("a 'b c' d")[1]"#), "b c");
    }
}
