//! Regular-expression functions: regexp, regexpMember, regexps, replace, replaceAll.

// HTCondor uses PCRE2 without UTF mode: patterns and subjects are bytes, `\w`, `\d` and
// case folding are ASCII. We compile with the `regex` crate in byte mode (`(?-u)`), after a
// cheap translation of the PCRE spellings it lacks; what it cannot express (backreferences,
// lookaround) fails to compile and gives ERROR.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use regex::bytes::{Captures, Regex, RegexBuilder};

use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::Value;

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "regexp",
        f: regexp,
    },
    Builtin {
        name: "regexpMember",
        f: regexp_member,
    },
    Builtin {
        name: "regexps",
        f: regexps,
    },
    Builtin {
        name: "replace",
        f: replace,
    },
    Builtin {
        name: "replaceAll",
        f: replace_all,
    },
];

/// The option letters HTCondor understands; the others are ignored.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub struct Flags {
    pub caseless: bool,
    pub multiline: bool,
    pub dotall: bool,
    pub extended: bool,
    /// `f`: the result is the whole target with the replacement(s) in place.
    pub full: bool,
    /// `g`: replace every match, not just the first.
    pub global: bool,
    /// Compile for a yes/no match only (then `$` may consume a final newline, see
    /// [`translate`]).
    pub match_only: bool,
}

impl Flags {
    /// The letters of an option string (lower case only, as the ClassAd library reads them).
    pub fn parse(opts: &str) -> Flags {
        Flags {
            caseless: opts.contains('i'),
            multiline: opts.contains('m'),
            dotall: opts.contains('s'),
            extended: opts.contains('x'),
            full: opts.contains('f'),
            global: opts.contains('g'),
            match_only: false,
        }
    }

    /// These flags, for a yes/no match.
    pub fn for_match(self) -> Flags {
        Flags {
            match_only: true,
            ..self
        }
    }

    fn compile_key(self) -> u8 {
        u8::from(self.caseless)
            | u8::from(self.multiline) << 1
            | u8::from(self.dotall) << 2
            | u8::from(self.extended) << 3
            | u8::from(self.match_only) << 4
    }
}

/// Compiled patterns, by pattern and flags. Why: Requirements with `regexp` are evaluated
/// against every ad of a match, and compiling dominates a single match.
const CACHE_LIMIT: usize = 256;

/// Pattern text and compile flags to the compiled pattern (None: it does not compile).
type Cache = HashMap<(String, u8), Option<Arc<Regex>>>;

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
}

/// `pattern` compiled with `flags`, or None when it does not compile.
pub fn compile(pattern: &str, flags: Flags) -> Option<Arc<Regex>> {
    let key = (pattern.to_string(), flags.compile_key());
    if let Some(hit) = CACHE.with(|c| c.try_borrow().ok().and_then(|m| m.get(&key).cloned())) {
        return hit;
    }
    // PCRE's `$` also matches before a final newline; without lookahead we can only say so
    // by consuming that newline, which is harmless when only the yes/no answer is used.
    let eol_dollar = flags.match_only && !flags.multiline && !inline_multiline(pattern);
    let re = translate(pattern, eol_dollar).and_then(|t| {
        RegexBuilder::new(&format!("(?-u){t}"))
            .case_insensitive(flags.caseless)
            .multi_line(flags.multiline)
            .dot_matches_new_line(flags.dotall)
            .ignore_whitespace(flags.extended)
            .build()
            .ok()
            .map(Arc::new)
    });
    CACHE.with(|c| {
        if let Ok(mut m) = c.try_borrow_mut() {
            if m.len() >= CACHE_LIMIT {
                m.clear();
            }
            m.insert(key, re.clone());
        }
    });
    re
}

