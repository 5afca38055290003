//! A batch of ads as one msgpack body (an array of wire maps), read straight into
//! ClassAds and written straight from them: no Python object is made for an attribute,
//! a value or an expression's text. The collector takes its slot ads this way,
//! thousands to an update, and answers a query for whole ads so.
//!
//! The reading and writing are `condorx-packed`'s (tested and fuzzed there); here they
//! meet Python. A body that is not plain raises `AdReadError`, naming the ad and the
//! attribute.

use std::sync::Arc;

use condorx_packed::{read_ads, write_ads, write_ads_projected};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::classad::PyClassAd;
use crate::errors::ad_read_error;

/// The ads of one msgpack body (an array of wire maps), each with `stamp`'s attributes
/// set over its own (the collector's LastHeardFrom, say); `AdReadError` where the body
/// is not plain (see the module's comment).
#[pyfunction]
#[pyo3(signature = (body, stamp=None))]
fn ads_from_msgpack(
    py: Python<'_>,
    body: &[u8],
    stamp: Option<PyRef<'_, PyClassAd>>,
) -> PyResult<Vec<PyClassAd>> {
    let extra = stamp.as_ref().map_or(0, |s| s.inner().len());
    let ads = read_ads(body, extra).map_err(|e| ad_read_error(py, &e))?;
    Ok(ads
        .into_iter()
        .map(|mut ad| {
            if let Some(stamp) = &stamp {
                ad.update(stamp.inner());
            }
            PyClassAd::from_arc(Arc::new(ad))
        })
        .collect())
}

/// The ads as one msgpack body, for `ads_from_msgpack` (or `condorx.transport.wire.unpack`);
/// with `projection`, only the attributes it names.
#[pyfunction]
#[pyo3(signature = (ads, projection=None))]
fn ads_to_msgpack<'py>(
    py: Python<'py>,
    ads: Vec<PyRef<'py, PyClassAd>>,
    projection: Option<Vec<String>>,
) -> Bound<'py, PyBytes> {
    let each = ads.iter().map(|ad| ad.inner().as_ref());
    let out = match projection {
        Some(names) => write_ads_projected(each, &names),
        None => write_ads(each),
    };
    PyBytes::new(py, &out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ads_from_msgpack, m)?)?;
    m.add_function(wrap_pyfunction!(ads_to_msgpack, m)?)?;
    Ok(())
}
