//! The lifecycle of an on-disk index: open or create, the lazy writer and its lock, commits with the
//! last-rowid payload, reader reloads, close.
//!
//! * Opening never takes the writer lock, so a reader (the CLI) works while another process (the
//!   gateway) indexes. The writer is created on the first `add`/`delete_session`/`commit`; if another
//!   process holds it, that call fails with [`Error::Index`] naming the lock.
//! * A folder without `meta.json` is a new index (created if missing). A `meta.json` that cannot be
//!   parsed, a schema that is not ours, or segment files that cannot be opened raise
//!   [`Error::IndexCorrupt`]; nothing is deleted here.
//! * `add` is idempotent per rowid: a document whose rowid may already be indexed (not above the
//!   highest rowid seen) replaces the old one (delete-by-term before add). Appending new rowids, the
//!   common case, costs no delete.
//! * Changes become visible (and durable) at `commit`, which also stores the caller's last indexed
//!   rowid in the commit payload and reloads the reader. `close` drops uncommitted changes, waits for
//!   background merges and releases the lock.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, RwLock};

use tantivy::directory::error::LockError;
use tantivy::indexer::{IndexWriterOptions, LogMergePolicy};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, TantivyError, Term};

use super::prefix::PrefixTokenizer;
use super::query::parse;
use super::schema::{
    build_schema, index_settings, indexed_prefix, Fields, PREFIX_TOKENIZER, TOKENIZER,
};
use super::tokenizer::HermesTokenizer;
use super::{run_search, tantivy_error, Doc, Filters, Hit};
use crate::{Error, Result};

/// Total indexing memory of the writer (split between its threads).
const WRITER_MEMORY_BYTES: usize = 96 * 1024 * 1024;
/// Most indexing threads.
const MAX_WRITER_THREADS: usize = 4;
/// Merge as soon as this many segments of a size class exist (tantivy's default is 8).
const MERGE_MIN_SEGMENTS: usize = 4;

struct Writer {
    writer: IndexWriter,
    /// Highest rowid that may be in the index (committed or not); `None` for an empty index.
    max_rowid: Option<u64>,
}

struct Open {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    writer: Mutex<Option<Writer>>,
}

/// A handle on one on-disk index; safe to share between threads.
pub struct SearchIndex {
    path: PathBuf,
    state: RwLock<Option<Open>>,
}

fn corrupt(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::IndexCorrupt(format!(
        "the search index at {} is unreadable ({why}); it is derived data: rebuild it from state.db \
         (`hermes sessions reindex`)",
        path.display()
    ))
}

fn lock_poisoned() -> Error {
    Error::Index(
        "the search index handle is unusable after a crash in another thread; reopen it".into(),
    )
}

/// Whether `dir` holds anything but tantivy's lock files.
fn has_stray_files(dir: &Path) -> Result<bool> {
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(".tantivy-") {
            return Ok(true);
        }
    }
    Ok(false)
}

fn open_or_create(path: &Path) -> Result<Index> {
    std::fs::create_dir_all(path).map_err(|e| {
        Error::Io(format!(
            "cannot create the search index folder {}: {e}",
            path.display()
        ))
    })?;
    if !path.join("meta.json").exists() {
        if has_stray_files(path)? {
            return Err(corrupt(path, "files without meta.json"));
        }
        match Index::builder()
            .schema(build_schema())
            .settings(index_settings())
            .create_in_dir(path)
        {
            Ok(index) => return Ok(index),
            // Another process created it first: open theirs.
            Err(TantivyError::IndexAlreadyExists) => {}
            Err(e) => return Err(tantivy_error(e)),
        }
    }
    let index = Index::open_in_dir(path).map_err(|e| corrupt(path, e))?;
    if index.schema() != build_schema() {
        return Err(corrupt(path, "it was built with a different schema"));
    }
    Ok(index)
}

impl SearchIndex {
    /// Open the index at `path`, creating it (and the folder) if there is none.
    pub fn open(path: impl AsRef<Path>) -> Result<SearchIndex> {
        let path = path.as_ref().to_path_buf();
        let index = open_or_create(&path)?;
        let tokenizers = index.tokenizers();
        tokenizers.register(TOKENIZER, TextAnalyzer::from(HermesTokenizer));
        tokenizers.register(PREFIX_TOKENIZER, TextAnalyzer::from(PrefixTokenizer));
        let fields =
            Fields::from_schema(&index.schema()).ok_or_else(|| corrupt(&path, "missing fields"))?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()
            .map_err(|e| corrupt(&path, e))?;
        let open = Open {
            index,
            reader,
            fields,
            writer: Mutex::new(None),
        };
        Ok(SearchIndex {
            path,
            state: RwLock::new(Some(open)),
        })
    }

