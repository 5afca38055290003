//! Static checks on a parsed expression, for tools that want to warn before evaluating.
//!
//! HTCondor accepts a call to a function it does not know and evaluates it to ERROR;
//! condorx does the same, and these checks let a CLI say why.

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::NameKind;

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
    crate::stack::guard(|| walk_unguarded(e, f));
}

fn walk_unguarded(e: &Expr, f: &mut dyn FnMut(&Expr)) {
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

/// The attribute references of an expression, split by whether an ad resolves them.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Refs {
    /// Attributes of the ad that the expression reads, directly or through other attributes.
    pub internal: Vec<String>,
    /// References the ad cannot resolve: `TARGET.x`, names it lacks, `x.y` of a missing `x`.
    pub external: Vec<String>,
}

/// The references `e` makes when evaluated in `ad` (each name once, in order found).
/// Attributes of the ad are followed into their own expressions.
pub fn references(e: &Expr, ad: &ClassAd) -> Refs {
    let mut refs = Refs::default();
    collect(e, ad, &mut refs);
    refs
}

fn add(list: &mut Vec<String>, name: &str) -> bool {
    if list.iter().any(|n| n.eq_ignore_ascii_case(name)) {
        return false;
    }
    list.push(name.to_string());
    true
}

/// An attribute of `ad` is read: note it, and follow its expression the first time.
fn internal(name: &str, ad: &ClassAd, refs: &mut Refs) {
    if add(&mut refs.internal, name) {
        if let Some(inner) = ad.lookup(name) {
            collect(inner, ad, refs);
        }
    }
}

fn collect(e: &Expr, ad: &ClassAd, refs: &mut Refs) {
    crate::stack::guard(|| collect_unguarded(e, ad, refs));
}

fn collect_unguarded(e: &Expr, ad: &ClassAd, refs: &mut Refs) {
    match e {
        Expr::Attr(n) | Expr::Root(n) if n.kind == NameKind::Plain => {
            if ad.lookup_name(n).is_some() {
                internal(n.as_str(), ad, refs);
            } else {
                add(&mut refs.external, n.as_str());
            }
        }
        Expr::Attr(_) | Expr::Root(_) | Expr::Lit(_) => {}
        Expr::Select(base, n) => match &**base {
            Expr::Attr(b) if b.kind == NameKind::My && ad.lookup_name(n).is_some() => {
                internal(n.as_str(), ad, refs)
            }
            Expr::Attr(b) if b.kind != NameKind::Plain || ad.lookup_name(b).is_none() => {
                add(
                    &mut refs.external,
                    &format!("{}.{}", b.as_str(), n.as_str()),
                );
            }
            Expr::Attr(b) => internal(b.as_str(), ad, refs),
            other => {
                collect(other, ad, refs);
            }
        },
        Expr::Unary(_, x) | Expr::Paren(x) => collect(x, ad, refs),
        Expr::Index(p) | Expr::Binary(_, p) | Expr::Elvis(p) => {
            collect(&p.0, ad, refs);
            collect(&p.1, ad, refs);
        }
        Expr::Cond(t) => {
            collect(&t.0, ad, refs);
            collect(&t.1, ad, refs);
            collect(&t.2, ad, refs);
        }
        Expr::Call(c) => c.args.iter().for_each(|a| collect(a, ad, refs)),
        Expr::List(items) => items.iter().for_each(|a| collect(a, ad, refs)),
        // A nested ad resolves its own names; what it cannot resolve is looked up here.
        Expr::Ad(inner) => inner.iter().for_each(|(_, a)| {
            let mut sub = Refs::default();
            collect(a, inner, &mut sub);
            for x in sub.external {
                if ad.lookup(&x).is_some() {
                    internal(&x, ad, refs);
                } else {
                    add(&mut refs.external, &x);
                }
            }
        }),
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

    #[test]
    fn references_split_by_the_ad() {
        let ad = crate::parse_ad(
            "[ RequestMemory = 2048; x = RequestMemory + 1; \
               Requirements = TARGET.Memory >= MY.RequestMemory && Arch == \"X\" && x > 1 && foo.bar ]",
        )
        .unwrap();
        let refs = references(ad.lookup("Requirements").unwrap(), &ad);
        assert_eq!(refs.internal, vec!["RequestMemory", "x"]);
        assert_eq!(refs.external, vec!["TARGET.Memory", "Arch", "foo.bar"]);
    }
}
