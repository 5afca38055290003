//! ClassAds as HTCondor's wire protocol (CEDAR) carries them: an 8-byte count, then one
//! string `Name = expr` (old syntax) per attribute, then two trailing strings (MyType
//! and TargetType, sent empty by modern peers).
//!
//! Writing happens here because a collector answers with thousands of ads a query; the
//! reading side gets the strings from Python (they arrive interleaved with the rest of
//! a message) and parses each one here, naming the attribute of any that does not parse.

use std::collections::HashSet;
use std::sync::Arc;

use condorx_classad::lexer::Syntax;
use condorx_classad::unparse::{write_expr_in, write_name};
use condorx_classad::{parse_old_line, ClassAd, Expr};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::classad::PyClassAd;
use crate::errors::parse_error;

/// A string as CEDAR writes it: NUL-terminated in the clear; on an encrypted stream,
/// an 8-byte length (counting the NUL) first.
fn put_string(out: &mut Vec<u8>, s: &str, encrypted: bool) {
    if encrypted {
        out.extend_from_slice(&((s.len() + 1) as i64).to_be_bytes());
    }
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn put_ad(
    out: &mut Vec<u8>,
    ad: &ClassAd,
    keep: Option<&HashSet<String>>,
    drop: &HashSet<String>,
    encrypted: bool,
) {
    let chosen: Vec<_> = ad
        .iter()
        .filter(|(n, _)| {
            let lower = n.as_str().to_ascii_lowercase();
            !drop.contains(&lower) && keep.is_none_or(|k| k.contains(&lower))
        })
        .collect();
    out.extend_from_slice(&(chosen.len() as i64).to_be_bytes());
    let mut line = String::new();
    for (name, expr) in chosen {
        line.clear();
        write_name(&mut line, name.as_str());
        line.push_str(" = ");
        write_expr_in(&mut line, expr, Syntax::Old);
        put_string(out, &line, encrypted);
    }
    // MyType and TargetType: modern peers send both empty (MyType is an attribute).
    put_string(out, "", encrypted);
    put_string(out, "", encrypted);
}

fn lowered(names: Option<Vec<String>>) -> Option<HashSet<String>> {
    names.map(|v| v.into_iter().map(|n| n.to_ascii_lowercase()).collect())
}

/// Each ad in CEDAR's form, one bytes object per ad: only the attributes in `projection`
/// when one is given (case-insensitive), never those in `exclude` (private attributes a
/// reader may not see). `encrypted` chooses the string form.
#[pyfunction]
#[pyo3(signature = (ads, encrypted, projection=None, exclude=None))]
fn cedar_put_ads<'py>(
    py: Python<'py>,
    ads: Vec<PyRef<'py, PyClassAd>>,
    encrypted: bool,
    projection: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
) -> Vec<Bound<'py, PyBytes>> {
    let keep = lowered(projection);
    let drop = lowered(exclude).unwrap_or_default();
    let mut out = Vec::with_capacity(ads.len());
    let mut buf = Vec::new();
    for ad in ads {
        buf.clear();
        put_ad(&mut buf, ad.inner(), keep.as_ref(), &drop, encrypted);
        out.push(PyBytes::new(py, &buf));
    }
    out
}

/// An ad from the `Name = expr` strings a peer sent. `literals_only`: every expression
/// must be a literal (an ad sent before the peer has authenticated).
#[pyfunction]
#[pyo3(signature = (lines, literals_only=false))]
fn cedar_get_ad(py: Python<'_>, lines: Vec<String>, literals_only: bool) -> PyResult<PyClassAd> {
    let mut ad = ClassAd::with_capacity(lines.len());
    for line in &lines {
        let (name, expr) = parse_old_line(line).map_err(|e| parse_error(py, &e, "a ClassAd"))?;
        if literals_only && !is_literal(&expr) {
            return Err(PyValueError::new_err(format!(
                "attribute {}: only literals may be sent before authentication",
                name.as_str()
            )));
        }
        ad.insert(name, expr);
    }
    Ok(PyClassAd::from_arc(Arc::new(ad)))
}

/// A literal, or a negated one (`-1` parses as negation).
fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(_, inner) => matches!(**inner, Expr::Lit(_)),
        _ => false,
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cedar_put_ads, m)?)?;
    m.add_function(wrap_pyfunction!(cedar_get_ad, m)?)?;
    Ok(())
}
