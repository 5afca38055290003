//! Unparse: expressions, values and ads back to text, in HTCondor's canonical compact form.

use std::fmt::Write;

use crate::ast::{BinOp, Expr, UnOp};
use crate::classad::ClassAd;
use crate::lexer::Syntax;
use crate::value::Value;

pub fn unparse(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e);
    s
}

/// An expression as the old syntax writes it (strings keep their bytes, only `"` escaped).
pub fn unparse_old(e: &Expr) -> String {
    let mut s = String::new();
    write_expr_in(&mut s, e, Syntax::Old);
    s
}

/// A value as text (`string()` and `unparse()` of a value).
pub fn unparse_value(v: &Value) -> String {
    let mut s = String::new();
    write_value(&mut s, v);
    s
}

/// An ad in new syntax: `[ a = 1; b = 2 ]`.
pub fn unparse_ad(ad: &ClassAd) -> String {
    let mut s = String::new();
    write_ad(&mut s, ad);
    s
}

/// An ad in old syntax: one `Name = expr` line per attribute.
pub fn unparse_ad_old(ad: &ClassAd) -> String {
    let mut s = String::new();
    for (n, e) in ad.iter() {
        write_name(&mut s, n.as_str());
        s.push_str(" = ");
        write_expr_in(&mut s, e, Syntax::Old);
        s.push('\n');
    }
    s
}

pub fn write_ad(s: &mut String, ad: &ClassAd) {
    write_ad_in(
        s,
        ad,
        Fmt {
            syn: Syntax::New,
            pretty: None,
        },
    );
}

fn write_ad_in(s: &mut String, ad: &ClassAd, syn: Fmt) {
    if let Some(level) = syn.pretty {
        return write_ad_pretty(s, ad, syn, level);
    }
    s.push_str("[ ");
    for (i, (n, e)) in ad.iter().enumerate() {
        if i > 0 {
            s.push_str("; ");
        }
        write_name(s, n.as_str());
        s.push_str(" = ");
        write_in(s, e, syn);
    }
    s.push_str(" ]");
}

/// `[`, then each attribute on its own line, `; ` between them, then `]`.
fn write_ad_pretty(s: &mut String, ad: &ClassAd, syn: Fmt, level: usize) {
    let inner = Fmt {
        pretty: Some(level + 2 * AD_INDENT),
        ..syn
    };
    newline(s, level + AD_INDENT);
    s.push('[');
    for (i, (n, e)) in ad.iter().enumerate() {
        if i > 0 {
            s.push_str("; ");
        }
        newline(s, level + 2 * AD_INDENT);
        write_name(s, n.as_str());
        s.push_str(" = ");
        write_in(s, e, inner);
    }
    newline(s, level + AD_INDENT);
    s.push(']');
}

/// `{`, then each item on its own line, `,` between them, then `}`.
fn write_list_pretty(s: &mut String, items: &[Expr], syn: Fmt, level: usize) {
    let inner = Fmt {
        pretty: Some(level + 2 * LIST_INDENT),
        ..syn
    };
    newline(s, level + LIST_INDENT);
    s.push('{');
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        newline(s, level + 2 * LIST_INDENT);
        write_in(s, e, inner);
    }
    newline(s, level + LIST_INDENT);
    s.push('}');
}

fn write_list(s: &mut String, items: &[Expr], syn: Fmt) {
    if let Some(level) = syn.pretty {
        return write_list_pretty(s, items, syn, level);
    }
    s.push_str("{ ");
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        write_in(s, e, syn);
    }
    s.push_str(" }");
}

pub fn write_expr(s: &mut String, e: &Expr) {
    write_expr_in(s, e, Syntax::New);
}

pub fn write_expr_in(s: &mut String, e: &Expr, syn: Syntax) {
    write_in(s, e, Fmt { syn, pretty: None });
}

/// How to write: the syntax, and for the pretty form (HTCondor's `PrettyPrint`, which the
/// `unparse()` function uses) the indentation of the enclosing list or ad.
#[derive(Clone, Copy)]
struct Fmt {
    syn: Syntax,
    pretty: Option<usize>,
}

