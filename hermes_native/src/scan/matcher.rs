//! Running the regex rules: a literal prefilter (Aho-Corasick over each view) picks the rules whose
//! literals occur, and each such rule's regex runs only in windows of [`SPAN`] bytes around the
//! occurrences (merged where they overlap). Look-behind context (`\b`, `^`) is the whole view; the window
//! end cuts the haystack. The Python reference does exactly the same, so findings agree.

use super::normalize::View;
use super::table::{Rule, Table, ViewKind};
use super::Hit;

/// Bytes of context on each side of a literal occurrence.
pub const SPAN: usize = 512;

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

fn run_rule(rule: &'static Rule, view: &View<'_>, windows: Vec<(usize, usize)>, out: &mut Vec<Hit>) {
    let hay: &[u8] = &view.text;
    for (ws, we) in merge(windows) {
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
            let (start, end) = view.span(ms, me);
            out.push(Hit::new(start, end, &rule.info));
        }
    }
}

/// Run every rule of `kind` whose literals occur in `view`.
pub fn match_view(kind: ViewKind, view: &View<'_>, table: &'static Table, out: &mut Vec<Hit>) {
    let Some(pre) = table.prefilters.get(&kind) else {
        return;
    };
    let hay: &[u8] = &view.text;
    let n = hay.len();
    let mut windows: Vec<Vec<(usize, usize)>> = Vec::new();
    for m in pre.automaton.find_overlapping_iter(hay) {
        let win = (m.start().saturating_sub(SPAN), (m.end() + SPAN).min(n));
        for &rule in &pre.rules_of[m.pattern().as_usize()] {
            if windows.len() <= rule {
                windows.resize_with(rule + 1, Vec::new);
            }
            windows[rule].push(win);
        }
    }
    for (i, wins) in windows.into_iter().enumerate() {
        if !wins.is_empty() {
            run_rule(&table.rules[i], view, wins, out);
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
        assert_eq!(merge(vec![(5, 9), (0, 5), (20, 30)]), vec![(0, 9), (20, 30)]);
    }
}
