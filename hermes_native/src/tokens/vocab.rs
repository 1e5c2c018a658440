//! The mergeable ranks of one encoding, built lazily from the data compiled into the extension.
//!
//! `build/tokens.rs` decodes the bundled `.tiktoken.gz` files into one length byte per rank plus the
//! concatenated token bytes, so building the tables is a single pass with no allocation per token.
//!
//! Lookups are the hot loop of byte-pair merging, so the table is split by key length: single bytes
//! and byte pairs are direct array lookups, keys of 3 to 8 bytes are packed into a `u64` (one hash
//! table per length, no pointer chasing or byte comparison), and only longer keys go through a map
//! keyed by byte slices that borrow the `'static` embedded data.

use rustc_hash::FxHashMap;

/// Rank meaning "not a token".
pub const NONE: u32 = u32::MAX;
/// Keys up to this many bytes are looked up packed into a `u64`.
const PACKED_MAX: usize = 8;

/// Bytes ↔ rank for one encoding.
pub struct Vocab {
    /// Rank of every two-byte token, indexed by `b0 << 8 | b1`, or `NONE`.
    pairs: Vec<u32>,
    /// `packed[len - 3]`: tokens of `len` bytes (3..=8) keyed by their little-endian packing.
    packed: Vec<FxHashMap<u64, u32>>,
    /// Tokens longer than `PACKED_MAX` bytes.
    long: FxHashMap<&'static [u8], u32>,
    /// Rank of each single byte (every byte is a token in byte-level BPE).
    bytes: [u32; 256],
    /// Rank → token bytes.
    tokens: Vec<&'static [u8]>,
}

#[inline(always)]
fn pack(key: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf[..key.len()].copy_from_slice(key);
    u64::from_le_bytes(buf)
}

impl Vocab {
    /// Build from generated data: `lens[r]` is the byte length of rank `r`, `bytes` all tokens in
    /// rank order.
    pub fn from_embedded(lens: &'static [u8], bytes: &'static [u8]) -> Self {
        let mut vocab = Vocab {
            pairs: vec![NONE; 1 << 16],
            packed: (3..=PACKED_MAX).map(|_| FxHashMap::default()).collect(),
            long: FxHashMap::default(),
            bytes: [NONE; 256],
            tokens: Vec::with_capacity(lens.len()),
        };
        let mut offset = 0;
        for (rank, &len) in lens.iter().enumerate() {
            let token = &bytes[offset..offset + usize::from(len)];
            offset += usize::from(len);
            let rank = rank as u32;
            match token {
                [b] => vocab.bytes[usize::from(*b)] = rank,
                [b0, b1] => vocab.pairs[usize::from(*b0) << 8 | usize::from(*b1)] = rank,
                t if t.len() <= PACKED_MAX => {
                    vocab.packed[t.len() - 3].insert(pack(t), rank);
                }
                t => {
                    vocab.long.insert(t, rank);
                }
            }
            vocab.tokens.push(token);
        }
        debug_assert_eq!(offset, bytes.len());
        debug_assert!(
            vocab.bytes.iter().all(|&r| r != NONE),
            "every byte is a token"
        );
        vocab
    }

    /// The rank of `piece` if it is a single token, else `NONE`.
    #[inline(always)]
    pub fn rank_or_none(&self, piece: &[u8]) -> u32 {
        match piece.len() {
            0 => NONE,
            1 => self.bytes[usize::from(piece[0])],
            2 => self.pair_rank(piece[0], piece[1]),
            n if n <= PACKED_MAX => self.packed[n - 3]
                .get(&pack(piece))
                .copied()
                .unwrap_or(NONE),
            _ => self.long.get(piece).copied().unwrap_or(NONE),
        }
    }

    /// The rank of `piece` if it is a single token.
    #[inline(always)]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        let rank = self.rank_or_none(piece);
        (rank != NONE).then_some(rank)
    }

    /// The rank of the two-byte token `b0 b1`, or `NONE`.
    #[inline(always)]
    pub fn pair_rank(&self, b0: u8, b1: u8) -> u32 {
        self.pairs[usize::from(b0) << 8 | usize::from(b1)]
    }

    /// The bytes of token `rank`, if it exists.
    #[inline]
    pub fn token(&self, rank: u32) -> Option<&'static [u8]> {
        self.tokens.get(rank as usize).copied()
    }

    /// Number of tokens (ranks are `0..len`).
    pub fn len(&self) -> usize {
        self.tokens.len()
    }
}

#[cfg(test)]
mod tests {
    use crate::tokens::Encoding;

    #[test]
    fn every_token_is_found_under_its_rank() {
        for enc in Encoding::ALL {
            let vocab = enc.vocab();
            for rank in 0..vocab.len() as u32 {
                assert_eq!(vocab.rank(vocab.token(rank).unwrap()), Some(rank));
            }
            assert_eq!(vocab.rank(b""), None);
            assert_eq!(vocab.rank(&[0xff; 9]), None);
            assert_eq!(vocab.rank(&[0xff, 0xfe, 0xfd]), None);
        }
    }
}
