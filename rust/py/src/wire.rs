//! Ads as they travel between daemons (msgpack maps of attribute to value, expressions
//! as `condorx.wire.Expr`), made into ClassAds in one call: the collector takes thousands
//! of slot ads an update, each repeating its startd's policy expressions.

use std::collections::HashMap;
use std::sync::Arc;

use condorx_classad::classad::Shared;
use condorx_classad::share::ExprCache;
use condorx_classad::{parse_expr, ClassAd, Expr, Name, Value};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyType};

use crate::classad::PyClassAd;

/// An expression's text, parsed once per call: shared among the ads, or (a literal, or
/// past the cache's room) each ad's own copy, as `ExprCache::share` gives it.
type Parsed = Result<Arc<Shared>, Expr>;

pub(crate) struct Reader {
    texts: HashMap<String, Parsed>,
    cache: ExprCache,
}

impl Reader {
    pub(crate) fn new() -> Self {
        Reader {
            texts: HashMap::new(),
            cache: ExprCache::new(),
        }
    }

    /// Set `name` to the expression `text` (parsed once per reader); false when the text
    /// does not parse.
    pub(crate) fn insert_expr(&mut self, ad: &mut ClassAd, name: Name, text: &str) -> bool {
        match self.parsed(text) {
            Some(Ok(s)) => ad.insert_shared(name, s.clone()),
            Some(Err(e)) => ad.insert(name, e.clone()),
            None => return false,
        }
        true
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
                if !self.insert_expr(&mut ad, name, text.to_str()?) {
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

    fn parsed(&mut self, text: &str) -> Option<&Parsed> {
        if !self.texts.contains_key(text) {
            let expr = parse_expr(text).ok()?;
            self.texts.insert(text.to_owned(), self.cache.share(expr));
        }
        self.texts.get(text)
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

/// `[A-Za-z_][A-Za-z0-9_]*`, the names a wire ad may use.
pub(crate) fn is_attr_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Each wire map of `maps` as a ClassAd, or None where the map is not plain (see
/// `Reader::ad`). `expr_type` is the class expressions travel as (`condorx.wire.Expr`).
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
