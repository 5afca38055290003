//! ClassAd: a mutable mapping of attribute names to expressions, shaped like classad2's.

use std::sync::Arc;

use condorx_classad::{
    eval_attr, matching, name::Name, parse_ad, unparse, unparse::write_name, ClassAd, Expr,
};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::convert::{dict_to_ad, from_py, item_to_py, to_py};
use crate::errors::parse_error;
use crate::expr::PyExprTree;

#[pyclass(name = "ClassAd", module = "condorx.classad", mapping)]
pub struct PyClassAd {
    ad: Arc<ClassAd>,
}

impl PyClassAd {
    pub fn from_arc(ad: Arc<ClassAd>) -> PyClassAd {
        PyClassAd { ad }
    }

    pub fn inner(&self) -> &Arc<ClassAd> {
        &self.ad
    }

    /// The ad for writing; copied first only if another object shares it.
    pub(crate) fn ad_mut(&mut self) -> &mut ClassAd {
        Arc::make_mut(&mut self.ad)
    }

    fn expr_of(&self, key: &str) -> PyResult<&Expr> {
        self.ad
            .lookup(key)
            .ok_or_else(|| PyKeyError::new_err(key.to_string()))
    }

    /// A stored expression as Python sees it, as classad2 has it: literals (scalars, lists,
    /// ads) as values, anything else as an ExprTree.
    fn item(&self, py: Python<'_>, e: &Expr) -> PyResult<Py<PyAny>> {
        match e {
            Expr::Lit(v) => to_py(py, v),
            Expr::Ad(a) => Ok(Py::new(py, PyClassAd::from_arc(a.clone()))?.into_any()),
            Expr::List(items) => {
                let vals = items
                    .iter()
                    .map(|i| item_to_py(py, i))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, vals)?.into_any().unbind())
            }
            other => {
                Ok(Py::new(py, PyExprTree::new(other.clone(), Some(self.ad.clone())))?.into_any())
            }
        }
    }
}

#[pymethods]
impl PyClassAd {
    /// `ClassAd()`, `ClassAd("[ a = 1 ]")` (new syntax) or `ClassAd({"a": 1})`.
    #[new]
    #[pyo3(signature = (input=None))]
    fn new(py: Python<'_>, input: Option<&Bound<'_, PyAny>>) -> PyResult<PyClassAd> {
        let ad = match input {
            None => ClassAd::new(),
            Some(obj) => {
                if let Ok(s) = obj.cast::<PyString>() {
                    let text = s.to_str()?.to_owned();
                    py.detach(|| parse_ad(&text))
                        .map_err(|e| parse_error(py, &e, "ClassAd"))?
                } else if let Ok(d) = obj.cast::<PyDict>() {
                    dict_to_ad(d)?
                } else {
                    return Err(PyTypeError::new_err("ClassAd() takes a string or a dict"));
                }
            }
        };
        Ok(PyClassAd { ad: Arc::new(ad) })
    }

    fn __getitem__(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        let e = self.expr_of(key)?;
        self.item(py, e)
    }

    fn __setitem__(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let e = from_py(value)?;
        self.ad_mut().insert(Name::new(key), e);
        Ok(())
    }

    fn __delitem__(&mut self, key: &str) -> PyResult<()> {
        if self.ad_mut().remove(key) {
            Ok(())
        } else {
            Err(PyKeyError::new_err(key.to_string()))
        }
    }

    fn __contains__(&self, key: &str) -> bool {
        self.ad.contains(key)
    }