/// PCRE spellings rewritten for the `regex` crate: `\Q...\E`, `\h`, `\v`, `\R`, `\N`, `\Z`,
/// `\e`, `\cX`, octal escapes, comments, possessive quantifiers, atomic groups, literal
/// braces, non-ASCII pattern bytes (matched byte by byte, as PCRE does without UTF mode).
/// None for what PCRE refuses but the regex crate would accept (so that both give ERROR).
fn translate(p: &str, eol_dollar: bool) -> Option<String> {
    let b = p.as_bytes();
    let mut out = String::with_capacity(p.len() + 8);
    let (mut i, mut in_class, mut after_quant) = (0, false, false);
    while let Some(&c) = b.get(i) {
        let was_quant = std::mem::take(&mut after_quant);
        i += 1;
        match c {
            b'\\' => i = escape(b, i, in_class, &mut out)?,
            b'[' if !in_class => {
                i = class_open(b, i, &mut out)?;
                in_class = true;
            }
            b'[' if matches!(b.get(i), Some(b':' | b'.' | b'=')) => {
                // A POSIX class `[:alpha:]` inside a bracket: copy it whole.
                let end = find(b, i, b":]").map_or(b.len(), |e| e + 2);
                out.push_str(&String::from_utf8_lossy(
                    b.get(i - 1..end).unwrap_or_default(),
                ));
                i = end;
            }
            b'[' => out.push_str("\\["),
            b']' if in_class => {
                in_class = false;
                out.push(']');
            }
            b'(' if !in_class => i = group_open(b, i, &mut out)?,
            b'+' if !in_class && was_quant => {} // possessive: the regex crate never backtracks
            b'*' | b'+' | b'?' if !in_class => {
                out.push(c as char);
                after_quant = c != b'?' || !out.ends_with("(?");
            }
            b'{' if !in_class => match quantifier_len(b, i) {
                Some(n) => {
                    out.push_str(&String::from_utf8_lossy(
                        b.get(i - 1..i + n).unwrap_or_default(),
                    ));
                    i += n;
                    after_quant = true;
                }
                None => out.push_str("\\{"),
            },
            b'}' if !in_class => out.push_str("\\}"),
            // PCRE's `x` leaves a class alone; the regex crate would drop its blanks.
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'#' if in_class => {
                out.push_str(&format!("\\x{c:02X}"))
            }
            b'$' if !in_class && eol_dollar => out.push_str("(?:\\n?\\z)"),
            _ => push_byte(&mut out, c),
        }
    }
    Some(out)
}

/// After a `[` outside a class: a POSIX `[:name:]` here is an error in PCRE; a `]` right
/// after `[` or `[^` is a literal member.
fn class_open(b: &[u8], mut i: usize, out: &mut String) -> Option<usize> {
    if let Some(&d @ (b':' | b'.' | b'=')) = b.get(i) {
        if find(b, i + 1, &[d, b']']).is_some() {
            return None;
        }
    }
    out.push('[');
    if b.get(i) == Some(&b'^') {
        out.push('^');
        i += 1;
    }
    if b.get(i) == Some(&b']') {
        out.push_str("\\]");
        i += 1;
    }
    Some(i)
}

/// After a `(` outside a class: atomic groups become plain groups, comments vanish,
/// `(?'name'` becomes `(?P<name>`; flag letters the regex crate has but PCRE lacks (`R`,
/// `u`) are refused.
fn group_open(b: &[u8], i: usize, out: &mut String) -> Option<usize> {
    if b.get(i) != Some(&b'?') {
        out.push('(');
        return Some(i);
    }
    match b.get(i + 1) {
        Some(b'>') => out.push_str("(?:"),
        // `(?P<name>` is shared; `(?P=name)` and `(?P>name)` are backreference and recursion.
        Some(b'P') if b.get(i + 2) == Some(&b'<') => {
            out.push_str("(?P<");
            return Some(i + 3);
        }
        Some(b'P') => return None,
        Some(b'#') => {
            return Some(
                b.iter()
                    .skip(i)
                    .position(|&c| c == b')')
                    .map_or(b.len(), |p| i + p + 1),
            )
        }
        Some(b'\'') => {
            let close = b.iter().skip(i + 2).position(|&c| c == b'\'')? + i + 2;
            out.push_str("(?P<");
            out.push_str(&String::from_utf8_lossy(b.get(i + 2..close)?));
            out.push('>');
            return Some(close + 1);
        }
        Some(f) if f.is_ascii_alphabetic() || *f == b'-' => {
            let flags = b
                .iter()
                .skip(i + 1)
                .take_while(|c| c.is_ascii_alphabetic() || **c == b'-');
            if flags.clone().any(|c| !b"imsxnJU-".contains(c)) {
                return None;
            }
            out.push_str("(?");
            return Some(i + 1);
        }
        _ => {
            out.push_str("(?");
            return Some(i + 1);
        }
    }
    Some(i + 2)
}

