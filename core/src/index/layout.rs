//! The index's vectors laid out for search at warehouse scale.
//!
//! A warehouse of 2,000 tables makes some 95,000 entries; one vector of 768 floats per
//! entry, each scanned whole, reads nearly 300 MB per question. So the dimensions are
//! split where the vectors change character ([`split`]). The leading dimensions most
//! entries leave at zero (the built-in embedder's hashed features) are kept as one posting
//! list per dimension, of the entries that have it, with their exact values; the trailing
//! ones nearly every entry sets (a semantic embedder's, all of a provider's) as one
//! row-major block of bytes, each row with its own scale. A question's scores are its
//! non-zero sparse dimensions' postings summed, plus one integer dot product per wanted
//! entry over the block.
//!
//! No entry is ever skipped. The sparse part adds its terms in dimension order, as a plain
//! scan does, so an embedder with no dense block (the built-in one, which says so however
//! common one of its features is) scores bit for bit as before. The block keeps each value to 1/254 of its row's largest (8 bits), a quarter of
//! the memory and of the reads; a similarity moves by about a thousandth.

use super::embed::Vector;

/// A trailing dimension is dense when at least this share of the entries set it.
const DENSE_SHARE: f64 = 0.5;

/// Where `vectors` (all of one length) turn dense, for an embedder that does not say
/// ([`Embedder::dense_from`](super::embed::Embedder::dense_from)): the first of the
/// trailing dimensions that at least half of them set. Decided once for a whole index, so
/// every part of it adds the same terms in the same order.
pub fn split(vectors: &[Vector]) -> usize {
    let dims = vectors.first().map_or(0, Vec::len);
    let mut set = vec![0usize; dims];
    for v in vectors {
        for (d, x) in v.iter().enumerate().take(dims) {
            set[d] += usize::from(*x != 0.0);
        }
    }
    let dense = |d: usize| set[d] as f64 >= DENSE_SHARE * vectors.len() as f64;
    let mut split = dims;
    while split > 0 && dense(split - 1) {
        split -= 1;
    }
    split
}

/// The vectors of a part of an index, laid out for [`Layout::scores`].
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// How many entries.
    entries: usize,
    /// How many dimensions every vector has.
    dims: usize,
    /// Dimensions from here on are in `dense`; those before, in `postings`.
    split: usize,
    /// For each sparse dimension, the entries that set it and their values, entries in
    /// order.
    postings: Vec<Vec<(u32, f32)>>,
    /// Each entry's dense dimensions as bytes, entry after entry; a value is its byte times
    /// its row's scale.
    dense: Vec<i8>,
    /// Each entry's dense scale.
    scales: Vec<f32>,
}

impl Layout {
    /// Lays out `vectors` (all of one length), dimensions from `split` on dense.
    pub fn new(vectors: &[Vector], split: usize) -> Layout {
        let dims = vectors.first().map_or(0, Vec::len);
        let split = split.min(dims);
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); split];
        let mut block = Vec::with_capacity(vectors.len() * (dims - split));
        let mut scales = Vec::with_capacity(vectors.len());
        for (e, v) in vectors.iter().enumerate() {
            for (d, x) in v.iter().enumerate().take(split) {
                if *x != 0.0 {
                    postings[d].push((e as u32, *x));
                }
            }
            let tail = v.get(split..dims).unwrap_or_default();
            let scale = tail.iter().fold(0f32, |m, x| m.max(x.abs())) / 127.0;
            scales.push(scale);
            block.extend(tail.iter().map(|x| quantise(*x, scale)));
        }
        Layout {
            entries: vectors.len(),
            dims,
            split,
            postings,
            dense: block,
            scales,
        }
    }

    /// The dot product of `query` with every entry's vector, one score per entry: exact for
    /// the entries `wanted` accepts (0 + the sparse part only for the others, which the
    /// caller drops). A query of another length scores what the dimensions they share say.
    pub fn scores(&self, query: &[f32], wanted: impl Fn(usize) -> bool) -> Vec<f32> {
        let mut scores = vec![0f32; self.entries];
        for (d, list) in self.postings.iter().enumerate() {
            let q = query.get(d).copied().unwrap_or(0.0);
            if q == 0.0 {
                continue;
            }
            for &(e, x) in list {
                scores[e as usize] += q * x;
            }
        }
        let width = self.dims - self.split;
        let tail: Vec<f32> = (self.split..self.dims)
            .map(|d| query.get(d).copied().unwrap_or(0.0))
            .collect();
        let largest = tail.iter().fold(0f32, |m, x| m.max(x.abs()));
        if width == 0 || largest == 0.0 {
            return scores;
        }
        // The question's part in 16-bit integers, as fine as a sum of `width` products of
        // them with bytes allows without overflowing 32 bits.
        // Floored: rounding the largest value up could carry the sum past `i32::MAX`.
        let top = (i32::MAX as f32 / (width as f32 * 127.0))
            .min(i16::MAX as f32)
            .floor();
        let q_scale = largest / top;
        let q: Vec<i16> = tail.iter().map(|x| (x / q_scale).round() as i16).collect();
        for (e, ((score, row), scale)) in (scores.iter_mut())
            .zip(self.dense.chunks_exact(width))
            .zip(&self.scales)
            .enumerate()
        {
            if wanted(e) {
                *score += dot(&q, row) as f32 * (scale * q_scale);
            }
        }
        scores
    }

    /// Entry `at`'s vector, as the embedder gave it.
    pub fn vector(&self, at: usize) -> Vector {
        let mut v = vec![0f32; self.dims];
        for (d, list) in self.postings.iter().enumerate() {
            if let Ok(i) = list.binary_search_by_key(&(at as u32), |(e, _)| *e) {
                v[d] = list[i].1;
            }
        }
        let width = self.dims - self.split;
        let scale = self.scales.get(at).copied().unwrap_or(0.0);
        if let Some(row) = self.dense.get(at * width..(at + 1) * width) {
            for (x, b) in v[self.split..].iter_mut().zip(row) {
                *x = f32::from(*b) * scale;
            }
        }
        v
    }

    /// About how many bytes it holds.
    pub fn approx_bytes(&self) -> usize {
        let postings: usize = self.postings.iter().map(|l| l.len() * 8 + 24).sum();
        postings + self.dense.len() + self.scales.len() * 4
    }
}

