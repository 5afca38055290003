//! A cycle under group quotas: the allocation rounds of [`crate::groups`] drive the pie
//! spin, one group's submitters at a time, each group up to its limit; every match is
//! charged to its submitter's group as it is made.

use std::collections::HashMap;

use condorx_classad::{Expr, Value};

use crate::groups::{negotiate_groups, Inputs, Negotiate, Outcome, Settings, Tree};
use crate::negotiate::Spun;
use crate::party::Party;

/// What a cycle needs to share the pool by group.
#[derive(Debug, Clone)]
pub struct GroupPolicy {
    pub tree: Tree,
    pub settings: Settings,
    /// The pool's size in (weighted) slots, claimed ones included.
    pub pool: f64,
    /// What each submitter (`group.user@domain`) holds now, in (weighted) slots.
    pub usage: HashMap<String, f64>,
    /// When round robin last served each group (from the last cycle's outcome).
    pub rr_time: Vec<f64>,
    pub now: f64,
}

/// Run the cycle's group rounds over the parties of `spun`.
pub(crate) fn run(policy: &GroupPolicy, spun: &mut Spun<'_, '_>) -> Outcome {
    let tree = &policy.tree;
    let groups = tree.len();
    let group_of: Vec<usize> = spun
        .parties
        .iter()
        .map(|p| tree.assigned(&p.ctx.submitter.name))
        .collect();
    let mut usage = vec![0.0; groups];
    for (name, used) in &policy.usage {
        if let Some(u) = usage.get_mut(tree.assigned(name)) {
            *u += used;
        }
    }
    let mut demand = usage.clone();
    // Each group's parties, and those of the root's regrouped turn.
    let mut members = vec![Vec::new(); groups];
    let mut regrouped = Vec::new();
    for (i, (party, &g)) in spun.parties.iter().zip(&group_of).enumerate() {
        if let (Some(d), Some(m)) = (demand.get_mut(g), members.get_mut(g)) {
            *d += idle_weight(party, policy.settings.weighted);
            m.push(i);
        }
        if g == 0 || tree.group(g).is_some_and(|n| n.autoregroup) {
            regrouped.push(i);
        }
    }
    let present: Vec<bool> = members.iter().map(|m| !m.is_empty()).collect();
    let mut rr_time = policy.rr_time.clone();
    rr_time.resize(groups, 0.0);
    let mut turns = Turns {
        spun,
        group_of,
        members,
        regrouped,
    };
    let inputs = Inputs {
        pool: policy.pool,
        demand: &demand,
        usage: &usage,
        present: &present,
        now: policy.now,
    };
    let mut outcome = negotiate_groups(tree, &policy.settings, inputs, &mut rr_time, &mut turns);
    outcome.rr_time = rr_time;
    outcome
}

/// A party's idle jobs as demand: each job's RequestCpus when slots are weighted by
/// their cores, else one each.
fn idle_weight(party: &Party<'_>, weighted: bool) -> f64 {
    let jobs = &party.ctx.submitter.jobs;
    if !weighted {
        return jobs.len() as f64;
    }
    jobs.iter()
        .map(|j| match j.lookup("RequestCpus") {
            Some(Expr::Lit(Value::Int(c))) if *c >= 1 => *c as f64,
            Some(Expr::Lit(Value::Real(c))) if *c >= 1.0 => *c,
            _ => 1.0,
        })
        .sum()
}

struct Turns<'s, 'p, 'a> {
    spun: &'s mut Spun<'p, 'a>,
    /// Each party's group.
    group_of: Vec<usize>,
    /// Each group's parties.
    members: Vec<Vec<usize>>,
    /// The parties of the root's regrouped turn: the root's and the regrouping groups'.
    regrouped: Vec<usize>,
}

impl Negotiate for Turns<'_, '_, '_> {
    fn group(&mut self, g: usize, limit: Option<f64>, live: &mut [f64]) {
        let members = match limit {
            Some(_) => self.members.get(g).cloned().unwrap_or_default(),
            None => self.regrouped.clone(),
        };
        let budget = match limit {
            Some(l) => l - live.get(g).copied().unwrap_or(0.0),
            None => f64::INFINITY,
        };
        if budget <= 0.0 {
            self.spun.limit(&members);
            return;
        }
        let before: Vec<f64> = members.iter().map(|&i| self.used(i)).collect();
        self.spun.spin(&members, budget);
        for (&i, was) in members.iter().zip(before) {
            let k = self.group_of.get(i).copied().unwrap_or(0);
            if let Some(u) = live.get_mut(k) {
                *u += self.used(i) - was;
            }
        }
    }
}

impl Turns<'_, '_, '_> {
    fn used(&self, party: usize) -> f64 {
        self.spun.parties.get(party).map_or(0.0, |p| p.used)
    }
}
