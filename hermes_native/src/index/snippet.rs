//! Snippets: the best window of a stored message around the query's words, with highlight spans.
//!
//! Matches are the query's words as the index analyzer sees them, so highlights agree with what
//! matched: ASCII messages searched for ASCII words are scanned by substring search (a match is an
//! occurrence at a word start), anything else is re-analysed. Either way reading stops as soon as
//! one window holds every query word, and stored text is itself bounded
//! ([`super::schema::MAX_INDEXED_BYTES`]). The window with the most distinct query words (then the
//! most matches, then the earliest) wins; it is widened with context on both sides to `max_chars`
//! code points and, where a space is close, trimmed to whole words. The snippet is a verbatim
//! substring of the message; highlight spans are code-point offsets inside it, sorted and
//! non-overlapping. Words of negated parts of the query are not highlighted; the words of a phrase
//! are highlighted wherever they occur.

use std::ops::ControlFlow;

use super::query::Node;
use super::tokenizer::{for_each_token, Mode, MAX_TOKEN_CHARS};

/// Most matches collected from one message.
const MAX_MATCHES: usize = 4096;
/// How far (in code points) a window edge may move to land on a word boundary.
const SNAP_CHARS: usize = 12;

/// Which analysed tokens count as query words, grouped by query atom.
#[derive(Debug, Default)]
pub struct Matcher {
    /// Exact terms; queries have few, so a linear scan beats hashing.
    terms: Vec<(String, u32)>,
    prefixes: Vec<(String, u32)>,
    groups: u32,
}

impl Matcher {
    /// The positive words of a parsed query.
    pub fn new(node: &Node) -> Matcher {
        let mut matcher = Matcher::default();
        matcher.collect(node);
        matcher
    }

    fn collect(&mut self, node: &Node) {
        match node {
            Node::Atom(atom) => {
                let group = self.groups;
                self.groups += 1;
                let last = atom.tokens.len().saturating_sub(1);
                for (i, (_, text)) in atom.tokens.iter().enumerate() {
                    if atom.prefix && i == last {
                        self.prefixes.push((text.clone(), group));
                    } else {
                        if !self.terms.iter().any(|(t, _)| t == text) {
                            self.terms.push((text.clone(), group));
                        }
                    }
                }
            }
            Node::And(children) | Node::Or(children) => {
                children.iter().for_each(|c| self.collect(c))
            }
            Node::Not(_) => {}
        }
    }

    fn group_of(&self, token: &str) -> Option<u32> {
        if let Some((_, g)) = self.terms.iter().find(|(t, _)| t == token) {
            return Some(*g);
        }
        self.prefixes
            .iter()
            .find(|(p, _)| token.starts_with(p.as_str()))
            .map(|(_, g)| *g)
    }

    /// Whether every query word is ASCII (enables the substring-search fast path).
    fn is_ascii(&self) -> bool {
        self.terms
            .iter()
            .chain(&self.prefixes)
            .all(|(t, _)| t.is_ascii())
    }

    fn all_groups_mask(&self) -> Option<u64> {
        match self.groups {
            0 => None,
            1..=63 => Some((1u64 << self.groups) - 1),
            _ => None,
        }
    }
}

/// A snippet and its highlight spans (code points, relative to the snippet).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snippet {
    pub text: String,
    pub highlights: Vec<(usize, usize)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Match {
    byte: usize,
    chars: (usize, usize),
    group: u32,
}

fn group_bit(group: u32) -> u64 {
    if group < 64 {
        1 << group
    } else {
        0
    }
}

/// Gathers matches in text order and says when reading further cannot change the snippet.
struct Gather<'m> {
    matcher: &'m Matcher,
    full: Option<u64>,
    max_chars: usize,
    /// Once a window holds every query word, no later window can beat it: read on only to the end
    /// of the widest snippet that could contain it, for the extra highlights.
    stop_at: Option<usize>,
    matches: Vec<Match>,
}

