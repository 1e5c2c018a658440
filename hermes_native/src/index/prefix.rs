//! The prefix field: every word's first [`MAX_INDEXED_PREFIX`] prefixes, indexed as terms.
//!
//! `conf*` could be answered by expanding `conf` into the matching words of the term dictionary, but a
//! disjunction of many words is slow to rank on a large index (each word is scored separately), and a
//! bounded expansion misses rare completions. Short prefixes are therefore indexed directly, like SQLite
//! FTS5's `prefix=` option: the word `configure` also indexes `c`, `co`, `con` and `conf` in the
//! `prefix` field (frequencies only, no positions). A prefix query of up to [`MAX_INDEXED_PREFIX`]
//! characters is then a single term, ranked by BM25 (a message with three `conf…` words beats one
//! with a single one) and matching every completion. Longer prefixes are specific enough for the
//! bounded expansion in `compile.rs`. CJK tokens get no prefixes (CJK words already match anywhere
//! inside a run).

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use super::tokenizer::{is_cjk, Analyzer, Mode};

/// Longest indexed prefix, in characters.
pub const MAX_INDEXED_PREFIX: usize = 4;

/// The tokenizer registered for the prefix field.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrefixTokenizer;

impl Tokenizer for PrefixTokenizer {
    type TokenStream<'a> = PrefixStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> PrefixStream<'a> {
        PrefixStream {
            words: Analyzer::new(text, Mode::Index),
            token: Token::default(),
            ends: Vec::new(),
            next: 0,
        }
    }
}

/// The prefixes of each non-CJK word of the analysed text, shortest first.
pub struct PrefixStream<'a> {
    words: Analyzer<'a>,
    token: Token,
    /// Byte ends of the current word's prefixes still to emit.
    ends: Vec<usize>,
    next: usize,
}

impl TokenStream for PrefixStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            if let Some(&end) = self.ends.get(self.next) {
                self.next += 1;
                let word = &self.words.token().text;
                self.token.text.clear();
                self.token.text.push_str(&word[..end]);
                return true;
            }
            if !self.words.advance() {
                return false;
            }
            let word = self.words.token();
            if word.text.chars().next().is_none_or(is_cjk) {
                continue;
            }
            self.ends.clear();
            self.next = 0;
            self.ends.extend(
                word.text
                    .char_indices()
                    .skip(1)
                    .take(MAX_INDEXED_PREFIX)
                    .map(|(i, _)| i),
            );
            if word.text.chars().count() <= MAX_INDEXED_PREFIX {
                self.ends.push(word.text.len());
            }
            self.token.offset_from = word.offset_from;
            self.token.offset_to = word.offset_to;
            self.token.position = word.position;
            self.token.position_length = 1;
        }
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// Whether a prefix query on `prefix` (an analysed token) can use the prefix field.
pub fn is_indexed_prefix(prefix: &str) -> bool {
    let mut chars = prefix.chars();
    chars.next().is_some_and(|c| !is_cjk(c)) && prefix.chars().count() <= MAX_INDEXED_PREFIX
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefixes(text: &str) -> Vec<String> {
        let mut tokenizer = PrefixTokenizer;
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    #[test]
    fn words_index_their_short_prefixes() {
        assert_eq!(
            prefixes("Configure a cat"),
            ["c", "co", "con", "conf", "a", "c", "ca", "cat"]
        );
        assert_eq!(prefixes("Ünï 函数"), ["u", "un", "uni"]);
    }

    #[test]
    fn only_short_non_cjk_prefixes_use_the_field() {
        assert!(is_indexed_prefix("conf"));
        assert!(!is_indexed_prefix("confi"));
        assert!(!is_indexed_prefix("函"));
        assert!(!is_indexed_prefix(""));
    }
}
