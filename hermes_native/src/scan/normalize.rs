//! The views the rules run against, each with a map back to code-point offsets in the scanned text.
//!
//! All views but `uni` are pure ASCII (what cannot be folded to ASCII becomes 0x1A), which keeps the
//! Rust and Python regex engines in exact agreement and makes a view offset a plain index. Views are
//! appended to caller-owned buffers (one per view for a whole batch of texts, reused from batch to
//! batch), and offset maps are only built where they are needed: ASCII text has identity maps, and the
//! words, squeeze and uni maps are built only once one of their rules fired.

use super::table::Table;

/// Stand-in for code points that have no ASCII fold.
pub const SUB: u8 = 0x1a;

/// A view's text and, unless the view is 1:1 with the scanned text, the code-point offset each byte
/// comes from.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub text: &'a [u8],
    pub origin: Option<&'a [u32]>,
}

impl View<'_> {
    /// Code-point offset in the scanned text of view position `i`.
    pub fn origin(&self, i: usize) -> usize {
        match self.origin {
            Some(map) => map[i] as usize,
            None => i,
        }
    }

    /// Span in the scanned text covered by the view span `[start, end)` (`end > start`).
    pub fn span(&self, start: usize, end: usize) -> (usize, usize) {
        (self.origin(start), self.origin(end - 1) + 1)
    }
}

/// The raw view of non-ASCII text: non-ASCII code points replaced by [`SUB`], case kept. (The raw
/// view of ASCII text is the text itself.)
pub fn raw_into(text: &str, out: &mut Vec<u8>) {
    out.extend(
        text.chars()
            .map(|c| if c.is_ascii() { c as u8 } else { SUB }),
    );
}

/// The fold view of ASCII text: the text lowercased.
pub fn fold_ascii_into(text: &str, out: &mut Vec<u8>) {
    out.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
}

/// The fold view of non-ASCII text with its offset map, and whether an invisible code point or mark
/// was dropped next to an ASCII letter or digit (what gluing words together looks like).
pub fn fold_into(text: &str, table: &Table, bytes: &mut Vec<u8>, origin: &mut Vec<u32>) -> bool {
    let mut dropped = false;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    let mut at: u32 = 0;
    while let Some(c) = chars.next() {
        let before = prev.replace(c);
        let i = at;
        at += 1;
        if c.is_ascii() {
            bytes.push(c.to_ascii_lowercase() as u8);
            origin.push(i);
            continue;
        }
        match table.fold(c as u32) {
            Some("") => {
                let glued = |x: Option<char>| x.is_some_and(|x| x.is_ascii_alphanumeric());
                dropped = dropped || glued(before) || glued(chars.peek().copied());
            }
            Some(folded) => {
                for o in folded.chars() {
                    bytes.push(if o.is_ascii() { o as u8 } else { SUB });
                    origin.push(i);
                }
            }
            None => {
                bytes.push(SUB);
                origin.push(i);
            }
        }
    }
    dropped
}

/// The code point the uni view keeps for `c` (`None`: dropped as invisible).
fn uni_char(c: char, table: &Table) -> Option<char> {
    let cp = c as u32;
    let lower = match cp {
        0x41..=0x5A => cp + 0x20,
        0x410..=0x42F => cp + 0x20,
        0x400..=0x40F => cp + 0x50,
        _ if cp >= 0x80 && table.fold(cp) == Some("") => return None,
        _ => return Some(c),
    };
    Some(char::from_u32(lower).unwrap_or(c))
}

