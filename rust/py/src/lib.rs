//! `condorx._core`: the Rust ClassAd engine as a Python extension. Registration only.

mod analyze;
mod api;
mod autoclusters;
mod bench;
mod cedar;
mod classad;
mod convert;
mod cron;
mod errors;
mod expr;
mod groups;
mod limits;
mod negotiation;
mod packed;
mod usermaps;
mod wire;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<classad::PyClassAd>()?;
    m.add_class::<expr::PyExprTree>()?;
    m.add_function(wrap_pyfunction!(convert::_register_sentinels, m)?)?;
    api::register(m)?;
    negotiation::register(m)?;
    analyze::register(m)?;
    cron::register(m)?;
    bench::register(m)?;
    cedar::register(m)?;
    packed::register(m)?;
    wire::register(m)?;
    autoclusters::register(m)?;
    usermaps::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
