//! Runs the shared ClassAd conformance corpus against the Rust core directly (no Python).
//!
//!     cargo run --release -p condorx-classad --example conformance -- [DIR] [--category TEXT] [--show N]
//!
//! Prints passed/total per file and category and the first N failures. The scoring follows
//! `shared/classad-conformance/run.py`; the Python test suite runs that script itself.

// A test harness: failing loudly on bad fixtures is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use condorx_classad::{
    compare::same_expr, eval_expr, matches, parse_ad, parse_expr, parse_old_ads, symmetric_match,
    unparse, ClassAd, Expr, Value,
};
use serde_json::Value as J;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = "../shared/classad-conformance".to_string();
    let mut cat: Option<String> = None;
    let mut show = 20usize;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--category" => {
                cat = args.get(i + 1).cloned();
                i += 1;
            }
            "--show" => {
                show = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(20);
                i += 1;
            }
            d => dir = d.to_string(),
        }
        i += 1;
    }
    std::env::set_var("TZ", "UTC");
    let mut failures = Vec::new();
    let (mut tp, mut tn) = (0, 0);
    for file in [
        "eval.jsonl",
        "match.jsonl",
        "parse_errors.jsonl",
        "old_ads.jsonl",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap_or_default();
        let mut per: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let rec: J = serde_json::from_str(line).unwrap();
            let category = rec["category"]
                .as_str()
                .or(rec["kind"].as_str())
                .unwrap_or("?")
                .to_string();
            if let Some(c) = &cat {
                if !category.contains(c.as_str()) {
                    continue;
                }
            }
            let why = std::panic::catch_unwind(|| match file {
                "eval.jsonl" => run_eval(&rec),
                "match.jsonl" => run_match(&rec),
                "parse_errors.jsonl" => run_perr(&rec),
                _ => run_old(&rec),
            })
            .unwrap_or_else(|_| Some("PANIC".to_string()));
            let e = per.entry(category).or_default();
            e.1 += 1;
            tn += 1;
            match why {
                None => {
                    e.0 += 1;
                    tp += 1;
                }
                Some(w) => failures.push(format!(
                    "[{}] {}\n      -> {}",
                    rec["id"],
                    describe(&rec),
                    w
                )),
            }
        }
        let (p, n) = per.values().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        println!("{file:20} {p:6}/{n:<6}");
        for (c, (p, n)) in per {
            if p != n {
                println!("  {c:26} {p:6}/{n:<6}");
            }
        }
    }
    for f in failures.iter().take(show) {
        println!("  {f}");
    }
    println!("{tp} passed, {} failed", tn - tp);
}

fn describe(rec: &J) -> String {
    let s = |k: &str| rec[k].as_str().map(|x| x.to_string());
    let mut d = s("expr").or(s("text")).or(s("left")).unwrap_or_default();
    if let Some(m) = s("my") {
        d += &format!("  my={}", &m[..m.len().min(100)]);
    }
    if let Some(t) = s("target") {
        d += &format!("  target={}", &t[..t.len().min(80)]);
    }
    if let Some(r) = s("right") {
        d += &format!("  right={}", r);
    }
    d
}

fn ad(text: &J) -> Option<Arc<ClassAd>> {
    text.as_str()
        .map(|t| Arc::new(parse_ad(t).unwrap_or_else(|e| panic!("ad {t}: {e}"))))
}

fn run_eval(rec: &J) -> Option<String> {
    let e = match parse_expr(rec["expr"].as_str()?) {
        Ok(e) => e,
        Err(err) => return Some(format!("parse error: {err}")),
    };
    let my = ad(&rec["my"]);
    let tg = ad(&rec["target"]);
    let v = eval_expr(
        &e,
        my.as_ref(),
        if my.is_some() { tg.as_ref() } else { None },
    );
    if rec["type_only"].as_bool() == Some(true) {
        let t = rec["value"]["t"].as_str()?;
        return (type_tag(&v) == t)
            .then_some(())
            .map_or(Some(format!("want type {t}, got {v:?}")), |_| None);
    }
    compare(&rec["value"], &v, true)
}

fn type_tag(v: &Value) -> &'static str {
    match v {
        Value::Undefined => "undefined",
        Value::Error => "error",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Real(_) => "real",
        Value::Str(_) => "string",
        Value::List(_) => "list",
        Value::Ad(_) => "ad",
        Value::AbsTime { .. } => "abstime",
        Value::RelTime(_) => "reltime",
    }
}

