//! The Hermes analyzer: how message text becomes index terms.
//!
//! One analyzer serves indexing, query parsing and snippet highlighting, so a word is found and
//! highlighted exactly when it was indexed. The rules (mirrored by `hermes/reference/index.py`, which
//! the differential tests compare against):
//!
//! * **Per-character normalisation.** Fullwidth ASCII (`Ａ１！`, U+FF01–U+FF5E) maps to ASCII and the
//!   ideographic space to a space; combining diacritics (U+0300–U+036F) are ignored; letters are
//!   lowercased; Latin letters with diacritics fold to their base letter (`é` → `e`, `ǖ` → `u`) and a
//!   few letters fold to ASCII spellings (`ß` → `ss`, `æ` → `ae`, `ø` → `o`, `ł` → `l`, ...).
//! * **Words** are maximal runs of letters and digits (Unicode-aware). Everything else separates words,
//!   so `snake_case`, `file.py`, `v1.2` and `https://x.org/a` index as several consecutive words; the
//!   query parser turns such a query word into a phrase, so they are still found as written (the same
//!   choice SQLite FTS5's unicode61 tokenizer makes). A word longer than [`MAX_TOKEN_CHARS`] is indexed
//!   by its first [`MAX_TOKEN_CHARS`] characters.
//! * **Chinese, Japanese and Korean** runs (Han, kana, Hangul) have no spaces between words, so each run
//!   is indexed as its overlapping character bigrams *and* its single characters: `函数返回` gives
//!   `函`, `函数`, `数`, `数返`, `返`, `返回`, `回`. A bigram sits at the position of its first character,
//!   so a query word of two or more CJK characters becomes a phrase of bigrams and matches anywhere
//!   inside a run; a one-character query word matches the single-character term. In query mode only
//!   the bigrams are produced (or the single character for a one-character run).

use std::ops::ControlFlow;

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Longest indexed word, in normalised characters; longer words are cut to this length.
pub const MAX_TOKEN_CHARS: usize = 128;

/// Whether the analyzer feeds the index or parses a query (see the module docs for the difference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Index,
    Query,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// A letter or digit outside the CJK scripts.
    Word,
    /// A CJK letter (Han, kana, Hangul).
    Cjk,
    /// A combining diacritic: ignored, but it does not end a word.
    Joiner,
    /// Everything else.
    Separator,
}

/// Fullwidth ASCII and the ideographic space to their ASCII forms; other characters unchanged.
fn unwiden(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        _ => c,
    }
}

fn is_combining(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}')
}

/// Han, kana and Hangul letters: the scripts written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    // Every code point of these two blocks is an assigned letter: skip the Unicode table lookup.
    if matches!(c as u32, 0x4E00..=0x9FFF | 0xAC00..=0xD7A3) {
        return true;
    }
    matches!(c as u32,
        0x1100..=0x11FF        // Hangul Jamo
        | 0x3005..=0x3007      // 々 〆 〇
        | 0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3130..=0x318F      // Hangul compatibility Jamo
        | 0x31F0..=0x31FF      // Katakana phonetic extensions
        | 0x3400..=0x4DBF      // CJK extension A
        | 0x4E00..=0x9FFF      // CJK unified ideographs
        | 0xA960..=0xA97F      // Hangul Jamo extended A
        | 0xAC00..=0xD7AF      // Hangul syllables
        | 0xD7B0..=0xD7FF      // Hangul Jamo extended B
        | 0xF900..=0xFAFF      // CJK compatibility ideographs
        | 0xFF66..=0xFF9F      // halfwidth Katakana
        | 0x20000..=0x3FFFF) // CJK extensions B and later
        && c.is_alphanumeric()
}

/// Classify one input character after fullwidth folding.
fn classify(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Word
        } else {
            Class::Separator
        };
    }
    let c = unwiden(c);
    if is_combining(c) {
        Class::Joiner
    } else if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Word
    } else {
        Class::Separator
    }
}