    fn __len__(&self) -> usize {
        self.ad.len()
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.keys(py)?.bind(py).try_iter()?.into_any().unbind())
    }

    fn keys(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        Ok(PyList::new(py, self.ad.names().collect::<Vec<_>>())?.unbind())
    }

    fn values(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.ad.iter().map(|(_, e)| self.item(py, e)).collect()
    }

    fn items(&self, py: Python<'_>) -> PyResult<Vec<(String, Py<PyAny>)>> {
        self.ad
            .iter()
            .map(|(n, e)| Ok((n.as_str().to_string(), self.item(py, e)?)))
            .collect()
    }

    #[pyo3(signature = (key, default=None))]
    fn get(&self, py: Python<'_>, key: &str, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        match self.ad.lookup(key) {
            Some(e) => self.item(py, e),
            None => Ok(default.unwrap_or_else(|| py.None())),
        }
    }

    #[pyo3(signature = (key, default=None))]
    fn setdefault(
        &mut self,
        py: Python<'_>,
        key: &str,
        default: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if !self.ad.contains(key) {
            let e = match default {
                Some(d) => from_py(d)?,
                None => Expr::Lit(condorx_classad::Value::Undefined),
            };
            self.ad_mut().insert(Name::new(key), e);
        }
        self.__getitem__(py, key)
    }

    /// Copy every attribute of a ClassAd, dict or iterable of pairs into this ad.
    fn update(&mut self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(o) = other.extract::<PyRef<PyClassAd>>() {
            let src = o.ad.clone();
            self.ad_mut().update(&src);
            return Ok(());
        }
        let pairs = if let Ok(d) = other.cast::<PyDict>() {
            d.items().into_any()
        } else {
            other.clone()
        };
        for kv in pairs.try_iter()? {
            let (k, v): (String, Bound<'_, PyAny>) = kv?.extract()?;
            let e = from_py(&v)?;
            self.ad_mut().insert(Name::new(&k), e);
        }
        Ok(())
    }

    fn clear(&mut self) {
        self.ad_mut().clear();
    }

    /// Evaluate attribute `attr` in this ad (KeyError when it has none).
    #[pyo3(signature = (attr, target=None))]
    fn eval(
        &self,
        py: Python<'_>,
        attr: &str,
        target: Option<PyRef<PyClassAd>>,
    ) -> PyResult<Py<PyAny>> {
        self.expr_of(attr)?;
        let tg = target.map(|t| t.ad.clone());
        let v = eval_attr(&self.ad, tg.as_ref(), attr);
        to_py(py, &v)
    }

    /// The expression of attribute `attr`, unevaluated.
    fn lookup(&self, attr: &str) -> PyResult<PyExprTree> {
        let e = self.expr_of(attr)?;
        Ok(PyExprTree::new(e.clone(), Some(self.ad.clone())))
    }

    /// True when `other`'s Requirements hold with this ad as its TARGET.
    fn matches(&self, other: PyRef<PyClassAd>) -> bool {
        matching::matches(&self.ad, &other.ad)
    }

    /// True when both ads' Requirements hold against each other.
    #[pyo3(name = "symmetricMatch")]
    fn symmetric_match(&self, other: PyRef<PyClassAd>) -> bool {
        matching::symmetric_match(&self.ad, &other.ad)
    }

    /// The ad in old syntax, one `Name = expression` line per attribute.
    #[pyo3(name = "printOld")]
    fn print_old(&self) -> String {
        condorx_classad::unparse_ad_old(&self.ad)
    }

    /// Same as printOld (classad2 has both names).
    #[pyo3(name = "formatOld")]
    fn format_old(&self) -> String {
        condorx_classad::unparse_ad_old(&self.ad)
    }

    /// The ad as JSON, as `condor_q -json` prints it.
    #[pyo3(name = "printJson")]
    fn print_json(&self) -> String {
        condorx_classad::json::unparse_ad_json(&self.ad)
    }

    /// Same as printJson (classad2 has both names).
    #[pyo3(name = "formatJson")]
    fn format_json(&self) -> String {
        condorx_classad::json::unparse_ad_json(&self.ad)
    }

    /// References `expr` makes that this ad cannot resolve (`TARGET.x`, missing names).
    #[pyo3(name = "externalRefs")]
    fn external_refs(&self, expr: PyRef<PyExprTree>) -> Vec<String> {
        condorx_classad::check::references(expr.expr(), &self.ad).external
    }

    /// Attributes of this ad that `expr` reads, directly or through other attributes.
    #[pyo3(name = "internalRefs")]
    fn internal_refs(&self, expr: PyRef<PyExprTree>) -> Vec<String> {
        condorx_classad::check::references(expr.expr(), &self.ad).internal
    }

    /// Remove attribute `key` and return its value (or `default`; KeyError without one).
    #[pyo3(signature = (key, default=None))]
    fn pop(
        &mut self,
        py: Python<'_>,
        key: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        match self.ad.lookup(key).cloned() {
            Some(e) => {
                let v = self.item(py, &e)?;
                self.ad_mut().remove(key);
                Ok(v)
            }
            None => default.ok_or_else(|| PyKeyError::new_err(key.to_string())),
        }
    }

    /// Remove and return the last attribute as a (name, value) pair.
    fn popitem(&mut self, py: Python<'_>) -> PyResult<(String, Py<PyAny>)> {
        let Some((name, e)) = self
            .ad
            .own_iter()
            .last()
            .map(|(n, e)| (n.as_str().to_string(), e.clone()))
        else {
            return Err(PyKeyError::new_err("popitem(): ClassAd is empty"));
        };
        let v = self.item(py, &e)?;
        self.ad_mut().remove(&name);
        Ok((name, v))
    }

    fn __str__(&self) -> String {
        let mut s = String::from("[\n");
        let n = self.ad.len();
        for (i, (name, e)) in self.ad.iter().enumerate() {
            s.push_str("    ");
            write_name(&mut s, name.as_str());
            s.push_str(" = ");
            s.push_str(&unparse(e));
            s.push_str(if i + 1 < n { ";\n" } else { "\n" });
        }
        s.push(']');
        s
    }

    fn __repr__(&self) -> String {
        condorx_classad::unparse_ad(&self.ad)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<PyClassAd>>()
            .is_ok_and(|o| condorx_classad::compare::same_ad(&self.ad, &o.ad))
    }

    /// Pickle as the new-syntax text, which reads back to an equal ad.
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        let text = condorx_classad::unparse_ad(&slf.borrow().ad);
        Ok((slf.get_type().into_any().unbind(), (text,)))
    }

    /// A copy shares the ad until either side is written (copy on write).
    fn __copy__(&self) -> PyClassAd {
        PyClassAd {
            ad: self.ad.clone(),
        }
    }

    /// Chain this ad to `parent` (a job's cluster ad): the parent's attributes show through
    /// wherever this ad sets none. The chain holds the parent as it is now; a later change
    /// to the parent object is seen after chaining again.
    fn chain(&mut self, parent: PyRef<'_, PyClassAd>) {
        let parent = parent.ad.clone();
        self.ad_mut().set_parent(Some(parent));
    }

    /// Drop the chain: the ad keeps only the attributes it sets itself.
    fn unchain(&mut self) {
        self.ad_mut().set_parent(None);
    }

    /// The names this ad sets itself, not those it shows through its chain.
    fn own_keys(&self) -> Vec<String> {
        self.ad
            .own_iter()
            .map(|(n, _)| n.as_str().to_string())
            .collect()
    }

    /// A new unchained ad holding every attribute this one shows.
    fn flatten(&self) -> PyClassAd {
        PyClassAd {
            ad: Arc::new(self.ad.flattened()),
        }
    }

    fn copy(&self) -> PyClassAd {
        self.__copy__()
    }
}