impl<'m> Gather<'m> {
    fn new(matcher: &'m Matcher, max_chars: usize) -> Self {
        Gather {
            matcher,
            full: matcher.all_groups_mask(),
            max_chars,
            stop_at: None,
            matches: Vec::new(),
        }
    }

    /// Consider the token `text` at `byte` / `chars`; tokens must come in text order.
    fn offer(&mut self, text: &str, byte: usize, chars: (usize, usize)) -> ControlFlow<()> {
        if self.stop_at.is_some_and(|s| chars.0 >= s) {
            return ControlFlow::Break(());
        }
        let Some(group) = self.matcher.group_of(text) else {
            return ControlFlow::Continue(());
        };
        self.matches.push(Match { byte, chars, group });
        if self.matches.len() >= MAX_MATCHES {
            return ControlFlow::Break(());
        }
        if let (Some(full), None) = (self.full, self.stop_at) {
            let mut seen = 0u64;
            for m in self.matches.iter().rev() {
                if chars.1 - m.chars.0 > self.max_chars {
                    break;
                }
                seen |= group_bit(m.group);
                if seen == full {
                    self.stop_at = Some(m.chars.0 + self.max_chars);
                    break;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// The query words in `text`, by re-analysing it (any text).
fn collect_matches_analysed(text: &str, matcher: &Matcher, max_chars: usize) -> Vec<Match> {
    let mut gather = Gather::new(matcher, max_chars);
    for_each_token(text, Mode::Index, |token, chars| {
        gather.offer(&token.text, token.offset_from, chars)
    });
    gather.matches
}

/// The query words in an ASCII `text` for ASCII query words, found by substring search instead of
/// analysing every word: in ASCII text a word is a run of ASCII letters and digits, lowercased, so a
/// match is an occurrence of a query word at a word start. Gives exactly the matches of
/// [`collect_matches_analysed`] (tested below), several times faster on typical messages.
fn collect_matches_ascii(text: &str, matcher: &Matcher, max_chars: usize) -> Vec<Match> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut starts: Vec<usize> = Vec::new();
    for needle in matcher
        .terms
        .iter()
        .map(|(t, _)| t)
        .chain(matcher.prefixes.iter().map(|(p, _)| p))
    {
        starts.extend(
            lower
                .match_indices(needle.as_str())
                .map(|(i, _)| i)
                .filter(|&i| i == 0 || !bytes[i - 1].is_ascii_alphanumeric()),
        );
    }
    starts.sort_unstable();
    starts.dedup();
    let mut gather = Gather::new(matcher, max_chars);
    for start in starts {
        let end = start
            + bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
        let token = &lower[start..end.min(start + MAX_TOKEN_CHARS)];
        if gather.offer(token, start, (start, end)).is_break() {
            break;
        }
    }
    gather.matches
}

fn collect_matches(text: &str, matcher: &Matcher, max_chars: usize) -> Vec<Match> {
    if text.is_ascii() && matcher.is_ascii() {
        collect_matches_ascii(text, matcher, max_chars)
    } else {
        collect_matches_analysed(text, matcher, max_chars)
    }
}

/// Best `[first, last]` range of matches that fits in `max_chars`.
fn best_window(matches: &[Match], max_chars: usize) -> (usize, usize) {
    let mut best = (0, 0);
    let mut best_score = (0u32, 0usize);
    let mut end = 0;
    for start in 0..matches.len() {
        end = end.max(start);
        while end + 1 < matches.len()
            && matches[end + 1].chars.1 - matches[start].chars.0 <= max_chars
        {
            end += 1;
        }
        let mask = matches[start..=end]
            .iter()
            .fold(0u64, |m, x| m | group_bit(x.group));
        let score = (mask.count_ones(), end - start + 1);
        if score > best_score {
            best_score = score;
            best = (start, end);
        }
    }
    best
}

/// Walk `n` code points backwards from byte `at`; returns (byte, walked).
fn back(text: &str, at: usize, n: usize) -> (usize, usize) {
    let mut walked = 0;
    let mut byte = at;
    for (i, _) in text[..at].char_indices().rev().take(n) {
        byte = i;
        walked += 1;
    }
    (byte, walked)
}

/// Walk `n` code points forwards from byte `at`; returns (byte, walked).
fn forward(text: &str, at: usize, n: usize) -> (usize, usize) {
    let mut walked = 0;
    let mut byte = at;
    for c in text[at..].chars().take(n) {
        byte += c.len_utf8();
        walked += 1;
    }
    (byte, walked)
}

/// Cut the window's edges to whole words when a space is within [`SNAP_CHARS`] and the cut stays
/// outside `[keep_from, keep_to)` (bytes). Returns the new byte range and the code points dropped at
/// the start.
fn snap(text: &str, from: usize, to: usize, keep: (usize, usize)) -> (usize, usize, usize) {
    let (mut from, mut to, mut dropped) = (from, to, 0);
    let splits_word = |at: usize| {
        let before = text[..at].chars().next_back();
        let after = text[at..].chars().next();
        matches!((before, after), (Some(b), Some(a)) if !b.is_whitespace() && !a.is_whitespace())
    };
    if from > 0 && from <= keep.0 && splits_word(from) {
        let window = text[from..keep.0].char_indices().take(SNAP_CHARS);
        if let Some((n, (i, c))) = window.enumerate().find(|(_, (_, c))| c.is_whitespace()) {
            from += i + c.len_utf8();
            dropped = n + 1;
        }
    }
    if to < text.len() && keep.1 <= to && splits_word(to) {
        let window = text[keep.1..to].char_indices().rev().take(SNAP_CHARS);
        if let Some((i, _)) = window.into_iter().find(|(_, c)| c.is_whitespace()) {
            to = keep.1 + i;
        }
    }
    (from, to, dropped)
}

/// The snippet of `text` for `matcher`, at most `max_chars` code points long.
pub fn make_snippet(text: &str, matcher: &Matcher, max_chars: usize) -> Snippet {
    if max_chars == 0 || text.is_empty() {
        return Snippet::default();
    }
    let matches = collect_matches(text, matcher, max_chars);
    if matches.is_empty() {
        let (to, _) = forward(text, 0, max_chars);
        let (_, to, _) = snap(text, 0, to, (0, 0));
        return Snippet {
            text: text[..to].to_string(),
            highlights: Vec::new(),
        };
    }
    let (first, last) = best_window(&matches, max_chars);
    let span_chars = matches[last].chars.1 - matches[first].chars.0;
    let slack = max_chars.saturating_sub(span_chars);
    // Centre the matched span: half the slack before it, the rest after it.
    let anchor = matches[first];
    let (mut from, lead) = back(text, anchor.byte, slack / 2);
    let mut from_char = anchor.chars.0 - lead;
    let (mut to, walked) = forward(text, from, max_chars);
    if walked < max_chars {
        // The message ends early: spend the rest of the budget before the span.
        let (earlier, more) = back(text, from, max_chars - walked);
        from = earlier;
        from_char -= more;
    }
    let span_bytes = (
        anchor.byte,
        byte_of_char_end(text, anchor.byte, anchor.chars.0, matches[last].chars.1),
    );
    let (snapped_from, snapped_to, dropped) = snap(text, from, to, span_bytes);
    from = snapped_from;
    to = snapped_to;
    from_char += dropped;
    let to_char = from_char + text[from..to].chars().count();
    let mut highlights: Vec<(usize, usize)> = Vec::new();
    for m in &matches {
        if m.chars.0 < from_char || m.chars.1 > to_char {
            continue;
        }
        let span = (m.chars.0 - from_char, m.chars.1 - from_char);
        match highlights.last_mut() {
            Some(prev) if span.0 <= prev.1 => prev.1 = prev.1.max(span.1),
            _ => highlights.push(span),
        }
    }
    Snippet {
        text: text[from..to].to_string(),
        highlights,
    }
}

/// Byte offset of code point `end_char`, walking forward from a known (byte, char) anchor.
fn byte_of_char_end(text: &str, anchor_byte: usize, anchor_char: usize, end_char: usize) -> usize {
    forward(text, anchor_byte, end_char - anchor_char).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::query::parse;

    fn snip(text: &str, query: &str, max: usize) -> (String, Vec<String>) {
        let node = parse(query).unwrap().unwrap();
        let s = make_snippet(text, &Matcher::new(&node), max);
        let chars: Vec<char> = s.text.chars().collect();
        let words = s
            .highlights
            .iter()
            .map(|(a, b)| chars[*a..*b].iter().collect())
            .collect();
        (s.text, words)
    }

    #[test]
    fn highlights_words_and_prefixes() {
        let (text, words) = snip("Set the Config file and configure it.", "conf*", 100);
        assert_eq!(text, "Set the Config file and configure it.");
        assert_eq!(words, vec!["Config", "configure"]);
    }

    #[test]
    fn window_moves_to_the_match_in_long_text() {
        let long = format!(
            "{} needle here {}",
            "lorem ipsum ".repeat(200),
            "dolor sit ".repeat(200)
        );
        let (text, words) = snip(&long, "needle", 40);
        assert!(text.chars().count() <= 40);
        assert!(text.contains("needle"));
        assert_eq!(words, vec!["needle"]);
    }

    #[test]
    fn cjk_bigrams_merge_into_one_span() {
        let (_, words) = snip("这个函数返回一个列表", "函数返回", 50);
        assert_eq!(words, vec!["函数返回"]);
        let (_, words) = snip("这个函数返回一个列表", "数", 50);
        assert_eq!(words, vec!["数"]);
    }

    #[test]
    fn prefers_windows_with_all_words() {
        let text = format!("alpha {} alpha beta {}", "x ".repeat(100), "y ".repeat(100));
        let (_, words) = snip(&text, "alpha beta", 30);
        assert_eq!(words, vec!["alpha", "beta"]);
    }

    #[test]
    fn negated_words_are_not_highlighted() {
        let (_, words) = snip("keep drop keep", "keep -drop", 50);
        assert_eq!(words, vec!["keep", "keep"]);
    }

    #[test]
    fn ascii_fast_path_finds_exactly_what_analysis_finds() {
        // A small deterministic generator: words from a tiny vocabulary (so queries hit), some
        // long words, mixed case and punctuation.
        let vocab = [
            "conf",
            "config",
            "Configure",
            "a",
            "ab",
            "abc",
            "x1",
            "X1y",
            "the",
            "THE",
        ];
        let seps = [" ", "  ", ".", "_", "-", "\n", "(", "'"];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let queries = [
            "conf",
            "conf*",
            "a*",
            "the config",
            "x1 ab*",
            "\"a ab\"",
            "configure -the",
            "c*",
        ];
        for round in 0..3000 {
            let mut text = String::new();
            for _ in 0..next(40) {
                let word = vocab[next(vocab.len())];
                text.push_str(&if next(50) == 0 {
                    word.repeat(40)
                } else {
                    word.to_string()
                });
                text.push_str(seps[next(seps.len())]);
            }
            let query = queries[round % queries.len()];
            let node = parse(query).unwrap().unwrap();
            let matcher = Matcher::new(&node);
            for max in [5, 40, 160] {
                assert_eq!(
                    collect_matches_ascii(&text, &matcher, max),
                    collect_matches_analysed(&text, &matcher, max),
                    "{query:?} in {text:?} ({max})"
                );
            }
        }
    }

    #[test]
    fn zero_budget_gives_an_empty_snippet() {
        let node = parse("x").unwrap().unwrap();
        assert_eq!(
            make_snippet("x y", &Matcher::new(&node), 0),
            Snippet::default()
        );
    }
}
