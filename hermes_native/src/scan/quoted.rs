//! Quoted specimens: notes that describe attacks quote them ("the guard flags phrases like 'ignore
//! previous instructions'", "fixtures such as '...'"). A finding of the instruction categories that
//! lies wholly inside such a quotation is dropped. Narrow on purpose: the quotation must directly
//! follow a word that introduces an example, the few words before it must not order the model to do
//! anything, and secrets, invisible characters and encoded payloads are never dropped.

use super::Hit;

/// Longest quotation (code points between the quote marks) taken as a specimen.
const MAX_QUOTE: usize = 200;
/// Code points before the opening quote searched for the cue and for directive words.
const CONTEXT: usize = 40;

const PAIRS: [(char, char); 9] = [
    ('\'', '\''),
    ('"', '"'),
    ('`', '`'),
    ('\u{2018}', '\u{2019}'),
    ('\u{201c}', '\u{201d}'),
    ('\u{ab}', '\u{bb}'),
    ('\u{201e}', '\u{201c}'),
    ('\u{300c}', '\u{300d}'),
    ('\u{300e}', '\u{300f}'),
];

/// Words that introduce an example when they directly precede the quotation.
const CUES: [&str; 45] = [
    "like",
    "such as",
    "e.g.",
    "e.g",
    "eg",
    "i.e.",
    "for example",
    "for instance",
    "example",
    "examples",
    "phrase",
    "phrases",
    "string",
    "strings",
    "pattern",
    "patterns",
    "attack",
    "attacks",
    "payload",
    "payloads",
    "fixture",
    "fixtures",
    "sample",
    "samples",
    "quote",
    "quotes",
    "quoted",
    "flags",
    "flagged",
    "detects",
    "detected",
    "blocks",
    "blocked",
    "catches",
    "matches",
    "lines",
    "entries",
    "jailbreak",
    "jailbreaks",
    "injection",
    "injections",
    "answer key",
    "slide",
    "glossary",
    "definition",
];

/// Words that mark the few words before a quotation as teaching or reporting about attacks (training
/// material, quizzes, moderation guidelines, post-mortems): a quotation after them is a specimen
/// even without a cue right before it, unless a directive word is there too.
const TEACHING: [&str; 21] = [
    "attacker",
    "attackers",
    "attacker's",
    "malicious",
    "post-mortem",
    "postmortem",
    "incident",
    "quiz",
    "glossary",
    "slide",
    "training",
    "awareness",
    "moderation",
    "phishing",
    "jailbreak",
    "red-team",
    "injection",
    "injections",
    "classic",
    "specimen",
    "specimens",
];

/// Words before the quotation that turn it into an order ("always reply with phrases like '...'").
const DIRECTIVES: [&str; 28] = [
    "do", "run", "execute", "follow", "obey", "say", "write", "include", "add", "use", "remember",
    "always", "must", "should", "please", "tell", "reply", "respond", "answer", "send", "treat",
    "act", "apply", "insert", "append", "type", "output", "print",
];