/// Letters whose folded spelling is not their canonical decomposition's base letter.
fn special_fold(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "ss",
        'æ' => "ae",
        'œ' => "oe",
        'ø' => "o",
        'đ' | 'ð' => "d",
        'ħ' => "h",
        'ı' => "i",
        'ł' | 'ŀ' => "l",
        'ŧ' => "t",
        'þ' => "th",
        _ => return None,
    })
}

fn is_latin_with_marks(c: char) -> bool {
    matches!(c as u32, 0x00C0..=0x024F | 0x1E00..=0x1EFF)
}

/// Append the folded form of one lowercase character; returns how many characters were appended.
fn push_folded(c: char, out: &mut String) -> usize {
    if is_combining(c) {
        return 0;
    }
    if let Some(s) = special_fold(c) {
        out.push_str(s);
        return s.len();
    }
    let mut base = c;
    if is_latin_with_marks(c) {
        let mut first = None;
        unicode_normalization::char::decompose_canonical(c, |d| {
            first.get_or_insert(d);
        });
        base = first.unwrap_or(c);
        if let Some(s) = special_fold(base) {
            out.push_str(s);
            return s.len();
        }
    }
    out.push(base);
    1
}

/// Append the normalised form of one word character (already classified as [`Class::Word`]).
fn push_word_char(c: char, out: &mut String) -> usize {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return 1;
    }
    let c = unwiden(c);
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return 1;
    }
    c.to_lowercase().map(|l| push_folded(l, out)).sum()
}

/// A CJK character of the current run, with its byte and character offsets.
#[derive(Clone, Copy, Debug)]
struct CjkChar {
    c: char,
    from: usize,
    to: usize,
    char_from: usize,
}

/// The analyzer as a pull stream of tokens; also a tantivy [`TokenStream`].
///
/// Besides tantivy's byte offsets it tracks code-point offsets ([`Analyzer::char_span`]), which the
/// snippet generator reports to Python.
pub struct Analyzer<'a> {
    text: &'a str,
    mode: Mode,
    /// Next byte to read, and its code-point index.
    byte: usize,
    chr: usize,
    next_position: usize,
    /// The previous character of the current CJK run, if inside one.
    cjk_prev: Option<CjkChar>,
    /// A single-character CJK token to emit after the current bigram (index mode).
    pending: Option<(CjkChar, usize)>,
    token: Token,
    char_from: usize,
    char_to: usize,
}

impl<'a> Analyzer<'a> {
    pub fn new(text: &'a str, mode: Mode) -> Self {
        Analyzer {
            text,
            mode,
            byte: 0,
            chr: 0,
            next_position: 0,
            cjk_prev: None,
            pending: None,
            token: Token::default(),
            char_from: 0,
            char_to: 0,
        }
    }

