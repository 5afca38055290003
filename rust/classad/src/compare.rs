//! Structural equality of expressions (names case-insensitive), for round-trip checks.

use crate::ast::{Expr, UnOp};
use crate::classad::ClassAd;
use crate::value::Value;

/// `- 5` (negation of a literal) and `-5` (a negative literal) are the same expression:
/// HTCondor prints the first as ` -5`, which reads back as the second.
fn folded(e: &Expr) -> Option<Value> {
    match e {
        Expr::Unary(UnOp::Neg, x) => match &**x {
            Expr::Lit(Value::Int(i)) => Some(Value::Int(i.wrapping_neg())),
            Expr::Lit(Value::Real(r)) => Some(Value::Real(-r)),
            _ => None,
        },
        _ => None,
    }
}

/// Structural equality up to grouping: parentheses, which only record how the text was
/// written, are looked through.
pub fn same_expr(a: &Expr, b: &Expr) -> bool {
    // Ads parsed together share their expressions: one tree is the same as itself.
    std::ptr::eq(a, b) || crate::stack::guard(|| same_expr_unguarded(a, b))
}

fn same_expr_unguarded(a: &Expr, b: &Expr) -> bool {
    let (a, b) = (strip_parens(a), strip_parens(b));
    for (call, lit) in [(a, b), (b, a)] {
        if let (Some(x), Expr::Lit(Value::Real(y))) = (special_real(call), lit) {
            return same_value(&Value::Real(x), &Value::Real(*y));
        }
    }
    if let (Some(x), Expr::Lit(y)) = (folded(a), b) {
        return same_value(&x, y);
    }
    if let (Some(x), Expr::Lit(y)) = (folded(b), a) {
        return same_value(&x, y);
    }
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => same_value(x, y),
        (Expr::Attr(x), Expr::Attr(y)) | (Expr::Root(x), Expr::Root(y)) => x == y,
        (Expr::Select(x, n), Expr::Select(y, m)) => n == m && same_expr(x, y),
        (Expr::Index(x), Expr::Index(y)) => same_expr(&x.0, &y.0) && same_expr(&x.1, &y.1),
        (Expr::Unary(o, x), Expr::Unary(p, y)) => o == p && same_expr(x, y),
        (Expr::Binary(o, x), Expr::Binary(p, y)) => {
            o == p && same_expr(&x.0, &y.0) && same_expr(&x.1, &y.1)
        }
        (Expr::Cond(x), Expr::Cond(y)) => {
            same_expr(&x.0, &y.0) && same_expr(&x.1, &y.1) && same_expr(&x.2, &y.2)
        }
        (Expr::Elvis(x), Expr::Elvis(y)) => same_expr(&x.0, &y.0) && same_expr(&x.1, &y.1),
        (Expr::Call(x), Expr::Call(y)) => {
            x.name.eq_ignore_ascii_case(&y.name) && same_list(&x.args, &y.args)
        }
        (Expr::List(x), Expr::List(y)) => same_list(x, y),
        (Expr::Ad(x), Expr::Ad(y)) => same_ad(x, y),
        _ => false,
    }
}

/// `real("INF")`, `real("-INF")`, `real("NaN")`: how an infinite or NaN literal (from
/// `1e400`, say) is printed, so the same expression as that literal.
fn special_real(e: &Expr) -> Option<f64> {
    let Expr::Call(c) = e else { return None };
    let [Expr::Lit(Value::Str(s))] = c.args.as_slice() else {
        return None;
    };
    if !c.name.eq_ignore_ascii_case("real") {
        return None;
    }
    match s.to_ascii_lowercase().as_str() {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

fn strip_parens(mut e: &Expr) -> &Expr {
    while let Expr::Paren(inner) = e {
        e = inner;
    }
    e
}

fn same_list(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_expr(x, y))
}

pub fn same_ad(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(n, e)| b.lookup_name(n).is_some_and(|f| same_expr(e, f)))
}

/// Literal values equal in type and bits (NaN equals NaN, -0.0 differs from 0.0).
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Value::List(x), Value::List(y)) => same_list(&x.items, &y.items),
        (Value::Ad(x), Value::Ad(y)) => same_ad(&x.ad, &y.ad),
        _ => crate::ops::is_identical(a, b).unwrap_or(false),
    }
}
