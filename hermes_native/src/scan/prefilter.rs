//! The literal prefilter of one view: one Aho-Corasick automaton over every literal the view's rules
//! mention (`any`, `also`, and the literals their patterns need, see [`super::require`]), walked once
//! over the view. The walk records which literals occur (a bit set) and where the `any` literals
//! occur (the windows of the rule regexes). A rule runs only when its [`Cond`] holds on that bit set.
//!
//! A view of at most [`SPAN`] bytes (most texts) is one window for every rule, so its walk records
//! only which `any` groups hold, not where their literals occur ([`Found::whole`]). Views are walked
//! [`LANES`] at a time, interleaved, so that their table loads overlap.

use std::collections::HashMap;

use super::automaton::{Dfa, LANES};
use super::matcher::SPAN;
use super::require::Need;
use crate::Result;

/// A condition on the literals found in a view. Its leaves are literal groups of one [`Prefilter`]
/// (a group holds when one of its literals occurs; the walk marks them as it goes).
#[derive(Debug)]
pub enum Cond {
    /// This group holds.
    Group(u32),
    /// Every part holds (an empty list always holds).
    All(Box<[Cond]>),
    /// One of the parts holds.
    Either(Box<[Cond]>),
}

impl Cond {
    pub fn holds(&self, found: &Found) -> bool {
        match self {
            Cond::Group(g) => found.groups.has(*g),
            Cond::All(parts) => parts.iter().all(|p| p.holds(found)),
            Cond::Either(parts) => parts.iter().any(|p| p.holds(found)),
        }
    }
}

/// Marks a group that is some rule's `any` group in `Prefilter::groups`.
const ANY: u32 = 1 << 31;

/// A set of small integers.
#[derive(Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn reset(&mut self, len: usize) {
        self.0.clear();
        self.0.resize(len.div_ceil(64), 0);
    }

    fn has(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Add every member of `other` (a set of the same size).
    fn union(&mut self, other: &Bits) {
        self.0.iter_mut().zip(&other.0).for_each(|(w, o)| *w |= o);
    }

    /// Add `i`; whether it was new.
    fn insert(&mut self, i: u32) -> bool {
        match self.0.get_mut(i as usize / 64) {
            Some(w) => {
                let bit = 1 << (i % 64);
                let new = *w & bit == 0;
                *w |= bit;
                new
            }
            None => false,
        }
    }
}

/// What one rule contributes to a prefilter: its `any` literals, its `also` groups and, when known,
/// the literals its pattern needs and those its matches begin with.
pub struct RuleLiterals<'a> {
    pub rule: usize,
    pub any: Vec<Vec<u8>>,
    pub also: Vec<Vec<Vec<u8>>>,
    pub needs: &'a Need,
    pub starts: Option<&'a [Vec<u8>]>,
    pub line_start: bool,
}

/// One literal occurrence: literal id and end offset in the view.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence {
    pub lit: u32,
    pub end: u32,
}

/// The result of walking a prefilter over a view; reused from call to call.
#[derive(Debug, Default)]
pub struct Found {
    groups: Bits,
    /// Every window of the view is all of it (the view is short, or the prefilter runs its rules
    /// over whole views): where `any` literals occur does not matter, only whether they do.
    pub whole: bool,
    /// Occurrences of literals that are some rule's start literal and, unless `whole`, of those that
    /// are some rule's `any` literal, in order of their end.
    pub occurrences: Vec<Occurrence>,
    /// The groups that are some rule's `any` group, in the order they began to hold.
    pub any_groups: Vec<u32>,
}

/// A view at least this long is walked in [`LANES`] pieces at once.
const SPLIT: usize = 1 << 16;

/// The scratch space of [`Prefilter::walk_all`]; reused from call to call.
#[derive(Debug, Default)]
pub struct Walk {
    /// The result for each lane's view.
    lanes: [Found; LANES],
    /// The results of the pieces of a long view, and for the whole of it.
    pieces: [Found; LANES],
    long: Found,
}

