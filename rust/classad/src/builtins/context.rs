//! Built-in functions that control evaluation: `eval`, `unparse`, `unresolved`, `debug`,
//! `evalInEachContext`, `countMatches`.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Builtin;
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::eval::{Evaluator, Scope, ScopeNode};
use crate::name::{Name, NameKind};
use crate::value::{AdValue, Value};

pub const FUNCTIONS: &[Builtin] = &[
    Builtin {
        name: "eval",
        f: eval,
    },
    Builtin {
        name: "unparse",
        f: unparse,
    },
    Builtin {
        name: "unresolved",
        f: unresolved,
    },
    Builtin {
        name: "debug",
        f: debug,
    },
    Builtin {
        name: "evalInEachContext",
        f: eval_in_each_context,
    },
    Builtin {
        name: "countMatches",
        f: count_matches,
    },
];

/// `eval(text)`: parse the string (or the text of a plain value) and evaluate it here.
fn eval(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    let text = match ev.eval(a) {
        Value::Str(s) => s.to_string(),
        v @ (Value::Int(_) | Value::Real(_) | Value::Bool(_) | Value::List(_) | Value::Ad(_)) => {
            crate::unparse::unparse_value(&v)
        }
        _ => return Value::Error,
    };
    match crate::parse_expr(&text) {
        Ok(e) => ev.nested(|ev| ev.eval(&e)),
        Err(_) => Value::Error,
    }
}

fn debug(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    ev.eval(a)
}

/// The ad that the current scope stands for (what an unscoped lookup tries first).
fn current_ad(ev: &Evaluator) -> Option<Arc<ClassAd>> {
    match &ev.scope {
        Scope::None => None,
        Scope::Side(i) => ev.roots.get(usize::from(*i)).copied().flatten().cloned(),
        Scope::Nested(node) => Some(node.ad.clone()),
    }
}

fn is_attr_ref(e: &Expr) -> bool {
    matches!(e, Expr::Attr(_) | Expr::Select(..) | Expr::Root(_))
}

/// `unparse(attr)`: the text of attribute `attr` of the current ad ("" when it has none).
fn unparse(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let [a] = args else {
        return Value::Error;
    };
    if !is_attr_ref(a) {
        return Value::Error;
    }
    let text = match (a, current_ad(ev)) {
        (Expr::Attr(n), Some(ad)) if n.kind == NameKind::Plain => ad
            .lookup_name(n)
            // HTCondor's unparse() uses its PrettyPrint: lists and ads one item a line.
            .map(crate::unparse::unparse_pretty)
            .unwrap_or_default(),
        _ => String::new(),
    };
    Value::string(text)
}