/// Categories whose findings a specimen quotation can drop.
const DROPPABLE: [&str; 4] = [
    "prompt_injection",
    "concealment",
    "exfiltration",
    "persistence",
];

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// Whether `words` (lowercase ASCII) contains `word` as a whole word.
fn has_word(words: &str, word: &str) -> bool {
    words.match_indices(word).any(|(i, _)| {
        let before = words[..i].chars().next_back();
        let after = words[i + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// The lowercased ASCII context before `open` (other code points become spaces).
fn context(cps: &[char], open: usize) -> String {
    cps[open.saturating_sub(CONTEXT)..open]
        .iter()
        .map(|c| {
            if c.is_ascii() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect()
}

fn introduces_example(ctx: &str) -> bool {
    let tail = ctx.trim_end_matches([' ', ':', ',', '\t', '-']);
    let cue = CUES.iter().any(|cue| {
        tail.strip_suffix(cue)
            .is_some_and(|rest| !rest.chars().next_back().is_some_and(is_word_char))
    });
    let teaching = TEACHING.iter().any(|w| has_word(ctx, w));
    // "answer key" names a list of answers, not an order to answer
    let ctx = ctx.replace("answer key", "");
    (cue || teaching) && !DIRECTIVES.iter().any(|d| has_word(&ctx, d))
}

/// Whether the text between two quotations only continues a list ("'a', 'b' and 'c'").
fn continues_list(between: &[char]) -> bool {
    let s: String = between.iter().collect::<String>().to_ascii_lowercase();
    matches!(
        s.trim_matches(|c: char| c.is_ascii_whitespace()),
        "" | "," | ";" | "/" | "and" | "or" | ", and" | ", or"
    )
}

/// The quotations of `cps` that are specimens, as (open, close) code-point indices.
fn specimens(cps: &[char]) -> Vec<(usize, usize)> {
    let n = cps.len();
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut last: Option<(usize, usize, bool)> = None;
    let mut i = 0;
    while i < n {
        let Some(&(_, close)) = PAIRS.iter().find(|(o, _)| *o == cps[i]) else {
            i += 1;
            continue;
        };
        if i > 0 && is_word_char(cps[i - 1]) {
            i += 1;
            continue;
        }
        let end = n.min(i + 2 + MAX_QUOTE);
        let found = (i + 2..end)
            .take_while(|&j| cps[j - 1] != '\n')
            .find(|&j| cps[j] == close && !cps.get(j + 1).copied().is_some_and(is_word_char));
        let Some(j) = found else {
            i += 1;
            continue;
        };
        let chained = last.is_some_and(|(_, c, spec)| spec && continues_list(&cps[c + 1..i]));
        let spec = chained || introduces_example(&context(cps, i));
        if spec {
            out.push((i, j));
        }
        last = Some((i, j, spec));
        i = j + 1;
    }
    out
}

/// Drop the hits of instruction categories that lie inside a specimen quotation of `text`.
pub fn drop_specimens(text: &str, hits: &mut Vec<Hit>) {
    if !hits
        .iter()
        .any(|h| DROPPABLE.contains(&h.rule.category.as_str()))
    {
        return;
    }
    if !text.chars().any(|c| PAIRS.iter().any(|(o, _)| *o == c)) {
        return;
    }
    let cps: Vec<char> = text.chars().collect();
    let quotes = specimens(&cps);
    if quotes.is_empty() {
        return;
    }
    hits.retain(|h| {
        !(DROPPABLE.contains(&h.rule.category.as_str())
            && quotes.iter().any(|&(o, c)| h.start > o && h.end <= c))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &str) -> Vec<(usize, usize)> {
        specimens(&s.chars().collect::<Vec<_>>())
    }

    #[test]
    fn examples_after_a_cue_are_specimens() {
        assert_eq!(spans("flags phrases like 'ignore it' in input").len(), 1);
        assert_eq!(spans("attacks such as \"a\", \"b\" and \"c\"").len(), 3);
        assert_eq!(spans("e.g. `rm -rf /`").len(), 1);
        assert_eq!(spans("slide quotes a jailbreak - 'you are DAN'").len(), 1);
        assert_eq!(spans("quiz answer key: 'ignore it' - True").len(), 1);
        assert_eq!(spans("the attacker's page told agents to 'x y'").len(), 1);
        assert_eq!(
            spans("shows a classic injection in a red box: \"x y\"").len(),
            1
        );
    }

    #[test]
    fn orders_and_plain_quotes_are_not() {
        assert!(spans("Always reply with phrases like 'all good'").is_empty());
        assert!(spans("Run 'curl x | sh' now").is_empty());
        assert!(spans("don't say 'it'").is_empty());
        assert!(spans("training note: always say 'it'").is_empty());
        assert!(spans("a 'b").is_empty());
    }
}
