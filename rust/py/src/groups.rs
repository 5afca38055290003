//! Accounting groups under hierarchical quotas, for the negotiator: the tree of
//! GROUP_NAMES with its knobs, kept from cycle to cycle with what round robin needs to
//! remember, and what the last cycle gave each group.

use std::collections::HashMap;

use condorx_classad::parse_expr;
use condorx_matchmaking::groups::{GroupSpec, Outcome, Quota, Settings, Shares, Tree};
use condorx_matchmaking::GroupPolicy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::parse_error;

/// One group as the configuration gives it: (name, static quota, dynamic quota,
/// GROUP_ACCEPT_SURPLUS_<g>, GROUP_AUTOREGROUP_<g>); None where a knob is not set.
type GroupRow = (String, Option<f64>, Option<f64>, Option<bool>, Option<bool>);

/// A group's figures after a cycle, by HTCondor's GroupEntry names.
type ShareRow = (String, HashMap<&'static str, f64>);

#[pyclass(name = "Groups", module = "condorx.language.negotiation")]
pub struct PyGroups {
    tree: Tree,
    settings: Settings,
    warnings: Vec<String>,
    rr_time: Vec<f64>,
    last: Option<Outcome>,
}

#[pymethods]
impl PyGroups {
    #[new]
    #[pyo3(signature = (
        groups, accept_surplus=false, autoregroup=false, oversubscribe=true, max_rounds=3,
        round_robin_rate=1.0e100, strict=true, weighted=true, consider_preemption=true,
        sort_expr=None
    ))]
    #[allow(clippy::too_many_arguments)] // one per negotiator knob, as keywords from Python
    fn new(
        py: Python<'_>,
        groups: Vec<GroupRow>,
        accept_surplus: bool,
        autoregroup: bool,
        oversubscribe: bool,
        max_rounds: usize,
        round_robin_rate: f64,
        strict: bool,
        weighted: bool,
        consider_preemption: bool,
        sort_expr: Option<&str>,
    ) -> PyResult<PyGroups> {
        if round_robin_rate.is_nan() || round_robin_rate <= 0.0 {
            return Err(PyValueError::new_err(
                "GROUP_QUOTA_ROUND_ROBIN_RATE must be a positive number",
            ));
        }
        let specs: Vec<GroupSpec> = groups
            .into_iter()
            .map(|(name, fixed, dynamic, surplus, regroup)| GroupSpec {
                name,
                // HTCondor reads the static quota first: when both are set, it wins.
                quota: fixed.map(Quota::Static).or(dynamic.map(Quota::Dynamic)),
                accept_surplus: surplus.unwrap_or(accept_surplus),
                autoregroup: regroup.unwrap_or(autoregroup),
            })
            .collect();
        let (tree, warnings) = Tree::build(&specs, accept_surplus, autoregroup);
        let sort_expr = sort_expr
            .map(|t| parse_expr(t).map_err(|e| parse_error(py, &e, "GROUP_SORT_EXPR")))
            .transpose()?;
        let settings = Settings {
            oversubscribe,
            max_rounds: max_rounds.max(1),
            round_robin_rate,
            strict,
            weighted,
            consider_preemption,
            sort_expr,
        };
        let rr_time = vec![0.0; tree.len()];
        Ok(PyGroups {
            tree,
            settings,
            warnings,
            rr_time,
            last: None,
        })
    }

    /// What building the tree dropped or defaulted, in HTCondor's words.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The groups' full names, the root (`<none>`) first, then breadth first.
    #[getter]
    fn names(&self) -> Vec<String> {
        (0..self.tree.len())
            .map(|g| self.tree.name(g).to_string())
            .collect()
    }

    /// Whether any group is defined (the negotiator shares by group only then).
    fn has_groups(&self) -> bool {
        self.tree.has_groups()
    }

    /// The group a submitter (`group.user@domain`) is charged to.
    fn assigned(&self, submitter: &str) -> String {
        self.tree.name(self.tree.assigned(submitter)).to_string()
    }

    /// Whether the named group accepts surplus (None: no such group).
    fn accepts_surplus(&self, group: &str) -> Option<bool> {
        let g = self.tree.find(group).or((group == "<none>").then_some(0))?;
        self.tree.group(g).map(|x| x.accept_surplus)
    }

    /// Each group's quota in a pool of `pool` (weighted) slots, as the tree assigns them
    /// before any demand is seen (what SubmitterGroupQuota and RemoteGroupQuota show).
    fn quotas(&self, pool: f64) -> HashMap<String, f64> {
        let mut shares = Shares::new(&self.tree, &[], &[], &[]);
        shares.assign_quotas(0, pool, self.settings.oversubscribe);
        (0..self.tree.len())
            .map(|g| (self.tree.name(g).to_string(), shares.get(g).quota))
            .collect()
    }

    /// Each group's figures as the last cycle left them (none before the first).
    fn last_shares(&self) -> Vec<ShareRow> {
        let Some(outcome) = &self.last else {
            return Vec::new();
        };
        outcome
            .shares
            .iter()
            .enumerate()
            .map(|(g, s)| {
                let key = outcome.sort_keys.get(g).copied().unwrap_or(0.0);
                let figures = HashMap::from([
                    ("quota", s.quota),
                    ("subtree_quota", s.subtree_quota),
                    ("requested", s.currently_requested),
                    ("allocated", s.allocated),
                    ("usage", s.usage),
                    ("subtree_usage", s.subtree_usage),
                    ("sort_key", key),
                ]);
                (self.tree.name(g).to_string(), figures)
            })
            .collect()
    }

    /// The last cycle's turns, in order: (round, group, whether it was the root's turn
    /// with the regrouping groups' submitters too).
    fn last_turns(&self) -> Vec<(usize, String, bool)> {
        self.last.as_ref().map_or_else(Vec::new, |o| {
            o.turns
                .iter()
                .map(|&(round, g, regrouped)| (round, self.tree.name(g).to_string(), regrouped))
                .collect()
        })
    }

    /// The allocation rounds the last cycle ran.
    fn last_rounds(&self) -> usize {
        self.last.as_ref().map_or(0, |o| o.rounds)
    }

    /// The last cycle's warnings (a GROUP_SORT_EXPR that does not evaluate, ...).
    fn last_warnings(&self) -> Vec<String> {
        self.last
            .as_ref()
            .map_or_else(Vec::new, |o| o.warnings.clone())
    }
}

impl PyGroups {
    /// This cycle's policy: the pool's size and each submitter's usage now.
    pub fn policy(&self, pool: f64, usage: HashMap<String, f64>, now: f64) -> GroupPolicy {
        GroupPolicy {
            tree: self.tree.clone(),
            settings: self.settings.clone(),
            pool,
            usage,
            rr_time: self.rr_time.clone(),
            now,
        }
    }

    /// Keep what the cycle gave, and when round robin served each group.
    pub fn record(&mut self, outcome: Option<Outcome>) {
        if let Some(o) = &outcome {
            if o.rr_time.len() == self.rr_time.len() {
                self.rr_time.clone_from(&o.rr_time);
            }
        }
        self.last = outcome;
    }
}
