//! One job against one slot: do both Requirements hold, and how does each side rank the other.

use std::sync::Arc;

use condorx_classad::{
    matching::requirements_hold, ClassAd, EvalBuffer, Evaluator, Expr, Name, Value,
};

/// Rank as the negotiator uses it: a number, booleans counting 1 and 0, anything else
/// (UNDEFINED, ERROR, a string) 0.
pub fn rank_value(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Real(r) if r.is_nan() => 0.0,
        Value::Real(r) => *r,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// Evaluates pairs of ads, reusing one evaluator's allocations and names hashed once.
/// It borrows no ad between calls, so the ads it is given may change in between
/// (a partitionable slot shrinks as it is carved).
pub struct PairEval {
    buffer: Option<EvalBuffer>,
    requirements: Name,
    rank: Name,
}

impl Default for PairEval {
    fn default() -> Self {
        PairEval::new()
    }
}

impl PairEval {
    pub fn new() -> PairEval {
        PairEval {
            buffer: Some(EvalBuffer::default()),
            requirements: Name::new("Requirements"),
            rank: Name::new("Rank"),
        }
    }

    /// Run `f` on an evaluator with `me` as MY and `other` as TARGET.
    fn with<R>(
        &mut self,
        me: &Arc<ClassAd>,
        other: &Arc<ClassAd>,
        f: impl FnOnce(&mut Evaluator) -> R,
    ) -> R {
        let mut ev = Evaluator::with_buffer(
            Some(me),
            Some(other),
            self.buffer.take().unwrap_or_default(),
        );
        let r = f(&mut ev);
        self.buffer = Some(ev.into_buffer());
        r
    }

    /// `me.Requirements` holds with `other` as TARGET.
    pub fn accepts(&mut self, me: &Arc<ClassAd>, other: &Arc<ClassAd>) -> bool {
        let name = self.requirements.clone();
        self.with(me, other, |ev| requirements_hold(ev.eval_my_attr(&name)))
    }

    /// Both ads' Requirements hold against each other (the job's first: it is the
    /// cheaper test to fail in most pools).
    pub fn symmetric(&mut self, job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> bool {
        self.accepts(job, slot) && self.accepts(slot, job)
    }

    /// `me.Rank` of `other`, as a number.
    pub fn rank(&mut self, me: &Arc<ClassAd>, other: &Arc<ClassAd>) -> f64 {
        let name = self.rank.clone();
        self.with(me, other, |ev| rank_value(&ev.eval_my_attr(&name)))
    }

    /// Any expression with `me` as MY and `other` as TARGET, as a rank number.
    pub fn expr_rank(&mut self, e: &Expr, me: &Arc<ClassAd>, other: &Arc<ClassAd>) -> f64 {
        self.with(me, other, |ev| rank_value(&ev.eval(e)))
    }

    /// Any expression with `me` as MY and `other` as TARGET.
    pub fn value(&mut self, e: &Expr, me: &Arc<ClassAd>, other: &Arc<ClassAd>) -> Value {
        self.with(me, other, |ev| ev.eval(e))
    }

    /// Attribute `attr` of `me`, with `other` as TARGET (UNDEFINED when `me` has none).
    pub fn attr(&mut self, attr: &Name, me: &Arc<ClassAd>, other: &Arc<ClassAd>) -> Value {
        self.with(me, other, |ev| ev.eval_my_attr(attr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::parse_ad;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(parse_ad(text).unwrap())
    }

    #[test]
    fn symmetric_match_and_ranks() {
        let job = ad(
            r#"[ RequestMemory = 2048; Owner = "alice"; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Memory ]"#,
        );
        let big = ad(r#"[ Memory = 4096; Requirements = TARGET.Owner == "alice"; Rank = 1 == 1 ]"#);
        let small = ad(r#"[ Memory = 1024; Requirements = true ]"#);
        let mut p = PairEval::new();
        assert!(p.symmetric(&job, &big));
        assert!(!p.symmetric(&job, &small));
        assert_eq!(p.rank(&job, &big), 4096.0);
        assert_eq!(p.rank(&big, &job), 1.0);
        assert_eq!(p.rank(&small, &job), 0.0, "no Rank counts 0");
    }
}