    fn with_open<T>(&self, f: impl FnOnce(&Open) -> Result<T>) -> Result<T> {
        let guard = self.state.read().map_err(|_| lock_poisoned())?;
        match guard.as_ref() {
            Some(open) => f(open),
            None => Err(Error::Index(format!(
                "the search index at {} is closed; open a new SearchIndex to use it",
                self.path.display()
            ))),
        }
    }

    fn with_writer<T>(&self, f: impl FnOnce(&Open, &mut Writer) -> Result<T>) -> Result<T> {
        self.with_open(|open| {
            let mut slot: MutexGuard<'_, Option<Writer>> =
                open.writer.lock().map_err(|_| lock_poisoned())?;
            if slot.is_none() {
                *slot = Some(self.new_writer(open)?);
            }
            match slot.as_mut() {
                Some(writer) => f(open, writer),
                None => Err(lock_poisoned()),
            }
        })
    }

    fn new_writer(&self, open: &Open) -> Result<Writer> {
        // One indexing thread per core (at most 4): a bulk reindex may use the whole machine, and an
        // idle writer costs nothing. Merges run on one more thread.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_WRITER_THREADS);
        let options = IndexWriterOptions::builder()
            .num_worker_threads(threads)
            .memory_budget_per_thread(WRITER_MEMORY_BYTES / threads)
            .num_merge_threads(1)
            .build();
        let writer = open.index.writer_with_options(options).map_err(|e| match e {
            TantivyError::LockFailure(LockError::LockBusy, _) => Error::Index(format!(
                "the search index at {} is locked by another Hermes process that is indexing (e.g. the \
                 gateway); searching still works, but only one process may write: stop the other \
                 process or let it do the indexing",
                self.path.display()
            )),
            other => tantivy_error(other),
        })?;
        let mut policy = LogMergePolicy::default();
        policy.set_min_num_segments(MERGE_MIN_SEGMENTS);
        writer.set_merge_policy(Box::new(policy));
        // Another process may have committed since our reader last looked: the writer lock is ours
        // now, so this view is final until we commit.
        open.reader.reload().map_err(tantivy_error)?;
        let searcher = open.reader.searcher();
        let mut max_rowid = None;
        for segment in searcher.segment_readers() {
            let column = segment.fast_fields().u64("rowid").map_err(tantivy_error)?;
            if segment.max_doc() > 0 {
                max_rowid = max_rowid.max(Some(column.max_value()));
            }
        }
        Ok(Writer { writer, max_rowid })
    }

    /// Queue `docs` for indexing (visible after the next [`SearchIndex::commit`]). Validates the whole
    /// batch first: a bad document adds nothing.
    pub fn add(&self, docs: &[Doc]) -> Result<()> {
        for (i, doc) in docs.iter().enumerate() {
            if !doc.timestamp.is_finite() {
                return Err(Error::InvalidInput(format!(
                    "document {i} (rowid {}) has timestamp {}; use finite unix seconds",
                    doc.rowid, doc.timestamp
                )));
            }
        }
        self.with_writer(|open, w| {
            let f = open.fields;
            for doc in docs {
                if w.max_rowid.is_some_and(|max| doc.rowid <= max) {
                    w.writer
                        .delete_term(Term::from_field_u64(f.rowid, doc.rowid));
                }
                w.max_rowid = w.max_rowid.max(Some(doc.rowid));
                let mut d = TantivyDocument::new();
                d.add_u64(f.rowid, doc.rowid);
                d.add_text(f.session_id, &doc.session_id);
                d.add_text(f.role, &doc.role);
                d.add_text(f.source, &doc.source);
                d.add_f64(f.timestamp, doc.timestamp);
                let text = indexed_prefix(&doc.content);
                d.add_text(f.content, text);
                d.add_text(f.prefix, text);
                w.writer.add_document(d).map_err(tantivy_error)?;
            }
            Ok(())
        })
    }

    /// Queue the removal of every message of `session_id` (applied at the next commit).
    pub fn delete_session(&self, session_id: &str) -> Result<()> {
        self.with_writer(|open, w| {
            w.writer
                .delete_term(Term::from_field_text(open.fields.session_id, session_id));
            Ok(())
        })
    }

    /// Make queued changes durable and visible, recording `last_rowid` in the commit payload.
    pub fn commit(&self, last_rowid: u64) -> Result<()> {
        self.with_writer(|open, w| {
            let mut prepared = w.writer.prepare_commit().map_err(tantivy_error)?;
            prepared.set_payload(&serde_json::json!({ "last_rowid": last_rowid }).to_string());
            prepared.commit().map_err(tantivy_error)?;
            open.reader.reload().map_err(tantivy_error)
        })
    }

    /// The rowid stored by the latest commit (of any process); 0 for a new index.
    pub fn last_rowid(&self) -> Result<u64> {
        self.with_open(|open| {
            let metas = open
                .index
                .load_metas()
                .map_err(|e| corrupt(&self.path, e))?;
            let Some(payload) = metas.payload else {
                return Ok(0);
            };
            serde_json::from_str::<serde_json::Value>(&payload)
                .ok()
                .and_then(|v| v.get("last_rowid")?.as_u64())
                .ok_or_else(|| {
                    corrupt(&self.path, format!("unexpected commit payload {payload:?}"))
                })
        })
    }

