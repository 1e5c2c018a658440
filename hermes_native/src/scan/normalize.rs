//! The views the rules run against, each with a map back to code-point offsets in the scanned text.
//!
//! All views are pure ASCII (what cannot be folded to ASCII becomes 0x1A), which keeps the Rust and
//! Python regex engines in exact agreement and makes a view offset a plain index. ASCII input takes a
//! fast path: no table look-ups and identity offset maps.

use std::borrow::Cow;

use super::table::Table;

/// Stand-in for code points that have no ASCII fold.
pub const SUB: u8 = 0x1a;

/// One view: ASCII bytes and, unless the view is 1:1 with the scanned text, the code-point offset each
/// byte comes from.
#[derive(Debug)]
pub struct View<'a> {
    pub text: Cow<'a, [u8]>,
    origin: Option<Vec<u32>>,
}

impl View<'_> {
    /// Code-point offset in the scanned text of view position `i`.
    pub fn origin(&self, i: usize) -> usize {
        match &self.origin {
            Some(map) => map[i] as usize,
            None => i,
        }
    }

    /// Span in the scanned text covered by the view span `[start, end)` (`end > start`).
    pub fn span(&self, start: usize, end: usize) -> (usize, usize) {
        (self.origin(start), self.origin(end - 1) + 1)
    }
}

/// The raw view: the text itself, non-ASCII code points replaced by [`SUB`], case kept.
pub fn raw_view(text: &str, ascii: bool) -> View<'_> {
    if ascii {
        return View {
            text: Cow::Borrowed(text.as_bytes()),
            origin: None,
        };
    }
    let bytes = text
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { SUB })
        .collect();
    View {
        text: Cow::Owned(bytes),
        origin: None,
    }
}

