//! The full-text index of messages (tantivy), behind one thread-safe handle: [`SearchIndex`].
//!
//! * [`tokenizer`]: the CJK-aware analyzer shared by indexing, queries and snippets.
//! * [`query`]: the query language (parsed to an AST); [`compile`]: AST → tantivy query.
//! * [`snippet`]: snippet windows and highlight spans.
//! * [`schema`]: fields and settings; [`prefix`]: the indexed short prefixes of every word;
//!   [`store`]: opening, locking, committing (the lifecycle).
//!
//! The index is derived data: state.db is the source of truth, and the last indexed rowid travels in
//! the tantivy commit payload so the Python layer knows where to resume. Nothing here deletes files
//! of an unreadable index; that is reported as [`Error::IndexCorrupt`] and left to the caller.

pub mod compile;
pub mod prefix;
pub mod query;
pub mod schema;
pub mod snippet;
mod store;
mod stored;
pub mod tokenizer;

use std::ops::Bound;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{TantivyError, Term};

use crate::{Error, Result};
pub use store::SearchIndex;

/// One message to index.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    pub rowid: u64,
    pub session_id: String,
    pub role: String,
    pub source: String,
    /// Unix seconds.
    pub timestamp: f64,
    pub content: String,
}

/// Restrictions on a search; `None` means "any". Time bounds are inclusive unix seconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    pub role: Option<String>,
    pub source: Option<String>,
    pub session_id: Option<String>,
    pub since: Option<f64>,
    pub until: Option<f64>,
}

/// One search result.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub rowid: u64,
    pub session_id: String,
    pub role: String,
    pub source: String,
    pub timestamp: f64,
    pub score: f32,
    pub snippet: String,
    /// Code-point spans inside `snippet`.
    pub highlights: Vec<(usize, usize)>,
}

/// Map a tantivy error: unreadable data is corruption, anything else a plain index failure.
pub(crate) fn tantivy_error(e: TantivyError) -> Error {
    match e {
        TantivyError::DataCorruption(_)
        | TantivyError::OpenReadError(_)
        | TantivyError::SchemaError(_)
        | TantivyError::FieldNotFound(_) => Error::IndexCorrupt(format!(
            "the search index is unreadable ({e}); it is derived data: rebuild it from state.db \
             (`hermes sessions reindex`)"
        )),
        other => Error::Index(format!("search index failure: {other}")),
    }
}

fn check_time(name: &str, value: Option<f64>) -> Result<()> {
    match value {
        Some(v) if !v.is_finite() => Err(Error::InvalidInput(format!(
            "`{name}` must be a finite unix timestamp in seconds, got {v}"
        ))),
        _ => Ok(()),
    }
}

impl Filters {
    fn validate(&self) -> Result<()> {
        check_time("since", self.since)?;
        check_time("until", self.until)
    }

    /// Filter clauses (score 0, so they never change the ranking).
    fn clauses(&self, fields: &schema::Fields) -> Vec<(Occur, Box<dyn Query>)> {
        let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut exact = |field, value: &Option<String>| {
            if let Some(v) = value {
                let term =
                    TermQuery::new(Term::from_field_text(field, v), IndexRecordOption::Basic);
                out.push((
                    Occur::Must,
                    Box::new(ConstScoreQuery::new(Box::new(term), 0.0)),
                ));
            }
        };
        exact(fields.role, &self.role);
        exact(fields.source, &self.source);
        exact(fields.session_id, &self.session_id);
        if self.since.is_some() || self.until.is_some() {
            let bound = |v: Option<f64>| match v {
                Some(v) => Bound::Included(Term::from_field_f64(fields.timestamp, v)),
                None => Bound::Unbounded,
            };
            let range = RangeQuery::new(bound(self.since), bound(self.until));
            out.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(range), 0.0)),
            ));
        }
        out
    }
}

/// Run a parsed query on one searcher: top `limit` hits with snippets.
pub(crate) fn run_search(
    searcher: &tantivy::Searcher,
    fields: &schema::Fields,
    node: &query::Node,
    limit: usize,
    filters: &Filters,
    snippet_chars: usize,
) -> Result<Vec<Hit>> {
    let Some(main) = compile::compile(node, searcher, fields)? else {
        return Ok(Vec::new());
    };
    let mut clauses = filters.clauses(fields);
    let query: Box<dyn Query> = if clauses.is_empty() {
        main
    } else {
        clauses.insert(0, (Occur::Must, main));
        Box::new(BooleanQuery::new(clauses))
    };
    let limit = limit.min(usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX));
    if limit == 0 {
        return Ok(Vec::new());
    }
    let top = searcher
        .search(query.as_ref(), &TopDocs::with_limit(limit).order_by_score())
        .map_err(tantivy_error)?;
    let matcher = snippet::Matcher::new(node);
    let mut hits = Vec::with_capacity(top.len());
    for (score, address) in top {
        let doc: stored::Stored = searcher.doc(address).map_err(tantivy_error)?;
        let snip = snippet::make_snippet(&doc.content, &matcher, snippet_chars);
        hits.push(Hit {
            rowid: doc.rowid,
            session_id: doc.session_id,
            role: doc.role,
            source: doc.source,
            timestamp: doc.timestamp,
            score,
            snippet: snip.text,
            highlights: snip.highlights,
        });
    }
    Ok(hits)
}