/// A pattern byte; non-ASCII bytes as `\xHH` so that they match themselves in byte mode.
fn push_byte(out: &mut String, c: u8) {
    if c.is_ascii() {
        out.push(c as char);
    } else {
        out.push_str(&format!("\\x{c:02X}"));
    }
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Length after `{` of a valid counted quantifier `{n}`, `{n,}` or `{n,m}`; PCRE reads any
/// other brace as a literal.
fn quantifier_len(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i..)?;
    let close = rest.iter().position(|&c| c == b'}')?;
    let body = rest.get(..close)?;
    let (lo, hi) = match body.iter().position(|&c| c == b',') {
        Some(k) => (body.get(..k)?, body.get(k + 1..)?),
        None => (body, &b"0"[..]),
    };
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    (!lo.is_empty() && digits(lo) && digits(hi)).then_some(close + 1)
}

/// Translate the escape whose letter is at `b[i]`; returns the index after it.
fn escape(b: &[u8], i: usize, in_class: bool, out: &mut String) -> Option<usize> {
    let Some(&e) = b.get(i) else {
        return None; // a trailing backslash
    };
    let class = |set: &str, out: &mut String| {
        if in_class {
            out.push_str(set);
        } else {
            out.push('[');
            out.push_str(set);
            out.push(']');
        }
    };
    match e {
        b'Q' => return Some(quoted(b, i + 1, out)),
        b'E' => {}
        b'h' => class("\\t\\x20\\xA0", out),
        b'v' => class("\\n\\x0B\\x0C\\r\\x85", out),
        b'H' if !in_class => out.push_str("[^\\t\\x20\\xA0]"),
        b'V' if !in_class => out.push_str("[^\\n\\x0B\\x0C\\r\\x85]"),
        b'R' if !in_class => out.push_str("(?:\\r\\n|[\\n\\x0B\\x0C\\r\\x85])"),
        b'X' if !in_class => out.push_str("(?:\\r\\n|(?s:.))"),
        b'C' if !in_class => out.push_str("(?s:.)"),
        b'N' if !in_class && b.get(i + 1) != Some(&b'{') => out.push_str("[^\\n]"),
        b'Z' if !in_class => out.push_str("(?:\\n?\\z)"),
        b'G' if !in_class => out.push_str("\\A"),
        b'e' => out.push_str("\\x1B"),
        b'<' | b'>' => out.push(e as char),
        b'c' => {
            let x = b.get(i + 1)?.to_ascii_uppercase() ^ 0x40;
            out.push_str(&format!("\\x{x:02X}"));
            return Some(i + 2);
        }
        b'x' => return Some(hex(b, i + 1, out)),
        b'u' | b'U' | b'l' | b'L' | b'N' | b'K' => return None,
        b'p' | b'P' if !in_class => return Some(unicode_class(b, i, out)),
        b'0'..=b'9' => return Some(octal(b, i, out)),
        _ if !e.is_ascii() => push_byte(out, e),
        _ => {
            out.push('\\');
            out.push(e as char);
        }
    }
    Some(i + 1)
}

