//! Per-thread memo of piece → token count for the count path.
//!
//! Real text repeats its multi-token pieces (rare words, identifiers, CJK phrases) often, and a hash
//! lookup is much cheaper than a merge. The memo lives in a thread-local so batch workers never
//! contend, and it is bounded: when full it is simply cleared, which keeps memory flat on adversarial
//! input without any eviction bookkeeping on the hot path.

use rustc_hash::FxHashMap;

/// Longest piece worth remembering; longer ones are rare and would bloat the memo.
const MAX_PIECE: usize = 64;
/// Entries kept before the memo is cleared.
const CAPACITY: usize = 1 << 16;

#[derive(Default)]
pub struct PieceCache {
    counts: FxHashMap<Box<[u8]>, u32>,
}

impl PieceCache {
    /// The remembered count of `piece`, or `compute()` (remembered when the piece is short).
    #[inline]
    pub fn get_or(&mut self, piece: &[u8], compute: impl FnOnce() -> usize) -> usize {
        if piece.len() > MAX_PIECE {
            return compute();
        }
        if let Some(&count) = self.counts.get(piece) {
            return count as usize;
        }
        let count = compute();
        if self.counts.len() >= CAPACITY {
            self.counts.clear();
        }
        self.counts.insert(piece.into(), count as u32);
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_short_pieces_and_stays_bounded() {
        let mut cache = PieceCache::default();
        assert_eq!(cache.get_or(b"abc", || 2), 2);
        assert_eq!(cache.get_or(b"abc", || unreachable!()), 2);
        for i in 0..CAPACITY + 10 {
            cache.get_or(i.to_string().as_bytes(), || 1);
        }
        assert!(cache.counts.len() <= CAPACITY);
        let long = vec![b'x'; MAX_PIECE + 1];
        assert_eq!(cache.get_or(&long, || 7), 7);
        assert!(!cache.counts.contains_key(long.as_slice()));
    }
}
