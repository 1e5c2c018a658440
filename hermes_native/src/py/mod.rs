//! The PyO3 layer: `hermes._native`. Thin by design: convert plain Python data in and out, release the
//! GIL around the hot loops, map [`crate::Error`] onto `hermes.errors`. No logic lives here.

use pyo3::prelude::*;

mod digest;
mod errors;
mod index;
mod scan;
mod tokens;

#[pymodule]
#[pyo3(name = "_native")]
fn hermes_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    tokens::register(m)?;
    scan::register(m)?;
    digest::register(m)?;
    index::register(m)?;
    Ok(())
}
