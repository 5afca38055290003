//! The pool as one negotiation cycle sees it: each slot's ad (a partitionable slot
//! shrinks as it is carved), whether it is still free, and what its own Requirements
//! say before any job is looked at.

use std::sync::Arc;

use condorx_classad::matching::requirements_hold;
use condorx_classad::{eval_attr, ClassAd, Evaluator, Expr, Value};

use crate::deps::slot_expr_reads_job;
use crate::pair::{rank_value, PairEval};
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
    /// Weighted by its SlotWeight (NEGOTIATOR_USE_SLOT_WEIGHTS, HTCondor's default).
    pub weighted: bool,
    /// Its weight as its ad is now (`weight_of`).
    weight_now: f64,
}

/// A slot's weight: its SlotWeight evaluated in its ad (HTCondor's SLOT_WEIGHT, by
/// default its Cpus; 1 when it is not a number), when weighted and it has one; else a
/// partitionable slot's cpus left, or 1.
fn weight_of(ad: &Arc<ClassAd>, partitionable: bool, weighted: bool) -> f64 {
    if weighted && ad.lookup("SlotWeight").is_some() {
        return match eval_attr(ad, None, "SlotWeight") {
            Value::Int(i) => (i as f64).max(0.0),
            Value::Real(r) if r.is_finite() => r.max(0.0),
            _ => 1.0,
        };
    }
    if !partitionable {
        return 1.0;
    }
    match ad.lookup("Cpus") {
        Some(Expr::Lit(Value::Int(c))) => (*c as f64).max(0.0),
        _ => 0.0,
    }
}

/// When a claimed slot may be preempted at all this cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preemptible {
    /// Never (NEGOTIATOR_CONSIDER_PREEMPTION is false).
    Never,
    /// Only by the slot's RANK (PREEMPTION_REQUIREMENTS is false or unset).
    ByRank,
    /// By RANK or by user priority.
    Any,
}

impl PoolSlot {
    pub fn new(ad: &Arc<ClassAd>, preemptible: Preemptible) -> PoolSlot {
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
            free: policy != Policy::Never && (!claimed || may_be_preempted(ad, preemptible)),
            claimed,
            partitionable,
            carved: 0,
            policy,
            weighted: true,
            weight_now: weight_of(ad, partitionable, true),
        }
    }

    /// The same, weighted by its SlotWeight or not.
    pub fn weighted(mut self, weighted: bool) -> PoolSlot {
        self.weighted = weighted;
        self.weight_now = weight_of(&self.ad, self.partitionable, weighted);
        self
    }

    /// Its weight in the pie, free (a taken slot weighs nothing more).
    pub fn weight(&self) -> f64 {
        if self.free {
            self.weight_now
        } else {
            0.0
        }
    }

    /// What is left of a partitionable slot once carved: its ad, and its weight anew;
    /// what it was before, to `restore` if the carving is not taken.
    pub fn shrink(&mut self, left: ClassAd) -> (Arc<ClassAd>, f64) {
        let before = (self.ad.clone(), self.weight_now);
        self.ad = Arc::new(left);
        self.weight_now = weight_of(&self.ad, self.partitionable, self.weighted);
        before
    }

    pub fn restore(&mut self, (ad, weight): (Arc<ClassAd>, f64)) {
        self.ad = ad;
        self.weight_now = weight;
    }

    /// Do the job's Requirements and the slot's hold against each other?
    pub fn matches(&self, pair: &mut PairEval, job: &Arc<ClassAd>) -> bool {
        pair.accepts(job, &self.ad)
            && (self.policy == Policy::Always || pair.accepts(&self.ad, job))
    }
}

/// Whether some job could take the claimed slot: by priority, or by its RANK, unless
/// that ignores the job and does not exceed the current job's (a pool of claimed slots
/// whose RANK is a constant is not looked at again by every cluster).
fn may_be_preempted(ad: &Arc<ClassAd>, preemptible: Preemptible) -> bool {
    match preemptible {
        Preemptible::Never => false,
        Preemptible::Any => true,
        Preemptible::ByRank => {
            let Some(rank) = ad.lookup("Rank") else {
                return 0.0 > current_rank(ad); // an absent RANK ranks every job 0
            };
            if slot_expr_reads_job(ad, rank) {
                return true;
            }
            let nobody = Arc::new(ClassAd::new());
            let mut ev = Evaluator::new(Some(ad), Some(&nobody));
            rank_value(&ev.eval(rank)) > current_rank(ad)
        }
    }
}

fn current_rank(ad: &ClassAd) -> f64 {
    match ad.lookup("CurrentRank") {
        Some(Expr::Lit(v)) => rank_value(v),
        _ => 0.0,
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
        PoolSlot::new(&Arc::new(parse_ad(text).unwrap()), Preemptible::Any)
    }

    fn claimed(rank: &str, preemptible: Preemptible) -> bool {
        let text =
            format!("[ State = \"Claimed\"; Requirements = true; CurrentRank = 1.0; {rank} ]");
        PoolSlot::new(&Arc::new(parse_ad(&text).unwrap()), preemptible).free
    }

    #[test]
    fn a_claimed_slot_is_looked_at_only_if_a_job_could_take_it() {
        use Preemptible::{Any, ByRank, Never};
        assert!(claimed("Rank = 0", Any)); // user priority may take it
        assert!(!claimed("Rank = 0", Never));
        assert!(!claimed("Rank = 1.0", ByRank)); // no job ranks above the current one
        assert!(!claimed("", ByRank));
        assert!(claimed("Rank = 2", ByRank));
        assert!(claimed("Rank = TARGET.Important =?= true", ByRank));
        assert!(claimed("Rank = Important =?= true", ByRank)); // the job's, unscoped
        assert!(slot("[ Requirements = true; Rank = 0 ]").free); // unclaimed: free
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
