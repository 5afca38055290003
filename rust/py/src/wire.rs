//! Ads as they travel between daemons (msgpack maps of attribute to value, expressions
//! as `condorx.classad.Expr`), made into ClassAds in one call: the collector takes thousands
//! of slot ads an update, each repeating its startd's policy expressions.

use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Name, Value};
use condorx_packed::{is_attr_name, ExprReader};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyType};

use crate::classad::PyClassAd;

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

    /// The ad a wire map stands for; `None` when anything about it is not plain (a bad
    /// name or value, an expression that does not parse, an integer past 64 bits): the
    /// caller's own reading then says what is wrong, and where.
    fn ad(
        &mut self,
        map: &Bound<'_, PyAny>,
        expr_type: &Bound<'_, PyType>,
    ) -> PyResult<Option<ClassAd>> {
        let Ok(dict) = map.cast::<PyDict>() else {
            return Ok(None);
        };
        let mut ad = ClassAd::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Ok(None);
            };
            let key = key.to_str()?;
            if !is_attr_name(key) {
                return Ok(None);
            }
            let name = Name::new(key);
            if v.is_instance(expr_type)? {
                let text = v.getattr("text")?;
                let Ok(text) = text.cast::<PyString>() else {
                    return Ok(None);
                };
                if !self.exprs.insert_expr(&mut ad, name, text.to_str()?) {
                    return Ok(None);
                }
                continue;
            }
            let Some(value) = literal(&v)? else {
                return Ok(None);
            };
            ad.insert(name, Expr::Lit(value));
        }
        Ok(Some(ad))
    }
}

fn literal(v: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    if v.is_none() {
        return Ok(Some(Value::Undefined));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Some(Value::Bool(v.extract::<bool>()?)));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(v.extract::<i64>().ok().map(Value::Int));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(Some(Value::Real(f.value())));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Some(Value::str(s.to_str()?)));
    }
    Ok(None)
}

/// Each wire map of `maps` as a ClassAd, or None where the map is not plain (see
/// `Reader::ad`). `expr_type` is the class expressions travel as (`condorx.classad.Expr`).
#[pyfunction]
fn ads_from_wire(
    maps: &Bound<'_, PyList>,
    expr_type: &Bound<'_, PyType>,
) -> PyResult<Vec<Option<PyClassAd>>> {
    let mut reader = Reader::new();
    maps.iter()
        .map(|m| {
            Ok(reader
                .ad(&m, expr_type)?
                .map(|ad| PyClassAd::from_arc(Arc::new(ad))))
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ads_from_wire, m)?)?;
    Ok(())
}
