//! A semantic embedder that runs offline: static token vectors (one per sub-word of a
//! byte-pair vocabulary), averaged over a text's tokens. Words that share no letters but
//! mean nearly the same thing ("clients", "customers") land close together, which the
//! lexical embedder cannot see. It is blended with the lexical one, never used alone: an
//! exact schema word is still the strongest evidence.
//!
//! The weights come in as bytes (core reads no files): the format `xtask embedder` writes,
//! described at [`SemanticEmbedder::from_bytes`].

use super::embed::{BuiltinEmbedder, Embedder, Vector};
use super::text::content_words;
use crate::datasource::LocalBoxFuture;
use crate::error::{Error, ErrorCode};
use std::collections::HashMap;

/// The first bytes of a weights file.
const MAGIC: &[u8; 8] = b"N2SEMB01";

/// SentencePiece's word-start mark: a text's spaces become this before tokenising.
const WORD_START: char = '\u{2581}';

/// The characters of a word that are tokenised (the vocabulary's longest token is 16).
const WORD_CHARS: usize = 48;

/// Static token vectors and the byte-pair merges that cut a text into their tokens.
#[derive(Debug, Clone)]
pub struct SemanticEmbedder {
    name: String,
    dims: usize,
    vocab: HashMap<String, u32>,
    /// `(left, right) -> (rank, merged)`: a lower rank merges first.
    merges: HashMap<(u32, u32), (u32, u32)>,
    scales: Vec<f32>,
    /// `vocab × dims` signed bytes, each row times its scale.
    rows: Vec<i8>,
}

/// Reads the weights, front to back, refusing anything short or out of range.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err(invalid(format!(
                "it ends at byte {} where {n} more were expected",
                self.bytes.len()
            )));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16(&mut self) -> Result<u16, Error> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
}

fn invalid(why: String) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("The semantic embedder's weights cannot be read: {why}."),
    )
}

