//! One error type for the whole core. The Python layer maps each variant onto a class of the
//! `hermes.errors` hierarchy (see `py/errors.rs`), so Rust never decides how an error is shown.

use std::fmt;

/// Everything the core can fail with. Each variant carries a message that says what was wrong and,
/// where it can, what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Input that cannot be processed as given (bad arguments, oversized input).
    InvalidInput(String),
    /// An encoding name the tokenizer does not know.
    UnknownEncoding(String),
    /// A search query that cannot be run even as a literal search.
    Query(String),
    /// The on-disk index is unreadable; it can be rebuilt from state.db.
    IndexCorrupt(String),
    /// Any other index failure (locking, writer errors).
    Index(String),
    /// Filesystem failures.
    Io(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidInput(m)
            | Error::UnknownEncoding(m)
            | Error::Query(m)
            | Error::IndexCorrupt(m)
            | Error::Index(m)
            | Error::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}