/// The uni view (non-ASCII text only): the text with invisible code points dropped, ASCII and Cyrillic
/// capitals lowercased, everything else kept, as UTF-8. Its rules are literal phrases in scripts the
/// ASCII views cannot see (CJK, Cyrillic, Hangul); `origin` (when wanted) maps each byte to its code
/// point.
pub fn uni_into(text: &str, table: &Table, bytes: &mut Vec<u8>, mut origin: Option<&mut Vec<u32>>) {
    let mut buf = [0u8; 4];
    for (i, c) in text.chars().enumerate() {
        let Some(kept) = uni_char(c, table) else {
            continue;
        };
        let encoded = kept.encode_utf8(&mut buf);
        bytes.extend_from_slice(encoded.as_bytes());
        if let Some(o) = origin.as_deref_mut() {
            o.extend(std::iter::repeat_n(i as u32, encoded.len()));
        }
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Maximal runs of `[a-z0-9]` in the fold view.
fn token_spans(fold: &[u8], spans: &mut Vec<(usize, usize)>) {
    spans.clear();
    let mut i = 0;
    while i < fold.len() {
        if is_word_byte(fold[i]) {
            let start = i;
            while i < fold.len() && is_word_byte(fold[i]) {
                i += 1;
            }
            spans.push((start, i));
        } else {
            i += 1;
        }
    }
}

fn leet(b: u8) -> u8 {
    match b {
        b'0' => b'o',
        b'1' => b'i',
        b'3' => b'e',
        b'4' => b'a',
        b'5' => b's',
        b'7' => b't',
        other => other,
    }
}

/// The words view, appended to `bytes` (and its offset map to `origin`, when given), and whether a
/// letter-spaced run ("i g n o r e") was joined. `spans` is scratch space.
///
/// Tokens are joined by single spaces. A run of three or more one-character tokens separated by the same
/// single non-newline character is joined into one token (two, once such a run was seen). Digits inside
/// a token that also has letters are read as leetspeak.
pub fn words_into(
    fold: View<'_>,
    bytes: &mut Vec<u8>,
    origin: Option<&mut Vec<u32>>,
    spans: &mut Vec<(usize, usize)>,
) -> bool {
    let with_origin = origin.is_some();
    let mut scratch = Vec::new();
    let origin = origin.unwrap_or(&mut scratch);
    let text = fold.text;
    token_spans(text, spans);
    let mut joined = false;
    // Fold position of the last character of the previous token; the space before the next token
    // stands for the separator right after it.
    let mut prev_last: Option<usize> = None;
    let space = |bytes: &mut Vec<u8>, origin: &mut Vec<u32>, prev: Option<usize>| {
        if let Some(last) = prev {
            bytes.push(b' ');
            if with_origin {
                origin.push(fold.origin(last + 1) as u32);
            }
        }
    };
    let mut i = 0;
    while i < spans.len() {
        let (s, e) = spans[i];
        if e - s == 1 && i + 1 < spans.len() {
            let sep = &text[e..spans[i + 1].0];
            let mut j = i;
            while j + 1 < spans.len()
                && spans[j + 1].1 - spans[j + 1].0 == 1
                && sep.len() == 1
                && sep[0] != b'\n'
                && &text[spans[j].1..spans[j + 1].0] == sep
            {
                j += 1;
            }
            // Three letters make a letter-spaced run; once one was seen, two do ("T O").
            if j - i + 1 >= if joined { 2 } else { 3 } {
                joined = true;
                space(bytes, origin, prev_last);
                let letters = || spans[i..=j].iter().map(|&(p, _)| p);
                let mixed = letters().any(|p| text[p].is_ascii_digit())
                    && letters().any(|p| text[p].is_ascii_lowercase());
                for p in letters() {
                    bytes.push(if mixed { leet(text[p]) } else { text[p] });
                }
                if with_origin {
                    origin.extend(letters().map(|p| fold.origin(p) as u32));
                }
                prev_last = Some(spans[j].0);
                i = j + 1;
                continue;
            }
        }
        space(bytes, origin, prev_last);
        let word = &text[s..e];
        let mixed = word.iter().any(u8::is_ascii_digit) && word.iter().any(u8::is_ascii_lowercase);
        if mixed {
            bytes.extend(word.iter().map(|&b| leet(b)));
        } else {
            bytes.extend_from_slice(word);
        }
        if with_origin {
            origin.extend((s..e).map(|p| fold.origin(p) as u32));
        }
        prev_last = Some(e - 1);
        i += 1;
    }
    joined
}

/// The squeeze view (the words view without its spaces) appended to `bytes`, and its offset map to
/// `origin` when `words` has one.
pub fn squeeze_into(words: View<'_>, bytes: &mut Vec<u8>, origin: &mut Vec<u32>) {
    bytes.extend(words.text.iter().copied().filter(|&b| b != b' '));
    if let Some(map) = words.origin {
        origin.extend(
            words
                .text
                .iter()
                .zip(map)
                .filter(|(&b, _)| b != b' ')
                .map(|(_, &o)| o),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::table::table;

    fn words(s: &str) -> String {
        let t = table().unwrap();
        let (mut fold, mut origin) = (Vec::new(), Vec::new());
        let fold = if s.is_ascii() {
            fold_ascii_into(s, &mut fold);
            View {
                text: &fold,
                origin: None,
            }
        } else {
            fold_into(s, t, &mut fold, &mut origin);
            View {
                text: &fold,
                origin: Some(&origin),
            }
        };
        let (mut bytes, mut origin, mut spans) = (Vec::new(), Vec::new(), Vec::new());
        words_into(fold, &mut bytes, Some(&mut origin), &mut spans);
        assert_eq!(bytes.len(), origin.len());
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn folds_confusables_fullwidth_and_invisibles() {
        let t = table().unwrap();
        let (mut bytes, mut origin) = (Vec::new(), Vec::new());
        let dropped = fold_into("Ｉgn\u{200b}оre", t, &mut bytes, &mut origin);
        assert_eq!(bytes, b"ignore");
        assert!(dropped);
        let view = View {
            text: &bytes,
            origin: Some(&origin),
        };
        assert_eq!(view.span(0, 6), (0, 7));
    }

    #[test]
    fn words_join_spacing_and_read_leetspeak() {
        assert_eq!(words("I G N O R E  A L L"), "ignore all");
        assert_eq!(words("i.g.n.o.r.e a.l.l"), "ignore all");
        assert_eq!(words("1gn0re. All!\nprevious"), "ignore all previous");
        assert_eq!(words("port 5432, v2"), "port 5432 v2");
        assert_eq!(words("Ｉgnore\u{200b} ALL"), "ignore all");
    }

    #[test]
    fn uni_view_drops_invisibles_and_lowercases_cyrillic() {
        let t = table().unwrap();
        let (mut bytes, mut origin) = (Vec::new(), Vec::new());
        uni_into("ИГН\u{200b}ОР x", t, &mut bytes, Some(&mut origin));
        assert_eq!(std::str::from_utf8(&bytes).unwrap(), "игнор x");
        assert_eq!(origin.last(), Some(&7));
    }
}