    /// Code-point span `[from, to)` of the current token in the analysed text.
    pub fn char_span(&self) -> (usize, usize) {
        (self.char_from, self.char_to)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.byte..].chars().next()
    }

    fn bump(&mut self, c: char) {
        self.byte += c.len_utf8();
        self.chr += 1;
    }

    /// Class of the next character that is not a combining mark (query-mode lookahead).
    fn next_significant_class(&self) -> Option<Class> {
        self.text[self.byte..]
            .chars()
            .map(classify)
            .find(|class| *class != Class::Joiner)
    }

    fn set_cjk_token(&mut self, first: CjkChar, second: Option<CjkChar>, position: usize) {
        self.token.text.clear();
        self.token.text.push(first.c);
        let last = match second {
            Some(s) => {
                self.token.text.push(s.c);
                s
            }
            None => first,
        };
        self.token.offset_from = first.from;
        self.token.offset_to = last.to;
        self.token.position = position;
        self.token.position_length = 1;
        self.char_from = first.char_from;
        self.char_to = last.char_from + 1;
    }

    fn read_word(&mut self) {
        self.token.text.clear();
        self.token.offset_from = self.byte;
        self.char_from = self.chr;
        let bytes = self.text.as_bytes();
        let mut chars = 0usize;
        while self.byte < bytes.len() {
            // Fast path: a run of ASCII letters and digits, copied and lowercased in one go.
            let run = bytes[self.byte..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            if run > 0 {
                let take = run.min(MAX_TOKEN_CHARS.saturating_sub(chars));
                let start = self.token.text.len();
                self.token
                    .text
                    .push_str(&self.text[self.byte..self.byte + take]);
                self.token.text[start..].make_ascii_lowercase();
                chars += take;
                self.byte += run;
                self.chr += run;
                continue;
            }
            if bytes[self.byte].is_ascii() {
                break;
            }
            let Some(c) = self.peek() else { break };
            match classify(c) {
                Class::Word => {
                    if chars < MAX_TOKEN_CHARS {
                        chars += push_word_char(c, &mut self.token.text);
                    }
                }
                Class::Joiner => {}
                Class::Cjk | Class::Separator => break,
            }
            self.bump(c);
        }
        if chars > MAX_TOKEN_CHARS {
            // A multi-character fold (ß → ss) may have overshot the limit by one.
            let cut = self
                .token
                .text
                .char_indices()
                .nth(MAX_TOKEN_CHARS)
                .map_or(self.token.text.len(), |(i, _)| i);
            self.token.text.truncate(cut);
        }
        self.token.offset_to = self.byte;
        self.char_to = self.chr;
        self.token.position = self.next_position;
        self.token.position_length = 1;
        self.next_position += 1;
    }

    /// Read one CJK character; returns whether a token is ready.
    fn read_cjk(&mut self, c: char) -> bool {
        let current = CjkChar {
            c,
            from: self.byte,
            to: self.byte + c.len_utf8(),
            char_from: self.chr,
        };
        self.bump(c);
        let position = self.next_position;
        self.next_position += 1;
        let previous = self.cjk_prev.replace(current);
        match (previous, self.mode) {
            (Some(p), Mode::Index) => {
                self.set_cjk_token(p, Some(current), position - 1);
                self.pending = Some((current, position));
                true
            }
            (Some(p), Mode::Query) => {
                self.set_cjk_token(p, Some(current), position - 1);
                true
            }
            (None, Mode::Index) => {
                self.set_cjk_token(current, None, position);
                true
            }
            (None, Mode::Query) => {
                if self.next_significant_class() == Some(Class::Cjk) {
                    false
                } else {
                    self.set_cjk_token(current, None, position);
                    true
                }
            }
        }
    }
}

impl TokenStream for Analyzer<'_> {
    fn advance(&mut self) -> bool {
        if let Some((c, position)) = self.pending.take() {
            self.set_cjk_token(c, None, position);
            return true;
        }
        let bytes = self.text.as_bytes();
        while self.byte < bytes.len() {
            let b = bytes[self.byte];
            if b.is_ascii() {
                self.cjk_prev = None;
                if b.is_ascii_alphanumeric() {
                    self.read_word();
                    return true;
                }
                self.byte += 1;
                self.chr += 1;
                continue;
            }
            let Some(c) = self.peek() else { break };
            match classify(c) {
                Class::Word => {
                    self.cjk_prev = None;
                    self.read_word();
                    return true;
                }
                Class::Cjk => {
                    if self.read_cjk(c) {
                        return true;
                    }
                }
                Class::Joiner => self.bump(c),
                Class::Separator => {
                    self.cjk_prev = None;
                    self.bump(c);
                }
            }
        }
        false
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// The analyzer registered with tantivy for the content field (index mode).
#[derive(Clone, Copy, Debug, Default)]
pub struct HermesTokenizer;

impl Tokenizer for HermesTokenizer {
    type TokenStream<'a> = Analyzer<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Analyzer<'a> {
        Analyzer::new(text, Mode::Index)
    }
}

/// One analysed token, owned (tests, query parsing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedToken {
    pub text: String,
    pub position: usize,
    /// Byte span in the analysed text.
    pub bytes: (usize, usize),
    /// Code-point span in the analysed text.
    pub chars: (usize, usize),
}