impl SemanticEmbedder {
    /// Parses weights: `N2SEMB01`, then little-endian `u32` vocabulary size, dimensions and
    /// merge count; each token as a `u16` byte length and its UTF-8; each merge as three
    /// `u32` (left, right, merged token), best first; one `f32` scale per token; and the
    /// `vocabulary × dimensions` matrix as signed bytes. `name` identifies them in the
    /// index's embedder id.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<SemanticEmbedder, Error> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return Err(invalid("it does not start with N2SEMB01".to_string()));
        }
        let size = r.u32()? as usize;
        let dims = r.u32()? as usize;
        let merge_count = r.u32()? as usize;
        // Every count is bounded by the bytes that must follow it, before anything is
        // allocated for it: hostile counts cannot ask for gigabytes. Each token takes at
        // least two length bytes, four scale bytes and its row (`dims` is bounded first,
        // so adding to it cannot overflow).
        let fits = |size: usize| {
            (1..=4096).contains(&dims)
                && size
                    .checked_mul(dims + 6)
                    .is_some_and(|m| m <= bytes.len())
        };
        if size == 0 || !fits(size) {
            return Err(invalid(format!(
                "{size} tokens of {dims} dimensions is not a vocabulary of this size"
            )));
        }
        if merge_count > bytes.len() / 12 {
            return Err(invalid(format!("{merge_count} merges do not fit in it")));
        }
        let mut vocab = HashMap::with_capacity(size);
        for id in 0..size {
            let len = usize::from(r.u16()?);
            let token = std::str::from_utf8(r.take(len)?)
                .map_err(|_| invalid(format!("token {id} is not UTF-8")))?;
            vocab.insert(token.to_string(), id as u32);
        }
        let mut merges = HashMap::with_capacity(merge_count);
        for rank in 0..merge_count {
            let (left, right, merged) = (r.u32()?, r.u32()?, r.u32()?);
            if [left, right, merged].iter().any(|t| *t as usize >= size) {
                return Err(invalid(format!("merge {rank} names a token past the vocabulary")));
            }
            merges.entry((left, right)).or_insert((rank as u32, merged));
        }
        let scales = r
            .take(size.saturating_mul(4))?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect::<Vec<f32>>();
        if scales.iter().any(|s| !s.is_finite()) {
            return Err(invalid("a token's scale is not a number".to_string()));
        }
        let rows = r
            .take(size.saturating_mul(dims))?
            .iter()
            .map(|b| *b as i8)
            .collect();
        if r.at != bytes.len() {
            return Err(invalid(format!(
                "{} bytes follow the matrix",
                bytes.len() - r.at
            )));
        }
        Ok(SemanticEmbedder {
            name: name.to_string(),
            dims,
            vocab,
            merges,
            scales,
            rows,
        })
    }

    /// A word's tokens: its characters (bytes where a character has no token), merged pair
    /// by pair, the best-ranked pair first. Words are tokenised one at a time, so a merge
    /// never spans two words, and only their first [`WORD_CHARS`] characters: merging is
    /// quadratic in a word's length, and a hostile text may be one long word.
    fn tokens(&self, word: &str, out: &mut Vec<u32>) {
        let mut symbols: Vec<u32> = Vec::with_capacity(WORD_CHARS);
        let mut buf = [0u8; 4];
        for c in word.chars().take(WORD_CHARS) {
            match self.vocab.get(c.encode_utf8(&mut buf) as &str) {
                Some(id) => symbols.push(*id),
                None => symbols.extend(
                    c.encode_utf8(&mut buf)
                        .bytes()
                        .filter_map(|b| self.vocab.get(&format!("<0x{b:02X}>")).copied()),
                ),
            }
        }
        loop {
            let best = symbols
                .windows(2)
                .enumerate()
                .filter_map(|(i, w)| self.merges.get(&(w[0], w[1])).map(|m| (m.0, i, m.1)))
                .min();
            let Some((_, i, merged)) = best else { break };
            symbols[i] = merged;
            symbols.remove(i + 1);
        }
        out.extend(symbols);
    }

    /// A text's unit vector: its words (identifiers split, lower-cased, stopwords dropped)
    /// tokenised, their token vectors averaged. A text with no such word is the zero
    /// vector, similar to nothing.
    pub fn vector(&self, text: &str) -> Vector {
        let mut ids = Vec::new();
        for w in content_words(text) {
            self.tokens(&format!("{WORD_START}{w}"), &mut ids);
        }
        let mut v = vec![0f32; self.dims];
        for id in ids {
            let id = id as usize;
            let scale = self.scales[id];
            let row = &self.rows[id * self.dims..(id + 1) * self.dims];
            for (x, q) in v.iter_mut().zip(row) {
                *x += scale * f32::from(*q);
            }
        }
        super::embed::normalize(&mut v);
        v
    }
}

impl Embedder for SemanticEmbedder {
    fn id(&self) -> String {
        format!("{}-{}", self.name, self.dims)
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> LocalBoxFuture<'a, Result<Vec<Vector>, Error>> {
        Box::pin(async move { Ok(texts.iter().map(|t| self.vector(t)).collect()) })
    }

    fn dense_from(&self) -> Option<usize> {
        Some(0)
    }
}

/// The lexical and the semantic embedder side by side: one vector, the lexical part scaled
/// by `√(1 − share)` and the semantic part by `√share`, so a similarity is
/// `(1 − share) × lexical + share × semantic`, and the index, its sparse search and every
/// signal work unchanged.
#[derive(Debug, Clone)]
pub struct BlendedEmbedder {
    lexical: BuiltinEmbedder,
    semantic: SemanticEmbedder,
    share: f32,
}

impl BlendedEmbedder {
    /// The semantic part's share of a similarity that routing and retrieval use: chosen on
    /// the dev split of the analysts' corpus (`tests/tests/corpus_routing.rs`), where 0.5
    /// routed 79.9 % of its questions first, 0.7 82.3 %, and 0.3 76.6 %.
    pub const SHARE: f32 = 0.7;

    /// The semantic embedder's share of a similarity, clamped to 0–1.
    pub fn new(lexical: BuiltinEmbedder, semantic: SemanticEmbedder, share: f32) -> Self {
        BlendedEmbedder {
            lexical,
            semantic,
            share: share.clamp(0.0, 1.0),
        }
    }

