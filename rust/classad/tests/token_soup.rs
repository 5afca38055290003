//! A fuzzer's worth of property testing without a nightly toolchain: random sequences of
//! ClassAd tokens (every operator, extreme numbers, every built-in name) are parsed and,
//! when they parse, evaluated against ads. Run in the dev profile, so an integer overflow
//! panics and fails the test: nothing may panic, in any build.

// A test harness: failing loudly is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use condorx_classad::{builtins, eval_expr, parse_ad, parse_expr, parse_old_ads, unparse};
use proptest::prelude::*;

const PUNCT: &[&str] = &[
    "(", ")", "[", "]", "{", "}", ",", ";", ".", "?", ":", "=", "==", "!=", "=?=", "=!=", "<",
    "<=", ">", ">=", "<<", ">>", ">>>", "+", "-", "*", "/", "%", "!", "~", "&", "&&", "|", "||",
    "^", "?:", "is", "isnt",
];
const WORDS: &[&str] = &[
    "true",
    "false",
    "undefined",
    "error",
    "MY",
    "TARGET",
    "parent",
    "a",
    "b",
    "l",
    "n",
    "s",
    "Memory",
    "x",
];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "63",
    "64",
    "9223372036854775807",
    "-9223372036854775808",
    "2147483648",
    "4294967296",
    "1e308",
    "-1e308",
    "1e-320",
    "0.5",
    "-0.0",
    "1e400",
    "86400",
];
const STRINGS: &[&str] = &[
    r#""""#,
    r#""a,b,c""#,
    r#""2020-01-01T00:00:00+01:00""#,
    r#""1+02:03:04""#,
    r#""%Y %j %U""#,
    r#""[a-z]+""#,
    r#""\101\n""#,
    r#""x y""#,
    r#""-9223372036854775809""#,
    r#""inf""#,
];

fn token() -> impl Strategy<Value = String> {
    let names = builtins::names();
    prop_oneof![
        3 => prop::sample::select(PUNCT).prop_map(str::to_string),
        2 => prop::sample::select(WORDS).prop_map(str::to_string),
        2 => prop::sample::select(NUMBERS).prop_map(str::to_string),
        1 => prop::sample::select(STRINGS).prop_map(str::to_string),
        2 => prop::sample::select(names).prop_map(|n| format!("{n}(")),
    ]
}

fn soup() -> impl Strategy<Value = String> {
    (prop::collection::vec(token(), 1..24), any::<bool>())
        .prop_map(|(toks, spaced)| toks.join(if spaced { " " } else { "" }))
}

/// Token soup biased towards well-formed calls: `f(arg, arg)` with literal arguments.
fn call() -> impl Strategy<Value = String> {
    let names = builtins::names();
    let arg = prop_oneof![
        prop::sample::select(NUMBERS).prop_map(str::to_string),
        prop::sample::select(STRINGS).prop_map(str::to_string),
        prop::sample::select(WORDS).prop_map(str::to_string),
        Just("{1, 2.5, \"x\", undefined}".to_string()),
        Just("[a = 1; b = a]".to_string()),
    ];
    (
        prop::sample::select(names),
        prop::collection::vec(arg, 0..5),
    )
        .prop_map(|(f, args)| format!("{f}({})", args.join(", ")))
}

fn ads() -> (Arc<condorx_classad::ClassAd>, Arc<condorx_classad::ClassAd>) {
    let my = parse_ad(
        r#"[ a = 1; b = "x"; l = { 1, 2, a }; n = [ c = a; d = parent.b ]; s = "a,b"; x = x + 1;
             Memory = 9223372036854775807 ]"#,
    )
    .unwrap();
    let tg =
        parse_ad(r#"[ a = -9223372036854775808; b = 1e308; Memory = TARGET.Memory ]"#).unwrap();
    (Arc::new(my), Arc::new(tg))
}

fn exercise(text: &str) {
    let (my, tg) = ads();
    if let Ok(e) = parse_expr(text) {
        let _ = eval_expr(&e, Some(&my), Some(&tg));
        let _ = eval_expr(&e, None, None);
        let printed = unparse(&e);
        let back =
            parse_expr(&printed).unwrap_or_else(|err| panic!("{text:?} -> {printed:?}: {err}"));
        assert!(
            back.same_as(&e),
            "{text:?} -> {printed:?} re-parsed differently"
        );
    }
    let _ = parse_ad(&format!("[ v = {text} ]"));
    let _ = parse_old_ads(&format!("V = {text}\n"));
}

proptest! {
    // SOUP_CASES=1000000 for a long hunt; CI runs the default.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("SOUP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(4000)
    ))]

    #[test]
    fn token_soup_never_panics(text in soup()) {
        exercise(&text);
    }

    #[test]
    fn builtin_calls_never_panic(text in call()) {
        exercise(&text);
    }
}
