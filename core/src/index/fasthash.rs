//! A fast hasher for the index's maps (trigrams, lower-cased values, positions): the
//! standard SipHash was a third of the time a page spent building the value index. Not
//! resistant to chosen collisions; the worst a hostile database can do is slow its own
//! indexing in the page that opened it.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing, one machine word at a time.
#[derive(Debug, Clone, Copy, Default)]
pub struct FastHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_equally_and_nearby_keys_differently() {
        let hash = |s: &str| {
            let mut h = FastHasher::default();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_eq!(hash("rock"), hash("rock"));
        assert_ne!(hash("rock"), hash("rocks"));
        assert_ne!(hash("abcdefgh1"), hash("abcdefgh2"));
        let mut m: FastMap<u64, u32> = FastMap::default();
        m.insert(7, 1);
        assert_eq!(m.get(&7), Some(&1));
    }
}