fn quantise(x: f32, scale: f32) -> i8 {
    if scale == 0.0 {
        return 0;
    }
    (x / scale).round().clamp(-127.0, 127.0) as i8
}

/// An integer dot product: exact in any order, so the compiler adds it in vector lanes (a
/// float sum must add in order and stays scalar). The bytes are widened sixteen at a time
/// first, which the compiler pairs with the multiplies (a quarter faster than widening
/// each as it is multiplied, measured). Kept out of line: inlined into the scan's loop it
/// was left scalar.
#[inline(never)]
fn dot(q: &[i16], row: &[i8]) -> i32 {
    const CHUNK: usize = 16;
    let (qs, rows) = (q.chunks_exact(CHUNK), row.chunks_exact(CHUNK));
    let mut sum: i32 = (qs.remainder().iter())
        .zip(rows.remainder())
        .map(|(a, b)| i32::from(*a) * i32::from(*b))
        .sum();
    for (qc, rc) in qs.zip(rows) {
        let mut wide = [0i16; CHUNK];
        for (w, b) in wide.iter_mut().zip(rc) {
            *w = i16::from(*b);
        }
        sum += (qc.iter().zip(&wide))
            .map(|(a, b)| i32::from(*a) * i32::from(*b))
            .sum::<i32>();
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::embed::similarity;

    #[test]
    fn scores_are_the_plain_dot_products() {
        // Twelve sparse leading dimensions, then ten nearly every entry sets.
        let vectors: Vec<Vector> = (0..40)
            .map(|e| {
                (0..22)
                    .map(|d| match d {
                        d if d < 12 && (e * 7 + d) % 5 == 0 => (e + d) as f32 * 0.1 - 1.0,
                        d if d < 12 => 0.0,
                        _ if e == 3 => 0.0,
                        _ => ((e * 3 + d) % 11) as f32 * 0.05 - 0.2,
                    })
                    .collect()
            })
            .collect();
        assert_eq!(split(&vectors), 12);
        let layout = Layout::new(&vectors, 12);
        let query: Vector = (0..22).map(|d| (d % 4) as f32 * 0.25 - 0.3).collect();
        let scores = layout.scores(&query, |e| e % 2 == 0);
        for (e, v) in vectors.iter().enumerate() {
            let back = layout.vector(e);
            assert_eq!(back[..12], v[..12]);
            assert!(back.iter().zip(v).all(|(a, b)| (a - b).abs() < 0.002), "{e}");
            if e % 2 == 0 {
                assert!((scores[e] - similarity(&query, v)).abs() < 0.01, "{e}");
            }
        }
    }

    #[test]
    fn a_sparse_embedding_scores_bit_for_bit_as_a_plain_scan() {
        let vectors: Vec<Vector> = (0..30)
            .map(|e| {
                (0..16)
                    .map(|d| if (e + d) % 6 == 0 { 0.3 + e as f32 * 0.01 } else { 0.0 })
                    .collect()
            })
            .collect();
        assert_eq!(split(&vectors), 16);
        let layout = Layout::new(&vectors, 16);
        let query: Vector = (0..16).map(|d| if d % 3 == 0 { 0.7 } else { 0.0 }).collect();
        let scores = layout.scores(&query, |_| true);
        for (e, v) in vectors.iter().enumerate() {
            let plain: f32 = (query.iter().zip(v))
                .filter(|(q, _)| **q != 0.0)
                .map(|(q, x)| q * x)
                .sum();
            assert_eq!(scores[e].to_bits(), (plain + 0.0).to_bits(), "{e}");
        }
    }

    #[test]
    fn no_vectors_and_short_queries_score_nothing_wrong() {
        let empty = Layout::new(&[], 0);
        assert!(empty.scores(&[1.0], |_| true).is_empty());
        let vectors = [vec![1.0, 0.5], vec![0.5, 1.0]];
        assert_eq!(split(&vectors), 0);
        let layout = Layout::new(&vectors, 0);
        let scores = layout.scores(&[1.0], |_| true);
        assert!((scores[0] - 1.0).abs() < 0.01 && (scores[1] - 0.5).abs() < 0.01);
        // A row of zeros scores zero, not NaN.
        let zero = Layout::new(&[vec![0.0, 0.0]], 0);
        assert_eq!(zero.scores(&[1.0, 1.0], |_| true), vec![0.0]);
    }
}
