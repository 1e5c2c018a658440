//! The literal prefilter of one view: one Aho-Corasick automaton over every literal the view's rules
//! mention (`any`, `also`, and the literals their patterns need, see [`super::require`]), walked once
//! over the view. The walk records which literals occur (a bit set) and where the `any` literals
//! occur (the windows of the rule regexes). A rule runs only when its [`Cond`] holds on that bit set.

use std::collections::HashMap;

use super::automaton::Dfa;
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
    /// Occurrences of literals that are some rule's `any` or start literal, in order of their end.
    pub occurrences: Vec<Occurrence>,
}

/// The literal prefilter of one view (or of the raw and fold views together, see `Table::fused`).
#[derive(Debug)]
pub struct Prefilter {
    dfa: Dfa,
    /// For each literal id: its length, the rules it is an `any` literal of.
    lens: Vec<u32>,
    group_count: usize,
    /// For each match state of `dfa`: the groups it makes hold, `groups[group_ends[s]..group_ends[s + 1]]`,
    /// and the literals to record an occurrence of, `occurs[occur_ends[s]..occur_ends[s + 1]]`.
    group_ends: Vec<u32>,
    groups: Vec<u32>,
    occur_ends: Vec<u32>,
    occurs: Vec<u32>,
    pub any_of: Vec<Box<[u32]>>,
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
        for r in rules {
            let rule = r.rule as u32;
            for lit in r.starts.unwrap_or_default() {
                let id = b.id(lit) as usize;
                b.start_of[id].push(rule);
            }
            anchored[r.rule] = r.starts.is_some();
            line_start[r.rule] = r.line_start;
            // The `any` group holds whenever the rule is considered (see `matcher`).
            let mut parts = Vec::new();
            for lit in &r.any {
                let id = b.id(lit) as usize;
                if !b.any_of[id].contains(&rule) {
                    b.any_of[id].push(rule);
                }
            }
            parts.extend(r.also.iter().map(|g| b.group(g)));
            parts.push(b.need(r.needs));
            conds[r.rule] = Some(Cond::All(parts.into()));
        }
        let dfa = Dfa::new(&b.literals, case_insensitive)?;
        let (mut group_ends, mut groups) = (vec![0u32], Vec::new());
        let (mut occur_ends, mut occurs) = (vec![0u32], Vec::new());
        for state in 0..dfa.match_states() {
            let mut gs: Vec<u32> = Vec::new();
            for &lit in dfa.literals_at(state) {
                let lit_index = lit as usize;
                gs.extend(&b.groups_of[lit_index]);
                if !b.any_of[lit_index].is_empty() || !b.start_of[lit_index].is_empty() {
                    occurs.push(lit);
                }
            }
            gs.sort_unstable();
            gs.dedup();
            groups.extend(gs);
            group_ends.push(groups.len() as u32);
            occur_ends.push(occurs.len() as u32);
        }
        Ok(Prefilter {
            dfa,
            lens: b.literals.iter().map(|l| l.len() as u32).collect(),
            group_count: b.groups.len(),
            group_ends,
            groups,
            occur_ends,
            occurs,
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

    /// Walk the automaton over `hay`, recording every (overlapping) literal occurrence into `found`.
    pub fn walk(&self, hay: &[u8], found: &mut Found) {
        found.groups.reset(self.group_count);
        found.occurrences.clear();
        let Found {
            groups,
            occurrences,
        } = found;
        self.dfa.walk(hay, |state, end| {
            let range = |ends: &[u32]| ends[state] as usize..ends[state + 1] as usize;
            for &g in &self.groups[range(&self.group_ends)] {
                groups.insert(g);
            }
            for &lit in &self.occurs[range(&self.occur_ends)] {
                occurrences.push(Occurrence {
                    lit,
                    end: end as u32,
                });
            }
        });
    }
}
