//! Bindings for `crate::tokens`: names in, plain ints and bytes out, the GIL released around every
//! count (texts are borrowed from the immutable Python strings, not copied).

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyDict};

use super::errors::IntoPyResult;
use crate::tokens::{self, Encoding};

fn encoding(py: Python<'_>, name: &str) -> PyResult<Encoding> {
    Encoding::from_name(name).py_err(py)
}

#[pyfunction]
fn encodings() -> Vec<&'static str> {
    tokens::encodings()
}

#[pyfunction]
fn count_tokens(py: Python<'_>, text: &str, encoding: &str) -> PyResult<usize> {
    let enc = self::encoding(py, encoding)?;
    Ok(py.detach(|| tokens::count(text, enc)))
}

#[pyfunction]
fn count_tokens_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding: &str,
) -> PyResult<Vec<usize>> {
    let enc = self::encoding(py, encoding)?;
    Ok(py.detach(|| tokens::count_batch(&texts, enc)))
}

#[pyfunction]
fn encode(py: Python<'_>, text: &str, encoding: &str) -> PyResult<Vec<u32>> {
    let enc = self::encoding(py, encoding)?;
    Ok(py.detach(|| tokens::encode(text, enc)))
}

#[pyfunction]
fn decode_bytes<'py>(
    py: Python<'py>,
    tokens: Vec<i64>,
    encoding: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let enc = self::encoding(py, encoding)?;
    let ids = tokens
        .iter()
        .enumerate()
        .map(|(i, &t)| u32::try_from(t).map_err(|_| tokens::invalid_token(i, t, enc)))
        .collect::<crate::Result<Vec<u32>>>()
        .py_err(py)?;
    let bytes = py.detach(|| tokens::decode_bytes(&ids, enc)).py_err(py)?;
    Ok(PyBytes::new(py, &bytes))
}

#[pyfunction]
fn count_chat_tokens(
    py: Python<'_>,
    messages: Vec<Bound<'_, PyDict>>,
    encoding: &str,
) -> PyResult<usize> {
    let enc = self::encoding(py, encoding)?;
    let messages = messages
        .iter()
        .map(|m| {
            m.iter()
                .map(|(k, v)| Ok((k.extract::<PyBackedStr>()?, v.extract::<PyBackedStr>()?)))
                .collect()
        })
        .collect::<PyResult<Vec<Vec<_>>>>()?;
    Ok(py.detach(|| tokens::count_chat(&messages, enc)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encodings, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(count_tokens_batch, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(decode_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(count_chat_tokens, m)?)?;
    Ok(())
}
