//! Pre-tokenizers: split text into the pieces that BPE then encodes one by one.
//!
//! tiktoken splits with a regex (`find_iter` over the encoding's `pat_str`). Here each encoding has a
//! hand-written matcher that returns, for a position, exactly where the regex's leftmost-first match
//! starting there ends (including the backtracking a regex engine would do), with an ASCII fast path
//! and a generated Unicode class table. The alternatives of both patterns together match every
//! character, so pieces tile the text with no gaps.

mod cl100k;
mod o200k;
#[cfg(test)]
mod oracle_tests;

use std::marker::PhantomData;

use super::unicode::{class_at, NEWLINE, NUMBER, PUNCT, SPACE};

pub use cl100k::Cl100k;
pub use o200k::O200k;

/// One encoding's split pattern.
pub trait Split {
    /// End (exclusive byte offset) of the piece starting at `pos`; always `> pos`.
    ///
    /// `bytes` is valid UTF-8 and `pos < bytes.len()` is a character boundary.
    fn piece_end(bytes: &[u8], pos: usize) -> usize;
}

/// The pieces of a text, in order; they concatenate back to the text.
pub struct Pieces<'a, S: Split> {
    bytes: &'a [u8],
    pos: usize,
    split: PhantomData<S>,
}

impl<'a, S: Split> Pieces<'a, S> {
    pub fn new(text: &'a str) -> Self {
        Pieces {
            bytes: text.as_bytes(),
            pos: 0,
            split: PhantomData,
        }
    }
}

impl<'a, S: Split> Iterator for Pieces<'a, S> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let start = self.pos;
        self.pos = S::piece_end(self.bytes, start);
        Some(&self.bytes[start..self.pos])
    }
}

/// End of the run of characters starting at `pos` whose flags intersect `mask`.
#[inline(always)]
fn run_end(bytes: &[u8], mut pos: usize, mask: u8) -> usize {
    while pos < bytes.len() {
        let (f, len) = class_at(bytes, pos);
        if f & mask == 0 {
            break;
        }
        pos += len;
    }
    pos
}

/// `\p{N}{1,3}`: end of the number piece whose first digit ends at `next`.
#[inline(always)]
fn digits_end(bytes: &[u8], next: usize) -> usize {
    let mut end = next;
    for _ in 0..2 {
        if end >= bytes.len() {
            break;
        }
        let (f, len) = class_at(bytes, end);
        if f & NUMBER == 0 {
            break;
        }
        end += len;
    }
    end
}

/// ` ?[^\s\p{L}\p{N}]+` followed by a run of bytes `tail` accepts (line breaks, and `/` in o200k):
/// the end of that piece when one starts at `pos` (the character there has flags `f` and ends at
/// `next`), or `None`.
#[inline(always)]
fn punct_end(bytes: &[u8], pos: usize, next: usize, f: u8, tail: fn(u8) -> bool) -> Option<usize> {
    let start = if f & PUNCT != 0 {
        pos
    } else if bytes[pos] == b' ' && next < bytes.len() && class_at(bytes, next).0 & PUNCT != 0 {
        next
    } else {
        return None;
    };
    let end = run_end(bytes, start, PUNCT);
    Some(end + bytes[end..].iter().take_while(|&&b| tail(b)).count())
}

/// The maximal run of whitespace starting at `pos` (which must be whitespace).
struct SpaceRun {
    /// Exclusive end of the run.
    end: usize,
    /// End of the last `\r` or `\n` in the run, if any.
    after_last_newline: Option<usize>,
    /// Start of the run's last character.
    last_start: usize,
}

impl SpaceRun {
    #[inline]
    fn scan(bytes: &[u8], pos: usize) -> Self {
        let mut run = SpaceRun {
            end: pos,
            after_last_newline: None,
            last_start: pos,
        };
        while run.end < bytes.len() {
            let (f, len) = class_at(bytes, run.end);
            if f & SPACE == 0 {
                break;
            }
            if f & NEWLINE != 0 {
                run.after_last_newline = Some(run.end + len);
            }
            run.last_start = run.end;
            run.end += len;
        }
        run
    }

    /// `\s+(?!\S)` then `\s` (cl100k) or `\s+` (o200k): with the run at the end of the text all of
    /// it; otherwise all but its last character, which then starts the next piece (so that a space
    /// stays attached to the following word), or the single character when the run is one long.
    #[inline]
    fn trailing_split(&self, bytes: &[u8], pos: usize) -> usize {
        if self.end == bytes.len() || self.last_start == pos {
            self.end
        } else {
            self.last_start
        }
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::{Pieces, Split};

    pub fn split<S: Split>(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut start = 0;
        for piece in Pieces::<S>::new(text) {
            out.push(&text[start..start + piece.len()]);
            start += piece.len();
        }
        out
    }
}
