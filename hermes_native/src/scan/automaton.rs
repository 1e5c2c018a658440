//! The automaton the literal prefilter walks: aho-corasick's DFA (every overlapping occurrence of every
//! literal), laid out again for a walk over short views, where the cost is one dependent table load
//! per byte and the table's share of the CPU cache:
//! - byte classes: one per byte some literal uses (both cases of a letter share one when matching is
//!   case-insensitive), one for all other bytes;
//! - 16-bit state ids when they fit, rows of one entry per class;
//! - match states numbered first, so that "is this a match" is one comparison, and the literals each
//!   of them reports stored contiguously.

use std::collections::HashMap;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};

use crate::{Error, Result};

/// Haystacks [`Dfa::walk_lanes`] walks at once.
pub const LANES: usize = 8;

/// Transition table rows, `stride` entries per state.
#[derive(Debug)]
enum Table {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

/// A DFA reporting every occurrence of a set of literals.
#[derive(Debug)]
pub struct Dfa {
    classes: [u8; 256],
    stride: usize,
    table: Table,
    start: usize,
    /// States `0..matches` are match states.
    matches: usize,
    /// Literal ids reported by match state `s`: `lits[ends[s]..ends[s + 1]]`.
    ends: Vec<u32>,
    lits: Vec<u32>,
}

fn broken(e: impl std::fmt::Display) -> Error {
    Error::InvalidInput(format!("the scan rule table is broken: prefilter: {e}"))
}

impl Dfa {
    /// The DFA of `literals` (ids are their indexes). `case_insensitive`: ASCII letters match either
    /// case (the literals themselves are lowercase).
    pub fn new(literals: &[Vec<u8>], case_insensitive: bool) -> Result<Dfa> {
        let aho = DFA::builder()
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .ascii_case_insensitive(case_insensitive)
            .build(literals)
            .map_err(broken)?;

        // Byte classes and one representative byte per class; class 0 holds the bytes no literal uses.
        let mut used = [false; 256];
        for &b in literals.iter().flatten() {
            used[b as usize] = true;
            if case_insensitive {
                used[b.to_ascii_lowercase() as usize] = true;
                used[b.to_ascii_uppercase() as usize] = true;
            }
        }
        let unused = (0..=255u8).find(|&b| !used[b as usize]).unwrap_or(0);
        let mut classes = [0u8; 256];
        let mut reps = vec![unused];
        let mut class_of: HashMap<u8, u8> = HashMap::new();
        for b in 0..=255u8 {
            if !used[b as usize] {
                continue;
            }
            let key = if case_insensitive {
                b.to_ascii_lowercase()
            } else {
                b
            };
            let next = reps.len();
            let class = *class_of.entry(key).or_insert_with(|| {
                reps.push(b);
                next as u8
            });
            classes[b as usize] = class;
        }
        if reps.len() > 255 {
            return Err(broken("too many byte classes"));
        }
        let stride = reps.len();

        // Every state reachable from the start, breadth first.
        let start = aho.start_state(Anchored::No).map_err(broken)?;
        let mut index: HashMap<StateID, usize> = HashMap::from([(start, 0)]);
        let mut order = vec![start];
        let mut next_of: Vec<StateID> = Vec::new();
        let mut i = 0;
        while i < order.len() {
            for &b in &reps {
                let next = aho.next_state(Anchored::No, order[i], b);
                next_of.push(next);
                if let std::collections::hash_map::Entry::Vacant(slot) = index.entry(next) {
                    slot.insert(order.len());
                    order.push(next);
                }
            }
            i += 1;
        }

        // Renumber: match states first, each group in breadth-first order.
        let is_match = |s: StateID| aho.is_match(s);
        let mut number = vec![0usize; order.len()];
        let mut matches = 0;
        for (old, &s) in order.iter().enumerate() {
            if is_match(s) {
                number[old] = matches;
                matches += 1;
            }
        }
        let mut others = matches;
        for (old, &s) in order.iter().enumerate() {
            if !is_match(s) {
                number[old] = others;
                others += 1;
            }
        }
        let states = order.len();
        let mut flat = vec![0u32; states * stride];
        for old in 0..states {
            for class in 0..stride {
                let next = index[&next_of[old * stride + class]];
                flat[number[old] * stride + class] = number[next] as u32;
            }
        }
        let table = if states <= usize::from(u16::MAX) + 1 {
            Table::Narrow(flat.iter().map(|&s| s as u16).collect())
        } else {
            Table::Wide(flat)
        };

        let mut by_number = vec![start; states];
        for (old, &s) in order.iter().enumerate() {
            by_number[number[old]] = s;
        }
        let mut ends = vec![0u32];
        let mut lits = Vec::new();
        for &s in &by_number[..matches] {
            for k in 0..aho.match_len(s) {
                lits.push(aho.match_pattern(s, k).as_u32());
            }
            ends.push(lits.len() as u32);
        }
        Ok(Dfa {
            classes,
            stride,
            table,
            start: number[0],
            matches,
            ends,
            lits,
        })
    }

