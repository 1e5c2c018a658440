//! The cl100k_base split pattern, by hand:
//!
//! ```text
//! '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
//! |\s++$|\s*[\r\n]|\s+(?!\S)|\s
//! ```
//!
//! The alternatives are tried in order at each position, as the regex engine does.

use super::{digits_end, punct_end, run_end, SpaceRun, Split};
use crate::tokens::unicode::{char_at, class_at, folds_to, is_prefix, LETTER, NUMBER};

/// tiktoken's `pat_str` for this encoding, which [`Split::piece_end`] implements.
#[cfg_attr(not(test), allow(dead_code))]
pub const PATTERN: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

pub struct Cl100k;

impl Split for Cl100k {
    #[inline]
    fn piece_end(bytes: &[u8], pos: usize) -> usize {
        let (f, len) = class_at(bytes, pos);
        let next = pos + len;

        // '(?i:[sdmt]|ll|ve|re)
        if bytes[pos] == b'\'' {
            if let Some(end) = contraction(bytes, next) {
                return end;
            }
        }
        // [^\r\n\p{L}\p{N}]?+\p{L}++
        if f & LETTER != 0 {
            return run_end(bytes, next, LETTER);
        }
        if is_prefix(f) && next < bytes.len() {
            let (f2, len2) = class_at(bytes, next);
            if f2 & LETTER != 0 {
                return run_end(bytes, next + len2, LETTER);
            }
        }
        // \p{N}{1,3}+
        if f & NUMBER != 0 {
            return digits_end(bytes, next);
        }
        // ' ?[^\s\p{L}\p{N}]++[\r\n]*+'
        if let Some(end) = punct_end(bytes, pos, next, f, |b| b == b'\r' || b == b'\n') {
            return end;
        }
        // Only whitespace is left.
        let run = SpaceRun::scan(bytes, pos);
        // \s++$
        if run.end == bytes.len() {
            return run.end;
        }
        // \s*[\r\n]
        if let Some(end) = run.after_last_newline {
            return end;
        }
        // \s+(?!\S)|\s
        run.trailing_split(bytes, pos)
    }
}

/// After a `'` at `pos - 1`: the end of `[sdmt]|ll|ve|re` (case-insensitive) at `pos`, if it matches.
#[inline]
fn contraction(bytes: &[u8], pos: usize) -> Option<usize> {
    if pos >= bytes.len() {
        return None;
    }
    let c = char_at(bytes, pos);
    let after = pos + c.len_utf8();
    if [b's', b'd', b'm', b't'].iter().any(|&l| folds_to(c, l)) {
        return Some(after);
    }
    let second = match c {
        'l' | 'L' => b'l',
        'v' | 'V' | 'r' | 'R' => b'e',
        _ => return None,
    };
    (after < bytes.len() && folds_to(char_at(bytes, after), second))
        .then(|| after + char_at(bytes, after).len_utf8())
}

#[cfg(test)]
mod tests {
    use super::super::test_support::split;
    use super::Cl100k;

    #[test]
    fn words_numbers_and_punctuation() {
        assert_eq!(
            split::<Cl100k>("Hello world 12345!"),
            ["Hello", " world", " ", "123", "45", "!"]
        );
        assert_eq!(
            split::<Cl100k>("don't STOP'LL"),
            ["don", "'t", " STOP", "'LL"]
        );
        assert_eq!(split::<Cl100k>("x 'sup"), ["x", " '", "sup"]);
        assert_eq!(split::<Cl100k>("'ſ 'x"), ["'ſ", " '", "x"]);
        assert_eq!(split::<Cl100k>(" !!\n\nx"), [" !!\n\n", "x"]);
    }

    #[test]
    fn whitespace_runs() {
        assert_eq!(split::<Cl100k>("a   b"), ["a", "  ", " b"]);
        assert_eq!(split::<Cl100k>("a \n\n  b"), ["a", " \n\n", " ", " b"]);
        assert_eq!(split::<Cl100k>("a\n  "), ["a", "\n  "]);
        assert_eq!(split::<Cl100k>("a \t1"), ["a", " ", "\t", "1"]);
        assert_eq!(split::<Cl100k>("\tfoo"), ["\tfoo"]);
    }
}
