//! The extension's exceptions, and the one conversion from core errors to Python ones.

use condorx_classad::SyntaxError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _core,
    CondorxError,
    PyException,
    "Base class of condorx's own exceptions."
);
create_exception!(
    _core,
    ClassAdParseError,
    PyValueError,
    "ClassAd text that does not parse; carries .line, .column, .attribute and .offset."
);

create_exception!(
    _core,
    CronError,
    PyValueError,
    "A CronTab field that is malformed or out of range; carries .attribute (CronHour, ...)."
);

create_exception!(
    _core,
    AdReadError,
    PyValueError,
    "Ads from a peer that break the wire's rules; carries .ad (its index, or None for the \
     body), .attribute (or None) and .reason."
);

/// A refused ad as an `AdReadError` saying which ad and attribute, and why.
pub fn ad_read_error(py: Python<'_>, e: &condorx_packed::ReadError) -> PyErr {
    let err = AdReadError::new_err(e.to_string());
    let value = err.value(py);
    // As above: the message says where even if the attributes cannot be set.
    let _ = value.setattr("ad", e.ad);
    let _ = value.setattr("attribute", e.attribute.clone());
    let _ = value.setattr("reason", e.reason.clone());
    err
}

/// A CronTab error as a `CronError` naming its field.
pub fn cron_error(py: Python<'_>, e: &condorx_cron::CronError) -> PyErr {
    let err = CronError::new_err(e.to_string());
    // As above: the message names the field even if the attribute cannot be set.
    let _ = err.value(py).setattr("attribute", e.attribute());
    err
}

/// A syntax error as a `ClassAdParseError` carrying where it happened.
pub fn parse_error(py: Python<'_>, e: &SyntaxError, what: &str) -> PyErr {
    let msg = format!("cannot parse {what}: {e}");
    let err = ClassAdParseError::new_err(msg);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it does,
    // the message still says where.
    let _ = value.setattr("line", e.line);
    let _ = value.setattr("column", e.column);
    let _ = value.setattr("offset", e.offset);
    let _ = value.setattr("attribute", e.attribute.clone());
    err
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CondorxError", m.py().get_type::<CondorxError>())?;
    m.add("ClassAdParseError", m.py().get_type::<ClassAdParseError>())?;
    m.add("CronError", m.py().get_type::<CronError>())?;
    m.add("AdReadError", m.py().get_type::<AdReadError>())?;
    Ok(())
}
