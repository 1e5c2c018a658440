//! The mergeable ranks of one encoding, built lazily from the data compiled into the extension.
//!
//! `build/tokens.rs` decodes the bundled `.tiktoken.gz` files into one length byte per rank plus the
//! concatenated token bytes, so building the table is a single pass of slicing and hashing with no
//! allocation per token: the map's keys borrow the `'static` embedded bytes.

use rustc_hash::FxHashMap;

/// Bytes ↔ rank for one encoding.
pub struct Vocab {
    ranks: FxHashMap<&'static [u8], u32>,
    tokens: Vec<&'static [u8]>,
}

impl Vocab {
    /// Build from generated data: `lens[r]` is the byte length of rank `r`, `bytes` all tokens in
    /// rank order.
    pub fn from_embedded(lens: &'static [u8], bytes: &'static [u8]) -> Self {
        let mut ranks = FxHashMap::with_capacity_and_hasher(lens.len(), Default::default());
        let mut tokens = Vec::with_capacity(lens.len());
        let mut offset = 0;
        for (rank, &len) in lens.iter().enumerate() {
            let token = &bytes[offset..offset + usize::from(len)];
            offset += usize::from(len);
            ranks.insert(token, rank as u32);
            tokens.push(token);
        }
        debug_assert_eq!(offset, bytes.len());
        Vocab { ranks, tokens }
    }

    /// The rank of `piece` if it is a single token.
    #[inline(always)]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        self.ranks.get(piece).copied()
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
