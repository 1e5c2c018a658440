//! Running the regex rules: a literal prefilter (Aho-Corasick over each view) picks the rules whose
//! literals occur, and each such rule's regex runs only in windows of [`SPAN`] bytes around the
//! occurrences (merged where they overlap). Look-behind context (`\b`, `^`) is the whole view; the window
//! end cuts the haystack. The Python reference does exactly the same, so findings agree.

use aho_corasick::automaton::Automaton;
use aho_corasick::Anchored;

use super::table::{Prefilter, Rule, Table, ViewKind};

/// Bytes of context on each side of a literal occurrence.
pub const SPAN: usize = 256;

const PLACEHOLDERS: [&[u8]; 10] = [
    b"example",
    b"xxxx",
    b"your",
    b"dummy",
    b"placeholder",
    b"redacted",
    b"changeme",
    b"sample",
    b"fake",
    b"test",
];

/// A real secret has letters and digits, enough distinct characters and no placeholder word.
pub fn looks_like_secret(value: &[u8], min_distinct: usize) -> bool {
    let mut seen = [false; 256];
    value.iter().for_each(|&b| seen[b as usize] = true);
    let distinct = seen.iter().filter(|&&s| s).count();
    let lower = value.to_ascii_lowercase();
    value.iter().any(u8::is_ascii_alphabetic)
        && value.iter().any(u8::is_ascii_digit)
        && distinct >= min_distinct
        && !PLACEHOLDERS
            .iter()
            .any(|p| lower.windows(p.len()).any(|w| w == *p))
}

fn merge(mut wins: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    wins.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(wins.len());
    for (s, e) in wins {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// A rule match in view coordinates (of the rule's view).
#[derive(Debug, Clone, Copy)]
pub struct ViewHit {
    pub start: usize,
    pub end: usize,
    pub rule: &'static Rule,
}

fn run_rule(rule: &'static Rule, hay: &[u8], windows: &[(usize, usize)], out: &mut Vec<ViewHit>) {
    for (ws, we) in merge(windows.to_vec()) {
        let window = &hay[..we];
        let mut pos = ws;
        while pos <= we {
            let (ms, me, value) = if rule.secret_check {
                let Some(caps) = rule.regex.captures_at(window, pos) else {
                    break;
                };
                let whole = caps.get(0).map_or((pos, pos), |m| (m.start(), m.end()));
                let value = caps.get(1).map_or(whole, |m| (m.start(), m.end()));
                (whole.0, whole.1, Some(value))
            } else {
                let Some(m) = rule.regex.find_at(window, pos) else {
                    break;
                };
                (m.start(), m.end(), None)
            };
            if me == ms {
                pos = me + 1;
                continue;
            }
            pos = me;
            if let Some((vs, ve)) = value {
                if !looks_like_secret(&hay[vs..ve], rule.min_distinct) {
                    continue;
                }
            }
            out.push(ViewHit {
                start: ms,
                end: me,
                rule,
            });
        }
    }
}

/// Run the rules of `pre` whose literal groups all occur in `scan_hay`: windows come from the `any`
/// literals; each rule's regex runs on `hay_of(rule.view)`, which must have the same length as
/// `scan_hay` (the raw view and the fold view of ASCII text).
pub fn match_views<'h>(
    pre: &Prefilter,
    scan_hay: &[u8],
    hay_of: impl Fn(ViewKind) -> &'h [u8],
    table: &'static Table,
    out: &mut Vec<ViewHit>,
) {
    let n = scan_hay.len();
    // The uni view holds multi-byte UTF-8, so byte windows would not match the reference's character
    // windows: its rules run over the whole view.
    let span = if pre.whole_view { n } else { SPAN };
    let dfa = &pre.dfa;
    let Ok(mut sid) = dfa.start_state(Anchored::No) else {
        return;
    };
    let mut masks: Vec<u8> = Vec::new();
    let mut wins: Vec<(usize, usize, usize)> = Vec::new();
    for (pos, &byte) in scan_hay.iter().enumerate() {
        sid = dfa.next_state(Anchored::No, sid, byte);
        if !(dfa.is_special(sid) && dfa.is_match(sid)) {
            continue;
        }
        for k in 0..dfa.match_len(sid) {
            let pid = dfa.match_pattern(sid, k);
            let end = pos + 1;
            let start = end - dfa.pattern_len(pid);
            for &(rule, group) in &pre.rules_of[pid.as_usize()] {
                if masks.is_empty() {
                    masks.resize(table.rules.len(), 0);
                }
                masks[rule] |= 1 << group;
                if group == 0 {
                    wins.push((
                        rule,
                        start.saturating_sub(span),
                        end.saturating_add(span).min(n),
                    ));
                }
            }
        }
    }
    if wins.is_empty() {
        return;
    }
    wins.sort_unstable();
    let mut i = 0;
    let mut windows: Vec<(usize, usize)> = Vec::new();
    while i < wins.len() {
        let rule = wins[i].0;
        windows.clear();
        while i < wins.len() && wins[i].0 == rule {
            windows.push((wins[i].1, wins[i].2));
            i += 1;
        }
        let r = &table.rules[rule];
        if masks[rule] == r.full_mask {
            run_rule(r, hay_of(r.view), &windows, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_need_entropy_and_no_placeholder() {
        assert!(looks_like_secret(b"Xk93mPq7Lz2vR8t", 10));
        assert!(!looks_like_secret(b"xxxxxxxxxxxxxxxxxxxx", 10));
        assert!(!looks_like_secret(b"AKIAIOSFODNN7EXAMPLE", 8));
        assert!(!looks_like_secret(b"process.env.STRIPE_KEY", 10));
    }

    #[test]
    fn windows_merge_when_they_touch() {
        assert_eq!(
            merge(vec![(5, 9), (0, 5), (20, 30)]),
            vec![(0, 9), (20, 30)]
        );
    }
}
