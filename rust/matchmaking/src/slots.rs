//! The pool as one negotiation cycle sees it: each slot's ad (a partitionable slot
//! shrinks as it is carved), whether it is still free, and what its own Requirements
//! say before any job is looked at.

use std::sync::Arc;

use condorx_classad::matching::requirements_hold;
use condorx_classad::{ClassAd, Evaluator, Expr, Value};

use crate::deps::slot_expr_reads_job;
use crate::pair::PairEval;
use crate::pslot::is_partitionable;

/// What a slot's Requirements decide without the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// They read the job: evaluate them for each.
    Depends,
    /// They hold whatever the job: only the job's side needs checking.
    Always,
    /// They fail whatever the job (a busy desktop): the slot takes no job this cycle.
    Never,
}

pub struct PoolSlot {
    /// The ad as advertised: what candidate slots are ranked by, all cycle long.
    pub advertised: Arc<ClassAd>,
    /// The ad as it is now (a partitionable slot's resources shrink as it is carved).
    pub ad: Arc<ClassAd>,
    pub free: bool,
    pub claimed: bool,
    pub partitionable: bool,
    pub carved: usize,
    pub policy: Policy,
}

impl PoolSlot {
    pub fn new(ad: &Arc<ClassAd>, consider_preemption: bool) -> PoolSlot {
        let claimed = matches!(ad.lookup("State"), Some(Expr::Lit(Value::Str(s))) if s.eq_ignore_ascii_case("Claimed"));
        let partitionable = is_partitionable(ad);
        // A partitionable slot's Requirements may read its shrinking resources.
        let policy = if partitionable {
            Policy::Depends
        } else {
            policy_of(ad)
        };
        PoolSlot {
            advertised: ad.clone(),
            ad: ad.clone(),
            free: policy != Policy::Never && (consider_preemption || !claimed),
            claimed,
            partitionable,
            carved: 0,
            policy,
        }
    }

    /// Its weight in the pie: a partitionable slot counts its cpus left.
    pub fn weight(&self) -> usize {
        if !self.free {
            0
        } else if self.partitionable {
            match self.ad.lookup("Cpus") {
                Some(Expr::Lit(Value::Int(c))) => usize::try_from(*c).unwrap_or(0),
                _ => 0,
            }
        } else {
            1
        }
    }

    /// Do the job's Requirements and the slot's hold against each other?
    pub fn matches(&self, pair: &mut PairEval, job: &Arc<ClassAd>) -> bool {
        pair.accepts(job, &self.ad)
            && (self.policy == Policy::Always || pair.accepts(&self.ad, job))
    }
}

fn policy_of(ad: &Arc<ClassAd>) -> Policy {
    let Some(req) = ad.lookup("Requirements") else {
        // No Requirements: UNDEFINED, which is not true.
        return Policy::Never;
    };
    if slot_expr_reads_job(ad, req) {
        return Policy::Depends;
    }
    let nobody = Arc::new(ClassAd::new());
    let mut ev = Evaluator::new(Some(ad), Some(&nobody));
    if requirements_hold(ev.eval(req)) {
        Policy::Always
    } else {
        Policy::Never
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::parse_ad;

    fn slot(text: &str) -> PoolSlot {
        PoolSlot::new(&Arc::new(parse_ad(text).unwrap()), true)
    }

    #[test]
    fn requirements_that_ignore_the_job_are_decided_once() {
        let busy = slot("[ KeyboardIdle = 5; Start = KeyboardIdle > 900; Requirements = START ]");
        assert_eq!(busy.policy, Policy::Never);
        assert!(!busy.free);
        let idle =
            slot("[ KeyboardIdle = 5000; Start = KeyboardIdle > 900; Requirements = START ]");
        assert_eq!(idle.policy, Policy::Always);
        let picky = slot("[ Start = TARGET.Owner == \"a\"; Requirements = START ]");
        assert_eq!(picky.policy, Policy::Depends);
        assert_eq!(slot("[ Memory = 1 ]").policy, Policy::Never);
    }
}
