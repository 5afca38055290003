//! Built-in functions: HTCondor's own (`userHome`, `userMap`,
//! `mergeEnvironment`, `envV1ToV2`, `listToArgs`, `argsToList`). The evaluation-control
//! ones (`eval`, `unparse`, `evalInEachContext`, ...) are in `context.rs`.

use std::collections::BTreeMap;

use super::{strict_args, Builtin};
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
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

/// `userMap(map, input [, preferred [, default]])`, over the process's user maps
/// (`crate::usermaps`), as HTCondor's: with two arguments the mapped list as a string;
/// with three or four, the preferred item if the list has it (ignoring case), else its
/// first; no mapping (or an empty list) gives the default, else UNDEFINED.
fn user_map(ev: &mut Evaluator, args: &[Expr]) -> Value {
    if args.len() < 2 || args.len() > 4 {
        return Value::Error;
    }
    let vals = strict_args(ev, args);
    let default = vals.get(3).cloned().unwrap_or(Value::Undefined);
    let (Some(Value::Str(map)), Some(Value::Str(input))) = (vals.first(), vals.get(1)) else {
        if vals.iter().take(2).any(Value::is_error) {
            return Value::Error;
        }
        return default;
    };
    let Some(output) = crate::usermaps::map(map, input) else {
        return default;
    };
    if vals.len() == 2 {
        return Value::string(output);
    }
    let items: Vec<&str> = output
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let preferred = match vals.get(2) {
        Some(Value::Str(p)) => items.iter().find(|i| i.eq_ignore_ascii_case(p)),
        _ => None,
    };
    match preferred.or(items.first()) {
        Some(item) => Value::string((*item).to_string()),
        None => default,
    }
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

/// An environment: name to value, or to None for an entry kept verbatim (see [`env_insert`]).
type Env = BTreeMap<String, Option<String>>;

/// `NAME=value` into the environment; false when there is no `=` or no name. An entry with
/// no `=` but a `$$` is an unexpanded `$$()` macro, which HTCondor keeps verbatim.
fn env_insert(env: &mut Env, entry: &str) -> bool {
    match entry.split_once('=') {
        Some((name, value)) if !name.is_empty() => {
            env.insert(name.to_string(), Some(value.to_string()));
            true
        }
        None if entry.contains("$$") => {
            env.insert(entry.to_string(), None);
            true
        }
        _ => false,
    }
}

fn env_v2_string(env: &Env) -> String {
    let mut out = String::new();
    for (k, v) in env {
        match v {
            Some(v) => append_v2_arg(&mut out, &format!("{k}={v}")),
            None => append_v2_arg(&mut out, k),
        }
    }
    out
}

/// The characters a V1 environment string may start with to name its own delimiter.
const V1_DELIMS: &str = "!#$%&*+,-/:;<>?@^`|~\x1F";

/// A V1 environment string's delimiter and entries. The default delimiter is `;`; a
/// string starting with another permitted delimiter uses that one instead, and a newline
/// always separates too (for compatibility with very old job ads).
fn v1_entries(s: &str) -> impl Iterator<Item = &str> {
    let first = s.chars().next().filter(|&c| V1_DELIMS.contains(c));
    let (delim, body) = match first.and_then(|c| Some((c, s.strip_prefix(c)?))) {
        Some((c, rest)) => (c, rest),
        None => (';', s),
    };
    body.split([delim, '\n'])
        .map(|e| e.trim_start_matches(is_arg_space))
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
    let mut env = Env::new();
    for entry in v1_entries(&s) {
        if !entry.is_empty() && !env_insert(&mut env, entry) {
            return Value::Error;
        }
    }
    Value::string(env_v2_string(&env))
}

fn merge_environment(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let mut env = Env::new();
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
    for v in ev.arg_items(&l) {
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
mod tests {
    use crate::testing::{ev, string};
    use crate::Value;

    #[test]
    fn environments_and_args() {
        assert_eq!(string(r#"envV1ToV2("A='x'")"#), "A=''''x''''");
        assert_eq!(string(r#"envV1ToV2("B=1;;A=2")"#), "A=2 B=1");
        // A leading permitted punctuation character names the delimiter.
        assert_eq!(string(r#"envV1ToV2("|a=1|b=2")"#), "a=1 b=2");
        assert_eq!(string(r#"envV1ToV2("|a=1;b=2")"#), "a=1;b=2");
        assert_eq!(string(r#"envV1ToV2("~")"#), "");
        assert!(matches!(ev(r#"envV1ToV2("(")"#), Value::Error));
        // `$$` (which starts with the delimiter `$`) splits into `` and `(X)`: no `=`.
        assert!(matches!(ev(r#"envV1ToV2("$$(X)")"#), Value::Error));
        assert_eq!(string(r#"envV1ToV2("a=1\nb=2")"#), "a=1 b=2");
        // An unexpanded `$$()` macro without `=` is kept as it is.
        assert_eq!(
            string(r#"envV1ToV2("A=1;$$(X);B=$$(Y)")"#),
            "$$(X) A=1 B=$$(Y)"
        );
        assert_eq!(string(r#"mergeEnvironment("A=1", "$$(Y)")"#), "$$(Y) A=1");
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