fn real_eq(want: &J, got: f64) -> bool {
    match want.as_str() {
        Some("nan") => got.is_nan(),
        Some("inf") => got == f64::INFINITY,
        Some("-inf") => got == f64::NEG_INFINITY,
        _ => {
            let w = want.as_f64().unwrap_or(f64::NAN);
            got == w || (got - w).abs() <= 1e-12 * got.abs().max(w.abs())
        }
    }
}

fn same_text(want: &str, got: &Expr) -> bool {
    match parse_expr(want) {
        Ok(w) => {
            let squash = |s: String| s.split_whitespace().collect::<String>();
            same_expr(&w, got) || squash(unparse(&w)) == squash(unparse(got))
        }
        Err(_) => false,
    }
}

/// `top`: the value is a top-level result (a list item that is not a literal is an "expr").
fn compare(want: &J, got: &Value, _top: bool) -> Option<String> {
    let t = want["t"].as_str().unwrap_or("?");
    let bad = || Some(format!("want {want}, got {got:?}"));
    let w = &want["v"];
    let ok = match (t, got) {
        ("undefined", Value::Undefined) | ("error", Value::Error) => true,
        ("bool", Value::Bool(b)) => w.as_bool() == Some(*b),
        ("int", Value::Int(i)) => w.as_i64() == Some(*i),
        // Python sees a relative time as float seconds, as run.py does.
        ("real", Value::Real(r) | Value::RelTime(r)) => real_eq(w, *r),
        ("string", Value::Str(s)) => w.as_str() == Some(&**s),
        ("reltime", Value::RelTime(r)) => real_eq(w, *r),
        ("abstime", Value::AbsTime { secs, .. }) => w.as_f64() == Some(*secs as f64),
        ("list", Value::List(l)) => {
            let items = w.as_array()?;
            if items.len() != l.items.len() {
                return bad();
            }
            for (k, (wi, gi)) in items.iter().zip(l.items.iter()).enumerate() {
                let why = match gi {
                    Expr::Lit(v) => compare(wi, v, false),
                    // Python turns nested list and ad literals into values.
                    e @ (Expr::List(_) | Expr::Ad(_)) => {
                        compare(wi, &condorx_classad::eval_standalone(e), false)
                    }
                    e if wi["t"] == "expr" => {
                        (!same_text(wi["v"].as_str()?, e)).then(|| "expr differs".into())
                    }
                    // A list that came from evaluation holds values as literals.
                    e => Some(format!("want {wi}, got expression {}", unparse(e))),
                };
                if let Some(why) = why {
                    return Some(format!("item {k}: {why}"));
                }
            }
            true
        }
        ("ad", Value::Ad(a)) => same_ad_text(w, &a.ad),
        _ => false,
    };
    if ok {
        None
    } else {
        bad()
    }
}

fn same_ad_text(w: &J, ad: &ClassAd) -> bool {
    let Some(obj) = w.as_object() else {
        return false;
    };
    obj.len() == ad.len()
        && obj.iter().all(|(k, v)| {
            ad.lookup(k)
                .is_some_and(|e| v.as_str().is_some_and(|t| same_text(t, e)))
        })
}

fn run_match(rec: &J) -> Option<String> {
    let l = ad(&rec["left"])?;
    let r = ad(&rec["right"])?;
    let m = matches(&l, &r);
    let s = symmetric_match(&l, &r);
    if Some(m) != rec["matches"].as_bool() || Some(s) != rec["symmetric"].as_bool() {
        return Some(format!(
            "got matches={m} symmetric={s}, want {} {}",
            rec["matches"], rec["symmetric"]
        ));
    }
    None
}

fn run_perr(rec: &J) -> Option<String> {
    let text = rec["text"].as_str()?;
    let r = if rec["kind"] == "expr" {
        parse_expr(text).map(|e| unparse(&e))
    } else {
        parse_ad(text).map(|a| condorx_classad::unparse_ad(&a))
    };
    r.ok().map(|s| format!("accepted: {s}"))
}

fn run_old(rec: &J) -> Option<String> {
    let ads = match parse_old_ads(rec["text"].as_str()?) {
        Ok(a) => a,
        Err(e) => return Some(format!("error {e}")),
    };
    let want = rec["ads"].as_array()?;
    if want.len() != ads.len() {
        return Some(format!(
            "want {} ads, got {}: {:?}",
            want.len(),
            ads.len(),
            ads
        ));
    }
    for (w, g) in want.iter().zip(&ads) {
        if !same_ad_text(w, g) {
            return Some(format!(
                "ad differs: got {}",
                condorx_classad::unparse_ad(g)
            ));
        }
    }
    None
}
