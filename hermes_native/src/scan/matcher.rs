//! Running the regex rules: the literal prefilter of a view ([`Prefilter`]) picks the rules whose
//! literal condition holds, and each such rule's regex runs only in windows of [`SPAN`] bytes around
//! the occurrences of its `any` literals (merged where they overlap). Look-behind context (`\b`, `^`)
//! is the whole view; the window end cuts the haystack. The Python reference does exactly the same
//! (without the literals a pattern needs, which only skip regex runs that cannot match), so findings
//! agree.
//!
//! Each thread keeps its own regex caches ([`Engines`]): no pool, no contention between the threads
//! of a batch.

use regex_automata::meta::{Cache, Regex};
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use super::prefilter::{Found, Prefilter};
use super::table::{Rule, Table, ViewKind};

/// Bytes of context on each side of a literal occurrence.
pub const SPAN: usize = 256;

/// A window with more possible match starts than this is searched without them.
const MAX_PROBES: usize = 16;

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

/// Sort and merge overlapping or touching windows in place.
fn merge(wins: &mut Vec<(usize, usize)>) {
    wins.sort_unstable();
    let mut kept = 0;
    for i in 0..wins.len() {
        let (s, e) = wins[i];
        if kept > 0 && s <= wins[kept - 1].1 {
            wins[kept - 1].1 = wins[kept - 1].1.max(e);
        } else {
            wins[kept] = (s, e);
            kept += 1;
        }
    }
    wins.truncate(kept);
}

/// A rule match in view coordinates (of the rule's view).
#[derive(Debug, Clone, Copy)]
pub struct ViewHit {
    pub start: usize,
    pub end: usize,
    pub rule: &'static Rule,
}

/// One thread's regex scratch space, created on a rule's first run.
struct Engine {
    cache: Cache,
    caps: Captures,
}

/// Per-thread state of the matcher: the prefilter result, windows, and a regex cache per rule.
#[derive(Default)]
pub struct Engines {
    found: Found,
    wins: Vec<(u32, u32, u32)>,
    windows: Vec<(usize, usize)>,
    starts: Vec<usize>,
    engines: Vec<Option<Engine>>,
}

impl Engines {
    fn engine(&mut self, index: usize, regex: &Regex) -> &mut Engine {
        if self.engines.len() <= index {
            self.engines.resize_with(index + 1, || None);
        }
        self.engines[index].get_or_insert_with(|| Engine {
            cache: regex.create_cache(),
            caps: regex.create_captures(),
        })
    }
}

/// Whether `rule` has a match in `hay[..we]` that begins at one of `starts`.
fn match_begins_at(
    rule: &Rule,
    hay: &[u8],
    we: usize,
    starts: &[usize],
    cache: &mut Cache,
) -> bool {
    starts.iter().any(|&p| {
        let input = Input::new(&hay[..we])
            .range(p..we)
            .anchored(Anchored::Yes)
            .earliest(true);
        rule.regex.search_half_with(cache, &input).is_some()
    })
}

/// Every match of `rule` in the window `[ws, we)` of `hay` (leftmost-first, non-overlapping, empty
/// matches skipped), secrets checked.
fn run_window(
    rule: &'static Rule,
    hay: &[u8],
    (ws, we): (usize, usize),
    engine: &mut Engine,
    out: &mut Vec<ViewHit>,
) {
    let window = &hay[..we];
    let mut pos = ws;
    while pos <= we {
        let input = Input::new(window).range(pos..we);
        let (ms, me, value) = if rule.secret_check {
            rule.regex
                .search_captures_with(&mut engine.cache, &input, &mut engine.caps);
            let Some(whole) = engine.caps.get_match() else {
                break;
            };
            let value = engine.caps.get_group(1).unwrap_or(whole.span());
            (whole.start(), whole.end(), Some((value.start, value.end)))
        } else {
            let Some(m) = rule.regex.search_with(&mut engine.cache, &input) else {
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

/// Run the rules of `pre` whose literal condition holds in `scan_hay`: windows come from the `any`
/// literals; each rule's regex runs on `hay_of(rule.view)`, which must have the same length as
/// `scan_hay` (the raw view and the fold view of ASCII text).
pub fn match_views<'h>(
    pre: &Prefilter,
    scan_hay: &[u8],
    hay_of: impl Fn(ViewKind) -> &'h [u8],
    table: &'static Table,
    engines: &mut Engines,
    out: &mut Vec<ViewHit>,
) {
    pre.walk(scan_hay, &mut engines.found);
    if engines.found.occurrences.is_empty() {
        return;
    }
    let n = scan_hay.len();
    // The uni view holds multi-byte UTF-8, so byte windows would not match the reference's character
    // windows: its rules run over the whole view.
    let span = if pre.whole_view { n } else { SPAN };
    engines.wins.clear();
    for occ in &engines.found.occurrences {
        let end = occ.end as usize;
        let start = end - pre.len_of(occ.lit);
        let ws = start.saturating_sub(span) as u32;
        let we = end.saturating_add(span).min(n) as u32;
        for &rule in pre.any_of[occ.lit as usize].iter() {
            engines.wins.push((rule, ws, we));
        }
    }
    engines.wins.sort_unstable();
    let mut i = 0;
    while i < engines.wins.len() {
        let index = engines.wins[i].0 as usize;
        let mut j = i;
        while j < engines.wins.len() && engines.wins[j].0 as usize == index {
            j += 1;
        }
        let holds = pre.conds[index]
            .as_ref()
            .is_some_and(|c| c.holds(&engines.found));
        if holds {
            let mut windows = std::mem::take(&mut engines.windows);
            windows.clear();
            windows.extend(
                engines.wins[i..j]
                    .iter()
                    .map(|&(_, s, e)| (s as usize, e as usize)),
            );
            merge(&mut windows);
            let anchored = pre.anchored[index];
            let mut starts = std::mem::take(&mut engines.starts);
            starts.clear();
            if anchored {
                for occ in &engines.found.occurrences {
                    if pre.start_of[occ.lit as usize].contains(&(index as u32)) {
                        starts.push(occ.end as usize - pre.len_of(occ.lit));
                    }
                }
                starts.sort_unstable();
                starts.dedup();
            }
            let rule = &table.rules[index];
            let hay = hay_of(rule.view);
            let engine = engines.engine(index, &rule.regex);
            for &(ws, we) in &windows {
                if anchored {
                    // Every match begins at an occurrence of a start literal: probe those first.
                    let from = starts.partition_point(|&p| p < ws);
                    let to = starts.partition_point(|&p| p < we);
                    let probes = &starts[from..to];
                    if probes.len() <= MAX_PROBES
                        && !match_begins_at(rule, hay, we, probes, &mut engine.cache)
                    {
                        continue;
                    }
                }
                run_window(rule, hay, (ws, we), engine, out);
            }
            engines.windows = windows;
            engines.starts = starts;
        }
        i = j;
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
        let mut wins = vec![(5, 9), (0, 5), (20, 30)];
        merge(&mut wins);
        assert_eq!(wins, vec![(0, 9), (20, 30)]);
    }
}
