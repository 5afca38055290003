//! One job against one slot: do both Requirements hold, and how does each side rank the other.

use std::sync::Arc;

use condorx_classad::{matching::requirements_hold, ClassAd, Evaluator, Name, Value};

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

/// Evaluates pairs, keeping one evaluator and the attribute names hashed once.
pub struct PairEval<'a> {
    ev: Evaluator<'a>,
    requirements: Name,
    rank: Name,
}

impl Default for PairEval<'_> {
    fn default() -> Self {
        PairEval::new()
    }
}

impl<'a> PairEval<'a> {
    pub fn new() -> PairEval<'a> {
        PairEval {
            ev: Evaluator::new(None, None),
            requirements: Name::new("Requirements"),
            rank: Name::new("Rank"),
        }
    }

    /// `me.Requirements` holds with `other` as TARGET.
    pub fn accepts(&mut self, me: &'a Arc<ClassAd>, other: &'a Arc<ClassAd>) -> bool {
        self.ev.reset(Some(me), Some(other));
        requirements_hold(self.ev.eval_my_attr(&self.requirements))
    }

    /// Both ads' Requirements hold against each other (the job's first: it is the
    /// cheaper test to fail in most pools).
    pub fn symmetric(&mut self, job: &'a Arc<ClassAd>, slot: &'a Arc<ClassAd>) -> bool {
        self.accepts(job, slot) && self.accepts(slot, job)
    }

    /// `me.Rank` of `other`, as a number.
    pub fn rank(&mut self, me: &'a Arc<ClassAd>, other: &'a Arc<ClassAd>) -> f64 {
        self.ev.reset(Some(me), Some(other));
        rank_value(&self.ev.eval_my_attr(&self.rank))
    }

    /// Evaluate any expression with `me` as MY and `other` as TARGET, as a rank number.
    pub fn expr_rank(
        &mut self,
        e: &condorx_classad::Expr,
        me: &'a Arc<ClassAd>,
        other: &'a Arc<ClassAd>,
    ) -> f64 {
        self.ev.reset(Some(me), Some(other));
        rank_value(&self.ev.eval(e))
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