/// `\Q...\E`: the text in between, literally.
fn quoted(b: &[u8], from: usize, out: &mut String) -> usize {
    let end = find(b, from, b"\\E").unwrap_or(b.len());
    for &c in b.get(from..end).unwrap_or_default() {
        if c.is_ascii_alphanumeric() || !c.is_ascii() {
            push_byte(out, c);
        } else {
            out.push_str(&format!("\\x{c:02X}"));
        }
    }
    (end + 2).min(b.len())
}

/// `\xhh` (up to two hex digits, none meaning NUL) or `\x{h...}`.
fn hex(b: &[u8], from: usize, out: &mut String) -> usize {
    if b.get(from) == Some(&b'{') {
        let end = b
            .iter()
            .skip(from)
            .position(|&c| c == b'}')
            .map_or(b.len(), |p| from + p + 1);
        out.push_str("\\x");
        out.push_str(&String::from_utf8_lossy(
            b.get(from..end).unwrap_or_default(),
        ));
        return end;
    }
    let n = b
        .iter()
        .skip(from)
        .take(2)
        .take_while(|c| c.is_ascii_hexdigit())
        .count();
    let v = b
        .iter()
        .skip(from)
        .take(n)
        .fold(0u32, |a, c| a * 16 + (*c as char).to_digit(16).unwrap_or(0));
    out.push_str(&format!("\\x{v:02X}"));
    from + n
}

/// True when the pattern turns multi-line mode on itself (`(?m)`, `(?im:...)`).
fn inline_multiline(p: &str) -> bool {
    p.match_indices("(?").any(|(i, _)| {
        let flags = p.get(i + 2..).unwrap_or("");
        flags
            .bytes()
            .take_while(|c| c.is_ascii_alphabetic() || *c == b'-')
            .any(|c| c == b'm')
    })
}

/// `\p{..}` / `\pL`: only available in Unicode mode, so wrap it in `(?u:...)`.
fn unicode_class(b: &[u8], i: usize, out: &mut String) -> usize {
    let end = match b.get(i + 1) {
        Some(b'{') => find(b, i + 1, b"}").map_or(b.len(), |e| e + 1),
        _ => (i + 2).min(b.len()),
    };
    out.push_str("(?u:\\");
    out.push_str(&String::from_utf8_lossy(b.get(i..end).unwrap_or_default()));
    out.push(')');
    end
}

/// `\0`, `\0dd` and `\ddd` of 10 or more are octal characters in PCRE; `\1`..`\9` are
/// backreferences, which the regex crate refuses (so the pattern gives ERROR).
fn octal(b: &[u8], i: usize, out: &mut String) -> usize {
    let run = b.iter().skip(i).take_while(|c| c.is_ascii_digit()).count();
    let first = b.get(i).copied().unwrap_or(b'0');
    let decimal: u32 = std::str::from_utf8(b.get(i..i + run).unwrap_or_default())
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(u32::MAX);
    if first != b'0' && decimal < 10 {
        out.push('\\');
        out.push(first as char);
        return i + 1;
    }
    let n = b
        .iter()
        .skip(i)
        .take(3)
        .take_while(|c| (b'0'..=b'7').contains(c))
        .count();
    let v = b
        .iter()
        .skip(i)
        .take(n)
        .fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
    if n == 0 {
        out.push(first as char); // `\8`, `\9`: the digit itself
        return i + 1;
    }
    out.push_str(&format!("\\x{:02X}", v & 0xFF));
    i + n
}

/// The options argument (at `idx`), ERROR/UNDEFINED handling shared by all the functions:
/// any ERROR first, then any UNDEFINED, then a non-string options argument is ERROR.
fn check_args(vals: &[Value], opts_idx: usize) -> Result<Flags, Value> {
    if let Some(e) = super::exceptional(vals) {
        return Err(e);
    }
    match vals.get(opts_idx) {
        None => Ok(Flags::default()),
        Some(Value::Str(s)) => Ok(Flags::parse(s)),
        Some(_) => Err(Value::Error),
    }
}