/// `PrettyPrint`'s default indentation steps for lists and ads.
const LIST_INDENT: usize = 3;
const AD_INDENT: usize = 4;

/// An expression as HTCondor's `PrettyPrint` writes it: lists and ads one item a line.
pub fn unparse_pretty(e: &Expr) -> String {
    let mut s = String::new();
    write_in(
        &mut s,
        e,
        Fmt {
            syn: Syntax::New,
            pretty: Some(0),
        },
    );
    s
}

fn newline(s: &mut String, indent: usize) {
    s.push('\n');
    s.extend(std::iter::repeat_n(' ', indent));
}

fn write_in(s: &mut String, e: &Expr, syn: Fmt) {
    crate::stack::guard(|| write_in_unguarded(s, e, syn));
}

fn write_in_unguarded(s: &mut String, e: &Expr, syn: Fmt) {
    let write_expr = |s: &mut String, e: &Expr| write_in(s, e, syn);
    match e {
        Expr::Lit(v) => write_value_in(s, v, syn),
        Expr::Attr(n) => write_name(s, n.as_str()),
        Expr::Root(n) => {
            s.push('.');
            write_name(s, n.as_str());
        }
        Expr::Select(base, n) => {
            // A number before `.` would read as a decimal point (`0.MY`).
            let number = matches!(**base, Expr::Lit(Value::Int(_) | Value::Real(_)));
            write_operand(s, base, number || postfix_needs_parens(base), syn);
            s.push('.');
            write_selected_name(s, n.as_str());
        }
        Expr::Index(bi) => {
            write_operand(s, &bi.0, postfix_needs_parens(&bi.0), syn);
            s.push('[');
            write_expr(s, &bi.1);
            s.push(']');
        }
        Expr::Unary(op, x) => {
            s.push(' ');
            s.push_str(op.symbol());
            // `-` right before a number reads as a negative literal, so `-(0[1])` must not
            // print as `-0[1]`, which is `(-0)[1]`.
            let glued = *op == UnOp::Neg && !matches!(**x, Expr::Lit(_)) && starts_with_number(x);
            let parens = glued || matches!(**x, Expr::Binary(..) | Expr::Cond(_));
            write_operand(s, x, parens, syn);
        }
        Expr::Binary(op, lr) => {
            let p = precedence(e);
            write_operand(s, &lr.0, precedence(&lr.0) < p, syn);
            s.push(' ');
            // The old syntax has no `is`: HTCondor's old-ad unparser writes `=?=`, `=!=`.
            s.push_str(match (op, syn.syn) {
                (BinOp::Is, Syntax::Old) => "=?=",
                (BinOp::Isnt, Syntax::Old) => "=!=",
                _ => op.symbol(),
            });
            s.push(' ');
            // Binary operators group to the left: an equal-precedence right side needs parens.
            write_operand(s, &lr.1, precedence(&lr.1) <= p, syn);
        }
        Expr::Cond(cte) => {
            write_operand(s, &cte.0, matches!(cte.0, Expr::Cond(_)), syn);
            s.push_str(" ? ");
            write_expr(s, &cte.1);
            s.push_str(" : ");
            write_expr(s, &cte.2);
        }
        Expr::Elvis(cf) => {
            write_operand(s, &cf.0, postfix_needs_parens(&cf.0), syn);
            s.push_str(" ?: ");
            // The right side of `?:` is a postfix expression: operators need parentheses.
            let rhs_parens = matches!(cf.1, Expr::Binary(..) | Expr::Cond(_) | Expr::Unary(..));
            write_operand(s, &cf.1, rhs_parens, syn);
        }
        Expr::Call(c) => {
            s.push_str(&c.name);
            s.push('(');
            for (i, a) in c.args.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write_expr(s, a);
            }
            s.push(')');
        }
        Expr::List(items) => write_list(s, items, syn),
        Expr::Ad(ad) => write_ad_in(s, ad, syn),
        Expr::Paren(x) => {
            s.push('(');
            write_expr(s, x);
            s.push(')');
        }
    }
}

