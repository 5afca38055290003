//! Autoclusters for the schedd: its idle jobs grouped as the negotiator's cycle would
//! group them, so that it sends one request per group (with a count) instead of every
//! job, as HTCondor's schedds do. The groups come from the same code as the cycle's own
//! (`cluster_jobs` over `PoolReads`), given the pool's policies as the negotiator sends
//! them (`pool_policies`): what the slots can read of a job is all that tells jobs apart.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::{ClassAd, Evaluator, Expr, Value};
use condorx_matchmaking::by_parent::{looked_by, ByParent};
use condorx_matchmaking::deps::{distinct_exprs, PoolReads};
use condorx_matchmaking::{cluster_jobs, cluster_jobs_apart};
use pyo3::prelude::*;

use crate::classad::PyClassAd;
use crate::expr::PyExprTree;

/// Each group of `jobs` (indexes, in the order given; groups in the order of their first
/// job) that a pool with these slot ads (or their `pool_policies`) cannot tell apart.
#[pyfunction]
fn autoclusters(
    py: Python<'_>,
    jobs: Vec<PyRef<PyClassAd>>,
    pool: Vec<PyRef<PyClassAd>>,
) -> Vec<Vec<usize>> {
    let jobs: Vec<Arc<ClassAd>> = jobs.iter().map(|j| j.inner().clone()).collect();
    let pool: Vec<Arc<ClassAd>> = pool.iter().map(|s| s.inner().clone()).collect();
    py.detach(move || {
        let reads = PoolReads::of(pool.iter().map(|s| &**s));
        cluster_jobs(&reads, &jobs)
            .into_iter()
            .map(|c| c.jobs)
            .collect()
    })
}

/// A schedd's answer to a negotiator: of `jobs`, those not marked in `skip` for which
/// `constraint` is true, grouped as `autoclusters` groups them, with jobs that write any
/// of `apart` (Owner) differently kept apart. One pass in the core over a million
/// jobs, each cluster's procs that read alike worked out once (`by_parent`).
#[pyfunction]
fn waiting_groups(
    py: Python<'_>,
    jobs: Vec<PyRef<PyClassAd>>,
    skip: Vec<bool>,
    constraint: Option<PyRef<PyExprTree>>,
    pool: Vec<PyRef<PyClassAd>>,
    apart: Vec<String>,
) -> PyResult<Vec<Vec<usize>>> {
    if skip.len() != jobs.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "skip must mark each job",
        ));
    }
    let jobs: Vec<Arc<ClassAd>> = jobs.iter().map(|j| j.inner().clone()).collect();
    let pool: Vec<Arc<ClassAd>> = pool.iter().map(|s| s.inner().clone()).collect();
    let constraint: Option<Expr> = constraint.map(|c| c.expr().clone());
    Ok(py.detach(move || {
        let (chosen, at) = chosen(&jobs, &skip, constraint.as_ref());
        let reads = PoolReads::of(pool.iter().map(|s| &**s));
        let apart: Vec<&str> = apart.iter().map(String::as_str).collect();
        cluster_jobs_apart(&reads, &chosen, &apart)
            .into_iter()
            .map(|c| {
                c.jobs
                    .into_iter()
                    .filter_map(|i| at.get(i).copied())
                    .collect()
            })
            .collect()
    }))
}

/// The jobs not skipped for which `constraint` is true, and where each was in `jobs`.
fn chosen(
    jobs: &[Arc<ClassAd>],
    skip: &[bool],
    constraint: Option<&Expr>,
) -> (Vec<Arc<ClassAd>>, Vec<usize>) {
    let mut ev = Evaluator::new(None, None);
    let mut known: ByParent<bool> = ByParent::default();
    let (mut out, mut at) = (Vec::new(), Vec::new());
    for (i, (job, &skipped)) in jobs.iter().zip(skip).enumerate() {
        if skipped {
            continue;
        }
        let take = match constraint {
            None => true,
            Some(e) => known.get(job).unwrap_or_else(|| {
                ev.reset(Some(job), None);
                let v = matches!(ev.eval(e), Value::Bool(true));
                if let Some(looked) = looked_by(job, e) {
                    known.put(job, &looked, v);
                }
                v
            }),
        };
        if take {
            out.push(job.clone());
            at.push(i);
        }
    }
    (out, at)
}

/// A few ads holding every distinct expression (not literal) the slots write, under the
/// name they write it: what a pool's slots can read of a job is all in them. A pool of
/// 100,000 slots repeats a handful of policies.
#[pyfunction]
fn pool_policies(py: Python<'_>, slots: Vec<PyRef<PyClassAd>>) -> Vec<PyClassAd> {
    let slots: Vec<Arc<ClassAd>> = slots.iter().map(|s| s.inner().clone()).collect();
    let ads = py.detach(move || {
        // How many distinct expressions each name has had so far.
        let mut written: HashMap<String, usize> = HashMap::new();
        let mut ads: Vec<ClassAd> = Vec::new();
        for (name, e) in distinct_exprs(slots.iter().map(|s| &**s)) {
            // The n-th distinct expression of a name goes in the n-th ad.
            let count = written
                .entry(name.as_str().to_ascii_lowercase())
                .or_default();
            let n = *count;
            *count += 1;
            match ads.get_mut(n) {
                Some(ad) => ad.insert(name.clone(), e.clone()),
                None => {
                    let mut ad = ClassAd::new();
                    ad.insert(name.clone(), e.clone());
                    ads.push(ad);
                }
            }
        }
        ads
    });
    ads.into_iter()
        .map(|a| PyClassAd::from_arc(Arc::new(a)))
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(autoclusters, m)?)?;
    m.add_function(wrap_pyfunction!(pool_policies, m)?)?;
    m.add_function(wrap_pyfunction!(waiting_groups, m)?)?;
    Ok(())
}
