//! Chained ads: a proc ad shows its cluster ad's attributes and evaluates them in its own
//! scope, as HTCondor's job queue chains them.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions
use std::sync::Arc;

use condorx_classad::{eval_attr, parse_ad, unparse_ad, Value};

fn chained(parent: &str, child: &str) -> Arc<condorx_classad::ClassAd> {
    let parent = Arc::new(parse_ad(parent).unwrap());
    let mut child = parse_ad(child).unwrap();
    child.set_parent(Some(parent));
    Arc::new(child)
}

#[test]
fn parent_attributes_show_through_and_see_the_child() {
    let ad = chained(
        "[Cmd = \"/bin/x\"; Big = ProcId > 3; ProcId = -1]",
        "[ProcId = 7]",
    );
    assert!(matches!(eval_attr(&ad, None, "Big"), Value::Bool(true)));
    assert!(ad.contains("cmd"));
    assert_eq!(ad.len(), 3);
    assert_eq!(ad.own_len(), 1);
}

#[test]
fn child_overrides_and_iteration_shows_each_name_once() {
    let ad = chained("[A = 1; B = 2]", "[B = 20; C = 30]");
    let names: Vec<&str> = ad.names().collect();
    assert_eq!(names, ["B", "C", "A"]);
    assert!(matches!(eval_attr(&ad, None, "B"), Value::Int(20)));
    let flat = ad.flattened();
    assert!(flat.parent().is_none());
    assert_eq!(flat.len(), 3);
    assert_eq!(unparse_ad(&flat), unparse_ad(&ad.flattened()));
}

#[test]
fn removing_an_override_uncovers_the_parent_value() {
    let parent = Arc::new(parse_ad("[B = 2]").unwrap());
    let mut child = parse_ad("[B = 20]").unwrap();
    child.set_parent(Some(parent));
    assert!(child.remove("B"));
    let ad = Arc::new(child);
    assert!(matches!(eval_attr(&ad, None, "B"), Value::Int(2)));
}

#[test]
fn a_self_reference_through_the_chain_is_caught() {
    let ad = chained("[Loop = Loop + 1]", "[X = 1]");
    assert!(matches!(
        eval_attr(&ad, None, "Loop"),
        Value::Undefined | Value::Error
    ));
}