/// An operand, in parentheses when the tree's shape would not survive printing without
/// them (trees built by code rather than parsed from text need this).
fn write_operand(s: &mut String, e: &Expr, parens: bool, syn: Fmt) {
    if parens {
        s.push('(');
        write_in(s, e, syn);
        s.push(')');
    } else {
        write_in(s, e, syn);
    }
}

/// The base of `.name`, `[i]` or `?:` binds tighter than any operator.
fn postfix_needs_parens(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Binary(..) | Expr::Unary(..) | Expr::Cond(_) | Expr::Elvis(_)
    )
}

/// Whether the text of `e` begins with a number literal.
fn starts_with_number(e: &Expr) -> bool {
    match e {
        Expr::Lit(v) => matches!(v, Value::Int(_) | Value::Real(_)),
        Expr::Select(b, _) => starts_with_number(b),
        Expr::Index(p) | Expr::Elvis(p) => starts_with_number(&p.0),
        _ => false,
    }
}

/// Binding strength of an expression's top operator: higher binds tighter.
fn precedence(e: &Expr) -> u8 {
    use crate::ast::BinOp::*;
    match e {
        Expr::Cond(_) => 1,
        Expr::Binary(op, _) => match op {
            Or => 2,
            And => 3,
            BitOr => 4,
            BitXor => 5,
            BitAnd => 6,
            Eq | Ne | Is | Isnt => 7,
            Lt | Le | Gt | Ge => 8,
            Shl | Shr | UShr => 9,
            Add | Sub => 10,
            Mul | Div | Mod => 11,
        },
        Expr::Unary(..) => 12,
        _ => 13,
    }
}

pub fn write_value(s: &mut String, v: &Value) {
    write_value_in(
        s,
        v,
        Fmt {
            syn: Syntax::New,
            pretty: None,
        },
    );
}

fn write_value_in(s: &mut String, v: &Value, syn: Fmt) {
    match v {
        Value::Undefined => s.push_str("undefined"),
        Value::Error => s.push_str("error"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(s, "{i}");
        }
        Value::Real(r) if syn.syn == Syntax::Old => write_old_real(s, *r),
        Value::Real(r) => write_real(s, *r),
        Value::Str(t) if syn.syn == Syntax::Old => write_old_string(s, t),
        Value::Str(t) => write_string(s, t),
        Value::List(l) => write_list(s, &l.items, syn),
        Value::Ad(a) => write_ad_in(s, &a.ad, syn),
        Value::AbsTime { secs, offset } => {
            s.push_str("absTime(\"");
            s.push_str(&crate::timefmt::format_abstime(*secs, *offset));
            s.push_str("\")");
        }
        Value::RelTime(d) => {
            s.push_str("relTime(\"");
            s.push_str(&crate::timefmt::format_reltime_literal(*d));
            s.push_str("\")");
        }
    }
}

/// Reals as `%.15E` (`1.500000000000000E+03`); zero as `0.0`; the special reals as calls.
pub fn write_real(s: &mut String, r: f64) {
    if r.is_nan() {
        s.push_str("real(\"NaN\")");
    } else if r.is_infinite() {
        s.push_str(if r > 0.0 {
            "real(\"INF\")"
        } else {
            "real(\"-INF\")"
        });
    } else if r == 0.0 {
        s.push_str(if r.is_sign_negative() { "-0.0" } else { "0.0" });
    } else {
        // HTCondor's `%.15E` loses the last digit of some doubles (0.30000000000000004);
        // those get one digit more, so that every real reads back exactly.
        let short = format_e15(r);
        if short.parse::<f64>() == Ok(r) {
            s.push_str(&short);
        } else {
            s.push_str(&format_e(r, 16));
        }
    }
}

/// A real as the old syntax prints it (`condor_q -l`): C's `%.16G`, with `.0` added to
/// what would read back as an integer (`1.0`, `3000000000000000.0`). Where 16 digits do not
/// give the same double back, 17 are used.
pub fn write_old_real(s: &mut String, r: f64) {
    if !r.is_finite() {
        return write_real(s, r);
    }
    let mut t = format_g(r, 16);
    if t.parse::<f64>() != Ok(r) {
        t = format_g(r, 17);
    }
    if !t.contains(['.', 'E', 'n', 'i']) {
        t.push_str(".0");
    }
    s.push_str(&t);
}

