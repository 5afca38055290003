//! The negotiation cycle and the accountant, for the negotiator daemon and `condorx bench`.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{parse_expr, ClassAd, Expr, Name, Value};
use condorx_matchmaking::{negotiate, Accountant, Config, Match, Preemption, Submitter};
use pyo3::prelude::*;

use crate::classad::PyClassAd;
use crate::errors::parse_error;

/// (submitter index, job index, slot index, job Rank, "rank"/"priority" when it
/// preempts, the dynamic slot carved for it).
type MatchRow = (
    usize,
    usize,
    usize,
    f64,
    Option<&'static str>,
    Option<PyClassAd>,
);
type RejectionRow = (usize, usize, String);

fn ads(list: &[PyRef<PyClassAd>]) -> Vec<Arc<ClassAd>> {
    list.iter().map(|a| a.inner().clone()).collect()
}

fn expr_option(
    py: Python<'_>,
    text: Option<&str>,
    what: &str,
) -> PyResult<Option<condorx_classad::Expr>> {
    text.map(|t| parse_expr(t).map_err(|e| parse_error(py, &e, what)))
        .transpose()
}

/// Matches, rejections, clusters, pairs evaluated, and seconds per phase.
type CycleRows = (
    Vec<MatchRow>,
    Vec<RejectionRow>,
    usize,
    u64,
    Vec<(&'static str, f64)>,
);

fn match_row(m: Match) -> MatchRow {
    let preempts = m.preempts.map(|p| match p {
        Preemption::Rank => "rank",
        Preemption::Priority => "priority",
    });
    let dynamic = m.dynamic_slot.map(PyClassAd::from_arc);
    (m.submitter, m.job, m.slot, m.rank, preempts, dynamic)
}

/// One negotiation cycle (GIL released). `submitters` is a list of (name, effective
/// priority, jobs); `priorities` gives the effective priority of users running on claimed
/// slots (RemoteOwner). Returns (matches, rejections, clusters, pairs evaluated).
#[pyfunction]
#[pyo3(name = "negotiate", signature = (
    slots, submitters, pre_job_rank=None, post_job_rank=None, consider_preemption=true,
    preemption_requirements=None, preemption_rank=None, priorities=None
))]
#[allow(clippy::too_many_arguments)] // one per negotiator setting, as keywords from Python
fn py_negotiate(
    py: Python<'_>,
    slots: Vec<PyRef<PyClassAd>>,
    submitters: Vec<(String, f64, Vec<PyRef<PyClassAd>>)>,
    pre_job_rank: Option<&str>,
    post_job_rank: Option<&str>,
    consider_preemption: bool,
    preemption_requirements: Option<&str>,
    preemption_rank: Option<&str>,
    priorities: Option<HashMap<String, f64>>,
) -> PyResult<CycleRows> {
    let config = Config {
        pre_job_rank: expr_option(py, pre_job_rank, "NEGOTIATOR_PRE_JOB_RANK")?,
        post_job_rank: expr_option(py, post_job_rank, "NEGOTIATOR_POST_JOB_RANK")?,
        consider_preemption,
        preemption_requirements: expr_option(
            py,
            preemption_requirements,
            "PREEMPTION_REQUIREMENTS",
        )?,
        preemption_rank: expr_option(py, preemption_rank, "PREEMPTION_RANK")?,
        priorities: priorities.unwrap_or_default(),
        ..Config::default()
    };
    let slots = ads(&slots);
    let subs: Vec<Submitter> = submitters
        .iter()
        .map(|(name, priority, jobs)| Submitter {
            name: name.clone(),
            priority: *priority,
            jobs: ads(jobs),
        })
        .collect();
    let cycle = py.detach(|| negotiate(&slots, &subs, &config));
    let matches = cycle.matches.into_iter().map(match_row).collect();
    let rejections = cycle
        .rejections
        .into_iter()
        .map(|r| (r.submitter, r.job, r.reason))
        .collect();
    Ok((
        matches,
        rejections,
        cycle.clusters,
        cycle.pairs_evaluated,
        cycle.phases,
    ))
}

/// Set LastRejMatchReason and LastRejMatchTime on each job of `jobs` (with the reason at
/// the same position): in one call, since a cycle can reject a million jobs.
#[pyfunction]
fn stamp_rejections(mut jobs: Vec<PyRefMut<PyClassAd>>, reasons: Vec<String>, time: i64) {
    let reason_name = Name::new("LastRejMatchReason");
    let time_name = Name::new("LastRejMatchTime");
    for (job, reason) in jobs.iter_mut().zip(reasons) {
        let ad = job.ad_mut();
        ad.insert(reason_name.clone(), Expr::Lit(Value::string(reason)));
        ad.insert(time_name.clone(), Expr::int(time));
    }
}

/// User priorities from usage, decayed with PRIORITY_HALFLIFE.
#[pyclass(name = "Accountant", module = "condorx.negotiation")]
pub struct PyAccountant {
    inner: Accountant,
}

#[pymethods]
impl PyAccountant {
    #[new]
    #[pyo3(signature = (halflife=86400.0, default_factor=1000.0))]
    fn new(halflife: f64, default_factor: f64) -> PyAccountant {
        let mut inner = Accountant::new(halflife);
        inner.set_default_factor(default_factor);
        PyAccountant { inner }
    }

    /// Advance to `now` (seconds) with `in_use` slots per user since the last update.
    fn update(&mut self, now: f64, in_use: HashMap<String, f64>) {
        self.inner.update(now, &in_use);
    }

    fn set_factor(&mut self, user: &str, factor: f64) {
        self.inner.set_factor(user, factor);
    }

    fn real_priority(&self, user: &str) -> f64 {
        self.inner.real_priority(user)
    }

    fn factor(&self, user: &str) -> f64 {
        self.inner.factor(user)
    }

    fn effective_priority(&self, user: &str) -> f64 {
        self.inner.effective_priority(user)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_negotiate, m)?)?;
    m.add_function(wrap_pyfunction!(stamp_rejections, m)?)?;
    m.add_class::<PyAccountant>()?;
    Ok(())
}
