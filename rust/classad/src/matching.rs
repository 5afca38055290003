//! Matching two ads: one ad's Requirements against the other, and the symmetric match.

use std::sync::Arc;

use crate::classad::ClassAd;
use crate::eval::eval_attr;
use crate::value::Value;

/// `left.Requirements` is true with `right` as TARGET.
pub fn matches(left: &Arc<ClassAd>, right: &Arc<ClassAd>) -> bool {
    requirements_hold(eval_attr(left, Some(right), "Requirements"))
}

/// Each ad's Requirements is true with the other as TARGET.
pub fn symmetric_match(left: &Arc<ClassAd>, right: &Arc<ClassAd>) -> bool {
    matches(left, right) && matches(right, left)
}

/// Requirements hold when they are true, or a non-zero number, as HTCondor's EvalBool has it.
pub fn requirements_hold(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        Value::Int(i) => i != 0,
        Value::Real(r) => r != 0.0,
        _ => false,
    }
}