/// C's `%.<p>G`: fixed or exponent form by the exponent, trailing zeros dropped.
pub fn format_g(r: f64, p: usize) -> String {
    if r == 0.0 {
        return if r.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let e = format_e(r, p - 1);
    let exp: i32 = e
        .rsplit_once('E')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let (m, x) = e.split_once('E').unwrap_or((&e, "+00"));
        format!("{}E{x}", trim_fraction(m))
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_fraction(&format!("{r:.decimals$}")).to_string()
    }
}

fn trim_fraction(m: &str) -> &str {
    if m.contains('.') {
        m.trim_end_matches('0').trim_end_matches('.')
    } else {
        m
    }
}

/// C's `%.15E`.
pub fn format_e15(r: f64) -> String {
    format_e(r, 15)
}

/// C's `%.<digits>E`: mantissa, `E`, sign, and an exponent of at least two digits.
fn format_e(r: f64, digits: usize) -> String {
    let t = format!("{r:.digits$E}");
    match t.split_once('E') {
        Some((m, e)) => {
            let exp: i32 = e.parse().unwrap_or(0);
            let sign = if exp < 0 { '-' } else { '+' };
            format!("{m}E{sign}{:02}", exp.unsigned_abs())
        }
        None => t,
    }
}

/// A string literal with HTCondor's escapes; bytes outside printable ASCII as octal.
pub fn write_string(s: &mut String, t: &str) {
    s.push('"');
    escape_into(s, t, b'"');
    s.push('"');
}

/// An old-syntax string: bytes as they are, a quote as `\"` (what HTCondor's old reader
/// takes back unchanged).
fn write_old_string(s: &mut String, t: &str) {
    s.push('"');
    for c in t.chars() {
        if c == '"' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
}

fn escape_into(s: &mut String, t: &str, quote: u8) {
    for &b in t.as_bytes() {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            8 => s.push_str("\\b"),
            12 => s.push_str("\\f"),
            11 => s.push_str("\\v"),
            7 => s.push_str("\\a"),
            q if q == quote => {
                s.push('\\');
                s.push(q as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
}

/// A name after `.`: there `parent` is a plain name, as HTCondor writes it (`n.parent`),
/// though a bare attribute called parent is written `'parent'`.
fn write_selected_name(s: &mut String, n: &str) {
    if n.eq_ignore_ascii_case("parent") {
        s.push_str(n);
    } else {
        write_name(s, n);
    }
}

const KEYWORDS: [&str; 7] = [
    "true",
    "false",
    "undefined",
    "error",
    "is",
    "isnt",
    "parent",
];

/// An attribute name, quoted `'like this'` when it is not a plain identifier or is a keyword.
pub fn write_name(s: &mut String, n: &str) {
    let plain = n
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(n));
    if plain {
        s.push_str(n);
    } else {
        s.push('\'');
        escape_into(s, n, b'\'');
        s.push('\'');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_syntax_reals() {
        let old = |r: f64| {
            let mut s = String::new();
            write_old_real(&mut s, r);
            s
        };
        assert_eq!(old(2.5), "2.5");
        assert_eq!(old(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(old(0.3), "0.3");
        assert_eq!(old(1e20), "1E+20");
        assert_eq!(old(1e-7), "1E-07");
        assert_eq!(old(3e15), "3000000000000000.0");
        assert_eq!(old(1.0), "1.0");
        assert_eq!(old(-0.0), "-0.0");
        assert_eq!(old(1.0 / 3.0), "0.3333333333333333");
        assert_eq!(old(123456789.123), "123456789.123");
    }

    #[test]
    fn reals() {
        assert_eq!(format_e15(1500.0), "1.500000000000000E+03");
        assert_eq!(format_e15(1e-100), "1.000000000000000E-100");
        let mut s = String::new();
        write_real(&mut s, -0.0);
        assert_eq!(s, "-0.0");
    }
}
