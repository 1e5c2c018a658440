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
    fn uni_view_drops_invisibles_and_lowercases_cyrillic() {
        let t = table().unwrap();
        let (mut bytes, mut origin) = (Vec::new(), Vec::new());
        uni_into("ИГН\u{200b}ОР X", t, &mut bytes, Some(&mut origin));
        assert_eq!(std::str::from_utf8(&bytes).unwrap(), "игнор x");
        assert_eq!(origin.last(), Some(&7));
        assert_eq!(
            views("ИГН\u{200b}ОР X").uni,
            bytes,
            "the one-pass build agrees"
        );
    }
}