/// The fold view, and whether an invisible code point or mark was dropped next to an ASCII letter or
/// digit (what gluing words together looks like).
pub fn fold_view<'a>(text: &'a str, ascii: bool, table: &Table) -> (View<'a>, bool) {
    if ascii {
        let bytes = text.as_bytes().to_ascii_lowercase();
        return (
            View {
                text: Cow::Owned(bytes),
                origin: None,
            },
            false,
        );
    }
    let mut bytes = Vec::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    let mut dropped = false;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    let mut i: u32 = 0;
    while let Some(c) = chars.next() {
        let before = prev.replace(c);
        let at = i;
        i += 1;
        if c.is_ascii() {
            bytes.push(c.to_ascii_lowercase() as u8);
            origin.push(at);
            continue;
        }
        let i = at;
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
    (
        View {
            text: Cow::Owned(bytes),
            origin: Some(origin),
        },
        dropped,
    )
}

/// The uni view (non-ASCII text only): the text with invisible code points dropped, ASCII and Cyrillic
/// capitals lowercased, everything else kept, as UTF-8. Its rules are literal phrases in scripts the
/// ASCII views cannot see (CJK, Cyrillic, Hangul); offsets map each byte to its code point.
pub fn uni_view<'a>(text: &str, table: &Table) -> View<'a> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for (i, c) in text.chars().enumerate() {
        let cp = c as u32;
        let lower = match cp {
            0x41..=0x5A => cp + 0x20,
            0x410..=0x42F => cp + 0x20,
            0x400..=0x40F => cp + 0x50,
            _ if cp >= 0x80 && table.fold(cp) == Some("") => continue,
            _ => cp,
        };
        let encoded = char::from_u32(lower).unwrap_or(c).encode_utf8(&mut buf);
        bytes.extend_from_slice(encoded.as_bytes());
        origin.extend(std::iter::repeat_n(i as u32, encoded.len()));
    }
    View {
        text: Cow::Owned(bytes),
        origin: Some(origin),
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `$` and `@` inside a word are leetspeak ("pa$$w0rd", "p@ssw0rd").
fn is_leet_symbol(b: u8) -> bool {
    b == b'$' || b == b'@'
}

/// Words of the fold view: runs of `[a-z0-9]`, joined across `$` and `@` runs between two of them
/// (`[a-z0-9]+(?:[$@]+[a-z0-9]+)*`), except that a run joined across `@` without any digit is split
/// again (an e-mail address, not leetspeak).
fn token_spans(fold: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < fold.len() {
        if !is_word_byte(fold[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end;
        loop {
            while i < fold.len() && is_word_byte(fold[i]) {
                i += 1;
            }
            end = i;
            let mut j = i;
            while j < fold.len() && is_leet_symbol(fold[j]) {
                j += 1;
            }
            if j > i && j < fold.len() && is_word_byte(fold[j]) {
                i = j;
            } else {
                break;
            }
        }
        let word = &fold[start..end];
        if word.contains(&b'@') && !word.iter().any(u8::is_ascii_digit) {
            let mut k = start;
            while k < end {
                if is_word_byte(fold[k]) {
                    let s = k;
                    while k < end && is_word_byte(fold[k]) {
                        k += 1;
                    }
                    spans.push((s, k));
                } else {
                    k += 1;
                }
            }
        } else {
            spans.push((start, end));
        }
        i = end;
    }
    spans
}

fn leet(b: u8) -> u8 {
    match b {
        b'0' => b'o',
        b'1' => b'i',
        b'3' => b'e',
        b'4' => b'a',
        b'5' => b's',
        b'7' => b't',
        b'8' => b'b',
        b'9' => b'g',
        b'$' => b's',
        b'@' => b'a',
        other => other,
    }
}

fn is_leet_digit(b: u8) -> bool {
    b.is_ascii_digit() && leet(b) != b
}

/// A word written in leetspeak: three or more characters, a letter and a digit that reads as one.
fn is_leet_word(word: &[u8]) -> bool {
    word.len() >= 3
        && word.iter().any(u8::is_ascii_lowercase)
        && word.iter().any(|&b| is_leet_digit(b))
}

/// The words view, and whether a letter-spaced run ("i g n o r e") was joined.
///
/// Tokens are joined by single spaces. A run of three or more one-character tokens separated by
/// single characters other than a line break is joined into one token (two, once such a run was
/// seen) when the separators are all the same or all punctuation ("s.e-n_t"). A token that mixes
/// letters with digits, `$` or `@` is read as leetspeak, and so is a number of one or two such
/// digits next to a leetspeak word ("70 h3lp" -> "to help").
pub fn words_view<'a>(fold: &View<'_>, with_origin: bool) -> (View<'a>, bool) {
    let text = &fold.text;
    let spans = token_spans(text);
    let mut joined = false;
    // Each token as the fold positions of its characters.
    let mut tokens: Vec<Vec<usize>> = Vec::with_capacity(spans.len());
    let mut i = 0;
    while i < spans.len() {
        let (s, e) = spans[i];
        if e - s == 1 && i + 1 < spans.len() {
            let first = &text[e..spans[i + 1].0];
            let punct = |sep: &[u8]| sep.len() == 1 && !sep[0].is_ascii_whitespace();
            let mut j = i;
            while j + 1 < spans.len() && spans[j + 1].1 - spans[j + 1].0 == 1 {
                let sep = &text[spans[j].1..spans[j + 1].0];
                let same = sep.len() == 1 && sep[0] != b'\n' && sep == first;
                if !(same || (punct(sep) && punct(first))) {
                    break;
                }
                j += 1;
            }
            // Three letters make a letter-spaced run; once one was seen, two do ("T O").
            if j - i + 1 >= if joined { 2 } else { 3 } {
                joined = true;
                tokens.push(spans[i..=j].iter().map(|&(p, _)| p).collect());
                i = j + 1;
                continue;
            }
        }
        tokens.push((s..e).collect());
        i += 1;
    }
    let words: Vec<Vec<u8>> = tokens
        .iter()
        .map(|t| t.iter().map(|&p| text[p]).collect())
        .collect();
    let leet_number = |n: usize| {
        let w = &words[n];
        w.len() <= 2
            && w.iter().all(|&b| is_leet_digit(b))
            && ((n > 0 && is_leet_word(&words[n - 1]))
                || words.get(n + 1).is_some_and(|next| is_leet_word(next)))
    };
    let mut bytes = Vec::with_capacity(text.len());
    let mut origin = Vec::with_capacity(if with_origin { text.len() } else { 0 });
    for (n, (word, positions)) in words.iter().zip(&tokens).enumerate() {
        if n > 0 {
            // The space stands for the separator right after the previous token.
            bytes.push(b' ');
            if with_origin {
                origin.push(fold.origin(tokens[n - 1][tokens[n - 1].len() - 1] + 1) as u32);
            }
        }
        let digits = word.iter().all(u8::is_ascii_digit);
        let letters = word.iter().all(u8::is_ascii_lowercase);
        if (!digits && !letters) || (digits && leet_number(n)) {
            bytes.extend(word.iter().map(|&b| leet(b)));
        } else {
            bytes.extend_from_slice(word);
        }
        if with_origin {
            origin.extend(positions.iter().map(|&p| fold.origin(p) as u32));
        }
    }
    (
        View {
            text: Cow::Owned(bytes),
            origin: with_origin.then_some(origin),
        },
        joined,
    )
}

/// The squeeze view: the words view without its spaces.
///
/// Its offset map is built only when `words` has one.
pub fn squeeze_view<'a>(words: &View<'_>) -> View<'a> {
    let bytes = words.text.iter().copied().filter(|&b| b != b' ').collect();
    let origin = words.origin.as_ref().map(|map| {
        words
            .text
            .iter()
            .zip(map)
            .filter(|(&b, _)| b != b' ')
            .map(|(_, &o)| o)
            .collect()
    });
    View {
        text: Cow::Owned(bytes),
        origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::table::table;

    fn words(s: &str) -> String {
        let t = table().unwrap();
        let (fold, _) = fold_view(s, s.is_ascii(), t);
        let (w, _) = words_view(&fold, true);
        String::from_utf8(w.text.into_owned()).unwrap()
    }

    #[test]
    fn folds_confusables_fullwidth_and_invisibles() {
        let t = table().unwrap();
        let (fold, dropped) = fold_view("Ｉgn\u{200b}оre", false, t);
        assert_eq!(&*fold.text, b"ignore");
        assert!(dropped);
        assert_eq!(fold.span(0, 6), (0, 7));
    }

    #[test]
    fn words_join_spacing_and_read_leetspeak() {
        assert_eq!(words("I G N O R E  A L L"), "ignore all");
        assert_eq!(words("i.g.n.o.r.e a.l.l"), "ignore all");
        assert_eq!(words("1gn0re. All!\nprevious"), "ignore all previous");
        assert_eq!(words("port 5432, v2"), "port 5432 v2");
        assert_eq!(words("s.e-n_t it"), "sent it");
        assert_eq!(
            words("p4$$w0rd u$3r alice@example.com"),
            "password user alice example com"
        );
        assert_eq!(words("70 h3lp at 10 am"), "to help at 10 am");
    }
}
