//! Bindings for `crate::digest`: plain tuples in and out, the GIL released while digesting.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use super::errors::IntoPyResult;
use crate::digest::{digest as build_digest, Message};
use crate::tokens::Encoding;

type DigestTuple = (String, usize, usize, usize, usize, usize);

#[pyfunction]
#[pyo3(signature = (messages, budget, encoding, recent_share = 0.5))]
fn digest(
    py: Python<'_>,
    messages: Vec<(PyBackedStr, PyBackedStr, Vec<PyBackedStr>)>,
    budget: u64,
    encoding: &str,
    recent_share: f64,
) -> PyResult<DigestTuple> {
    let enc = Encoding::from_name(encoding).py_err(py)?;
    let budget = usize::try_from(budget).unwrap_or(usize::MAX);
    let result = py.detach(|| {
        let messages: Vec<Message<'_>> = messages
            .iter()
            .map(|(role, content, tools)| Message {
                role,
                content,
                tool_names: tools.iter().map(|t| &**t).collect(),
            })
            .collect();
        build_digest(&messages, budget, enc, recent_share)
    });
    let d = result.py_err(py)?;
    Ok((
        d.text,
        d.keep_from,
        d.total_tokens,
        d.digest_tokens,
        d.condensed_turns,
        d.omitted_turns,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(digest, m)?)?;
    Ok(())
}
