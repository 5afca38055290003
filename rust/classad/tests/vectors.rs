//! Runs `tests/vectors/*.txt`: one `expression => expected` per line, `#` comments.
//! The expected side is itself an expression; both are evaluated with no ad and must give
//! identical values (same type, same value; lists and ads by their text).

// A test harness: failing loudly on bad fixtures is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use condorx_classad::{compare::same_value, eval_standalone, parse_expr, unparse_value, Value};

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(_), Value::List(_)) | (Value::Ad(_), Value::Ad(_)) => {
            unparse_value(a) == unparse_value(b)
        }
        _ => same_value(a, b),
    }
}

#[test]
fn vectors() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors");
    let mut failures = Vec::new();
    let mut count = 0;
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (lhs, rhs) = line
                .rsplit_once(" => ")
                .unwrap_or_else(|| panic!("{path:?}:{}: no =>", n + 1));
            count += 1;
            let got = eval_standalone(
                &parse_expr(lhs).unwrap_or_else(|e| panic!("{path:?}:{}: {e}", n + 1)),
            );
            let want = eval_standalone(&parse_expr(rhs).unwrap());
            if !same(&got, &want) {
                failures.push(format!(
                    "{}:{}: {lhs} gave {}, want {}",
                    path.display(),
                    n + 1,
                    unparse_value(&got),
                    rhs
                ));
            }
        }
    }
    assert!(count > 50, "too few vectors: {count}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