    /// Number of searchable (committed, not deleted) messages.
    pub fn num_docs(&self) -> Result<u64> {
        self.with_open(|open| Ok(open.reader.searcher().num_docs()))
    }

    /// Search; see `query.rs` for the language. An empty or word-less query gives no hits.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        filters: &Filters,
        snippet_chars: usize,
    ) -> Result<Vec<Hit>> {
        filters.validate()?;
        let Some(node) = parse(query)? else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.with_open(|open| {
            let searcher = open.reader.searcher();
            run_search(
                &searcher,
                &open.fields,
                &node,
                limit,
                filters,
                snippet_chars,
            )
        })
    }

    /// Release the writer lock and the files; uncommitted changes are dropped. Idempotent.
    pub fn close(&self) -> Result<()> {
        let open = self.state.write().map_err(|_| lock_poisoned())?.take();
        if let Some(open) = open {
            let writer = open.writer.into_inner().map_err(|_| lock_poisoned())?;
            if let Some(w) = writer {
                w.writer.wait_merging_threads().map_err(tantivy_error)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path =
                std::env::temp_dir().join(format!("hermes-index-test-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn doc(rowid: u64, session: &str, content: &str) -> Doc {
        Doc {
            rowid,
            session_id: session.into(),
            role: "user".into(),
            source: "cli".into(),
            timestamp: rowid as f64,
            content: content.into(),
        }
    }

    fn rowids(ix: &SearchIndex, query: &str) -> Vec<u64> {
        let mut ids: Vec<u64> = ix
            .search(query, 100, &Filters::default(), 0)
            .unwrap()
            .into_iter()
            .map(|h| h.rowid)
            .collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn add_commit_search_reopen() {
        let dir = TempDir::new();
        let ix = SearchIndex::open(&dir.0).unwrap();
        assert_eq!(ix.last_rowid().unwrap(), 0);
        ix.add(&[
            doc(1, "a", "hello world"),
            doc(2, "a", "hello 函数"),
            doc(3, "b", "bye"),
        ])
        .unwrap();
        ix.commit(3).unwrap();
        assert_eq!(rowids(&ix, "hello"), vec![1, 2]);
        assert_eq!(rowids(&ix, "函数"), vec![2]);
        ix.close().unwrap();
        let ix = SearchIndex::open(&dir.0).unwrap();
        assert_eq!(ix.last_rowid().unwrap(), 3);
        assert_eq!(ix.num_docs().unwrap(), 3);
    }

    #[test]
    fn re_adding_replaces_and_delete_session_applies_at_commit() {
        let dir = TempDir::new();
        let ix = SearchIndex::open(&dir.0).unwrap();
        ix.add(&[doc(1, "a", "old text"), doc(2, "b", "other")])
            .unwrap();
        ix.commit(2).unwrap();
        ix.add(&[doc(1, "a", "new text")]).unwrap();
        ix.delete_session("b").unwrap();
        assert_eq!(ix.num_docs().unwrap(), 2);
        ix.commit(2).unwrap();
        assert_eq!(ix.num_docs().unwrap(), 1);
        assert_eq!(rowids(&ix, "new"), vec![1]);
        assert!(rowids(&ix, "old").is_empty());
    }

    #[test]
    fn a_second_writer_is_refused_while_readers_work() {
        let dir = TempDir::new();
        let first = SearchIndex::open(&dir.0).unwrap();
        first.add(&[doc(1, "a", "text")]).unwrap();
        first.commit(1).unwrap();
        let second = SearchIndex::open(&dir.0).unwrap();
        assert_eq!(rowids(&second, "text"), vec![1]);
        match second.add(&[doc(2, "a", "more")]) {
            Err(Error::Index(m)) => assert!(m.contains("locked by another Hermes process"), "{m}"),
            other => panic!("expected a lock error, got {other:?}"),
        }
        first.close().unwrap();
        second.add(&[doc(2, "a", "more")]).unwrap();
    }

    #[test]
    fn garbage_meta_json_is_corruption() {
        let dir = TempDir::new();
        SearchIndex::open(&dir.0).unwrap().close().unwrap();
        std::fs::write(dir.0.join("meta.json"), b"{garbage").unwrap();
        assert!(matches!(
            SearchIndex::open(&dir.0),
            Err(Error::IndexCorrupt(_))
        ));
    }

    #[test]
    fn closed_handles_refuse_work() {
        let dir = TempDir::new();
        let ix = SearchIndex::open(&dir.0).unwrap();
        ix.close().unwrap();
        assert!(matches!(ix.num_docs(), Err(Error::Index(m)) if m.contains("closed")));
    }
}
