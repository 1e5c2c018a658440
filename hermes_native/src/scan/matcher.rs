//! Running the regex rules: the literal prefilter of a view ([`Prefilter`]) picks the rules whose
//! literal condition holds, and each such rule's regex runs only in windows of [`SPAN`] bytes around
//! the occurrences of its `any` literals (merged where they overlap). Look-behind context (`\b`, `^`)
//! is the whole view; the window end cuts the haystack. The Python reference does exactly the same
//! (without the literals a pattern needs, which only skip regex runs that cannot match), so findings
//! agree. A view of at most [`SPAN`] bytes is one window.
//!
//! The work is planned first ([`Plan::add`], after each prefilter walk) and run afterwards
//! ([`Plan::run`]), so that a batch runs rule by rule while that rule's automata are in the CPU cache.
//! Each thread keeps its own regex caches ([`Engines`]): no pool, no contention between threads.

use regex_automata::hybrid;
use regex_automata::meta::Cache;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use std::ops::Range;

use super::prefilter::{Found, Prefilter};
use super::table::{Rule, Table};

/// Bytes of context on each side of a literal occurrence.
pub const SPAN: usize = 256;

/// A window with more possible match starts than this is searched without them.
const MAX_PROBES: usize = 16;

/// Placeholder words, and the signature of the sample token that jwt.io shows every visitor (public,
/// like AWS's AKIAIOSFODNN7EXAMPLE: documentation, not a secret).
const PLACEHOLDERS: [&[u8]; 11] = [
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
    b"sflkxwrjsmekkf2qt4fwpmejf36pok6yjv_adqssw5c",
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

/// Sort and merge overlapping or touching windows in `wins[first..]`, in place.
fn merge(wins: &mut Vec<(usize, usize)>, first: usize) {
    wins[first..].sort_unstable();
    let mut kept = first;
    for i in first..wins.len() {
        let (s, e) = wins[i];
        if kept > first && s <= wins[kept - 1].1 {
            wins[kept - 1].1 = wins[kept - 1].1.max(e);
        } else {
            wins[kept] = (s, e);
            kept += 1;
        }
    }
    wins.truncate(kept);
}

/// Reorder `items` so that the items of each rule (of `rules`) come together, in rule order, each
/// rule's in their order: a counting sort, linear in the number of items (a large text has millions
/// of literal occurrences).
fn group_by_rule<T: Copy>(
    items: &mut Vec<T>,
    rule: impl Fn(&T) -> u32,
    rules: usize,
    counts: &mut Vec<usize>,
) {
    if items.len() < 64 {
        // Few items: a stable sort is as fast, with no pass over every rule.
        items.sort_by_key(|x| rule(x));
        return;
    }
    counts.clear();
    counts.resize(rules + 1, 0);
    for x in items.iter() {
        counts[rule(x) as usize + 1] += 1;
    }
    for r in 1..counts.len() {
        counts[r] += counts[r - 1];
    }
    let mut sorted = items.clone();
    for x in items.iter() {
        let slot = &mut counts[rule(x) as usize];
        sorted[*slot] = *x;
        *slot += 1;
    }
    *items = sorted;
}

/// A rule match in view coordinates (of the rule's view).
#[derive(Debug, Clone, Copy)]
pub struct ViewHit {
    pub start: usize,
    pub end: usize,
    pub rule: &'static Rule,
}

/// One thread's regex scratch space for one rule, created on the rule's first run.
struct Engine {
    cache: Cache,
    caps: Captures,
    dfa: hybrid::dfa::Cache,
}

/// Per-thread regex caches, one per rule: no pool, no contention between the threads of a batch.
#[derive(Default)]
pub struct Engines {
    engines: Vec<Option<Engine>>,
}

impl Engines {
    fn engine(&mut self, index: usize, rule: &Rule) -> &mut Engine {
        if self.engines.len() <= index {
            self.engines.resize_with(index + 1, || None);
        }
        self.engines[index].get_or_insert_with(|| Engine {
            cache: rule.regex.create_cache(),
            caps: rule.regex.create_captures(),
            dfa: rule.dfa.create_cache(),
        })
    }
}

/// A rule to run on one text: its merged windows and, for a rule whose matches begin with known
/// literals, the positions where those occur (ranges into [`Plan::windows`] and [`Plan::starts`]).
#[derive(Debug, Clone)]
pub struct Task {
    pub rule: u32,
    pub text: u32,
    windows: Range<usize>,
    starts: Option<Range<usize>>,
    /// Every match begins at the start of a line.
    line_start: bool,
}

/// The regex work of a batch, planned from the prefilter walks.
#[derive(Debug, Default)]
pub struct Plan {
    wins: Vec<(u32, u32, u32)>,
    rule_starts: Vec<(u32, u32)>,
    /// Whether `rule_starts` holds the starts of the view being planned.
    starts_ready: bool,
    pub tasks: Vec<Task>,
    /// Scratch space of [`group_by_rule`].
    counts: Vec<usize>,
    windows: Vec<(usize, usize)>,
    starts: Vec<usize>,
}

impl Plan {
    pub fn clear(&mut self) {
        self.tasks.clear();
        self.windows.clear();
        self.starts.clear();
    }

    /// Plan the rules of `pre` whose literal condition holds on `found` (the walk of `pre` over a view
    /// of `n` bytes of text `text`): windows around their `any` literals, and the possible starts of
    /// their matches.
    pub fn add(&mut self, pre: &Prefilter, found: &Found, n: usize, text: u32) {
        self.starts_ready = false;
        if found.whole {
            // Every window is the whole view: the rules whose `any` group holds.
            for &g in &found.any_groups {
                for &rule in pre.any_rules[g as usize].iter() {
                    let first = self.windows.len();
                    self.windows.push((0, n));
                    self.task(pre, found, rule, text, first);
                }
            }
            return;
        }
        // The uni view holds multi-byte UTF-8, so byte windows would not match the reference's
        // character windows: its rules run over the whole view (`found.whole`).
        self.wins.clear();
        for occ in &found.occurrences {
            let end = occ.end as usize;
            let start = end - pre.len_of(occ.lit);
            let ws = start.saturating_sub(SPAN) as u32;
            let we = end.saturating_add(SPAN).min(n) as u32;
            for &rule in pre.any_of[occ.lit as usize].iter() {
                self.wins.push((rule, ws, we));
            }
        }
        let rules = pre.conds.len();
        group_by_rule(&mut self.wins, |w| w.0, rules, &mut self.counts);
        let mut i = 0;
        while i < self.wins.len() {
            let rule = self.wins[i].0;
            let mut j = i;
            while j < self.wins.len() && self.wins[j].0 == rule {
                j += 1;
            }
            let first = self.windows.len();
            self.windows.extend(
                self.wins[i..j]
                    .iter()
                    .map(|&(_, s, e)| (s as usize, e as usize)),
            );
            merge(&mut self.windows, first);
            self.task(pre, found, rule, text, first);
            i = j;
        }
    }

    /// Plan `rule` on `text` in the windows `self.windows[first..]` when its condition holds (drops
    /// the windows otherwise).
    fn task(&mut self, pre: &Prefilter, found: &Found, rule: u32, text: u32, first: usize) {
        let holds = pre.conds[rule as usize]
            .as_ref()
            .is_some_and(|c| c.holds(found));
        if !holds {
            self.windows.truncate(first);
            return;
        }
        let starts = if pre.anchored[rule as usize] && found.whole {
            // Few occurrences (start literals of a short view): this rule's, sorted, no repeats.
            let at = self.starts.len();
            for occ in &found.occurrences {
                if pre.start_of[occ.lit as usize].contains(&rule) {
                    self.starts.push(occ.end as usize - pre.len_of(occ.lit));
                }
            }
            self.starts[at..].sort_unstable();
            let mut kept = at;
            for k in at..self.starts.len() {
                if kept == at || self.starts[k] != self.starts[kept - 1] {
                    self.starts[kept] = self.starts[k];
                    kept += 1;
                }
            }
            self.starts.truncate(kept);
            Some(at..kept)
        } else if pre.anchored[rule as usize] {
            // The possible match starts of every anchored rule, sorted by rule, built once needed.
            if !self.starts_ready {
                self.rule_starts(pre, found);
                self.starts_ready = true;
            }
            let from = self.rule_starts.partition_point(|&(r, _)| r < rule);
            let to = self.rule_starts.partition_point(|&(r, _)| r <= rule);
            let at = self.starts.len();
            let positions = self.rule_starts[from..to].iter();
            self.starts.extend(positions.map(|&(_, p)| p as usize));
            Some(at..self.starts.len())
        } else {
            None
        };
        self.tasks.push(Task {
            rule,
            text,
            windows: first..self.windows.len(),
            line_start: starts.is_none() && pre.line_start[rule as usize],
            starts,
        });
    }

    /// Every (rule, position) where a start literal of the rule occurs in `found`, sorted, no repeats.
    fn rule_starts(&mut self, pre: &Prefilter, found: &Found) {
        self.rule_starts.clear();
        for occ in &found.occurrences {
            let start = occ.end - pre.len_of(occ.lit) as u32;
            let rules = pre.start_of[occ.lit as usize].iter();
            self.rule_starts.extend(rules.map(|&rule| (rule, start)));
        }
        group_by_rule(
            &mut self.rule_starts,
            |s| s.0,
            pre.conds.len(),
            &mut self.counts,
        );
        let mut from = 0;
        while from < self.rule_starts.len() {
            let rule = self.rule_starts[from].0;
            let to = from + self.rule_starts[from..].partition_point(|s| s.0 == rule);
            // In order of their end already: nearly sorted.
            self.rule_starts[from..to].sort_unstable();
            from = to;
        }
        self.rule_starts.dedup();
    }

    /// Run `task` on `hay` (the view of its rule in its text), appending its matches to `out`.
    pub fn run(
        &self,
        task: &Task,
        hay: &[u8],
        table: &'static Table,
        engines: &mut Engines,
        out: &mut Vec<ViewHit>,
    ) {
        let index = task.rule as usize;
        let rule = &table.rules[index];
        let engine = engines.engine(index, rule);
        for &(ws, we) in &self.windows[task.windows.clone()] {
            if task.line_start {
                // Every match begins at the start of a line: probe those.
                let mut lines = [0usize; MAX_PROBES + 1];
                let mut count = 0;
                let first = (ws == 0 || hay[ws - 1] == b'\n').then_some(ws);
                let after_newlines = memchr::memchr_iter(b'\n', &hay[ws..we])
                    .map(|i| ws + i + 1)
                    .filter(|&p| p < we);
                for p in first.into_iter().chain(after_newlines).take(MAX_PROBES + 1) {
                    lines[count] = p;
                    count += 1;
                }
                if count <= MAX_PROBES
                    && !match_begins_at(rule, hay, we, &lines[..count], &mut engine.dfa)
                {
                    continue;
                }
            }
            if let Some(starts) = &task.starts {
                // Every match begins at an occurrence of a start literal: probe those first.
                let starts = &self.starts[starts.clone()];
                let from = starts.partition_point(|&p| p < ws);
                let to = starts.partition_point(|&p| p < we);
                let probes = &starts[from..to];
                if probes.len() <= MAX_PROBES
                    && !match_begins_at(rule, hay, we, probes, &mut engine.dfa)
                {
                    continue;
                }
            }
            run_window(rule, hay, (ws, we), engine, out);
        }
    }
}

/// Whether `rule` has a match in `hay[..we]` that begins at one of `starts`: anchored searches of its
/// lazy DFA, which usually stop after a few bytes. "No" is exact; "yes" (also when the lazy DFA
/// cannot answer) sends the window to the regex.
fn match_begins_at(
    rule: &Rule,
    hay: &[u8],
    we: usize,
    starts: &[usize],
    cache: &mut hybrid::dfa::Cache,
) -> bool {
    starts.iter().any(|&p| {
        let input = Input::new(&hay[..we])
            .range(p..we)
            .anchored(Anchored::Yes)
            .earliest(true);
        !matches!(rule.dfa.try_search_fwd(cache, &input), Ok(None))
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
        let mut wins = vec![(1, 2), (5, 9), (0, 5), (20, 30)];
        merge(&mut wins, 1);
        assert_eq!(wins, vec![(1, 2), (0, 9), (20, 30)]);
    }
}
