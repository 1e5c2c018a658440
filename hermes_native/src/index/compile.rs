//! Turn a parsed query ([`super::query::Node`]) into a tantivy query for one searcher.
//!
//! A single-word prefix of up to four characters is one term of the `prefix` field (`prefix.rs`).
//! Longer prefixes, and the last word of a phrase prefix (`"docker comp"*`), are expanded here, against the searcher's term dictionaries: the matching terms of all
//! segments are counted by document frequency and the most frequent ones kept, so `a*` over a
//! million messages stays a small disjunction that BM25 ranks like any other. Two bounds apply: at
//! most [`MAX_PREFIX_TERMS`] terms per prefix (fewer when a query has many prefixes), and their
//! document frequencies may add up to a quarter of the index (at least [`MIN_PREFIX_POSTINGS`]):
//! `a*` becomes `and` alone on a large index, because a disjunction of several words that each
//! occur in a third of all messages costs milliseconds and ranks no better.

use std::collections::HashMap;

use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use super::prefix::is_indexed_prefix;
use super::query::{Atom, Node};
use super::schema::Fields;
use super::tantivy_error;
use crate::Result;

/// Most expansions of one prefix.
pub const MAX_PREFIX_TERMS: usize = 16;
/// The postings a prefix's expansions may add up to: a quarter of the index, but never less than
/// this (so small indexes expand fully).
const MIN_PREFIX_POSTINGS: u64 = 100_000;
/// Most expansions over all prefixes of a query.
const MAX_TOTAL_PREFIX_TERMS: usize = 256;
/// Fewest expansions a prefix keeps however many prefixes the query has.
const MIN_PREFIX_TERMS: usize = 4;
/// Most dictionary entries scanned per segment for one prefix.
const MAX_PREFIX_SCAN: usize = 200_000;

pub struct Compiler<'a> {
    searcher: &'a Searcher,
    field: Field,
    prefix_field: Field,
    prefix_cap: usize,
}

fn count_prefixes(node: &Node) -> usize {
    match node {
        Node::Atom(a) => usize::from(a.prefix),
        Node::And(c) | Node::Or(c) => c.iter().map(count_prefixes).sum(),
        Node::Not(x) => count_prefixes(x),
    }
}

/// The tantivy query for `node`; `None` when it can match nothing.
pub fn compile(
    node: &Node,
    searcher: &Searcher,
    fields: &Fields,
) -> Result<Option<Box<dyn Query>>> {
    let prefixes = count_prefixes(node).max(1);
    let prefix_cap = (MAX_TOTAL_PREFIX_TERMS / prefixes).clamp(MIN_PREFIX_TERMS, MAX_PREFIX_TERMS);
    let compiler = Compiler {
        searcher,
        field: fields.content,
        prefix_field: fields.prefix,
        prefix_cap,
    };
    compiler.node(node)
}

fn any_of(mut queries: Vec<Box<dyn Query>>) -> Option<Box<dyn Query>> {
    match queries.len() {
        0 => None,
        1 => queries.pop(),
        _ => Some(Box::new(BooleanQuery::new(
            queries.into_iter().map(|q| (Occur::Should, q)).collect(),
        ))),
    }
}

impl Compiler<'_> {
    fn node(&self, node: &Node) -> Result<Option<Box<dyn Query>>> {
        match node {
            Node::Atom(atom) => self.atom(atom),
            // A negation outside an AND group has nothing to subtract from.
            Node::Not(_) => Ok(None),
            Node::Or(children) => {
                let mut parts = Vec::with_capacity(children.len());
                for child in children {
                    parts.extend(self.node(child)?);
                }
                Ok(any_of(parts))
            }
            Node::And(children) => {
                let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(children.len());
                for child in children {
                    match child {
                        Node::Not(inner) => {
                            if let Some(q) = self.node(inner)? {
                                clauses.push((Occur::MustNot, q));
                            }
                        }
                        _ => match self.node(child)? {
                            Some(q) => clauses.push((Occur::Must, q)),
                            // A positive part that matches nothing empties the whole group.
                            None => return Ok(None),
                        },
                    }
                }
                if !clauses.iter().any(|(occur, _)| *occur == Occur::Must) {
                    return Ok(None);
                }
                if clauses.len() == 1 {
                    return Ok(clauses.pop().map(|(_, q)| q));
                }
                Ok(Some(Box::new(BooleanQuery::new(clauses))))
            }
        }
    }

    fn term(&self, text: &str) -> Term {
        Term::from_field_text(self.field, text)
    }

    fn phrase(&self, tokens: &[(usize, String)], last: Option<&str>) -> Box<dyn Query> {
        let mut terms: Vec<(usize, Term)> =
            tokens.iter().map(|(o, t)| (*o, self.term(t))).collect();
        if let (Some(last), Some(slot)) = (last, terms.last_mut()) {
            slot.1 = self.term(last);
        }
        if terms.len() == 1 {
            let (_, term) = terms.remove(0);
            return Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
        }
        Box::new(PhraseQuery::new_with_offset(terms))
    }

    fn atom(&self, atom: &Atom) -> Result<Option<Box<dyn Query>>> {
        let Some((_, last)) = atom.tokens.last() else {
            return Ok(None);
        };
        if !atom.prefix {
            return Ok(Some(self.phrase(&atom.tokens, None)));
        }
        if atom.tokens.len() == 1 && is_indexed_prefix(last) {
            let term = Term::from_field_text(self.prefix_field, last);
            return Ok(Some(Box::new(TermQuery::new(
                term,
                IndexRecordOption::WithFreqs,
            ))));
        }
        let expansions = self.expand(last)?;
        let parts = expansions
            .iter()
            .map(|e| self.phrase(&atom.tokens, Some(e)))
            .collect();
        Ok(any_of(parts))
    }

    /// The most frequent indexed terms starting with `prefix` (at most `prefix_cap`).
    fn expand(&self, prefix: &str) -> Result<Vec<String>> {
        let mut doc_freqs: HashMap<Vec<u8>, u64> = HashMap::new();
        for segment in self.searcher.segment_readers() {
            let inverted = segment.inverted_index(self.field).map_err(tantivy_error)?;
            let mut stream = inverted
                .terms()
                .range()
                .ge(prefix.as_bytes())
                .into_stream()
                .map_err(|e| tantivy_error(e.into()))?;
            let mut scanned = 0;
            while stream.advance() && scanned < MAX_PREFIX_SCAN {
                let key = stream.key();
                if !key.starts_with(prefix.as_bytes()) {
                    break;
                }
                *doc_freqs.entry(key.to_vec()).or_default() += u64::from(stream.value().doc_freq);
                scanned += 1;
            }
        }
        let mut ranked: Vec<(Vec<u8>, u64)> = doc_freqs.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        // Most frequent first, while the postings to score stay within budget (at least one term).
        let budget = (self.searcher.num_docs() / 4).max(MIN_PREFIX_POSTINGS);
        let mut total = 0u64;
        let keep = ranked
            .iter()
            .take(self.prefix_cap)
            .take_while(|(_, df)| {
                let first = total == 0;
                total += df;
                first || total <= budget
            })
            .count();
        ranked.truncate(keep);
        Ok(ranked
            .into_iter()
            .filter_map(|(k, _)| String::from_utf8(k).ok())
            .collect())
    }
}
