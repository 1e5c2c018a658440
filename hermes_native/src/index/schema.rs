//! The index schema: one tantivy document per message.
//!
//! | field        | type | how                                               | why                        |
//! |--------------|------|---------------------------------------------------|----------------------------|
//! | `rowid`      | u64  | indexed, fast, stored                             | idempotent re-add, results |
//! | `session_id` | str  | raw term, stored                                  | filter, delete by session  |
//! | `role`       | str  | raw term, stored                                  | filter                     |
//! | `source`     | str  | raw term, stored                                  | filter                     |
//! | `timestamp`  | f64  | indexed, fast, stored                             | since/until range filter   |
//! | `content`    | text | Hermes analyzer, freqs + positions, stored        | BM25, phrases, snippets    |
//! | `prefix`     | text | first 1–4 characters of each word, freqs          | fast `conf*` (`prefix.rs`) |
//!
//! Only the first [`MAX_INDEXED_BYTES`] of a message are indexed and stored: state.db keeps the whole
//! message, and a bounded document keeps indexing, doc-store reads and snippets fast for multi-megabyte
//! tool outputs.

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, STORED,
    STRING,
};
use tantivy::store::Compressor;
use tantivy::IndexSettings;

/// Name under which [`super::tokenizer::HermesTokenizer`] is registered.
pub const TOKENIZER: &str = "hermes";
/// Name under which [`super::prefix::PrefixTokenizer`] is registered.
pub const PREFIX_TOKENIZER: &str = "hermes_prefix";

/// Bytes of each message that are indexed and stored (cut back to a character boundary).
pub const MAX_INDEXED_BYTES: usize = 1 << 20;

/// Field ids, in the order [`build_schema`] adds the fields (read back by `stored.rs`).
pub mod field_id {
    pub const ROWID: u32 = 0;
    pub const SESSION_ID: u32 = 1;
    pub const ROLE: u32 = 2;
    pub const SOURCE: u32 = 3;
    pub const TIMESTAMP: u32 = 4;
    pub const CONTENT: u32 = 5;
}

/// Handles of the schema's fields.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    pub rowid: Field,
    pub session_id: Field,
    pub role: Field,
    pub source: Field,
    pub timestamp: Field,
    pub content: Field,
    pub prefix: Field,
}

/// The schema every Hermes index is created with.
pub fn build_schema() -> Schema {
    let mut builder = Schema::builder();
    let numeric = NumericOptions::default()
        .set_indexed()
        .set_fast()
        .set_stored();
    builder.add_u64_field("rowid", numeric.clone());
    builder.add_text_field("session_id", STRING | STORED);
    builder.add_text_field("role", STRING | STORED);
    builder.add_text_field("source", STRING | STORED);
    builder.add_f64_field("timestamp", numeric);
    let content = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    builder.add_text_field("content", content);
    let prefix = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(PREFIX_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    builder.add_text_field("prefix", prefix);
    builder.build()
}

impl Fields {
    /// Look the fields up in `schema`; `None` if it is not a Hermes schema.
    pub fn from_schema(schema: &Schema) -> Option<Fields> {
        Some(Fields {
            rowid: schema.get_field("rowid").ok()?,
            session_id: schema.get_field("session_id").ok()?,
            role: schema.get_field("role").ok()?,
            source: schema.get_field("source").ok()?,
            timestamp: schema.get_field("timestamp").ok()?,
            content: schema.get_field("content").ok()?,
            prefix: schema.get_field("prefix").ok()?,
        })
    }
}

/// Index settings: an uncompressed doc store in 4 KiB blocks. A result page reads ten stored
/// messages from random places; decompressing their LZ4 blocks cost more than the whole BM25 search
/// for typical queries (measured: 8-35% slower per query with LZ4, depending on block size), for a
/// store only ~15% smaller. state.db keeps the compact copy of every message.
pub fn index_settings() -> IndexSettings {
    IndexSettings {
        docstore_compression: Compressor::None,
        docstore_blocksize: 4 * 1024,
        ..IndexSettings::default()
    }
}

/// `text` cut to at most [`MAX_INDEXED_BYTES`], on a character boundary.
pub fn indexed_prefix(text: &str) -> &str {
    if text.len() <= MAX_INDEXED_BYTES {
        return text;
    }
    let mut end = MAX_INDEXED_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_round_trips_its_fields() {
        let schema = build_schema();
        let f = Fields::from_schema(&schema).unwrap();
        let ids = [
            f.rowid,
            f.session_id,
            f.role,
            f.source,
            f.timestamp,
            f.content,
        ]
        .map(|x| x.field_id());
        use field_id::*;
        assert_eq!(ids, [ROWID, SESSION_ID, ROLE, SOURCE, TIMESTAMP, CONTENT]);
    }

    #[test]
    fn indexed_prefix_respects_char_boundaries() {
        let text = "é".repeat(MAX_INDEXED_BYTES);
        let cut = indexed_prefix(&text);
        assert!(cut.len() <= MAX_INDEXED_BYTES);
        assert!(cut.len() > MAX_INDEXED_BYTES - 2);
    }
}
