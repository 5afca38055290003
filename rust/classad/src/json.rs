//! ClassAds as JSON, the form `condor_q -json` prints: literals as JSON values, any other
//! expression as the string `"\/Expr(<expression>)\/"`.

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::unparse::{format_g, unparse};
use crate::value::Value;

/// An ad as indented JSON (two spaces a level, as HTCondor writes it).
pub fn unparse_ad_json(ad: &ClassAd) -> String {
    let mut s = String::new();
    write_ad(&mut s, ad, 0);
    s
}

fn indent(s: &mut String, level: usize) {
    for _ in 0..level {
        s.push_str("  ");
    }
}

fn write_ad(s: &mut String, ad: &ClassAd, level: usize) {
    s.push_str("{\n");
    let n = ad.len();
    for (i, (name, e)) in ad.iter().enumerate() {
        indent(s, level + 1);
        write_json_string(s, name.as_str());
        s.push_str(": ");
        write_expr(s, e, level + 1);
        s.push_str(if i + 1 < n { ",\n" } else { "\n" });
    }
    indent(s, level);
    s.push('}');
}

fn write_expr(s: &mut String, e: &Expr, level: usize) {
    match e {
        Expr::Lit(v) if json_scalar(s, v) => {}
        Expr::List(items) if items.iter().all(is_plain) => {
            s.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                indent(s, level + 1);
                write_expr(s, item, level + 1);
                s.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            indent(s, level);
            s.push(']');
        }
        Expr::Ad(ad) => write_ad(s, ad, level),
        other => write_json_string(s, &format!("\\/Expr({})\\/", unparse(other))),
    }
}

/// True for what JSON can hold as it is: scalars, and lists and ads made of them.
fn is_plain(e: &Expr) -> bool {
    match e {
        Expr::Lit(v) => {
            matches!(
                v,
                Value::Undefined | Value::Bool(_) | Value::Int(_) | Value::Str(_)
            ) || matches!(v, Value::Real(r) if r.is_finite())
        }
        Expr::List(items) => items.iter().all(is_plain),
        Expr::Ad(_) => true,
        _ => false,
    }
}

/// Write a scalar literal as JSON; false when it has no JSON form (ERROR, times, inf).
fn json_scalar(s: &mut String, v: &Value) -> bool {
    match v {
        Value::Undefined => s.push_str("null"),
        Value::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => s.push_str(&i.to_string()),
        Value::Real(r) if r.is_finite() => {
            let t = format_g(*r, 17);
            let short = format_g(*r, 16);
            let t = if short.parse::<f64>() == Ok(*r) {
                short
            } else {
                t
            };
            s.push_str(&t);
            if !t.contains(['.', 'E']) {
                s.push_str(".0");
            }
        }
        Value::Str(t) => write_json_string(s, t),
        _ => return false,
    }
    true
}

/// A JSON string literal. (The `\/` of `\/Expr(...)\/` is written by the caller.)
fn write_json_string(s: &mut String, t: &str) {
    s.push('"');
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' if chars.peek() == Some(&'/') => {
                s.push_str("\\/");
                chars.next();
            }
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_ad;

    #[test]
    fn literals_as_json_expressions_as_strings() {
        let ad = parse_ad(
            r#"[ a = 1; b = "x\"y"; c = a + 1; d = {1, "s", 2.5}; e = [f = 1]; g = undefined ]"#,
        )
        .unwrap();
        let want = "{\n  \"a\": 1,\n  \"b\": \"x\\\"y\",\n  \"c\": \"\\/Expr(a + 1)\\/\",\n  \"d\": [\n    1,\n    \"s\",\n    2.5\n  ],\n  \"e\": {\n    \"f\": 1\n  },\n  \"g\": null\n}";
        assert_eq!(unparse_ad_json(&ad), want);
    }
}
