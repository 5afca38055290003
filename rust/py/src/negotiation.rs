//! The negotiation cycle and the accountant, for the negotiator daemon and `condorx bench`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use condorx_classad::{parse_expr, ClassAd, Expr, Name, Value};
use condorx_matchmaking::{
    negotiate, Accountant, Config, Match, Preemption, Rejection, Submitter, TimeLimits, UserRecord,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::classad::PyClassAd;
use crate::errors::parse_error;
use crate::groups::PyGroups;
use crate::limits::PyLimits;

/// (submitter index, job index, slot index, job Rank, "rank"/"priority" when it
/// preempts, the dynamic slot carved for it, the job's concurrency limits there).
type MatchRow = (
    usize,
    usize,
    usize,
    f64,
    Option<&'static str>,
    Option<PyClassAd>,
    Option<String>,
);
/// NEGOTIATOR_MAX_TIME_PER_SUBMITTER, _PER_SCHEDD, _PER_CYCLE (what is left of it) and
/// _PER_PIESPIN, each submitter's schedd (an index), and the seconds each has used.
type TimeRow = (f64, f64, f64, f64, Vec<usize>, Vec<f64>);

/// (submitter index, reason, the indexes of that submitter's jobs rejected for it): a
/// cycle may reject a million jobs, mostly whole clusters at a time.
type RejectionRow = (usize, Cow<'static, str>, Vec<usize>);

fn ads(list: &[PyRef<PyClassAd>]) -> Vec<Arc<ClassAd>> {
    list.iter().map(|a| a.inner().clone()).collect()
}

/// The ads of submitter `name`'s job list, each checked to be a ClassAd.
fn job_ads(name: &str, list: &Bound<'_, PyList>) -> PyResult<Vec<Arc<ClassAd>>> {
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            let ad = item.cast::<PyClassAd>().map_err(|_| {
                PyTypeError::new_err(format!("job {i} of submitter {name:?} is not a ClassAd"))
            })?;
            Ok(ad.borrow().inner().clone())
        })
        .collect()
}

/// Consecutive rejections of one submitter for one reason, as one row.
fn rejection_rows(rejections: Vec<Rejection>) -> Vec<RejectionRow> {
    let mut rows: Vec<RejectionRow> = Vec::new();
    for r in rejections {
        match rows.last_mut() {
            Some((s, reason, jobs)) if *s == r.submitter && *reason == r.reason => jobs.push(r.job),
            _ => rows.push((r.submitter, r.reason, vec![r.job])),
        }
    }
    rows
}

