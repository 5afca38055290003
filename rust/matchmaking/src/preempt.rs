//! Preemption: when a claimed slot may go to another job.
//!
//! - By the slot's RANK: the slot prefers the new job to the one it runs (its Rank of the
//!   new job exceeds CurrentRank). The user's priority does not matter.
//! - By user priority: the slot runs for another accounting name (its AccountingGroup,
//!   else RemoteOwner) and PREEMPTION_REQUIREMENTS allows it, as HTCondor's matchmaker
//!   decides: the expression (usually comparing RemoteUserPrio and SubmitterUserPrio, or
//!   a group's usage and quota) is the whole rule. It sees the slot as MY, with
//!   RemoteUserPrio and SubmitterUserPrio added, and the job as TARGET. With no
//!   PREEMPTION_REQUIREMENTS there is no priority preemption.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Value};

use crate::pair::PairEval;

/// Why a claimed slot may be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Preemption {
    /// The slot's RANK prefers the new job.
    Rank,
    /// The slot runs for someone else and PREEMPTION_REQUIREMENTS allows it.
    Priority,
}

/// What the preemption rules need to know.
pub struct Rules<'a> {
    pub requirements: Option<&'a Expr>,
    /// Effective priority of every user known to the accountant.
    pub priorities: &'a HashMap<String, f64>,
    /// The submitter's accounting name (its name without `@domain`): a slot it holds
    /// already is not preempted for priority, the only such rule HTCondor's has.
    pub submitter: &'a str,
}

fn number(slot: &ClassAd, name: &str) -> f64 {
    match slot.lookup(name) {
        Some(Expr::Lit(v)) => crate::pair::rank_value(v),
        _ => 0.0,
    }
}

/// Whom the slot's claim is charged to: its accounting group when it runs for one (as
/// HTCondor's matchmaker looks it up for RemoteUserPrio), else its user.
fn remote_user(slot: &ClassAd) -> Option<&str> {
    ["AccountingGroup", "RemoteOwner", "RemoteUser"]
        .iter()
        .find_map(|a| match slot.lookup(a) {
            Some(Expr::Lit(Value::Str(s))) => Some(&**s),
            _ => None,
        })
}

impl Rules<'_> {
    /// May `job`, of a user at effective priority `prio`, take the claimed `slot`?
    pub fn allows(
        &self,
        pair: &mut PairEval,
        slot: &Arc<ClassAd>,
        job: &Arc<ClassAd>,
        prio: f64,
    ) -> Option<Preemption> {
        if pair.rank(slot, job) > number(slot, "CurrentRank") {
            return Some(Preemption::Rank);
        }
        let req = self.requirements?;
        let user = remote_user(slot)?;
        if user == self.submitter {
            return None;
        }
        let remote = *self.priorities.get(user)?;
        let mut seen = (**slot).clone();
        seen.insert_str("RemoteUserPrio", Expr::Lit(Value::Real(remote)));
        seen.insert_str("SubmitterUserPrio", Expr::Lit(Value::Real(prio)));
        let seen = Arc::new(seen);
        pair.value(req, &seen, job)
            .is_true()
            .then_some(Preemption::Priority)
    }
}
