//! ExprTree: a parsed expression, optionally tied to the ad it came from.

use std::sync::Arc;

use condorx_classad::{compare::same_expr, eval_expr, parse_expr, unparse, ClassAd, Expr, Value};
use pyo3::prelude::*;

use crate::classad::PyClassAd;
use crate::convert::to_py;
use crate::errors::parse_error;

#[pyclass(name = "ExprTree", module = "condorx.classad", frozen)]
pub struct PyExprTree {
    expr: Arc<Expr>,
    /// The ad this expression was looked up in: its scope when evaluated without one.
    parent: Option<Arc<ClassAd>>,
}

impl PyExprTree {
    pub fn new(expr: Expr, parent: Option<Arc<ClassAd>>) -> PyExprTree {
        PyExprTree {
            expr: Arc::new(expr),
            parent,
        }
    }

    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// The value in `scope` (else the ad this came from) with `target` as TARGET.
    fn value_in(&self, scope: Option<PyRef<PyClassAd>>, target: Option<PyRef<PyClassAd>>) -> Value {
        let my = scope
            .map(|s| s.inner().clone())
            .or_else(|| self.parent.clone());
        let tg = target.map(|t| t.inner().clone());
        eval_expr(&self.expr, my.as_ref(), tg.as_ref())
    }
}

#[pymethods]
impl PyExprTree {
    #[new]
    fn py_new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<PyExprTree> {
        if let Ok(e) = text.extract::<PyRef<PyExprTree>>() {
            return Ok(PyExprTree {
                expr: e.expr.clone(),
                parent: e.parent.clone(),
            });
        }
        let s: String = text.extract()?;
        let expr = py
            .detach(|| parse_expr(&s))
            .map_err(|e| parse_error(py, &e, "expression"))?;
        Ok(PyExprTree::new(expr, None))
    }

    /// Evaluate: in `scope` (or the ad this expression came from), with `target` as TARGET.
    #[pyo3(signature = (scope=None, target=None))]
    fn eval(
        &self,
        py: Python<'_>,
        scope: Option<PyRef<PyClassAd>>,
        target: Option<PyRef<PyClassAd>>,
    ) -> PyResult<Py<PyAny>> {
        let my = scope
            .map(|s| s.inner().clone())
            .or_else(|| self.parent.clone());
        let tg = target.map(|t| t.inner().clone());
        let v = eval_expr(&self.expr, my.as_ref(), tg.as_ref());
        to_py(py, &v)
    }

    /// The value of this expression as a literal expression (classad2's `simplify`).
    #[pyo3(signature = (scope=None, target=None))]
    fn simplify(
        &self,
        scope: Option<PyRef<PyClassAd>>,
        target: Option<PyRef<PyClassAd>>,
    ) -> PyExprTree {
        PyExprTree::new(Expr::Lit(self.value_in(scope, target)), None)
    }

    /// Structural equality (attribute names compared without case).
    #[pyo3(name = "sameAs")]
    fn same_as(&self, other: PyRef<PyExprTree>) -> bool {
        same_expr(&self.expr, &other.expr)
    }

    /// Names of the functions this expression calls that are not built in (they evaluate
    /// to ERROR, as in HTCondor).
    fn unknown_functions(&self) -> Vec<String> {
        condorx_classad::check::unknown_functions(&self.expr)
    }

    /// Pickle as text (the ad it came from is not kept).
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (String,))> {
        let text = unparse(&slf.get().expr);
        Ok((slf.get_type().into_any().unbind(), (text,)))
    }

    fn __str__(&self) -> String {
        unparse(&self.expr)
    }

    fn __repr__(&self) -> String {
        format!("ExprTree({:?})", unparse(&self.expr))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<PyExprTree>>()
            .is_ok_and(|o| same_expr(&self.expr, &o.expr))
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        let v = eval_expr(&self.expr, self.parent.as_ref(), None);
        to_py(py, &v)?.bind(py).is_truthy()
    }
}