/// Set LastRejMatchReason and LastRejMatchTime on each rejected job.
fn stamp_rejections(
    submitters: &[(String, f64, Bound<'_, PyList>)],
    rows: &[RejectionRow],
    time: i64,
) -> PyResult<()> {
    let reason_name = Name::new("LastRejMatchReason");
    let time_name = Name::new("LastRejMatchTime");
    for (s, reason, jobs) in rows {
        let Some((_, _, ads)) = submitters.get(*s) else {
            continue;
        };
        let reason = Expr::Lit(Value::string(reason.to_string()));
        for &j in jobs {
            let item = ads.get_item(j)?;
            let mut ad = item.cast::<PyClassAd>()?.try_borrow_mut()?;
            let ad = ad.ad_mut();
            ad.insert(reason_name.clone(), reason.clone());
            ad.insert(time_name.clone(), Expr::int(time));
        }
    }
    Ok(())
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
    (
        m.submitter,
        m.job,
        m.slot,
        m.rank,
        preempts,
        dynamic,
        m.limits,
    )
}

/// One negotiation cycle (GIL released). `submitters` is a list of (name, effective
/// priority, jobs); `priorities` gives the effective priority of users running on claimed
/// slots (RemoteOwner). With `groups`, the pool is shared by accounting group: `pool_size`
/// is its size in (weighted) slots, `usage` what each submitter holds now, and the
/// groups' outcome is kept in `groups`. With `limits`, jobs are held to their concurrency
/// limits, and the counts after the cycle kept there. With `time_limits`, the
/// negotiator's time limits hold. Returns (matches, rejections, clusters, pairs evaluated).
#[pyfunction]
#[pyo3(name = "negotiate", signature = (
    slots, submitters, pre_job_rank=None, post_job_rank=None, consider_preemption=true,
    preemption_requirements=None, preemption_rank=None, priorities=None, stamp_time=None,
    exhaustive=false, groups=None, pool_size=0.0, usage=None, limits=None, time_limits=None,
    slot_weights=true
))]
#[allow(clippy::too_many_arguments)] // one per negotiator setting, as keywords from Python
fn py_negotiate<'py>(
    py: Python<'py>,
    slots: Vec<PyRef<PyClassAd>>,
    submitters: Vec<(String, f64, Bound<'py, PyList>)>,
    pre_job_rank: Option<&str>,
    post_job_rank: Option<&str>,
    consider_preemption: bool,
    preemption_requirements: Option<&str>,
    preemption_rank: Option<&str>,
    priorities: Option<HashMap<String, f64>>,
    stamp_time: Option<i64>,
    exhaustive: bool,
    groups: Option<Bound<'py, PyGroups>>,
    pool_size: f64,
    usage: Option<HashMap<String, f64>>,
    limits: Option<Bound<'py, PyLimits>>,
    time_limits: Option<TimeRow>,
    slot_weights: bool,
) -> PyResult<CycleRows> {
    let started = Instant::now();
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
        share_orderings: !exhaustive,
        groups: groups.as_ref().map(|g| {
            let now = stamp_time.unwrap_or(0) as f64;
            Arc::new(g.borrow().policy(pool_size, usage.unwrap_or_default(), now))
        }),
        limits: limits.as_ref().map(|l| Arc::new(l.borrow().config())),
        slot_weights,
        time_limits: time_limits.map(|(submitter, schedd, cycle, spin, schedd_of, spent)| {
            TimeLimits {
                per_submitter: submitter,
                per_schedd: schedd,
                per_cycle: cycle,
                per_spin: spin,
                schedd_of,
                spent,
            }
        }),
    };
    let slots = ads(&slots);
    let subs = submitters
        .iter()
        .map(|(name, priority, jobs)| {
            Ok(Submitter {
                name: name.clone(),
                priority: *priority,
                jobs: job_ads(name, jobs)?,
            })
        })
        .collect::<PyResult<Vec<Submitter>>>()?;
    let handed_over = started.elapsed().as_secs_f64();
    let mut cycle = py.detach(|| negotiate(&slots, &subs, &config));
    cycle.phases.insert(0, ("ads from python", handed_over));
    if let Some(g) = &groups {
        g.borrow_mut().record(cycle.groups.take());
    }
    if let Some(l) = &limits {
        l.borrow_mut().record(cycle.limits.take());
    }
    // The cycle's own references to the job ads go first, so stamping edits them in place.
    drop(subs);
    let matches = cycle.matches.into_iter().map(match_row).collect();
    let rejections = rejection_rows(cycle.rejections);
    if let Some(time) = stamp_time {
        let stamping = Instant::now();
        stamp_rejections(&submitters, &rejections, time)?;
        cycle
            .phases
            .push(("stamping rejections", stamping.elapsed().as_secs_f64()));
    }
    Ok((
        matches,
        rejections,
        cycle.clusters,
        cycle.pairs_evaluated,
        cycle.phases,
    ))
}

/// User priorities from usage, decayed with PRIORITY_HALFLIFE.
#[pyclass(name = "Accountant", module = "condorx.language.negotiation")]
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

    fn set_priority(&mut self, user: &str, real: f64) {
        self.inner.set_priority(user, real);
    }

    fn set_accumulated(&mut self, user: &str, seconds: f64) {
        self.inner.set_accumulated(user, seconds);
    }

    fn set_begin(&mut self, user: &str, when: f64) {
        self.inner.set_begin(user, when);
    }

    fn set_last(&mut self, user: &str, when: f64) {
        self.inner.set_last(user, when);
    }

    fn reset_usage(&mut self, user: &str, now: f64) {
        self.inner.reset_usage(user, now);
    }

    fn reset_all(&mut self, now: f64) {
        self.inner.reset_all(now);
    }

    fn knows(&self, user: &str) -> bool {
        self.inner.knows(user)
    }

    fn delete(&mut self, user: &str) -> bool {
        self.inner.delete(user)
    }

    fn last_update(&self) -> f64 {
        self.inner.last_update()
    }

    /// Every user's record, by name: (name, real priority, factor, slots in use,
    /// accumulated slot-seconds, usage begin time, last usage time).
    #[allow(clippy::type_complexity)]
    fn records(&self) -> Vec<(String, f64, f64, f64, f64, f64, f64)> {
        self.inner
            .records()
            .into_iter()
            .map(|r| {
                (
                    r.name,
                    r.real_priority,
                    r.factor,
                    r.in_use,
                    r.accumulated,
                    r.begin,
                    r.last,
                )
            })
            .collect()
    }

    /// A record as `records` gives it, restored (the negotiator's saved accountant).
    #[allow(clippy::too_many_arguments)]
    fn restore(
        &mut self,
        name: String,
        real_priority: f64,
        factor: f64,
        in_use: f64,
        accumulated: f64,
        begin: f64,
        last: f64,
    ) {
        self.inner.restore(&UserRecord {
            name,
            real_priority,
            factor,
            in_use,
            accumulated,
            begin,
            last,
        });
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_negotiate, m)?)?;
    m.add_class::<PyAccountant>()?;
    m.add_class::<PyGroups>()?;
    m.add_class::<PyLimits>()?;
    Ok(())
}
