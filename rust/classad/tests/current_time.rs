//! `CurrentTime`, the name HTCondor's daemons resolve to the time now when no ad defines it.

#![allow(clippy::unwrap_used, clippy::panic)] // test helpers outside #[test] functions
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use condorx_classad::{eval_attr, parse_ad, Value};

fn now() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap()
}

fn int(ad: &str, attr: &str) -> i64 {
    match eval_attr(&Arc::new(parse_ad(ad).unwrap()), None, attr) {
        Value::Int(i) => i,
        other => panic!("{attr} in {ad} gave {other:?}"),
    }
}

#[test]
fn an_undefined_current_time_is_now_in_any_case_of_its_name() {
    let before = now();
    let t = int("[D = CurrentTime + 60]", "D");
    assert!((before + 60..=now() + 60).contains(&t));
    let t = int("[D = currenttime - 1]", "D");
    assert!((before - 1..=now() - 1).contains(&t));
}

#[test]
fn an_ad_that_defines_current_time_wins_even_from_a_nested_ad() {
    assert_eq!(int("[CurrentTime = 5; D = CurrentTime + 1]", "D"), 6);
    assert_eq!(int("[CurrentTime = 5; D = [E = CurrentTime].E]", "D"), 5);
}

#[test]
fn other_missing_names_stay_undefined() {
    let ad = Arc::new(parse_ad("[D = CurrentTimes + 1]").unwrap());
    assert!(matches!(eval_attr(&ad, None, "D"), Value::Undefined));
}