/// The expression an attribute reference names, with the ad it was found in, looked up
/// the way evaluation would (enclosing ads, then the other top-level ad).
fn find_ref(ev: &mut Evaluator, e: &Expr) -> Option<(Expr, Arc<ClassAd>)> {
    match e {
        Expr::Attr(n) | Expr::Root(n) if n.kind == NameKind::Plain => {
            let mut s = ev.scope.clone();
            loop {
                match s {
                    Scope::None => return None,
                    Scope::Side(i) => {
                        for side in [i, 1 - i] {
                            let ad = ev.roots.get(usize::from(side)).copied().flatten();
                            if let Some(ad) = ad {
                                if let Some(x) = ad.lookup_name(n) {
                                    return Some((x.clone(), ad.clone()));
                                }
                            }
                        }
                        return None;
                    }
                    Scope::Nested(node) => {
                        if let Some(x) = node.ad.lookup_name(n) {
                            return Some((x.clone(), node.ad.clone()));
                        }
                        s = node.parent.clone();
                    }
                }
            }
        }
        Expr::Select(base, n) => match ev.eval(base) {
            Value::Ad(adv) => adv.ad.lookup_name(n).map(|x| (x.clone(), adv.ad.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// The scope for evaluating inside `adv`: a top-level ad keeps its side (and so its
/// fallback to the other ad); any other ad is nested in the scope it was written in.
fn scope_of(ev: &Evaluator, adv: &AdValue) -> Scope {
    for side in 0..2u8 {
        let root = ev.roots.get(usize::from(side)).copied().flatten();
        if root.is_some_and(|r| Arc::ptr_eq(r, &adv.ad)) {
            return Scope::Side(side);
        }
    }
    Scope::Nested(Arc::new(ScopeNode {
        ad: adv.ad.clone(),
        parent: adv.parent.clone(),
    }))
}

/// The expression to evaluate in each ad: an attribute reference that resolves here
/// stands for that attribute's expression; anything else is used as written.
fn each_expr(ev: &mut Evaluator, e: &Expr) -> Expr {
    if is_attr_ref(e) {
        if let Some((x, _)) = find_ref(ev, e) {
            return x;
        }
    }
    e.clone()
}

/// Evaluate `e` inside each ad of the list value of `list`; None when `list` is not a
/// list (Some(Err(v)): the answer is `v`).
fn each_context(ev: &mut Evaluator, args: &[Expr]) -> Result<Vec<Value>, Value> {
    let [e, list] = args else {
        return Err(Value::Error);
    };
    let l = match ev.eval(list) {
        Value::List(l) => l,
        Value::Undefined => return Err(Value::Undefined),
        _ => return Err(Value::Error),
    };
    let expr = each_expr(ev, e);
    let items = ev.list_items(&l);
    Ok(items
        .into_iter()
        .map(|item| match item {
            Value::Ad(adv) => {
                let scope = scope_of(ev, &adv);
                ev.eval_in(&expr, scope)
            }
            Value::Undefined => Value::Undefined,
            _ => Value::Error,
        })
        .collect())
}

fn eval_in_each_context(ev: &mut Evaluator, args: &[Expr]) -> Value {
    match each_context(ev, args) {
        Ok(vals) => Value::list_of(vals.into_iter().map(Expr::Lit).collect()),
        Err(v) => v,
    }
}

/// `countMatches(expr, ads)`: how many ads of the list `expr` is true in.
fn count_matches(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let Some(list) = args.get(1) else {
        return Value::Error;
    };
    if args.len() != 2 {
        return Value::Error;
    }
    let _ = list;
    match each_context(ev, args) {
        Ok(vals) => {
            let n = vals.iter().filter(|v| v.truth() == Some(true));
            Value::Int(n.count() as i64)
        }
        Err(Value::Undefined) => Value::Int(0),
        Err(v) => v,
    }
}

/// `unresolved(attr [, regex])`: the references of the attribute's expression that the
/// ad does not define, as a sorted comma-separated string; with a regex, whether any of
/// them matches it.
fn unresolved(ev: &mut Evaluator, args: &[Expr]) -> Value {
    let Some(a) = args.first() else {
        return Value::Error;
    };
    if args.len() > 2 || !is_attr_ref(a) {
        return Value::Error;
    }
    let Some((expr, ad)) = find_ref(ev, a) else {
        return Value::Undefined;
    };
    let mut refs = BTreeMap::new();
    let mut visiting = Vec::new();
    external_refs(&expr, &ad, &mut refs, &mut visiting);
    match args.get(1) {
        None => Value::string(refs.into_values().collect::<Vec<_>>().join(",")),
        Some(p) => {
            let Value::Str(pat) = ev.eval(p) else {
                return Value::Error;
            };
            match regex::Regex::new(&pat) {
                Ok(re) => Value::Bool(refs.values().any(|r| re.is_match(r))),
                Err(_) => Value::Error,
            }
        }
    }
}

fn add_ref(refs: &mut BTreeMap<String, String>, name: String) {
    refs.entry(name.to_ascii_lowercase()).or_insert(name);
}

/// Collect into `refs` the attribute references in `e` that `ad` does not define,
/// following the ones it does.
fn external_refs(
    e: &Expr,
    ad: &ClassAd,
    refs: &mut BTreeMap<String, String>,
    visiting: &mut Vec<String>,
) {
    let follow = |n: &Name, refs: &mut BTreeMap<String, String>, visiting: &mut Vec<String>| {
        let key = n.as_str().to_ascii_lowercase();
        match ad.lookup_name(n) {
            Some(x) if !visiting.contains(&key) => {
                visiting.push(key);
                external_refs(x, ad, refs, visiting);
                visiting.pop();
            }
            Some(_) => {}
            None => add_ref(refs, n.as_str().to_string()),
        }
    };
    match e {
        Expr::Lit(_) => {}
        Expr::Attr(n) | Expr::Root(n) => {
            if n.kind == NameKind::Plain {
                follow(n, refs, visiting);
            }
        }
        Expr::Select(base, n) => match &**base {
            Expr::Attr(b) if b.kind == NameKind::My => follow(n, refs, visiting),
            Expr::Attr(b) if b.kind == NameKind::Target => add_ref(refs, n.as_str().to_string()),
            Expr::Attr(b) => {
                let inner = match ad.lookup_name(b) {
                    Some(Expr::Ad(inner)) => Some(inner.clone()),
                    _ => None,
                };
                if inner.is_none_or(|i| i.lookup_name(n).is_none()) {
                    add_ref(refs, crate::unparse::unparse(e));
                }
            }
            other => external_refs(other, ad, refs, visiting),
        },
        Expr::Index(bi) => {
            external_refs(&bi.0, ad, refs, visiting);
            external_refs(&bi.1, ad, refs, visiting);
        }
        Expr::Unary(_, x) | Expr::Paren(x) => external_refs(x, ad, refs, visiting),
        Expr::Binary(_, lr) => {
            external_refs(&lr.0, ad, refs, visiting);
            external_refs(&lr.1, ad, refs, visiting);
        }
        Expr::Cond(cte) => {
            external_refs(&cte.0, ad, refs, visiting);
            external_refs(&cte.1, ad, refs, visiting);
            external_refs(&cte.2, ad, refs, visiting);
        }
        Expr::Elvis(cf) => {
            external_refs(&cf.0, ad, refs, visiting);
            external_refs(&cf.1, ad, refs, visiting);
        }
        Expr::Call(call) => call
            .args
            .iter()
            .for_each(|x| external_refs(x, ad, refs, visiting)),
        Expr::List(items) => items
            .iter()
            .for_each(|x| external_refs(x, ad, refs, visiting)),
        Expr::Ad(inner) => {
            for (_, x) in inner.iter() {
                external_refs(x, ad, refs, visiting);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::ev;
    use std::sync::Arc;

    use crate::{eval_expr, parse_ad, parse_expr, Value};

    fn in_ad(s: &str, ad: &str) -> Value {
        let my = Arc::new(parse_ad(ad).expect("ad parses"));
        eval_expr(&parse_expr(s).expect("parses"), Some(&my), None)
    }

    #[test]
    fn eval_parses_at_run_time() {
        assert!(matches!(ev(r#"eval("1 + 2")"#), Value::Int(3)));
        assert!(matches!(ev(r#"eval("1 +")"#), Value::Error));
        assert!(matches!(
            in_ad(r#"eval("x + 1")"#, "[ x = 7 ]"),
            Value::Int(8)
        ));
    }

    #[test]
    fn unparse_and_unresolved() {
        assert!(matches!(in_ad("unparse(x)", "[ x = 7 ]"), Value::Str(s) if &*s == "7"));
        assert!(matches!(ev("unparse(1)"), Value::Error));
        // Lists and ads come out as HTCondor's PrettyPrint writes them.
        let pretty = |expr: &str| match in_ad("unparse(y)", &format!("[ y = {expr} ]")) {
            Value::Str(s) => s.to_string(),
            v => panic!("{v:?}"),
        };
        assert_eq!(pretty("x + {1}"), "x + \n   {\n      1\n   }");
        assert_eq!(pretty("{}"), "\n   {\n   }");
        assert_eq!(
            pretty("[a = 1; b = {2}]"),
            "\n    [\n        a = 1; \n        b = \n           {\n              2\n           }\n    ]"
        );
        assert_eq!(
            pretty("{[a = 2]}"),
            "\n   {\n      \n          [\n              a = 2\n          ]\n   }"
        );
        assert!(
            matches!(in_ad("unresolved(a)", "[ a = zz + yy + b; b = 1 ]"), Value::Str(s) if &*s == "yy,zz")
        );
        assert!(matches!(ev("unresolved(zz)"), Value::Undefined));
    }

    #[test]
    fn contexts() {
        let my = "[ Prio = 4; x = 7 ]";
        let v = in_ad("evalInEachContext(Prio, {[Prio = 1], MY})", my);
        let Value::List(l) = v else { panic!("{v:?}") };
        assert_eq!(l.items.len(), 2);
        assert!(matches!(
            in_ad("countMatches(Prio > 2, {MY, [Prio = 3]})", my),
            Value::Int(2)
        ));
        assert!(matches!(
            ev("countMatches(Weight > 4, {[Weight = 6], undefined})"),
            Value::Int(1)
        ));
        assert!(matches!(
            ev("evalInEachContext(Prio, [Prio = 1])"),
            Value::Error
        ));
    }
}
