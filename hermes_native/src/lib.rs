//! The Rust core of Hermes.
//!
//! Each concept is a pure-Rust module that `cargo test` exercises on its own; the thin PyO3 layer in
//! [`py`] (behind the `python` feature) turns them into `hermes._native`. Python owns policy, this crate
//! owns the hot loops: no I/O policy, no LLM calls, no global state beyond lazily built tables and the
//! index handle.

pub mod digest;
pub mod error;
pub mod index;
pub mod scan;
pub mod tokens;

#[cfg(feature = "python")]
mod py;

pub use error::{Error, Result};
