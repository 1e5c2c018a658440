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

/// The fold view of ASCII text: the text lowercased. (Its raw view is the text itself, its offset maps
/// are the identity, and it has no uni view.)
pub fn fold_ascii_into(text: &str, out: &mut Vec<u8>) {
    out.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
}

/// The views of non-ASCII text built in one pass over its code points.
pub struct NonAscii<'a> {
    /// The raw view: non-ASCII code points replaced by [`SUB`], case kept.
    pub raw: &'a mut Vec<u8>,
    /// The fold view and its offset map.
    pub fold: &'a mut Vec<u8>,
    pub fold_origin: &'a mut Vec<u32>,
    /// The uni view (see [`uni_into`]).
    pub uni: &'a mut Vec<u8>,
}

/// Append the raw, fold and uni views of non-ASCII `text` to `views`; whether an invisible code point
/// or mark was dropped from the fold view next to an ASCII letter or digit (what gluing words
/// together looks like).
pub fn non_ascii_into(text: &str, table: &Table, views: NonAscii<'_>) -> bool {
    let NonAscii {
        raw,
        fold,
        fold_origin,
        uni,
    } = views;
    let glued = |x: Option<char>| x.is_some_and(|x| x.is_ascii_alphanumeric());
    let mut dropped = false;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    let mut at: u32 = 0;
    let mut buf = [0u8; 4];
    while let Some(c) = chars.next() {
        let before = prev.replace(c);
        let i = at;
        at += 1;
        if c.is_ascii() {
            let lower = c.to_ascii_lowercase() as u8;
            raw.push(c as u8);
            fold.push(lower);
            fold_origin.push(i);
            uni.push(lower);
            continue;
        }
        raw.push(SUB);
        match table.fold(c as u32) {
            Some("") => {
                dropped = dropped || glued(before) || glued(chars.peek().copied());
                continue;
            }
            Some(folded) => {
                for o in folded.chars() {
                    fold.push(if o.is_ascii() { o as u8 } else { SUB });
                    fold_origin.push(i);
                }
            }
            None => {
                fold.push(SUB);
                fold_origin.push(i);
            }
        }
        uni.extend_from_slice(uni_lower(c).encode_utf8(&mut buf).as_bytes());
    }
    dropped
}

/// ASCII and Cyrillic capitals lowercased, as the uni view has them.
fn uni_lower(c: char) -> char {
    let cp = c as u32;
    let lower = match cp {
        0x41..=0x5A | 0x410..=0x42F => cp + 0x20,
        0x400..=0x40F => cp + 0x50,
        _ => return c,
    };
    char::from_u32(lower).unwrap_or(c)
}

/// The code point the uni view keeps for `c` (`None`: dropped as invisible).
fn uni_char(c: char, table: &Table) -> Option<char> {
    if !c.is_ascii() && table.fold(c as u32) == Some("") {
        return None;
    }
    Some(uni_lower(c))
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

/// `[a-z0-9]`, as a table.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_lowercase() || (b as u8).is_ascii_digit();
        b += 1;
    }
    t
};

/// The words view without its offset map, in one pass, for text without two one-character tokens
/// separated by one byte (where letter spacing could start): returns `false`, having appended nothing,
/// for other text. Without letter-spaced runs the words view is the tokens joined by single spaces,
/// leetspeak read in tokens that mix letters and digits.
fn words_fast(text: &[u8], out: &mut Vec<u8>) -> bool {
    let first = out.len();
    let n = text.len();
    let mut i = 0;
    while i < n {
        while i < n && !WORD[text[i] as usize] {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        let (mut digits, mut letters) = (false, false);
        while i < n && WORD[text[i] as usize] {
            digits |= text[i].is_ascii_digit();
            letters |= text[i].is_ascii_lowercase();
            i += 1;
        }
        if i - start == 1
            && i + 1 < n
            && text[i] != b'\n'
            && WORD[text[i + 1] as usize]
            && (i + 2 == n || !WORD[text[i + 2] as usize])
        {
            out.truncate(first);
            return false;
        }
        if out.len() > first {
            out.push(b' ');
        }
        if digits && letters {
            out.extend(text[start..i].iter().map(|&b| leet(b)));
        } else {
            out.extend_from_slice(&text[start..i]);
        }
    }
    true
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
    if origin.is_none() && words_fast(fold.text, bytes) {
        return false;
    }
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

    #[derive(Default)]
    struct Views {
        raw: Vec<u8>,
        fold: Vec<u8>,
        fold_origin: Vec<u32>,
        uni: Vec<u8>,
        dropped: bool,
    }

    fn views(s: &str) -> Views {
        let mut v = Views::default();
        if s.is_ascii() {
            fold_ascii_into(s, &mut v.fold);
            v.fold_origin = (0..s.len() as u32).collect();
        } else {
            let views = NonAscii {
                raw: &mut v.raw,
                fold: &mut v.fold,
                fold_origin: &mut v.fold_origin,
                uni: &mut v.uni,
            };
            v.dropped = non_ascii_into(s, table().unwrap(), views);
        }
        v
    }

    /// The words view, checking that the one-pass and the mapped builds agree.
    fn words(s: &str) -> String {
        let v = views(s);
        let fold = View {
            text: &v.fold,
            origin: Some(&v.fold_origin),
        };
        let (mut bytes, mut origin, mut spans) = (Vec::new(), Vec::new(), Vec::new());
        words_into(fold, &mut bytes, Some(&mut origin), &mut spans);
        assert_eq!(bytes.len(), origin.len());
        let mut plain = Vec::new();
        words_into(fold, &mut plain, None, &mut spans);
        assert_eq!(plain, bytes);
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn folds_confusables_fullwidth_and_invisibles() {
        let v = views("Ｉgn\u{200b}оre");
        assert_eq!(v.fold, b"ignore");
        assert_eq!(v.raw, b"\x1agn\x1a\x1are");
        assert!(v.dropped);
        let view = View {
            text: &v.fold,
            origin: Some(&v.fold_origin),
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
        assert_eq!(words("I G N O R E x, a b"), "ignorex ab");
        assert_eq!(words("a, b. c d"), "a b c d");
    }

    #[test]
    fn uni_view_drops_invisibles_and_lowercases_cyrillic() {
        let t = table().unwrap();
        let (mut bytes, mut origin) = (Vec::new(), Vec::new());
        uni_into("ИГН\u{200b}ОР X", t, &mut bytes, Some(&mut origin));
        assert_eq!(std::str::from_utf8(&bytes).unwrap(), "игнор x");
        assert_eq!(origin.last(), Some(&7));
        assert_eq!(views("ИГН\u{200b}ОР X").uni, bytes, "the one-pass build agrees");
    }
}