/// The literal prefilter of one view (or of the raw and fold views together, see `Table::fused`).
#[derive(Debug)]
pub struct Prefilter {
    dfa: Dfa,
    /// For each literal id: its length, the rules it is an `any` literal of.
    lens: Vec<u32>,
    /// The length of the longest literal.
    max_len: usize,
    group_count: usize,
    /// For each match state `s` of `dfa`, where its lists begin (`ends[s]`) and end (`ends[s + 1]`):
    /// the groups it makes hold (an `any` group marked with [`ANY`]), the literals to record an
    /// occurrence of, and of those the start literals (what a walk of a `whole` view records).
    ends: Vec<[u32; 3]>,
    groups: Vec<u32>,
    occurs: Vec<u32>,
    starts: Vec<u32>,
    /// For each literal id, the rules it is an `any` literal of.
    pub any_of: Vec<Box<[u32]>>,
    /// For each group, the rules it is the `any` group of.
    pub any_rules: Vec<Box<[u32]>>,
    /// For each literal id, the rules whose matches may begin with it.
    pub start_of: Vec<Box<[u32]>>,
    /// By rule index: whether every match of the rule begins with one of its start literals, and
    /// whether every match begins at the start of a line.
    pub anchored: Vec<bool>,
    pub line_start: Vec<bool>,
    /// The condition of each rule of this prefilter, by rule index (`None`: another view's rule).
    pub conds: Vec<Option<Cond>>,
    /// Run rules over the whole view instead of windows (the uni view).
    pub whole_view: bool,
}

#[derive(Default)]
struct Builder {
    literals: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u32>,
    any_of: Vec<Vec<u32>>,
    start_of: Vec<Vec<u32>>,
    groups_of: Vec<Vec<u32>>,
    /// Each group as its sorted literal ids.
    groups: HashMap<Vec<u32>, u32>,
}

impl Builder {
    fn id(&mut self, lit: &[u8]) -> u32 {
        if let Some(&id) = self.index.get(lit) {
            return id;
        }
        let id = self.literals.len() as u32;
        self.literals.push(lit.to_vec());
        self.any_of.push(Vec::new());
        self.start_of.push(Vec::new());
        self.groups_of.push(Vec::new());
        self.index.insert(lit.to_vec(), id);
        id
    }

    fn group(&mut self, lits: &[Vec<u8>]) -> Cond {
        let mut ids: Vec<u32> = lits.iter().map(|l| self.id(l)).collect();
        ids.sort_unstable();
        ids.dedup();
        let next = self.groups.len() as u32;
        let group = *self.groups.entry(ids.clone()).or_insert(next);
        if group == next {
            for id in ids {
                self.groups_of[id as usize].push(group);
            }
        }
        Cond::Group(group)
    }

    fn need(&mut self, need: &Need) -> Cond {
        match need {
            Need::True => Cond::All(Box::new([])),
            Need::Any(lits) => self.group(lits),
            Need::All(parts) => Cond::All(parts.iter().map(|p| self.need(p)).collect()),
            Need::Either(parts) => Cond::Either(parts.iter().map(|p| self.need(p)).collect()),
        }
    }
}

