//! Exact token counts for OpenAI's `cl100k_base` and `o200k_base` encodings.
//!
//! Results are identical to tiktoken's `encode_ordinary` (special tokens are plain text). The
//! pipeline per text: a hand-written pre-tokenizer per encoding splits it into pieces exactly as
//! tiktoken's regex does ([`pretokenize`]), each piece that is a whole token costs one hash lookup,
//! other pieces go through byte-pair merging ([`bpe`]) with a per-thread memo of piece counts
//! ([`cache`]) on the count path. The vocabularies are compiled in ([`vocab`]) and built on first use.

mod bpe;
mod cache;
mod chat;
mod pretokenize;
mod unicode;
mod vocab;

use std::cell::Cell;
use std::sync::OnceLock;

use crate::{Error, Result};
use bpe::Merger;
use cache::PieceCache;
use pretokenize::{Cl100k, O200k, Pieces, Split};
use vocab::Vocab;

pub use chat::{count_chat, REPLY_PRIMING, TOKENS_PER_MESSAGE, TOKENS_PER_NAME};

/// The encodings Hermes ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-3.5 / GPT-4 era models.
    Cl100k,
    /// GPT-4o and later models.
    O200k,
}

impl Encoding {
    pub const ALL: [Encoding; 2] = [Encoding::Cl100k, Encoding::O200k];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100k => "cl100k_base",
            Encoding::O200k => "o200k_base",
        }
    }

    /// Look an encoding up by its tiktoken name.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                Error::UnknownEncoding(format!(
                    "unknown encoding {name:?}; valid encodings: {}",
                    encodings().join(", ")
                ))
            })
    }

    fn index(self) -> usize {
        self as usize
    }

    fn vocab(self) -> &'static Vocab {
        static VOCABS: [OnceLock<Vocab>; 2] = [OnceLock::new(), OnceLock::new()];
        VOCABS[self.index()].get_or_init(|| match self {
            Encoding::Cl100k => Vocab::from_embedded(data::CL100K_LENS, data::CL100K_BYTES),
            Encoding::O200k => Vocab::from_embedded(data::O200K_LENS, data::O200K_BYTES),
        })
    }
}

mod data {
    macro_rules! embedded {
        ($file:literal) => {
            include_bytes!(concat!(env!("OUT_DIR"), "/", $file))
        };
    }
    pub static CL100K_LENS: &[u8] = embedded!("cl100k_base.lens");
    pub static CL100K_BYTES: &[u8] = embedded!("cl100k_base.bytes");
    pub static O200K_LENS: &[u8] = embedded!("o200k_base.lens");
    pub static O200K_BYTES: &[u8] = embedded!("o200k_base.bytes");
}

/// Names of the supported encodings.
pub fn encodings() -> Vec<&'static str> {
    Encoding::ALL.iter().map(|e| e.name()).collect()
}

/// Scratch state of one thread: merge buffers and one piece-count memo per encoding.
#[derive(Default)]
struct ThreadState {
    merger: Merger,
    caches: [PieceCache; 2],
}

thread_local! {
    static STATE: Cell<Option<Box<ThreadState>>> = const { Cell::new(None) };
}

/// Run `f` with this thread's scratch state. The state is taken out for the call and put back
/// after, so a nested call (or one while the thread shuts down) simply works on a fresh state.
fn with_state<R>(f: impl FnOnce(&mut ThreadState) -> R) -> R {
    let mut state = STATE
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default();
    let result = f(&mut state);
    // Fails only while the thread is being torn down, when there is nothing left to cache for.
    let _ = STATE.try_with(|cell| cell.set(Some(state)));
    result
}

/// Token count of `text`, or `None` as soon as it exceeds `limit`.
fn count_pieces<S: Split>(
    text: &str,
    vocab: &Vocab,
    state: &mut ThreadState,
    cache: usize,
    limit: usize,
) -> Option<usize> {
    let ThreadState { merger, caches } = state;
    let cache = &mut caches[cache];
    let mut total = 0;
    for piece in Pieces::<S>::new(text) {
        total += if piece.len() == 1 || vocab.rank(piece).is_some() {
            1
        } else {
            cache.get_or(piece, || merger.count(vocab, piece))
        };
        if total > limit {
            return None;
        }
    }
    Some(total)
}

