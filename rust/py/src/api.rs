//! Module-level functions: parsing many ads, quoting, and bulk evaluation and matching.

use std::sync::Arc;

use condorx_classad::share::ExprCache;
use condorx_classad::{
    builtins, eval_expr,
    lexer::{Lexer, Tok},
    parse_ad, parse_next_ad, parse_old_ads,
    unparse::write_string,
    ClassAd, Evaluator,
};
use condorx_matchmaking::PairEval;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::classad::PyClassAd;
use crate::convert::to_py;
use crate::errors::parse_error;
use crate::expr::PyExprTree;

fn wrap(ads: Vec<ClassAd>) -> Vec<PyClassAd> {
    ads.into_iter()
        .map(|a| PyClassAd::from_arc(Arc::new(a)))
        .collect()
}

/// Every ad of `text`: old syntax (`Name = expr` lines, blank-line separated) or new
/// (`[ ... ]` one after another). Parsing runs without the GIL.
#[pyfunction]
#[pyo3(signature = (text, old))]
fn parse_ads(py: Python<'_>, text: &str, old: bool) -> PyResult<Vec<PyClassAd>> {
    let owned = text.to_owned();
    let ads = py
        .detach(move || {
            if old {
                parse_old_ads(&owned)
            } else {
                parse_new_ads(&owned)
            }
        })
        .map_err(|e| parse_error(py, &e, "ClassAds"))?;
    Ok(wrap(ads))
}

fn parse_new_ads(text: &str) -> Result<Vec<ClassAd>, condorx_classad::SyntaxError> {
    let mut ads = Vec::new();
    let mut at = 0;
    let mut cache = ExprCache::new();
    while let Some((mut ad, next)) = parse_next_ad(text, at)? {
        ad.share_exprs(&mut cache);
        ads.push(ad);
        at = next;
    }
    Ok(ads)
}

/// The next new-syntax ad of `text` from byte `offset`: (ad, offset after it), or None.
#[pyfunction]
fn parse_next(py: Python<'_>, text: &str, offset: usize) -> PyResult<Option<(PyClassAd, usize)>> {
    let r = parse_next_ad(text, offset).map_err(|e| parse_error(py, &e, "ClassAd"))?;
    Ok(r.map(|(ad, next)| (PyClassAd::from_arc(Arc::new(ad)), next)))
}

/// One new-syntax ad.
#[pyfunction]
fn parse_one(py: Python<'_>, text: &str) -> PyResult<PyClassAd> {
    let ad = parse_ad(text).map_err(|e| parse_error(py, &e, "ClassAd"))?;
    Ok(PyClassAd::from_arc(Arc::new(ad)))
}

/// A Python string as a ClassAd string literal, quotes and escapes included.
#[pyfunction]
fn quote(s: &str) -> String {
    let mut out = String::new();
    write_string(&mut out, s);
    out
}

/// A ClassAd string literal back to the Python string it denotes.
#[pyfunction]
fn unquote(s: &str) -> PyResult<String> {
    let mut lx = Lexer::new(s);
    let bad = || PyValueError::new_err(format!("not a ClassAd string literal: {s:?}"));
    match lx.next_token().map(|t| t.tok) {
        Ok(Tok::Str(v)) if matches!(lx.next_token().map(|t| t.tok), Ok(Tok::Eof)) => Ok(v),
        _ => Err(bad()),
    }
}

/// The names of every built-in function.
#[pyfunction]
fn function_names() -> Vec<&'static str> {
    builtins::names()
}

/// Evaluate `expr` in each ad of `ads` (GIL released); returns the values.
#[pyfunction]
fn eval_each(
    py: Python<'_>,
    expr: PyRef<PyExprTree>,
    ads: Vec<PyRef<PyClassAd>>,
) -> PyResult<Vec<Py<PyAny>>> {
    let e = expr.expr().clone();
    let ads: Vec<Arc<ClassAd>> = ads.iter().map(|a| a.inner().clone()).collect();
    let vals = py.detach(|| {
        let mut ev = Evaluator::new(None, None);
        ads.iter()
            .map(|a| {
                ev.reset(Some(a), None);
                ev.eval(&e)
            })
            .collect::<Vec<_>>()
    });
    vals.iter().map(|v| to_py(py, v)).collect()
}

/// Evaluate `expr` in `my` against each ad of `targets` as TARGET (GIL released).
#[pyfunction]
fn eval_against(
    py: Python<'_>,
    expr: PyRef<PyExprTree>,
    my: PyRef<PyClassAd>,
    targets: Vec<PyRef<PyClassAd>>,
) -> PyResult<Vec<Py<PyAny>>> {
    let e = expr.expr().clone();
    let my = my.inner().clone();
    let targets: Vec<Arc<ClassAd>> = targets.iter().map(|a| a.inner().clone()).collect();
    let vals = py.detach(|| {
        let mut ev = Evaluator::new(None, None);
        targets
            .iter()
            .map(|t| {
                ev.reset(Some(&my), Some(t));
                ev.eval(&e)
            })
            .collect::<Vec<_>>()
    });
    vals.iter().map(|v| to_py(py, v)).collect()
}

/// How many ads of `ads` make `expr` true (GIL released).
#[pyfunction]
fn count_true(py: Python<'_>, expr: PyRef<PyExprTree>, ads: Vec<PyRef<PyClassAd>>) -> usize {
    let e = expr.expr().clone();
    let ads: Vec<Arc<ClassAd>> = ads.iter().map(|a| a.inner().clone()).collect();
    py.detach(|| {
        ads.iter()
            .filter(|a| eval_expr(&e, Some(a), None).is_true())
            .count()
    })
}

/// Every (job index, slot index) pair whose ads match symmetrically (GIL released), in
/// job order. Slots are the outer loop: each slot ad stays in cache while every job is
/// tried against it, which is three times faster on a large pool than job-major order.
#[pyfunction]
fn symmetric_matches(
    py: Python<'_>,
    jobs: Vec<PyRef<PyClassAd>>,
    slots: Vec<PyRef<PyClassAd>>,
) -> Vec<(usize, usize)> {
    let jobs: Vec<Arc<ClassAd>> = jobs.iter().map(|a| a.inner().clone()).collect();
    let slots: Vec<Arc<ClassAd>> = slots.iter().map(|a| a.inner().clone()).collect();
    py.detach(|| {
        let mut per_job: Vec<Vec<usize>> = vec![Vec::new(); jobs.len()];
        let mut pair = PairEval::new();
        for (k, s) in slots.iter().enumerate() {
            for (j, found) in jobs.iter().zip(per_job.iter_mut()) {
                if pair.symmetric(j, s) {
                    found.push(k);
                }
            }
        }
        per_job
            .into_iter()
            .enumerate()
            .flat_map(|(i, ks)| ks.into_iter().map(move |k| (i, k)))
            .collect()
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_ads, m)?)?;
    m.add_function(wrap_pyfunction!(parse_next, m)?)?;
    m.add_function(wrap_pyfunction!(parse_one, m)?)?;
    m.add_function(wrap_pyfunction!(quote, m)?)?;
    m.add_function(wrap_pyfunction!(unquote, m)?)?;
    m.add_function(wrap_pyfunction!(function_names, m)?)?;
    m.add_function(wrap_pyfunction!(eval_each, m)?)?;
    m.add_function(wrap_pyfunction!(count_true, m)?)?;
    m.add_function(wrap_pyfunction!(eval_against, m)?)?;
    m.add_function(wrap_pyfunction!(symmetric_matches, m)?)?;
    Ok(())
}
