//! Values between Rust and Python: ClassAd values to native Python objects and back.

use std::sync::Arc;

use condorx_classad::{eval_standalone, ClassAd, Expr, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};

use crate::classad::PyClassAd;
use crate::expr::PyExprTree;

/// `condorx.classad.Value.Undefined` and `.Error`, registered by the Python package at import.
static SENTINELS: PyOnceLock<(Py<PyAny>, Py<PyAny>)> = PyOnceLock::new();

#[pyfunction]
pub fn _register_sentinels(py: Python<'_>, undefined: Py<PyAny>, error: Py<PyAny>) {
    let _ = SENTINELS.set(py, (undefined, error));
}

fn sentinel(py: Python<'_>, error: bool) -> Py<PyAny> {
    match SENTINELS.get(py) {
        Some((u, e)) => if error { e } else { u }.clone_ref(py),
        None => PyString::new(py, if error { "error" } else { "undefined" })
            .into_any()
            .unbind(),
    }
}

/// A value as a Python object: int, float, str, bool, list, ClassAd, datetime, float seconds.
pub fn to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Undefined => sentinel(py, false),
        Value::Error => sentinel(py, true),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::Real(r) => PyFloat::new(py, *r).into_any().unbind(),
        Value::Str(s) => PyString::new(py, s).into_any().unbind(),
        Value::List(l) => {
            let items = l
                .items
                .iter()
                .map(|e| item_to_py(py, e))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Ad(a) => Py::new(py, PyClassAd::from_arc(a.ad.clone()))?.into_any(),
        Value::AbsTime { secs, offset } => abstime_to_py(py, *secs, *offset)?,
        Value::RelTime(d) => PyFloat::new(py, *d).into_any().unbind(),
    })
}

/// A list item: literals and nested literal lists/ads become values, the rest ExprTrees.
pub fn item_to_py(py: Python<'_>, e: &Expr) -> PyResult<Py<PyAny>> {
    match e {
        Expr::Lit(v) => to_py(py, v),
        Expr::List(_) | Expr::Ad(_) => to_py(py, &eval_standalone(e)),
        other => Ok(Py::new(py, PyExprTree::new(other.clone(), None))?.into_any()),
    }
}

fn abstime_to_py(py: Python<'_>, secs: i64, offset: i32) -> PyResult<Py<PyAny>> {
    let dt = py.import("datetime")?;
    let delta = dt.getattr("timedelta")?.call((0, offset), None)?;
    let tz = dt.getattr("timezone")?.call1((delta,))?;
    let when = dt
        .getattr("datetime")?
        .getattr("fromtimestamp")?
        .call1((secs, tz))?;
    Ok(when.unbind())
}

/// Deepest nesting of Python lists and dicts taken into an ad, the parser's own limit.
const MAX_NESTING: usize = condorx_classad::parser::MAX_DEPTH;

/// A Python object as an expression (what `ad[key] = obj` stores).
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Expr> {
    from_py_at(obj, 0)
}

fn from_py_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Expr> {
    if depth > MAX_NESTING {
        return Err(PyValueError::new_err(format!(
            "lists and dicts nested more than {MAX_NESTING} deep cannot go into a ClassAd"
        )));
    }
    let py = obj.py();
    if let Ok(e) = obj.extract::<PyRef<PyExprTree>>() {
        return Ok(e.expr().clone());
    }
    if let Ok(a) = obj.extract::<PyRef<PyClassAd>>() {
        return Ok(Expr::Ad(a.inner().clone()));
    }
    if let Some((u, e)) = SENTINELS.get(py) {
        if obj.is(u.bind(py)) {
            return Ok(Expr::Lit(Value::Undefined));
        }
        if obj.is(e.bind(py)) {
            return Ok(Expr::Lit(Value::Error));
        }
    }
    if obj.is_none() {
        return Ok(Expr::Lit(Value::Undefined));
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Expr::Lit(Value::Bool(obj.extract::<bool>()?)));
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(Expr::Lit(Value::Int(i)));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Expr::Lit(Value::Real(obj.extract::<f64>()?)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Expr::Lit(Value::str(s.to_str()?)));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return Ok(Expr::Ad(Arc::new(dict_to_ad_at(d, depth + 1)?)));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items = obj
            .try_iter()?
            .map(|x| from_py_at(&x?, depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Expr::List(Arc::new(items)));
    }
    if let Some(v) = datetime_from_py(obj)? {
        return Ok(Expr::Lit(v));
    }
    Err(PyTypeError::new_err(format!(
        "cannot store a {} in a ClassAd",
        obj.get_type().name()?
    )))
}

fn datetime_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    let dt = obj.py().import("datetime")?.getattr("datetime")?;
    if !obj.is_instance(&dt)? {
        return Ok(None);
    }
    let ts: f64 = obj.call_method0("timestamp")?.extract()?;
    let off = obj.call_method0("utcoffset")?;
    let offset = if off.is_none() {
        0
    } else {
        off.call_method0("total_seconds")?.extract::<f64>()? as i32
    };
    Ok(Some(Value::AbsTime {
        secs: ts.floor() as i64,
        offset,
    }))
}

pub fn dict_to_ad(d: &Bound<'_, PyDict>) -> PyResult<ClassAd> {
    dict_to_ad_at(d, 0)
}

fn dict_to_ad_at(d: &Bound<'_, PyDict>, depth: usize) -> PyResult<ClassAd> {
    let mut ad = ClassAd::with_capacity(d.len());
    for (k, v) in d.iter() {
        let key: String = k.extract()?;
        ad.insert_str(&key, from_py_at(&v, depth)?);
    }
    Ok(ad)
}
