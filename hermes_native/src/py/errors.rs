//! Map core errors onto the Python hierarchy in `hermes.errors`.
//!
//! The classes live in Python (one hierarchy rooted at `HermesError`, with hints); here we only look
//! them up by name, so the two sides cannot drift apart silently: a missing class is a loud ImportError.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::Error;

fn class_name(e: &Error) -> &'static str {
    match e {
        Error::InvalidInput(_) => "InvalidInputError",
        Error::UnknownEncoding(_) => "UnknownEncodingError",
        Error::Query(_) => "QueryError",
        Error::IndexCorrupt(_) => "IndexCorruptError",
        Error::Index(_) => "SearchIndexError",
        Error::Io(_) => "HermesIOError",
    }
}

/// Convert a core error into the matching `hermes.errors` exception.
pub fn to_pyerr(py: Python<'_>, e: Error) -> PyErr {
    let name = class_name(&e);
    let message = e.to_string();
    let lookup = || -> PyResult<Bound<'_, PyType>> {
        let module = py.import("hermes.errors")?;
        Ok(module.getattr(name)?.cast_into::<PyType>()?)
    };
    match lookup() {
        Ok(cls) => PyErr::from_type(cls, message),
        Err(err) => PyRuntimeError::new_err(format!(
            "hermes.errors.{name} is missing ({err}); original error: {message}"
        )),
    }
}

/// `Result` conversion helper for bindings: `core_call().map_err(|e| errors::to_pyerr(py, e))?`.
pub trait IntoPyResult<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for crate::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_pyerr(py, e))
    }
}
