//! Matching two ads: one ad's Requirements against the other, and the symmetric match.

use std::sync::Arc;

use crate::classad::ClassAd;
use std::sync::OnceLock;

use crate::eval::{eval_attr, Evaluator};
use crate::name::Name;
use crate::value::Value;

/// `ad.Requirements` holds with `target` as TARGET.
pub fn satisfies(ad: &Arc<ClassAd>, target: &Arc<ClassAd>) -> bool {
    requirements_hold(eval_attr(ad, Some(target), "Requirements"))
}

/// `Requirements`, as a name whose hash is computed once.
fn requirements_name() -> &'static Name {
    static NAME: OnceLock<Name> = OnceLock::new();
    NAME.get_or_init(|| Name::new("Requirements"))
}

/// Requirements of `ad` against `target`, reusing an evaluator (no allocation per pair).
fn satisfies_with<'a>(
    ev: &mut Evaluator<'a>,
    ad: &'a Arc<ClassAd>,
    target: &'a Arc<ClassAd>,
) -> bool {
    ev.reset(Some(ad), Some(target));
    requirements_hold(ev.eval_my_attr(requirements_name()))
}

/// `right` accepts `left`: right's Requirements hold against left. This is classad's
/// `left.matches(right)`.
pub fn matches(left: &Arc<ClassAd>, right: &Arc<ClassAd>) -> bool {
    satisfies(right, left)
}

/// Each ad's Requirements hold with the other as TARGET.
pub fn symmetric_match(left: &Arc<ClassAd>, right: &Arc<ClassAd>) -> bool {
    let mut ev = Evaluator::new(None, None);
    symmetric_match_with(&mut ev, left, right)
}

/// `symmetric_match` with an evaluator the caller keeps across many pairs.
pub fn symmetric_match_with<'a>(
    ev: &mut Evaluator<'a>,
    left: &'a Arc<ClassAd>,
    right: &'a Arc<ClassAd>,
) -> bool {
    satisfies_with(ev, left, right) && satisfies_with(ev, right, left)
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
