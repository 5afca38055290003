//! Properties: unparse then parse gives the same tree; evaluation is total (never panics).

// A test harness: failing loudly on bad fixtures is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use condorx_classad::ast::{BinOp, Call, Expr, UnOp};
use condorx_classad::{builtins, eval_expr, parse_ad, parse_expr, unparse, ClassAd, Name, Value};
use proptest::prelude::*;

const BINOPS: [BinOp; 21] = [
    BinOp::Or,
    BinOp::And,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::BitAnd,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Is,
    BinOp::Isnt,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::UShr,
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Mod,
];
const UNOPS: [UnOp; 4] = [UnOp::Neg, UnOp::Plus, UnOp::Not, UnOp::BitNot];
const FUNCS: [&str; 8] = [
    "strcat",
    "size",
    "ifThenElse",
    "isUndefined",
    "int",
    "member",
    "floor",
    "toUpper",
];

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (0i64..1_000_000).prop_map(Expr::int),
        (-1e6f64..1e6).prop_map(|r| Expr::Lit(Value::Real(r))),
        "[ -~]{0,8}".prop_map(|s| Expr::string(&s)),
        any::<bool>().prop_map(|b| Expr::Lit(Value::Bool(b))),
        Just(Expr::Lit(Value::Undefined)),
        Just(Expr::Lit(Value::Error)),
        "[a-zA-Z_][a-zA-Z0-9_]{0,6}".prop_map(|n| Expr::Attr(Name::new(&n))),
        // Names that are also keywords or scope names must print so they read back.
        prop::sample::select(vec![
            "true", "Error", "is", "isnt", "parent", "MY", "other", "a b"
        ])
        .prop_map(|n| Expr::Attr(Name::new(n))),
        prop_oneof![Just("MY"), Just("TARGET")].prop_flat_map(|s| {
            "[a-z]{1,5}"
                .prop_map(move |n| Expr::Select(Box::new(Expr::Attr(Name::new(s))), Name::new(&n)))
        }),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            (0..BINOPS.len(), inner.clone(), inner.clone())
                .prop_map(|(i, l, r)| Expr::Binary(BINOPS[i], Box::new((l, r)))),
            (0..UNOPS.len(), inner.clone()).prop_map(|(i, x)| Expr::Unary(UNOPS[i], Box::new(x))),
            inner.clone().prop_map(|x| Expr::Paren(Box::new(x))),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, f)| Expr::Cond(Box::new((c, t, f)))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Elvis(Box::new((a, b)))),
            (inner.clone(), "[a-z]{1,4}")
                .prop_map(|(b, n)| Expr::Select(Box::new(b), Name::new(&n))),
            (inner.clone(), inner.clone()).prop_map(|(b, i)| Expr::Index(Box::new((b, i)))),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| Expr::List(Arc::new(v))),
            (0..FUNCS.len(), prop::collection::vec(inner.clone(), 0..3)).prop_map(|(i, args)| {
                Expr::Call(Box::new(Call {
                    name: Arc::from(FUNCS[i]),
                    func: builtins::lookup(FUNCS[i]),
                    args,
                }))
            }),
            prop::collection::vec(("[a-z]{1,4}", inner), 0..3).prop_map(|kv| {
                let mut ad = ClassAd::new();
                for (k, v) in kv {
                    ad.insert_str(&k, v);
                }
                Expr::Ad(Arc::new(ad))
            }),
        ]
    })
}

/// Unparse, then parse back.
fn reparse(e: &Expr) -> String {
    let text = unparse(e);
    let back = parse_expr(&text).unwrap_or_else(|err| panic!("{text:?} does not parse: {err}"));
    unparse(&back)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("ROUNDTRIP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000)
    ))]

    #[test]
    fn unparse_parse_is_a_fixed_point(e in expr()) {
        let text = unparse(&e);
        let back = parse_expr(&text).unwrap();
        prop_assert!(e.same_as(&back), "{} re-parsed to a different tree: {}", text, unparse(&back));
        let once = reparse(&e);
        let parsed = parse_expr(&once).unwrap();
        let again = parse_expr(&unparse(&parsed)).unwrap();
        prop_assert!(parsed.same_as(&again), "{} re-parsed differently", once);
        prop_assert_eq!(&once, &reparse(&parsed));
    }

    #[test]
    fn evaluation_is_total(e in expr()) {
        let my = Arc::new(parse_ad("[ a = 1; b = \"x\"; l = { 1, 2 }; n = [ c = a ] ]").unwrap());
        let tg = Arc::new(parse_ad("[ a = 2; d = TARGET.a ]").unwrap());
        let _ = eval_expr(&e, Some(&my), Some(&tg));
        let _ = eval_expr(&e, None, None);
    }

    #[test]
    fn parsing_never_panics(s in "[ -~]{0,40}") {
        let _ = parse_expr(&s);
        let _ = parse_ad(&s);
        let _ = condorx_classad::parse_old_ads(&s);
    }
}
