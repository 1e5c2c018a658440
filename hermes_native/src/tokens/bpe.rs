//! Byte-pair merging of one piece, with tiktoken's exact semantics: repeatedly merge the adjacent
//! pair whose concatenation has the lowest rank, the leftmost one on ties, until no adjacent pair is
//! a token.
//!
//! Two implementations give the same result: a quadratic scan over small arrays (tiktoken's own
//! approach, fastest for the short pieces of ordinary text) and, for long pieces such as 100 KB of
//! base64, a linked list with a min-heap keyed by (rank, position) that keeps the work near-linear.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::vocab::{Vocab, NONE};

/// Pieces longer than this (in bytes) use the heap-based merge.
const HEAP_THRESHOLD: usize = 48;

/// Scratch buffers reused across pieces.
#[derive(Default)]
pub struct Merger {
    /// Start offset of each part of the array merge, plus the end of the piece.
    starts: Vec<u32>,
    /// `ranks[i]`: rank of parts `i` and `i + 1` merged, or `NONE`.
    ranks: Vec<u32>,
    nodes: Vec<Node>,
    /// Min-heap of `rank << 32 | index`: one integer compare orders by rank, then leftmost.
    heap: BinaryHeap<Reverse<u64>>,
}

#[inline(always)]
fn key(rank: u32, index: u32) -> u64 {
    u64::from(rank) << 32 | u64::from(index)
}

#[derive(Clone, Copy)]
struct Node {
    /// Byte offset of the part, `NONE` once merged into its predecessor.
    start: u32,
    prev: u32,
    next: u32,
    /// Rank of this part merged with the next one, or `NONE`.
    rank: u32,
}

impl Merger {
    /// Number of tokens `piece` (at least two bytes, not itself a token) encodes to.
    pub fn count(&mut self, vocab: &Vocab, piece: &[u8]) -> usize {
        if piece.len() > HEAP_THRESHOLD {
            self.heap_merge(vocab, piece);
            self.heap_bounds().count()
        } else {
            self.array_merge(vocab, piece);
            self.starts.len() - 1
        }
    }

    /// Append the tokens of `piece` (at least two bytes, not itself a token) to `out`.
    pub fn encode(&mut self, vocab: &Vocab, piece: &[u8], out: &mut Vec<u32>) {
        // Every part left after merging is a token: single bytes are, and a merge only ever
        // creates a part whose bytes have a rank.
        let rank_of = |(start, end): (usize, usize)| vocab.rank_or_none(&piece[start..end]);
        if piece.len() > HEAP_THRESHOLD {
            self.heap_merge(vocab, piece);
            out.extend(self.heap_bounds().map(rank_of));
        } else {
            self.array_merge(vocab, piece);
            out.extend(
                self.starts
                    .windows(2)
                    .map(|w| rank_of((w[0] as usize, w[1] as usize))),
            );
        }
    }

    fn array_merge(&mut self, vocab: &Vocab, piece: &[u8]) {
        let (starts, ranks) = (&mut self.starts, &mut self.ranks);
        starts.clear();
        ranks.clear();
        starts.extend(0..=piece.len() as u32);
        ranks.extend(piece.windows(2).map(|w| vocab.pair_rank(w[0], w[1])));
        // Invariant: ranks.len() == starts.len() - 2 (one rank per adjacent pair of parts).
        loop {
            let mut best = (NONE, 0);
            for (i, &rank) in ranks.iter().enumerate() {
                if rank < best.0 {
                    best = (rank, i);
                }
            }
            if best.0 == NONE {
                break;
            }
            let i = best.1;
            // Part i absorbs part i + 1; then re-rank its pairs with both neighbours.
            starts.remove(i + 1);
            ranks.remove(i);
            let rank_between =
                |a: usize| vocab.rank_or_none(&piece[starts[a] as usize..starts[a + 2] as usize]);
            if i < ranks.len() {
                ranks[i] = rank_between(i);
            }
            if i > 0 {
                ranks[i - 1] = rank_between(i - 1);
            }
        }
    }

