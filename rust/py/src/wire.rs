//! Ads as they travel between daemons (msgpack maps of attribute to value, expressions
//! as `condorx.classad.Expr`), made into ClassAds in one call: the collector takes thousands
//! of slot ads an update, each repeating its startd's policy expressions.

use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Name, Value};
use condorx_packed::{is_attr_name, ExprReader, ReadError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyType};

use crate::classad::PyClassAd;
use crate::errors::ad_read_error;

/// Wire maps made into ads, their expressions parsed once for the batch.
struct Reader {
    exprs: ExprReader,
}

impl Reader {
    fn new() -> Self {
        Reader {
            exprs: ExprReader::new(),
        }
    }

    /// The ad a wire map stands for, or what about it is not plain (a bad name or value,
    /// an expression that does not parse, an integer past 64 bits) and in which attribute.
    fn ad(
        &mut self,
        map: &Bound<'_, PyAny>,
        expr_type: &Bound<'_, PyType>,
    ) -> PyResult<Result<ClassAd, (Option<String>, String)>> {
        let Ok(dict) = map.cast::<PyDict>() else {
            let got = map.get_type().name()?;
            return Ok(Err((
                None,
                format!("expected a map of attributes, got {got}"),
            )));
        };
        let mut ad = ClassAd::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let key = match k.cast::<PyString>() {
                Ok(key) => key.to_str()?.to_owned(),
                Err(_) => return Ok(Err((None, format!("bad attribute name {}", k.repr()?)))),
            };
            if !is_attr_name(&key) {
                return Ok(Err((None, format!("bad attribute name {}", k.repr()?))));
            }
            let name = Name::new(&key);
            if v.is_instance(expr_type)? {
                let text = v.getattr("text")?;
                let Ok(text) = text.cast::<PyString>() else {
                    return Ok(Err((
                        Some(key),
                        "an expression whose text is not a string".into(),
                    )));
                };
                if let Err(reason) = self.exprs.insert_expr(&mut ad, name, text.to_str()?) {
                    return Ok(Err((Some(key), reason)));
                }
                continue;
            }
            match literal(&v)? {
                Ok(value) => ad.insert(name, Expr::Lit(value)),
                Err(reason) => return Ok(Err((Some(key), reason))),
            }
        }
        Ok(Ok(ad))
    }
}

/// A plain value, or why `v` is not one.
fn literal(v: &Bound<'_, PyAny>) -> PyResult<Result<Value, String>> {
    if v.is_none() {
        return Ok(Ok(Value::Undefined));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Ok(Value::Bool(v.extract::<bool>()?)));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(v
            .extract::<i64>()
            .map(Value::Int)
            .map_err(|_| "integer past 64 signed bits".to_owned()));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(Ok(Value::Real(f.value())));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Ok(Value::str(s.to_str()?)));
    }
    Ok(Err(format!("unsupported value {}", v.get_type().name()?)))
}

/// Each wire map of `maps` as a ClassAd; `AdReadError` naming the first map that is not
/// plain (see `Reader::ad`). `expr_type` is the class expressions travel as
/// (`condorx.classad.Expr`).
#[pyfunction]
fn ads_from_wire(
    py: Python<'_>,
    maps: &Bound<'_, PyList>,
    expr_type: &Bound<'_, PyType>,
) -> PyResult<Vec<PyClassAd>> {
    let mut reader = Reader::new();
    let mut ads = Vec::with_capacity(maps.len());
    for (i, m) in maps.iter().enumerate() {
        match reader.ad(&m, expr_type)? {
            Ok(ad) => ads.push(PyClassAd::from_arc(Arc::new(ad))),
            Err((attribute, reason)) => {
                let e = ReadError {
                    ad: Some(i),
                    attribute,
                    reason,
                };
                return Err(ad_read_error(py, &e));
            }
        }
    }
    Ok(ads)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ads_from_wire, m)?)?;
    Ok(())
}
