//! Matching two ads: one ad's Requirements against the other, and the symmetric match.

use std::sync::Arc;

use crate::classad::ClassAd;
use crate::eval::eval_attr;
use crate::value::Value;

/// `ad.Requirements` holds with `target` as TARGET.
pub fn satisfies(ad: &Arc<ClassAd>, target: &Arc<ClassAd>) -> bool {
    requirements_hold(eval_attr(ad, Some(target), "Requirements"))
}

/// `right` accepts `left`: right's Requirements hold against left. This is classad's
/// `left.matches(right)`.
pub fn matches(left: &Arc<ClassAd>, right: &Arc<ClassAd>) -> bool {
    satisfies(right, left)
}

/// Each ad's Requirements hold with the other as TARGET. (Code matching many pairs uses
/// condorx-matchmaking's `PairEval`, which keeps its allocations between pairs.)
pub fn symmetric_match(left: &Arc<ClassAd>, right: &Arc<ClassAd>) -> bool {
    satisfies(left, right) && satisfies(right, left)
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
