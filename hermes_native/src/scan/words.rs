//! The words and squeeze views, built from the fold view.
//!
//! Words are runs of `[a-z0-9]`, joined across `$` and `@` ("pa$$w0rd"), letter-spaced runs
//! ("i g n o r e", "s.e-n_t") joined into one word, leetspeak read back as letters. The words view is
//! the words joined by single spaces; the squeeze view is the words view without its spaces.

use super::normalize::View;

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `$` and `@` inside a word are leetspeak ("pa$$w0rd", "p@ssw0rd").
fn is_leet_symbol(b: u8) -> bool {
    b == b'$' || b == b'@'
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

/// One word of the words view: fold positions `start..end`, or for a letter-spaced run, indexes
/// `start..end` into [`Scratch::run_pos`].
#[derive(Debug, Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    run: bool,
    /// Every byte a digit.
    digits: bool,
    /// Every byte a lowercase letter.
    letters: bool,
    /// A word written in leetspeak: three or more characters, a letter and a digit that reads as one.
    leet_word: bool,
    /// One or two digits that all read as letters.
    leet_digits: bool,
}

/// Scratch space for [`words_into`], reused from text to text.
#[derive(Debug, Default)]
pub struct Scratch {
    spans: Vec<(usize, usize)>,
    tokens: Vec<Token>,
    run_pos: Vec<usize>,
}

