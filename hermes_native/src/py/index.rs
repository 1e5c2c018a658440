//! Bindings for `crate::index`: the `SearchIndex` class.
//!
//! Frozen (no `&mut self`): the core handle is internally synchronised, so several Python threads may
//! share one object; every call that touches the index releases the GIL.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::errors::IntoPyResult;
use crate::index::tokenizer::{analyze, Mode};
use crate::index::{Doc, Filters, Hit};
use crate::Error;

type PyHit = (
    u64,
    String,
    String,
    String,
    f64,
    f32,
    String,
    Vec<(usize, usize)>,
);

/// A `str` argument as UTF-8, with a clear error for non-str values and lone surrogates.
fn text(value: &Bound<'_, PyAny>, what: impl Fn() -> String) -> Result<String, Error> {
    let s = value.cast::<PyString>().map_err(|_| {
        Error::InvalidInput(format!("{} must be str, got {}", what(), type_name(value)))
    })?;
    s.to_str().map(str::to_owned).map_err(|_| {
        Error::InvalidInput(format!(
            "{} is not valid Unicode text (it contains a lone surrogate); decode it with \
             errors=\"replace\" first",
            what()
        ))
    })
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn doc_from(i: usize, item: &Bound<'_, PyAny>) -> Result<Doc, Error> {
    let bad_shape = || {
        Error::InvalidInput(format!(
            "document {i} must be a tuple (rowid: int, session_id: str, role: str, source: str, \
             timestamp: float, content: str), got {}",
            type_name(item)
        ))
    };
    let tuple = item.cast::<PyTuple>().map_err(|_| bad_shape())?;
    if tuple.len() != 6 {
        return Err(bad_shape());
    }
    let get = |k: usize| tuple.get_item(k).map_err(|_| bad_shape());
    let rowid: u64 = get(0)?.extract().map_err(|_| {
        Error::InvalidInput(format!(
            "document {i}: rowid must be a non-negative int below 2**64"
        ))
    })?;
    let timestamp: f64 = get(4)?.extract().map_err(|_| {
        Error::InvalidInput(format!(
            "document {i}: timestamp must be a float (unix seconds)"
        ))
    })?;
    Ok(Doc {
        rowid,
        session_id: text(&get(1)?, || format!("document {i}: session_id"))?,
        role: text(&get(2)?, || format!("document {i}: role"))?,
        source: text(&get(3)?, || format!("document {i}: source"))?,
        timestamp,
        content: text(&get(5)?, || format!("document {i}: content"))?,
    })
}

fn optional_text(value: Option<&Bound<'_, PyAny>>, name: &str) -> Result<Option<String>, Error> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => text(v, || format!("`{name}`")).map(Some),
    }
}

fn count(value: i64, name: &str) -> Result<usize, Error> {
    usize::try_from(value)
        .map_err(|_| Error::InvalidInput(format!("`{name}` must be >= 0, got {value}")))
}

#[pyclass(frozen, module = "hermes._native")]
pub struct SearchIndex {
    inner: crate::index::SearchIndex,
}

#[pymethods]
impl SearchIndex {
    #[new]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let path = text(path, || "`path`".into()).py_err(py)?;
        let inner = py
            .detach(|| crate::index::SearchIndex::open(&path))
            .py_err(py)?;
        Ok(SearchIndex { inner })
    }

    fn add(&self, py: Python<'_>, docs: &Bound<'_, PyAny>) -> PyResult<()> {
        let docs: Vec<Doc> = docs
            .try_iter()
            .map_err(|_| {
                Error::InvalidInput(format!(
                    "`docs` must be a list of tuples, got {}",
                    type_name(docs)
                ))
            })
            .and_then(|items| {
                items
                    .enumerate()
                    .map(|(i, item)| {
                        let item = item.map_err(|e| {
                            Error::InvalidInput(format!("cannot read document {i}: {e}"))
                        })?;
                        doc_from(i, &item)
                    })
                    .collect()
            })
            .py_err(py)?;
        py.detach(|| self.inner.add(&docs)).py_err(py)
    }

    fn delete_session(&self, py: Python<'_>, session_id: &Bound<'_, PyAny>) -> PyResult<()> {
        let session_id = text(session_id, || "`session_id`".into()).py_err(py)?;
        py.detach(|| self.inner.delete_session(&session_id))
            .py_err(py)
    }

    fn commit(&self, py: Python<'_>, last_rowid: i64) -> PyResult<()> {
        let last = u64::try_from(last_rowid)
            .map_err(|_| {
                Error::InvalidInput(format!("`last_rowid` must be >= 0, got {last_rowid}"))
            })
            .py_err(py)?;
        py.detach(|| self.inner.commit(last)).py_err(py)
    }

    fn last_rowid(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| self.inner.last_rowid()).py_err(py)
    }

    fn num_docs(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| self.inner.num_docs()).py_err(py)
    }

    #[pyo3(signature = (query, limit=10, *, role=None, source=None, session_id=None, since=None, until=None, snippet_chars=160))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        limit: i64,
        role: Option<&Bound<'_, PyAny>>,
        source: Option<&Bound<'_, PyAny>>,
        session_id: Option<&Bound<'_, PyAny>>,
        since: Option<f64>,
        until: Option<f64>,
        snippet_chars: i64,
    ) -> PyResult<Vec<PyHit>> {
        let query = text(query, || "the search query".into()).py_err(py)?;
        let limit = count(limit, "limit").py_err(py)?;
        let snippet_chars = count(snippet_chars, "snippet_chars").py_err(py)?;
        let filters = (|| {
            Ok::<_, Error>(Filters {
                role: optional_text(role, "role")?,
                source: optional_text(source, "source")?,
                session_id: optional_text(session_id, "session_id")?,
                since,
                until,
            })
        })()
        .py_err(py)?;
        let hits = py
            .detach(|| self.inner.search(&query, limit, &filters, snippet_chars))
            .py_err(py)?;
        Ok(hits.into_iter().map(into_tuple).collect())
    }

    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.inner.close()).py_err(py)
    }
}

fn into_tuple(h: Hit) -> PyHit {
    (
        h.rowid,
        h.session_id,
        h.role,
        h.source,
        h.timestamp,
        h.score,
        h.snippet,
        h.highlights,
    )
}

/// The analyzer's tokens of `text` as (term, position, start, end) with code-point offsets: what the
/// index stores for a message (or, with `query=True`, what a query word searches for).
#[pyfunction]
#[pyo3(signature = (text, *, query=false))]
fn analyze_text(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    query: bool,
) -> PyResult<Vec<(String, usize, usize, usize)>> {
    let text = self::text(text, || "`text`".into()).py_err(py)?;
    let mode = if query { Mode::Query } else { Mode::Index };
    let tokens = py.detach(|| analyze(&text, mode));
    Ok(tokens
        .into_iter()
        .map(|t| (t.text, t.position, t.chars.0, t.chars.1))
        .collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SearchIndex>()?;
    m.add_function(wrap_pyfunction!(analyze_text, m)?)
}
