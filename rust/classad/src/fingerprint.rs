//! A cheap structural hash of an expression, for grouping expressions that are the same
//! without printing them (a pool's million job ads share a handful of policies).
//!
//! Expressions that `same_expr` calls equal hash alike in all but exotic spellings
//! (`real("INF")` against an infinite literal): callers confirm a hash match with
//! `same_expr`, so a mismatch only costs a missed grouping, never a wrong one.

use crate::ast::{Expr, UnOp};
use crate::classad::ClassAd;
use crate::value::Value;

const K: u64 = 0x9E37_79B9_7F4A_7C15;

#[derive(Clone, Copy)]
struct Mix(u64);

impl Mix {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(K);
    }

    fn str_ci(&mut self, s: &str) {
        // Names compare case-insensitively; `Name::hash` already folds case.
        self.add(crate::name::ci_hash(s));
    }

    fn bytes(&mut self, s: &str) {
        self.add(s.len() as u64);
        for chunk in s.as_bytes().chunks(8) {
            let mut word = [0u8; 8];
            word.iter_mut().zip(chunk).for_each(|(w, b)| *w = *b);
            self.add(u64::from_le_bytes(word));
        }
    }
}

/// The structural hash of `e`: parentheses looked through, names case-folded.
pub fn expr_hash(e: &Expr) -> u64 {
    let mut m = Mix(K);
    crate::stack::guard(|| hash_expr(e, &mut m));
    m.0
}

/// The hash of a whole ad, independent of attribute order.
pub fn ad_hash(ad: &ClassAd) -> u64 {
    let mut total = ad.len() as u64;
    for (name, e) in ad.iter() {
        let mut m = Mix(name.hash);
        hash_expr(e, &mut m);
        total = total.wrapping_add(m.0);
    }
    total
}

fn hash_value(v: &Value, m: &mut Mix) {
    match v {
        Value::Undefined => m.add(1),
        Value::Error => m.add(2),
        Value::Bool(b) => m.add(3 + u64::from(*b)),
        Value::Int(i) => {
            m.add(5);
            m.add(*i as u64);
        }
        Value::Real(r) => {
            m.add(6);
            m.add(if r.is_nan() { u64::MAX } else { r.to_bits() });
        }
        Value::Str(s) => {
            m.add(7);
            m.bytes(s);
        }
        Value::List(l) => {
            m.add(8);
            l.items.iter().for_each(|x| hash_expr(x, m));
        }
        Value::Ad(a) => {
            m.add(9);
            m.add(ad_hash(&a.ad));
        }
        Value::AbsTime { secs, offset } => {
            m.add(10);
            m.add(*secs as u64);
            m.add(u64::from(offset.unsigned_abs()));
        }
        Value::RelTime(r) => {
            m.add(11);
            m.add(r.to_bits());
        }
    }
}

fn hash_expr(e: &Expr, m: &mut Mix) {
    crate::stack::guard(|| hash_expr_unguarded(e, m));
}

fn hash_expr_unguarded(e: &Expr, m: &mut Mix) {
    match e {
        Expr::Paren(x) => hash_expr(x, m),
        // `-5` written as negation of 5 is the literal -5.
        Expr::Unary(UnOp::Neg, x) if matches!(&**x, Expr::Lit(Value::Int(_) | Value::Real(_))) => {
            match &**x {
                Expr::Lit(Value::Int(i)) => hash_value(&Value::Int(i.wrapping_neg()), m),
                Expr::Lit(Value::Real(r)) => hash_value(&Value::Real(-r), m),
                _ => m.add(11),
            }
        }
        Expr::Lit(v) => hash_value(v, m),
        Expr::Attr(n) => {
            m.add(12);
            m.add(n.hash);
        }
        Expr::Root(n) => {
            m.add(13);
            m.add(n.hash);
        }
        Expr::Select(base, n) => {
            m.add(14);
            m.add(n.hash);
            hash_expr(base, m);
        }
        Expr::Index(p) => {
            m.add(15);
            hash_expr(&p.0, m);
            hash_expr(&p.1, m);
        }
        Expr::Unary(op, x) => {
            m.add(16 + *op as u64);
            hash_expr(x, m);
        }
        Expr::Binary(op, p) => {
            m.add(32 + *op as u64);
            hash_expr(&p.0, m);
            hash_expr(&p.1, m);
        }
        Expr::Cond(t) => {
            m.add(64);
            hash_expr(&t.0, m);
            hash_expr(&t.1, m);
            hash_expr(&t.2, m);
        }
        Expr::Elvis(p) => {
            m.add(65);
            hash_expr(&p.0, m);
            hash_expr(&p.1, m);
        }
        Expr::Call(c) => {
            m.add(66);
            m.str_ci(&c.name);
            m.add(c.args.len() as u64);
            c.args.iter().for_each(|a| hash_expr(a, m));
        }
        Expr::List(items) => {
            m.add(67);
            m.add(items.len() as u64);
            items.iter().for_each(|a| hash_expr(a, m));
        }
        Expr::Ad(ad) => {
            m.add(68);
            m.add(ad_hash(ad));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_expr;

    fn h(s: &str) -> u64 {
        expr_hash(&parse_expr(s).unwrap())
    }

    #[test]
    fn same_expressions_hash_alike() {
        assert_eq!(h("TARGET.Memory >= 2048"), h("(target.memory >= (2048))"));
        assert_eq!(h("x - -5"), h("x - (-5)"));
        assert_eq!(h("[a = 1; b = 2]"), h("[b = 2; a = 1]"));
        assert_eq!(h("strcat(\"a\", X)"), h("STRCAT(\"a\", x)"));
    }

    #[test]
    fn different_expressions_hash_apart() {
        let forms = [
            "a",
            "b",
            "a + b",
            "b + a",
            "a - b",
            "1",
            "1.0",
            "\"1\"",
            "true",
            "undefined",
            "\"abc\"",
            "\"ABC\"",
            "f(a)",
            "f(a, b)",
            "{a}",
            "{a, b}",
            "a.b",
            "b.a",
            "a[b]",
            "a ? b : c",
            "a ?: b",
            "-a",
            "!a",
            ".a",
            "[a = 1]",
            "[a = 2]",
        ];
        let hashes: std::collections::HashSet<u64> = forms.iter().map(|f| h(f)).collect();
        assert_eq!(hashes.len(), forms.len());
    }
}
