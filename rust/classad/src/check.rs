//! Static checks on a parsed expression, for tools that want to warn before evaluating.
//!
//! HTCondor accepts a call to a function it does not know and evaluates it to ERROR;
//! condorx does the same, and these checks let a CLI say why.

use crate::ast::Expr;

/// The names of the functions called in `e` that are not built in, in order of appearance.
pub fn unknown_functions(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    walk(e, &mut |x| {
        if let Expr::Call(c) = x {
            if c.func.is_none() && !out.iter().any(|n: &String| n.eq_ignore_ascii_case(&c.name)) {
                out.push(c.name.to_string());
            }
        }
    });
    out
}

/// Visit `e` and every expression inside it, nested ads and lists included.
pub fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) => {}
        Expr::Select(b, _) | Expr::Unary(_, b) | Expr::Paren(b) => walk(b, f),
        Expr::Index(p) | Expr::Binary(_, p) | Expr::Elvis(p) => {
            walk(&p.0, f);
            walk(&p.1, f);
        }
        Expr::Cond(t) => {
            walk(&t.0, f);
            walk(&t.1, f);
            walk(&t.2, f);
        }
        Expr::Call(c) => c.args.iter().for_each(|a| walk(a, f)),
        Expr::List(items) => items.iter().for_each(|a| walk(a, f)),
        Expr::Ad(ad) => ad.iter().for_each(|(_, a)| walk(a, f)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_expr;

    #[test]
    fn finds_unknown_functions_once() {
        let e = parse_expr("strcat(foo(1), FOO(2), [a = bar()], size({}))").unwrap();
        assert_eq!(
            unknown_functions(&e),
            vec!["foo".to_string(), "bar".to_string()]
        );
    }
}