impl Prefilter {
    /// `case_insensitive`: match ASCII letters of the view regardless of case (the raw view).
    pub fn build(
        rules: &[RuleLiterals<'_>],
        rule_count: usize,
        case_insensitive: bool,
        whole_view: bool,
    ) -> Result<Prefilter> {
        let mut b = Builder::default();
        let mut conds: Vec<Option<Cond>> = (0..rule_count).map(|_| None).collect();
        let mut anchored = vec![false; rule_count];
        let mut line_start = vec![false; rule_count];
        let mut any_group = Vec::new();
        for r in rules {
            let rule = r.rule as u32;
            for lit in r.starts.unwrap_or_default() {
                let id = b.id(lit) as usize;
                b.start_of[id].push(rule);
            }
            anchored[r.rule] = r.starts.is_some();
            line_start[r.rule] = r.line_start;
            // The `any` group holds whenever the rule is considered (see `matcher`).
            if let Cond::Group(g) = b.group(&r.any) {
                any_group.push((g, rule));
            }
            let mut parts = Vec::new();
            for lit in &r.any {
                let id = b.id(lit) as usize;
                if !b.any_of[id].contains(&rule) {
                    b.any_of[id].push(rule);
                }
            }
            parts.extend(r.also.iter().map(|g| b.group(g)));
            // One flat list: a nested one would cost a call per level on every check.
            match b.need(r.needs) {
                Cond::All(inner) => parts.extend(inner),
                need => parts.push(need),
            }
            conds[r.rule] = Some(Cond::All(parts.into()));
        }
        let dfa = Dfa::new(&b.literals, case_insensitive)?;
        let mut any_rules = vec![Vec::new(); b.groups.len()];
        for (g, rule) in any_group {
            any_rules[g as usize].push(rule);
        }
        let mut ends = vec![[0u32; 3]];
        let (mut groups, mut occurs, mut starts) = (Vec::new(), Vec::new(), Vec::new());
        for state in 0..dfa.match_states() {
            let mut gs: Vec<u32> = Vec::new();
            for &lit in dfa.literals_at(state) {
                let lit_index = lit as usize;
                gs.extend(&b.groups_of[lit_index]);
                if !b.any_of[lit_index].is_empty() || !b.start_of[lit_index].is_empty() {
                    occurs.push(lit);
                }
                if !b.start_of[lit_index].is_empty() {
                    starts.push(lit);
                }
            }
            gs.sort_unstable();
            gs.dedup();
            let mark = |g: u32| match any_rules[g as usize].is_empty() {
                true => g,
                false => g | ANY,
            };
            groups.extend(gs.into_iter().map(mark));
            ends.push([groups.len(), occurs.len(), starts.len()].map(|n| n as u32));
        }
        if b.groups.len() >= ANY as usize {
            return Err(crate::Error::InvalidInput(
                "the scan rule table is broken: too many literal groups".into(),
            ));
        }
        Ok(Prefilter {
            dfa,
            lens: b.literals.iter().map(|l| l.len() as u32).collect(),
            max_len: b.literals.iter().map(Vec::len).max().unwrap_or(0),
            group_count: b.groups.len(),
            ends,
            groups,
            occurs,
            starts,
            any_rules: any_rules.into_iter().map(Vec::into_boxed_slice).collect(),
            any_of: b.any_of.into_iter().map(Vec::into_boxed_slice).collect(),
            start_of: b.start_of.into_iter().map(Vec::into_boxed_slice).collect(),
            anchored,
            line_start,
            conds,
            whole_view,
        })
    }

    /// Length in bytes of literal `lit`.
    pub fn len_of(&self, lit: u32) -> usize {
        self.lens[lit as usize] as usize
    }

    /// Walk the automaton over every view of `hays` (text and view), [`LANES`] views at a time,
    /// recording every (overlapping) literal occurrence; `done(text, found, len)` receives the result
    /// of each view (of `len` bytes).
    pub fn walk_all<'h>(
        &self,
        mut hays: impl Iterator<Item = (u32, &'h [u8])>,
        walk: &mut Walk,
        mut done: impl FnMut(u32, &Found, usize),
    ) {
        let found = &mut walk.lanes;
        // Each lane's text, view and position in it.
        let mut lanes: [Option<(u32, &[u8], usize)>; LANES] = [None; LANES];
        let mut states = [self.dfa.start(); LANES];
        loop {
            for lane in 0..LANES {
                while lanes[lane].is_none() {
                    let Some((text, hay)) = hays.next() else {
                        break;
                    };
                    if hay.len() >= SPLIT {
                        self.walk_long(hay, &mut walk.pieces, &mut walk.long);
                        done(text, &walk.long, hay.len());
                        continue;
                    }
                    self.begin(&mut found[lane], hay.len());
                    if hay.is_empty() {
                        done(text, &found[lane], 0);
                    } else {
                        lanes[lane] = Some((text, hay, 0));
                        states[lane] = self.dfa.start();
                    }
                }
            }
            if lanes.iter().any(Option::is_none) {
                // The views ran out: finish the others one by one.
                for (lane, slot) in lanes.iter_mut().enumerate() {
                    if let Some((text, hay, at)) = slot.take() {
                        let f = &mut found[lane];
                        self.dfa.walk_from(states[lane], &hay[at..], |state, end| {
                            self.record(f, state, at + end);
                        });
                        done(text, f, hay.len());
                    }
                }
                return;
            }
            let step = lanes
                .iter()
                .flatten()
                .map(|&(_, hay, at)| hay.len() - at)
                .min()
                .unwrap_or(0);
            let at: [usize; LANES] = std::array::from_fn(|l| lanes[l].map_or(0, |(_, _, at)| at));
            let slices: [&[u8]; LANES] = std::array::from_fn(|l| {
                lanes[l].map_or(&[][..], |(_, hay, at)| &hay[at..at + step])
            });
            self.dfa
                .walk_lanes(&mut states, slices, |lane, state, end| {
                    self.record(&mut found[lane], state, at[lane] + end);
                });
            for (lane, slot) in lanes.iter_mut().enumerate() {
                if let Some((text, hay, at)) = slot {
                    *at += step;
                    if *at == hay.len() {
                        done(*text, &found[lane], hay.len());
                        *slot = None;
                    }
                }
            }
        }
    }

    /// Walk a long view in [`LANES`] pieces at once, into `found`. Each piece but the first starts
    /// the automaton the longest literal's length before it (where it reaches the state it would
    /// have had there, which depends on fewer bytes than that) and records only what ends in it.
    fn walk_long(&self, hay: &[u8], pieces: &mut [Found; LANES], found: &mut Found) {
        let n = hay.len();
        let piece = n.div_ceil(LANES);
        let from: [usize; LANES] = std::array::from_fn(|k| (k * piece).min(n));
        let to: [usize; LANES] = std::array::from_fn(|k| ((k + 1) * piece).min(n));
        let begin: [usize; LANES] = std::array::from_fn(|k| from[k].saturating_sub(self.max_len));
        for part in pieces.iter_mut() {
            self.begin(part, n);
        }
        let common = (0..LANES).map(|k| to[k] - begin[k]).min().unwrap_or(0);
        let mut states = [self.dfa.start(); LANES];
        let slices: [&[u8]; LANES] = std::array::from_fn(|k| &hay[begin[k]..begin[k] + common]);
        self.dfa.walk_lanes(&mut states, slices, |k, state, end| {
            if begin[k] + end > from[k] {
                self.record(&mut pieces[k], state, begin[k] + end);
            }
        });
        for (k, part) in pieces.iter_mut().enumerate() {
            let at = begin[k] + common;
            self.dfa
                .walk_from(states[k], &hay[at..to[k]], |state, end| {
                    if at + end > from[k] {
                        self.record(part, state, at + end);
                    }
                });
        }
        // Pieces in order: occurrences stay in order of their end.
        self.begin(found, n);
        for part in pieces.iter() {
            for &g in &part.any_groups {
                if found.groups.insert(g) {
                    found.any_groups.push(g);
                }
            }
            found.groups.union(&part.groups);
            found.occurrences.extend_from_slice(&part.occurrences);
        }
    }

    /// Prepare `found` for the walk of a view of `len` bytes.
    fn begin(&self, found: &mut Found, len: usize) {
        found.groups.reset(self.group_count);
        found.occurrences.clear();
        found.any_groups.clear();
        found.whole = self.whole_view || len <= SPAN;
    }

    /// Record what match state `state`, reached at `end`, reports.
    #[inline(always)]
    fn record(&self, found: &mut Found, state: usize, end: usize) {
        let (from, to) = (self.ends[state], self.ends[state + 1]);
        let range = |k: usize| from[k] as usize..to[k] as usize;
        for &g in &self.groups[range(0)] {
            if found.groups.insert(g & !ANY) && g & ANY != 0 {
                found.any_groups.push(g & !ANY);
            }
        }
        let lits = if found.whole {
            &self.starts[range(2)]
        } else {
            &self.occurs[range(1)]
        };
        for &lit in lits {
            found.occurrences.push(Occurrence {
                lit,
                end: end as u32,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    /// Two rules: one triggered by "key"/"token" that also needs "send", one anchored on "curl".
    fn prefilter() -> Prefilter {
        let none = Need::True;
        let curl = lits(&["curl"]);
        let rules = [
            RuleLiterals {
                rule: 0,
                any: lits(&["key", "token"]),
                also: vec![lits(&["send"])],
                needs: &none,
                starts: None,
                line_start: false,
            },
            RuleLiterals {
                rule: 1,
                any: lits(&["curl"]),
                also: Vec::new(),
                needs: &none,
                starts: Some(&curl),
                line_start: false,
            },
        ];
        Prefilter::build(&rules, 2, false, false).unwrap()
    }

    /// What the walk of each view found: whole, occurrences, rules whose `any` group holds, and
    /// whether each rule's condition holds.
    type Seen = (bool, Vec<(u32, u32)>, Vec<u32>, Vec<bool>);

    fn walk(pre: &Prefilter, views: &[Vec<u8>]) -> Vec<Seen> {
        let mut found = Walk::default();
        let mut seen = vec![None; views.len()];
        let hays = views.iter().enumerate().map(|(i, v)| (i as u32, &v[..]));
        pre.walk_all(hays, &mut found, |i, f, n| {
            assert_eq!(n, views[i as usize].len());
            let mut rules: Vec<u32> = f
                .any_groups
                .iter()
                .flat_map(|&g| pre.any_rules[g as usize].iter().copied())
                .collect();
            rules.sort_unstable();
            let occurrences = f.occurrences.iter().map(|o| (o.lit, o.end)).collect();
            let holds = pre
                .conds
                .iter()
                .map(|c| c.as_ref().unwrap().holds(f))
                .collect();
            seen[i as usize] = Some((f.whole, occurrences, rules, holds));
        });
        seen.into_iter().map(Option::unwrap).collect()
    }

    #[test]
    fn walking_views_together_finds_what_walking_each_alone_does() {
        let pre = prefilter();
        let long = format!("{}send the key{}", "x".repeat(SPAN), "curl ".repeat(3));
        let views: Vec<Vec<u8>> = [
            "send the token",
            "",
            "curl -d @f https://x",
            long.as_str(),
            "key only",
            "nothing here at all",
            "send",
            "token send curl",
            "k",
            "a token to send to curl",
            "another key",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        let together = walk(&pre, &views);
        for (view, seen) in views.iter().zip(&together) {
            assert_eq!(&walk(&pre, std::slice::from_ref(view))[0], seen);
        }
        // A short view records start literals only; a long one every `any` occurrence too.
        assert_eq!(together[0], (true, vec![], vec![0], vec![true, true]));
        assert_eq!(together[4].3, vec![false, true], "send is missing");
        assert!(together[2].0 && together[2].1.len() == 1 && together[2].2 == [1]);
        let (whole, occurrences, rules, _) = &together[3];
        assert!(!whole);
        assert_eq!(occurrences.len(), 4, "key and three curls");
        assert_eq!(rules, &[0, 1]);
    }

    #[test]
    fn a_long_view_walked_in_pieces_finds_what_one_walk_does() {
        let pre = prefilter();
        // Literals everywhere, also across the borders of the pieces.
        let mut view = Vec::new();
        let mut k = 0usize;
        while view.len() < 3 * SPLIT + 7 {
            let word: &[u8] = [&b"curl "[..], b"key", b"tok", b"en ", b"se", b"nd ", b"x"][k % 7];
            view.extend_from_slice(word);
            k += 1;
        }
        let mut one = Found::default();
        pre.begin(&mut one, view.len());
        pre.dfa.walk_from(pre.dfa.start(), &view, |state, end| {
            pre.record(&mut one, state, end);
        });
        let mut walk = Walk::default();
        pre.walk_long(&view, &mut walk.pieces, &mut walk.long);
        let ends = |f: &Found| {
            f.occurrences
                .iter()
                .map(|o| (o.lit, o.end))
                .collect::<Vec<_>>()
        };
        assert_eq!(ends(&walk.long), ends(&one));
        assert!(ends(&one).len() > 1000);
        let mut groups = walk.long.any_groups.clone();
        groups.sort_unstable();
        assert_eq!(groups.len(), 2);
        assert_eq!(walk.long.groups.0, one.groups.0);
    }
}
