//! The o200k_base split pattern, by hand:
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! Unlike cl100k nothing here is possessive, so the matcher reproduces the regex engine's
//! backtracking: the upper and lower sets overlap (Lm, Lo and marks are in both), and marks are also
//! allowed as the optional prefix, so a failed attempt can succeed after giving characters back.

use super::{digits_end, punct_end, run_end, SpaceRun, Split};
use crate::tokens::unicode::{char_at, class_at, folds_to, is_prefix, LOWSET, NUMBER, UPSET};

/// tiktoken's `pat_str` for this encoding, which [`Split::piece_end`] implements.
#[cfg_attr(not(test), allow(dead_code))]
pub const PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
);

pub struct O200k;

impl Split for O200k {
    #[inline]
    fn piece_end(bytes: &[u8], pos: usize) -> usize {
        let (f, len) = class_at(bytes, pos);
        let next = pos + len;

        // The two word alternatives: each first with the optional prefix taken, then without it.
        let prefix = is_prefix(f);
        if prefix || f & (UPSET | LOWSET) != 0 {
            let attempts = [
                (
                    prefix,
                    next,
                    word_lower_tail as fn(&[u8], usize) -> Option<usize>,
                ),
                (true, pos, word_lower_tail),
                (prefix, next, word_upper_head),
                (true, pos, word_upper_head),
            ];
            for (applies, start, word) in attempts {
                if applies {
                    if let Some(end) = word(bytes, start) {
                        return end;
                    }
                }
            }
        }
        // \p{N}{1,3}
        if f & NUMBER != 0 {
            return digits_end(bytes, next);
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
        if let Some(end) = punct_end(bytes, pos, next, f, |b| matches!(b, b'\r' | b'\n' | b'/')) {
            return end;
        }
        // Only whitespace is left.
        let run = SpaceRun::scan(bytes, pos);
        // \s*[\r\n]+
        if let Some(end) = run.after_last_newline {
            return end;
        }
        // \s+(?!\S)|\s+
        run.trailing_split(bytes, pos)
    }
}

/// `[upper]*[lower]+(contraction)?` from `pos`, with the backtracking of the greedy `[upper]*`:
/// if the maximal upper run is not followed by a lower character, the engine gives back upper
/// characters until one that is also in the lower set (Lm, Lo, M) ends the run.
#[inline]
fn word_lower_tail(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut end = pos;
    let mut after_last_shared = None;
    while end < bytes.len() {
        let (f, len) = class_at(bytes, end);
        if f & UPSET == 0 {
            break;
        }
        end += len;
        if f & LOWSET != 0 {
            after_last_shared = Some(end);
        }
    }
    if end < bytes.len() && class_at(bytes, end).0 & LOWSET != 0 {
        return Some(contraction(bytes, run_end(bytes, end, LOWSET)));
    }
    after_last_shared.map(|end| contraction(bytes, end))
}

/// `[upper]+[lower]*(contraction)?` from `pos`.
#[inline]
fn word_upper_head(bytes: &[u8], pos: usize) -> Option<usize> {
    let end = run_end(bytes, pos, UPSET);
    (end > pos).then(|| contraction(bytes, run_end(bytes, end, LOWSET)))
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `pos`: the end after the contraction, or `pos`.
#[inline]
fn contraction(bytes: &[u8], pos: usize) -> usize {
    if pos + 1 >= bytes.len() || bytes[pos] != b'\'' {
        return pos;
    }
    let c = char_at(bytes, pos + 1);
    let after = pos + 1 + c.len_utf8();
    if [b's', b't', b'm', b'd'].iter().any(|&l| folds_to(c, l)) {
        return after;
    }
    let second = match c {
        'r' | 'R' | 'v' | 'V' => b'e',
        'l' | 'L' => b'l',
        _ => return pos,
    };
    if after < bytes.len() && folds_to(char_at(bytes, after), second) {
        after + char_at(bytes, after).len_utf8()
    } else {
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::split;
    use super::O200k;

    #[test]
    fn words_keep_case_runs_and_contractions() {
        assert_eq!(
            split::<O200k>("HelloWorld JSONParser"),
            ["Hello", "World", " JSONParser"]
        );
        assert_eq!(split::<O200k>("I'm don'T"), ["I'm", " don'T"]);
        assert_eq!(split::<O200k>("12345 x"), ["123", "45", " x"]);
    }

    #[test]
    fn punctuation_and_slashes() {
        assert_eq!(split::<O200k>("a/b//\n/c"), ["a", "/b", "//\n/", "c"]);
        assert_eq!(split::<O200k>(" ...\n\nz"), [" ...\n\n", "z"]);
    }

    #[test]
    fn marks_backtrack_like_the_regex_engine() {
        // A mark can be the prefix or part of either letter set.
        assert_eq!(split::<O200k>("\u{301}AB."), ["\u{301}", "AB", "."]);
        assert_eq!(split::<O200k>(" \u{301}ab"), [" \u{301}ab"]);
    }

    #[test]
    fn whitespace_runs() {
        assert_eq!(split::<O200k>("a \n\n  b"), ["a", " \n\n", " ", " b"]);
        assert_eq!(split::<O200k>("a  "), ["a", "  "]);
        assert_eq!(split::<O200k>("a\u{a0}b"), ["a", "\u{a0}b"]);
    }
}