    /// Number of match states (the `state` values `walk` reports are below it).
    pub fn match_states(&self) -> usize {
        self.matches
    }

    /// The literals match state `state` reports.
    pub fn literals_at(&self, state: usize) -> &[u32] {
        &self.lits[self.ends[state] as usize..self.ends[state + 1] as usize]
    }

    /// The state a walk begins in.
    pub fn start(&self) -> usize {
        self.start
    }

    /// Walk `hay` from `state`, calling `on_match(state, end)` for each position `end` (exclusive)
    /// where a match state is reached; the state after the last byte.
    #[inline]
    pub fn walk_from(&self, state: usize, hay: &[u8], on_match: impl FnMut(usize, usize)) -> usize {
        match &self.table {
            Table::Narrow(t) => self.run(t, state, hay, on_match),
            Table::Wide(t) => self.run(t, state, hay, on_match),
        }
    }

    /// Walk `hay` from the start, calling `on_match(state, end)` for each position `end`
    /// (exclusive) where a match state is reached.
    #[cfg(test)]
    pub fn walk(&self, hay: &[u8], on_match: impl FnMut(usize, usize)) {
        self.walk_from(self.start, hay, on_match);
    }

    /// [`Dfa::walk_from`] over [`LANES`] haystacks of one length at once, interleaved byte by byte:
    /// a walk is a chain of dependent table loads, and the lanes' loads overlap in the memory system.
    /// `on_match(lane, state, end)`.
    #[inline]
    pub fn walk_lanes(
        &self,
        states: &mut [usize; LANES],
        hays: [&[u8]; LANES],
        on_match: impl FnMut(usize, usize, usize),
    ) {
        match &self.table {
            Table::Narrow(t) => self.run_lanes(t, states, hays, on_match),
            Table::Wide(t) => self.run_lanes(t, states, hays, on_match),
        }
    }

    #[inline(always)]
    fn step<T: Copy + Into<u32>>(&self, table: &[T], s: usize, b: u8) -> usize {
        let class = self.classes[b as usize] as usize;
        table
            .get(s * self.stride + class)
            .map_or(self.start, |&t| t.into() as usize)
    }

    #[inline(always)]
    fn run<T: Copy + Into<u32>>(
        &self,
        table: &[T],
        mut s: usize,
        hay: &[u8],
        mut on_match: impl FnMut(usize, usize),
    ) -> usize {
        for (pos, &b) in hay.iter().enumerate() {
            s = self.step(table, s, b);
            if s < self.matches {
                on_match(s, pos + 1);
            }
        }
        s
    }

    #[inline(always)]
    fn run_lanes<T: Copy + Into<u32>>(
        &self,
        table: &[T],
        states: &mut [usize; LANES],
        hays: [&[u8]; LANES],
        mut on_match: impl FnMut(usize, usize, usize),
    ) {
        let len = hays.iter().map(|h| h.len()).min().unwrap_or(0);
        let mut s = *states;
        // One position of every lane per step: indexes, not one iterator per lane.
        #[allow(clippy::needless_range_loop)]
        for pos in 0..len {
            for lane in 0..LANES {
                s[lane] = self.step(table, s[lane], hays[lane][pos]);
            }
            for (lane, &state) in s.iter().enumerate() {
                if state < self.matches {
                    on_match(lane, state, pos + 1);
                }
            }
        }
        *states = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrences(lits: &[&str], ci: bool, hay: &str) -> Vec<(u32, usize)> {
        let lits: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
        let dfa = Dfa::new(&lits, ci).unwrap();
        let mut out = Vec::new();
        dfa.walk(hay.as_bytes(), |s, end| {
            out.extend(dfa.literals_at(s).iter().map(|&l| (l, end)));
        });
        out.sort_unstable();
        out
    }

    #[test]
    fn reports_every_overlapping_occurrence() {
        assert_eq!(
            occurrences(&["he", "she", "hers", "e"], false, "ushers"),
            vec![(0, 4), (1, 4), (2, 6), (3, 4)]
        );
    }

    #[test]
    fn case_insensitive_matching_folds_ascii_letters_only() {
        assert_eq!(
            occurrences(&["key"], true, "KEY kEy key"),
            vec![(0, 3), (0, 7), (0, 11)]
        );
        assert_eq!(occurrences(&["key"], false, "KEY key"), vec![(0, 7)]);
        assert_eq!(occurrences(&["a-b"], true, "A-B a_b"), vec![(0, 3)]);
    }
}
