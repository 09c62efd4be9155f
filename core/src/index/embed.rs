//! Embedders: text to vectors. The built-in one needs no model, no download and no key; a
//! provider's embeddings come in through the same trait.

use super::text::{terms, Synonyms};
use crate::datasource::LocalBoxFuture;
use crate::error::{Error, ErrorCode};

/// A unit-length vector.
pub type Vector = Vec<f32>;

/// Texts that could not be embedded: SCHEMA_RETRIEVAL_FAILED, or a provider's own failure
/// ([`Error::from`] a [`crate::error::ProviderFailure`]).
pub fn unsearchable(why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::SchemaRetrievalFailed,
        format!("The schema index could not be searched: {why}."),
    )
}

/// Turns texts into vectors of one fixed length. An index records the `id` of the embedder
/// that built it and refuses to mix two.
pub trait Embedder {
    /// Names the embedder and its settings, e.g. `builtin-v1-512`.
    fn id(&self) -> String;

    /// One unit vector per text, in order.
    fn embed<'a>(&'a self, texts: &'a [String]) -> LocalBoxFuture<'a, Result<Vec<Vector>, Error>>;

    /// Where its dense dimensions begin, when it knows: the index keeps those before exact
    /// (posting lists) and those from here on as bytes. `None`, the default: decided from
    /// the vectors themselves.
    fn dense_from(&self) -> Option<usize> {
        None
    }
}

/// The built-in embedder: hashed features of a text's terms, their synonym concepts and their
/// character trigrams (so a misspelt word still shares most of its features). Deterministic,
/// a few microseconds per text, the same in the browser and natively.
#[derive(Debug, Clone)]
pub struct BuiltinEmbedder {
    dims: usize,
    synonyms: Synonyms,
}

/// Feature weights: a whole word, a concept it belongs to, and all its trigrams together.
const WORD: f32 = 1.0;
const CONCEPT: f32 = 1.0;
const TRIGRAMS: f32 = 0.5;

impl Default for BuiltinEmbedder {
    fn default() -> Self {
        BuiltinEmbedder::new(Synonyms::general())
    }
}

impl BuiltinEmbedder {
    /// An embedder with this synonym table, 512 dimensions.
    pub fn new(synonyms: Synonyms) -> BuiltinEmbedder {
        BuiltinEmbedder {
            dims: 512,
            synonyms,
        }
    }

    /// The vector of one text.
    pub fn vector(&self, text: &str) -> Vector {
        let mut v = vec![0f32; self.dims];
        let mut add = |feature: &str, weight: f32| {
            let h = fnv1a(feature.as_bytes());
            let i = (h % self.dims as u64) as usize;
            let sign = if h >> 63 == 0 { 1.0 } else { -1.0 };
            v[i] += sign * weight;
        };
        for term in terms(text) {
            add(&format!("w:{term}"), WORD);
            for concept in self.synonyms.concepts(&term) {
                add(&format!("c:{concept}"), CONCEPT);
            }
            let padded: Vec<char> = format!("<{term}>").chars().collect();
            let grams = padded.len().saturating_sub(2).max(1);
            let weight = TRIGRAMS / (grams as f32).sqrt();
            for g in padded.windows(3) {
                add(&format!("g:{}", g.iter().collect::<String>()), weight);
            }
        }
        normalize(&mut v);
        v
    }
}

impl Embedder for BuiltinEmbedder {
    fn id(&self) -> String {
        format!("builtin-v1-{}", self.dims)
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> LocalBoxFuture<'a, Result<Vec<Vector>, Error>> {
        Box::pin(async move { Ok(texts.iter().map(|t| self.vector(t)).collect()) })
    }

    /// Every dimension sparse: hashed features are scored exactly, however common one is.
    fn dense_from(&self) -> Option<usize> {
        Some(self.dims)
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

pub(super) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x /= norm;
        }
    }
}

/// Cosine similarity of two unit vectors (the index scores through its layout; this is the
/// plain definition its tests and benchmarks compare with).
#[cfg(any(test, feature = "internals"))]
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn related_texts_are_closer_than_unrelated_ones() {
        let e = BuiltinEmbedder::default();
        let q = e.vector("Which songs are longest?");
        let track = e.vector("Track: track id, name, milliseconds, composer");
        let ticket = e.vector("Ticket: subject, priority, status");
        assert!(similarity(&q, &track) > similarity(&q, &ticket));
        // A misspelling still shares most trigrams with its word, few with another.
        let typo = e.vector("invioces");
        assert!(
            similarity(&typo, &e.vector("invoices"))
                > similarity(&typo, &e.vector("customers")) + 0.05
        );
        // Deterministic.
        assert_eq!(e.vector("same text"), e.vector("same text"));
    }
}
