//! Reading a stored message back for a result page, straight into its fields.
//!
//! tantivy's generic `TantivyDocument` first rebuilds a compact document and then hands out
//! borrowed values to copy; reading the six stored values directly moves each string once.

use tantivy::schema::document::{DeserializeError, DocumentDeserialize, DocumentDeserializer};
use tantivy::schema::OwnedValue;

use super::schema::field_id;

/// The stored fields of one message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stored {
    pub rowid: u64,
    pub session_id: String,
    pub role: String,
    pub source: String,
    pub timestamp: f64,
    pub content: String,
}

impl DocumentDeserialize for Stored {
    fn deserialize<'de, D>(mut fields: D) -> Result<Self, DeserializeError>
    where
        D: DocumentDeserializer<'de>,
    {
        let mut out = Stored::default();
        while let Some((field, value)) = fields.next_field::<OwnedValue>()? {
            match (field.field_id(), value) {
                (field_id::ROWID, OwnedValue::U64(v)) => out.rowid = v,
                (field_id::SESSION_ID, OwnedValue::Str(s)) => out.session_id = s,
                (field_id::ROLE, OwnedValue::Str(s)) => out.role = s,
                (field_id::SOURCE, OwnedValue::Str(s)) => out.source = s,
                (field_id::TIMESTAMP, OwnedValue::F64(v)) => out.timestamp = v,
                (field_id::CONTENT, OwnedValue::Str(s)) => out.content = s,
                _ => {}
            }
        }
        Ok(out)
    }
}