/// Words of the fold view: runs of `[a-z0-9]`, joined across `$` and `@` runs between two of them
/// (`[a-z0-9]+(?:[$@]+[a-z0-9]+)*`), except that a run joined across `@` without any digit is split
/// again (an e-mail address, not leetspeak).
fn token_spans(fold: &[u8], spans: &mut Vec<(usize, usize)>) {
    spans.clear();
    let n = fold.len();
    let mut i = 0;
    while i < n {
        if !is_word_byte(fold[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end;
        let mut symbols = false;
        loop {
            while i < n && is_word_byte(fold[i]) {
                i += 1;
            }
            end = i;
            let mut j = i;
            while j < n && is_leet_symbol(fold[j]) {
                j += 1;
            }
            if j > i && j < n && is_word_byte(fold[j]) {
                symbols = true;
                i = j;
            } else {
                break;
            }
        }
        let word = &fold[start..end];
        if symbols && word.contains(&b'@') && !word.iter().any(u8::is_ascii_digit) {
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
}

impl Token {
    fn new(start: usize, end: usize, run: bool, bytes: impl Iterator<Item = u8> + Clone) -> Token {
        let len = end - start;
        let digits = bytes.clone().all(|b| b.is_ascii_digit());
        let letters = bytes.clone().all(|b| b.is_ascii_lowercase());
        let has_letter = !digits && bytes.clone().any(|b| b.is_ascii_lowercase());
        let has_leet_digit = !letters && bytes.clone().any(is_leet_digit);
        Token {
            start,
            end,
            run,
            digits,
            letters,
            leet_word: len >= 3 && has_letter && has_leet_digit,
            leet_digits: len <= 2 && bytes.clone().all(is_leet_digit),
        }
    }

    /// Fold position of character `k` of the word.
    fn pos(&self, k: usize, run_pos: &[usize]) -> usize {
        if self.run {
            run_pos[self.start + k]
        } else {
            self.start + k
        }
    }

    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// The words of `text` (the fold view) into `tokens`, and whether a letter-spaced run was joined.
///
/// A run of three or more one-character tokens separated by single characters other than a line
/// break is joined into one token (two, once such a run was seen) when the separators are all the
/// same or all punctuation ("s.e-n_t").
fn tokens(text: &[u8], s: &mut Scratch) -> bool {
    token_spans(text, &mut s.spans);
    s.tokens.clear();
    s.run_pos.clear();
    let spans = &s.spans;
    let punct = |sep: &[u8]| sep.len() == 1 && !sep[0].is_ascii_whitespace();
    let mut joined = false;
    let mut i = 0;
    while i < spans.len() {
        let (start, end) = spans[i];
        if end - start == 1 && i + 1 < spans.len() {
            let first = &text[end..spans[i + 1].0];
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
                let from = s.run_pos.len();
                s.run_pos.extend(spans[i..=j].iter().map(|&(p, _)| p));
                let bytes = s.run_pos[from..].iter().map(|&p| text[p]);
                let token = Token::new(from, s.run_pos.len(), true, bytes);
                s.tokens.push(token);
                i = j + 1;
                continue;
            }
        }
        let token = Token::new(start, end, false, text[start..end].iter().copied());
        s.tokens.push(token);
        i += 1;
    }
    joined
}

/// The words view, appended to `bytes` (and its offset map to `origin`, when given), and whether a
/// letter-spaced run ("i g n o r e") was joined.
///
/// Tokens are joined by single spaces. A token that mixes letters with digits, `$` or `@` is read as
/// leetspeak, and so is a number of one or two such digits next to a leetspeak word ("70 h3lp" ->
/// "to help").
pub fn words_into(
    fold: View<'_>,
    bytes: &mut Vec<u8>,
    mut origin: Option<&mut Vec<u32>>,
    scratch: &mut Scratch,
) -> bool {
    let text = fold.text;
    let joined = tokens(text, scratch);
    let (toks, run_pos) = (&scratch.tokens, &scratch.run_pos);
    for (n, t) in toks.iter().enumerate() {
        if n > 0 {
            // The space stands for the separator right after the previous token.
            bytes.push(b' ');
            if let Some(o) = origin.as_deref_mut() {
                let prev = &toks[n - 1];
                o.push(fold.origin(prev.pos(prev.len() - 1, run_pos) + 1) as u32);
            }
        }
        let leet_number = t.leet_digits
            && ((n > 0 && toks[n - 1].leet_word) || toks.get(n + 1).is_some_and(|x| x.leet_word));
        let read = (!t.digits && !t.letters) || (t.digits && leet_number);
        if t.run {
            let chars = run_pos[t.start..t.end].iter().map(|&p| text[p]);
            if read {
                bytes.extend(chars.map(leet));
            } else {
                bytes.extend(chars);
            }
        } else if read {
            bytes.extend(text[t.start..t.end].iter().map(|&b| leet(b)));
        } else {
            bytes.extend_from_slice(&text[t.start..t.end]);
        }
        if let Some(o) = origin.as_deref_mut() {
            o.extend((0..t.len()).map(|k| fold.origin(t.pos(k, run_pos)) as u32));
        }
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
    use crate::scan::normalize::{fold_ascii_into, non_ascii_into, NonAscii};
    use crate::scan::table::table;

    /// The words view, checking that the plain and the mapped builds agree.
    fn words(s: &str) -> String {
        let (mut raw, mut fold, mut fold_origin, mut uni) = (vec![], vec![], vec![], vec![]);
        if s.is_ascii() {
            fold_ascii_into(s, &mut fold);
            fold_origin = (0..s.len() as u32).collect();
        } else {
            let views = NonAscii {
                raw: &mut raw,
                fold: &mut fold,
                fold_origin: &mut fold_origin,
                uni: &mut uni,
            };
            non_ascii_into(s, table().unwrap(), views);
        }
        let fold = View {
            text: &fold,
            origin: Some(&fold_origin),
        };
        let (mut bytes, mut origin, mut scratch) = (Vec::new(), Vec::new(), Scratch::default());
        words_into(fold, &mut bytes, Some(&mut origin), &mut scratch);
        assert_eq!(bytes.len(), origin.len());
        let mut plain = Vec::new();
        words_into(fold, &mut plain, None, &mut scratch);
        assert_eq!(plain, bytes);
        String::from_utf8(bytes).unwrap()
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
        assert_eq!(words("s.e-n_t it"), "sent it");
        assert_eq!(
            words("p4$$w0rd u$3r alice@example.com"),
            "password user alice example com"
        );
        assert_eq!(words("70 h3lp at 10 am"), "to help at 10 am");
    }

    #[test]
    fn spaces_map_to_the_separator_after_the_previous_word() {
        let fold = b"ab, cd";
        let view = View {
            text: fold,
            origin: None,
        };
        let (mut bytes, mut origin) = (Vec::new(), Vec::new());
        words_into(view, &mut bytes, Some(&mut origin), &mut Scratch::default());
        assert_eq!(bytes, b"ab cd");
        assert_eq!(origin, [0, 1, 2, 4, 5]);
    }
}
