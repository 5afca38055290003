//! Deep input on small stacks: parsing, printing and evaluating the deepest accepted
//! expression must fit a 512 KiB thread stack in any build, and deeper input is refused.

// A test harness: failing loudly is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use condorx_classad::{eval_standalone, parse_expr, parser::MAX_DEPTH, unparse};

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn nested(open: &str, close: &str, depth: usize) -> String {
    format!("{}1{}", open.repeat(depth), close.repeat(depth))
}

#[test]
fn deepest_accepted_expressions_fit_a_small_stack() {
    for (open, close) in [
        ("(", ")"),
        ("{", "}"),
        ("[a=", "]"),
        ("-", ""),
        ("!", ""),
        ("f(", ")"),
    ] {
        // Lists, ads and calls take two levels each; the others one.
        let depth = MAX_DEPTH / 2 - 2;
        let text = nested(open, close, depth);
        on_small_stack(move || {
            let e = parse_expr(&text).unwrap_or_else(|err| panic!("{open}: {err}"));
            let _ = eval_standalone(&e);
            let _ = parse_expr(&unparse(&e)).unwrap();
        });
    }
}

#[test]
fn deeper_input_is_refused_on_a_small_stack() {
    for (open, close) in [("(", ")"), ("{", "}"), ("[a=", "]"), ("-", ""), ("a[", "]")] {
        let text = nested(open, close, 100_000);
        on_small_stack(move || assert!(parse_expr(&text).is_err(), "{open}"));
    }
}

#[test]
fn binary_chains_are_not_recursion_bound() {
    // A long flat chain (a + a + ... + a) is deep on the left; it must parse and evaluate.
    let text = vec!["1"; 20_000].join(" + ");
    on_small_stack(move || {
        let e = parse_expr(&text).unwrap();
        assert!(matches!(
            eval_standalone(&e),
            condorx_classad::Value::Int(20_000)
        ));
    });
}