/// The arguments of a function taking `fixed` arguments and then optional options: their
/// values and the options, or the value to return (ERROR for a wrong count, and as
/// [`check_args`] says).
fn arguments(
    ev: &mut Evaluator,
    args: &[Expr],
    fixed: usize,
) -> Result<(Vec<Value>, Flags), Value> {
    if !(fixed..=fixed + 1).contains(&args.len()) {
        return Err(Value::Error);
    }
    let vals = super::strict_args(ev, args);
    let flags = check_args(&vals, fixed)?;
    Ok((vals, flags))
}

fn regexp(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let (vals, flags) = match arguments(ev, args, 2) {
        Ok(x) => x,
        Err(e) => return e,
    };
    let (Some(Value::Str(p)), Some(Value::Str(t))) = (vals.first(), vals.get(1)) else {
        return Value::Error;
    };
    match compile(p, flags.for_match()) {
        Some(re) => Value::Bool(re.is_match(t.as_bytes())),
        None => Value::Error,
    }
}

/// `regexpMember(pattern, list [, options])`: true when some string item matches. A pattern
/// that does not compile matches nothing (HTCondor ignores the per-item ERROR); an UNDEFINED
/// item makes a miss UNDEFINED, any other non-string item is ERROR.
fn regexp_member(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let (vals, flags) = match arguments(ev, args, 2) {
        Ok(x) => x,
        Err(e) => return e,
    };
    let (Some(Value::Str(p)), Some(Value::List(l))) = (vals.first(), vals.get(1)) else {
        return Value::Error;
    };
    let re = compile(p, flags.for_match());
    let mut undef = false;
    for item in ev.arg_items(l) {
        match item {
            Value::Str(s) if re.as_ref().is_some_and(|r| r.is_match(s.as_bytes())) => {
                return Value::Bool(true)
            }
            Value::Str(_) => {}
            Value::Undefined => undef = true,
            _ => return Value::Error,
        }
    }
    if undef {
        Value::Undefined
    } else {
        Value::Bool(false)
    }
}

/// regexps, replace (`f` added to the options) and replaceAll (`fg` added).
fn substitute_fn(ev: &mut Evaluator, args: &[Expr], extra: Flags) -> Value {
    let (vals, mut flags) = match arguments(ev, args, 3) {
        Ok(x) => x,
        Err(e) => return e,
    };
    flags.full |= extra.full;
    flags.global |= extra.global;
    let (Some(Value::Str(p)), Some(Value::Str(t)), Some(Value::Str(r))) =
        (vals.first(), vals.get(1), vals.get(2))
    else {
        return Value::Error;
    };
    match compile(p, flags) {
        Some(re) => substitute(&re, t.as_bytes(), r.as_bytes(), flags),
        None => Value::Error,
    }
}

fn regexps(ev: &mut Evaluator, args: &[Expr]) -> Value {
    substitute_fn(ev, args, Flags::default())
}

fn replace(ev: &mut Evaluator, args: &[Expr]) -> Value {
    substitute_fn(
        ev,
        args,
        Flags {
            full: true,
            ..Flags::default()
        },
    )
}

fn replace_all(ev: &mut Evaluator, args: &[Expr]) -> Value {
    substitute_fn(
        ev,
        args,
        Flags {
            full: true,
            global: true,
            ..Flags::default()
        },
    )
}

