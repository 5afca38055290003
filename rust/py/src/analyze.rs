//! `condorx._core.analyze`: why a job does not match, as plain tuples for `condorx.analyze`.

use std::sync::Arc;

use condorx_classad::ClassAd;
use condorx_matchmaking::{analyze, Clause};
use pyo3::prelude::*;

use crate::classad::PyClassAd;

/// (text, true on, false on, undefined on, matches without it, missing attributes).
type ClauseRow = (String, usize, usize, usize, usize, Vec<String>);
/// (slots, matching, rejected by the job, rejecting the job, has Requirements, clauses).
type AnalysisRow = (usize, usize, usize, usize, bool, Vec<ClauseRow>);

fn clause_row(c: Clause) -> ClauseRow {
    (
        c.text,
        c.true_on,
        c.false_on,
        c.undefined_on,
        c.match_without,
        c.missing,
    )
}

/// Analyze `job` against `slots` (GIL released): totals, then one row per clause of the
/// job's Requirements.
#[pyfunction]
#[pyo3(name = "analyze")]
fn py_analyze(py: Python<'_>, job: PyRef<PyClassAd>, slots: Vec<PyRef<PyClassAd>>) -> AnalysisRow {
    let job = job.inner().clone();
    let slots: Vec<Arc<ClassAd>> = slots.iter().map(|s| s.inner().clone()).collect();
    let a = py.detach(|| analyze(&job, &slots));
    (
        a.slots,
        a.matching,
        a.rejected_by_job,
        a.rejecting_job,
        a.has_requirements,
        a.clauses.into_iter().map(clause_row).collect(),
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_analyze, m)?)?;
    Ok(())
}