/// Visit every token of `text`; the visitor may stop early with `ControlFlow::Break`.
pub fn for_each_token(
    text: &str,
    mode: Mode,
    mut visit: impl FnMut(&Token, (usize, usize)) -> ControlFlow<()>,
) {
    let mut analyzer = Analyzer::new(text, mode);
    while analyzer.advance() {
        if visit(&analyzer.token, analyzer.char_span()).is_break() {
            return;
        }
    }
}

/// All tokens of `text`, owned.
pub fn analyze(text: &str, mode: Mode) -> Vec<OwnedToken> {
    let mut out = Vec::new();
    for_each_token(text, mode, |t, chars| {
        out.push(OwnedToken {
            text: t.text.clone(),
            position: t.position,
            bytes: (t.offset_from, t.offset_to),
            chars,
        });
        ControlFlow::Continue(())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str, mode: Mode) -> Vec<(String, usize)> {
        analyze(text, mode)
            .into_iter()
            .map(|t| (t.text, t.position))
            .collect()
    }

    fn owned(v: &[(&str, usize)]) -> Vec<(String, usize)> {
        v.iter().map(|(s, p)| (s.to_string(), *p)).collect()
    }

    #[test]
    fn latin_words_are_lowercased_folded_and_split() {
        assert_eq!(
            texts("Café SNAKE_case file.py v1.2", Mode::Index),
            owned(&[
                ("cafe", 0),
                ("snake", 1),
                ("case", 2),
                ("file", 3),
                ("py", 4),
                ("v1", 5),
                ("2", 6)
            ])
        );
        assert_eq!(
            texts("Straße Æther Łódź", Mode::Index),
            owned(&[("strasse", 0), ("aether", 1), ("lodz", 2)])
        );
        assert_eq!(texts("ＡＢＣ１２３", Mode::Index), owned(&[("abc123", 0)]));
        assert_eq!(texts("cafe\u{301}!", Mode::Index), owned(&[("cafe", 0)]));
    }

    #[test]
    fn cjk_runs_index_bigrams_and_single_characters() {
        assert_eq!(
            texts("函数返回", Mode::Index),
            owned(&[
                ("函", 0),
                ("函数", 0),
                ("数", 1),
                ("数返", 1),
                ("返", 2),
                ("返回", 2),
                ("回", 3)
            ])
        );
        assert_eq!(
            texts("函数返回", Mode::Query),
            owned(&[("函数", 0), ("数返", 1), ("返回", 2)])
        );
        assert_eq!(texts("函", Mode::Query), owned(&[("函", 0)]));
    }

    #[test]
    fn mixed_scripts_keep_positions_consecutive() {
        assert_eq!(
            texts("Python的函数 ok", Mode::Query),
            owned(&[("python", 0), ("的函", 1), ("函数", 2), ("ok", 4)])
        );
        let index = texts("Python的函数 ok", Mode::Index);
        assert!(index.contains(&("ok".to_string(), 4)));
        assert!(index.contains(&("的".to_string(), 1)));
    }

    #[test]
    fn offsets_are_bytes_and_code_points() {
        let toks = analyze("é 函数", Mode::Index);
        assert_eq!(toks[0].bytes, (0, 2));
        assert_eq!(toks[0].chars, (0, 1));
        let bigram = toks.iter().find(|t| t.text == "函数").unwrap();
        assert_eq!(bigram.bytes, (3, 9));
        assert_eq!(bigram.chars, (2, 4));
    }

    #[test]
    fn long_words_are_truncated() {
        let word = "ß".repeat(200);
        let toks = analyze(&word, Mode::Index);
        assert_eq!(toks.len(), 1);
        assert_eq!(toks[0].text.chars().count(), MAX_TOKEN_CHARS);
        assert_eq!(toks[0].bytes, (0, word.len()));
    }
}
