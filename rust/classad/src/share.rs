//! Sharing equal expressions among ads parsed together: the jobs of one submission, or
//! the slots of one machine type, write the same Requirements, Rank and policies.
//!
//! Only expressions written identically are shared (parentheses and spelling included),
//! so every ad still prints exactly as it was written.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::Expr;
use crate::classad::Shared;
use crate::compare::same_value;
use crate::fingerprint::expr_hash;

/// Distinct expressions kept at most: past it, new ones are simply not shared (a text of
/// a million unique expressions must not build a million-entry table for nothing).
const MAX_KEPT: usize = 50_000;

#[derive(Default)]
pub struct ExprCache {
    by_hash: HashMap<u64, Vec<Arc<Shared>>>,
    kept: usize,
}

impl ExprCache {
    pub fn new() -> ExprCache {
        ExprCache::default()
    }

    /// The shared copy of `e`, or `None` for a literal (cheaper kept in the ad) or when
    /// the cache is full of other expressions.
    pub fn share(&mut self, e: Expr) -> Result<Arc<Shared>, Expr> {
        if matches!(e, Expr::Lit(_)) {
            return Err(e);
        }
        let hash = expr_hash(&e);
        let alike = self.by_hash.entry(hash).or_default();
        if let Some(s) = alike.iter().find(|s| identical(&s.expr, &e)) {
            return Ok(s.clone());
        }
        if self.kept >= MAX_KEPT {
            return Err(e);
        }
        self.kept += 1;
        let s = Arc::new(Shared { hash, expr: e });
        alike.push(s.clone());
        Ok(s)
    }
}

/// The same tree written the same way: names in the same spelling, parentheses where
/// they were.
pub fn identical(a: &Expr, b: &Expr) -> bool {
    crate::stack::guard(|| identical_unguarded(a, b))
}

fn identical_unguarded(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => same_value(x, y),
        (Expr::Attr(x), Expr::Attr(y)) | (Expr::Root(x), Expr::Root(y)) => x.text == y.text,
        (Expr::Select(x, n), Expr::Select(y, m)) => n.text == m.text && identical(x, y),
        (Expr::Index(x), Expr::Index(y)) => identical(&x.0, &y.0) && identical(&x.1, &y.1),
        (Expr::Unary(o, x), Expr::Unary(p, y)) => o == p && identical(x, y),
        (Expr::Binary(o, x), Expr::Binary(p, y)) => {
            o == p && identical(&x.0, &y.0) && identical(&x.1, &y.1)
        }
        (Expr::Cond(x), Expr::Cond(y)) => {
            identical(&x.0, &y.0) && identical(&x.1, &y.1) && identical(&x.2, &y.2)
        }
        (Expr::Elvis(x), Expr::Elvis(y)) => identical(&x.0, &y.0) && identical(&x.1, &y.1),
        (Expr::Call(x), Expr::Call(y)) => x.name == y.name && all_identical(&x.args, &y.args),
        (Expr::List(x), Expr::List(y)) => all_identical(x, y),
        (Expr::Ad(x), Expr::Ad(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((n, e), (m, f))| n.text == m.text && identical(e, f))
        }
        (Expr::Paren(x), Expr::Paren(y)) => identical(x, y),
        _ => false,
    }
}

fn all_identical(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| identical(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_expr;

    fn e(s: &str) -> Expr {
        parse_expr(s).unwrap()
    }

    #[test]
    fn only_expressions_written_alike_are_shared() {
        let mut cache = ExprCache::new();
        let a = cache.share(e("TARGET.Memory >= RequestMemory")).unwrap();
        let b = cache.share(e("TARGET.Memory >= RequestMemory")).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = cache.share(e("(TARGET.Memory >= RequestMemory)")).unwrap();
        assert!(!Arc::ptr_eq(&a, &c), "parentheses are kept for printing");
        let d = cache.share(e("target.memory >= requestmemory")).unwrap();
        assert!(!Arc::ptr_eq(&a, &d), "spelling is kept for printing");
        assert!(cache.share(e("42")).is_err(), "literals stay in the ad");
        assert_eq!(a.hash, expr_hash(&e("TARGET.Memory >= RequestMemory")));
    }
}