fn encode_pieces<S: Split>(text: &str, vocab: &Vocab, merger: &mut Merger, out: &mut Vec<u32>) {
    for piece in Pieces::<S>::new(text) {
        match vocab.rank(piece) {
            Some(rank) => out.push(rank),
            None => merger.encode(vocab, piece, out),
        }
    }
}

/// Number of tokens in `text`.
pub fn count(text: &str, encoding: Encoding) -> usize {
    // A text has at most one token per byte, so the limit is never reached.
    count_up_to(text, encoding, text.len()).unwrap_or(text.len())
}

/// Number of tokens in `text` if it is at most `limit`, else `None`; stops counting as soon as the
/// limit is passed, so asking whether a huge text fits a small budget is cheap.
pub fn count_up_to(text: &str, encoding: Encoding, limit: usize) -> Option<usize> {
    let vocab = encoding.vocab();
    with_state(|state| match encoding {
        Encoding::Cl100k => count_pieces::<Cl100k>(text, vocab, state, encoding.index(), limit),
        Encoding::O200k => count_pieces::<O200k>(text, vocab, state, encoding.index(), limit),
    })
}

/// Below this many bytes in total a batch is counted on the calling thread only.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Token counts of many texts. Large batches are spread over the available cores; the result is
/// the same as counting each text alone.
pub fn count_batch<T: AsRef<str> + Sync>(texts: &[T], encoding: Encoding) -> Vec<usize> {
    let total: usize = texts.iter().map(|t| t.as_ref().len()).sum();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(texts.len());
    if total < PARALLEL_MIN_BYTES || threads < 2 {
        return texts.iter().map(|t| count(t.as_ref(), encoding)).collect();
    }
    // Contiguous chunks of roughly equal byte size, one per thread, results kept in order.
    let per_thread = total.div_ceil(threads);
    let mut chunks: Vec<&[T]> = Vec::with_capacity(threads);
    let (mut start, mut acc) = (0, 0);
    for (i, t) in texts.iter().enumerate() {
        acc += t.as_ref().len();
        if acc >= per_thread {
            chunks.push(&texts[start..=i]);
            start = i + 1;
            acc = 0;
        }
    }
    if start < texts.len() {
        chunks.push(&texts[start..]);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|t| count(t.as_ref(), encoding))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut out = Vec::with_capacity(texts.len());
        for (handle, chunk) in handles.into_iter().zip(&chunks) {
            match handle.join() {
                Ok(counts) => out.extend(counts),
                // A worker cannot panic on valid input; count on this thread rather than fail.
                Err(_) => out.extend(chunk.iter().map(|t| count(t.as_ref(), encoding))),
            }
        }
        out
    })
}

/// The token ids of `text`.
pub fn encode(text: &str, encoding: Encoding) -> Vec<u32> {
    let vocab = encoding.vocab();
    let mut out = Vec::with_capacity(text.len() / 4 + 1);
    with_state(|state| match encoding {
        Encoding::Cl100k => encode_pieces::<Cl100k>(text, vocab, &mut state.merger, &mut out),
        Encoding::O200k => encode_pieces::<O200k>(text, vocab, &mut state.merger, &mut out),
    });
    out
}

/// The bytes that `tokens` stand for (not necessarily valid UTF-8 when cut mid-character).
pub fn decode_bytes(tokens: &[u32], encoding: Encoding) -> Result<Vec<u8>> {
    let vocab = encoding.vocab();
    let mut out = Vec::with_capacity(tokens.len() * 4);
    for (i, &token) in tokens.iter().enumerate() {
        let bytes = vocab
            .token(token)
            .ok_or_else(|| invalid_token(i, i64::from(token), encoding))?;
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// Number of tokens in the vocabulary of `encoding` (valid ids are `0..vocab_size`).
pub fn vocab_size(encoding: Encoding) -> usize {
    encoding.vocab().len()
}

/// The error for token id `token` at `index` that `encoding` does not have.
pub fn invalid_token(index: usize, token: i64, encoding: Encoding) -> Error {
    Error::InvalidInput(format!(
        "token {token} at index {index} is not in {} (valid ids are 0..{}); \
         were these tokens produced with another encoding?",
        encoding.name(),
        vocab_size(encoding)
    ))
}

#[cfg(test)]
mod tests;