    fn heap_merge(&mut self, vocab: &Vocab, piece: &[u8]) {
        let n = piece.len();
        let nodes = &mut self.nodes;
        let heap = &mut self.heap;
        nodes.clear();
        heap.clear();
        for i in 0..n {
            let rank = if i + 1 < n {
                vocab.pair_rank(piece[i], piece[i + 1])
            } else {
                NONE
            };
            let next = if i + 1 < n { (i + 1) as u32 } else { NONE };
            let prev = if i > 0 { (i - 1) as u32 } else { NONE };
            nodes.push(Node {
                start: i as u32,
                prev,
                next,
                rank,
            });
            if rank != NONE {
                heap.push(Reverse(key(rank, i as u32)));
            }
        }
        // Rank of node `i` merged with its successor.
        let pair_rank = |nodes: &[Node], i: u32| -> u32 {
            let next = nodes[i as usize].next;
            if next == NONE {
                return NONE;
            }
            let after = nodes[next as usize].next;
            let end = if after == NONE {
                n
            } else {
                nodes[after as usize].start as usize
            };
            vocab.rank_or_none(&piece[nodes[i as usize].start as usize..end])
        };
        while let Some(Reverse(entry)) = heap.pop() {
            let (rank, i) = ((entry >> 32) as u32, entry as u32);
            // Entries are never removed when a rank changes; skip the stale ones. Node indices equal
            // start offsets, so (rank, index) order is tiktoken's lowest-rank-then-leftmost order.
            let node = nodes[i as usize];
            if node.rank != rank || node.start == NONE {
                continue;
            }
            let gone = node.next as usize;
            let after = nodes[gone].next;
            nodes[gone].start = NONE;
            nodes[i as usize].next = after;
            if after != NONE {
                nodes[after as usize].prev = i;
            }
            let new_rank = pair_rank(nodes, i);
            nodes[i as usize].rank = new_rank;
            if new_rank != NONE {
                heap.push(Reverse(key(new_rank, i)));
            }
            if node.prev != NONE {
                let prev_rank = pair_rank(nodes, node.prev);
                nodes[node.prev as usize].rank = prev_rank;
                if prev_rank != NONE {
                    heap.push(Reverse(key(prev_rank, node.prev)));
                }
            }
        }
    }

    /// Byte ranges of the parts left by `heap_merge`, in order.
    fn heap_bounds(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let nodes = &self.nodes;
        let total = nodes.len();
        let mut i = if total == 0 { NONE } else { 0 };
        std::iter::from_fn(move || {
            if i == NONE {
                return None;
            }
            let node = nodes[i as usize];
            let end = if node.next == NONE {
                total
            } else {
                nodes[node.next as usize].start as usize
            };
            let range = (node.start as usize, end);
            i = node.next;
            Some(range)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    type Parts = Vec<(usize, usize)>;

    /// Both merge strategies on the same piece.
    fn both(merger: &mut Merger, vocab: &Vocab, piece: &[u8]) -> (Parts, Parts) {
        merger.array_merge(vocab, piece);
        let array = merger
            .starts
            .windows(2)
            .map(|w| (w[0] as usize, w[1] as usize))
            .collect();
        merger.heap_merge(vocab, piece);
        (array, merger.heap_bounds().collect())
    }

    #[test]
    fn heap_merge_equals_array_merge() {
        // Small alphabets make many equal-rank pairs, so tie-breaking is exercised too.
        let alphabets: [&[&str]; 3] = [
            &["a", "b", "ab", "ba"],
            &["0", "1", "9", "="],
            &["é", "中", "x", " ", "😀"],
        ];
        let mut x: u64 = 7;
        let mut merger = Merger::default();
        for enc in Encoding::ALL {
            let vocab = enc.vocab();
            for alphabet in alphabets {
                for len in 2..200 {
                    let mut piece = String::new();
                    while piece.len() < len {
                        x = x
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        piece.push_str(alphabet[(x >> 33) as usize % alphabet.len()]);
                    }
                    let (array, heap) = both(&mut merger, vocab, piece.as_bytes());
                    assert_eq!(array, heap, "{piece:?}");
                }
            }
        }
    }
}