    /// One text's blended unit vector.
    pub fn vector(&self, text: &str) -> Vector {
        let lexical = self.lexical.vector(text);
        let semantic = self.semantic.vector(text);
        let (a, b) = ((1.0 - self.share).sqrt(), self.share.sqrt());
        // Either part may be zero (a text of no word); the other keeps its own weight, so
        // the blend is not renormalised.
        lexical
            .iter()
            .map(|x| x * a)
            .chain(semantic.iter().map(|x| x * b))
            .collect()
    }
}

impl Embedder for BlendedEmbedder {
    fn id(&self) -> String {
        format!(
            "{}+{}@{:.2}",
            self.lexical.id(),
            self.semantic.id(),
            self.share
        )
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> LocalBoxFuture<'a, Result<Vec<Vector>, Error>> {
        Box::pin(async move { Ok(texts.iter().map(|t| self.vector(t)).collect()) })
    }

    /// The lexical part exact, the semantic part as bytes.
    fn dense_from(&self) -> Option<usize> {
        self.lexical.dense_from()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six tokens: `▁`, `a`, `b`, `▁a` (from `▁` + `a`), `▁ab` (from `▁a` + `b`) and the
    /// byte `!`, in two dimensions.
    fn tiny() -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        for n in [6u32, 2, 2] {
            b.extend(n.to_le_bytes());
        }
        for t in ["\u{2581}", "a", "b", "\u{2581}a", "\u{2581}ab", "<0x21>"] {
            b.extend((t.len() as u16).to_le_bytes());
            b.extend(t.as_bytes());
        }
        for m in [[0u32, 1, 3], [3, 2, 4]] {
            for x in m {
                b.extend(x.to_le_bytes());
            }
        }
        for _ in 0..6 {
            b.extend(1.0f32.to_le_bytes());
        }
        b.extend([1i8, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0].map(|x| x as u8));
        b
    }

    #[test]
    fn merges_best_ranked_pairs_and_falls_back_to_bytes() {
        let e = SemanticEmbedder::from_bytes("tiny", &tiny()).expect("valid weights");
        let mut ids = Vec::new();
        e.tokens("\u{2581}ab", &mut ids);
        assert_eq!(ids, vec![4]);
        ids.clear();
        e.tokens("\u{2581}b!", &mut ids);
        assert_eq!(ids, vec![0, 2, 5]);
        // A hostile word of 100,000 letters: only its first WORD_CHARS are merged.
        ids.clear();
        e.tokens(&"b".repeat(100_000), &mut ids);
        assert_eq!(ids.len(), WORD_CHARS);
        // `ab` is token 4, whose row is (1, 0): its unit vector.
        assert_eq!(e.vector("AB"), vec![1.0, 0.0]);
        assert_eq!(e.id(), "tiny-2");
    }

    #[test]
    fn refuses_short_foreign_or_padded_weights() {
        let good = tiny();
        // Counts that would ask for gigabytes, and a merge naming token 99 of six.
        let huge = [MAGIC.to_vec(), [u32::MAX, 4096, u32::MAX].map(u32::to_le_bytes).concat()];
        let wide = [MAGIC.to_vec(), [6, u32::MAX, 2].map(u32::to_le_bytes).concat()];
        let mut stray = good.clone();
        // The header, then each token as two length bytes and its UTF-8.
        let first_merge = MAGIC.len() + 12 + [5, 3, 3, 6, 7, 8].iter().sum::<usize>();
        stray[first_merge..first_merge + 4].copy_from_slice(&99u32.to_le_bytes());
        for bad in [
            b"NOTMAGIC".to_vec(),
            good[..good.len() - 1].to_vec(),
            [good.clone(), vec![0]].concat(),
            Vec::new(),
            huge.concat(),
            wide.concat(),
            stray,
        ] {
            let e = SemanticEmbedder::from_bytes("tiny", &bad).expect_err("refused");
            assert_eq!(e.code, ErrorCode::ConfigInvalid, "{e}");
        }
    }

    #[test]
    fn a_blend_weighs_both_parts() {
        let semantic = SemanticEmbedder::from_bytes("tiny", &tiny()).expect("valid weights");
        let blend = BlendedEmbedder::new(BuiltinEmbedder::default(), semantic, 0.25);
        let v = blend.vector("ab");
        let norm: f32 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        assert!((v[512] - 0.5).abs() < 1e-6, "{}", v[512]);
        assert_eq!(blend.id(), "builtin-v1-512+tiny-2@0.25");
    }
}
