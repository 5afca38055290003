//! Autoclusters for the schedd: its idle jobs grouped as the negotiator's cycle would
//! group them, so that it sends one request per group (with a count) instead of every
//! job, as HTCondor's schedds do. The groups come from the same code as the cycle's own
//! (`cluster_jobs` over `PoolReads`), given the pool's policies as the negotiator sends
//! them (`pool_policies`): what the slots can read of a job is all that tells jobs apart.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::ClassAd;
use condorx_matchmaking::cluster_jobs;
use condorx_matchmaking::deps::{distinct_exprs, PoolReads};
use pyo3::prelude::*;

use crate::classad::PyClassAd;

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
    Ok(())
}
