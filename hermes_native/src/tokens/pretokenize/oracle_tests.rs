//! Differential tests of the hand-written pre-tokenizers against fancy-regex, the engine tiktoken
//! itself splits with, running tiktoken's patterns. Every code point is tried in several contexts,
//! then random mixtures of characters from every class the patterns distinguish.

use fancy_regex::Regex;

use super::test_support::split;
use super::{cl100k, o200k, Cl100k, O200k, Split};

fn oracle(re: &Regex, text: &str) -> Vec<String> {
    re.find_iter(text)
        .map(|m| m.expect("regex ran").as_str().to_owned())
        .collect()
}

fn check<S: Split>(re: &Regex, text: &str) {
    let ours: Vec<&str> = split::<S>(text);
    let theirs = oracle(re, text);
    assert_eq!(
        ours, theirs,
        "split of {text:?} differs from the regex engine's"
    );
}

/// Contexts that tell the classes apart: letter case sets, prefixes, numbers, punctuation runs,
/// whitespace runs and the contraction folds.
fn contexts(c: char) -> String {
    format!("a{c}b {c}B\n{c}1 '{c}A{c}{c}a\u{301}{c}. {c}\r\n{c}  {c}/x'{c}l {c}")
}

#[test]
fn every_code_point_in_context_matches_the_regex_engine() {
    let cl = Regex::new(cl100k::PATTERN).unwrap();
    let o2 = Regex::new(o200k::PATTERN).unwrap();
    for c in (0..=0x10ffff).filter_map(char::from_u32) {
        let text = contexts(c);
        check::<Cl100k>(&cl, &text);
        check::<O200k>(&o2, &text);
    }
}

#[test]
fn random_mixtures_match_the_regex_engine() {
    // Representatives of every class and the characters the patterns name explicitly.
    let pool: Vec<char> =
        "aZzA'sStTlLdDmMrReEvVſ0123٣½ \t\r\n\u{b}\u{c}\u{85}\u{a0}\u{2028}\u{3000}.,!?/-_\
                           \u{301}\u{903}\u{20dd}ǅʰ中ｶ😀\u{200d}🇺\u{fe0f}é\u{1c89}"
            .chars()
            .collect();
    let cl = Regex::new(cl100k::PATTERN).unwrap();
    let o2 = Regex::new(o200k::PATTERN).unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200_000 {
        let len = (next() % 16) as usize;
        let text: String = (0..len)
            .map(|_| pool[(next() % pool.len() as u64) as usize])
            .collect();
        check::<Cl100k>(&cl, &text);
        check::<O200k>(&o2, &text);
    }
}