/// HTCondor's substitution loop, step for step. After an empty match the next attempt must
/// be a non-empty match at the same place; failing that one byte is copied (even without
/// `f`) and the search moves on. Copying the byte past the end sends PCRE past the subject,
/// which is an error: so a global replace whose pattern matches empty at the end is ERROR.
fn substitute(re: &Regex, target: &[u8], repl: &[u8], flags: Flags) -> Value {
    let mut out: Vec<u8> = Vec::new();
    let (mut idx, mut empty_match) = (0usize, false);
    loop {
        let caps = re.captures_at(target, idx);
        if empty_match {
            let nonempty_here = caps
                .as_ref()
                .and_then(|c| c.get(0))
                .is_some_and(|m| m.start() == idx && m.end() > idx);
            if !nonempty_here {
                let Some(&c) = target.get(idx) else {
                    return Value::Error;
                };
                out.push(c);
                idx += 1;
                empty_match = false;
                continue; // only reached when global
            }
        }
        let Some(caps) = caps else { break };
        let Some(m) = caps.get(0) else { break };
        if flags.full {
            out.extend_from_slice(target.get(idx..m.start()).unwrap_or_default());
        }
        if !expand(&caps, repl, &mut out) {
            return Value::Error;
        }
        idx = m.end();
        empty_match = m.start() == m.end();
        if !flags.global {
            break;
        }
    }
    if flags.full {
        out.extend_from_slice(target.get(idx..).unwrap_or_default());
    }
    Value::string(String::from_utf8_lossy(&out).into_owned())
}

/// Append `repl` with `\0`..`\9` replaced by the groups; false (ERROR) for a group number
/// past the highest group that took part in the match, as PCRE counts them.
fn expand(caps: &Captures, repl: &[u8], out: &mut Vec<u8>) -> bool {
    let ngroups = (0..caps.len())
        .rev()
        .find(|&g| caps.get(g).is_some())
        .map_or(0, |g| g + 1);
    let mut i = 0;
    while let Some(&c) = repl.get(i) {
        match (c, repl.get(i + 1)) {
            (b'\\', Some(d)) if d.is_ascii_digit() => {
                let g = usize::from(d - b'0');
                if g >= ngroups {
                    return false;
                }
                out.extend_from_slice(caps.get(g).map_or(&b""[..], |m| m.as_bytes()));
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::testing::ev;
    use crate::value::Value;

    fn text(v: Value) -> String {
        crate::unparse_value(&v)
    }

    #[test]
    fn matching_and_options() {
        assert!(matches!(
            ev("regexp(\"^abc$\", \"ABC\", \"i\")"),
            Value::Bool(true)
        ));
        assert!(matches!(
            ev("regexp(\"a\", \"A\", \"I\")"),
            Value::Bool(false)
        ));
        assert!(ev("regexp(\"(\", \"a\")").is_error());
        assert!(matches!(
            ev("regexp(\"a{,2}\", \"a{,2}\")"),
            Value::Bool(true)
        ));
        assert!(matches!(
            ev("regexp(\"\\\\Qa.b\\\\E\", \"a.b\")"),
            Value::Bool(true)
        ));
        // PCRE's `$` matches before a final newline.
        assert!(matches!(ev("regexp(\"a$\", \"a\\n\")"), Value::Bool(true)));
    }

    #[test]
    fn substitutions() {
        assert_eq!(
            text(ev("regexps(\"a(b)c\", \"xabcx\", \"[\\\\1]\")")),
            "\"[b]\""
        );
        assert_eq!(
            text(ev("replaceAll(\"(a)(n)\", \"banana\", \"\\\\2\\\\1\")")),
            "\"bnanaa\""
        );
        assert_eq!(
            text(ev("replaceAll(\"(?m)^\", \"ab\\ncd\", \"#\")")),
            "\"#ab\\n#cd\""
        );
        assert!(ev("replaceAll(\"x*\", \"abc\", \"-\")").is_error());
        assert!(ev("regexps(\"a(b)?c\", \"ac\", \"\\\\1\")").is_error());
    }

    #[test]
    fn member_of_list() {
        assert!(matches!(
            ev("regexpMember(\"^a\", {\"b\", \"ab\"})"),
            Value::Bool(true)
        ));
        assert!(ev("regexpMember(\"^a\", {\"b\", undefined})").is_undefined());
        assert!(ev("regexpMember(\"^a\", {error, \"a\"})").is_error());
        assert!(matches!(
            ev("regexpMember(\"(\", {\"a\"})"),
            Value::Bool(false)
        ));
    }
}
