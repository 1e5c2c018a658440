//! Bindings for `crate::scan`: strings in (borrowed, not copied), plain tuples out, the GIL released
//! while scanning.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyString;

use super::errors::{to_pyerr, IntoPyResult};
use crate::scan::{self as core, ScanResult};
use crate::Error;

type PyFinding = (&'static str, &'static str, usize, usize, String);

fn to_tuple(result: ScanResult) -> (&'static str, Vec<PyFinding>) {
    let findings = result
        .findings
        .into_iter()
        .map(|f| (f.category, f.rule_id, f.start, f.end, f.excerpt))
        .collect();
    (result.verdict.as_str(), findings)
}

/// Borrow a Python `str`; a str that is not valid Unicode (lone surrogates) gets a clear error.
fn text_arg(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<PyBackedStr> {
    match obj.extract::<PyBackedStr>() {
        Ok(s) => Ok(s),
        Err(_) if obj.is_instance_of::<PyString>() => Err(to_pyerr(
            py,
            Error::InvalidInput(format!(
                "{what} contains lone surrogates (not valid Unicode); \
                 use hermes.security.scan, which replaces and reports them"
            )),
        )),
        Err(_) => Err(to_pyerr(
            py,
            Error::InvalidInput(format!(
                "{what} must be str, not {}",
                obj.get_type().name()?
            )),
        )),
    }
}

#[pyfunction]
fn scan(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<(&'static str, Vec<PyFinding>)> {
    let text = text_arg(py, text, "text")?;
    let result = py.detach(|| core::scan(&text)).py_err(py)?;
    Ok(to_tuple(result))
}

#[pyfunction]
fn scan_batch(
    py: Python<'_>,
    texts: Vec<Bound<'_, PyAny>>,
) -> PyResult<Vec<(&'static str, Vec<PyFinding>)>> {
    let texts = texts
        .iter()
        .enumerate()
        .map(|(i, t)| text_arg(py, t, &format!("texts[{i}]")))
        .collect::<PyResult<Vec<_>>>()?;
    let results = py.detach(|| core::scan_batch(&texts)).py_err(py)?;
    Ok(results.into_iter().map(to_tuple).collect())
}

#[pyfunction]
fn scan_rules(py: Python<'_>) -> PyResult<Vec<(String, String, &'static str, String)>> {
    let rules = core::rules().py_err(py)?;
    Ok(rules
        .into_iter()
        .map(|r| (r.id, r.category, r.severity.as_str(), r.description))
        .collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(scan_batch, m)?)?;
    m.add_function(wrap_pyfunction!(scan_rules, m)?)?;
    Ok(())
}
